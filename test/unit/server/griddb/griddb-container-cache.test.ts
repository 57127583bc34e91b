// A GridDB connection's cache of its row statements' container look-ups
// (griddb-container-cache.ts) against a node: a statement after the first runs on the cached
// container; a container dropped and created again by another connection is never written
// through the stale entry, the statement gets what an uncached look-up answers
// (TXN_CONTAINER_NOT_FOUND), and the next statements look the container up again; a retried
// statement through the cache applies once.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ByteWriter } from '../../../../lib/encoding/byte-writer.ts';
import { containerPartitionId } from '../../../../lib/schema/partition-hash.ts';
import type { ColumnSchema } from '../../../../lib/schema/container-schema.ts';
import { griddbContainerKeyWrite } from '../../../../lib/server/griddb/griddb-container-key.ts';
import { griddbRowsWrite } from '../../../../lib/server/griddb/griddb-rows.ts';
import { startServer, type TestServer } from '../server-test-helpers.ts';
import {
  RECORDED_CLUSTER, RECORDED_CONNECT, RECORDED_DIGESTS, RECORDED_LOGIN, griddbExchange,
  type GriddbReply,
} from './recorded-handshake.ts';

const PARTITION_NUM = 128;
const PUT_CONTAINER = 107;
const DROP_CONTAINER = 144;
const PUT_ROW = 124;
const TXN_CONTAINER_NOT_FOUND = 10016;
const TRANSACTION_MODE = { AUTO: 0, BEGIN: 1, CONTINUE: 2 } as const;
const CLIENT_UUID = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
/** Where the recorded LOGIN's optional request starts: after the head and statement id. */
const LOGIN_OPTIONS_AT = 36;

const COLUMNS: ColumnSchema[] = [
  { name: 'id', type: 'INTEGER', array: false, notNull: true },
  { name: 's', type: 'STRING', array: false, notNull: false },
];

/** The recorded LOGIN with the C client's CLIENT_ID option (11001: session 0, the UUID) first. */
function loginWithClientId(uuid: Buffer): Buffer {
  const oldSize = RECORDED_LOGIN.readInt32LE(LOGIN_OPTIONS_AT);
  const range = Buffer.alloc(2 + 4 + 2 + 8 + 16 + 2 + 4);
  range.writeInt16LE(11000, 0);
  range.writeInt32LE(2 + 8 + 16 + 2 + 4, 2);
  range.writeInt16LE(11001, 6);
  uuid.copy(range, 16);
  range.writeInt16LE(11005, 32);
  range.writeInt32LE(5, 34);
  const size = Buffer.alloc(4);
  size.writeInt32LE(range.byteLength);
  const login = Buffer.concat([RECORDED_LOGIN.subarray(0, LOGIN_OPTIONS_AT), size, range,
    RECORDED_LOGIN.subarray(LOGIN_OPTIONS_AT + 4 + oldSize)]);
  login.writeInt32LE(login.byteLength - 20, 16);
  return login;
}

function frame(type: number, partitionId: number, statementId: bigint, body: Buffer): Buffer {
  const head = Buffer.alloc(36);
  head.writeInt32LE(0x03e02478, 0);
  head.writeInt32LE(-1, 12);
  head.writeInt32LE(16 + body.byteLength, 16);
  head.writeInt32LE(type, 20);
  head.writeInt32LE(partitionId, 24);
  head.writeBigInt64LE(statementId, 28);
  return Buffer.concat([head, body]);
}

function str(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const size = Buffer.alloc(4);
  size.writeInt32LE(bytes.byteLength);
  return Buffer.concat([size, bytes]);
}

/** PUT_CONTAINER of a collection (id INTEGER, s STRING), keyed by id or without a key. */
function putContainerBody(name: string, keyed: boolean): Buffer {
  const writer = new ByteWriter(64);
  griddbContainerKeyWrite(writer, name);
  const count = Buffer.alloc(4);
  count.writeInt32LE(2);
  return Buffer.concat([Buffer.alloc(4), Buffer.from(writer.finish()), Buffer.from([0, 0]), count,
    str('id'), Buffer.from([4, 4]), str('s'), Buffer.from([0, 0]),
    Buffer.from(keyed ? [1, 0, 0, 0] : [0, 0]), str('')]);
}

interface Container {
  name: string;
  pId: number;
  containerId: bigint;
  schemaVersion: number;
}

function putRowFrame(container: Container, session: { sessionId: bigint; statementId: bigint;
  mode: number; }, row: [number, string]): Buffer {
  const head = Buffer.alloc(8 + 8 + 16 + 4 + 2 + 4);
  head.writeBigInt64LE(container.containerId, 0);
  head.writeBigInt64LE(session.sessionId, 8);
  CLIENT_UUID.copy(head, 16);
  head.writeInt32LE(container.schemaVersion, 32);
  head[36] = session.sessionId === 0n ? 0 : 2; // session mode AUTO / GET
  head[37] = session.mode;
  const rows = new ByteWriter(64);
  griddbRowsWrite(rows, COLUMNS, [row]);
  return frame(PUT_ROW, container.pId, session.statementId,
    Buffer.concat([head, Buffer.from(rows.finish())]));
}

function errorCode(reply: GriddbReply): number {
  assert.notEqual(reply.result, 0, 'an error reply');
  return reply.payload.readInt32LE(4); // | count i32 | code i32 | ...
}


/** DROP_CONTAINER of `name` (container type 0xff: either). */
function dropContainerBody(name: string): Buffer {
  const writer = new ByteWriter(64);
  griddbContainerKeyWrite(writer, name);
  return Buffer.concat([Buffer.alloc(4), Buffer.from(writer.finish()), Buffer.from([0xff])]);
}

/** One connection on which frames are sent one at a time, each after the reply to the one before. */
async function connection(port: number):
  Promise<{ send: (frame: Buffer) => Promise<GriddbReply>; close: () => void }> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffered = Buffer.alloc(0);
  const replies: GriddbReply[] = [];
  let waiting: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.byteLength >= 20 && buffered.byteLength >= 20 + buffered.readInt32LE(16)) {
      const body = buffered.subarray(20, 20 + buffered.readInt32LE(16));
      const statementType = body.readInt32LE(0);
      const idBytes = statementType === 100 ? 4 : 8;
      replies.push({ statementType, result: body.readInt8(4 + idBytes),
        payload: body.subarray(5 + idBytes) });
      buffered = buffered.subarray(20 + body.byteLength);
      waiting?.();
    }
  });
  socket.once('close', () => waiting?.());
  return {
    send: async (frame) => {
      const answered = new Promise<void>((resolve) => (waiting = resolve));
      socket.write(frame);
      await answered;
      const reply = replies.shift();
      assert(reply !== undefined, 'answered before the node closed');
      return reply;
    },
    close: () => socket.destroy(),
  };
}

describe('GridDB protocol: container look-ups cached per connection', { timeout: 60_000 }, () => {
  let test: TestServer;
  const login = loginWithClientId(CLIENT_UUID);

  before(async () => {
    test = await startServer({ clusterName: RECORDED_CLUSTER, partitionNum: PARTITION_NUM,
      lookupPasswordDigest: (user) => RECORDED_DIGESTS.get(user), handshakeTimeoutMs: 2_000 },
    { partitionNum: PARTITION_NUM });
  });
  after(async () => test.stop());

  async function create(name: string): Promise<Container> {
    const pId = containerPartitionId(name, PARTITION_NUM);
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, login,
      frame(PUT_CONTAINER, pId, 1n, putContainerBody(name, true))]);
    assert.equal(replies[2]?.result, 0);
    return { name, pId, schemaVersion: replies[2]!.payload.readInt32LE(0),
      containerId: replies[2]!.payload.readBigInt64LE(4) };
  }

  async function drop(container: Container): Promise<void> {
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, login,
      frame(DROP_CONTAINER, container.pId, 1n, dropContainerBody(container.name))]);
    assert.equal(replies[2]?.result, 0);
  }

  const put = (container: Container, statementId: bigint, row: [number, string]) =>
    putRowFrame(container, { sessionId: 5n, statementId, mode: TRANSACTION_MODE.AUTO }, row);
  const rowsOf = (name: string) => test.store.session().container(name).count();

  it('never writes a container created again through the stale entry', async () => {
    const old = await create('Cached01');
    const client = await connection(test.port);
    try {
      assert.equal((await client.send(RECORDED_CONNECT)).result, 0);
      assert.equal((await client.send(login)).result, 0);
      assert.equal((await client.send(put(old, 1n, [1, 'looked up']))).result, 0);
      assert.equal((await client.send(put(old, 2n, [2, 'cached']))).result, 0);
      assert.equal((await client.send(put(old, 2n, [2, 'cached']))).result, 0, 'retried');
      assert.equal(await rowsOf('Cached01'), 2, 'the retried statement applied once');

      // Another connection drops the container and creates it again (a new id).
      await drop(old);
      const recreated = await create('Cached01');
      assert.notEqual(recreated.containerId, old.containerId);
      const stale = await client.send(put(old, 3n, [3, 'stale']));
      assert.equal(errorCode(stale), TXN_CONTAINER_NOT_FOUND, 'as an uncached look-up answers');
      assert.equal(await rowsOf('Cached01'), 0, 'nothing written through the stale entry');
      const again = await client.send(put(old, 4n, [4, 'stale again']));
      assert.equal(errorCode(again), TXN_CONTAINER_NOT_FOUND);

      assert.equal((await client.send(put(recreated, 5n, [5, 'new']))).result, 0);
      assert.equal((await client.send(put(recreated, 6n, [6, 'new, cached']))).result, 0);
      assert.equal(await rowsOf('Cached01'), 2);
    } finally {
      client.close();
    }
  });
});
