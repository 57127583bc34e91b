// A connection's reply memory is bounded by the query limit, however its client reads (issue 12,
// point 7, and the soak's RSS): HOSTILE_COUNT clients each pipeline QUERY_COUNT `select *` queries
// whose replies are about 1.2 MB and never read a byte, over real sockets, with the server's
// default limits. The reply bytes the server holds (stats.replyBytesQueuedPeak: written and not
// taken by the kernel, plus a page's estimate for each query being made) never pass
// replyBufferQueryLimit per connection, and another client logs in and is served meanwhile.
//
// Before the query limit a connection ran queries until its queued replies reached
// replyBufferSoftLimit (16 MiB): 54.5 MiB held at most for these four and the good client.
// And a client that resets such a connection leaves nothing to run: before, the node took every
// request still buffered (its write callbacks, failing, found room) and ran them for nobody.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONNECTION_REPLY_QUERY_LIMIT_BYTES_DEFAULT, FETCH_REPLY_BYTES_TARGET, PROTOCOL_MESSAGE_BYTES_MAX,
} from '../../../lib/base/limits.ts';
import { FrameStatus, encodeFrame } from '../../../lib/protocol/frame.ts';
import { PING } from '../../../lib/protocol/messages-connection.ts';
import { QUERY, RESULT_SET_ID_NONE } from '../../../lib/protocol/messages-query.ts';
import { resultSchemaOf } from '../../../lib/protocol/wire-schema.ts';
import { containerPartitionId } from '../../../lib/schema/partition-hash.ts';
import type { QueryHandler } from '../../../lib/server/query-handler.ts';
import { RawClient, putWideCollection, scanQueryHandler, sleepMs, startServer } from './server-test-helpers.ts';

const HOSTILE_COUNT = 4;
const QUERY_COUNT = 30;
const ROW_COUNT = 600;
const VALUE_LENGTH = 2000;
/** Queries the good client makes while the hostile ones hold their replies. */
const GOOD_QUERY_COUNT = 5;
const NAME = 'wide';
const ref = { partitionId: containerPartitionId(NAME, 8), name: NAME };
const query = { sessionId: 0, ref, tql: 'select *', fetchSize: 0, partialExecution: false,
  forUpdate: false };

/** Whether `check` came true within the time. */
async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (let waitedMs = 0; !check(); waitedMs += 20) {
    if (waitedMs > timeoutMs) return false;
    await sleepMs(20);
  }
  return true;
}

/** A server whose `wide` holds ROW_COUNT rows of about 2 KB; counts the queries it runs. */
async function withWide(body: (
  test: Awaited<ReturnType<typeof startServer>>, good: RawClient, queriesRun: () => number,
) => Promise<void>): Promise<void> {
  let queriesRun = 0;
  const countingHandler: QueryHandler = (request) => {
    queriesRun++;
    return scanQueryHandler(request);
  };
  const test = await startServer({ queryHandler: countingHandler });
  const good = await RawClient.ready(test.port);
  try {
    await putWideCollection(good, ref, ROW_COUNT, VALUE_LENGTH);
    const first = await good.call(QUERY, query);
    assert.equal(first.resultSetId, RESULT_SET_ID_NONE, 'one page holds every row');
    await body(test, good, () => queriesRun);
  } finally {
    good.close();
    await test.stop();
  }
}

/** QUERY_COUNT pipelined `select *` requests. */
function queryFrames(): Buffer {
  return Buffer.concat(Array.from({ length: QUERY_COUNT }, (_, i) => encodeFrame(
    { messageType: QUERY.type, status: FrameStatus.REQUEST, requestId: 100 + i },
    (writer) => QUERY.writeRequest(writer, query), PROTOCOL_MESSAGE_BYTES_MAX)));
}

describe('transaction server: replies a client never reads', { timeout: 60_000 }, () => {
  it('holds at most the query limit per connection that does not read, serves others', async () => {
    await withWide(async (test, good, queriesRun) => {
      const replyBytes = ROW_COUNT * VALUE_LENGTH;
      assert.ok(replyBytes < FETCH_REPLY_BYTES_TARGET);
      const runBefore = queriesRun();
      const hostiles: RawClient[] = [];
      try {
        for (let h = 0; h < HOSTILE_COUNT; h++) {
          const hostile = await RawClient.ready(test.port);
          hostile.socket.pause();
          hostile.send(queryFrames());
          hostiles.push(hostile);
        }
        // Each hostile connection holds replies the kernel would not take: the node has stopped.
        assert.ok(await until(() => test.server.stats.replyBytesQueued >= HOSTILE_COUNT, 20_000),
          'the hostile connections hold replies');
        // Meanwhile another client is served, every row of every query.
        for (let q = 0; q < GOOD_QUERY_COUNT; q++) {
          const reply = await good.call(QUERY, query);
          assert.equal(reply.rows.decode(resultSchemaOf(reply.columns)).length, ROW_COUNT);
        }
        assert.deepEqual(await good.call(PING, {}), {});
        await sleepMs(200);

        // A connection starts a page only within the query limit, counting each page's estimate
        // until its reply (smaller here) replaces it: that is the most it holds.
        const boundBytes = (HOSTILE_COUNT + 1) * CONNECTION_REPLY_QUERY_LIMIT_BYTES_DEFAULT;
        const { replyBytesQueuedPeak } = test.server.stats;
        assert.ok(replyBytesQueuedPeak <= boundBytes, `the node held ` +
          `${(replyBytesQueuedPeak / 2 ** 20).toFixed(1)} MiB of replies at most; the bound is ` +
          `${(boundBytes / 2 ** 20).toFixed(1)} MiB`);
        const run = queriesRun() - runBefore;
        assert.ok(run < HOSTILE_COUNT * QUERY_COUNT, 'the hostile connections were not read out');
        process.stdout.write(`# replies held at most ${(replyBytesQueuedPeak / 2 ** 20).toFixed(1)} ` +
          `MiB (bound ${(boundBytes / 2 ** 20).toFixed(1)} MiB); ${run} queries run for ` +
          `${HOSTILE_COUNT} hostile connections and ${GOOD_QUERY_COUNT} good ones\n`);
      } finally {
        for (const hostile of hostiles) hostile.close();
      }
    });
  });

  it('runs none of the requests a client left when it reset the connection', async () => {
    await withWide(async (test, good, queriesRun) => {
      const hostile = await RawClient.ready(test.port);
      hostile.socket.pause();
      hostile.send(queryFrames());
      assert.ok(await until(() => test.server.stats.replyBytesQueued > 0 &&
        queriesRun() >= 3, 20_000), 'the node has run queries and holds their replies');
      await sleepMs(200);
      const runBefore = queriesRun();
      hostile.close();
      assert.ok(await until(() => test.server.connectionCount === 1, 20_000));
      // The good client's query is the last request the node takes; none of the hostile's after.
      await sleepMs(200);
      await good.call(QUERY, query);
      assert.equal(queriesRun() - runBefore, 1, 'only the good client\'s query ran after the reset');
      assert.equal(test.server.stats.replyBytesQueued, 0);
    });
  });
});
