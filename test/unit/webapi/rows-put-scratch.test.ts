// The row PUT's scratch pool (lib/webapi/codec/rows-put-scratch.ts): PUTs one after another reuse
// one scratch (no buffers allocated per request), and what the pool keeps stays bounded whatever
// bodies came: a scratch grown by a PUT of large batches is dropped, not kept at its largest, and
// no more than its count of scratches is kept. PUTs go through putRowsStreamed with a fake
// container (rows-put-fake.ts), as the web API's route runs them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  WEBAPI_ROWS_PUT_SCRATCH_KEPT_BYTES_MAX, WEBAPI_ROWS_PUT_SCRATCH_KEPT_COUNT_MAX,
} from '../../../lib/base/limits.ts';
import { RowsPutScratch, RowsPutScratchPool } from '../../../lib/webapi/codec/rows-put-scratch.ts';
import { WEBAPI_SETTINGS_DEFAULT } from '../../../lib/webapi/config/webapi-settings.ts';
import { putRowsStreamed } from '../../../lib/webapi/routes/rows-put.ts';
import { fakeRowsContainer } from './rows-put-fake.ts';

const CHUNK_BYTES = 16 * 1024;
/** The default putBatchSize (1 MB): a batch of it grows the writer and the arrays past the cap. */
const settings = WEBAPI_SETTINGS_DEFAULT;

function container() {
  return fakeRowsContainer([
    { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true },
    { name: 'v', type: 'DOUBLE', array: false, notNull: false },
    { name: 'w', type: 'DOUBLE', array: false, notNull: false }], 1);
}

/** A body of `rowCount` rows with 17-digit doubles (the scanner notes each), in chunks. */
function body(rowCount: number): AsyncIterable<Uint8Array> {
  const rows = Array.from({ length: rowCount }, (_, i) =>
    `["${new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString()}",` +
    `${(i + 0.1234567890123456).toPrecision(17)},${(1 / (i + 3)).toPrecision(17)}]`);
  const bytes = Buffer.from(`[${rows.join(',')}]`);
  return (async function* chunks() {
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) yield bytes.subarray(at, at + CHUNK_BYTES);
  })();
}

async function put(pool: RowsPutScratchPool, rowCount: number): Promise<void> {
  const { container: fake, batches } = container();
  assert.equal(await putRowsStreamed(body(rowCount), fake, settings, pool), rowCount);
  assert.equal(batches.reduce((sum, batch) => sum + batch.rows.length, 0), rowCount);
}

describe('row PUT scratch pool', () => {
  it('PUTs one after another reuse one scratch', async () => {
    const pool = new RowsPutScratchPool();
    await put(pool, 10);
    assert.equal(pool.keptCount, 1);
    const kept = pool.take();
    pool.give(kept);
    await put(pool, 10);
    assert.equal(pool.keptCount, 1);
    assert.equal(pool.take(), kept);
  });

  it('drops a scratch a large PUT grew, so what is kept stays within its bound', async () => {
    const pool = new RowsPutScratchPool();
    // 40,000 rows: 2.4 MB of body, batches of 1 MB; the writer and number arrays grow to MBs.
    await put(pool, 40_000);
    assert.equal(pool.keptCount, 0, `kept ${pool.keptBytes} bytes`);
    await put(pool, 10);
    assert.equal(pool.keptCount, 1);
    assert.ok(pool.keptBytes <= WEBAPI_ROWS_PUT_SCRATCH_KEPT_BYTES_MAX, `${pool.keptBytes}`);
  });

  it('keeps no more scratches than its count, each within its bytes', () => {
    fc.assert(fc.property(fc.array(fc.record({
      taken: fc.integer({ min: 1, max: WEBAPI_ROWS_PUT_SCRATCH_KEPT_COUNT_MAX + 8 }),
      grownBytes: fc.integer({ min: 0, max: 2 * WEBAPI_ROWS_PUT_SCRATCH_KEPT_BYTES_MAX }),
    }, { noNullPrototype: true }), { maxLength: 6 }), (rounds) => {
      const pool = new RowsPutScratchPool();
      for (const { taken, grownBytes } of rounds) {
        const scratches: RowsPutScratch[] = Array.from({ length: taken }, () => pool.take());
        // One of them wrote grownBytes: its writer doubled past them.
        scratches[0]!.writer.claim(Math.max(1, grownBytes));
        for (const scratch of scratches) pool.give(scratch);
        assert.ok(pool.keptCount <= WEBAPI_ROWS_PUT_SCRATCH_KEPT_COUNT_MAX);
        assert.ok(pool.keptBytes <=
          WEBAPI_ROWS_PUT_SCRATCH_KEPT_COUNT_MAX * WEBAPI_ROWS_PUT_SCRATCH_KEPT_BYTES_MAX);
        const kept = Array.from({ length: pool.keptCount }, () => pool.take());
        for (const scratch of kept) {
          assert.ok(scratch.capacityBytes <= WEBAPI_ROWS_PUT_SCRATCH_KEPT_BYTES_MAX);
          assert.equal(scratch.writer.lengthBytes, 0);
          assert.equal(scratch.numbers.count, 0);
        }
        for (const scratch of kept) pool.give(scratch);
      }
    }), { numRuns: 50 });
  });
});
