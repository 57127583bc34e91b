// The round-trip property: for random syntax trees, parse(print(tree)) == tree. It holds the
// printer's parentheses and quoting to the parser's precedence and lexing, so a precedence bug in
// either shows up as a tree that reads back differently.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type {
  SqlExpression, SqlGroupBy, SqlHint, SqlLiteral, SqlName, SqlOrderItem, SqlSelectCore,
  SqlSelectItem,
} from '../../../lib/sql/ast.ts';
import type { SqlColumnDefinition, SqlStatement } from '../../../lib/sql/ast-statements.ts';
import { parseSqlStatement } from '../../../lib/sql/parser.ts';
import { printSqlStatement } from '../../../lib/sql/print.ts';
import { isPlainName } from '../../../lib/sql/reserved-words.ts';
import { SQL_COLUMN_TYPES } from '../../../lib/sql/sql-types.ts';
import { withoutPositions } from './sql-test-helpers.ts';

const P = { offset: 0, line: 1, column: 1 };

/** Words that are names but also start a clause in one place: the tests avoid the ambiguity. */
const CONTEXT_WORDS = new Set(['range', 'over', 'within', 'every', 'fill', 'timeseries', 'force']);

const plainName = fc.stringMatching(/^[a-z_][a-z0-9_]{0,5}$/)
  .filter((text) => isPlainName(text) && !CONTEXT_WORDS.has(text));
const sqlName: fc.Arbitrary<SqlName> = fc.oneof(
  { weight: 4, arbitrary: plainName.map((text) => ({ text, quoted: false, position: P })) },
  {
    weight: 1,
    arbitrary: fc.string({ minLength: 1, maxLength: 6 }).filter((text) => !text.includes('\0'))
      .map((text) => ({ text, quoted: true, position: P })),
  },
);

const literal: fc.Arbitrary<SqlLiteral> = fc.oneof(
  fc.constant({ type: 'NULL' as const }),
  fc.boolean().map((value) => ({ type: 'BOOL' as const, value })),
  fc.bigInt({ min: 0n, max: 2n ** 70n }).map((value) => ({ type: 'INTEGER' as const, value })),
  fc.double({ min: 0, max: 1e300, noNaN: true }).filter((value) => !Object.is(value, -0))
    .map((value) => ({ type: 'DOUBLE' as const, value })),
  fc.string({ maxLength: 6 }).filter((text) => !text.includes('\0'))
    .map((value) => ({ type: 'STRING' as const, value })),
  fc.uint8Array({ maxLength: 4 }).map((value) => ({ type: 'BLOB' as const, value })),
);

const UNIT_FUNCTIONS = ['EXTRACT', 'TIMESTAMP_ADD', 'TIMESTAMPDIFF'];
const FUNCTION_NAMES = ['f', 'COUNT', 'abs', 'REPLACE', 'LIKE', 'GLOB', 'PERCENTILE_CONT',
  ...UNIT_FUNCTIONS];
const TIME_UNITS = ['YEAR', 'DAY', 'MILLISECOND', 'NANOSECOND', 'DAY_OF_WEEK'];
const BINARY_OPERATORS = ['OR', 'AND', '=', '==', '!=', '<>', '<', '<=', '>', '>=', '&', '|', '<<',
  '>>', '+', '-', '*', '/', '%', '||'] as const;

const { expression } = fc.letrec<{ expression: SqlExpression }>((tie) => {
  const sub = tie('expression');
  const orderItem: fc.Arbitrary<SqlOrderItem> = fc.record({
    expression: sub, direction: fc.constantFrom('ASC' as const, 'DESC' as const, undefined),
  }, { noNullPrototype: true });
  const call = fc.record({
    name: fc.constantFrom(...FUNCTION_NAMES), star: fc.boolean(),
    quantifier: fc.constantFrom('DISTINCT' as const, 'ALL' as const, undefined),
    args: fc.array(sub, { minLength: 1, maxLength: 3 }),
    unit: fc.constantFrom(...TIME_UNITS),
    withinGroup: fc.option(fc.array(orderItem, { minLength: 1, maxLength: 2 }), { nil: undefined }),
  }, { noNullPrototype: true }).map(({ name, star, quantifier, args, unit, withinGroup }):
    SqlExpression => {
    const isUnit = UNIT_FUNCTIONS.includes(name);
    const useStar = star && !isUnit;
    const unitArgs = isUnit ? [{ kind: 'timeUnit' as const, unit, position: P }, ...args] : args;
    return {
      kind: 'call', name, star: useStar, quantifier: useStar ? undefined : quantifier,
      args: useStar ? [] : unitArgs, withinGroup, position: P,
    };
  });
  return {
    expression: fc.oneof({ depthSize: 'small', withCrossShrink: true },
      literal.map((value): SqlExpression => ({ kind: 'literal', literal: value, position: P })),
      fc.record({ table: fc.option(sqlName, { nil: undefined }), name: sqlName },
        { noNullPrototype: true })
        .map(({ table, name }): SqlExpression => ({ kind: 'column', table, name, position: P })),
      fc.constantFrom('?', '?7', ':p', '@q')
        .map((text): SqlExpression => ({ kind: 'parameter', index: 0, text, position: P })),
      fc.tuple(fc.constantFrom('-' as const, '+' as const, '~' as const, 'NOT' as const), sub)
        .map(([operator, operand]): SqlExpression =>
          ({ kind: 'unary', operator, operand, position: P })),
      fc.tuple(fc.constantFrom(...BINARY_OPERATORS), sub, sub).map(([operator, left, right]):
        SqlExpression => ({ kind: 'binary', operator, left, right, position: P })),
      fc.tuple(fc.boolean(), sub, sub).map(([negated, left, right]): SqlExpression =>
        ({ kind: 'is', negated, left, right, position: P })),
      fc.tuple(fc.boolean(), sub).map(([negated, operand]): SqlExpression =>
        ({ kind: 'isNull', negated, operand, position: P })),
      fc.tuple(fc.constantFrom('LIKE' as const, 'GLOB' as const), fc.boolean(), sub, sub,
        fc.option(sub, { nil: undefined })).map(([operator, negated, operand, pattern, escape]):
        SqlExpression =>
          ({ kind: 'like', operator, negated, operand, pattern, escape, position: P })),
      fc.tuple(fc.boolean(), sub, sub, sub).map(([negated, operand, low, high]): SqlExpression =>
        ({ kind: 'between', negated, operand, low, high, position: P })),
      fc.tuple(fc.boolean(), sub, fc.array(sub, { minLength: 1, maxLength: 3 }))
        .map(([negated, operand, list]): SqlExpression =>
          ({ kind: 'in', negated, operand, list, position: P })),
      fc.tuple(fc.option(sub, { nil: undefined }),
        fc.array(fc.record({ when: sub, then: sub }, { noNullPrototype: true }),
          { minLength: 1, maxLength: 2 }), fc.option(sub, { nil: undefined }))
        .map(([operand, whens, otherwise]): SqlExpression =>
          ({ kind: 'case', operand, whens, otherwise, position: P })),
      fc.tuple(sub, fc.constantFrom(...SQL_COLUMN_TYPES)).map(([operand, type]): SqlExpression =>
        ({ kind: 'cast', operand, type, position: P })),
      call,
    ),
  };
});

const orderItems = fc.array(fc.record({
  expression, direction: fc.constantFrom('ASC' as const, 'DESC' as const, undefined),
}, { noNullPrototype: true }), { maxLength: 2 });

const selectItem: fc.Arbitrary<SqlSelectItem> = fc.oneof(
  fc.option(sqlName, { nil: undefined })
    .map((table): SqlSelectItem => ({ kind: 'star', table, position: P })),
  fc.record({ expression, alias: fc.option(sqlName, { nil: undefined }) },
    { noNullPrototype: true })
    .map(({ expression: e, alias }): SqlSelectItem =>
      ({ kind: 'expression', expression: e, alias })),
);

const groupBy: fc.Arbitrary<SqlGroupBy> = fc.oneof(
  fc.array(expression, { minLength: 1, maxLength: 2 })
    .map((expressions): SqlGroupBy => ({ kind: 'expressions', expressions })),
  fc.record({
    key: expression, interval: fc.bigInt({ min: 1n, max: 1000n }),
    unit: fc.constantFrom('DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'),
    offset: fc.option(
      fc.oneof(fc.bigInt({ min: -100n, max: 100n }), fc.constantFrom('Z', '+09:00')),
      { nil: undefined }),
    fill: fc.constantFrom('LINEAR' as const, 'NONE' as const, 'NULL' as const, 'PREVIOUS' as const,
      undefined),
  }, { noNullPrototype: true })
    .map((range): SqlGroupBy => ({ kind: 'range', ...range, position: P })),
);

const option = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arbitrary, { nil: undefined });

const query: fc.Arbitrary<SqlSelectCore> = fc.record({
  quantifier: fc.constantFrom('DISTINCT' as const, 'ALL' as const, undefined),
  items: fc.array(selectItem, { minLength: 1, maxLength: 3 }),
  from: option(fc.record({ name: sqlName, alias: option(sqlName) }, { noNullPrototype: true })),
  where: option(expression), groupBy: option(groupBy), having: option(expression),
  orderBy: orderItems, limit: option(expression), offset: option(expression),
}, { noNullPrototype: true }).map((q): SqlSelectCore => ({
  kind: 'select', quantifier: q.quantifier, items: q.items,
  from: q.from === undefined ? undefined : { kind: 'table', ...q.from, position: P },
  where: q.where, groupBy: q.groupBy, having: q.groupBy === undefined ? undefined : q.having,
  orderBy: q.orderBy, limit: q.limit, offset: q.limit === undefined ? undefined : q.offset,
  position: P,
}));

const HINTS: SqlHint[] = [
  { name: 'IndexScan', args: [{ kind: 'name', text: 't' }], position: P },
  { name: 'MaxGeneratedRows', args: [{ kind: 'number', text: '100' }], position: P },
  {
    name: 'Leading', args: [{ kind: 'group', items: [{ kind: 'name', text: 'a' },
      { kind: 'name', text: 'b' }] }, { kind: 'name', text: 'c' }], position: P,
  },
];
const hints = fc.subarray(HINTS);

const columnDefinition: fc.Arbitrary<SqlColumnDefinition> = fc.record({
  name: sqlName, type: fc.constantFrom(...SQL_COLUMN_TYPES),
  nullable: fc.constantFrom(true, false, undefined), primaryKey: fc.constant(false),
}, { noNullPrototype: true });

const statement: fc.Arbitrary<SqlStatement> = fc.oneof(
  fc.record({ hints, query }, { noNullPrototype: true })
    .map((s): SqlStatement => ({ kind: 'select', ...s, position: P })),
  fc.record({
    hints,
    mode: fc.constantFrom('INSERT' as const, 'INSERT OR REPLACE' as const, 'REPLACE' as const),
    table: sqlName, columns: option(fc.array(sqlName, { minLength: 1, maxLength: 3 })),
    width: fc.integer({ min: 1, max: 3 }), rows: fc.array(fc.array(expression, { minLength: 3,
      maxLength: 3 }), { minLength: 1, maxLength: 2 }), query: option(query),
  }, { noNullPrototype: true }).map(({ width, rows, query: q, ...s }): SqlStatement => ({
    kind: 'insert', ...s, position: P,
    source: q === undefined
      ? { kind: 'values', rows: rows.map((row) => row.slice(0, width)) }
      : { kind: 'query', query: q },
  })),
  fc.record({
    hints, table: sqlName, where: option(expression),
    assignments: fc.array(fc.record({ column: sqlName, value: expression },
      { noNullPrototype: true }), { minLength: 1, maxLength: 2 }),
  }, { noNullPrototype: true }).map((s): SqlStatement => ({ kind: 'update', ...s, position: P })),
  fc.record({ hints, table: sqlName, where: option(expression) }, { noNullPrototype: true })
    .map((s): SqlStatement => ({ kind: 'delete', ...s, position: P })),
  fc.record({
    ifNotExists: fc.boolean(), name: sqlName, timeSeries: fc.boolean(),
    columns: fc.array(columnDefinition, { minLength: 1, maxLength: 3 }),
    firstIsKey: fc.boolean(), keyColumns: option(fc.array(sqlName, { minLength: 1, maxLength: 2 })),
    options: fc.array(fc.record({ key: sqlName, value: literal.filter((l) =>
      l.type === 'STRING' || l.type === 'INTEGER' || l.type === 'DOUBLE') },
    { noNullPrototype: true }), { maxLength: 2 }),
  }, { noNullPrototype: true }).map(({ firstIsKey, keyColumns, columns, ...s }): SqlStatement => ({
    kind: 'createTable', ...s, partitioning: undefined, position: P,
    columns: columns.map((column, i) => ({ ...column, primaryKey: firstIsKey && i === 0 })),
    primaryKey: firstIsKey ? undefined : keyColumns,
  })),
  fc.record({ ifExists: fc.boolean(), name: sqlName }, { noNullPrototype: true })
    .map((s): SqlStatement => ({ kind: 'dropTable', ...s, position: P })),
  fc.record({ ifNotExists: fc.boolean(), name: sqlName, table: sqlName,
    columns: fc.array(sqlName, { minLength: 1, maxLength: 3 }) }, { noNullPrototype: true })
    .map((s): SqlStatement => ({ kind: 'createIndex', ...s, position: P })),
  fc.record({ table: sqlName, columns: fc.array(columnDefinition, { minLength: 1, maxLength: 2 }) },
    { noNullPrototype: true })
    .map((s): SqlStatement => ({ kind: 'alterTableAddColumns', ...s, position: P })),
  fc.record({ analyze: fc.boolean(), statement: query }, { noNullPrototype: true })
    .map(({ analyze, statement: q }): SqlStatement => ({
      kind: 'explain', analyze, position: P,
      statement: { kind: 'select', hints: [], query: q, position: P },
    })),
);

/** SQL_RUNS and SQL_SEED in the environment run more cases or other ones. */
const runs = (count: number): number => Number(process.env.SQL_RUNS ?? count);
const seed = (value: number): number => Number(process.env.SQL_SEED ?? value);

/** Parameter numbers come from the order in the text; the generator leaves them 0. */
function comparable(value: unknown): unknown {
  return JSON.parse(JSON.stringify(withoutPositions(value), (key, field: unknown) =>
    (key === 'index' ? undefined : typeof field === 'bigint' ? `${field}n` : field)));
}

describe('sql round trip', () => {
  it('parse(print(tree)) is the tree, for random statements', () => {
    fc.assert(fc.property(statement, (tree) => {
      const text = printSqlStatement(tree);
      const parsed = parseSqlStatement(text).statement;
      assert.deepStrictEqual(comparable(parsed), comparable(tree), text);
      assert.equal(printSqlStatement(parsed), text);
    }), { numRuns: runs(400), seed: seed(20261126) });
  });

  it('parse(print(tree)) is the tree, for random expressions', () => {
    fc.assert(fc.property(expression, (tree) => {
      const select: SqlStatement = {
        kind: 'select', hints: [], position: P,
        query: {
          kind: 'select', quantifier: undefined, from: undefined, where: undefined,
          groupBy: undefined, having: undefined, orderBy: [], limit: undefined,
          offset: undefined, position: P,
          items: [{ kind: 'expression', expression: tree, alias: undefined }],
        },
      };
      const text = printSqlStatement(select);
      const parsed = parseSqlStatement(text).statement;
      assert.deepStrictEqual(comparable(parsed), comparable(select), text);
    }), { numRuns: runs(600), seed: seed(20261127) });
  });
});
