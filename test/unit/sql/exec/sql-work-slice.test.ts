// The executor turns the event loop within a bounded amount of work, whatever the operator
// (lib/sql/exec/work-slice.ts). Each statement below does all its work before its first row and
// reads tables of 15 rows (one page: the scan itself never yields), so the only turns of the
// event loop are the executor's. A cancel set by the first turn (setImmediate, scheduled before
// the statement) must end the statement with SQL_CANCELLED before its first page; without the
// work slices the first page arrives first. Each statement puts its bulk of work in one
// operator: a nested-loop join's tested pairs, a hash join's buckets, an index nested-loop
// join's look-ups, a sort's merges, a window's frames, GROUP BY RANGE's generated groups, a
// GROUP BY, DISTINCT and EXCEPT. The sort on its own: sortSliced equals the built-in stable sort
// and pauses as it goes.

import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { SQL_WORK_SLICE_UNIT_COUNT } from '../../../../lib/base/limits.ts';
import { sortSliced } from '../../../../lib/sql/exec/sort-sliced.ts';
import { SqlWorkSlice } from '../../../../lib/sql/exec/work-slice.ts';
import { storageError } from '../../engine/engine-test-helpers.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

/** Rows of `t`: below the scan's first page (16), so reading it never turns the event loop. */
const ROW_COUNT = 15;

interface Case {
  readonly operator: string;
  readonly sql: string;
  /** The join method EXPLAIN must show, so the case exercises the operator it names. */
  readonly method?: string;
}

const CASES: readonly Case[] = [
  { operator: 'nested-loop join (pairs a condition empties)', method: 'nestedLoop',
    sql: 'SELECT COUNT(*) FROM t a, t b, t c, t d WHERE a.v + b.v + c.v + d.v < 0' },
  { operator: 'hash join (every row in one bucket)', method: 'hash',
    sql: 'SELECT COUNT(*) FROM t a JOIN t b ON a.g = b.g JOIN t c ON b.g = c.g JOIN t d ON c.g = d.g ' +
      'WHERE a.v + b.v + c.v + d.v < 0' },
  { operator: 'index nested-loop join (look-ups that find nothing)', method: 'indexNestedLoop',
    // FROM's order: by cost the empty u would come first and no look-up would be made.
    sql: 'SELECT /*+ IndexJoin(t u) NoCostBasedJoin() */ COUNT(*) FROM t a, t b, t c JOIN u ON u.id = a.v + b.v + c.v' },
  { operator: 'sort', sql: 'SELECT a.v, b.v, c.v FROM t a, t b, t c ORDER BY a.v * b.v - c.v, c.v DESC' },
  // STDDEV aggregates each frame afresh (SUM would slide: O(rows)).
  { operator: 'window (a frame of 3000 rows per row)',
    sql: 'SELECT STDDEV_SAMP(a.v) OVER (ORDER BY a.v, b.v, c.v ROWS BETWEEN 3000 PRECEDING AND CURRENT ROW) ' +
      'FROM t a, t b, t c' },
  { operator: 'GROUP BY RANGE … FILL (100,000 groups from one row)',
    sql: "SELECT ts, MAX(v) FROM one WHERE ts BETWEEN TIMESTAMP('2024-01-01T00:00:00Z') " +
      "AND TIMESTAMP('2024-01-02T03:46:39Z') GROUP BY RANGE(ts) EVERY(1, SECOND) FILL(NULL)" },
  { operator: 'GROUP BY', sql: 'SELECT a.v, COUNT(*) FROM t a, t b, t c, t d GROUP BY a.v' },
  { operator: 'DISTINCT', sql: 'SELECT COUNT(*) FROM (SELECT DISTINCT a.v + b.v + c.v + d.v FROM t a, t b, t c, t d) x' },
  { operator: 'EXCEPT', sql: 'SELECT COUNT(*) FROM (SELECT a.v + b.v + c.v + d.v FROM t a, t b, t c, t d ' +
      'EXCEPT SELECT v FROM t) x' },
  { operator: 'scalar subquery per row', sql: 'SELECT COUNT(*) FROM t a, t b, t c, t d ' +
      'WHERE (SELECT MAX(v) FROM t) < a.v + b.v + c.v + d.v - 100' },
];

describe('sql work slices: every operator turns the event loop before its first row', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE t (id INTEGER PRIMARY KEY, v LONG, g INTEGER)');
    const values = Array.from({ length: ROW_COUNT }, (_, i) => `(${i}, ${i}, 1)`).join(', ');
    await db.update(`INSERT INTO t VALUES ${values}`);
    await db.update('CREATE TABLE u (id LONG PRIMARY KEY, v LONG)'); // empty: every look-up finds nothing
    await db.update('CREATE TABLE one (ts TIMESTAMP PRIMARY KEY, v LONG)');
    await db.update("INSERT INTO one VALUES (TIMESTAMP('2024-01-01T00:00:00Z'), 1)");
  });

  after(async () => {
    await db?.test.store.close();
  });

  for (const { operator, sql, method } of CASES) {
    it(`${operator}: a cancel at the first turn ends it before its first page`, async () => {
      if (method !== undefined) {
        const plan = (await db.rows(`EXPLAIN ${sql}`)).map((row) => JSON.parse(row[0] as string) as
          { detail?: { method?: string } });
        assert.ok(plan.some((entry) => entry.detail?.method === method), `${method} expected: ${JSON.stringify(plan)}`);
      }
      let cancelled = false;
      const turn = nextTurn().then(() => { cancelled = true; });
      const result = await db.run(sql, [], { cancelled: () => cancelled });
      assert.equal(result.kind, 'rows');
      if (result.kind !== 'rows') return;
      await assert.rejects(result.next(10), storageError('SQL_CANCELLED'));
      await turn;
      // The same statement, not cancelled, gives its rows.
      const again = await db.run(sql);
      assert.ok(again.kind === 'rows' && (await again.next(10)).rows.length > 0);
      if (again.kind === 'rows') await again.close();
    });
  }

  it('a timeout is seen at a turn too: REQUEST_TIMEOUT before the first page', async () => {
    const result = await db.run(CASES[0]!.sql, [], { timeoutMs: 1000 });
    assert.equal(result.kind, 'rows');
    if (result.kind !== 'rows') return;
    // The test's clock moves only when the event loop turns.
    const turn = nextTurn().then(() => { db.clockMs += 2000; });
    await assert.rejects(result.next(10), storageError('REQUEST_TIMEOUT'));
    await turn;
    db.clockMs = 0;
  });

  it('sortSliced sorts as the built-in stable sort and pauses every slice of work', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.nat()), { maxLength: 5000 }),
      async (items) => {
        let turns = 0;
        const work = new SqlWorkSlice(async () => { turns++; }, () => undefined);
        const compare = (a: [number, number], b: [number, number]) => a[0] - b[0];
        const expected = [...items].sort(compare);
        const sorted = await sortSliced([...items], compare, work);
        assert.deepEqual(sorted, expected);
        assert.equal(turns, work.pauses);
        // At least one unit a row is counted: a slice's worth of rows cannot pass without a turn.
        assert.ok(turns >= Math.floor(items.length / SQL_WORK_SLICE_UNIT_COUNT));
      }), { numRuns: 50 });
    let turns = 0;
    const work = new SqlWorkSlice(async () => { turns++; }, () => undefined);
    const big = Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 200_003);
    const sorted = await sortSliced(big, (a, b) => a - b, work);
    for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i - 1]! <= sorted[i]!);
    assert.ok(turns >= 200_000 / SQL_WORK_SLICE_UNIT_COUNT, `${turns} turns`);
  });
});
