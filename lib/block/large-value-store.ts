// The large values of one container (RowStore owns it): each is placed in a chain of whole blocks
// of the partition's BlockSpace, ⌈sizeBytes / (blockSizeBytes − header)⌉ of them, private to the
// container, and the blocks go back when the value's row is replaced or removed or the container
// is dropped.
//
// Invariants (checkInvariants): every live value is placed with its chain's block count; the block
// total is the sum of the chains; the rows hold exactly the live values.

import { assert } from '../base/assert.ts';
import type { BlockId } from '../base/ids.ts';
import { LARGE_VALUE_BLOCK_COUNT_MAX } from '../base/limits.ts';
import { BlockKind, type BlockOwner, type BlockSpace } from './block-space.ts';
import { LargeValue, largeValueBlockCount, type StoredValue } from './large-value.ts';
import type { RowBlock } from './row-block.ts';
import type { StoredRow } from './row-block-column.ts';

/** The LargeValues row index of a block holds, pushed onto `out`. */
export function rowLargeValues(block: RowBlock, index: number, out: LargeValue[]): void {
  assert(index >= 0 && index < block.rowCount);
  for (const c of block.layout.varColumnIndexes) {
    const value = (block.columns[c]!.values as StoredValue[])[index];
    if (value instanceof LargeValue) out.push(value);
  }
}

/** Every LargeValue the rows of these blocks hold. */
export function blockLargeValues(blocks: Iterable<RowBlock>): LargeValue[] {
  const values: LargeValue[] = [];
  for (const block of blocks) {
    if (block.layout.varColumnIndexes.length === 0) continue;
    for (let i = 0; i < block.rowCount; i++) rowLargeValues(block, i, values);
  }
  return values;
}

export interface LargeValueStoreOptions {
  space: BlockSpace;
  owner: BlockOwner;
}

export class LargeValueStore {
  private readonly space: BlockSpace;
  private readonly owner: BlockOwner;
  private readonly live = new Set<LargeValue>();
  private blockCountInUse = 0;

  constructor(options: LargeValueStoreOptions) {
    this.space = options.space;
    this.owner = options.owner;
  }

  /** Large values held. */
  get count(): number {
    return this.live.size;
  }

  /** Blocks their chains take. */
  get blockCount(): number {
    return this.blockCountInUse;
  }

  /** Gives a new large value its chain of blocks. */
  place(value: LargeValue): void {
    assert(value.blockIds.length === 0, 'large value placed twice');
    assert(!this.live.has(value));
    const blockSizeBytes = this.space.blockSizeBytes;
    const blockCount = largeValueBlockCount(value.sizeBytes, blockSizeBytes);
    assert(blockCount <= LARGE_VALUE_BLOCK_COUNT_MAX);
    const blockIds: BlockId[] = [];
    const containerId = this.owner.containerId;
    // A whole block each: more than a shared block may hold, so never shared.
    for (let sequence = 0; sequence < blockCount; sequence++) {
      const chunk = { containerId, value, sequence };
      blockIds.push(this.space.place(this.owner, blockSizeBytes, chunk));
    }
    value.blockIds = blockIds;
    this.live.add(value);
    this.blockCountInUse += blockCount;
  }

  /** Places the large values of new rows (a batch on its way into the blocks). */
  placeRows(rows: readonly StoredRow[], varColumnIndexes: readonly number[]): void {
    for (const row of rows) {
      for (const c of varColumnIndexes) {
        const value = row[c];
        if (value instanceof LargeValue) this.place(value);
      }
    }
  }

  /**
   * Recovery: a value decoded from an image, still in its chain (value.blockIds) as before the
   * restart; the BlockSpace restores the chain's blocks.
   */
  restore(value: LargeValue): void {
    assert(!this.live.has(value), 'large value restored twice');
    const blockCount = largeValueBlockCount(value.sizeBytes, this.space.blockSizeBytes);
    assert(value.blockIds.length === blockCount, 'restored large value without its chain');
    const containerId = this.owner.containerId;
    value.blockIds.forEach((blockId, sequence) => {
      this.space.restoreTenant(this.owner, { containerId, value, sequence },
        { blockId, kind: BlockKind.LARGE_VALUE });
    });
    this.live.add(value);
    this.blockCountInUse += blockCount;
  }

  /** Gives a value's blocks back: its row was replaced or removed. */
  release(value: LargeValue): void {
    assert(this.live.delete(value), 'released a large value this store does not hold');
    this.unplace(value);
  }

  /** Row index of block is going: its large values' blocks go back. */
  releaseRow(block: RowBlock, index: number): void {
    const values: LargeValue[] = [];
    rowLargeValues(block, index, values);
    for (const value of values) this.release(value);
  }

  /** Every chain back to the BlockSpace (clear, drop). */
  releaseAll(): void {
    for (const value of this.live) this.unplace(value);
    this.live.clear();
    assert(this.blockCountInUse === 0);
  }

  /** The blocks of every chain. */
  blockIds(): BlockId[] {
    const ids: BlockId[] = [];
    for (const value of this.live) ids.push(...value.blockIds);
    return ids;
  }

  private unplace(value: LargeValue): void {
    const blockSizeBytes = this.space.blockSizeBytes;
    const containerId = this.owner.containerId;
    value.blockIds.forEach((id, sequence) => {
      this.space.release(this.owner, id, blockSizeBytes, { containerId, value, sequence });
    });
    this.blockCountInUse -= value.blockIds.length;
    value.blockIds = [];
  }

  /**
   * O(rows): the invariants at the top of this file, given the container's row blocks. Evicted
   * blocks cannot be looked into: with any of them, only what the resident ones hold is checked.
   */
  checkInvariants(blocks: Iterable<RowBlock>): void {
    const inRows = new Set<LargeValue>();
    const resident: RowBlock[] = [];
    let complete = true;
    for (const block of blocks) {
      if (block.resident) resident.push(block);
      else complete = false;
    }
    for (const value of blockLargeValues(resident)) {
      assert(!inRows.has(value), 'a large value in two rows');
      assert(this.live.has(value), 'a row holds a large value the store does not');
      inRows.add(value);
    }
    if (complete) assert(inRows.size === this.live.size, 'large values in rows and in the store differ');
    let blockCount = 0;
    for (const value of this.live) {
      assert(!complete || inRows.has(value), 'a live large value no row holds');
      const expected = largeValueBlockCount(value.sizeBytes, this.space.blockSizeBytes);
      assert(value.blockIds.length === expected, 'large value chain of the wrong length');
      blockCount += expected;
    }
    assert(blockCount === this.blockCountInUse, 'large value block count drift');
  }
}
