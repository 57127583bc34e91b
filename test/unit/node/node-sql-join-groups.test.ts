// Joins whose tables live in different engine threads (STORE_ENGINE_THREAD=worker, concurrency 2,
// a table in each partition group): the statement runs in one group and reads the other table's
// rows page by page from its group (lib/server/sql-node-database.ts). Every join method (hash,
// row-key look-up, TREE-index look-up, nested loop), both FROM orders, INNER and LEFT, must give
// the rows computed here from the data; a derived table over a table of the other group read in
// descending key order must give its last rows; a cross join across the groups can be cancelled.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientStore } from '../../../lib/client/store-factory.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';
import { clientOf, groupIn, nameInGroupIn, queryIdOf, rowsOf, waitUnlisted } from './sql-node-helpers.ts';

const LAYOUT = { partitionNum: 128, concurrency: 2 };
const DEVICE_COUNT = 40;
const READINGS_PER_DEVICE = 30;
/** Devices 0…DEVICE_COUNT+4 have readings: the last five match no device (LEFT joins see them). */
const READING_DEVICE_COUNT = DEVICE_COUNT + 5;
const SITE_COUNT = 3;
const CROSS_ROW_COUNT = 1000;

describe('SQL: joins across engine threads', { timeout: 120_000 }, () => {
  let home: string;
  let node: NodeProcess;
  let store: ClientStore;
  const devices = nameInGroupIn(LAYOUT, 'dev', 0);
  const readings = nameInGroupIn(LAYOUT, 'rd', 1);
  const series = nameInGroupIn(LAYOUT, 'ser', 1);

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0, concurrency: LAYOUT.concurrency } });
    node = await startNodeProcess(home, { STORE_ENGINE_THREAD: 'worker' });
    store = clientOf(node, 'join-groups');
    await store.sql(`CREATE TABLE ${devices} (id INTEGER PRIMARY KEY, site STRING)`);
    await store.sql(`CREATE TABLE ${readings} (id INTEGER PRIMARY KEY, device INTEGER, v LONG)`);
    await store.sql(`CREATE INDEX ${readings}_device ON ${readings} (device)`);
    await store.sql(`CREATE TABLE ${series} (device INTEGER, ts TIMESTAMP, v LONG, PRIMARY KEY (device, ts))`);
    await store.sql(`INSERT INTO ${devices} VALUES ${Array.from({ length: DEVICE_COUNT },
      (_v, d) => `(${d}, 's${d % SITE_COUNT}')`).join(', ')}`);
    const rows: string[] = [];
    const points: string[] = [];
    for (let d = 0; d < READING_DEVICE_COUNT; d++) {
      for (let i = 0; i < READINGS_PER_DEVICE; i++) {
        rows.push(`(${d * READINGS_PER_DEVICE + i}, ${d}, ${valueOf(d, i)})`);
        points.push(`(${d}, TIMESTAMP_ADD(SECOND, TIMESTAMP('2026-01-01T00:00:00Z'), ${i}), ${valueOf(d, i)})`);
      }
    }
    await store.sql(`INSERT INTO ${readings} VALUES ${rows.join(', ')}`);
    await store.sql(`INSERT INTO ${series} VALUES ${points.join(', ')}`);
  });

  after(async () => {
    await store?.close().catch(() => undefined);
    await node?.kill();
    if (home !== undefined) removeHome(home);
  });

  const valueOf = (d: number, i: number) => (d * 7 + i * 13) % 50;

  /** Per site: [site, reading count, sum of v] over readings i in [lo, hi]. */
  function expectedBySite(lo = 0, hi = READINGS_PER_DEVICE - 1): unknown[][] {
    const sites = new Map<string, [number, number]>();
    for (let d = 0; d < DEVICE_COUNT; d++) {
      const entry = sites.get(`s${d % SITE_COUNT}`) ?? [0, 0];
      for (let i = lo; i <= hi; i++) {
        entry[0]++;
        entry[1] += valueOf(d, i);
      }
      sites.set(`s${d % SITE_COUNT}`, entry);
    }
    return [...sites].sort(([a], [b]) => (a < b ? -1 : 1)).map(([site, [n, sum]]) => [site, BigInt(n), BigInt(sum)]);
  }

  async function methodOf(sql: string): Promise<string> {
    const entries = (await rowsOf(store, `EXPLAIN ${sql}`)).map((row) => JSON.parse(row[0] as string) as
      { type: string; detail: { method?: string } });
    return entries.find((entry) => entry.type === 'JOIN')!.detail.method!;
  }

  it('places the tables in different groups', () => {
    assert.notEqual(groupIn(LAYOUT, devices), groupIn(LAYOUT, readings));
    assert.equal(groupIn(LAYOUT, readings), groupIn(LAYOUT, series));
  });

  it('every join method gives the rows, in both FROM orders', async () => {
    // [hint, method with devices first, method with readings first]
    const cases = [
      [`NoIndexJoin(${devices} ${readings})`, 'hash', 'hash'],
      // devices first: by readings' TREE index on device; readings first: by devices' row key.
      [`IndexJoin(${devices} ${readings})`, 'indexNestedLoop', 'indexNestedLoop'],
      [`TableRowCount(${devices} 100000) TableRowCount(${readings} 100000)`, 'hash', 'hash'],
    ] as const;
    for (const [hint, devicesFirst, readingsFirst] of cases) {
      for (const [from, method] of [[`${devices} d JOIN ${readings} r ON r.device = d.id`, devicesFirst],
        [`${readings} r JOIN ${devices} d ON d.id = r.device`, readingsFirst]] as const) {
        const sql = `SELECT /*+ ${hint} */ d.site, COUNT(*), SUM(r.v) FROM ${from} GROUP BY d.site ORDER BY d.site`;
        assert.equal(await methodOf(sql), method, sql);
        assert.deepEqual(await rowsOf(store, sql), expectedBySite(), sql);
      }
    }
    const loop = `SELECT d.site, COUNT(*), SUM(r.v) FROM ${devices} d JOIN ${readings} r ON r.device <= d.id ` +
      'AND r.device >= d.id GROUP BY d.site ORDER BY d.site';
    assert.equal(await methodOf(loop), 'nestedLoop');
    assert.deepEqual(await rowsOf(store, loop), expectedBySite());
  });

  it('a look-up by a composite key with a time range on the other group', async () => {
    const sql = `SELECT /*+ IndexJoin(${devices} ${series}) */ d.site, COUNT(*), SUM(r.v) FROM ${devices} d JOIN ${series} r ` +
      "ON r.device = d.id WHERE r.ts >= TIMESTAMP('2026-01-01T00:00:05Z') AND r.ts < TIMESTAMP('2026-01-01T00:00:12Z') " +
      'GROUP BY d.site ORDER BY d.site';
    assert.equal(await methodOf(sql), 'indexNestedLoop');
    assert.deepEqual(await rowsOf(store, sql), expectedBySite(5, 11));
  });

  it('a LEFT join keeps the rows of the other group that match nothing', async () => {
    for (const hint of ['', `/*+ IndexJoin(${readings} ${devices}) */`, `/*+ NoIndexJoin(${readings} ${devices}) */`]) {
      const sql = `SELECT ${hint} r.device, COUNT(*), COUNT(d.id) FROM ${readings} r LEFT JOIN ${devices} d ` +
        'ON d.id = r.device GROUP BY r.device ORDER BY r.device';
      const want = Array.from({ length: READING_DEVICE_COUNT }, (_v, d) =>
        [d, BigInt(READINGS_PER_DEVICE), BigInt(d < DEVICE_COUNT ? READINGS_PER_DEVICE : 0)]);
      assert.deepEqual(await rowsOf(store, sql), want, sql);
    }
  });

  it('a derived table reading the other group\'s table in descending key order gives its last rows', async () => {
    const sql = `SELECT d.site, x.v FROM ${devices} d JOIN (SELECT device, v FROM ${series} WHERE device = 3 ` +
      'ORDER BY ts DESC LIMIT 2) x ON x.device = d.id ORDER BY x.v';
    const want = [valueOf(3, READINGS_PER_DEVICE - 1), valueOf(3, READINGS_PER_DEVICE - 2)].sort((a, b) => a - b);
    assert.deepEqual(await rowsOf(store, sql), want.map((v) => ['s0', BigInt(v)]));
  });

  it('a partitioned table joins when named first; named after a table of another group it is refused', async () => {
    const parted = nameInGroupIn(LAYOUT, 'pt', 1);
    await store.sql(`CREATE TABLE ${parted} (device INTEGER, ts TIMESTAMP, v LONG, PRIMARY KEY (device, ts)) ` +
      'PARTITION BY HASH (device) PARTITIONS 4');
    await store.sql(`INSERT INTO ${parted} SELECT device, ts, v FROM ${series}`);
    for (const hint of ['', `/*+ IndexJoin(${parted} ${devices}) */`, `/*+ NoIndexJoin(${parted} ${devices}) */`]) {
      const sql = `SELECT ${hint} d.site, COUNT(*), SUM(r.v) FROM ${parted} r JOIN ${devices} d ON r.device = d.id ` +
        'GROUP BY d.site ORDER BY d.site';
      assert.deepEqual(await rowsOf(store, sql), expectedBySite(), sql);
    }
    // Read page by page from its group, its data partitions would not be visited: refused, not empty.
    await assert.rejects(rowsOf(store, `SELECT COUNT(*) FROM ${devices} d JOIN ${parted} r ON r.device = d.id`),
      (error: unknown) => (error as { code?: string }).code === 'NOT_SUPPORTED' &&
        /partitioned table .* another partition group/.test((error as Error).message));
  });

  it('a cross join across the groups can be cancelled', async () => {
    const left = nameInGroupIn(LAYOUT, 'xa', 0);
    const right = nameInGroupIn(LAYOUT, 'xb', 1);
    for (const table of [left, right]) {
      await store.sql(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, v LONG)`);
      await store.sql(`INSERT INTO ${table} VALUES ${Array.from({ length: CROSS_ROW_COUNT }, (_v, i) => `(${i}, ${i})`).join(', ')}`);
    }
    const victim = clientOf(node, 'victim');
    try {
      const sql = `SELECT COUNT(*) FROM ${left} a, ${right} b, ${right} c WHERE a.v + b.v + c.v < 0`;
      const outcome = victim.sql(sql).then(() => 'done', (error: unknown) => error);
      const queryId = await queryIdOf(store, sql);
      assert.equal(await store.cancelSql(queryId), true);
      const error = await outcome;
      assert.ok(error !== 'done', 'the cross join finished before its cancel');
      assert.equal((error as { code?: string }).code, 'SQL_CANCELLED');
      await waitUnlisted(store, sql);
    } finally {
      await victim.close();
    }
  });
});
