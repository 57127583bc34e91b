// The import's batch writer: a batch is full at COMMIT_ROW_COUNT rows or BATCH_BYTES_MAX estimated
// bytes, whichever first (large rows make small batches, so a multi-put stays far under its
// limit), no more than WRITES_IN_FLIGHT_MAX batches wait for the node, and acknowledgedCount counts
// exactly the rows acknowledged.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Row } from '../../../lib/schema/column-type.ts';
import {
  BATCH_BYTES_MAX, BatchWriter, COMMIT_ROW_COUNT, rowBytesOf, WRITES_IN_FLIGHT_MAX,
} from '../../../tools/expimp-batch-writer.ts';

/** Rows added until add() says the batch is full. */
function rowsToFull(writes: BatchWriter, row: () => Row): number {
  for (let count = 1; ; count++) {
    if (writes.add(row())) return count;
    assert.ok(count <= COMMIT_ROW_COUNT, 'a batch is full at COMMIT_ROW_COUNT rows at most');
  }
}

describe('export import batch writer', () => {
  it('fills a batch at COMMIT_ROW_COUNT small rows, or sooner when rows are large', () => {
    const writes = new BatchWriter(async () => undefined);
    assert.equal(rowsToFull(writes, () => [1, 2.5, 'ab']), COMMIT_ROW_COUNT);
    const blob = new Uint8Array(1024 * 1024);
    const large = new BatchWriter(async () => undefined);
    const rowBytes = rowBytesOf([1, blob]);
    assert.ok(rowBytes > blob.byteLength);
    assert.equal(rowsToFull(large, () => [1, blob]), Math.ceil(BATCH_BYTES_MAX / rowBytes));
    const text = 'x'.repeat(64 * 1024);
    const strings = new BatchWriter(async () => undefined);
    assert.equal(rowsToFull(strings, () => [[text, text]]), Math.ceil(BATCH_BYTES_MAX / rowBytesOf([[text, text]])));
  });

  it('keeps WRITES_IN_FLIGHT_MAX batches in flight at most and counts the rows acknowledged', async () => {
    const pending: Array<() => void> = [];
    let inFlightMax = 0;
    const writes = new BatchWriter((rows) => new Promise<void>((resolve) => {
      pending.push(resolve);
      inFlightMax = Math.max(inFlightMax, pending.length);
      assert.equal(rows.length, 3);
    }));
    const release = setInterval(() => pending.shift()?.(), 1);
    try {
      for (let batch = 0; batch < 5; batch++) {
        for (let i = 0; i < 3; i++) writes.add([i]);
        await writes.flush();
        assert.ok(pending.length <= WRITES_IN_FLIGHT_MAX);
      }
      await writes.settle();
    } finally {
      clearInterval(release);
    }
    assert.equal(writes.acknowledgedCount, 15);
    assert.equal(inFlightMax, WRITES_IN_FLIGHT_MAX);
  });
});
