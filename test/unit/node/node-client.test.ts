// End to end: a real node process (tools/store-node.ts) and the client library over real sockets.
// Every operation of the client, several clients at once, and the errors a client can meet:
// wrong password or user, wrong cluster name, unknown container, type mismatch, an oversized
// message, a malformed frame, a lock wait that times out. Data written survives a clean restart.

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from './node-process.ts';
import { storageError } from '../engine/engine-test-helpers.ts';

const SENSORS: ContainerDefinition = {
  name: 'sensors', type: 'COLLECTION', rowKey: true,
  columns: [{ name: 'id', type: 'STRING' }, { name: 'value', type: 'LONG' }],
};
const SERIES: ContainerDefinition = {
  name: 'meter-1', type: 'TIME_SERIES',
  columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' }],
};

function clientOf(node: NodeProcess, overrides: Record<string, unknown> = {}): ClientStore {
  return getStore({
    notificationMember: `127.0.0.1:${node.transactionPort}`, clusterName: 'myCluster',
    username: 'admin', password: 'admin', applicationName: 'e2e', transactionTimeout: 1,
    ...overrides,
  });
}

/** Sends raw bytes on a new connection; resolves when the node closes it. */
function sendRaw(port: number, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(bytes));
    const timer = setTimeout(() => reject(new Error('the node kept the connection open')), 10_000);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('node and client end to end', { timeout: 240_000 }, () => {
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

  it('runs every operation', async () => {
    const sensors = await store.putContainer(SENSORS);
    const series = await store.putContainer(SERIES);
    assert.deepEqual((await store.getContainerNames()).sort(), ['meter-1', 'sensors']);
    assert.equal((await store.getContainerInfo('SENSORS'))?.name, 'sensors');
    await sensors.put(['a', 1n]);
    await sensors.multiPut([['b', 2n], ['c', -9223372036854775808n]]);
    assert.deepEqual(await sensors.get('c'), ['c', -9223372036854775808n]);
    assert.equal(await sensors.remove('b'), true);
    assert.equal(await sensors.remove('b'), false);
    const t0 = Date.UTC(2026, 0, 1);
    await series.multiPut(Array.from({ length: 100 }, (_, i) => [t0 + i * 1000, i / 2]));
    await store.multiPut({ sensors: [['d', 4n]], 'meter-1': [[t0 + 100_000, 50]] });
    const got = await store.multiGet({ sensors: { keys: ['a', 'd', 'zz'] } });
    assert.deepEqual(got.get('sensors'), [['a', 1n], ['d', 4n]]);
    const rows = await (await series.query(
      `SELECT * WHERE ts >= TIMESTAMP('2026-01-01T00:00:10.000Z') ORDER BY ts DESC LIMIT 3`).fetch()).toArray();
    assert.deepEqual(rows.map((row) => row[1]), [50, 49.5, 49]);
    const count = await (await series.query('SELECT COUNT(*)').fetch()).toArray();
    assert.equal(Number(count[0]![0]), 101);
    await sensors.setAutoCommit(false);
    await sensors.put(['pending', 7n]);
    await sensors.abort();
    assert.equal(await sensors.get('pending'), undefined);
    await sensors.put(['kept', 8n]);
    await sensors.commit();
    await sensors.setAutoCommit(true);
    assert.deepEqual(await sensors.get('kept'), ['kept', 8n]);
    await store.putContainer({ ...SENSORS, name: 'scratch' });
    assert.equal(await store.dropContainer('scratch'), true);
    assert.equal(await store.getContainer('scratch'), undefined);
  });

  it('serves several clients at once, each one\'s writes whole', async () => {
    const clients = Array.from({ length: 6 }, () => clientOf(node));
    await Promise.all(clients.map(async (client, c) => {
      const mine = await client.putContainer({ ...SENSORS, name: `client-${c}` });
      const shared = (await client.getContainer('sensors'))!;
      for (let batch = 0; batch < 10; batch++) {
        await mine.multiPut(Array.from({ length: 100 }, (_, i) => [`r${batch}-${i}`, BigInt(i)]));
        await shared.put([`c${c}-${batch}`, BigInt(batch)]);
      }
    }));
    for (let c = 0; c < clients.length; c++) {
      const count = await (await (await store.getContainer(`client-${c}`))!.query('SELECT COUNT(*)')
        .fetch()).toArray();
      assert.equal(Number(count[0]![0]), 1000);
    }
    await Promise.all(clients.map((client) => client.close()));
  });

  it('refuses a wrong password or user alike, and a wrong cluster name', async () => {
    for (const overrides of [{ password: 'wrong' }, { username: 'nobody' }]) {
      const client = clientOf(node, { ...overrides, failoverTimeout: 1 });
      await assert.rejects(client.getContainerNames(), storageError('AUTHENTICATION_FAILED'));
      await client.close();
    }
    const other = clientOf(node, { clusterName: 'otherCluster', failoverTimeout: 1 });
    await assert.rejects(other.getContainerNames(), storageError('CLUSTER_NAME_INVALID'));
    await other.close();
  });

  it('reports an unknown container and a type mismatch, changing nothing', async () => {
    assert.equal(await store.getContainer('no-such'), undefined);
    const sensors = (await store.getContainer('sensors'))!;
    await store.dropContainer('client-5');
    await assert.rejects(sensors.put(['x', 'not a long' as unknown as bigint]),
      storageError('TYPE_MISMATCH'));
    assert.equal(await sensors.get('x'), undefined);
  });

  it('closes only the connection of a malformed frame or an oversized message', async () => {
    await sendRaw(node.transactionPort, new TextEncoder().encode('GET / HTTP/1.1\r\n\r\n'));
    // A header claiming a 1 GiB message: refused before any of it is read.
    const header = new Uint8Array(13);
    new DataView(header.buffer).setUint32(0, 1024 * 1024 * 1024, true);
    header.set([0x53, 0x54, 1, 1, 0], 4);
    await sendRaw(node.transactionPort, header);
    assert.deepEqual(await (await store.getContainer('sensors'))!.get('a'), ['a', 1n]);
  });

  it('times a lock wait out with LOCK_TIMEOUT', async () => {
    // The holder's transaction outlives the waiter's 1 s wait.
    const patient = clientOf(node, { transactionTimeout: 30 });
    const other = clientOf(node);
    const holder = (await patient.getContainer('sensors'))!;
    const waiter = (await other.getContainer('sensors'))!;
    await holder.setAutoCommit(false);
    await holder.put(['locked', 1n]);
    await assert.rejects(waiter.put(['locked', 2n]), storageError('LOCK_TIMEOUT'));
    await holder.abort();
    await waiter.put(['locked', 2n]);
    await patient.close();
    await other.close();
  });

  it('keeps everything through a clean restart', async () => {
    await store.close();
    await node.stop();
    assert.match(node.output(), /node stopped/);
    node = await startNodeProcess(home);
    store = clientOf(node);
    const sensors = (await store.getContainer('sensors'))!;
    assert.deepEqual(await sensors.get('kept'), ['kept', 8n]);
    assert.deepEqual(await sensors.get('locked'), ['locked', 2n]);
    const count = await (await (await store.getContainer('meter-1'))!.query('SELECT COUNT(*)')
      .fetch()).toArray();
    assert.equal(Number(count[0]![0]), 101);
  });
});
