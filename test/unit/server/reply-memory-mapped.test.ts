// The replies a client never reads leave no RSS behind (issue 12's soak: the node's RSS spread with
// the hostile client): once the transaction server listens, each reply of a MiB or more is a
// mapping of its own (lib/io/malloc-tuning.ts), given back to the kernel when it is dropped,
// whatever large buffers the process freed before. Over real sockets: a client pipelines
// QUERY_COUNT `select *` of about 3 MB each and never reads; the bytes malloc holds in mappings of
// their own (mallinfo2's hblkhd, through the addon) grow by at least half a reply while the
// connection holds them, and shrink again once it is reset.
//
// Before the fix glibc's mmap threshold slid up to the size of the last large buffer freed (here a
// 16 MiB one, as after any burst of large replies): the replies then came from malloc's heap,
// whose freed holes RSS keeps, and the mapped bytes did not grow at all.
//
// Skips, saying why, where the addon is not built or the C library is not glibc.

import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, it } from 'node:test';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../../../lib/base/limits.ts';
import { mallocMappedBytes } from '../../../lib/io/malloc-tuning.ts';
import { FrameStatus, encodeFrame } from '../../../lib/protocol/frame.ts';
import { QUERY, RESULT_SET_ID_NONE } from '../../../lib/protocol/messages-query.ts';
import { containerPartitionId } from '../../../lib/schema/partition-hash.ts';
import { RawClient, putWideCollection, sleepMs, startServer } from './server-test-helpers.ts';

const MiB = 1024 * 1024;
const QUERY_COUNT = 30;
const ROW_COUNT = 1500;
const VALUE_LENGTH = 2000;
/** A large buffer freed before the replies: glibc's sliding threshold would rise to its size. */
const FREED_BUFFER_BYTES = 16 * MiB;
const WAIT_MS = 20_000;
const SETTLE_MS = 100;
const NAME = 'wide';
const ref = { partitionId: containerPartitionId(NAME, 8), name: NAME };
const query = { sessionId: 0, ref, tql: 'select *', fetchSize: 0, partialExecution: false,
  forUpdate: false };

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Whether `check` came true within WAIT_MS. */
async function until(check: () => boolean): Promise<boolean> {
  for (let waitedMs = 0; !check(); waitedMs += 20) {
    if (waitedMs > WAIT_MS) return false;
    await sleepMs(20);
  }
  return true;
}

/** A full collection, after a turn of the event loop (what the last job held is let go). */
async function collectGarbage(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  collect();
}

/**
 * The mapped bytes once they hold still for SETTLE_MS: V8 gives the memory of collected
 * ArrayBuffers back on a background thread, so earlier replies may still be leaving.
 */
async function settledMappedBytes(): Promise<number> {
  let last = mallocMappedBytes()!;
  for (let waitedMs = 0; waitedMs < WAIT_MS; waitedMs += SETTLE_MS) {
    await sleepMs(SETTLE_MS);
    const now = mallocMappedBytes()!;
    if (now === last) return now;
    last = now;
  }
  return last;
}

describe('transaction server: memory of replies a client never reads', { timeout: 60_000 }, () => {
  it('holds them in mappings of their own and gives them back when it goes', async (t) => {
    if (mallocMappedBytes() === undefined) {
      t.skip('lib/io/native malloc_tuning.node not built, or the C library is not glibc');
      return;
    }
    const test = await startServer();
    const good = await RawClient.ready(test.port);
    let hostile: RawClient | undefined;
    try {
      await putWideCollection(good, ref, ROW_COUNT, VALUE_LENGTH);
      const first = await good.call(QUERY, query);
      assert.equal(first.resultSetId, RESULT_SET_ID_NONE, 'one page holds every row');
      const replyBytes = ROW_COUNT * VALUE_LENGTH;

      // A large buffer mapped, freed and collected, as a burst of replies leaves behind. The first
      // query's reply is let go first: given back on V8's background thread between the two reads
      // below, it would pass for a smaller buffer mapped.
      await collectGarbage();
      const mappedFirst = await settledMappedBytes();
      let freed: Uint8Array | undefined = new Uint8Array(FREED_BUFFER_BYTES).fill(1);
      assert.ok(mallocMappedBytes()! >= mappedFirst + FREED_BUFFER_BYTES / 2,
        'a 16 MiB buffer is mapped');
      assert.equal(freed.byteLength, FREED_BUFFER_BYTES);
      freed = undefined;
      await collectGarbage();
      // Gone, not merely less mapped: another buffer given back meanwhile (the first query's reply)
      // would otherwise pass for it, and its own unmapping later count against the replies held.
      assert.ok(await until(() => mallocMappedBytes()! <= mappedFirst + FREED_BUFFER_BYTES / 2),
        'the 16 MiB buffer is freed');
      const mappedBefore = await settledMappedBytes();

      hostile = await RawClient.ready(test.port);
      hostile.socket.pause();
      hostile.send(Buffer.concat(Array.from({ length: QUERY_COUNT }, (_, i) => encodeFrame(
        { messageType: QUERY.type, status: FrameStatus.REQUEST, requestId: 100 + i },
        (writer) => QUERY.writeRequest(writer, query), PROTOCOL_MESSAGE_BYTES_MAX))));
      assert.ok(await until(() => test.server.stats.replyBytesQueued >= replyBytes),
        'the connection holds a reply it does not read');
      await sleepMs(200);
      const mappedHeld = mallocMappedBytes()!;
      const growthMiB = (mappedHeld - mappedBefore) / MiB;
      // The count is the process's: a collection meanwhile may give back an earlier mapped buffer
      // (the first query's reply), so half a reply is the bound. Without the fix it grows by 0.
      assert.ok(mappedHeld - mappedBefore >= replyBytes / 2, `the mapped bytes grew by ` +
        `${growthMiB.toFixed(1)} MiB while ${(test.server.stats.replyBytesQueued / MiB).toFixed(1)} ` +
        `MiB of replies of ${(replyBytes / MiB).toFixed(1)} MiB each were held`);

      hostile.close();
      assert.ok(await until(() => test.server.connectionCount === 1));
      await collectGarbage();
      assert.ok(await until(() => mallocMappedBytes()! <= mappedHeld - replyBytes),
        'the dropped replies are given back');
      process.stdout.write(`# mapped ${growthMiB.toFixed(1)} MiB more while the replies were ` +
        `held, ${((mallocMappedBytes()! - mappedBefore) / MiB).toFixed(1)} MiB after the reset\n`);
    } finally {
      hostile?.close();
      good.close();
      await test.stop();
    }
  });
});
