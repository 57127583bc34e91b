// SQL statements through a crash: a real node process (logWriteMode 0, so an acknowledged
// statement is durable) runs `INSERT … SELECT` of ROW_COUNT rows and a `DELETE` of as many while
// it is SIGKILLed at a random moment; after the restart each statement is all or nothing (the
// table holds every row or none of them), and an acknowledged one is all. A few rounds. Then the
// same for an `INSERT INTO a SELECT … FROM b` whose tables live in different engine threads
// (STORE_ENGINE_THREAD=worker, concurrency 2): b's rows come page by page from the other thread,
// a is written in one transaction.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../lib/client/store-factory.ts';
import { containerPartitionId, partitionGroupOf } from '../../lib/schema/partition-hash.ts';
import { Prng } from '../sim/prng.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../unit/node/node-process.ts';

const ROUND_COUNT = 2;
const ROW_COUNT = 10_000;
const ROWS_PER_INSERT = 5000;
const KILL_DELAY_MS_MAX = 400;
const SEED = Number(process.env['STORE_CRASH_SEED'] ?? 20261126);

function clientOf(node: NodeProcess): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName: 'sql-crash',
  });
}

async function countOf(store: ClientStore, table: string): Promise<bigint> {
  const [[count]] = await (await store.sql(`SELECT COUNT(*) FROM ${table}`)).toArray() as [[bigint]];
  return count;
}

async function fill(store: ClientStore, table: string): Promise<void> {
  for (let start = 0; start < ROW_COUNT; start += ROWS_PER_INSERT) {
    const values = Array.from({ length: ROWS_PER_INSERT }, (_v, i) => `(${start + i}, ${i})`).join(', ');
    await store.sql(`INSERT OR REPLACE INTO ${table} VALUES ${values}`);
  }
}

/** `prefix` with the first number that puts it in partition group `group` of 2 (128 partitions). */
function nameInGroup(prefix: string, group: number): string {
  const options = { partitionNum: 128, concurrency: 2 };
  for (let i = 0; ; i++) {
    if (partitionGroupOf(containerPartitionId(`${prefix}${i}`, options.partitionNum), options) === group) {
      return `${prefix}${i}`;
    }
  }
}

describe('SQL statements through a crash', { timeout: 300_000 }, () => {
  const home = newNodeHome({ dataStore: { logWriteMode: 0 } });
  after(() => removeHome(home));

  it(`keeps INSERT … SELECT and DELETE all-or-nothing through ${ROUND_COUNT} SIGKILLs`, async () => {
    const prng = new Prng(SEED);
    let node = await startNodeProcess(home);
    let store = clientOf(node);
    try {
      for (const table of ['src', 'dst', 'del']) {
        await store.sql(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, v LONG)`);
      }
      await fill(store, 'src');
      for (let round = 0; round < ROUND_COUNT; round++) {
        await store.sql('DELETE FROM dst');
        await fill(store, 'del');
        const acknowledged = { insert: false, delete: false };
        const insert = store.sql('INSERT INTO dst SELECT id, v FROM src')
          .then(() => { acknowledged.insert = true; }, () => undefined);
        const remove = store.sql('DELETE FROM del WHERE v >= 0')
          .then(() => { acknowledged.delete = true; }, () => undefined);
        await sleep(prng.nextIntBetween({ min: 0, max: KILL_DELAY_MS_MAX }));
        await node.kill();
        await Promise.all([insert, remove]);
        await store.close().catch(() => undefined);
        node = await startNodeProcess(home);
        store = clientOf(node);
        const inserted = await countOf(store, 'dst');
        const left = await countOf(store, 'del');
        assert.ok(inserted === 0n || inserted === BigInt(ROW_COUNT), `round ${round}: dst holds ${inserted}`);
        assert.ok(left === 0n || left === BigInt(ROW_COUNT), `round ${round}: del holds ${left}`);
        if (acknowledged.insert) assert.equal(inserted, BigInt(ROW_COUNT), `round ${round}: acknowledged INSERT lost`);
        if (acknowledged.delete) assert.equal(left, 0n, `round ${round}: acknowledged DELETE lost`);
      }
    } finally {
      await store.close().catch(() => undefined);
      await node.kill();
    }
  });
});

describe('INSERT … SELECT across engine threads through a crash', { timeout: 300_000 }, () => {
  const home = newNodeHome({ dataStore: { logWriteMode: 0, concurrency: 2 } });
  const env = { STORE_ENGINE_THREAD: 'worker' };
  after(() => removeHome(home));

  it(`keeps it all-or-nothing for its table through ${ROUND_COUNT} SIGKILLs`, async () => {
    const prng = new Prng(SEED + 1);
    const src = nameInGroup('src', 0);
    const dst = nameInGroup('dst', 1);
    let node = await startNodeProcess(home, env);
    let store = clientOf(node);
    try {
      for (const table of [src, dst]) await store.sql(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, v LONG)`);
      await fill(store, src);
      for (let round = 0; round < ROUND_COUNT; round++) {
        await store.sql(`DELETE FROM ${dst}`);
        let acknowledged = false;
        const insert = store.sql(`INSERT INTO ${dst} SELECT id, v FROM ${src}`)
          .then(() => { acknowledged = true; }, () => undefined);
        await sleep(prng.nextIntBetween({ min: 0, max: KILL_DELAY_MS_MAX }));
        await node.kill();
        await insert;
        await store.close().catch(() => undefined);
        node = await startNodeProcess(home, env);
        store = clientOf(node);
        const inserted = await countOf(store, dst);
        assert.ok(inserted === 0n || inserted === BigInt(ROW_COUNT), `round ${round}: ${dst} holds ${inserted}`);
        if (acknowledged) assert.equal(inserted, BigInt(ROW_COUNT), `round ${round}: acknowledged INSERT lost`);
      }
      // Left alone, the statement copies every row.
      await store.sql(`DELETE FROM ${dst}`);
      assert.equal((await store.sql(`INSERT INTO ${dst} SELECT id, v FROM ${src}`)).updateCount, ROW_COUNT);
      assert.equal(await countOf(store, dst), BigInt(ROW_COUNT));
    } finally {
      await store.close().catch(() => undefined);
      await node.kill();
    }
  });
});
