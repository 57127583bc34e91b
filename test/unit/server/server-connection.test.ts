// What a connection does with the memory of replies it could not send: a client that never reads
// is closed at the soft-limit time, and the replies dropped with its socket have their memory
// released at once (their ArrayBuffers detached), while every reply the socket did send is left
// as it was.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PING } from '../../../lib/protocol/messages-connection.ts';
import type { RequestRunner } from '../../../lib/server/request-runner.ts';
import { RawClient, sleepMs, startServer } from './server-test-helpers.ts';

const MiB = 1024 * 1024;
const REPLY_BYTES = 1 * MiB;
const REQUEST_COUNT = 48;

/** A runner whose every reply is a fresh REPLY_BYTES buffer of its own, kept for the test. */
function bigReplyRunner(replies: Uint8Array[]): RequestRunner {
  return {
    info: { partitionNum: 8, storeBlockSizeBytes: 64 * 1024, transactionTimeoutLimitMs: 5000 },
    connectionOpened() {},
    connectionClosed() {},
    run() {
      const bytes = new Uint8Array(REPLY_BYTES);
      replies.push(bytes);
      return Promise.resolve({ bytes });
    },
  };
}

describe('server connection: replies dropped unsent', { timeout: 60_000 }, () => {
  it('releases the memory of the replies a closed connection dropped, and only theirs', async () => {
    const replies: Uint8Array[] = [];
    const test = await startServer({
      engine: bigReplyRunner(replies),
      replySoftLimitBytes: 2 * MiB, replySoftLimitTimeMs: 300,
    });
    try {
      const client = await RawClient.ready(test.port);
      client.socket.pause();
      for (let r = 0; r < REQUEST_COUNT; r++) client.request(PING, {});
      for (let waitedMs = 0; !test.events.some((e) => e.kind === 'closed'); waitedMs += 50) {
        assert.ok(waitedMs < 10_000, 'the server closed the connection');
        await sleepMs(50);
      }
      // The socket's last write callbacks may come a turn after its close.
      await sleepMs(100);
      client.close();
      assert.ok(test.events.some((e) => e.kind === 'overflow'));
      const released = replies.filter((bytes) => bytes.byteLength === 0).length;
      assert.ok(released > 0, `${replies.length} replies, none released`);
      // The ones the kernel took were sent whole: untouched.
      for (const bytes of replies) {
        assert.ok(bytes.byteLength === 0 || bytes.byteLength === REPLY_BYTES);
      }
    } finally {
      await test.stop();
    }
  });
});
