// GridDB's FLUSH_LOG (117, gsFlush: griddb-flush-log.ts): its body as the C client lays it out
// (container id, empty optional request) and malformed ones; against a node whose logWriteMode
// is a day (so no periodic sync runs in the test), FLUSH_LOG of a container answers SUCCESS only
// after a sync of the log (the store's sync count grows), one of an unknown container id gets
// TXN_CONTAINER_NOT_FOUND, and the connection carries on.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import { flushLogDecode } from '../../../../lib/server/griddb/griddb-flush-log.ts';
import { GriddbFrameError } from '../../../../lib/server/griddb/griddb-frame.ts';
import type { TestServer } from '../server-test-helpers.ts';
import {
  CLIENT_UUID, EMPTY_OPTIONS, TRANSACTION_MODE, createContainer, errorCode, frame,
  loginWithClientId, putRowFrame, startRecordedServer,
} from './griddb-raw-frames.ts';
import {
  RECORDED_CONNECT, griddbExchange,
} from './recorded-handshake.ts';

const FLUSH_LOG = 117;
const TXN_CONTAINER_NOT_FOUND = 10016;
/** logWriteMode's largest value: no periodic sync comes during the test. */
const LOG_WRITE_MODE_DAY = 86_400;

function flushBody(containerId: bigint): Buffer {
  const id = Buffer.alloc(8); // | containerId i64 | optional request: size 0 |
  id.writeBigInt64LE(containerId, 0);
  return Buffer.concat([id, EMPTY_OPTIONS]);
}

describe('GridDB FLUSH_LOG: the frame', () => {
  it('decodes the container id after which only an optional request comes', () => {
    assert.deepEqual(flushLogDecode(flushBody(42n)), { containerId: 42 });
  });

  it('refuses a short body, trailing bytes and a negative id', () => {
    assert.throws(() => flushLogDecode(flushBody(1n).subarray(0, 10)), GriddbFrameError);
    assert.throws(() => flushLogDecode(Buffer.concat([flushBody(1n), Buffer.from([0])])),
      GriddbFrameError);
    assert.throws(() => flushLogDecode(flushBody(-1n)), /container id -1 is out of range/);
  });
});

describe('GridDB FLUSH_LOG: against a node', { timeout: 60_000 }, () => {
  let test: TestServer;

  before(async () => {
    test = await startRecordedServer({ logWriteMode: LOG_WRITE_MODE_DAY });
  });
  after(async () => test.stop());

  it('answers after the partition\'s log is synced; an unknown id is not found', async () => {
    const container = await createContainer(test.port, 'flush_log');
    const { pId } = container;

    const syncsBefore = test.store.stats().log.flushCount;
    const { replies, closedByNode } = await griddbExchange(test.port, [RECORDED_CONNECT,
      loginWithClientId(CLIENT_UUID),
      putRowFrame(container, { sessionId: 0n, statementId: 2n, mode: TRANSACTION_MODE.AUTO },
        [1, 'one']),
      frame(FLUSH_LOG, pId, 3n, flushBody(container.containerId)),
      frame(FLUSH_LOG, pId, 4n, flushBody(container.containerId + 1000n)),
      frame(FLUSH_LOG, pId, 5n, flushBody(container.containerId))]);
    assert.equal(replies[2]?.result, 0, 'PUT_ROW');
    assert.equal(replies[3]?.result, 0, 'FLUSH_LOG');
    assert.equal(replies[3].payload.byteLength, 0);
    assert.ok(test.store.stats().log.flushCount > syncsBefore, 'the flush synced the log');
    assert.equal(errorCode(replies[4]!), TXN_CONTAINER_NOT_FOUND);
    assert.equal(replies[5]?.result, 0, 'the connection carries on');
    assert.equal(closedByNode, false);
  });
});
