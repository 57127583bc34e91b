// Every request of an authenticated connection, through raw frames: containers, rows, sessions and
// transactions, the errors a request can get (the connection carries on after them), statement ids
// (a retried write is applied once), and what closing a connection does to its transactions.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { containerPartitionId } from '../../../lib/schema/partition-hash.ts';
import { SESSION_CLOSE, SESSION_OPEN } from '../../../lib/protocol/messages-connection.ts';
import {
  CONTAINER_DROP, CONTAINER_INFO, CONTAINER_LIST, CONTAINER_PUT,
} from '../../../lib/protocol/messages-container.ts';
import {
  MULTI_GET, MULTI_PUT, ROW_GET, ROW_PUT, ROW_REMOVE,
} from '../../../lib/protocol/messages-row.ts';
import { ABORT, COMMIT, SET_AUTO_COMMIT } from '../../../lib/protocol/messages-transaction.ts';
import type { SchemaRef } from '../../../lib/protocol/wire-refs.ts';
import { KeyBatch, RowBatch } from '../../../lib/protocol/wire-rows.ts';
import { containerSchemaOf, type ContainerInfo } from '../../../lib/protocol/wire-schema.ts';
import { RawClient, startServer, storageError, type TestServer } from './server-test-helpers.ts';

const PARTITION_NUM = 8;
let statementId = 0;
const nextStatement = (sessionId = 0) => ({ sessionId, statementId: ++statementId });

const SENSORS: ContainerDefinition = {
  name: 'Sensors', type: 'COLLECTION', rowKey: true,
  columns: [{ name: 'id', type: 'STRING' }, { name: 'value', type: 'LONG' }],
};

async function put(client: RawClient, definition: ContainerDefinition, modifiable = false) {
  return client.call(CONTAINER_PUT, {
    statement: nextStatement(), partitionId: containerPartitionId(definition.name, PARTITION_NUM),
    definitionJson: JSON.stringify(definition), modifiable,
  });
}

const refOf = (info: ContainerInfo): SchemaRef => ({
  partitionId: info.partitionId, name: info.name, containerId: info.containerId,
  schemaVersion: info.schemaVersion,
});

function rowPut(client: RawClient, info: ContainerInfo, rows: Row[], statement = nextStatement()) {
  return client.call(ROW_PUT, {
    statement, ref: refOf(info), rows: RowBatch.of(containerSchemaOf(info), rows),
  });
}

async function rowGet(client: RawClient, info: ContainerInfo, key: string, sessionId = 0) {
  const schema = containerSchemaOf(info);
  const reply = await client.call(ROW_GET,
    { sessionId, ref: refOf(info), keys: KeyBatch.of(schema, [key]) });
  return reply.decode(schema)[0];
}

describe('transaction server: containers', () => {
  let test: TestServer;
  let client: RawClient;
  before(async () => {
    test = await startServer();
    client = await RawClient.ready(test.port);
  });
  after(async () => {
    client.close();
    await test.stop();
  });

  it('creates, describes, lists and drops containers', async () => {
    const info = await put(client, SENSORS);
    assert.equal(info.name, 'Sensors');
    assert.equal(info.partitionId, containerPartitionId('Sensors', PARTITION_NUM));
    assert.deepEqual(info.columns.map((column) => column.type), ['STRING', 'LONG']);
    assert.deepEqual(await put(client, SENSORS), info, 'the same schema again: the same container');
    const described = await client.call(CONTAINER_INFO,
      { partitionId: info.partitionId, name: 'SENSORS' });
    assert.deepEqual(described, info);
    await put(client, { ...SENSORS, name: 'other' });
    assert.deepEqual(await client.call(CONTAINER_LIST, { offset: 0, limit: 0 }),
      { total: 2, names: ['Sensors', 'other'] });
    assert.deepEqual(await client.call(CONTAINER_LIST, { offset: 1, limit: 5 }),
      { total: 2, names: ['other'] });
    const ref = { partitionId: containerPartitionId('other', PARTITION_NUM), name: 'other' };
    assert.equal(await client.call(CONTAINER_DROP, { statement: nextStatement(), ref }), true);
    assert.equal(await client.call(CONTAINER_DROP, { statement: nextStatement(), ref }), false);
    assert.equal(await client.call(CONTAINER_INFO, ref), undefined);
  });

  it('extends a container with modifiable, and refuses other changes', async () => {
    const wider = { ...SENSORS, columns: [...SENSORS.columns, { name: 'note', type: 'STRING' }] };
    await assert.rejects(put(client, wider), storageError('CONTAINER_EXISTS'));
    const info = await put(client, wider, true);
    assert.deepEqual(info.columns.map((column) => column.name), ['id', 'value', 'note']);
    assert.equal(info.schemaVersion, 2);
    const narrower = {
      ...SENSORS, columns: [{ name: 'id', type: 'STRING' }, { name: 'x', type: 'BOOL' }],
    };
    await assert.rejects(put(client, narrower, true),
      storageError('CONTAINER_EXISTS', /only adds columns at the end/));
  });

  it('refuses bad definitions with the engine\'s errors, and a wrong partition', async () => {
    await assert.rejects(put(client, { ...SENSORS, name: '1bad' }), storageError('INVALID_NAME'));
    await assert.rejects(put(client, { ...SENSORS, name: 'ts',
      timeSeriesProperties: { compressionMethod: 'HI' } }), storageError('NOT_SUPPORTED'));
    await assert.rejects(client.call(CONTAINER_INFO, { partitionId: 99, name: 'Sensors' }),
      storageError('PARTITION_MISMATCH', /partition count/));
    assert.ok((await client.call(CONTAINER_LIST, { offset: 0, limit: 0 })).total >= 1,
      'the connection carries on after errors');
  });
});

describe('transaction server: rows', () => {
  let test: TestServer;
  let client: RawClient;
  let info: ContainerInfo;
  before(async () => {
    test = await startServer();
    client = await RawClient.ready(test.port);
    info = await put(client, SENSORS);
  });
  after(async () => {
    client.close();
    await test.stop();
  });

  it('puts, gets and removes rows', async () => {
    await rowPut(client, info, [['a', 1n], ['b', -(2n ** 63n)]]);
    assert.deepEqual(await rowGet(client, info, 'b'), ['b', -(2n ** 63n)]);
    assert.equal(await rowGet(client, info, 'zz'), undefined);
    const schema = containerSchemaOf(info);
    const removed = () => client.call(ROW_REMOVE,
      { statement: nextStatement(), ref: refOf(info), keys: KeyBatch.of(schema, ['a']) });
    assert.equal(await removed(), true);
    assert.equal(await removed(), false);
  });

  it('puts and gets rows of several containers in one request', async () => {
    const other = await put(client, { ...SENSORS, name: 'other2' });
    await client.call(MULTI_PUT, { statement: nextStatement(), entries: [
      { ref: refOf(info), rows: RowBatch.of(containerSchemaOf(info), [['m1', 1n], ['m2', 2n]]) },
      { ref: refOf(other), rows: RowBatch.of(containerSchemaOf(other), [['o', 3n]]) },
    ] });
    const schema = containerSchemaOf(info);
    const reply = await client.call(MULTI_GET, { sessionId: 0, entries: [
      { ref: refOf(info), predicate: { kind: 'keys', keys: KeyBatch.of(schema, ['m2', 'none']) } },
      { ref: refOf(info), predicate: { kind: 'range', start: KeyBatch.of(schema, ['m1']),
        finish: KeyBatch.of(schema, ['m9']), limit: 0 } },
      { ref: refOf(other), predicate: { kind: 'range', start: KeyBatch.of(schema, []),
        finish: KeyBatch.of(schema, []), limit: 1 } },
    ] });
    assert.deepEqual(reply.map((batch) => batch.decode(schema)),
      [[['m2', 2n]], [['m1', 1n], ['m2', 2n]], [['o', 3n]]]);
  });

  it('refuses rows of an old schema, a missing container and a malformed row', async () => {
    await assert.rejects(rowPut(client, { ...info, schemaVersion: 7 }, [['x', 1n]]),
      storageError('SCHEMA_CHANGED', /version 1.*version 7/));
    await assert.rejects(rowPut(client, { ...info, containerId: 99 }, [['x', 1n]]),
      storageError('SCHEMA_CHANGED', /dropped and created again/));
    await assert.rejects(rowPut(client, { ...info, name: 'missing', partitionId:
      containerPartitionId('missing', PARTITION_NUM) }, [['x', 1n]]),
    storageError('CONTAINER_NOT_FOUND', /"missing"/));
    assert.equal(await rowGet(client, info, 'x'), undefined, 'nothing was written');
    const log = await put(client, { name: 'keyless', type: 'COLLECTION',
      columns: [{ name: 'line', type: 'STRING' }] });
    await assert.rejects(client.call(ROW_GET, { sessionId: 0, ref: refOf(log),
      keys: KeyBatch.of(containerSchemaOf(info), ['a']) }), storageError('KEY_REQUIRED'));
    assert.equal(await rowGet(client, info, 'x'), undefined, 'the connection carries on');
  });

  it('keeps the order of pipelined requests on one container', async () => {
    const schema = containerSchemaOf(info);
    const ids = [];
    for (let i = 0; i < 20; i++) {
      client.request(ROW_PUT, { statement: nextStatement(), ref: refOf(info),
        rows: RowBatch.of(schema, [['order', BigInt(i)]]) });
      ids.push(client.request(ROW_GET, { sessionId: 0, ref: refOf(info),
        keys: KeyBatch.of(schema, ['order']) }));
    }
    const seen = new Map<number, Row | undefined>();
    for (let i = 0; i < 40; i++) {
      const frame = await client.frame();
      if (ids.includes(frame.requestId)) {
        const { decodeBody } = await import('../../../lib/protocol/message-codec.ts');
        const rows = decodeBody(frame.body, ROW_GET.readReply, 'get').decode(schema);
        seen.set(frame.requestId, rows[0]);
      }
    }
    assert.deepEqual(ids.map((id) => seen.get(id)?.[1]), ids.map((_, i) => BigInt(i)));
  });
});

describe('transaction server: sessions and transactions', () => {
  let test: TestServer;
  let info: ContainerInfo;
  before(async () => {
    test = await startServer({}, { transactionTimeoutLimitMs: 5000 });
    const client = await RawClient.ready(test.port);
    info = await put(client, SENSORS);
    client.close();
  });
  after(async () => {
    await test.stop();
  });

  async function manualSession(client: RawClient): Promise<number> {
    const { sessionId } = await client.call(SESSION_OPEN, { transactionTimeoutMs: 0 });
    await client.call(SET_AUTO_COMMIT,
      { statement: nextStatement(sessionId), ref: info, enabled: false });
    return sessionId;
  }

  it('keeps a transaction private until commit, and forgets it at abort', async () => {
    const writer = await RawClient.ready(test.port);
    const reader = await RawClient.ready(test.port);
    const sessionId = await manualSession(writer);
    await rowPut(writer, info, [['t1', 1n]], nextStatement(sessionId));
    assert.deepEqual(await rowGet(writer, info, 't1', sessionId), ['t1', 1n]);
    assert.equal(await rowGet(reader, info, 't1'), undefined);
    await writer.call(COMMIT, { statement: nextStatement(sessionId), ref: info });
    assert.deepEqual(await rowGet(reader, info, 't1'), ['t1', 1n]);
    await rowPut(writer, info, [['t2', 2n]], nextStatement(sessionId));
    await writer.call(ABORT, { statement: nextStatement(sessionId), ref: info });
    assert.equal(await rowGet(writer, info, 't2', sessionId), undefined);
    await writer.call(SESSION_CLOSE, { sessionId });
    await assert.rejects(rowGet(writer, info, 't1', sessionId),
      storageError('TRANSACTION_INVALID'));
    writer.close();
    reader.close();
  });

  it('has no transactions in session 0, and no session of another connection', async () => {
    const one = await RawClient.ready(test.port);
    const two = await RawClient.ready(test.port);
    await assert.rejects(one.call(COMMIT, { statement: nextStatement(0), ref: info }),
      storageError('TRANSACTION_INVALID', /auto-commit session/));
    const sessionId = await manualSession(one);
    await assert.rejects(rowGet(two, info, 't1', sessionId),
      storageError('TRANSACTION_INVALID', /not open on this connection/));
    one.close();
    two.close();
  });

  it('times a lock wait out with LOCK_TIMEOUT', async () => {
    const holder = await RawClient.ready(test.port);
    // The waiter's lock waits end long before the holder's transaction would.
    const waiter = await RawClient.ready(test.port, { transactionTimeoutMs: 300 });
    const sessionId = await manualSession(holder);
    await rowPut(holder, info, [['locked', 1n]], nextStatement(sessionId));
    const startedMs = Date.now();
    await assert.rejects(rowPut(waiter, info, [['locked', 2n]]), storageError('LOCK_TIMEOUT'));
    assert.ok(Date.now() - startedMs >= 250);
    holder.close();
    waiter.close();
  });

  it('aborts a connection\'s transactions when it closes, releasing their locks', async () => {
    const holder = await RawClient.ready(test.port);
    const other = await RawClient.ready(test.port);
    const sessionId = await manualSession(holder);
    await rowPut(holder, info, [['gone', 1n]], nextStatement(sessionId));
    holder.close();
    await holder.closed;
    const startedMs = Date.now();
    await rowPut(other, info, [['gone', 2n]]);
    assert.ok(Date.now() - startedMs < 2000, 'the lock went with the connection');
    assert.deepEqual(await rowGet(other, info, 'gone'), ['gone', 2n]);
    other.close();
  });
});

describe('transaction server: statement ids', () => {
  let test: TestServer;
  before(async () => {
    test = await startServer();
  });
  after(async () => {
    await test.stop();
  });

  it('answers a retried write with its first outcome and applies it once', async () => {
    const clientId = new Uint8Array(16).fill(42);
    const first = await RawClient.ready(test.port, { clientId });
    const log = await put(first, { name: 'log', type: 'COLLECTION',
      columns: [{ name: 'line', type: 'STRING' }] });
    const statement = nextStatement();
    await rowPut(first, log, [['once']], statement);
    await rowPut(first, log, [['once']], statement);
    first.close();
    const second = await RawClient.ready(test.port, { clientId });
    await rowPut(second, log, [['once']], statement);
    assert.equal(test.store.getContainerInfo('log')!.rowCount, 1);

    const sensors = await put(second, SENSORS);
    await rowPut(second, sensors, [['r', 1n]]);
    const remove = { statement: nextStatement(), ref: refOf(sensors),
      keys: KeyBatch.of(containerSchemaOf(sensors), ['r']) };
    assert.equal(await second.call(ROW_REMOVE, remove), true);
    assert.equal(await second.call(ROW_REMOVE, remove), true, 'the first outcome, not false');
    second.close();
  });

  it('does not share outcomes between clients', async () => {
    const one = await RawClient.ready(test.port, { clientId: new Uint8Array(16).fill(1) });
    const two = await RawClient.ready(test.port, { clientId: new Uint8Array(16).fill(2) });
    const log = await put(one, { name: 'log2', type: 'COLLECTION',
      columns: [{ name: 'line', type: 'STRING' }] });
    const statement = nextStatement();
    await rowPut(one, log, [['x']], statement);
    await rowPut(two, log, [['x']], statement);
    assert.equal(test.store.getContainerInfo('log2')!.rowCount, 2);
    one.close();
    two.close();
  });

  it('lets a transactional write die with its session', async () => {
    const clientId = new Uint8Array(16).fill(7);
    const first = await RawClient.ready(test.port, { clientId });
    const info = await put(first, SENSORS);
    const { sessionId } = await first.call(SESSION_OPEN, { transactionTimeoutMs: 0 });
    await first.call(SET_AUTO_COMMIT,
      { statement: nextStatement(sessionId), ref: info, enabled: false });
    const statement = nextStatement(sessionId);
    await rowPut(first, info, [['lost', 1n]], statement);
    first.close();
    await first.closed;
    const second = await RawClient.ready(test.port, { clientId });
    await assert.rejects(rowPut(second, info, [['lost', 1n]], statement),
      storageError('TRANSACTION_INVALID'));
    assert.equal(await rowGet(second, info, 'lost'), undefined);
    second.close();
  });

  it('refuses a statement id used for another kind of request', async () => {
    const client = await RawClient.ready(test.port);
    const info = await put(client, SENSORS);
    const statement = nextStatement();
    await rowPut(client, info, [['k', 1n]], statement);
    await assert.rejects(client.call(ROW_REMOVE, { statement, ref: refOf(info),
      keys: KeyBatch.of(containerSchemaOf(info), ['k']) }), storageError('PROTOCOL_ERROR'));
    await client.waitClosed();
  });
});
