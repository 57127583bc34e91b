// GET_CONTAINER (105, gsGetCollection / gsGetTimeSeries): its request decoder against well-formed,
// random and mutated bodies; its reply read field by field in the order the C client's
// GSGridStoreTag::getContainer reads it (exists, schema version, container id, key, columns,
// key columns); the refusal of a container of the other kind; and on a node, raw frames: an
// absent container is exists = 0, one made by PUT_CONTAINER is answered with PUT_CONTAINER's id
// and schema version, and a row put by that id after GET_CONTAINER on a fresh connection lands.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ByteReader } from '../../../../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../../../../lib/encoding/byte-writer.ts';
import type { ContainerInfo } from '../../../../lib/protocol/wire-schema.ts';
import { containerPartitionId } from '../../../../lib/schema/partition-hash.ts';
import {
  containerGetDecode, containerGetReplyWrite, containerGetTypeCheck,
} from '../../../../lib/server/griddb/griddb-container-get.ts';
import {
  griddbContainerKeyRead,
} from '../../../../lib/server/griddb/griddb-container-key.ts';
import { GriddbError } from '../../../../lib/server/griddb/griddb-error.ts';
import { GriddbFrameError, griddbStringRead } from '../../../../lib/server/griddb/griddb-frame.ts';
import type { TestServer } from '../server-test-helpers.ts';
import {
  CLIENT_UUID, PARTITION_NUM, TRANSACTION_MODE, containerKeyTypeBody, createContainer,
  frame, loginWithClientId, putRowFrame, startRecordedServer,
} from './griddb-raw-frames.ts';
import {
  RECORDED_CONNECT, griddbExchange,
} from './recorded-handshake.ts';

const GET_CONTAINER = 105;
const RUNS = 300;
/** GridDB's server/gs_error.h. */
const DS_DS_CONTAINER_TYPE_INVALID = 60026;

const TIME_SERIES: ContainerInfo = {
  name: 'Sensor@rack2', type: 'TIME_SERIES', rowKeyColumnCount: 1, dataAffinity: 'rack2',
  columns: [
    { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true, timePrecision: 'NANOSECOND' },
    { name: 'v', type: 'DOUBLE', array: false, notNull: false },
    { name: 'tags', type: 'STRING', array: true, notNull: true },
  ],
  indexes: [], schemaVersion: 3, partitionId: 7, containerId: 2 ** 40 + 5, rowCount: 0,
  blockCount: 0,
};

/** The reply as the client reads it (client.cpp getContainer, RowMapper's schema reader). */
function clientRead(body: Uint8Array): unknown {
  const reader = new ByteReader(body);
  const exists = reader.i8();
  if (exists === 0) return { exists, rest: reader.remainingBytes };
  const schemaVersion = reader.i32();
  const containerId = reader.i64();
  const name = griddbContainerKeyRead(reader);
  const columns: Array<[string, number, number]> = [];
  for (let count = reader.i32(); count > 0; count--) {
    columns.push([griddbStringRead(reader, 'column name'), reader.i8(), reader.i8()]);
  }
  const keyColumns: number[] = [];
  for (let count = reader.i16(); count > 0; count--) keyColumns.push(reader.i16());
  return { exists, schemaVersion, containerId, name, columns, keyColumns,
    rest: reader.remainingBytes };
}

function replyOf(info: ContainerInfo | undefined): Uint8Array {
  const writer = new ByteWriter(64);
  containerGetReplyWrite(writer, info);
  return writer.finish();
}

describe('GridDB protocol: GET_CONTAINER encoding', () => {
  it('decodes the client\'s body: key and container type (0xff: either)', () => {
    assert.deepEqual(containerGetDecode(containerKeyTypeBody('Sensor@rack2', 1)),
      { name: 'Sensor@rack2', type: 'TIME_SERIES' });
    assert.deepEqual(containerGetDecode(containerKeyTypeBody('c1', 0)),
      { name: 'c1', type: 'COLLECTION' });
    assert.deepEqual(containerGetDecode(containerKeyTypeBody('c1', 0xff)),
      { name: 'c1', type: undefined });
    assert.throws(() => containerGetDecode(containerKeyTypeBody('c1', 2)), GriddbFrameError);
    assert.throws(() => containerGetDecode(Buffer.concat([containerKeyTypeBody('c1', 0),
      Buffer.from([0])])), GriddbFrameError);
  });

  it('reads or refuses random and mutated bodies, with GridDB errors only', () => {
    const refusesOrReads = (body: Uint8Array) => {
      try {
        containerGetDecode(body);
      } catch (error) {
        assert.ok(error instanceof GriddbFrameError || error instanceof GriddbError, String(error));
      }
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 80 }), refusesOrReads), { numRuns: RUNS });
    fc.assert(fc.property(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })),
      { maxLength: 6 }), fc.nat(), (flips, cutAt) => {
      const body = containerKeyTypeBody('Sensor@rack2', 1);
      for (const [at, value] of flips) body[at % body.byteLength] = value;
      refusesOrReads(body.subarray(0, cutAt % (body.byteLength + 1)));
    }), { numRuns: RUNS });
  });

  it('answers an existing container in the order the client reads it, nothing after', () => {
    assert.deepEqual(clientRead(replyOf(TIME_SERIES)), {
      exists: 1, schemaVersion: 3, containerId: BigInt(2 ** 40 + 5), name: 'Sensor@rack2',
      // name, type (12 TIMESTAMP(9), 7 DOUBLE, 0 STRING), flags (0x04 NOT NULL, 0x01 array)
      columns: [['ts', 12, 0x04], ['v', 7, 0], ['tags', 0, 0x05]],
      keyColumns: [0], rest: 0,
    });
    const collection: ContainerInfo = { ...TIME_SERIES, name: 'plain', type: 'COLLECTION',
      rowKeyColumnCount: 0, dataAffinity: undefined };
    assert.deepEqual((clientRead(replyOf(collection)) as { keyColumns: number[] }).keyColumns, []);
  });

  it('answers an absent container with exists = 0 alone', () => {
    assert.deepEqual(clientRead(replyOf(undefined)), { exists: 0, rest: 0 });
  });

  it('refuses a container of the other kind with DS_DS_CONTAINER_TYPE_INVALID', () => {
    assert.throws(() => containerGetTypeCheck('COLLECTION', TIME_SERIES),
      (error: unknown) => error instanceof GriddbError &&
        error.error.code === DS_DS_CONTAINER_TYPE_INVALID);
    containerGetTypeCheck('TIME_SERIES', TIME_SERIES);
    containerGetTypeCheck(undefined, TIME_SERIES);
    containerGetTypeCheck('COLLECTION', undefined);
  });
});

describe('GridDB protocol: GET_CONTAINER on a node', { timeout: 60_000 }, () => {
  let test: TestServer;
  const login = loginWithClientId(CLIENT_UUID);

  before(async () => {
    test = await startRecordedServer();
  });
  after(async () => test.stop());

  it('answers an absent container, then the one PUT_CONTAINER made, whose id a row put uses',
    async () => {
      const name = 'GetMe';
      const pId = containerPartitionId(name, PARTITION_NUM);
      const absent = await griddbExchange(test.port, [RECORDED_CONNECT, login,
        frame(GET_CONTAINER, pId, 1n, containerKeyTypeBody(name, 0))]);
      assert.equal(absent.replies[2]?.result, 0);
      assert.deepEqual(clientRead(absent.replies[2]!.payload), { exists: 0, rest: 0 });

      const { schemaVersion, containerId } = await createContainer(test.port, name);

      // A fresh connection learns the container by GET_CONTAINER alone, then puts by its id.
      const got = await griddbExchange(test.port, [RECORDED_CONNECT, login,
        frame(GET_CONTAINER, pId, 1n, containerKeyTypeBody(name, 0)),
        putRowFrame({ name, pId, containerId, schemaVersion },
          { sessionId: 0n, statementId: 2n, mode: TRANSACTION_MODE.AUTO }, [1, 'one']),
        frame(GET_CONTAINER, pId, 3n, containerKeyTypeBody(name, 1))]);
      assert.equal(got.replies[2]?.result, 0);
      assert.deepEqual(clientRead(got.replies[2]!.payload), {
        exists: 1, schemaVersion, containerId, name,
        columns: [['id', 4, 0x04], ['s', 0, 0]], keyColumns: [0], rest: 0,
      });
      assert.equal(got.replies[3]?.result, 0, 'the put by the id GET_CONTAINER answered');
      assert.equal(got.replies[4]?.result, 1, 'a collection asked for as a time series');
      assert.equal(got.replies[4]!.payload.readInt32LE(4), DS_DS_CONTAINER_TYPE_INVALID);
      assert.equal(got.closedByNode, false);
    });
});
