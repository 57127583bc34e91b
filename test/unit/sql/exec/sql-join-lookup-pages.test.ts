// The index nested-loop join's look-up pages handed on whole (execute-join.ts' directBatch): a
// look-up by row key without a remaining condition gives each page the engine read as an output
// batch, the left row's values repeated. A property test: devices with up to three pages of
// readings each (NULL values too, so pages come typed and untyped), random bounds on the second
// key column, INNER and LEFT, rows and a GROUP BY of every common aggregate over the join: the
// forced look-up (IndexJoin) must answer as the hash join (NoIndexJoin).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { SQL_BATCH_ROW_COUNT } from '../../../../lib/base/limits.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

const DEVICE_COUNT = 5;
/** Readings of one device: up to three pages of a look-up. */
const READING_COUNT_MAX = 3 * SQL_BATCH_ROW_COUNT;
const RUN_COUNT = 25;

describe('sql join look-up pages as output batches', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE dev (id INTEGER PRIMARY KEY, site STRING, kind STRING)');
    await db.update('CREATE TABLE rd (device INTEGER, ts TIMESTAMP, v DOUBLE, PRIMARY KEY (device, ts))');
  });

  after(async () => {
    await db?.test.store.close();
  });

  const caseArb = fc.record({
    devices: fc.array(fc.record({
      site: fc.option(fc.constantFrom('s0', 's1', 's2'), { freq: 6 }),
      kind: fc.constantFrom('a', 'b'),
      // No readings: a LEFT join's NULL-extended row.
      readingCount: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: READING_COUNT_MAX })),
      /** Every nullEvery-th reading's value is NULL (0: none). */
      nullEvery: fc.constantFrom(0, 0, 7, 300),
    }, { noNullPrototype: true }), { minLength: DEVICE_COUNT, maxLength: DEVICE_COUNT }),
    from: fc.option(fc.integer({ min: 0, max: READING_COUNT_MAX }), { freq: 3 }),
    to: fc.option(fc.integer({ min: 0, max: READING_COUNT_MAX }), { freq: 3 }),
    kind: fc.option(fc.constantFrom('a', 'b'), { freq: 2 }),
    left: fc.boolean(),
  }, { noNullPrototype: true });

  it('answers as the hash join does, rows and groups', async () => {
    await fc.assert(fc.asyncProperty(caseArb, async (c) => {
      await db.update('DELETE FROM dev');
      await db.update('DELETE FROM rd');
      await db.update(`INSERT INTO dev VALUES ${c.devices.map((d, i) =>
        `(${i}, ${d.site === null ? 'NULL' : `'${d.site}'`}, '${d.kind}')`).join(', ')}`);
      for (const [i, d] of c.devices.entries()) {
        if (d.readingCount === 0) continue;
        await db.update(`INSERT INTO rd VALUES ${Array.from({ length: d.readingCount }, (_v, n) =>
          `(${i}, TIMESTAMP_ADD(MILLISECOND, TIMESTAMP('2000-01-01T00:00:00Z'), ${n}), ` +
          `${d.nullEvery > 0 && n % d.nullEvery === 0 ? 'NULL' : (i * 31 + n * 17) % 101 - 50})`).join(', ')}`);
      }
      const at = (n: number) => `TIMESTAMP_ADD(MILLISECOND, TIMESTAMP('2000-01-01T00:00:00Z'), ${n})`;
      const conjuncts = [
        ...(c.from === null ? [] : [`r.ts >= ${at(c.from)}`]),
        ...(c.to === null ? [] : [`r.ts < ${at(c.to)}`]),
        ...(c.kind === null ? [] : [`d.kind = '${c.kind}'`]),
      ];
      const where = conjuncts.length === 0 ? '' : ` WHERE ${conjuncts.join(' AND ')}`;
      const join = c.left ? 'LEFT JOIN' : 'JOIN';
      const rows = (hint: string) => `SELECT /*+ ${hint}(dev rd) */ d.id, d.site, r.device, r.ts, r.v ` +
        `FROM dev d ${join} rd r ON r.device = d.id${where} ORDER BY 1, 4`;
      // Values are integers: sums are exact in any order.
      const groups = (hint: string) => `SELECT /*+ ${hint}(dev rd) */ d.site, COUNT(*), COUNT(r.v), SUM(r.v), ` +
        `AVG(r.v), MIN(r.v), MAX(r.v), MAX(r.ts), SUM(r.device) FROM dev d ${join} rd r ON r.device = d.id${where} ` +
        'GROUP BY d.site ORDER BY 1';
      for (const query of [rows, groups]) {
        const explain = (await db.rows(`EXPLAIN ${query('IndexJoin')}`)).map((row) => JSON.parse(row[0] as string) as
          { type: string; detail: { method?: string; lookup?: { by: string } } });
        const joinEntry = explain.find((entry) => entry.type === 'JOIN')!;
        assert.equal(joinEntry.detail.method, 'indexNestedLoop');
        assert.equal(joinEntry.detail.lookup?.by, 'ROWKEY');
        assert.deepEqual(await db.rows(query('IndexJoin')), await db.rows(query('NoIndexJoin')), query('IndexJoin'));
      }
    }), { numRuns: RUN_COUNT, seed: 20_261_126 });
  });
});
