// SELECT through the planner and executor over a real store (simulated disk): each operator of
// the plan (scan with key range, filter, project, aggregate, DISTINCT, sort, limit), GridDB's
// typing rules (LONG arithmetic with overflow, `/` truncating, numbers compared across types,
// three-valued logic, `||` of any types), and the errors of names and types with their place.

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { StorageError } from '../../../../lib/base/errors.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

function sqlError(code: string, message?: RegExp) {
  return (error: unknown): true => {
    assert.ok(error instanceof StorageError, String(error));
    assert.equal(error.code, code, error.message);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  };
}

let db: SqlTestDatabase;

before(async () => {
  db = await sqlTestDatabase();
  await db.update('CREATE TABLE t (id INTEGER PRIMARY KEY, host STRING, v LONG, d DOUBLE, ok BOOL)');
  await db.update(`INSERT INTO t VALUES (1, 'a', 10, 1.5, true), (2, 'b', 20, NULL, false),
    (3, 'a', NULL, 2.5, NULL), (4, 'c', -5, -1.0, true), (5, 'b', 20, 0.5, false)`);
});

describe('SQL SELECT', () => {
  it('SELECT 1+1 without a table answers one row of a LONG', async () => {
    const result = await db.run('SELECT 1+1 AS two');
    assert.equal(result.kind, 'rows');
    if (result.kind === 'rows') assert.deepEqual(result.columns, [{ name: 'two', type: 'LONG' }]);
    assert.deepEqual(await db.rows('SELECT 1+1'), [[2n]]);
  });

  it('integer division truncates, a float makes DOUBLE, overflow is an error with its place', async () => {
    assert.deepEqual(await db.rows('SELECT 7 / 2, -7 / 2, 7 % 3, 7 / 2.0'), [[3n, -3n, 1n, 3.5]]);
    await assert.rejects(db.rows('SELECT 9223372036854775807 + 1'),
      sqlError('SQL_PROC_VALUE_OVERFLOW', /line 1, column 8.*overflow/));
    await assert.rejects(db.rows('SELECT 1 / 0'), sqlError('SQL_PROC_INVALID_EXPRESSION_INPUT', /division by zero/));
  });

  it('compares numbers across types and keeps three-valued logic', async () => {
    assert.deepEqual(await db.rows('SELECT 1 = 1.0, 2 > 1.5, NULL = 1, NULL AND false, NULL OR true, NOT NULL'),
      [[true, true, null, false, true, null]]);
    assert.deepEqual(await db.rows('SELECT id FROM t WHERE d > 1 ORDER BY id'), [[1], [3]]);
    assert.deepEqual(await db.rows('SELECT id FROM t WHERE NOT (ok) ORDER BY id'), [[2], [5]]);
  });

  it('|| concatenates values of any type; NULL makes NULL', async () => {
    assert.deepEqual(await db.rows("SELECT 'x' || 1 || true || 2.5, 'x' || NULL"), [['x1true2.5', null]]);
  });

  it('filters, projects with aliases, orders by alias, ordinal and expression, limits', async () => {
    assert.deepEqual(await db.rows('SELECT id, v * 2 AS w FROM t WHERE v IS NOT NULL ORDER BY w DESC, 1 LIMIT 3'),
      [[2, 40n], [5, 40n], [1, 20n]]);
    assert.deepEqual(await db.rows('SELECT id FROM t ORDER BY -id LIMIT 2 OFFSET 1'), [[4], [3]]);
    assert.deepEqual(await db.rows('SELECT host FROM t ORDER BY v, id'), [['a'], ['c'], ['a'], ['b'], ['b']]);
  });

  it('DISTINCT, IN, BETWEEN, IS and CASE', async () => {
    assert.deepEqual(await db.rows('SELECT DISTINCT host FROM t ORDER BY host'), [['a'], ['b'], ['c']]);
    assert.deepEqual(await db.rows('SELECT id FROM t WHERE id IN (2, 4, 9) ORDER BY id'), [[2], [4]]);
    assert.deepEqual(await db.rows('SELECT id FROM t WHERE id NOT BETWEEN 2 AND 4 ORDER BY id'), [[1], [5]]);
    assert.deepEqual(await db.rows('SELECT id FROM t WHERE v IS NULL'), [[3]]);
    assert.deepEqual(await db.rows("SELECT CASE WHEN v > 15 THEN 'big' WHEN v > 0 THEN 'small' ELSE 'none' END " +
      'FROM t ORDER BY id'), [['small'], ['big'], ['none'], ['none'], ['big']]);
  });

  it('pushes the row-key range and the columns down to the scan', async () => {
    const [plan] = await db.rows('EXPLAIN SELECT host FROM t WHERE id >= 2 AND id < 4');
    const entries = (await db.rows('EXPLAIN SELECT host FROM t WHERE id >= 2 AND id < 4'))
      .map((row) => JSON.parse(row[0] as string) as { type: string; detail: Record<string, unknown> });
    assert.ok(plan !== undefined);
    const scan = entries.find((entry) => entry.type === 'SCAN')!;
    assert.deepEqual(scan.detail.keyRange, { from: 2, to: 3, empty: false });
    assert.deepEqual(scan.detail.columns, ['id', 'host']);
    assert.deepEqual(await db.rows('SELECT host FROM t WHERE id >= 2 AND id < 4'), [['b'], ['a']]);
    assert.deepEqual(await db.rows('SELECT id FROM t WHERE id > 3 AND id < 4'), []);
  });

  it('pushes LIMIT into the scan when nothing between drops rows', async () => {
    const entries = (await db.rows('EXPLAIN ANALYZE SELECT id FROM t LIMIT 2'))
      .map((row) => JSON.parse(row[0] as string) as { type: string; detail: Record<string, unknown>; profile?: { rows: number } });
    const scan = entries.find((entry) => entry.type === 'SCAN')!;
    assert.equal(scan.detail.limit, 2);
    assert.equal(scan.profile?.rows, 2);
  });

  it('binds typed ? parameters', async () => {
    assert.deepEqual(await db.rows('SELECT id FROM t WHERE host = ? AND v > ? ORDER BY id',
      [{ type: 'STRING', value: 'b' }, { type: 'LONG', value: 15n }]), [[2], [5]]);
    await assert.rejects(db.run('SELECT ?'), sqlError('ROW_INVALID', /1 parameters, 0 given/));
  });

  it('names unknown tables and columns and type errors with their place', async () => {
    await assert.rejects(db.rows('SELECT x FROM t'), sqlError('COLUMN_NOT_FOUND', /line 1, column 8.*no column x/));
    await assert.rejects(db.rows('SELECT * FROM nope'), sqlError('CONTAINER_NOT_FOUND', /column 15/));
    await assert.rejects(db.rows("SELECT id FROM t WHERE host > 1"), sqlError('TYPE_MISMATCH', /STRING and LONG/));
    await assert.rejects(db.rows('SELECT id FROM t WHERE v'), sqlError('TYPE_MISMATCH', /WHERE needs a BOOL/));
    await assert.rejects(db.rows("SELECT -'a'"), sqlError('TYPE_MISMATCH', /takes a number/));
  });

  it('LIKE is case-insensitive and GLOB is not (the registry functions)', async () => {
    assert.deepEqual(await db.rows("SELECT id FROM t WHERE host LIKE 'A' ORDER BY id"), [[1], [3]]);
    assert.deepEqual(await db.rows("SELECT id FROM t WHERE host GLOB 'A' ORDER BY id"), []);
    assert.deepEqual(await db.rows("SELECT id FROM t WHERE host NOT LIKE 'a' ORDER BY id"), [[2], [4], [5]]);
  });

  it('CAST goes through the CAST rules', async () => {
    assert.deepEqual(await db.rows("SELECT CAST('12' AS INTEGER), CAST(v AS STRING) FROM t WHERE id = 1"),
      [[12, '10']]);
  });
});
