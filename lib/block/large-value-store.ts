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
import type { BlockOwner, BlockSpace } from './block-space.ts';
import { LargeValue, largeValueBlockCount, type StoredValue } from './large-value.ts';
import type { RowBlock } from './row-block.ts';

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
    // A whole block each: more than a shared block may hold, so never shared.
    for (let i = 0; i < blockCount; i++) {
      blockIds.push(this.space.place(this.owner, blockSizeBytes));
    }
    value.blockIds = blockIds;
    this.live.add(value);
    this.blockCountInUse += blockCount;
  }

  /** Gives a value's blocks back: its row was replaced or removed. */
  release(value: LargeValue): void {
    assert(this.live.delete(value), 'released a large value this store does not hold');
    this.unplace(value);
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
    for (const id of value.blockIds) this.space.release(this.owner, id, blockSizeBytes);
    this.blockCountInUse -= value.blockIds.length;
    value.blockIds = [];
  }

  /** O(rows): the invariants at the top of this file, given the container's row blocks. */
  checkInvariants(blocks: Iterable<RowBlock>): void {
    const inRows = new Set<LargeValue>();
    for (const value of blockLargeValues(blocks)) {
      assert(!inRows.has(value), 'a large value in two rows');
      inRows.add(value);
    }
    assert(inRows.size === this.live.size, 'large values in rows and in the store differ');
    let blockCount = 0;
    for (const value of this.live) {
      assert(inRows.has(value), 'a live large value no row holds');
      const expected = largeValueBlockCount(value.sizeBytes, this.space.blockSizeBytes);
      assert(value.blockIds.length === expected, 'large value chain of the wrong length');
      blockCount += expected;
    }
    assert(blockCount === this.blockCountInUse, 'large value block count drift');
  }
}
