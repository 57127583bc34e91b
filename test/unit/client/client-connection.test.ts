// One connection of the client under load: requests that time out on the connection's one timer
// do so each its own timeout after it was sent, while others on the same connection are answered;
// large requests sent together, whose frames the socket cannot take at once, reach the node whole
// (the connection's request writer is never reused while the socket still holds a frame); replies
// that arrive a few bytes a read, on two connections at once, are put together although every
// connection reads into one buffer; and a malformed error reply fails its request, nothing more.

import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import { AUTH_NONCE_BYTES } from '../../../lib/protocol/auth-proof.ts';
import {
  FrameReader, FrameStatus, encodeFrame, type Frame,
} from '../../../lib/protocol/frame.ts';
import type { MessageCodec } from '../../../lib/protocol/message-codec.ts';
import { AUTH, HELLO } from '../../../lib/protocol/messages-connection.ts';
import { MessageType } from '../../../lib/protocol/message-types.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { sleepMs, startServer, storageError } from '../server/server-test-helpers.ts';
import { TcpProxy, clientFor, clientOf } from './client-test-helpers.ts';

const LOG: ContainerDefinition = {
  name: 'log', type: 'COLLECTION', columns: [{ name: 'line', type: 'STRING' }],
};
const METER: ContainerDefinition = {
  name: 'meter', type: 'TIME_SERIES',
  columns: [{ name: 'ts', type: 'TIMESTAMP' },
    ...Array.from({ length: 10 }, (_, i) => ({ name: `v${i}`, type: 'DOUBLE' as const }))],
};
const TIMEOUT_MS = 300;
const NODE_AUTH_REPLY = {
  partitionNum: 8, storeBlockSizeBytes: 64 * 1024, messageBytesMax: PROTOCOL_MESSAGE_BYTES_MAX,
  transactionTimeoutMs: 60_000,
};
/** The tests here are over in a few seconds; a bug that loses an answer must not hang the run. */
const SUITE_TIMEOUT_MS = 60_000;
/** Timers count whole milliseconds; a request may expire within this before its deadline. */
const TIMER_SLACK_MS = 2;

describe('client connection', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('times each request out its timeout after it was sent, on one connection', async () => {
    const test = await startServer();
    const store = clientOf(test, { requestTimeoutMs: TIMEOUT_MS, connectionPoolSize: 1 });
    try {
      const log = await store.putContainer(LOG);
      const timedOut = (sentMs: number) => log.query('hang').fetch().then(
        () => assert.fail('a hung query was answered'),
        (error: unknown) => {
          storageError('REQUEST_TIMEOUT', new RegExp(`within ${TIMEOUT_MS} ms`))(error);
          return performance.now() - sentMs;
        });
      const firstSentMs = performance.now();
      const first = timedOut(firstSentMs);
      await sleepMs(TIMEOUT_MS / 2);
      const secondSentMs = performance.now();
      const second = timedOut(secondSentMs);
      for (let i = 0; i < 5; i++) await log.put([`answered while two wait ${i}`]);
      const [firstWaitedMs, secondWaitedMs] = await Promise.all([first, second]);
      assert.ok(firstWaitedMs >= TIMEOUT_MS - TIMER_SLACK_MS, `first waited ${firstWaitedMs} ms`);
      assert.ok(secondWaitedMs >= TIMEOUT_MS - TIMER_SLACK_MS,
        `second waited ${secondWaitedMs} ms`);
      assert.ok(secondSentMs + secondWaitedMs > firstSentMs + firstWaitedMs);
      await log.put(['still works']);
      assert.equal(test.store.getContainerInfo('log')!.rowCount, 6);
    } finally {
      await store.close();
      await test.stop();
    }
  });

  it('delivers large requests sent at once on one connection whole', async () => {
    const test = await startServer();
    const proxy = await TcpProxy.start(test.port);
    const store = clientFor(proxy.port, { connectionPoolSize: 1 });
    try {
      const meter = await store.putContainer(METER);
      // About 900 KiB a batch, less than the writer keeps; 7 MiB in all, more than the kernel
      // buffers of a connection hold.
      const batchCount = 8;
      const rowCount = 10_000;
      const batches: Row[][] = Array.from({ length: batchCount }, (_, b) =>
        Array.from({ length: rowCount }, (_, r) => {
          const index = b * rowCount + r;
          return [index * 1000, ...Array.from({ length: 10 }, (_, v) => index + v / 10)];
        }));
      // While the proxy reads nothing, the socket takes only part of the first frame at once and
      // queues the rest: the frames it holds must not be overwritten by the next requests.
      proxy.holdRequests(true);
      const sent = Promise.all([
        ...batches.map((rows) => meter.multiPut(rows)),
        meter.put([batchCount * rowCount * 1000, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
      ]);
      await sleepMs(50);
      proxy.holdRequests(false);
      await sent;
      const stored = await (await meter.query('select *').fetch()).toArray();
      assert.equal(stored.length, batchCount * rowCount + 1);
      const expected = [...batches.flat(), [batchCount * rowCount * 1000, 0, 1, 2, 3, 4, 5, 6,
        7, 8, 9]];
      stored.forEach((row, i) => assert.deepEqual(row, expected[i], `row ${i}`));
    } finally {
      await store.close();
      await proxy.close();
      await test.stop();
    }
  });

  it('puts replies together from reads of a few bytes, two connections at once', async () => {
    // Each PING is answered a byte or two a write, with a pause between: every read of either
    // connection brings a piece, and the pieces of the two interleave in the shared buffer.
    const node = await FakeNode.start((frame, socket) => {
      const reply = replyFrame(frame, FrameStatus.REPLY, new Uint8Array(0));
      void writeSlowly(socket, reply);
    });
    const stores = [0, 1].map(() => clientFor(node.port, { connectionPoolSize: 1 }));
    try {
      await Promise.all(stores.map((store) => store.connect()));
      await Promise.all(stores.map(async (store) => {
        for (let i = 0; i < 3; i++) await store.connect();
      }));
    } finally {
      for (const store of stores) await store.close();
      await node.close();
    }
  });

  it('fails a request with a malformed error reply as PROTOCOL_ERROR, goes on', async () => {
    let pingCount = 0;
    const node = await FakeNode.start((frame, socket) => {
      pingCount++;
      const malformed = pingCount === 1;
      socket.write(replyFrame(frame, malformed ? FrameStatus.ERROR : FrameStatus.REPLY,
        malformed ? new Uint8Array([1, 2, 3]) : new Uint8Array(0)));
    });
    const store = clientFor(node.port, { connectionPoolSize: 1 });
    try {
      await assert.rejects(store.connect(), storageError('PROTOCOL_ERROR', /error reply/));
      await store.connect();
      assert.equal(pingCount, 2);
    } finally {
      await store.close();
      await node.close();
    }
  });
});

/** A node that says HELLO and takes any AUTH, then hands every other request to `answer`. */
class FakeNode {
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(answer: (frame: Frame, socket: Socket) => void): Promise<FakeNode> {
    let node: FakeNode | undefined;
    const server = createServer((socket) => {
      node!.sockets.add(socket);
      socket.on('close', () => node!.sockets.delete(socket));
      socket.on('error', () => undefined);
      const reader = new FrameReader(PROTOCOL_MESSAGE_BYTES_MAX);
      socket.on('data', (chunk: Buffer) => {
        reader.push(chunk);
        for (let frame = reader.next(); frame !== undefined; frame = reader.next()) {
          if (frame.messageType === MessageType.HELLO) {
            socket.write(replyOf(frame, HELLO,
              { nonce: new Uint8Array(AUTH_NONCE_BYTES), serverVersion: 'fake' }));
          } else if (frame.messageType === MessageType.AUTH) {
            socket.write(replyOf(frame, AUTH, NODE_AUTH_REPLY));
          } else {
            answer(frame, socket);
          }
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    node = new FakeNode(server, typeof address === 'object' && address !== null ? address.port : 0);
    return node;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function replyOf<Request, Reply>(
  frame: Frame,
  codec: MessageCodec<Request, Reply>,
  reply: Reply,
): Uint8Array {
  return encodeFrame({ messageType: frame.messageType, status: FrameStatus.REPLY,
    requestId: frame.requestId }, (writer) => codec.writeReply(writer, reply),
  PROTOCOL_MESSAGE_BYTES_MAX).slice();
}

function replyFrame(frame: Frame, status: FrameStatus, body: Uint8Array): Uint8Array {
  return encodeFrame({ messageType: frame.messageType, status, requestId: frame.requestId },
    (writer) => writer.bytes(body), PROTOCOL_MESSAGE_BYTES_MAX).slice();
}

async function writeSlowly(socket: Socket, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length && !socket.destroyed; at += 2) {
    socket.write(bytes.subarray(at, at + 2));
    await sleepMs(2);
  }
}
