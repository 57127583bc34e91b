import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sqlTokenize } from '../../../lib/sql/lexer.ts';
import { SqlError } from '../../../lib/sql/errors.ts';

function kinds(text: string): string[] {
  return sqlTokenize(text).map((token) => token.kind);
}

function lexError(text: string): SqlError {
  try {
    sqlTokenize(text);
  } catch (error) {
    assert.ok(error instanceof SqlError);
    return error;
  }
  assert.fail(`no error for ${text}`);
}

describe('sql lexer', () => {
  it('drops -- and /* */ comments and keeps /*+ */ hints as tokens', () => {
    assert.deepEqual(kinds('a -- x\n/* y\n */ b /*+ IndexScan(t) */ c'),
      ['word', 'word', 'hint', 'word', 'end']);
    const hint = sqlTokenize('x /*+ Leading(a b) */')[1]!;
    assert.equal(hint.kind === 'hint' && hint.text, ' Leading(a b) ');
  });

  it('keeps integers beyond 2^53 exact as bigint', () => {
    const token = sqlTokenize('9223372036854775807')[0]!;
    assert.equal(token.kind === 'integer' && token.value, 9223372036854775807n);
    const beyond = sqlTokenize('9007199254740993')[0]!;
    assert.equal(beyond.kind === 'integer' && beyond.value, 9007199254740993n);
  });

  it('reads floats, strings and quoted names with doubled quotes, blobs, parameters', () => {
    const tokens = sqlTokenize(`1.5e3 'it''s' "a""b" X'0aFF' ? ?3 :n @m`);
    const [f, s, q, b, p1, p2, p3, p4] = tokens.map((token) => token);
    assert.equal(f!.kind === 'float' && f!.value, 1500);
    assert.equal(s!.kind === 'string' && s!.value, "it's");
    assert.equal(q!.kind === 'quotedName' && q!.text, 'a"b');
    assert.deepEqual(b!.kind === 'blob' && [...b!.value], [0x0a, 0xff]);
    assert.deepEqual([p1, p2, p3, p4].map((t) => t!.kind === 'parameter' && t!.text),
      ['?', '?3', ':n', '@m']);
  });

  it('gives line and column of each token, counting lines inside strings and comments', () => {
    const tokens = sqlTokenize("SELECT\n  'a\nb' /* c\n */ x");
    assert.deepEqual(tokens.map((t) => [t.position.line, t.position.column]),
      [[1, 1], [2, 3], [4, 5], [4, 6]]);
  });

  it('refuses bad text with its position', () => {
    const cases: [string, number, number, RegExp][] = [
      ["SELECT 'abc", 1, 8, /string is not closed/],
      ['SELECT\n  "x', 2, 3, /quoted name is not closed/],
      ['a /* b', 1, 3, /comment is not closed/],
      ['SELECT 12ab', 1, 8, /runs into a name/],
      ['SELECT 1e999', 1, 8, /beyond the range of DOUBLE/],
      ['SELECT * FROM #tables', 1, 15, /double quotes/],
      ['SELECT ""', 1, 8, /quoted name is empty/],
      ["X'ABC'", 1, 1, /even number of hex digits/],
    ];
    for (const [text, line, column, message] of cases) {
      const error = lexError(text);
      assert.equal(error.code, 'SQL_COMPILE_SYNTAX_ERROR', text);
      assert.equal(error.errorNumber, 240001);
      assert.deepEqual([error.position.line, error.position.column], [line, column], text);
      assert.match(error.message, message, text);
      assert.match(error.message, new RegExp(`^syntax error at line ${line}, column ${column}: `));
    }
  });

  it('refuses a text beyond SQL_TEXT_LENGTH_MAX with LIMIT_EXCEEDED', () => {
    assert.equal(lexError(' '.repeat(1_000_001)).code, 'LIMIT_EXCEEDED');
  });
});
