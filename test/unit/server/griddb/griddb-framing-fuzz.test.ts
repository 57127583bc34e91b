// Fuzz of GridDB's framing on the transaction port: random bytes behind the check code, and the
// recorded C-client frames mutated (bytes flipped, cut short, length fields rewritten, frames
// glued), sent on their own connections. Whatever arrives, the node must keep serving: no bug
// reported by the server, every such connection ends (the node closes it or answers it), and a
// clean recorded handshake still succeeds afterwards, on GridDB's protocol and on store's.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startServer, type TestServer } from '../server-test-helpers.ts';
import {
  RECORDED_CLUSTER, RECORDED_CONNECT, RECORDED_DIGESTS, RECORDED_DISCONNECT, RECORDED_FRAMES,
  RECORDED_LOGIN, RECORDED_PARTITION_ADDRESS, griddbExchange,
} from './recorded-handshake.ts';

const CHECK_CODE = Buffer.from([0x78, 0x24, 0xe0, 0x03]);
const RUNS = 150;

/** Sends `bytes`, half-closes, and waits until the node has closed the connection. */
async function sendAndClose(port: number, bytes: Buffer): Promise<void> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  socket.resume();
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.once('connect', () => socket.end(bytes));
  await closed;
}

const mutatedFrame = fc.tuple(
  fc.constantFrom(...RECORDED_FRAMES),
  fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
  fc.option(fc.nat(), { nil: undefined }),
  fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { nil: undefined }),
).map(([frame, flips, cutAt, length]) => {
  const copy = Buffer.from(frame);
  for (const [at, value] of flips) copy[at % copy.byteLength] = value;
  if (length !== undefined) copy.writeInt32LE(length, 16);
  return cutAt === undefined ? copy : copy.subarray(0, cutAt % (copy.byteLength + 1));
});

const randomFrame = fc.uint8Array({ maxLength: 200 }).map((bytes) =>
  Buffer.concat([CHECK_CODE, Buffer.from(bytes)]));

/** A stream: the handshake's first frames, then anything. */
const stream = fc.array(fc.oneof(mutatedFrame, randomFrame, fc.constantFrom(...RECORDED_FRAMES)),
  { minLength: 1, maxLength: 5 }).map((frames) => Buffer.concat(frames));

describe('GridDB protocol: framing fuzz', { timeout: 240_000 }, () => {
  let test: TestServer;
  before(async () => {
    test = await startServer({ clusterName: RECORDED_CLUSTER, partitionNum: 128,
      lookupPasswordDigest: (user) => RECORDED_DIGESTS.get(user), handshakeTimeoutMs: 2_000 });
  });
  after(async () => test.stop());

  it('closes or answers every malformed stream, and keeps serving', async () => {
    await fc.assert(fc.asyncProperty(stream, async (bytes) => {
      await sendAndClose(test.port, bytes);
      assert.deepEqual(test.internalErrors, []);
    }), { numRuns: RUNS });
    const { replies } = await griddbExchange(test.port, [RECORDED_CONNECT, RECORDED_LOGIN,
      RECORDED_PARTITION_ADDRESS, RECORDED_DISCONNECT]);
    assert.deepEqual(replies.map((reply) => reply.result), [0, 0, 0]);
    assert.equal(test.server.stats.authenticatedCount + test.server.stats.unauthenticatedCount,
      test.server.connectionCount);
  });
});
