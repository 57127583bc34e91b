// End to end through a node process whose engine runs one worker thread per partition group
// (STORE_ENGINE_THREAD=worker, concurrency 2), so statements, metatables and tables live in
// different engine threads:
//   - store.cancelSql(queryId) with an id from "#sqls" (asked from another group's thread) ends a
//     half-fetched SELECT and a running one with SQL_CANCELLED, and the node keeps serving;
//   - a client that closes its connection mid-statement cancels it: its INSERT … SELECT writes nothing;
//   - "#tables" and "#sqls" show every group's tables and statements;
//   - INSERT INTO a SELECT … FROM b with a and b in different groups copies every row, and past
//     /sql/workMemoryLimit fails with LIMIT_EXCEEDED leaving a as it was.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientStore } from '../../../lib/client/store-factory.ts';
import { storageError } from '../engine/engine-test-helpers.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';
import { clientOf, groupIn, nameInGroupIn, queryIdOf, rowsOf, waitUnlisted } from './sql-node-helpers.ts';

const PARTITION_NUM = 128;
const CONCURRENCY = 2;
const LAYOUT = { partitionNum: PARTITION_NUM, concurrency: CONCURRENCY };
const groupOf = (name: string) => groupIn(LAYOUT, name);
const nameInGroup = (prefix: string, group: number) => nameInGroupIn(LAYOUT, prefix, group);
const BIG_ROW_COUNT = 100_000;
const ROWS_PER_INSERT = 5000;
/** A filter that costs a string per row, so a statement over BIG_ROW_COUNT rows runs long enough to be seen. */
const SLOW_FILTER = "LENGTH(PRINTF('%d-%d-%d', id, v, id * v)) > 0";

describe('SQL across engine threads: cancel, metatables, INSERT … SELECT', { timeout: 300_000 }, () => {
  let home: string;
  let node: NodeProcess;
  let store: ClientStore;
  // Where "#sqls" is asked: the statements below run in the other group, so only a gathered
  // "#sqls" shows them.
  const metaGroup = groupOf('#sqls');
  const big = nameInGroup('big', 1 - metaGroup);
  const dst = nameInGroup('dst', 1 - metaGroup);
  const far = nameInGroup('far', metaGroup);
  const wide = nameInGroup('wide', 1 - metaGroup);

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0, concurrency: CONCURRENCY }, sql: { workMemoryLimit: '2MB' } });
    node = await startNodeProcess(home, { STORE_ENGINE_THREAD: 'worker' });
    store = clientOf(node, 'canceller');
    for (const table of [big, dst, far]) await store.sql(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY, v LONG)`);
    await store.sql(`CREATE TABLE ${wide} (id INTEGER PRIMARY KEY, s STRING)`);
    for (let start = 0; start < BIG_ROW_COUNT; start += ROWS_PER_INSERT) {
      const values = Array.from({ length: ROWS_PER_INSERT }, (_v, i) => `(${start + i}, ${i})`).join(', ');
      await store.sql(`INSERT INTO ${big} VALUES ${values}`);
    }
  });

  after(async () => {
    await store?.close().catch(() => undefined);
    await node?.kill();
    if (home !== undefined) removeHome(home);
  });

  it('"#tables" and "#sqls" show the tables and statements of every engine thread', async () => {
    assert.notEqual(groupOf(big), groupOf(far));
    const tables = (await rowsOf(store, 'SELECT TABLE_NAME FROM "#tables" ORDER BY TABLE_NAME')).map((r) => r[0]);
    assert.deepEqual(tables, [big, dst, far, wide].sort());
    const other = clientOf(node, 'reader');
    try {
      const sql = `SELECT * FROM ${big} WHERE v >= 0`;
      const reading = await other.sql(sql, [], { fetchSize: 10 });
      await reading.next();
      const queryId = await queryIdOf(store, sql);
      assert.match(queryId, /^[0-9a-f-]{36}:\d+$/, 'GridDB\'s shape: <uuid>:<n>');
      const ids = (await rowsOf(store, 'SELECT QUERY_ID FROM "#sqls"')).map((r) => r[0]);
      assert.equal(new Set(ids).size, ids.length, 'query ids are unique across the threads');
      await reading.close();
    } finally {
      await other.close();
    }
  });

  it('cancelSql ends a half-fetched SELECT with SQL_CANCELLED; the node keeps serving', async () => {
    const other = clientOf(node, 'victim');
    try {
      const sql = `SELECT id FROM ${big} WHERE v >= 0`;
      const reading = await other.sql(sql, [], { fetchSize: 10 });
      await reading.next();
      const queryId = await queryIdOf(store, sql);
      assert.equal(await store.cancelSql(queryId), true);
      await assert.rejects(reading.toArray(), storageError('SQL_CANCELLED', /cancelled/));
      await waitUnlisted(store, sql);
      assert.equal(await store.cancelSql(queryId), false, 'gone: nothing left to cancel');
      assert.equal(await store.cancelSql('no-such-query:1'), false);
      // The node and the cancelled client's connection go on serving.
      assert.deepEqual(await rowsOf(other, `SELECT COUNT(*) FROM ${big}`), [[BigInt(BIG_ROW_COUNT)]]);
    } finally {
      await other.close();
    }
  });

  it('cancelSql stops a running statement at its next batch with SQL_CANCELLED', async () => {
    const other = clientOf(node, 'victim');
    try {
      const sql = `SELECT COUNT(*) FROM ${big} WHERE ${SLOW_FILTER}`;
      const running = other.sql(sql);
      const outcome = running.then(() => 'done', (error: unknown) => error);
      const queryId = await queryIdOf(store, sql);
      assert.equal(await store.cancelSql(queryId), true);
      const error = await outcome;
      assert.ok(error !== 'done', 'the statement finished before its cancel');
      assert.equal((error as { code?: string }).code, 'SQL_CANCELLED');
      assert.deepEqual(await rowsOf(other, `SELECT COUNT(*) FROM ${big} WHERE id < 10`), [[10n]]);
    } finally {
      await other.close();
    }
  });

  it('a connection closed mid-statement cancels it: its INSERT … SELECT writes nothing', async () => {
    const other = clientOf(node, 'leaver');
    const sql = `INSERT INTO ${dst} SELECT id, v FROM ${big} WHERE ${SLOW_FILTER}`;
    const running = other.sql(sql).then(() => 'done', () => 'failed');
    await queryIdOf(store, sql);
    await other.close();
    await waitUnlisted(store, sql);
    assert.equal(await running, 'failed');
    assert.deepEqual(await rowsOf(store, `SELECT COUNT(*) FROM ${dst}`), [[0n]]);
  });

  it('INSERT INTO a SELECT … FROM b copies b from another engine thread; past the work memory, nothing', async () => {
    assert.notEqual(groupOf(far), groupOf(big));
    const copied = await store.sql(`INSERT INTO ${far} SELECT id, v * 3 FROM ${big} WHERE id < 20000`);
    assert.equal(copied.updateCount, 20_000);
    assert.deepEqual(await rowsOf(store, `SELECT COUNT(*), SUM(v) FROM ${far}`),
      await rowsOf(store, `SELECT COUNT(*), SUM(v * 3) FROM ${big} WHERE id < 20000`));
    // Rows of about 3 MB in all, over the 2 MB work memory: the insert holds them all, so it refuses.
    const text = 'x'.repeat(1000);
    for (let start = 0; start < 3000; start += 500) {
      const values = Array.from({ length: 500 }, (_v, i) => `(${start + i}, '${text}')`).join(', ');
      await store.sql(`INSERT INTO ${wide} VALUES ${values}`);
    }
    await store.sql(`CREATE TABLE ${nameInGroup('copy', metaGroup)} (id INTEGER PRIMARY KEY, s STRING)`);
    const copy = nameInGroup('copy', metaGroup);
    await assert.rejects(store.sql(`INSERT INTO ${copy} SELECT id, s FROM ${wide}`),
      storageError('LIMIT_EXCEEDED', /work memory/));
    assert.deepEqual(await rowsOf(store, `SELECT COUNT(*) FROM ${copy}`), [[0n]]);
    assert.equal((await store.sql(`INSERT INTO ${copy} SELECT id, s FROM ${wide} WHERE id < 100`)).updateCount, 100);
  });
});
