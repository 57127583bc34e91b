// SQL statements through a crash: a real node process (logWriteMode 0, so an acknowledged
// statement is durable) runs `INSERT … SELECT` of ROW_COUNT rows and a `DELETE` of as many while
// it is SIGKILLed at a random moment; after the restart each statement is all or nothing (the
// table holds every row or none of them), and an acknowledged one is all. A few rounds.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../lib/client/store-factory.ts';
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
