// End to end: the SQL metatables through a real node process (tools/store-node.ts) and the
// TypeScript client: "#tables" and "#index_info" read back what was created, "#sockets" shows each
// client's connection with its applicationName, "#sqls" shows a SELECT another client has half
// fetched (small fetch size) and not after it is closed, and a write to a metatable is refused.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import { storageError } from '../engine/engine-test-helpers.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';

function clientOf(node: NodeProcess, applicationName: string): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName,
  });
}

describe('SQL metatables end to end', { timeout: 240_000 }, () => {
  let home: string;
  let node: NodeProcess;
  let store: ClientStore;

  before(async () => {
    home = newNodeHome({ dataStore: { logWriteMode: 0 } });
    node = await startNodeProcess(home);
    store = clientOf(node, 'meta-watcher');
  });

  after(async () => {
    await store?.close().catch(() => undefined);
    await node?.kill();
    removeHome(home);
  });

  it('"#tables" and "#index_info" read back tables and indexes; writes are refused', async () => {
    await store.sql('CREATE TABLE cpu (host STRING, ts TIMESTAMP, usage DOUBLE, PRIMARY KEY (host, ts))');
    await store.sql('CREATE INDEX cpu_usage ON cpu (usage)');
    assert.deepEqual(await (await store.sql(
      'SELECT TABLE_NAME, TABLE_OPTIONAL_TYPE, PARTITION_TYPE FROM "#tables" WHERE TABLE_NAME = \'cpu\'')).toArray(),
    [['cpu', 'COLLECTION', null]]);
    assert.deepEqual(await (await store.sql(
      'SELECT INDEX_NAME, INDEX_TYPE, ORDINAL_POSITION, COLUMN_NAME FROM "#index_info" WHERE INDEX_NAME = ?',
      ['cpu_usage'])).toArray(), [['cpu_usage', 'TREE', 1, 'usage']]);
    await assert.rejects(store.sql('DELETE FROM "#tables"'), storageError('NOT_SUPPORTED', /read-only/));
  });

  it('"#sockets" and "#sqls" show another client\'s connection and its half-fetched SELECT', async () => {
    const values = Array.from({ length: 3000 }, (_v, i) => `('h${i % 3}', TO_TIMESTAMP_MS(${i}), ${i})`).join(', ');
    await store.sql(`INSERT INTO cpu VALUES ${values}`);
    const other = clientOf(node, 'meta-reader');
    try {
      const reading = await other.sql('SELECT * FROM cpu WHERE usage >= 0', [], { fetchSize: 10 });
      await reading.next();
      const sockets = await (await store.sql(
        'SELECT APPLICATION_NAME, SERVICE_TYPE, SOCKET_TYPE, NODE_PORT FROM "#sockets" ORDER BY APPLICATION_NAME'))
        .toArray();
      assert.deepEqual(sockets, [
        ['meta-reader', 'TRANSACTION', 'CLIENT', node.transactionPort],
        ['meta-watcher', 'TRANSACTION', 'CLIENT', node.transactionPort],
      ]);
      const running = await (await store.sql(
        'SELECT APPLICATION_NAME, SQL, USER_NAME FROM "#sqls" WHERE SQL NOT LIKE \'%#sqls%\'')).toArray();
      assert.deepEqual(running, [['meta-reader', 'SELECT * FROM cpu WHERE usage >= 0', 'admin']]);
      await reading.close();
      assert.deepEqual(await (await store.sql('SELECT COUNT(*) FROM "#sqls"')).toArray(), [[1n]]);
    } finally {
      await other.close();
    }
  });
});
