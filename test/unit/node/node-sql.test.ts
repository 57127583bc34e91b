// End to end: SQL through a real node process (tools/store-node.ts) and the TypeScript client:
// DDL, DML with typed parameters and update counts, a SELECT paged over several fetches with its
// SQL types and TIMESTAMP precision, GROUP BY, errors that leave the node serving, and a commit
// from another client that completes while a SELECT is half read.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { storageError } from '../engine/engine-test-helpers.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';

function clientOf(node: NodeProcess): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName: 'e2e-sql',
  });
}

describe('SQL end to end', { timeout: 240_000 }, () => {
  let home: string;
  let node: NodeProcess;
  let store: ClientStore;

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    node = await startNodeProcess(home);
    store = clientOf(node);
  });

  after(async () => {
    await store?.close().catch(() => undefined);
    await node?.kill();
    removeHome(home);
  });

  it('creates a table, inserts with parameters, and reads typed rows page by page', async () => {
    const created = await store.sql('CREATE TABLE cpu (host STRING, ts TIMESTAMP(6), usage DOUBLE, ' +
      'PRIMARY KEY (host, ts))');
    assert.equal(created.updateCount, 0);
    for (let batch = 0; batch < 5; batch++) {
      const values = Array.from({ length: 100 }, () => '(?, ?, ?)').join(', ');
      const parameters = Array.from({ length: 100 }, (_v, i) => {
        const n = batch * 100 + i;
        return [`h${n % 3}`, { type: 'TIMESTAMP(6)' as const, value: BigInt(n) * 1_000_000n }, n / 10];
      }).flat();
      const inserted = await store.sql(`INSERT INTO cpu VALUES ${values}`, parameters);
      assert.equal(inserted.updateCount, 100);
    }
    const rowSet = await store.sql('SELECT host, ts, usage * 2 AS twice FROM cpu WHERE host = ? ORDER BY ts',
      ['h1'], { fetchSize: 7 });
    assert.deepEqual(rowSet.columnNames, ['host', 'ts', 'twice']);
    assert.deepEqual(rowSet.sqlTypes, ['STRING', 'TIMESTAMP(6)', 'DOUBLE']);
    assert.equal(rowSet.columns[1]!.timePrecision, 'MICROSECOND');
    const rows = await rowSet.toArray();
    assert.equal(rows.length, 167);
    assert.deepEqual(rows[0], ['h1', 1_000_000n, 0.2]);
  });

  it('aggregates with GROUP BY and answers SELECT 1+1', async () => {
    const rows = await (await store.sql('SELECT host, COUNT(*), MAX(usage) FROM cpu GROUP BY host ORDER BY host'))
      .toArray();
    assert.deepEqual(rows, [['h0', 167n, 49.8], ['h1', 167n, 49.9], ['h2', 166n, 49.7]]);
    assert.deepEqual(await (await store.sql('SELECT 1+1')).toArray(), [[2n]]);
  });

  it('UPDATE and DELETE answer update counts', async () => {
    assert.equal((await store.sql("UPDATE cpu SET usage = 0 WHERE host = 'h2'")).updateCount, 166);
    assert.equal((await store.sql("DELETE FROM cpu WHERE host = 'h2'")).updateCount, 166);
    assert.deepEqual(await (await store.sql('SELECT COUNT(*) FROM cpu')).toArray(), [[334n]]);
  });

  it('bad SQL, unknown names, type errors and duplicate keys are errors; the node keeps serving', async () => {
    await assert.rejects(store.sql('SELEC 1'), storageError('SQL_COMPILE_SYNTAX_ERROR', /line 1, column 1/));
    await assert.rejects(store.sql('SELECT nope FROM cpu'), storageError('COLUMN_NOT_FOUND'));
    await assert.rejects(store.sql('SELECT * FROM nope'), storageError('CONTAINER_NOT_FOUND'));
    await assert.rejects(store.sql("INSERT INTO cpu VALUES ('h0', 0, 1.0)"), storageError('TYPE_MISMATCH'));
    await assert.rejects(store.sql('INSERT INTO cpu VALUES (?, ?, 1.0)', ['h0', { type: 'TIMESTAMP(6)', value: 0n }]),
      storageError('ROW_INVALID', /duplicate/));
    assert.deepEqual(await (await store.sql('SELECT COUNT(*) FROM cpu')).toArray(), [[334n]]);
  });

  it('a commit completes while a SELECT is half read', async () => {
    await store.sql('CREATE TABLE wide (id INTEGER PRIMARY KEY, v LONG)');
    for (let start = 0; start < 20_000; start += 5000) {
      const values = Array.from({ length: 5000 }, (_v, i) => `(${start + i}, ${i})`).join(', ');
      await store.sql(`INSERT INTO wide VALUES ${values}`);
    }
    const reading = await store.sql('SELECT id FROM wide', [], { fetchSize: 1000 });
    const first = await reading.next();
    assert.equal(first[0], 0);
    const other = clientOf(node);
    try {
      const inserted = await other.sql('INSERT INTO wide VALUES (100000, 1)');
      assert.equal(inserted.updateCount, 1);
    } finally {
      await other.close();
    }
    const rest = await reading.toArray();
    assert.ok(rest.length >= 19_999);
    const ids = rest.map((row) => row[0] as number);
    assert.deepEqual(ids.slice(0, 3), [1, 2, 3]);
    assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]!), 'rows in key order, none twice');
  });
});
