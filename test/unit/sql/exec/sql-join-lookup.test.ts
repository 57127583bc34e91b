// The index nested-loop join's look-ups through a filtered right table (plan-join.ts): by the first
// column of a composite row key, the filter's bounds on the second key column narrowing each
// look-up and the conjuncts that range decides no longer tested per pair. A property test: random
// rows, random bounds on the second key column (strict or not, either side of the operator, equal,
// NULL, empty, bounds on non-key columns of the same types too), INNER and LEFT, the answer of the forced look-up
// (IndexJoin) must equal the hash join's (NoIndexJoin), which reads the whole table through the
// ordinary filter; EXPLAIN must show the look-up and its range.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

const DEVICE_COUNT = 6;
const TS_MAX = 12;
const RUN_COUNT = 200;
const EPOCH_2000_MS = 946_684_800_000;

describe('sql join look-ups by a composite key prefix', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE dev (id INTEGER PRIMARY KEY, site STRING)');
    await db.update('CREATE TABLE rd (device INTEGER, ts TIMESTAMP, n INTEGER, v LONG, at TIMESTAMP, PRIMARY KEY (device, ts))');
    await db.update('CREATE TABLE rn (device INTEGER, n INTEGER, v LONG, PRIMARY KEY (device, n))');
    await db.update(`INSERT INTO dev VALUES ${Array.from({ length: DEVICE_COUNT + 2 },
      (_v, d) => `(${d - 1}, 's${d % 3}')`).join(', ')}`);
  });

  after(async () => {
    await db?.test.store.close();
  });

  const boundArb = fc.record({
    column: fc.constantFrom('r.ts', 'r.n', 'r.at'),
    operator: fc.constantFrom('<', '<=', '>', '>=', '='),
    value: fc.option(fc.integer({ min: -2, max: TS_MAX + 2 }), { freq: 8 }),
    flipped: fc.boolean(),
  }, { noNullPrototype: true });

  const caseArb = fc.record({
    rows: fc.uniqueArray(fc.record({
      device: fc.integer({ min: 0, max: DEVICE_COUNT - 1 }), ts: fc.integer({ min: 0, max: TS_MAX }),
      v: fc.option(fc.integer({ min: -5, max: 5 }), { freq: 5 }),
    }, { noNullPrototype: true }), { maxLength: 40, selector: (row) => `${row.device}/${row.ts}` }),
    bounds: fc.array(boundArb, { minLength: 1, maxLength: 3 }),
    valueFilter: fc.option(fc.integer({ min: -3, max: 3 }), { freq: 3 }),
    left: fc.boolean(),
    table: fc.constantFrom('rd', 'rn'),
  }, { noNullPrototype: true });

  it('answers as the hash join does', async () => {
    await fc.assert(fc.asyncProperty(caseArb, async (c) => {
      for (const table of ['rd', 'rn']) await db.update(`DELETE FROM ${table}`);
      if (c.rows.length > 0) {
        await db.update(`INSERT INTO rd VALUES ${c.rows.map((r) => `(${r.device}, TIMESTAMP_ADD(MILLISECOND, ` +
          `TIMESTAMP('2000-01-01T00:00:00Z'), ${r.ts}), ${r.ts}, ${r.v ?? 'NULL'}, TIMESTAMP_ADD(MILLISECOND, ` +
          `TIMESTAMP('2000-01-01T00:00:00Z'), ${TS_MAX - r.ts}))`).join(', ')}`);
        await db.update(`INSERT INTO rn VALUES ${c.rows.map((r) => `(${r.device}, ${r.ts}, ${r.v ?? 'NULL'})`).join(', ')}`);
      }
      const keyColumn = c.table === 'rd' ? 'r.ts' : 'r.n';
      // rn has no `at`: its bounds go to n there.
      const conjuncts = c.bounds.map((b) => {
        const column = b.column === 'r.ts' ? keyColumn : b.column === 'r.at' && c.table === 'rd' ? 'r.at' : 'r.n';
        // A NULL of the column's type: a bound the key range cannot take, yet it rejects every row.
        const timestamp = column === 'r.ts' || column === 'r.at';
        const value = b.value === null ? `CAST(NULL AS ${timestamp ? 'TIMESTAMP' : 'INTEGER'})` : timestamp
          ? `TIMESTAMP_ADD(MILLISECOND, TIMESTAMP('2000-01-01T00:00:00Z'), ${b.value})` : String(b.value);
        // rd's n and at are not key columns: their bounds stay a filter.
        const named = column;
        const flipped = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' }[b.operator];
        return b.flipped ? `${value} ${flipped} ${named}` : `${named} ${b.operator} ${value}`;
      });
      if (c.valueFilter !== null) conjuncts.push(`r.v > ${c.valueFilter}`);
      const where = conjuncts.length === 0 ? '' : ` AND ${conjuncts.join(' AND ')}`;
      const join = c.left ? 'LEFT JOIN' : 'JOIN';
      const query = (hint: string) => `SELECT /*+ ${hint}(dev ${c.table}) */ d.id, d.site, r.device, r.v ` +
        `FROM dev d ${join} ${c.table} r ON r.device = d.id${where} ORDER BY 1, 2, 3, 4`;
      const explain = (await db.rows(`EXPLAIN ${query('IndexJoin')}`)).map((row) => JSON.parse(row[0] as string) as
        { type: string; detail: { method?: string; lookup?: { by: string } } });
      const joinEntry = explain.find((entry) => entry.type === 'JOIN')!;
      assert.equal(joinEntry.detail.method, 'indexNestedLoop');
      assert.equal(joinEntry.detail.lookup?.by, 'ROWKEY');
      assert.deepEqual(await db.rows(query('IndexJoin')), await db.rows(query('NoIndexJoin')), query('IndexJoin'));
    }), { numRuns: RUN_COUNT, seed: 20_261_126 });
  });

  it('EXPLAIN shows the key range of each look-up', async () => {
    const rows = await db.rows("EXPLAIN SELECT /*+ IndexJoin(dev rd) */ d.site, COUNT(*) FROM dev d JOIN rd r ON r.device = d.id WHERE " +
      "r.ts >= TIMESTAMP('2000-01-01T00:00:00.003Z') AND r.ts < TIMESTAMP('2000-01-01T00:00:00.009Z') " +
      "AND d.site = 's1' GROUP BY d.site");
    const joinEntry = rows.map((row) => JSON.parse(row[0] as string) as { type: string; detail: Record<string, unknown> })
      .find((entry) => entry.type === 'JOIN')!;
    assert.deepEqual(joinEntry.detail['lookup'], { table: 'rd', column: 'device', by: 'ROWKEY', next: { from: EPOCH_2000_MS + 3, to: EPOCH_2000_MS + 8 } });
  });
});
