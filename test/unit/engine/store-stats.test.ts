// The storage figures of the status report move with the work done: checkpoints, data files,
// memory, swap, xlog flushes and rows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openTestStore, SENSORS } from './engine-test-helpers.ts';

const BLOCK_BYTES = 64 * 1024;

describe('store stats', () => {
  it('counts checkpoints, files, memory, swap, log flushes and rows', async () => {
    const test = await openTestStore({
      concurrency: 1, storeMemoryLimitBytes: 4 * BLOCK_BYTES, storeCompressionMode: 'COMPRESSION',
    });
    const empty = test.store.stats();
    assert.equal(empty.checkpoint.completedCount, 0);
    assert.equal(empty.memory.limitBytes, 4 * BLOCK_BYTES);
    assert.equal(empty.dataFiles.compressionMode, 'COMPRESSION');
    await test.store.createContainer(structuredClone(SENSORS));
    const sensors = test.store.session().container('sensors');
    for (let at = 0; at < 40_000; at += 5_000) {
      await sensors.multiPut(Array.from({ length: 5_000 },
        (_, i) => [`k${String(at + i).padStart(6, '0')}`, BigInt(i)]));
    }
    await test.store.checkpoint();
    await sensors.get('k000001');
    await sensors.scan({ limit: 10 });
    const stats = test.store.stats();
    assert.equal(stats.checkpoint.requestedCount, 1);
    assert.equal(stats.checkpoint.running, false);
    assert.ok(stats.checkpoint.completedCount >= 1);
    assert.ok(stats.checkpoint.lastEndMs >= stats.checkpoint.lastStartMs);
    assert.ok(stats.checkpoint.writeCount + stats.checkpoint.adoptedSwapImageCount > 0);
    assert.ok(stats.checkpoint.fileFlushCount >= 1);
    assert.ok(stats.dataFiles.sizeBytes > 0);
    assert.ok(stats.dataFiles.usageRate > 0 && stats.dataFiles.usageRate <= 1);
    assert.ok(stats.memory.useBytes > stats.memory.limitBytes, 'the data is larger than memory');
    assert.ok(stats.memory.residentBytes <= stats.memory.limitBytes);
    assert.equal(stats.memory.useBytes,
      stats.memory.row.useBytes + stats.memory.shared.useBytes + stats.memory.largeValue.useBytes);
    assert.ok(stats.swap.writeCount > 0 && stats.swap.writeBytes > 0);
    assert.ok(stats.swap.readCount > 0 && stats.swap.readBytes > 0);
    assert.ok(stats.log.flushCount >= 8, 'logWriteMode 0 syncs every commit round');
    assert.equal(stats.rows.writeCount, 40_000);
    assert.equal(stats.rows.readCount, 11);
    await test.store.close();
  });
});
