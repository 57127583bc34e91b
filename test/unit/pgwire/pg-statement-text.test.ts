// A simple Query's statements and `$n` placeholders, with quotes and comments left alone.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstWord, inlineParameters, rewriteParameters, splitStatements } from '../../../lib/pgwire/pg-statement-text.ts';

describe('pg-statement-text', () => {
  it('splits at semicolons outside quotes and comments', () => {
    assert.deepEqual(splitStatements("SELECT ';' AS a; -- x;\nSELECT \"b;\" FROM t /* ; */;; E'\\';'", 10),
      ["SELECT ';' AS a", "-- x;\nSELECT \"b;\" FROM t /* ; */", "E'\\';'"]);
    assert.deepEqual(splitStatements(' ; -- only a comment\n', 10), []);
    assert.throws(() => splitStatements('SELECT 1; SELECT 2; SELECT 3', 2), { code: 'LIMIT_EXCEEDED' });
    assert.throws(() => splitStatements("SELECT 'open", 2), { code: 'SQL_COMPILE_SYNTAX_ERROR' });
  });

  it('turns $n into ? in order of appearance', () => {
    assert.deepEqual(rewriteParameters("SELECT $2, '$1', $1 -- $3\n, $2"),
      { sql: "SELECT ?, '$1', ? -- $3\n, ?", parameterOrder: [1, 0, 1], parameterCount: 2 });
    assert.throws(() => rewriteParameters('SELECT $0'), { code: 'SQL_COMPILE_SYNTAX_ERROR' });
  });

  it('writes parameters in as literals outside quotes and comments', () => {
    assert.equal(inlineParameters("SELECT '$1', $2 -- $1\nWHERE x LIKE $1 AND y = $3", ["'cp%'", '2200']),
      "SELECT '$1', 2200 -- $1\nWHERE x LIKE 'cp%' AND y = NULL");
  });

  it('names the kind of a statement by its first word', () => {
    assert.equal(firstWord('/* hint */ (select 1)'), 'SELECT');
    assert.equal(firstWord('  insert into t values (1)'), 'INSERT');
  });
});
