// MATCH_RECOGNIZE's grammar (lib/sql/parse-match-recognize.ts): random clauses print and parse
// back to the same tree; the pattern's operators group as GridDB's grammar says; what GridDB
// refuses is refused with its construct named at its position (NOT_SUPPORTED or a syntax error).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { SqlMatchRecognize, SqlName, SqlRowPattern, SqlTableReference } from '../../../lib/sql/ast.ts';
import { SqlError } from '../../../lib/sql/errors.ts';
import { printRowPattern } from '../../../lib/sql/print.ts';
import { printSqlStatement, statementOf, withoutPositions } from './sql-test-helpers.ts';

const P = { offset: 0, line: 1, column: 1 };
const name = (text: string): SqlName => ({ text, quoted: false, position: P });

function fromOf(text: string): SqlTableReference {
  const statement = statementOf(text);
  assert(statement.kind === 'select' && statement.query.kind === 'select' && statement.query.from !== undefined);
  return statement.query.from;
}

function clauseOf(text: string): SqlMatchRecognize {
  const from = fromOf(text);
  assert(from.kind === 'matchRecognize');
  return from.clause;
}

const patternOf = (text: string): string =>
  printRowPattern(clauseOf(`SELECT * FROM t MATCH_RECOGNIZE (PATTERN (${text}) DEFINE A AS TRUE)`).pattern);

const rowPattern: fc.Arbitrary<SqlRowPattern> = fc.letrec<{ p: SqlRowPattern }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: fc.constantFrom('A', 'B', 'up', 'Down_2').map((text): SqlRowPattern => ({ kind: 'variable', name: name(text) })) },
    { weight: 1, arbitrary: fc.constantFrom<'^' | '$'>('^', '$').map((anchor): SqlRowPattern => ({ kind: 'anchor', anchor, position: P })) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom<'concat' | 'alternation'>('concat', 'alternation'),
        fc.array(tie('p'), { minLength: 2, maxLength: 3 })).map(([kind, items]): SqlRowPattern => ({ kind, items })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(tie('p'), fc.constantFrom<[number, number]>([0, Infinity], [1, Infinity], [0, 1], [3, 3],
        [2, 5], [0, 4], [4, Infinity])).map(([pattern, [min, max]]): SqlRowPattern => ({ kind: 'quantified', pattern, min, max, position: P })),
    },
  ),
})).p;

const clause: fc.Arbitrary<SqlMatchRecognize> = fc.record({
  partitionBy: fc.constantFrom([], [{ kind: 'column' as const, table: undefined, name: name('g'), position: P }]),
  orderBy: fc.constantFrom([], [{ expression: { kind: 'column' as const, table: undefined, name: name('ts'), position: P }, direction: 'DESC' as const }]),
  measures: fc.constantFrom([], [{ expression: { kind: 'column' as const, table: name('A'), name: name('v'), position: P }, alias: name('av') }]),
  rowsPerMatch: fc.constantFrom<SqlMatchRecognize['rowsPerMatch']>(undefined, 'ONE ROW', 'ALL ROWS'),
  skipPastLastRow: fc.boolean(),
  pattern: rowPattern,
  define: fc.constant([{ name: name('A'), condition: { kind: 'literal' as const, literal: { type: 'BOOL' as const, value: true }, position: P } }]),
}, { noNullPrototype: true });

describe('MATCH_RECOGNIZE parser', () => {
  it('prints random clauses as text that parses back to the same tree', () => {
    fc.assert(fc.property(clause, fc.boolean(), (generated, derived) => {
      const reference: SqlTableReference = {
        kind: 'matchRecognize', clause: generated, alias: derived ? name('m') : undefined, position: P,
        source: derived ? { kind: 'query', query: (statementOf('SELECT * FROM t') as unknown as { query: never }).query }
          : { kind: 'table', name: name('t') },
      };
      const text = printSqlStatement({ kind: 'select', query: {
        kind: 'select', quantifier: undefined, items: [{ kind: 'star', table: undefined, position: P }], from: reference,
        where: undefined, groupBy: undefined, having: undefined, orderBy: [], limit: undefined, offset: undefined, position: P,
      }, hints: [] } as never);
      assert.deepStrictEqual(withoutPositions(fromOf(text)), withoutPositions(reference), text);
    }), { numRuns: 300 });
  });

  it('groups alternation loosest, then concatenation, then quantifiers; anchors are items', () => {
    assert.equal(patternOf('A B | C'), 'A B | C');
    assert.equal(patternOf('A (B | C)+'), 'A (B | C)+');
    assert.equal(patternOf('^A B* C?$'), '^ A B* C? $');
    assert.equal(patternOf('A{2} B{1,} C{,3} D{2,4}'), 'A{2} B+ C{0,3} D{2,4}');
    assert.deepStrictEqual(withoutPositions(clauseOf('SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A$) DEFINE A AS TRUE)').pattern),
      { kind: 'concat', items: [{ kind: 'variable', name: { text: 'A', quoted: false } }, { kind: 'anchor', anchor: '$' }] });
  });

  it('takes the alias after the clause, and a derived table without one', () => {
    const from = fromOf('SELECT * FROM (SELECT * FROM t) MATCH_RECOGNIZE (PATTERN (A) DEFINE A AS TRUE) AS m');
    assert(from.kind === 'matchRecognize');
    assert.equal(from.alias?.text, 'm');
    assert.equal(from.source.kind, 'query');
  });

  /** The construct, its error, and the text the error must point at (its first occurrence). */
  const refusals: readonly [string, string, RegExp, string][] = [
    ['NOT_SUPPORTED', 'PATTERN (A*? B)', /reluctant quantifier/, '?'],
    ['NOT_SUPPORTED', 'PATTERN (PERMUTE(A, B))', /PERMUTE/, 'PERMUTE'],
    ['NOT_SUPPORTED', 'PATTERN (A {- B -})', /exclusion/, '{-'],
    ['NOT_SUPPORTED', 'PATTERN ()', /empty PATTERN/, ')'],
    ['NOT_SUPPORTED', 'AFTER MATCH SKIP TO NEXT ROW PATTERN (A)', /AFTER MATCH SKIP TO/, 'TO'],
    ['NOT_SUPPORTED', 'ALL ROWS PER MATCH WITH UNMATCHED ROWS PATTERN (A)', /UNMATCHED ROWS/, 'WITH'],
    ['NOT_SUPPORTED', 'ONE ROW PER MATCH SHOW EMPTY MATCHES PATTERN (A)', /EMPTY MATCHES/, 'SHOW'],
    ['NOT_SUPPORTED', 'MEASURES FINAL LAST(v) AS x PATTERN (A)', /FINAL/, 'FINAL'],
    ['NOT_SUPPORTED', 'PATTERN (A) SUBSET U = (A)', /SUBSET/, 'SUBSET'],
    ['SQL_COMPILE_SYNTAX_ERROR', 'PATTERN (A{3,2})', /numbers out of order/, '}'],
    ['SQL_COMPILE_SYNTAX_ERROR', 'PATTERN (A*+)', /quantifier follows a quantifier/, '+'],
    ['SQL_COMPILE_SYNTAX_ERROR', 'PATTERN (A | )', /expected a pattern variable/, ')'],
    ['LIMIT_EXCEEDED', 'PATTERN (A{1001})', /at most 1000/, '1001'],
  ];
  const prefix = 'SELECT * FROM t MATCH_RECOGNIZE (';
  for (const [code, inside, message, marker] of refusals) {
    it(`refuses ${inside} with ${code} at ${marker}`, () => {
      const text = `${prefix}${inside} DEFINE A AS TRUE)`;
      const column = text.indexOf(marker, prefix.length) + 1;
      assert.throws(() => statementOf(text), (error: unknown) => {
        assert(error instanceof SqlError, String(error));
        assert.equal(error.code, code, error.message);
        assert.match(error.message, message);
        assert.equal(error.position.column, column, `${error.message} in ${text}`);
        return true;
      });
    });
  }
});
