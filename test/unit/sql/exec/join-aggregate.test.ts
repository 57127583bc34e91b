// GROUP BY straight over an index nested-loop join's look-ups (join-aggregate.ts): keys over the
// left side, aggregates over the right, no pair made, the right rows read by one engine call per
// left batch (lookUpRanges) and resumed past LOOKUP_RANGES_ROW_COUNT_MAX rows. A property test:
// random devices with up to 1,200 readings each (past one call's row budget, NULLs making pieces
// untyped), three right tables (a composite key with a TIMESTAMP second column and random
// bounds, a composite key with a STRING second column, whose prefix bound the store cannot take,
// a single-column key), INNER and LEFT, several GROUP BY shapes: the forced look-up (IndexJoin)
// must answer as the hash join (NoIndexJoin), and must go through lookUpRanges.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { SqlTable } from '../../../../lib/sql/exec/table-source.ts';
import type { SqlDatabase } from '../../../../lib/sql/sql-database.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

const DEVICE_COUNT = 6;
/** Readings of one device: more than one lookUpRanges call reads (4 × 256 rows). */
const READING_COUNT_MAX = 1200;
const RUN_COUNT = 12;
const QUERY_COUNT = 5;
const T0 = "TIMESTAMP('2000-01-01T00:00:00Z')";

/** The test database, its tables' lookUpRanges calls counted. */
function countingDatabase(database: SqlDatabase, counter: { calls: number }): SqlDatabase {
  return {
    ...database,
    table(name): SqlTable {
      const table = database.table(name);
      const lookUpRanges = table.lookUpRanges;
      if (lookUpRanges === undefined) return table;
      return {
        ...table,
        lookUpRanges(request, visit) {
          counter.calls++;
          return lookUpRanges.call(table, request, visit);
        },
      };
    },
  };
}

describe('sql GROUP BY over a join\'s look-ups', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE dev (id INTEGER PRIMARY KEY, site STRING, kind STRING)');
    await db.update('CREATE TABLE rd (device INTEGER, ts TIMESTAMP, v DOUBLE, name STRING, ' +
      'PRIMARY KEY (device, ts))');
    await db.update('CREATE TABLE rs (device INTEGER, tag STRING, v DOUBLE, PRIMARY KEY (device, tag))');
    await db.update('CREATE TABLE rk (id INTEGER PRIMARY KEY, v DOUBLE)');
  });

  after(async () => {
    await db?.test.store.close();
  });

  const caseArb = fc.record({
    devices: fc.array(fc.record({
      site: fc.option(fc.constantFrom('s0', 's1', 's2'), { freq: 6 }),
      kind: fc.constantFrom('a', 'b'),
      readingCount: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: READING_COUNT_MAX })),
      /** Every nullEvery-th reading's value is NULL (0: none). */
      nullEvery: fc.constantFrom(0, 0, 7, 300),
    }, { noNullPrototype: true }), { minLength: DEVICE_COUNT, maxLength: DEVICE_COUNT }),
    from: fc.option(fc.integer({ min: 0, max: READING_COUNT_MAX }), { freq: 3 }),
    to: fc.option(fc.integer({ min: 0, max: READING_COUNT_MAX }), { freq: 3 }),
    kind: fc.option(fc.constantFrom('a', 'b'), { freq: 2 }),
    left: fc.boolean(),
  }, { noNullPrototype: true });

  async function load(c: typeof caseArb extends fc.Arbitrary<infer T> ? T : never): Promise<void> {
    for (const table of ['dev', 'rd', 'rs', 'rk']) await db.update(`DELETE FROM ${table}`);
    await db.update(`INSERT INTO dev VALUES ${c.devices.map((d, i) =>
      `(${i}, ${d.site === null ? 'NULL' : `'${d.site}'`}, '${d.kind}')`).join(', ')}`);
    for (const [i, d] of c.devices.entries()) {
      if (d.readingCount === 0) continue;
      const value = (n: number) => (d.nullEvery > 0 && n % d.nullEvery === 0 ? 'NULL' : `${(i * 31 + n * 17) % 101 - 50}`);
      const ns = Array.from({ length: d.readingCount }, (_v, n) => n);
      await db.update(`INSERT INTO rd VALUES ${ns.map((n) =>
        `(${i}, TIMESTAMP_ADD(MILLISECOND, ${T0}, ${n}), ${value(n)}, 'n${n % 13}')`).join(', ')}`);
      await db.update(`INSERT INTO rs VALUES ${ns.map((n) => `(${i}, 't${String(n).padStart(4, '0')}', ${value(n)})`)
        .join(', ')}`);
      await db.update(`INSERT INTO rk VALUES (${i}, ${value(d.readingCount)})`);
    }
  }

  it('answers as the hash join does, and reads the look-ups in one call per left batch', async () => {
    /** lookUpRanges calls by query shape, over every run (a run may find no left row to look up). */
    const lookUpCalls: number[] = [];
    await fc.assert(fc.asyncProperty(caseArb, async (c) => {
      await load(c);
      const at = (n: number) => `TIMESTAMP_ADD(MILLISECOND, ${T0}, ${n})`;
      const bounds = [
        ...(c.from === null ? [] : [`r.ts >= ${at(c.from)}`]),
        ...(c.to === null ? [] : [`r.ts < ${at(c.to)}`]),
      ];
      // A LEFT join takes the right side's bounds in ON (in WHERE they would filter its pairs).
      const on = (timed: boolean) => ['r.device = d.id', ...(timed && c.left ? bounds : [])].join(' AND ');
      const where = (timed: boolean) => {
        const conjuncts = [...(timed && !c.left ? bounds : []), ...(c.kind === null ? [] : [`d.kind = '${c.kind}'`])];
        return conjuncts.length === 0 ? '' : ` WHERE ${conjuncts.join(' AND ')}`;
      };
      const join = c.left ? 'LEFT JOIN' : 'JOIN';
      // Values are integers: sums are exact in any order.
      const queries = [
        (hint: string) => `SELECT /*+ ${hint}(dev rd) */ d.site, COUNT(*), COUNT(r.v), SUM(r.v), AVG(r.v), ` +
          `MIN(r.v), MAX(r.v), MAX(r.ts), MIN(r.name), SUM(r.device), SUM(r.v * 2 + 1), COUNT(DISTINCT r.name) ` +
          `FROM dev d ${join} rd r ON ${on(true)}${where(true)} GROUP BY d.site ORDER BY 1`,
        (hint: string) => `SELECT /*+ ${hint}(dev rd) */ COUNT(*), SUM(r.v), MAX(r.ts) ` +
          `FROM dev d ${join} rd r ON ${on(true)}${where(true)}`,
        (hint: string) => `SELECT /*+ ${hint}(dev rd) */ d.kind, d.site || '!', AVG(r.v), COUNT(1) ` +
          `FROM dev d ${join} rd r ON ${on(true)}${where(true)} GROUP BY d.kind, d.site || '!' ORDER BY 1, 2`,
        (hint: string) => `SELECT /*+ ${hint}(dev rs) */ d.site, COUNT(*), SUM(r.v), MAX(r.tag) ` +
          `FROM dev d ${join} rs r ON ${on(false)}${where(false)} GROUP BY d.site ORDER BY 1`,
        (hint: string) => `SELECT /*+ ${hint}(dev rk) */ d.kind, COUNT(*), SUM(r.v), COUNT(r.v) ` +
          `FROM dev d ${join} rk r ON r.id = d.id${where(false)} GROUP BY d.kind ORDER BY 1`,
      ];
      for (const [q, query] of queries.entries()) {
        const counter = { calls: 0 };
        const database = countingDatabase(db.database, counter);
        const got = await db.rows(query('IndexJoin'), [], { database });
        lookUpCalls[q] = (lookUpCalls[q] ?? 0) + counter.calls;
        const want = await db.rows(query('NoIndexJoin'), [], { database });
        assert.deepEqual(got, want, query('IndexJoin'));
      }
    }), { numRuns: RUN_COUNT, seed: 20_261_126 });
    assert.equal(lookUpCalls.length, QUERY_COUNT);
    for (const calls of lookUpCalls) assert.ok(calls > 0, `not read through lookUpRanges: ${lookUpCalls.join(', ')}`);
  });

  it('leaves a GROUP BY key over the right side, or an argument over the left, to the pairs', async () => {
    await load({
      devices: Array.from({ length: DEVICE_COUNT }, (_v, i) => ({ site: i % 2 === 0 ? 's0' as const : 's1' as const, kind: 'a' as const, readingCount: 3,
        nullEvery: 0 as const })), from: null, to: null, kind: null, left: false,
    });
    for (const query of [
      'SELECT /*+ IndexJoin(dev rd) */ r.name, COUNT(*) FROM dev d JOIN rd r ON r.device = d.id GROUP BY r.name',
      'SELECT /*+ IndexJoin(dev rd) */ d.site, SUM(d.id + r.v) FROM dev d JOIN rd r ON r.device = d.id GROUP BY d.site',
    ]) {
      const counter = { calls: 0 };
      const got = await db.rows(`${query} ORDER BY 1`, [], { database: countingDatabase(db.database, counter) });
      assert.equal(counter.calls, 0, query);
      assert.deepEqual(got, await db.rows(`${query.replace('IndexJoin', 'NoIndexJoin')} ORDER BY 1`), query);
    }
  });
});
