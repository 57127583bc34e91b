// The buffer pool's capacity changed at run time (gs_paramconf --set storeMemoryLimit): a lower
// capacity evicts nothing at once, and the next operation begins by evicting down to it; a higher
// one lets more blocks stay resident without evicting.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BlockId } from '../../../lib/base/ids.ts';
import { BufferPool, type PoolClient } from '../../../lib/block/buffer-pool.ts';
import { BlockKind, physicalBlock, type PhysicalBlock } from '../../../lib/block/physical-block.ts';

const BLOCK_SIZE_BYTES = 64 * 1024;

/** A client whose blocks may always go; eviction just drops the resident flag. */
const client: PoolClient = {
  canEvict: () => true,
  evict: (block: PhysicalBlock) => { block.resident = false; },
};

function admitBlocks(pool: BufferPool, firstId: number, count: number): PhysicalBlock[] {
  return Array.from({ length: count }, (_, i) => {
    pool.beginOperation();
    const block = physicalBlock((firstId + i) as BlockId, BlockKind.ROW, '');
    pool.admit(block, client);
    return block;
  });
}

describe('BufferPool.setCapacityBlocks', () => {
  it('a lowered capacity: the next operation evicts down to it', () => {
    const pool = new BufferPool({ capacityBlocks: 8, blockSizeBytes: BLOCK_SIZE_BYTES });
    const blocks = admitBlocks(pool, 1, 8);
    assert.equal(pool.residentBlockCount, 8);
    pool.setCapacityBlocks(3);
    assert.equal(pool.capacityBytes, 3 * BLOCK_SIZE_BYTES);
    // Blocks the current operation holds stay until it ends.
    assert.equal(pool.residentBlockCount, 8);
    pool.beginOperation();
    assert.equal(pool.residentBlockCount, 3);
    assert.equal(blocks.filter((block) => block.resident).length, 3);
    assert.equal(pool.counters.evictionCount, 5);
    admitBlocks(pool, 100, 4);
    pool.beginOperation();
    assert.equal(pool.residentBlockCount, 3);
    pool.checkInvariants();
  });

  it('a raised capacity keeps more blocks without evicting', () => {
    const pool = new BufferPool({ capacityBlocks: 2, blockSizeBytes: BLOCK_SIZE_BYTES });
    admitBlocks(pool, 1, 2);
    pool.setCapacityBlocks(6);
    admitBlocks(pool, 10, 4);
    pool.beginOperation();
    assert.equal(pool.residentBlockCount, 6);
    assert.equal(pool.counters.evictionCount, 0);
    pool.checkInvariants();
  });

  it('capacityForMemoryLimit: a group\'s share in blocks, at least one', () => {
    assert.equal(BufferPool.capacityForMemoryLimit(
      { memoryLimitBytes: 512 * 1024 * 1024, shareCount: 2, blockSizeBytes: BLOCK_SIZE_BYTES }), 4096);
    assert.equal(BufferPool.capacityForMemoryLimit(
      { memoryLimitBytes: 0, shareCount: 2, blockSizeBytes: BLOCK_SIZE_BYTES }), 1);
  });
});
