// A statement that does much work before its first row, through a node process whose engine runs
// one worker thread per partition group (STORE_ENGINE_THREAD=worker, concurrency 2): a three-way
// cross join of a 1,000-row table (10^9 pairs, a condition keeps none) computing its one row
// COUNT(*). The executor turns its thread's event loop after each slice of work
// (lib/sql/exec/work-slice.ts), so while it runs:
//   - a commit of another client to a table of the same engine thread completes;
//   - store.cancelSql(queryId) ends it with SQL_CANCELLED (200007);
//   - its timeout (timeoutMs) ends it with REQUEST_TIMEOUT;
// and the node keeps serving. Without the slices the statement holds its thread for minutes and
// each of these waits behind it (the test's own timeout ends it).

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { containerPartitionId, partitionGroupOf } from '../../../lib/schema/partition-hash.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';

const PARTITION_NUM = 128;
const CONCURRENCY = 2;
const ROW_COUNT = 1_000;
/** Polls of "#sqls" while waiting for the statement to show or to go (each a round trip). */
const POLL_COUNT_MAX = 2000;
const COMMIT_COUNT = 5;

function groupOf(name: string): number {
  return partitionGroupOf(containerPartitionId(name, PARTITION_NUM),
    { partitionNum: PARTITION_NUM, concurrency: CONCURRENCY });
}

/** `prefix` with the first number that puts it in partition group `group`. */
function nameInGroup(prefix: string, group: number): string {
  for (let i = 0; ; i++) if (groupOf(`${prefix}${i}`) === group) return `${prefix}${i}`;
}

function clientOf(node: NodeProcess, applicationName: string): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName,
  });
}

async function rowsOf(store: ClientStore, sql: string, parameters: unknown[] = []): Promise<unknown[][]> {
  return (await store.sql(sql, parameters as never[])).toArray();
}

async function queryIdOf(store: ClientStore, sql: string): Promise<string> {
  for (let i = 0; i < POLL_COUNT_MAX; i++) {
    const rows = await rowsOf(store, 'SELECT QUERY_ID FROM "#sqls" WHERE SQL = ?', [sql]);
    if (rows.length === 1) return rows[0]![0] as string;
    await sleep(1);
  }
  throw new Error(`"#sqls" never listed ${sql}`);
}

async function waitUnlisted(store: ClientStore, sql: string): Promise<void> {
  for (let i = 0; i < POLL_COUNT_MAX; i++) {
    if ((await rowsOf(store, 'SELECT QUERY_ID FROM "#sqls" WHERE SQL = ?', [sql])).length === 0) return;
    await sleep(1);
  }
  throw new Error(`"#sqls" still lists ${sql}`);
}

describe('SQL: a cross join computing its first row can be cancelled, times out, and lets commits run',
  { timeout: 120_000 }, () => {
    let home: string;
    let node: NodeProcess;
    let store: ClientStore;
    const group = 1 - groupOf('#sqls');
    const table = nameInGroup('r', group);
    const written = nameInGroup('w', group);
    const crossJoin = (tag: string) =>
      `SELECT COUNT(*) AS ${tag} FROM ${table} a, ${table} b, ${table} c WHERE a.v + b.v + c.v < 0`;

    before(async () => {
      home = newNodeHome({ dataStore: { logWriteMode: 0, concurrency: CONCURRENCY } });
      node = await startNodeProcess(home, { STORE_ENGINE_THREAD: 'worker' });
      store = clientOf(node, 'canceller');
      await store.sql(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, v LONG)`);
      await store.sql(`CREATE TABLE ${written} (id INTEGER PRIMARY KEY, v LONG)`);
      const values = Array.from({ length: ROW_COUNT }, (_v, i) => `(${i}, ${i})`).join(', ');
      await store.sql(`INSERT INTO ${table} VALUES ${values}`);
    });

    after(async () => {
      await store?.close().catch(() => undefined);
      await node?.kill();
      if (home !== undefined) removeHome(home);
    });

    it('commits of another client complete while it runs; cancelSql ends it with SQL_CANCELLED', async () => {
      assert.equal(groupOf(table), groupOf(written), 'the commits go to the cross join\'s engine thread');
      const victim = clientOf(node, 'victim');
      const writer = clientOf(node, 'writer');
      try {
        const sql = crossJoin('cancelled');
        const outcome = victim.sql(sql).then(() => 'done', (error: unknown) => error);
        const queryId = await queryIdOf(store, sql);
        const container = (await writer.getContainer(written))!;
        for (let i = 0; i < COMMIT_COUNT; i++) await container.put([i, BigInt(i)]);
        // Committed while the cross join still runs: it is listed yet.
        assert.equal((await rowsOf(store, 'SELECT QUERY_ID FROM "#sqls" WHERE SQL = ?', [sql])).length, 1);
        assert.deepEqual(await rowsOf(writer, `SELECT COUNT(*) FROM ${written}`), [[BigInt(COMMIT_COUNT)]]);
        assert.equal(await store.cancelSql(queryId), true);
        const error = await outcome;
        assert.ok(error !== 'done', 'the cross join finished before its cancel');
        assert.equal((error as { code?: string }).code, 'SQL_CANCELLED');
        assert.equal((error as { errorNumber?: number }).errorNumber, 200007);
        await waitUnlisted(store, sql);
        assert.deepEqual(await rowsOf(victim, `SELECT COUNT(*) FROM ${table}`), [[BigInt(ROW_COUNT)]]);
      } finally {
        await victim.close();
        await writer.close();
      }
    });

    it('its timeout ends it with REQUEST_TIMEOUT; the node keeps serving', async () => {
      const victim = clientOf(node, 'slow');
      try {
        const sql = crossJoin('timed');
        await assert.rejects(victim.sql(sql, [], { timeoutMs: 500 }), (error: unknown) => {
          assert.equal((error as { code?: string }).code, 'REQUEST_TIMEOUT');
          assert.match((error as Error).message, /timeout of 500 ms/);
          return true;
        });
        await waitUnlisted(store, sql);
        assert.deepEqual(await rowsOf(victim, `SELECT COUNT(*) FROM ${table}`), [[BigInt(ROW_COUNT)]]);
      } finally {
        await victim.close();
      }
    });
  });
