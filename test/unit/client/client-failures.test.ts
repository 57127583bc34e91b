// The client when things go wrong: refused credentials, cluster or database; unknown containers;
// values of the wrong type; messages too large; the connection limit; slow answers; an unreachable
// node; and broken connections, from which it reconnects, retrying a write with its statement id
// so that it is applied once.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import { PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { getStore } from '../../../lib/client/store-factory.ts';
import {
  CLUSTER, USERS, sleepMs, startServer, storageError,
} from '../server/server-test-helpers.ts';
import { TcpProxy, clientFor, clientOf } from './client-test-helpers.ts';

const SENSORS: ContainerDefinition = {
  name: 'sensors', type: 'COLLECTION', rowKey: true,
  columns: [{ name: 'id', type: 'STRING' }, { name: 'value', type: 'LONG' }],
};
const LOG: ContainerDefinition = {
  name: 'log', type: 'COLLECTION', columns: [{ name: 'line', type: 'STRING' }],
};

describe('client: refusals', () => {
  it('refuses a wrong password and a wrong user alike, a wrong cluster and database', async () => {
    const test = await startServer();
    try {
      const messages: string[] = [];
      for (const overrides of [{ password: 'nope' }, { username: 'nobody' }]) {
        const store = clientOf(test, overrides);
        await assert.rejects(store.connect(), (error: unknown) => {
          storageError('AUTHENTICATION_FAILED')(error);
          messages.push((error as Error).message);
          return true;
        });
        await store.close();
      }
      assert.equal(messages[0], messages[1]);
      const cluster = clientOf(test, { clusterName: 'elsewhere' });
      await assert.rejects(cluster.connect(), storageError('CLUSTER_NAME_INVALID'));
      await cluster.close();
      const database = clientOf(test, { database: 'sales' });
      await assert.rejects(database.getContainer('x'), storageError('DATABASE_NOT_FOUND'));
      await database.close();
    } finally {
      await test.stop();
    }
  });

  it('reports unknown containers, wrong types and bad names before or from the node', async () => {
    const test = await startServer();
    const store = clientOf(test);
    try {
      assert.equal(await store.getContainer('unknown'), undefined);
      await assert.rejects(store.multiPut({ unknown: [['a', 1n]] }),
        storageError('CONTAINER_NOT_FOUND', /"unknown"/));
      const sensors = await store.putContainer(SENSORS);
      await assert.rejects(sensors.put(['a', 'one']), storageError('TYPE_MISMATCH', /"value"/));
      await assert.rejects(sensors.put([null, 1n]), storageError('KEY_REQUIRED'));
      await assert.rejects(sensors.get(12), storageError('TYPE_MISMATCH'));
      assert.equal(test.store.getContainerInfo('sensors')!.rowCount, 0, 'nothing reached the node');
      await assert.rejects(store.putContainer({ ...SENSORS, name: '' }),
        storageError('INVALID_NAME'));
      await assert.rejects(store.putContainer({ ...SENSORS, columns: [] }),
        storageError('INVALID_SCHEMA'));
      const log = await store.putContainer(LOG);
      await assert.rejects(log.get('x'), storageError('KEY_REQUIRED'));
      await store.dropContainer('sensors');
      await assert.rejects(sensors.put(['a', 1n]), storageError('CONTAINER_NOT_FOUND'));
    } finally {
      await store.close();
      await test.stop();
    }
  });

  it('refuses a message larger than the node takes, and carries on', async () => {
    const test = await startServer({ messageBytesMax: PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX });
    const store = clientOf(test);
    try {
      const log = await store.putContainer(LOG);
      const rows = Array.from({ length: 100 }, () => ['x'.repeat(1000)]);
      await assert.rejects(log.multiPut(rows), storageError('LIMIT_EXCEEDED', /ROW_PUT message/));
      await log.multiPut(rows.slice(0, 10));
      assert.equal(test.store.getContainerInfo('log')!.rowCount, 10);
    } finally {
      await store.close();
      await test.stop();
    }
  });

  it('is refused beyond the node\'s connection limit, without retrying', async () => {
    const test = await startServer({ connectionLimit: 3 });
    const stores = Array.from({ length: 4 }, () => clientOf(test, { connectionPoolSize: 1 }));
    try {
      for (const store of stores.slice(0, 3)) await store.connect();
      await assert.rejects(stores[3]!.connect(), storageError('LIMIT_EXCEEDED', /at most 3/));
    } finally {
      for (const store of stores) await store.close();
      await test.stop();
    }
  });

  it('times out a request that gets no answer', async () => {
    const test = await startServer();
    const store = clientOf(test, { requestTimeoutMs: 200 });
    try {
      const log = await store.putContainer(LOG);
      await assert.rejects(log.query('hang').fetch(),
        storageError('REQUEST_TIMEOUT', /within 200 ms/));
      await log.put(['still works']);
    } finally {
      await store.close();
      await test.stop();
    }
  });

  it('gives up on an unreachable node after failoverTimeout', async () => {
    const test = await startServer();
    const port = test.port;
    await test.stop();
    const store = clientFor(port, { failoverTimeout: 1 });
    const startedMs = Date.now();
    await assert.rejects(store.connect(), storageError('CONNECTION_FAILED', /failover timeout/));
    assert.ok(Date.now() - startedMs >= 900);
    await store.close();
  });
});

describe('client: broken connections', () => {
  it('reconnects after its connections break', async () => {
    const test = await startServer();
    const proxy = await TcpProxy.start(test.port);
    const store = clientFor(proxy.port);
    try {
      const sensors = await store.putContainer(SENSORS);
      await sensors.put(['a', 1n]);
      proxy.cut();
      await sensors.put(['b', 2n]);
      assert.deepEqual(await sensors.get('a'), ['a', 1n]);
      assert.ok(proxy.connectionCount >= 1);
    } finally {
      await store.close();
      await proxy.close();
      await test.stop();
    }
  });

  it('retries a write whose answer was lost, and the node applies it once', async () => {
    const test = await startServer();
    const proxy = await TcpProxy.start(test.port);
    const store = clientFor(proxy.port);
    try {
      const log = await store.putContainer(LOG);
      proxy.cutOnNextReply = true;
      await log.put(['once']);
      assert.equal(proxy.droppedReplyCount, 1);
      assert.equal(test.store.getContainerInfo('log')!.rowCount, 1);
      const sensors = await store.putContainer(SENSORS);
      await sensors.put(['r', 1n]);
      proxy.cutOnNextReply = true;
      assert.equal(await sensors.remove('r'), true, 'the first outcome, though the row is gone');
      proxy.cutOnNextReply = true;
      await store.multiPut({ log: [['twice?']] });
      assert.equal(test.store.getContainerInfo('log')!.rowCount, 2);
    } finally {
      await store.close();
      await proxy.close();
      await test.stop();
    }
  });

  it('retries a commit whose answer was lost: the transaction is committed once', async () => {
    const test = await startServer();
    const proxy = await TcpProxy.start(test.port);
    const store = clientFor(proxy.port);
    try {
      const sensors = await store.putContainer(SENSORS);
      await sensors.setAutoCommit(false);
      await sensors.put(['c', 1n]);
      proxy.cutOnNextReply = true;
      await sensors.commit();
      assert.equal(test.store.getContainerInfo('sensors')!.rowCount, 1);
      await sensors.put(['d', 2n]);
      await sensors.commit();
      assert.equal(test.store.getContainerInfo('sensors')!.rowCount, 2);
    } finally {
      await store.close();
      await proxy.close();
      await test.stop();
    }
  });

  it('tells once that a transaction was lost with its connection, then carries on', async () => {
    const test = await startServer();
    const proxy = await TcpProxy.start(test.port);
    const store = clientFor(proxy.port);
    try {
      const sensors = await store.putContainer(SENSORS);
      await sensors.setAutoCommit(false);
      await sensors.put(['lost', 1n]);
      proxy.cut();
      await assert.rejects(sensors.commit(), storageError('TRANSACTION_INVALID', /aborted/));
      await sensors.put(['kept', 2n]);
      await sensors.commit();
      const reader = (await store.getContainer('sensors'))!;
      assert.equal(await reader.get('lost'), undefined);
      assert.deepEqual(await reader.get('kept'), ['kept', 2n]);
    } finally {
      await store.close();
      await proxy.close();
      await test.stop();
    }
  });

  it('reconnects after the node closed an idle connection', async () => {
    const test = await startServer({ idleTimeoutMs: 100 });
    const store = clientOf(test);
    try {
      const log = await store.putContainer(LOG);
      await sleepMs(250);
      await log.put(['after idle']);
      assert.equal(test.store.getContainerInfo('log')!.rowCount, 1);
    } finally {
      await store.close();
      await test.stop();
    }
  });
});

describe('client: pool and discovery', () => {
  it('keeps at most connectionPoolSize connections, however many requests run', async () => {
    const test = await startServer();
    const store = clientOf(test, { connectionPoolSize: 2 });
    try {
      const sensors = await store.putContainer(SENSORS);
      await sensors.multiPut(Array.from({ length: 100 }, (_, i) => [`k${i}`, BigInt(i)]));
      const rows = await Promise.all(Array.from({ length: 200 }, (_, i) =>
        sensors.get(`k${i % 100}`)));
      assert.equal(rows.filter((row) => row !== undefined).length, 200);
      assert.ok(test.server.connectionCount <= 2, `${test.server.connectionCount} connections`);
    } finally {
      await store.close();
      await test.stop();
    }
  });

  it('finds the node through an address provider', async () => {
    const test = await startServer();
    const provider = createServer((_, response) => {
      response.setHeader('Content-Type', 'application/json');
      response.end(JSON.stringify([{ transaction: { address: '127.0.0.1', port: test.port },
        cluster: { address: '127.0.0.1', port: 1 } }]));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const address = provider.address();
    const providerPort = typeof address === 'object' && address !== null ? address.port : 0;
    const url = `http://127.0.0.1:${providerPort}/`;
    const store = getStore({ notificationProvider: url, clusterName: CLUSTER, username: 'admin',
      password: USERS.admin! });
    const publicRoute = getStore({ notificationProvider: url, clusterName: CLUSTER,
      username: 'admin', password: USERS.admin!, connectionRoute: 'PUBLIC', failoverTimeout: 1 });
    try {
      await store.connect();
      await assert.rejects(publicRoute.connect(),
        storageError('CONNECTION_FAILED', /transactionPublic/));
    } finally {
      await store.close();
      await publicRoute.close();
      await new Promise<void>((resolve) => provider.close(() => resolve()));
      await test.stop();
    }
  });
});
