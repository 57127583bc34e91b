// GROUP BY inside the scan (execute-scan-aggregate.ts) against the executor's own paged
// aggregation: the same statement, the same plan, over the same table, once through the engine's
// table (which computes the groups in its scan) and once through that table without `visit` (the
// executor's paged path). Random tables hold NULLs, negative numbers, NaN, ±0 and infinities in
// several blocks (part checkpointed, part only in memory); random statements group by host and/or
// TIMESTAMP_TRUNC buckets with COUNT/SUM/TOTAL/AVG/MIN/MAX, under key ranges and WHERE filters
// that leave some buckets (or everything) empty.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { runSql } from '../../../../lib/sql/run-statement.ts';
import type { SqlDatabase } from '../../../../lib/sql/sql-database.ts';
import type { SqlValue } from '../../../../lib/sql/value.ts';
import { sqlTestDatabase, testFunctions, WORK_MEMORY_LIMIT_BYTES_TEST, type SqlTestDatabase } from './sql-exec-helpers.ts';

const HOSTS = ['a', 'b', 'c'];
const ROW_COUNT_MAX = 1_500; // more than a piece of SQL_SCAN_AGGREGATE_ROW_COUNT rows
const TIME_STEP_MS = 7_000;

const doubleValue = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, 0, -0, Infinity, -Infinity) },
  { weight: 4, arbitrary: fc.integer({ min: -1000, max: 1000 }).map((n) => n / 8) },
);

/** A table as runs: per host, a row count and each row's two values (v may be NULL or NaN). */
const tableArbitrary = fc.record({
  rowCounts: fc.tuple(...HOSTS.map(() => fc.integer({ min: 0, max: ROW_COUNT_MAX / HOSTS.length }))),
  values: fc.array(fc.tuple(doubleValue, doubleValue), { minLength: 1, maxLength: 64 }),
  nullFree: fc.boolean(),
  checkpointAfter: fc.integer({ min: 0, max: HOSTS.length }),
}, { noNullPrototype: true });

const AGGREGATES = ['COUNT(*)', 'COUNT(v)', 'SUM(v)', 'TOTAL(v)', 'AVG(v)', 'MIN(v)', 'MAX(v)', 'MAX(w)', 'SUM(w)',
  'MEDIAN(v)', 'COUNT(DISTINCT v)'];

const statementArbitrary = fc.record({
  keys: fc.constantFrom('host', 'bucket', 'host, bucket', 'bucket, host', ''),
  unit: fc.constantFrom('MINUTE', 'HOUR', 'SECOND'),
  aggregates: fc.subarray(AGGREGATES, { minLength: 1 }),
  hosts: fc.constantFrom(undefined, ['a'], ['b', 'c'], ['c', 'a'], ['z']),
  fromS: fc.option(fc.integer({ min: 0, max: 4000 }), { nil: undefined }),
  toS: fc.option(fc.integer({ min: 0, max: 4000 }), { nil: undefined }),
  valueAbove: fc.option(fc.integer({ min: -100, max: 100 }), { nil: undefined }),
  having: fc.boolean(),
}, { noNullPrototype: true });

type Statement = typeof statementArbitrary extends fc.Arbitrary<infer T> ? T : never;

function statementText(s: Statement): string {
  const bucket = `TIMESTAMP_TRUNC(${s.unit}, ts)`;
  const keys = s.keys === '' ? [] : s.keys.split(', ').map((k) => (k === 'bucket' ? bucket : k));
  const where: string[] = [];
  if (s.hosts !== undefined) where.push(`host IN (${s.hosts.map((h) => `'${h}'`).join(', ')})`);
  if (s.fromS !== undefined) where.push(`ts >= TO_TIMESTAMP_MS(${s.fromS * 1000})`);
  if (s.toS !== undefined) where.push(`ts < TO_TIMESTAMP_MS(${s.toS * 1000})`);
  if (s.valueAbove !== undefined) where.push(`w > ${s.valueAbove}`);
  const items = [...keys, ...s.aggregates];
  return `SELECT ${items.join(', ')} FROM m` +
    (where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`) +
    (keys.length === 0 ? '' : ` GROUP BY ${keys.join(', ')}`) +
    (s.having && keys.length > 0 ? ' HAVING COUNT(*) > 1' : '') +
    (keys.length === 0 ? '' : ` ORDER BY ${keys.map((_k, i) => i + 1).join(', ')}`);
}

async function load(db: SqlTestDatabase, table: typeof tableArbitrary extends fc.Arbitrary<infer T> ? T : never):
  Promise<void> {
  await db.update('DROP TABLE IF EXISTS m');
  await db.update('CREATE TABLE m (host STRING, ts TIMESTAMP, v DOUBLE, w DOUBLE, PRIMARY KEY (host, ts))');
  const container = db.test.store.session().container('m');
  let next = 0;
  for (let h = 0; h < HOSTS.length; h++) {
    const rows = Array.from({ length: table.rowCounts[h]! }, (_v, t) => {
      const [v, w] = table.values[next++ % table.values.length]!;
      const value = (x: number | null) => (table.nullFree && x === null ? -1 : x);
      return [HOSTS[h]!, t * TIME_STEP_MS, value(v), value(w)];
    });
    if (rows.length > 0) await container.multiPut(rows as never);
    if (h + 1 === table.checkpointAfter) await db.test.store.checkpoint();
  }
}

/** The same database with tables that cannot visit: the executor takes its paged path. */
function pagedOnly(database: SqlDatabase): SqlDatabase {
  return { ...database, table: (name) => ({ ...database.table(name), visit: undefined }) };
}

async function rowsOf(db: SqlTestDatabase, database: SqlDatabase, text: string): Promise<SqlValue[][]> {
  const result = await runSql(text, {
    database, parameters: [], workMemoryLimitBytes: WORK_MEMORY_LIMIT_BYTES_TEST, timeoutMs: 60_000,
    monotonicMs: () => db.clockMs, nowMs: 1_700_000_000_000, randomBytes: (count) => new Uint8Array(count),
    functions: testFunctions,
  });
  assert.equal(result.kind, 'rows');
  if (result.kind !== 'rows') return [];
  const rows: SqlValue[][] = [];
  for (;;) {
    const page = await result.next(1000);
    rows.push(...page.rows);
    if (page.done) return rows;
  }
}

describe('GROUP BY inside the scan', () => {
  it('answers as the executor\'s paged aggregation: NULLs, NaN, ±0, negatives, empty buckets', async () => {
    const db = await sqlTestDatabase();
    try {
      await fc.assert(fc.asyncProperty(tableArbitrary, fc.array(statementArbitrary, { minLength: 1, maxLength: 6 }),
        async (table, statements) => {
          await load(db, table);
          for (const statement of statements) {
            const text = statementText(statement);
            const plan = (await db.rows(`EXPLAIN ${text}`)).map((row) => JSON.parse(row[0] as string) as
              { type: string; detail: { inScan?: boolean } });
            assert.ok(plan.some((entry) => entry.type === 'GROUP' && entry.detail.inScan === true), `${text}: not pushed down`);
            const inScan = await rowsOf(db, db.database, text);
            const paged = await rowsOf(db, pagedOnly(db.database), text);
            assert.deepStrictEqual(inScan, paged, text);
          }
        }), { numRuns: 25 });
    } finally {
      await db.test.store.close();
    }
  });

  it('EXPLAIN ANALYZE counts the rows the scan read and the filter kept', async () => {
    const db = await sqlTestDatabase();
    try {
      await db.update('CREATE TABLE m (host STRING, ts TIMESTAMP, v DOUBLE, w DOUBLE, PRIMARY KEY (host, ts))');
      const container = db.test.store.session().container('m');
      await container.multiPut(Array.from({ length: 2000 }, (_v, t) => ['a', t * 1000, t % 10, -t]) as never);
      const text = 'SELECT TIMESTAMP_TRUNC(MINUTE, ts), MAX(v) FROM m WHERE ts >= TO_TIMESTAMP_MS(100000) ' +
        'AND v > 4 GROUP BY TIMESTAMP_TRUNC(MINUTE, ts)';
      const plan = (await db.rows(`EXPLAIN ANALYZE ${text}`)).map((row) => JSON.parse(row[0] as string) as
        { type: string; detail: Record<string, unknown>; profile: { rows: number } });
      const scan = plan.find((entry) => entry.type === 'SCAN')!;
      const filter = plan.find((entry) => entry.type === 'SELECT' && entry.detail['operation'] === 'FILTER')!;
      const group = plan.find((entry) => entry.type === 'GROUP')!;
      assert.equal(group.detail['inScan'], true);
      assert.equal(scan.profile.rows, 2000); // ts is the second key column: no key range
      assert.equal(filter.profile.rows, 950);
      assert.equal(group.profile.rows, 33); // minutes 1 (from 100 s) to 33 (1,999 s)
    } finally {
      await db.test.store.close();
    }
  });

  it('is not used where rows are needed across an await: a subquery in WHERE', async () => {
    const db = await sqlTestDatabase();
    try {
      await db.update('CREATE TABLE m (host STRING, ts TIMESTAMP, v DOUBLE, w DOUBLE, PRIMARY KEY (host, ts))');
      const plan = (await db.rows('EXPLAIN SELECT host, MAX(v) FROM m WHERE v > (SELECT MIN(w) FROM m) GROUP BY host'))
        .map((row) => JSON.parse(row[0] as string) as { type: string; detail: { inScan?: boolean } });
      const groups = plan.filter((entry) => entry.type === 'GROUP');
      assert.equal(groups.length, 1);
      assert.equal(groups[0]!.detail.inScan, undefined);
    } finally {
      await db.test.store.close();
    }
  });
});
