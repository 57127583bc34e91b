// The planner's subqueries: a correlated subquery records the enclosing values it reads, and
// each run's plan narrows its scan by them (a row-key range from `u.id = t.id`), so a correlated
// EXISTS reads one key per outer row instead of the whole table.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sqlScalarFunction } from '../../../../lib/sql/functions/registry.ts';
import type { SqlBoundExpression } from '../../../../lib/sql/plan/bound-expression.ts';
import type { SqlPlanNode } from '../../../../lib/sql/plan/logical-plan.ts';
import { planQuery } from '../../../../lib/sql/plan/plan-select.ts';
import { parseSqlStatement } from '../../../../lib/sql/parser.ts';
import type { ContainerSchema } from '../../../../lib/schema/container-schema.ts';

const table = (name: string): ContainerSchema => ({
  name, type: 'COLLECTION', rowKeyColumnCount: 1, indexes: [], schemaVersion: 0,
  columns: [
    { name: 'id', type: 'LONG', array: false, notNull: true },
    { name: 'k', type: 'LONG', array: false, notNull: false },
  ],
});

function rootOf(text: string): SqlPlanNode {
  const parsed = parseSqlStatement(text).statement;
  if (parsed.kind !== 'select') throw new Error('select expected');
  return planQuery(parsed.query, {
    parameters: [], functions: sqlScalarFunction, hints: parsed.hints,
    tableSchema: (name) => (['t', 'u'].includes(name.toLowerCase()) ? table(name.toLowerCase()) : undefined),
    evalContext: { timeZoneOffsetMinutes: 0, statementStartMs: 0, randomBytes: (n) => new Uint8Array(n) },
  }).root;
}

function subqueryOf(node: SqlPlanNode): Extract<SqlBoundExpression, { kind: 'subquery' }> {
  if (node.kind === 'filter' && node.predicate.kind === 'subquery') return node.predicate;
  assert.ok('input' in node, `no subquery filter in ${node.kind}`);
  return subqueryOf(node.input);
}

function scanOf(node: SqlPlanNode): Extract<SqlPlanNode, { kind: 'scan' }> {
  if (node.kind === 'scan') return node;
  assert.ok('input' in node);
  return scanOf(node.input);
}

describe('sql planner: subqueries', () => {
  it('narrows a correlated subquery\'s scan by the outer values of each run', () => {
    const subquery = subqueryOf(rootOf('SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.k AND u.k > 0)'));
    assert.equal(subquery.mode, 'exists');
    assert.deepEqual(subquery.outer, [{ kind: 'column', index: 1, type: 'LONG' }]);
    assert.deepEqual(scanOf(subquery.plan).keyRange, { from: undefined, to: undefined, empty: false });
    assert.ok(subquery.planFor !== undefined);
    assert.deepEqual(scanOf(subquery.planFor([7n])).keyRange, { from: 7n, to: 7n, empty: false });
    assert.equal(scanOf(subquery.planFor([null])).keyRange.from, undefined);
  });

  it('runs an uncorrelated subquery as planned', () => {
    const subquery = subqueryOf(rootOf('SELECT id FROM t WHERE k IN (SELECT k FROM u WHERE id < 5)'));
    assert.deepEqual([subquery.mode, subquery.outer.length, subquery.planFor], ['in', 0, undefined]);
    assert.deepEqual(scanOf(subquery.plan).keyRange.to, 4n);
  });
});
