// Block compression on the real file system: with storeCompressionMode COMPRESSION the data files are
// sparse (allocated size clearly below logical size), and after containers are dropped, a reopen with
// releaseUnusedFileBlocks punches the free slots so the allocated size drops.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { storageOptions } from '../../../lib/base/options.ts';
import { Store } from '../../../lib/engine/store.ts';
import { punchHoleSupport } from '../../../lib/io/punch-hole.ts';

const OPTIONS = storageOptions({
  partitionNum: 4, concurrency: 1, logWriteMode: 1, storeCompressionMode: 'COMPRESSION',
});
const CONTAINER_COUNT = 6;
const ROW_COUNT = 20_000;

async function fill(store: Store): Promise<void> {
  for (let c = 0; c < CONTAINER_COUNT; c++) {
    await store.createContainer({
      name: `meter_${c}`, type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kwh', type: 'DOUBLE' },
        { name: 'state', type: 'INTEGER' }],
    });
    // Regular readings compress well, as sensor data does.
    const rows = Array.from({ length: ROW_COUNT }, (_, i) => [1_700_000_000_000 + i * 1000, i % 50, 1]);
    await store.session().container(`meter_${c}`).multiPut(rows);
  }
}

describe('block compression', () => {
  it('keeps data files sparse and releases dropped space at reopen', async (t) => {
    if (!punchHoleSupport.available) {
      t.skip(`no hole punching here: ${punchHoleSupport.reason ?? 'unknown'}`);
      return;
    }
    const home = mkdtempSync(join(tmpdir(), 'store-compression-'));
    try {
      let store = await Store.open({ home, options: OPTIONS });
      await fill(store);
      await store.checkpoint();
      const full = store.stats().dataFiles;
      t.diagnostic(`after ingest: ${full.sizeBytes} bytes logical, ${full.allocatedBytes} allocated`);
      assert.ok(full.sizeBytes > 0);
      assert.ok(full.allocatedBytes < full.sizeBytes * 0.6, 'compressed slots are sparse');
      for (let c = 1; c < CONTAINER_COUNT; c++) await store.dropContainer(`meter_${c}`);
      // Two checkpoints: the first logs the frees, the second no longer references the old slots.
      await store.checkpoint();
      await store.session().container('meter_0').put([1, 1, 1]);
      await store.checkpoint();
      await store.close();
      store = await Store.open({ home, options: OPTIONS, releaseUnusedFileBlocks: true });
      const released = store.stats().dataFiles;
      t.diagnostic(`after drop + release: ${released.allocatedBytes} allocated, ` +
        `${store.recovery!.releasedSlotCount} slots released`);
      assert.ok(store.recovery!.releasedSlotCount > 0);
      assert.ok(released.allocatedBytes < full.allocatedBytes / 2, 'dropped space is released');
      assert.equal(await store.session().container('meter_0').count(), ROW_COUNT + 1);
      await store.close();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
