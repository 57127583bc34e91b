// Views through a crash, on a real node process with two engine threads (STORE_ENGINE_THREAD=worker,
// concurrency 2, logWriteMode 0 so an acknowledged statement is durable): a view lives in its
// name's partition group and reads tables of the other one (sql-node-database.ts brings them in),
// and a view reads a view of the other group. Each round runs CREATE VIEW and DROP VIEW while the
// node is SIGKILLed at a random moment; after the restart an acknowledged statement holds, every
// view is whole or absent, and each view there reads its rows, through the client and "#views".

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../lib/client/store-factory.ts';
import { containerPartitionId, partitionGroupOf } from '../../lib/schema/partition-hash.ts';
import { Prng } from '../sim/prng.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../unit/node/node-process.ts';

const ROUND_COUNT = 3;
const ROW_COUNT = 100;
const KILL_DELAY_MS_MAX = 60;
const SEED = Number(process.env['STORE_CRASH_SEED'] ?? 20261126);

function clientOf(node: NodeProcess): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName: 'view-crash',
  });
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

async function rowsOf(store: ClientStore, text: string): Promise<unknown[][]> {
  return (await (await store.sql(text)).toArray()) as unknown[][];
}

async function viewNames(store: ClientStore): Promise<string[]> {
  return (await rowsOf(store, 'SELECT VIEW_NAME FROM "#views" ORDER BY VIEW_NAME')).map((row) => String(row[0]));
}

describe('SQL views through a crash', { timeout: 300_000 }, () => {
  const home = newNodeHome({ dataStore: { logWriteMode: 0, concurrency: 2 } });
  const env = { STORE_ENGINE_THREAD: 'worker' };
  after(() => removeHome(home));

  it(`keeps CREATE VIEW and DROP VIEW across engine threads through ${ROUND_COUNT} SIGKILLs`, async () => {
    const prng = new Prng(SEED);
    const table = nameInGroup('reading', 0);
    const high = nameInGroup('high', 1); // reads the table of group 0
    const top = nameInGroup('top', 0); // reads the view of group 1
    let node = await startNodeProcess(home, env);
    let store = clientOf(node);
    try {
      await store.sql(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, v LONG)`);
      const values = Array.from({ length: ROW_COUNT }, (_v, i) => `(${i}, ${i})`).join(', ');
      await store.sql(`INSERT INTO ${table} VALUES ${values}`);
      await store.sql(`CREATE VIEW ${high} AS SELECT id, v FROM ${table} WHERE v >= 50`);
      await store.sql(`CREATE VIEW ${top} AS SELECT MAX(v) AS m FROM ${high}`);
      assert.deepEqual(await rowsOf(store, `SELECT COUNT(*) FROM ${high}`), [[50n]]);
      assert.deepEqual(await rowsOf(store, `SELECT m FROM ${top}`), [[99n]]);
      await assert.rejects(store.sql(`INSERT INTO ${high} VALUES (1, 1)`), /read-only/);
      for (let round = 0; round < ROUND_COUNT; round++) {
        const created = nameInGroup(`made${round}_`, round % 2);
        const dropped = round === 0 ? undefined : nameInGroup(`made${round - 1}_`, (round - 1) % 2);
        const acknowledged = { create: false, drop: false };
        const create = store.sql(`CREATE VIEW ${created} AS SELECT id FROM ${high} WHERE id < 60`)
          .then(() => { acknowledged.create = true; }, () => undefined);
        const drop = dropped === undefined ? Promise.resolve()
          : store.sql(`DROP VIEW ${dropped}`).then(() => { acknowledged.drop = true; }, () => undefined);
        await sleep(prng.nextIntBetween({ min: 0, max: KILL_DELAY_MS_MAX }));
        await node.kill();
        await Promise.all([create, drop]);
        await store.close().catch(() => undefined);
        node = await startNodeProcess(home, env);
        store = clientOf(node);
        const views = await viewNames(store);
        for (const name of [high, top]) assert.ok(views.includes(name), `round ${round}: ${name} lost`);
        if (acknowledged.create) assert.ok(views.includes(created), `round ${round}: acknowledged CREATE lost`);
        if (acknowledged.drop) assert.ok(!views.includes(dropped!), `round ${round}: acknowledged DROP lost`);
        if (views.includes(created)) {
          assert.deepEqual(await rowsOf(store, `SELECT COUNT(*) FROM ${created}`), [[10n]], `round ${round}`);
        } else {
          await store.sql(`CREATE VIEW ${created} AS SELECT id FROM ${high} WHERE id < 60`);
        }
        if (dropped !== undefined && views.includes(dropped)) await store.sql(`DROP VIEW ${dropped}`);
        assert.deepEqual(await rowsOf(store, `SELECT m FROM ${top}`), [[99n]], `round ${round}`);
      }
      // A view over a dropped table fails clearly at use, after a restart too.
      await store.sql(`DROP TABLE ${table}`);
      await assert.rejects(store.sql(`SELECT * FROM ${top}`), new RegExp(`reads table ${table}, which does not exist`));
    } finally {
      await store.close().catch(() => undefined);
      await node.kill();
    }
  });
});
