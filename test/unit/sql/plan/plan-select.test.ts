// The planner alone: the chain of operators each query shape gets, the SqlType of every output
// column under GridDB's rules, what reaches the scan (columns, key range, limit), and the errors
// of planning with their place.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StorageError } from '../../../../lib/base/errors.ts';
import { sqlScalarFunction } from '../../../../lib/sql/functions/registry.ts';
import type { SqlPlanNode } from '../../../../lib/sql/plan/logical-plan.ts';
import { planQuery, type SqlQueryPlan } from '../../../../lib/sql/plan/plan-select.ts';
import { parseSqlStatement } from '../../../../lib/sql/parser.ts';
import type { ContainerSchema } from '../../../../lib/schema/container-schema.ts';

const T: ContainerSchema = {
  name: 't', type: 'COLLECTION', rowKeyColumnCount: 1, indexes: [], schemaVersion: 0,
  columns: [
    { name: 'id', type: 'LONG', array: false, notNull: true },
    { name: 'b', type: 'BYTE', array: false, notNull: false },
    { name: 'f', type: 'FLOAT', array: false, notNull: false },
    { name: 's', type: 'STRING', array: false, notNull: false },
    { name: 'u', type: 'TIMESTAMP', array: false, notNull: false, timePrecision: 'MICROSECOND' },
    { name: 'g', type: 'GEOMETRY', array: false, notNull: false },
  ],
};

function plan(text: string): SqlQueryPlan {
  const parsed = parseSqlStatement(text).statement;
  assert.equal(parsed.kind, 'select');
  if (parsed.kind !== 'select') throw new Error('select expected');
  return planQuery(parsed.query, {
    parameters: [], functions: sqlScalarFunction, hints: parsed.hints,
    tableSchema: (name) => (name.toLowerCase() === 't' ? T : undefined),
    evalContext: { timeZoneOffsetMinutes: 0, statementStartMs: 0, randomBytes: (n) => new Uint8Array(n) },
  });
}

function chain(node: SqlPlanNode): string[] {
  return 'input' in node ? [...chain(node.input), node.kind] : [node.kind];
}

function scanOf(node: SqlPlanNode): Extract<SqlPlanNode, { kind: 'scan' }> {
  if (node.kind === 'scan') return node;
  assert.ok('input' in node);
  return scanOf(node.input);
}

describe('SQL planner', () => {
  it('builds one chain of relational operators per clause', () => {
    assert.deepEqual(chain(plan('SELECT 1+1').root), ['values', 'project']);
    assert.deepEqual(chain(plan('SELECT id FROM t WHERE b > 1').root), ['scan', 'filter', 'project']);
    assert.deepEqual(chain(plan('SELECT DISTINCT s FROM t ORDER BY s LIMIT 3 OFFSET 1').root),
      ['scan', 'project', 'distinct', 'sort', 'limit']);
    assert.deepEqual(chain(plan('SELECT s, COUNT(*) FROM t GROUP BY s HAVING COUNT(*) > 1').root),
      ['scan', 'aggregate', 'filter', 'project']);
    assert.deepEqual(chain(plan('SELECT id FROM t ORDER BY f').root), ['scan', 'project', 'sort', 'project']);
    assert.deepEqual(chain(plan("SELECT u, AVG(f) FROM t WHERE u BETWEEN TIMESTAMP_US('2026-01-01T00:00:00Z') " +
      "AND TIMESTAMP_US('2026-01-02T00:00:00Z') GROUP BY RANGE(u) EVERY(1, HOUR) FILL(PREVIOUS)").root),
    ['scan', 'filter', 'rangeGroup', 'project']);
  });

  it('types every output column by GridDB\'s rules', () => {
    const types = (text: string) => plan(text).columns.map((column) => column.type);
    assert.deepEqual(types('SELECT b + b, b * f, id / 2, -b, b || s, b = f, g, NULL FROM t'),
      ['LONG', 'DOUBLE', 'LONG', 'LONG', 'STRING', 'BOOL', 'UNKNOWN', 'UNKNOWN']);
    assert.deepEqual(types('SELECT COUNT(*), SUM(b), SUM(f), AVG(b), MIN(s), MAX(u), TOTAL(b), MEDIAN(b), ' +
      'MEDIAN(f), GROUP_CONCAT(s), STDDEV(f) FROM t'),
    ['LONG', 'LONG', 'DOUBLE', 'DOUBLE', 'STRING', 'TIMESTAMP(6)', 'DOUBLE', 'LONG', 'DOUBLE', 'STRING', 'DOUBLE']);
    assert.deepEqual(types('SELECT CASE WHEN b > 0 THEN b ELSE id END, CASE WHEN b > 0 THEN f ELSE 1 END FROM t'),
      ['LONG', 'DOUBLE']);
  });

  it('reads only the columns used, within the key range, and pushes LIMIT when nothing drops rows', () => {
    const range = scanOf(plan('SELECT s FROM t WHERE id > 10 AND id <= 20 AND b = 1').root);
    assert.deepEqual(range.columnIndexes, [0, 1, 3]);
    assert.deepEqual(range.keyRange, { from: 11n, to: 20n, empty: false });
    assert.equal(range.rowCountMax, Infinity);
    assert.equal(scanOf(plan('SELECT s FROM t LIMIT 5 OFFSET 2').root).rowCountMax, 7);
    assert.equal(scanOf(plan('SELECT s FROM t ORDER BY s LIMIT 5').root).rowCountMax, Infinity);
    assert.equal(scanOf(plan('SELECT id FROM t WHERE id = 3 AND id = 4').root).keyRange.empty, true);
    assert.deepEqual(scanOf(plan('SELECT id FROM t WHERE id < 2.5').root).keyRange, { from: undefined, to: 2n, empty: false });
  });

  it('refuses what does not plan, at its place', () => {
    const fails = (text: string, code: string, message: RegExp) => assert.throws(() => plan(text),
      (error: unknown) => error instanceof StorageError && error.code === code && message.test(error.message));
    fails('SELECT s FROM t WHERE s > 1', 'TYPE_MISMATCH', /column 23: STRING and LONG cannot be compared/);
    fails('SELECT u FROM t WHERE u = 1', 'TYPE_MISMATCH', /TIMESTAMP\(6\) and LONG/);
    fails('SELECT x FROM t', 'COLUMN_NOT_FOUND', /column 8/);
    fails('SELECT q.id FROM t', 'COLUMN_NOT_FOUND', /no table q/);
    fails('SELECT id FROM t ORDER BY 3', 'SQL_COMPILE_SYNTAX_ERROR', /ORDER BY 3/);
    fails('SELECT DISTINCT s FROM t ORDER BY f', 'SQL_COMPILE_SYNTAX_ERROR', /DISTINCT/);
    fails('SELECT id FROM t LIMIT -1', 'SQL_COMPILE_SYNTAX_ERROR', /LIMIT takes a non-negative integer/);
    fails('SELECT NOSUCH(id) FROM t', 'NOT_SUPPORTED', /NOSUCH/);
    fails('SELECT u FROM t GROUP BY RANGE(s) EVERY(1, HOUR)', 'TYPE_MISMATCH', /TIMESTAMP column/);
  });
});
