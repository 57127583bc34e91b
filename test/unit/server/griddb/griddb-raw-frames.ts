// GridDB frames for tests that drive a node's GridDB protocol by hand, laid out as the C client
// lays them out: the frame head, LOGIN with the C client's CLIENT_ID option, PUT_CONTAINER of a
// small collection (id INTEGER, s STRING), the collection made on a node, PUT_ROW of it in any
// session mode, GET_CONTAINER's and DROP_CONTAINER's body, and the pieces of other statements'
// bodies (strings and i32s as GridDB encodes them); and the node they are sent to.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { ByteWriter } from '../../../../lib/encoding/byte-writer.ts';
import type { StorageOptions } from '../../../../lib/base/options.ts';
import type { ColumnSchema } from '../../../../lib/schema/container-schema.ts';
import { containerPartitionId } from '../../../../lib/schema/partition-hash.ts';
import { griddbContainerKeyWrite } from '../../../../lib/server/griddb/griddb-container-key.ts';
import { griddbRowsWrite } from '../../../../lib/server/griddb/griddb-rows.ts';
import { startServer, type TestServer } from '../server-test-helpers.ts';
import {
  RECORDED_CLUSTER, RECORDED_CONNECT, RECORDED_DIGESTS, RECORDED_LOGIN, griddbExchange,
  type GriddbReply,
} from './recorded-handshake.ts';

export const PARTITION_NUM = 128;

/** A node of the recorded cluster (myCluster, admin/admin) with PARTITION_NUM partitions. */
export function startRecordedServer(storeOverrides: Partial<StorageOptions> = {}): Promise<TestServer> {
  return startServer({ clusterName: RECORDED_CLUSTER, partitionNum: PARTITION_NUM,
    lookupPasswordDigest: (user) => RECORDED_DIGESTS.get(user), handshakeTimeoutMs: 2_000 },
  { partitionNum: PARTITION_NUM, ...storeOverrides });
}
export const PUT_CONTAINER = 107;
export const PUT_ROW = 124;
export const TRANSACTION_MODE = { AUTO: 0, BEGIN: 1, CONTINUE: 2 } as const;
export const CLIENT_UUID = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
/** An optional request of no options, as the C client sends most statements'. */
export const EMPTY_OPTIONS = Buffer.alloc(4);
/** Where the recorded LOGIN's optional request starts: after the head and statement id. */
const LOGIN_OPTIONS_AT = 36;

export const COLUMNS: ColumnSchema[] = [
  { name: 'id', type: 'INTEGER', array: false, notNull: true },
  { name: 's', type: 'STRING', array: false, notNull: false },
];

/** The recorded LOGIN with the C client's CLIENT_ID option (11001: session 0, the UUID) first. */
export function loginWithClientId(uuid: Buffer): Buffer {
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

export function frame(type: number, partitionId: number, statementId: bigint, body: Buffer): Buffer {
  const head = Buffer.alloc(36);
  head.writeInt32LE(0x03e02478, 0);
  head.writeInt32LE(-1, 12);
  head.writeInt32LE(16 + body.byteLength, 16);
  head.writeInt32LE(type, 20);
  head.writeInt32LE(partitionId, 24);
  head.writeBigInt64LE(statementId, 28);
  return Buffer.concat([head, body]);
}

/** The last statement id statementFrame gave out; ids only need to be new on a connection. */
let statementIdLast = 100n;

/** A statement frame to `partitionId` with a statement id not given out before. */
export function statementFrame(type: number, body: Buffer, partitionId = 0): Buffer {
  return frame(type, partitionId, ++statementIdLast, body);
}

export function i32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32LE(value);
  return bytes;
}

export function str(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const size = Buffer.alloc(4);
  size.writeInt32LE(bytes.byteLength);
  return Buffer.concat([size, bytes]);
}

/** PUT_CONTAINER of a collection (id INTEGER, s STRING), keyed by id or without a key. */
export function putContainerBody(name: string, keyed: boolean): Buffer {
  const writer = new ByteWriter(64);
  griddbContainerKeyWrite(writer, name);
  const count = Buffer.alloc(4);
  count.writeInt32LE(2);
  return Buffer.concat([EMPTY_OPTIONS, Buffer.from(writer.finish()), Buffer.from([0, 0]), count,
    str('id'), Buffer.from([4, 4]), str('s'), Buffer.from([0, 0]),
    Buffer.from(keyed ? [1, 0, 0, 0] : [0, 0]), str('')]);
}

/**
 * The body GET_CONTAINER (105) and DROP_CONTAINER (144) share: an empty optional request, the
 * container key, the container type (0 collection, 1 time series, 0xff either).
 */
export function containerKeyTypeBody(name: string, typeCode: number): Buffer {
  const writer = new ByteWriter(64);
  griddbContainerKeyWrite(writer, name);
  return Buffer.concat([EMPTY_OPTIONS, Buffer.from(writer.finish()), Buffer.from([typeCode])]);
}

export interface Container {
  name: string;
  pId: number;
  containerId: bigint;
  schemaVersion: number;
}

/** The collection of putContainerBody, made by PUT_CONTAINER on a connection of its own. */
export async function createContainer(port: number, name: string,
  keyed = true): Promise<Container> {
  const pId = containerPartitionId(name, PARTITION_NUM);
  const { replies } = await griddbExchange(port, [RECORDED_CONNECT, loginWithClientId(CLIENT_UUID),
    frame(PUT_CONTAINER, pId, 1n, putContainerBody(name, keyed))]);
  assert.equal(replies[2]?.result, 0, 'PUT_CONTAINER');
  return { name, pId, schemaVersion: replies[2]!.payload.readInt32LE(0),
    containerId: replies[2]!.payload.readBigInt64LE(4) };
}

export function putRowFrame(container: Container, session: { sessionId: bigint; statementId: bigint;
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

export function errorCode(reply: GriddbReply): number {
  assert.notEqual(reply.result, 0, 'an error reply');
  return reply.payload.readInt32LE(4); // | count i32 | code i32 | ...
}
