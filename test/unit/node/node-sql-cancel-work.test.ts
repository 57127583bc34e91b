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
import { after, before, describe, it } from 'node:test';
import type { ClientStore } from '../../../lib/client/store-factory.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';
import { clientOf, groupIn, nameInGroupIn, queryIdOf, rowsOf, waitUnlisted } from './sql-node-helpers.ts';

const PARTITION_NUM = 128;
const CONCURRENCY = 2;
const LAYOUT = { partitionNum: PARTITION_NUM, concurrency: CONCURRENCY };
const groupOf = (name: string) => groupIn(LAYOUT, name);
const nameInGroup = (prefix: string, group: number) => nameInGroupIn(LAYOUT, prefix, group);
const ROW_COUNT = 1_000;
const COMMIT_COUNT = 5;

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
