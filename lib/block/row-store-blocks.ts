// The ordered row blocks of one container: a B+tree from each block's first key to the block, their
// places in the partition's BlockSpace, and the structural changes (append, split, remove with
// merge, discard) that keep them so. row-store-merge.ts merges sorted runs into them.
//
// Invariants (checkInvariants): blocks are non-empty, disjoint and ordered; a block's tree key is
// its first row's key; after settle() every block is placed with spaceBytes equal to its usedBytes.
// Between the start of an operation and settle(), changed blocks wait in `touched`.
//
// Every change to a placed block is preceded by willChange(block), which tells the BlockSpace
// before anything moves: its physical block becomes dirty, and a checkpoint in flight first saves
// the image it needs (block-space-checkpoint.ts). Once per block and operation is enough; more is
// harmless. Blocks not placed yet (new ones) have no image to save.
//
// A placed block's rows may be evicted (buffer-pool.ts). Every block handed out here (blockFor,
// last, inOrder, the blocks a merge reaches) is first brought back into memory (use); the tree
// keys and the blocks' counts stay in memory, so routing never loads a block. A point read
// (readerFor) may get just the block's image instead (block-space.ts says when).

import { assert } from '../base/assert.ts';
import type { ContainerId } from '../base/ids.ts';
import type { RowKey } from '../schema/column-type.ts';
import type { BlockKind, BlockOwner, BlockSpace } from './block-space.ts';
import type { RowPointReader } from './block-format-row-image.ts';
import { BTree } from './btree.ts';
import { RowBlock } from './row-block.ts';
import type { StoredRow } from './row-block-column.ts';
import type { BlockLayout } from './row-block-layout.ts';

/** A block under 1/this of the block size after a remove is merged with a neighbour if both fit. */
const MERGE_BELOW_FRACTION = 4;

export interface RowStoreBlocksOptions {
  containerId: ContainerId;
  blockSizeBytes: number;
  layout: BlockLayout;
  space: BlockSpace;
  owner: BlockOwner;
}

export class RowStoreBlocks {
  readonly tree: BTree<RowKey, RowBlock>;
  layout: BlockLayout;
  private readonly containerId: ContainerId;
  private readonly blockSizeBytes: number;
  private readonly space: BlockSpace;
  private readonly owner: BlockOwner;
  private readonly touched = new Set<RowBlock>();

  constructor(options: RowStoreBlocksOptions) {
    this.containerId = options.containerId;
    this.blockSizeBytes = options.blockSizeBytes;
    this.layout = options.layout;
    this.space = options.space;
    this.owner = options.owner;
    assert(this.space.blockSizeBytes === this.blockSizeBytes);
    this.tree = new BTree<RowKey, RowBlock>({ compare: options.layout.keys.compare });
  }

  get count(): number {
    return this.tree.size;
  }

  /** The block whose range holds key: the last block starting at or below it, else the first. */
  blockFor(key: RowKey): RowBlock | undefined {
    return this.used((this.tree.floor(key) ?? this.tree.first())?.value);
  }

  /**
   * blockFor for a point read: the block, or only its image when the block was evicted and just
   * its image was read back (BlockSpace.useForRead).
   */
  readerFor(key: RowKey): RowPointReader | undefined {
    const block = (this.tree.floor(key) ?? this.tree.first())?.value;
    if (block?.blockId === undefined) return block;
    return this.space.useForRead(block.blockId) ?? block;
  }

  last(): RowBlock | undefined {
    return this.used(this.tree.last()?.value);
  }

  /** The blocks in key order, each in memory when it is yielded. */
  *inOrder(): Generator<RowBlock, undefined, undefined> {
    for (const { value } of this.tree.entries({ direction: 'asc' })) yield this.used(value)!;
  }

  /** The blocks in key order as they are: rows possibly evicted (counts and ids only). */
  *outlines(): Generator<RowBlock, undefined, undefined> {
    for (const { value } of this.tree.entries({ direction: 'asc' })) yield value;
  }

  /** A buffer-pool operation begins: blocks used before may be evicted. */
  beginOperation(): void {
    this.space.beginOperation();
  }

  /** block's rows are about to be read or changed: into memory if evicted (see the top). */
  use(block: RowBlock): void {
    if (block.blockId !== undefined) this.space.use(block.blockId);
  }

  private used(block: RowBlock | undefined): RowBlock | undefined {
    if (block !== undefined) this.use(block);
    return block;
  }

  /** An empty block; register() it once it holds its first row. */
  newBlock(capacityRows?: number): RowBlock {
    return new RowBlock({
      layout: this.layout, containerId: this.containerId, blockSizeBytes: this.blockSizeBytes,
      capacityRows,
    });
  }

  register(block: RowBlock): void {
    assert(block.rowCount > 0);
    this.tree.set(block.firstKey(), block);
    this.touched.add(block);
  }

  touch(block: RowBlock): void {
    this.touched.add(block);
  }

  /** block is about to change in place: call before its first change (see the top of the file). */
  willChange(block: RowBlock): void {
    if (block.blockId !== undefined) this.space.willChange(block.blockId);
  }

  /**
   * Adds a block restored in its old physical block (recovery), of this kind: keys above every
   * block here. The BlockSpace restores it there; it is not touched, so it stays clean.
   */
  restore(block: RowBlock, kind: BlockKind): void {
    assert(block.rowCount > 0);
    assert(block.blockId !== undefined, 'restored block without its physical block');
    block.spaceBytes = block.usedBytes;
    this.space.restoreTenant(this.owner, block, { blockId: block.blockId, kind });
    this.tree.set(block.firstKey(), block);
  }

  /**
   * Appends rows[from, to) to block as far as they fit, then to new blocks (none given: new blocks
   * only). Their keys ascend, above every key of block and below those of the block after it.
   */
  appendRun(
    block: RowBlock | undefined, rows: readonly StoredRow[], range: { from: number; to: number },
    extra: { payloadBytes: Float64Array | undefined; rowIdFirst?: number },
  ): void {
    const { payloadBytes, rowIdFirst } = extra;
    let from = range.from;
    while (from < range.to) {
      const count = block === undefined ? 0
        : block.appendCountFit({ from, to: range.to }, payloadBytes);
      if (block === undefined || count === 0) {
        // Room for the rest of the run up front: growing by doubling costs copies and GC.
        block = this.newBlock(range.to - from);
        continue;
      }
      const to = from + count;
      const wasEmpty = block.rowCount === 0;
      this.willChange(block);
      const rowIdOffset = from - range.from;
      block.appendRows(rows, { from, to }, {
        payloadBytes: sumRange(payloadBytes, from, to),
        ...(rowIdFirst === undefined ? {} : { rowIdFirst: rowIdFirst + rowIdOffset }),
      });
      if (wasEmpty) this.register(block);
      else this.touch(block);
      from = to;
    }
  }

  /** Moves block's rows from index on (the upper half by default) into a new block; returns it. */
  split(block: RowBlock, index = block.rowCount >> 1): RowBlock {
    assert(block.rowCount >= 2);
    assert(index > 0 && index < block.rowCount);
    this.willChange(block);
    const right = block.splitAt(index);
    this.register(right);
    this.touched.add(block);
    return right;
  }

  /** Removes row index of block; an emptied block is discarded. */
  removeAt(block: RowBlock, index: number): void {
    const firstKey = block.firstKey();
    this.willChange(block);
    block.removeRow(index);
    if (block.rowCount === 0) {
      this.discard(block, firstKey);
      return;
    }
    if (index === 0) this.rekey(block, firstKey);
    this.touched.add(block);
  }

  /** Folds the small blocks among those changed into their neighbours. */
  mergeTouched(): void {
    for (const block of [...this.touched]) if (this.touched.has(block)) this.mergeSmall(block);
  }

  /**
   * A small block takes in its successors while it is small and they fit, else folds into its
   * predecessor when the two fit in one. Bounded: each merge removes a block.
   */
  private mergeSmall(block: RowBlock): void {
    const firstKey = block.firstKey();
    while (block.usedBytes * MERGE_BELOW_FRACTION < this.blockSizeBytes) {
      const next = this.tree.higher(firstKey)?.value;
      if (next === undefined || !block.fits(next.rowCount, next.varPayloadBytes)) break;
      this.use(next);
      this.willChange(block);
      block.appendBlock(next);
      this.discard(next, next.firstKey());
    }
    if (block.usedBytes * MERGE_BELOW_FRACTION >= this.blockSizeBytes) return;
    const previous = this.tree.lower(firstKey)?.value;
    if (previous !== undefined && previous.fits(block.rowCount, block.varPayloadBytes)) {
      this.use(previous);
      this.willChange(previous);
      previous.appendBlock(block);
      this.touched.add(previous);
      this.discard(block, firstKey);
    }
  }

  /** Tells the BlockSpace the new size of every block the operation changed. */
  settle(): void {
    for (const block of this.touched) {
      assert(block.rowCount > 0);
      const usedBytes = block.usedBytes;
      if (block.blockId === undefined) {
        block.blockId = this.space.place(this.owner, usedBytes, block);
      } else if (usedBytes !== block.spaceBytes) {
        block.blockId = this.space.resize(this.owner, block.blockId,
          { fromBytes: block.spaceBytes, toBytes: usedBytes }, block);
      }
      block.spaceBytes = usedBytes;
    }
    this.touched.clear();
  }

  /** Every block out of the tree and the BlockSpace. */
  releaseAll(): void {
    for (const block of this.outlines()) this.unplace(block);
    this.tree.clear();
    this.touched.clear();
  }

  /** Takes a block out of the tree (where it is registered under treeKey) and the BlockSpace. */
  private discard(block: RowBlock, treeKey: RowKey): void {
    assert(this.tree.delete(treeKey), 'discarded block not in the tree');
    this.touched.delete(block);
    this.unplace(block);
  }

  private unplace(block: RowBlock): void {
    if (block.blockId !== undefined) {
      this.space.release(this.owner, block.blockId, block.spaceBytes, block);
    }
    block.blockId = undefined;
    block.spaceBytes = 0;
  }

  /** block's first key changed from oldKey: move its tree entry. */
  rekey(block: RowBlock, oldKey: RowKey): void {
    assert(this.tree.delete(oldKey), 'rekeyed block not in the tree');
    this.tree.set(block.firstKey(), block);
  }

  /** O(rows): the invariants at the top of this file; returns the row count. */
  checkInvariants(): number {
    assert(this.touched.size === 0, 'blocks left unsettled');
    this.tree.checkInvariants();
    let rowCount = 0;
    let previous: RowBlock | undefined;
    for (const { key, value: block } of this.tree.entries({ direction: 'asc' })) {
      assert(block.rowCount > 0, 'empty block in the tree');
      assert(block.layout === this.layout, 'block of an old layout');
      const keyOrder = this.layout.keys.compare(key, block.firstKey());
      assert(keyOrder === 0, 'tree key is not the first key');
      if (previous?.resident === true) assert(previous.compareAt(previous.rowCount - 1, key) < 0);
      assert(block.blockId !== undefined, 'block not placed');
      assert(this.space.holds(block.blockId, block), 'block not where the BlockSpace has it');
      assert(block.spaceBytes === block.usedBytes, 'block not settled');
      block.checkInvariants();
      rowCount += block.rowCount;
      previous = block;
    }
    return rowCount;
  }
}

function sumRange(values: Float64Array | undefined, from: number, to: number): number {
  if (values === undefined) return 0;
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i]!;
  return sum;
}
