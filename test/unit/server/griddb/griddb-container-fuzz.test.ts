// The container statements' body decoders (GET_CONTAINER_PROPERTIES, PUT_CONTAINER,
// DROP_CONTAINER and the binary container key) against random and mutated bodies: a decoder
// either reads a body or refuses it with GridDB's error (GriddbFrameError, GriddbError), never
// anything else; and on a node, a logged-in connection sent such statements gets an error reply
// or is closed, the node reports no bug, and a well-formed statement still works afterwards.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ByteReader } from '../../../../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../../../../lib/encoding/byte-writer.ts';
import { containerPartitionId } from '../../../../lib/schema/partition-hash.ts';
import {
  griddbContainerKeyRead, griddbContainerKeyWrite,
} from '../../../../lib/server/griddb/griddb-container-key.ts';
import { containerPropertiesDecode } from '../../../../lib/server/griddb/griddb-container-properties.ts';
import {
  containerDropDecode, containerPutDecode,
} from '../../../../lib/server/griddb/griddb-container-put.ts';
import { GriddbError } from '../../../../lib/server/griddb/griddb-error.ts';
import { GriddbFrameError } from '../../../../lib/server/griddb/griddb-frame.ts';
import { startServer, type TestServer } from '../server-test-helpers.ts';
import {
  RECORDED_CLUSTER, RECORDED_CONNECT, RECORDED_DIGESTS, RECORDED_LOGIN, griddbExchange,
} from './recorded-handshake.ts';

const PARTITION_NUM = 128;
const RUNS = 300;
const NODE_RUNS = 60;
const GET_CONTAINER_PROPERTIES = 140;
const PUT_CONTAINER = 107;
const DROP_CONTAINER = 144;

const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}(@[A-Za-z0-9]{1,8})?$/);

function keyBytes(containerName: string): Buffer {
  const writer = new ByteWriter(64);
  griddbContainerKeyWrite(writer, containerName);
  return Buffer.from(writer.finish());
}

function str(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const size = Buffer.alloc(4);
  size.writeInt32LE(bytes.byteLength);
  return Buffer.concat([size, bytes]);
}

const EMPTY_OPTIONS = Buffer.alloc(4);

function propertiesBody(containerName: string): Buffer {
  return Buffer.concat([EMPTY_OPTIONS, keyBytes(containerName),
    Buffer.from([7, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6])]);
}

/** A collection: id INTEGER key, s STRING, la LONG[] (as the C client lays it out). */
function putBody(containerName: string): Buffer {
  const count = Buffer.alloc(4);
  count.writeInt32LE(3);
  return Buffer.concat([EMPTY_OPTIONS, keyBytes(containerName), Buffer.from([0, 0]), count,
    str('id'), Buffer.from([4, 4]), str('s'), Buffer.from([0, 0]), str('la'), Buffer.from([5, 1]),
    Buffer.from([1, 0, 0, 0]), str('')]);
}

function dropBody(containerName: string): Buffer {
  return Buffer.concat([EMPTY_OPTIONS, keyBytes(containerName), Buffer.from([0xff])]);
}

/** A whole request frame of `type` (client head, statement id 1). */
function frame(type: number, partitionId: number, body: Buffer): Buffer {
  const head = Buffer.alloc(36);
  head.writeInt32LE(0x03e02478, 0);
  head.writeInt32LE(-1, 12);
  head.writeInt32LE(16 + body.byteLength, 16);
  head.writeInt32LE(type, 20);
  head.writeInt32LE(partitionId, 24);
  head.writeBigInt64LE(1n, 28);
  return Buffer.concat([head, body]);
}

const mutation = fc.record({
  flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
  cutAt: fc.option(fc.nat(), { nil: undefined }),
}, { noNullPrototype: true });

function mutate(body: Buffer, { flips, cutAt }: { flips: Array<[number, number]>;
  cutAt: number | undefined }): Buffer {
  const copy = Buffer.from(body);
  for (const [at, value] of flips) copy[at % copy.byteLength] = value;
  return cutAt === undefined ? copy : copy.subarray(0, cutAt % (copy.byteLength + 1));
}

const DECODERS = [containerPropertiesDecode, containerPutDecode, containerDropDecode];
const BODIES = [propertiesBody, putBody, dropBody];

function decodesOrRefuses(decode: (body: Uint8Array) => unknown, body: Uint8Array): void {
  try {
    decode(body);
  } catch (error) {
    assert.ok(error instanceof GriddbFrameError || error instanceof GriddbError,
      `${decode.name} threw ${String(error)}`);
  }
}

describe('GridDB protocol: container statement decoders', () => {
  it('reads back every container key it writes, case and affinity included', () => {
    fc.assert(fc.property(name, (containerName) => {
      const reader = new ByteReader(keyBytes(containerName));
      assert.equal(griddbContainerKeyRead(reader), containerName);
      assert.equal(reader.remainingBytes, 0);
    }), { numRuns: RUNS });
  });

  it('decodes the well-formed bodies', () => {
    assert.deepEqual(containerPropertiesDecode(propertiesBody('Col01')),
      { name: 'Col01', kinds: [0, 1, 2, 3, 4, 5, 6] });
    assert.deepEqual(containerPutDecode(putBody('Col01')), {
      modifiable: false,
      definition: { name: 'Col01', type: 'COLLECTION', rowKey: 1, columns: [
        { name: 'id', type: 'INTEGER', array: false, notNull: true },
        { name: 's', type: 'STRING', array: false, notNull: false },
        { name: 'la', type: 'LONG', array: true, notNull: false },
      ] },
    });
    assert.deepEqual(containerDropDecode(dropBody('x@rack2')), { name: 'x@rack2', type: undefined });
  });

  it('reads or refuses random and mutated bodies, with GridDB errors only', () => {
    fc.assert(fc.property(fc.nat({ max: 2 }), name, mutation, (which, containerName, change) => {
      decodesOrRefuses(DECODERS[which]!, mutate(BODIES[which]!(containerName), change));
    }), { numRuns: RUNS });
    fc.assert(fc.property(fc.nat({ max: 2 }), fc.uint8Array({ maxLength: 120 }),
      (which, bytes) => decodesOrRefuses(DECODERS[which]!, bytes)), { numRuns: RUNS });
  });
});

describe('GridDB protocol: container statements fuzzed on a node', { timeout: 240_000 }, () => {
  let test: TestServer;
  before(async () => {
    test = await startServer({ clusterName: RECORDED_CLUSTER, partitionNum: PARTITION_NUM,
      lookupPasswordDigest: (user) => RECORDED_DIGESTS.get(user), handshakeTimeoutMs: 2_000 },
    { partitionNum: PARTITION_NUM });
  });
  after(async () => test.stop());

  it('answers or closes every malformed statement, and keeps serving', async () => {
    const types = [GET_CONTAINER_PROPERTIES, PUT_CONTAINER, DROP_CONTAINER];
    await fc.assert(fc.asyncProperty(fc.nat({ max: 2 }), name, mutation,
      async (which, containerName, change) => {
        const body = mutate(BODIES[which]!(containerName), change);
        const pId = containerPartitionId(containerName, PARTITION_NUM);
        const { replies, closedByNode } = await griddbExchange(test.port,
          [RECORDED_CONNECT, RECORDED_LOGIN, frame(types[which]!, pId, body)]);
        assert.ok(replies.length === 3 || closedByNode);
        assert.deepEqual(test.internalErrors, []);
      }), { numRuns: NODE_RUNS });
    const pId = containerPartitionId('Col01', PARTITION_NUM);
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      frame(PUT_CONTAINER, pId, putBody('Col01')),
      frame(GET_CONTAINER_PROPERTIES, pId, propertiesBody('Col01')),
      frame(DROP_CONTAINER, pId, dropBody('Col01'))]);
    assert.deepEqual(replies.map((reply) => reply.result), [0, 0, 0, 0, 0]);
    assert.equal(replies[3]!.payload[0], 1); // exists
  });
});
