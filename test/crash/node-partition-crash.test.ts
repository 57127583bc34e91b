// Partitioned tables and expiry through crashes of a real node process (logWriteMode 0: what was
// acknowledged is durable; two engine threads). Rounds of SQL inserts into an interval table, NoSQL
// puts into a hash table and DROP PARTITION FOR run while the node is SIGKILLed at a random moment;
// after each restart every acknowledged write is there, nothing else is, and "#table_partitions"
// lists exactly the data partitions holding rows (the dropped one gone). Then the node restarts with
// its wall clock 3 hours ahead (STORE_TEST_CLOCK_OFFSET_MS): the interval table's rows are invisible
// at once, the sweep at the start drops its data partitions and punches their slots (the data
// files' allocated bytes fall), and that holds through one more SIGKILL.

import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../lib/client/store-factory.ts';
import { Prng } from '../sim/prng.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../unit/node/node-process.ts';

const ROUND_COUNT = 2;
const ROWS_PER_ROUND = 2000;
const KILL_DELAY_MS_MAX = 1500;
const HOUR_MS = 3_600_000;
const POLL_COUNT_MAX = 200;
const POLL_DELAY_MS = 100;
const SEED = Number(process.env['STORE_CRASH_SEED'] ?? 20261126);
const ENV = { STORE_ENGINE_THREAD: 'worker' };

function clientOf(node: NodeProcess): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName: 'partition-crash',
  });
}

async function rowsOf(store: ClientStore, text: string): Promise<unknown[][]> {
  return await (await store.sql(text)).toArray() as unknown[][];
}

/** Bytes the data files take on disk (allocated blocks, holes not counted). */
function dataAllocatedBytes(home: string): number {
  let bytes = 0;
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.dat')) bytes += statSync(child).blocks * 512;
    }
  };
  walk(join(home, 'data'));
  return bytes;
}

describe('partitioned tables through crashes', { timeout: 300_000 }, () => {
  const home = newNodeHome({ dataStore: { logWriteMode: 0, concurrency: 2 } });
  after(() => removeHome(home));

  it(`keeps acknowledged writes, on-demand partitions and drops through ${ROUND_COUNT} SIGKILLs, then expires`, async () => {
    const prng = new Prng(SEED);
    // 20 minutes back to 20 ahead: no row expires (1 hour after its time) while the test runs.
    const startMs = Date.now() - HOUR_MS / 3;
    const times = (round: number) => Array.from({ length: ROWS_PER_ROUND }, (_v, i) =>
      startMs + ((round * ROWS_PER_ROUND + i) * 97) % (2 * HOUR_MS / 3));
    const payload = 'p'.repeat(300);
    let node = await startNodeProcess(home, ENV);
    let store = clientOf(node);
    const acknowledged = { ev: new Set<number>(), hs: new Set<number>() };
    try {
      await store.sql('CREATE TABLE ev (ts TIMESTAMP PRIMARY KEY, v STRING) USING TIMESERIES ' +
        "WITH (expiration_time=1, expiration_time_unit='HOUR') PARTITION BY RANGE (ts) EVERY (1, HOUR)");
      await store.sql('CREATE TABLE iv (id INTEGER PRIMARY KEY, v STRING) PARTITION BY RANGE (id) EVERY (1000)');
      await store.sql('CREATE TABLE hs (id INTEGER PRIMARY KEY, v LONG) PARTITION BY HASH (id) PARTITIONS 16');
      const evWrite = async (round: number) => {
        const evTimes = times(round);
        await store.sql(`INSERT OR REPLACE INTO ev VALUES ${evTimes.map((t) =>
          `(TIMESTAMP('${new Date(t).toISOString()}'), '${payload}')`).join(', ')}`);
        for (const t of evTimes) acknowledged.ev.add(t);
      };
      for (let round = 0; round < ROUND_COUNT; round++) {
        // One acknowledged write before the race, so every round has rows to check.
        await evWrite(ROUND_COUNT + round);
        const evTimes = times(round);
        const sqlInsert = store.sql(`INSERT OR REPLACE INTO ev VALUES ${evTimes.map((t) =>
          `(TIMESTAMP('${new Date(t).toISOString()}'), '${payload}')`).join(', ')}`)
          .then(() => { for (const t of evTimes) acknowledged.ev.add(t); }, () => undefined);
        const ids = Array.from({ length: 500 }, (_v, i) => round * 500 + i);
        const nosqlPut = (async () => {
          const container = await store.getContainer('hs');
          await container!.multiPut(ids.map((id) => [id, BigInt(id)]));
          for (const id of ids) acknowledged.hs.add(id);
        })().catch(() => undefined);
        // Three intervals of their own each round, the middle one dropped (a dropped interval
        // refuses rows for good).
        const ivBase = round * 3000;
        const ivRows = Array.from({ length: 3000 }, (_v, i) => `(${ivBase + i}, 'r${round}')`).join(', ');
        const ivWrite = store.sql(`INSERT OR REPLACE INTO iv VALUES ${ivRows}`)
          .then(() => store.sql(`ALTER TABLE iv DROP PARTITION FOR (${ivBase + 1500})`)).catch(() => undefined);
        await sleep(prng.nextIntBetween({ min: 0, max: KILL_DELAY_MS_MAX }));
        await node.kill();
        await Promise.all([sqlInsert, nosqlPut, ivWrite]);
        await store.close().catch(() => undefined);
        node = await startNodeProcess(home, ENV);
        store = clientOf(node);
        const ev = new Set((await rowsOf(store, 'SELECT ts FROM ev')).map(([ts]) => (ts instanceof Date ? ts.getTime() : Number(ts))));
        for (const t of acknowledged.ev) assert.ok(ev.has(t), `round ${round}: acknowledged row ${t} of ev lost`);
        const written = new Set(Array.from({ length: 2 * ROUND_COUNT }, (_v, r) => r)
          .flatMap((r) => (r <= round || r >= ROUND_COUNT) ? times(r) : []));
        for (const t of ev) assert.ok(written.has(t), `round ${round}: ev has a row never written`);
        const hs = new Set((await rowsOf(store, 'SELECT id FROM hs')).map(([id]) => id as number));
        for (const id of acknowledged.hs) assert.ok(hs.has(id), `round ${round}: acknowledged row ${id} of hs lost`);
        // The NoSQL view of hs: the same rows, through the data partitions.
        const container = (await store.getContainer('hs'))!;
        for (const id of [...acknowledged.hs].slice(0, 20)) assert.deepStrictEqual(await container.get(id), [id, BigInt(id)]);
        const partitions = await rowsOf(store, 'SELECT TABLE_NAME, PARTITION_BOUNDARY_VALUE FROM "#table_partitions"');
        assert.equal(partitions.filter(([table]) => table === 'hs').length, 16);
        const evParts = partitions.filter(([table]) => table === 'ev').map(([, boundary]) => Date.parse(boundary as string));
        const evHours = new Set([...ev].map((t) => Math.floor(t / HOUR_MS) * HOUR_MS));
        for (const hour of evHours) assert.ok(evParts.includes(hour), `round ${round}: a row's partition is listed`);
        const ivIds = (await rowsOf(store, `SELECT id FROM iv WHERE id >= ${ivBase + 1000} AND id < ${ivBase + 2000}`));
        const ivParts = partitions.filter(([table]) => table === 'iv').map(([, boundary]) => boundary);
        if (ivIds.length === 0 && ivParts.includes(String(ivBase + 1000))) {
          assert.fail('an empty interval partition is listed');
        }
      }
      assert.ok(acknowledged.ev.size >= ROUND_COUNT * ROWS_PER_ROUND);
      // Stopped cleanly: the data files hold every row (the stop checkpoints).
      await store.close();
      await node.stop();
      const beforeBytes = dataAllocatedBytes(home);
      node = await startNodeProcess(home, { ...ENV, STORE_TEST_CLOCK_OFFSET_MS: String(3 * HOUR_MS) });
      store = clientOf(node);
      assert.deepStrictEqual(await rowsOf(store, 'SELECT COUNT(*) FROM ev'), [[0n]], 'expired rows invisible at once');
      let evParts = -1;
      for (let poll = 0; poll < POLL_COUNT_MAX && evParts !== 0; poll++) {
        [[evParts]] = await rowsOf(store, 'SELECT COUNT(*) FROM "#table_partitions" WHERE TABLE_NAME = \'ev\'')
          .then((rows) => rows.map(([count]) => [Number(count)]));
        if (evParts !== 0) await sleep(POLL_DELAY_MS);
      }
      assert.equal(evParts, 0, 'the start sweep dropped the expired data partitions');
      let afterBytes = dataAllocatedBytes(home);
      for (let poll = 0; poll < POLL_COUNT_MAX && afterBytes >= beforeBytes; poll++) {
        await sleep(POLL_DELAY_MS);
        afterBytes = dataAllocatedBytes(home);
      }
      assert.ok(afterBytes < beforeBytes, `allocated bytes fall: ${beforeBytes} before, ${afterBytes} after`);
      await node.kill();
      await store.close().catch(() => undefined);
      node = await startNodeProcess(home, { ...ENV, STORE_TEST_CLOCK_OFFSET_MS: String(3 * HOUR_MS) });
      store = clientOf(node);
      assert.deepStrictEqual(await rowsOf(store, 'SELECT COUNT(*) FROM "#table_partitions" WHERE TABLE_NAME = \'ev\''),
        [[0n]]);
      const hs = new Set((await rowsOf(store, 'SELECT id FROM hs')).map(([id]) => id as number));
      for (const id of acknowledged.hs) assert.ok(hs.has(id), 'hs untouched by the expiry of ev');
    } finally {
      await store.close().catch(() => undefined);
      await node.kill();
    }
  });
});
