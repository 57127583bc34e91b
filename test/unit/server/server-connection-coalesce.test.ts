// Replies of pipelined requests that finish in one event-loop turn leave in one socket write
// (server-connection.ts, coalesceWrites), counted at the socket's _write/_writev: a client that
// sends 20 requests at once got 20 writes before, each a syscall.

import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { describe, it } from 'node:test';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import { encodeFrame } from '../../../lib/protocol/frame.ts';
import { PING } from '../../../lib/protocol/messages-connection.ts';
import { replyHeader } from '../../../lib/server/reply-frames.ts';
import type { RequestRunner } from '../../../lib/server/request-runner.ts';
import { RawClient, startServer } from './server-test-helpers.ts';

const REQUEST_COUNT = 20;

/** A runner whose replies each come in a callback of their own, all in the turn after the request. */
function nextTurnRunner(): RequestRunner {
  return {
    info: { partitionNum: 8, storeBlockSizeBytes: 64 * 1024, transactionTimeoutLimitMs: 5000 },
    connectionOpened() {},
    connectionClosed() {},
    run(_connectionId, frame) {
      const bytes = encodeFrame(replyHeader(frame), (writer) => PING.writeReply(writer, {}), PROTOCOL_MESSAGE_BYTES_MAX);
      return new Promise((resolve) => setImmediate(() => resolve({ bytes })));
    },
  };
}

describe('server connection: coalesced replies', { timeout: 60_000 }, () => {
  it('writes the replies of requests in flight together that finish in one turn in one write', async () => {
    const test = await startServer({ engine: nextTurnRunner() });
    const prototype = Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
    const write = prototype._write;
    const writev = prototype._writev;
    let client: RawClient | undefined;
    let serverWrites = 0;
    try {
      client = await RawClient.ready(test.port);
      const own = client.socket;
      prototype._write = function (this: Socket, ...args: unknown[]) {
        if (this !== own) serverWrites++;
        return write.apply(this, args);
      };
      prototype._writev = function (this: Socket, ...args: unknown[]) {
        if (this !== own) serverWrites++;
        return writev.apply(this, args);
      };
      for (let r = 0; r < REQUEST_COUNT; r++) client.request(PING, {});
      for (let r = 0; r < REQUEST_COUNT; r++) await client.reply(PING);
      assert.ok(serverWrites <= 2, `${REQUEST_COUNT} replies took ${serverWrites} writes`);
      assert.ok(serverWrites >= 1);
    } finally {
      prototype._write = write;
      prototype._writev = writev;
      client?.close();
      await test.stop();
    }
  });
});
