// Constant folding at bind time (lib/sql/plan/fold-constant.ts): what becomes a constant, what
// never does (NOW, RANDOM), and that a failing constant fails at execution, only where reached.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorageError } from '../../../../lib/base/errors.ts';
import { sqlScalarFunction } from '../../../../lib/sql/functions/registry.ts';
import type { SqlBoundExpression } from '../../../../lib/sql/plan/bound-expression.ts';
import type { SqlPlanNode } from '../../../../lib/sql/plan/logical-plan.ts';
import { planQuery } from '../../../../lib/sql/plan/plan-select.ts';
import { parseSqlStatement } from '../../../../lib/sql/parser.ts';
import type { ContainerSchema } from '../../../../lib/schema/container-schema.ts';
import { sqlTestDatabase } from '../exec/sql-exec-helpers.ts';

const T: ContainerSchema = {
  name: 't', type: 'COLLECTION', rowKeyColumnCount: 1, indexes: [], schemaVersion: 0,
  columns: [
    { name: 'id', type: 'LONG', array: false, notNull: true },
    { name: 'ts', type: 'TIMESTAMP', array: false, notNull: false },
  ],
};

function planOf(text: string, parameters: { type: 'LONG'; value: bigint }[] = []): SqlPlanNode {
  const parsed = parseSqlStatement(text).statement;
  if (parsed.kind !== 'select') throw new Error('select expected');
  return planQuery(parsed.query, {
    parameters, functions: sqlScalarFunction, hints: parsed.hints,
    tableSchema: (name) => (name.toLowerCase() === 't' ? T : undefined),
    evalContext: { timeZoneOffsetMinutes: 0, statementStartMs: 5000, randomBytes: (n) => new Uint8Array(n) },
  }).root;
}

function nodeOf<K extends SqlPlanNode['kind']>(node: SqlPlanNode, kind: K): Extract<SqlPlanNode, { kind: K }> {
  if (node.kind === kind) return node as Extract<SqlPlanNode, { kind: K }>;
  assert.ok('input' in node, `no ${kind} node`);
  return nodeOf(node.input, kind);
}

/** The select list's expressions. */
function selected(text: string, parameters?: { type: 'LONG'; value: bigint }[]): readonly SqlBoundExpression[] {
  return nodeOf(planOf(text, parameters), 'project').expressions;
}

describe('SQL constant folding', () => {
  it('folds deterministic calls, operators, CAST and parameters into constants', () => {
    assert.deepEqual(selected('SELECT 1 + 2 * 3')[0], { kind: 'constant', value: 7n, type: 'LONG', folded: true });
    const [timestamp] = selected("SELECT TIMESTAMP('2016-01-01T00:00:00Z')");
    assert.deepEqual(timestamp, { kind: 'constant', value: Date.UTC(2016, 0, 1), type: 'TIMESTAMP', folded: true });
    assert.deepEqual(selected('SELECT CAST(? + 1 AS STRING)', [{ type: 'LONG', value: 41n }])[0],
      { kind: 'constant', value: '42', type: 'STRING', folded: true });
    // In WHERE, the bound of `ts >= TIMESTAMP(…)` is a constant: the scan's key range reads it.
    const filter = nodeOf(planOf("SELECT id FROM t WHERE ts >= TIMESTAMP_ADD(HOUR, TIMESTAMP('2016-01-01T00:00:00Z'), 1)"),
      'filter');
    assert.equal(filter.predicate.kind, 'compare');
    if (filter.predicate.kind !== 'compare') return;
    assert.deepEqual(filter.predicate.right,
      { kind: 'constant', value: Date.UTC(2016, 0, 1, 1), type: 'TIMESTAMP', folded: true });
    // A column anywhere keeps the node.
    assert.equal(selected('SELECT id + 1 FROM t')[0]!.kind, 'arithmetic');
  });

  it('never folds NOW(), RANDOM() or anything above them', () => {
    const [now, later, random] = selected('SELECT NOW(), TIMESTAMP_ADD(DAY, NOW(), 1), RANDOM() + 1');
    assert.equal(now!.kind, 'call');
    assert.equal(later!.kind, 'call');
    assert.equal(random!.kind, 'arithmetic');
  });

  it('folds CASE branch by branch: a FALSE branch is dropped unevaluated, a TRUE one is the result', () => {
    // The literal taken stands as it was written.
    assert.deepEqual(selected('SELECT CASE WHEN 1 > 2 THEN 1 / 0 ELSE 5 END')[0],
      { kind: 'constant', value: 5n, type: 'LONG' });
    assert.deepEqual(selected('SELECT CASE WHEN 1 < 2 THEN 4 ELSE 1 / 0 END')[0],
      { kind: 'constant', value: 4n, type: 'LONG' });
    assert.deepEqual(selected('SELECT CASE WHEN 1 < 2 THEN 4 + 1 ELSE 1 / 0 END')[0],
      { kind: 'constant', value: 5n, type: 'LONG', folded: true });
    assert.deepEqual(selected('SELECT CASE WHEN NULL THEN 1 END')[0],
      { kind: 'constant', value: null, type: 'LONG', folded: true });
  });

  it('leaves a failing constant unfolded: the error comes at execution, with the same code and place', async () => {
    const divide = nodeOf(planOf('SELECT 1 / 0 FROM t'), 'project').expressions[0]!;
    assert.equal(divide.kind, 'arithmetic');
    const db = await sqlTestDatabase();
    try {
      await db.update('CREATE TABLE t (id LONG PRIMARY KEY, ts TIMESTAMP)');
      // No row reaches it: no error.
      assert.deepEqual(await db.rows('SELECT 1 / 0 FROM t'), []);
      await db.update('INSERT INTO t VALUES (1, NULL), (2, NULL)');
      const failure = (text: string) => db.rows(text).then(() => assert.fail(`${text} ran`), (error: unknown) => {
        assert.ok(isStorageError(error, 'SQL_PROC_INVALID_EXPRESSION_INPUT'), String(error));
        return (error as Error).message;
      });
      // The first row's id is 1: both fail with the one message.
      const folded = await failure('SELECT 1 / 0 FROM t');
      assert.match(folded, /line 1, column 8: division by zero: 1 \/ 0/);
      assert.equal(await failure('SELECT id / 0 FROM t'), folded);
      // A branch no row takes is never evaluated, folded or not.
      assert.deepEqual(await db.rows('SELECT CASE WHEN id > 0 THEN id ELSE 1 / 0 END FROM t ORDER BY id'), [[1n], [2n]]);
      assert.deepEqual(await db.rows('SELECT CASE WHEN id > 1 THEN 1 / 0 ELSE id END FROM t WHERE id = 1'), [[1n]]);
      await failure('SELECT CASE WHEN id > 1 THEN 1 / 0 ELSE id END FROM t');
    } finally {
      await db.test.store.close();
    }
  });
});
