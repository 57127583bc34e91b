// End to end: a real node process (tools/store-node.ts) and the client library over real sockets,
// for TQL EXPLAIN / EXPLAIN ANALYZE (the plan comes back as rows, as any query result does) and
// fetch(forUpdate) (the rows of the result stay locked for the transaction until commit or abort;
// another client's write to them times out with LOCK_TIMEOUT; the LIMIT fetch option bounds what is
// locked; auto-commit mode is refused).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Row } from '../../../lib/schema/column-type.ts';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';
import { storageError } from '../engine/engine-test-helpers.ts';

const METER: ContainerDefinition = {
  name: 'meter', type: 'TIME_SERIES',
  columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'site', type: 'STRING' },
    { name: 'kw', type: 'DOUBLE' }],
};
const ACCOUNTS: ContainerDefinition = {
  name: 'accounts', type: 'COLLECTION', rowKey: true,
  columns: [{ name: 'id', type: 'STRING' }, { name: 'balance', type: 'LONG' }],
};
const T0 = Date.UTC(2026, 0, 1);

function clientOf(node: NodeProcess, transactionTimeoutS: number): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName: 'e2e-explain',
    transactionTimeout: transactionTimeoutS,
  });
}

/** The plan rows as `DEPTH TYPE VALUE_TYPE VALUE` (and `| STATEMENT` when there is one). */
function planLines(rows: readonly Row[]): string[] {
  return rows.map((row) => `${String(row[1])} ${String(row[2])} ${String(row[3])} ` +
    `${String(row[4])}${row[5] === '' ? '' : ` | ${String(row[5])}`}`);
}

describe('EXPLAIN and fetch(forUpdate) end to end', { timeout: 240_000 }, () => {
  let home: string;
  let node: NodeProcess;
  let store: ClientStore;

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    node = await startNodeProcess(home);
    store = clientOf(node, 30);
    const meter = await store.putContainer(METER);
    await meter.multiPut(Array.from({ length: 100 }, (_, i) =>
      [T0 + i * 1000, i % 4 === 0 ? 'north' : 'south', i / 2]));
    await meter.createIndex('site');
    const accounts = await store.putContainer(ACCOUNTS);
    await accounts.multiPut([['alice', 100n], ['bob', 50n], ['carol', 10n]]);
  });

  after(async () => {
    await store?.close().catch(() => undefined);
    await node?.kill();
    removeHome(home);
  });

  it('returns the plan of a query as an EXPLAIN result, without running it', async () => {
    const meter = (await store.getContainer('meter'))!;
    const rowSet = await meter.query(
      "EXPLAIN SELECT * WHERE site = 'north' AND ts >= TIMESTAMP('2026-01-01T00:00:50Z') " +
      'ORDER BY kw DESC LIMIT 5').fetch();
    assert.equal(rowSet.kind, 'EXPLAIN');
    assert.deepEqual(rowSet.columnNames,
      ['ID', 'DEPTH', 'TYPE', 'VALUE_TYPE', 'VALUE', 'STATEMENT']);
    const rows = await rowSet.toArray();
    assert.deepEqual(rows.map((row) => row[0]), rows.map((_, i) => i));
    assert.deepEqual(planLines(rows), [
      "0 SELECTION CONDITION WHERE | site = 'north' AND ts >= TIMESTAMP('2026-01-01T00:00:50Z')",
      '1 INDEX BTREE TREE(site)',
      "2 INDEX_RANGE STRING ['north', 'north']",
      "2 KEY_RANGE STRING [TIMESTAMP('2026-01-01T00:00:50.000Z'), *]",
      '1 FILTER BOOLEAN TRUE',
      '0 QUERY_RESULT_SORT BOOLEAN TRUE | kw DESC',
      '1 QUERY_RESULT_SORT_EXPRESSION STRING kw | DESC',
      '0 QUERY_LIMIT LONG 5 | LIMIT 5',
      '1 LIMIT_MODE STRING TOP_ROWS',
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 0',
    ]);
    const aggregate = await (await meter.query('explain select count(*)').fetch()).toArray();
    assert.deepEqual(planLines(aggregate).slice(2, 4), [
      '0 AGGREGATION STRING COUNT | count(*)',
      '1 AGGREGATION_INPUT STRING ROW_COUNT',
    ]);
  });

  it('adds what a real run measured with EXPLAIN ANALYZE, in pages as any result', async () => {
    const meter = (await store.getContainer('meter'))!;
    const query = meter.query("EXPLAIN ANALYZE SELECT * WHERE site = 'north' LIMIT 10");
    query.setFetchOption('SIZE', 2); // the plan's rows come in pages too
    const lines = planLines(await (await query.fetch()).toArray());
    assert.equal(lines[1], '1 INDEX BTREE TREE(site)', 'the run read through the index');
    assert.deepEqual(lines.slice(-5, -1), [
      '0 QUERY_EXECUTE_RESULT_ROWS INTEGER 10',
      '0 QUERY_SCANNED_ROWS INTEGER 10',
      '0 QUERY_RESULT_TYPE STRING RESULT_ROW_ID_SET',
      '0 QUERY_RESULT_ROWS INTEGER 10',
    ]);
    assert.match(lines.at(-1)!, /^0 QUERY_EXECUTE_TIME_MS DOUBLE \d+\.\d{3}$/);
    const count = await (await meter.query('EXPLAIN ANALYZE SELECT COUNT(*)').fetch()).toArray();
    assert.ok(planLines(count).includes('0 QUERY_RESULT_ROWS INTEGER 1'));
    await assert.rejects(meter.query('EXPLAIN SELECT * WHERE nope = 1').fetch(),
      storageError('COLUMN_NOT_FOUND'));
  });

  it('locks what fetch(true) returned until commit; others\' writes wait, time out', async () => {
    const other = clientOf(node, 1);
    const mine = (await store.getContainer('accounts'))!;
    const theirs = (await other.getContainer('accounts'))!;
    await mine.setAutoCommit(false);
    const locked = await (await mine.query('SELECT * WHERE balance >= 50').fetch(true)).toArray();
    assert.deepEqual(locked, [['alice', 100n], ['bob', 50n]]);
    await theirs.put(['carol', 11n]); // not in the result: not locked
    const startedMs = Date.now();
    await assert.rejects(theirs.put(['bob', 0n]), storageError('LOCK_TIMEOUT'));
    assert.ok(Date.now() - startedMs >= 900, 'the writer waited its transaction timeout');
    await mine.put(['bob', 40n]); // the lock holder writes its locked row at once
    await mine.commit();
    await theirs.put(['bob', 0n]);
    assert.deepEqual(await mine.get('bob'), ['bob', 0n]);
    await other.close();
  });

  it('lets a waiting write through once the locking transaction aborts', async () => {
    const other = clientOf(node, 30);
    const mine = (await store.getContainer('accounts'))!;
    const theirs = (await other.getContainer('accounts'))!;
    await mine.setAutoCommit(false);
    await (await mine.query("SELECT * WHERE id = 'alice'").fetch(true)).close();
    const write = theirs.put(['alice', 1n]);
    let done = false;
    void write.then(() => (done = true), () => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(done, false, 'the write waits for the lock');
    await mine.abort();
    await write;
    assert.deepEqual(await mine.get('alice'), ['alice', 1n]);
    await mine.setAutoCommit(true);
    await other.close();
  });

  it('locks only the rows within the LIMIT fetch option', async () => {
    const other = clientOf(node, 1);
    const mine = (await store.getContainer('accounts'))!;
    const theirs = (await other.getContainer('accounts'))!;
    await mine.setAutoCommit(false);
    try {
      const query = mine.query('SELECT * ORDER BY id').setFetchOption('LIMIT', 1);
      const locked = await (await query.fetch(true)).toArray();
      assert.deepEqual(locked.map((row) => row[0]), ['alice']);
      await theirs.put(['bob', 41n]); // past the limit: not locked, so not waited for
      await assert.rejects(theirs.put(['alice', 3n]), storageError('LOCK_TIMEOUT'));
    } finally {
      await mine.abort();
      await mine.setAutoCommit(true);
      await other.close();
    }
  });

  it('refuses fetch(true) in auto-commit mode and on an aggregate, changing nothing', async () => {
    const accounts = (await store.getContainer('accounts'))!;
    assert.equal(accounts.isAutoCommit, true);
    await assert.rejects(accounts.query('SELECT *').fetch(true),
      storageError('ILLEGAL_COMMIT_MODE', /auto-commit/));
    await accounts.setAutoCommit(false);
    await assert.rejects(accounts.query('SELECT COUNT(*)').fetch(true),
      storageError('TQL_SEMANTIC', /aggregate/));
    await assert.rejects(accounts.query('SELECT *').fetch('yes' as unknown as boolean),
      storageError('CONFIG_INVALID'));
    await accounts.setAutoCommit(true);
    const other = clientOf(node, 1);
    await (await other.getContainer('accounts'))!.put(['alice', 2n]); // nothing was left locked
    await other.close();
  });
});
