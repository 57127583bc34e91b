// RowStore: the committed rows of one container, in row blocks ordered by key, found through a
// B+tree from each block's first key. It places its blocks in the partition's BlockSpace.
//
// Invariants (checkInvariants, run after every change when invariants are on): blocks are non-empty,
// disjoint and ordered; the tree key of a block is its first row's key; every block is placed, with
// spaceBytes equal to its usedBytes; count() is the sum of block row counts.
//
// Keyless collections order rows by rowId, a per-container counter: rows only append, and a "key"
// (get, remove, scan bounds) is a rowId. Nothing here is safe to change while a scan iterates.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { BlockId, ContainerId } from '../base/ids.ts';
import { invariants } from '../base/invariants.ts';
import { MULTI_PUT_ROW_COUNT_MAX, SCAN_ROW_COUNT_MAX } from '../base/limits.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import type { RowKeyOps } from '../schema/row-key.ts';
import { blockOwnerOf, type BlockOwner, type BlockSpace } from './block-space.ts';
import { BTree } from './btree.ts';
import { RowBlock } from './row-block.ts';
import {
  blockLayout, rowBlockUsedBytes, rowVarPayloadBytes, type BlockLayout,
} from './row-block-layout.ts';
import { rowStoreAddColumns, rowStoreRenameColumns } from './row-store-schema.ts';
import {
  rowStoreRanges, type BlockRange, type RowBatch, type RowBatchScanOptions, type RowScanOptions,
} from './row-store-scan.ts';

export type { RowBatch, RowBatchScanOptions, RowScanOptions } from './row-store-scan.ts';

/** A block under this many bytes after a remove is merged into a neighbour when both fit in one. */
const MERGE_BELOW_FRACTION = 4;

export interface RowStoreOptions {
  containerId: ContainerId;
  schema: ContainerSchema;
  blockSizeBytes: number;
  space: BlockSpace;
}

export class RowStore {
  readonly containerId: ContainerId;
  readonly blockSizeBytes: number;
  private schemaCurrent: ContainerSchema;
  private layout: BlockLayout;
  private keys: RowKeyOps;
  private readonly owner: BlockOwner;
  private readonly space: BlockSpace;
  private readonly tree: BTree<RowKey, RowBlock>;
  private rowCount = 0;
  private rowIdNext = 0;
  /** +1 on every change; a scan asserts it did not move under it. */
  private changeCount = 0;
  private dropped = false;
  /** Blocks changed by the operation in progress, settled in the BlockSpace at its end. */
  private readonly touched = new Set<RowBlock>();

  constructor(options: RowStoreOptions) {
    this.containerId = options.containerId;
    this.blockSizeBytes = options.blockSizeBytes;
    this.schemaCurrent = options.schema;
    this.layout = blockLayout(options.schema);
    this.keys = this.layout.keys;
    this.space = options.space;
    assert(this.space.blockSizeBytes === this.blockSizeBytes);
    this.owner = blockOwnerOf(this.containerId, options.schema.dataAffinity);
    this.tree = new BTree<RowKey, RowBlock>({ compare: this.layout.keys.compare });
  }

  get schema(): ContainerSchema {
    return this.schemaCurrent;
  }

  /** Keyless collections: the rowId the next appended row gets. */
  get nextRowId(): number {
    return this.rowIdNext;
  }

  get blockCount(): number {
    return this.tree.size;
  }

  /** Sum of the blocks' encoded sizes. */
  get usedBytes(): number {
    let bytes = 0;
    for (const { value: block } of this.tree.entries({ direction: 'asc' })) bytes += block.usedBytes;
    return bytes;
  }

  count(): number {
    return this.rowCount;
  }

  /**
   * Upserts validated rows: a row replaces the row with the same key; a keyless collection appends
   * them with new rowIds. A later row of the batch wins over an earlier one with the same key. Throws
   * LIMIT_EXCEEDED, changing nothing, when a row alone is larger than a block.
   */
  put(rows: readonly Row[]): void {
    this.assertOpen();
    assert(rows.length <= MULTI_PUT_ROW_COUNT_MAX);
    if (rows.length === 0) return;
    const payloadBytes = this.putPayloadBytes(rows);
    this.changeCount++;
    if (this.layout.keyless) {
      this.appendRows(rows, payloadBytes);
    } else if (this.putInOrder(rows)) {
      this.appendRows(rows, payloadBytes);
    } else {
      for (let i = 0; i < rows.length; i++) this.upsertRow(rows[i]!, payloadBytes?.[i] ?? 0);
    }
    this.settleTouched();
  }

  /** Removes the rows with these keys (rowIds when keyless); returns how many there were. */
  remove(keys: readonly RowKey[]): number {
    this.assertOpen();
    this.changeCount++;
    let removedCount = 0;
    for (const raw of keys) if (this.removeKey(this.keys.normalizeKey(raw))) removedCount++;
    for (const block of [...this.touched]) if (this.touched.has(block)) this.mergeSmall(block);
    this.settleTouched();
    return removedCount;
  }

  get(key: RowKey): Row | undefined {
    this.assertOpen();
    const normal = this.keys.normalizeKey(key);
    const block = this.blockFor(normal);
    if (block === undefined) return undefined;
    const index = block.search(normal);
    return index >= 0 ? block.readRow(index) : undefined;
  }

  has(key: RowKey): boolean {
    this.assertOpen();
    const normal = this.keys.normalizeKey(key);
    const block = this.blockFor(normal);
    return block !== undefined && block.search(normal) >= 0;
  }

  /**
   * Rows with from <= key <= to, in key order or reversed. Without a limit, a range of more than
   * SCAN_ROW_COUNT_MAX rows is LIMIT_EXCEEDED: page with a key bound, or use scanBatches.
   */
  scan(options: RowScanOptions): Row[] {
    const rows: Row[] = [];
    for (const { block, start, end } of this.ranges(options, true)) {
      if (options.direction === 'asc') for (let i = start; i < end; i++) rows.push(block.readRow(i));
      else for (let i = end - 1; i >= start; i--) rows.push(block.readRow(i));
    }
    return rows;
  }

  /** The zero-copy scan: one batch per block in range; see RowBatch for the row order inside one. */
  *scanBatches(options: RowBatchScanOptions): Generator<RowBatch, undefined, undefined> {
    if (options.columnIndexes !== undefined) {
      for (const c of options.columnIndexes) assert(c >= 0 && c < this.layout.columns.length);
    }
    for (const { block, start, end } of this.ranges(options, false)) {
      yield {
        rowCount: end - start,
        columns: block.vectors({ start, end }, options.columnIndexes),
        rowIds: block.rowIds?.subarray(start, end),
      };
    }
  }

  /** Rows with from <= key <= to (either bound optional). */
  rowCountInRange(range: { from?: RowKey; to?: RowKey } = {}): number {
    if (range.from === undefined && range.to === undefined) return this.rowCount;
    let count = 0;
    for (const { start, end } of this.ranges({ ...range, direction: 'asc' }, false)) count += end - start;
    return count;
  }

  /** Applies a schema with columns added at the end: existing rows get NULL or the empty value. */
  addColumn(schema: ContainerSchema): void {
    this.assertOpen();
    this.changeCount++;
    const layout = blockLayout(schema);
    rowStoreAddColumns(this.layout, layout, {
      blocks: [...this.blocksInOrder()],
      split: (block) => this.split(block),
    });
    this.setSchema(schema, layout);
    for (const block of this.blocksInOrder()) this.touched.add(block);
    this.settleTouched();
  }

  /** Applies a schema that renames columns; the rows do not change. */
  renameColumn(schema: ContainerSchema): void {
    this.assertOpen();
    const layout = blockLayout(schema);
    rowStoreRenameColumns(this.layout, layout);
    for (const block of this.blocksInOrder()) block.relayout(layout);
    this.setSchema(schema, layout);
  }

  /** Removes every row and gives the blocks back to the BlockSpace. rowIds keep counting. */
  clear(): void {
    this.assertOpen();
    this.changeCount++;
    for (const block of this.blocksInOrder()) this.unplace(block);
    this.tree.clear();
    this.rowCount = 0;
  }

  /** clear(), and the store may not be used again. */
  drop(): void {
    this.clear();
    this.dropped = true;
  }

  /** The distinct physical blocks holding this container's rows, in key order. */
  blockIds(): BlockId[] {
    const ids = new Set<BlockId>();
    for (const block of this.blocksInOrder()) ids.add(block.blockId!);
    return [...ids];
  }

  /** The row blocks in key order (checkpoint encodes these). Do not modify them. */
  *blocksInOrder(): Generator<RowBlock, undefined, undefined> {
    for (const { value } of this.tree.entries({ direction: 'asc' })) yield value;
  }

  private assertOpen(): void {
    assert(!this.dropped, `container ${this.containerId} was dropped`);
  }

  private setSchema(schema: ContainerSchema, layout: BlockLayout): void {
    this.schemaCurrent = schema;
    this.layout = layout;
    this.keys = layout.keys;
  }

  private *ranges(options: RowScanOptions, materialise: boolean): Generator<BlockRange, undefined> {
    this.assertOpen();
    if (options.limit !== undefined) assert(Number.isInteger(options.limit) && options.limit >= 0);
    // One row past the cap is enough to know a materialised scan is too large.
    const limit = Math.min(options.limit ?? Number.POSITIVE_INFINITY,
      materialise ? SCAN_ROW_COUNT_MAX + 1 : Number.POSITIVE_INFINITY);
    const from = options.from === undefined ? undefined : this.keys.normalizeKey(options.from);
    const to = options.to === undefined ? undefined : this.keys.normalizeKey(options.to);
    const changeCount = this.changeCount;
    let rowCount = 0;
    const direction = options.direction;
    for (const range of rowStoreRanges(this.tree, this.keys, { from, to, direction, limit })) {
      rowCount += range.end - range.start;
      if (materialise && rowCount > SCAN_ROW_COUNT_MAX) {
        throw new StorageError('LIMIT_EXCEEDED',
          `scan of container ${this.containerId} exceeds ${SCAN_ROW_COUNT_MAX} rows; page with a key bound`);
      }
      yield range;
      assert(this.changeCount === changeCount, 'row store changed during a scan');
    }
  }

  /** Each row's variable-length bytes (undefined without such columns); rejects rows over a block. */
  private putPayloadBytes(rows: readonly Row[]): Float64Array | undefined {
    const rowFixedBytes = rowBlockUsedBytes(this.layout, 1, 0);
    assert(rowFixedBytes <= this.blockSizeBytes);
    if (this.layout.varColumnIndexes.length === 0) return undefined;
    const payloadBytes = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const bytes = rowVarPayloadBytes(this.layout, rows[i]!);
      if (rowFixedBytes + bytes > this.blockSizeBytes) {
        throw new StorageError('LIMIT_EXCEEDED', `row ${i} takes ${rowFixedBytes + bytes} bytes, ` +
          `more than a ${this.blockSizeBytes}-byte block holds`);
      }
      payloadBytes[i] = bytes;
    }
    return payloadBytes;
  }

  /** Are the keys strictly increasing and all above the current maximum? Then rows just append. */
  private putInOrder(rows: readonly Row[]): boolean {
    const last = this.tree.last()?.value;
    const keys = this.keys;
    if (last !== undefined && last.compareAt(last.rowCount - 1, keys.keyOf(rows[0]!)) >= 0) return false;
    for (let i = 1; i < rows.length; i++) {
      if (keys.compareRows(rows[i - 1]!, rows[i]!) >= 0) return false;
    }
    return true;
  }

  /** The in-order path: fill the last block, then new ones, without a tree search per row. */
  private appendRows(rows: readonly Row[], payloadBytes: Float64Array | undefined): void {
    let block = this.tree.last()?.value;
    let from = 0;
    while (from < rows.length) {
      const count = block === undefined ? 0
        : block.appendCountFit({ from, to: rows.length }, payloadBytes);
      if (block === undefined || count === 0) {
        // Room for the rest of the batch up front: growing by doubling costs copies and GC.
        block = this.newBlock(rows.length - from);
        continue;
      }
      const to = from + count;
      const wasEmpty = block.rowCount === 0;
      block.appendRows(rows, { from, to },
        { payloadBytes: sumRange(payloadBytes, from, to), rowIdFirst: this.rowIdNext + from });
      if (wasEmpty) this.tree.set(block.firstKey(), block);
      this.touched.add(block);
      from = to;
    }
    this.rowCount += rows.length;
    if (this.layout.keyless) {
      this.rowIdNext += rows.length;
      assert(Number.isSafeInteger(this.rowIdNext));
    }
  }

  private upsertRow(row: Row, payloadBytes: number): void {
    const key = this.keys.keyOf(row);
    const block = this.blockFor(key);
    if (block === undefined) {
      this.insertFresh(row, payloadBytes);
      this.rowCount++;
      return;
    }
    const index = block.search(key);
    if (index >= 0) {
      this.replaceAt(block, index, row, payloadBytes);
      return;
    }
    this.insertAt(block, -index - 1, row, payloadBytes);
    this.rowCount++;
  }

  private replaceAt(block: RowBlock, index: number, row: Row, payloadBytes: number): void {
    this.touched.add(block);
    if (block.fitsReplace(index, payloadBytes)) {
      block.replaceRow(index, row, payloadBytes);
      return;
    }
    // The new version needs more room than is left: take the old one out and insert anew.
    const firstKey = block.firstKey();
    block.removeRow(index);
    if (index === 0 && block.rowCount > 0) this.rekey(block, firstKey);
    this.insertAt(block, index, row, payloadBytes);
  }

  /** Inserts at index of block, splitting it (or starting a block) when the row does not fit. */
  private insertAt(block: RowBlock, index: number, row: Row, payloadBytes: number): void {
    for (;;) {
      this.touched.add(block);
      if (block.fits(1, payloadBytes)) {
        const firstKey = index === 0 && block.rowCount > 0 ? block.firstKey() : undefined;
        block.insertRow(index, row, payloadBytes);
        if (firstKey !== undefined) this.rekey(block, firstKey);
        return;
      }
      assert(block.rowCount > 0, 'a row larger than an empty block');
      if (index === 0 || index === block.rowCount) {
        // At an edge, a new block keeps this one full (ordered inserts do not leave half blocks).
        this.insertFresh(row, payloadBytes);
        return;
      }
      const right = this.split(block);
      if (index >= block.rowCount) {
        index -= block.rowCount;
        block = right;
      }
    }
  }

  private insertFresh(row: Row, payloadBytes: number): void {
    const block = this.newBlock();
    block.appendRows([row], { from: 0, to: 1 }, { payloadBytes });
    this.tree.set(block.firstKey(), block);
    this.touched.add(block);
  }

  /** Moves the upper half of block into a new block; returns that block. */
  private split(block: RowBlock): RowBlock {
    assert(block.rowCount >= 2);
    const right = block.splitAt(block.rowCount >> 1);
    this.tree.set(right.firstKey(), right);
    this.touched.add(block);
    this.touched.add(right);
    return right;
  }

  private removeKey(key: RowKey): boolean {
    const block = this.blockFor(key);
    if (block === undefined) return false;
    const index = block.search(key);
    if (index < 0) return false;
    const firstKey = block.firstKey();
    block.removeRow(index);
    this.rowCount--;
    if (block.rowCount === 0) {
      this.discard(block, firstKey);
      return true;
    }
    if (index === 0) this.rekey(block, firstKey);
    this.touched.add(block);
    return true;
  }

  /** A small block is folded into its successor, or into its predecessor, when the two fit in one. */
  private mergeSmall(block: RowBlock): void {
    if (block.usedBytes * MERGE_BELOW_FRACTION >= this.blockSizeBytes) return;
    const firstKey = block.firstKey();
    const next = this.tree.higher(firstKey)?.value;
    if (next !== undefined && block.fits(next.rowCount, next.varPayloadBytes)) {
      block.appendBlock(next);
      this.discard(next, next.firstKey());
      return;
    }
    const previous = this.tree.lower(firstKey)?.value;
    if (previous !== undefined && previous.fits(block.rowCount, block.varPayloadBytes)) {
      previous.appendBlock(block);
      this.touched.add(previous);
      this.discard(block, firstKey);
    }
  }

  /** Takes a block out of the tree (registered under treeKey) and the BlockSpace. */
  private discard(block: RowBlock, treeKey: RowKey): void {
    assert(this.tree.delete(treeKey), 'discarded block not in the tree');
    this.touched.delete(block);
    this.unplace(block);
  }

  private unplace(block: RowBlock): void {
    if (block.blockId !== undefined) this.space.release(this.owner, block.blockId, block.spaceBytes);
    block.blockId = undefined;
    block.spaceBytes = 0;
  }

  private rekey(block: RowBlock, oldKey: RowKey): void {
    assert(this.tree.delete(oldKey), 'rekeyed block not in the tree');
    this.tree.set(block.firstKey(), block);
  }

  /** The block whose range holds key: the last block starting at or below it, else the first. */
  private blockFor(key: RowKey): RowBlock | undefined {
    return (this.tree.floor(key) ?? this.tree.first())?.value;
  }

  private newBlock(capacityRows?: number): RowBlock {
    return new RowBlock({
      layout: this.layout, containerId: this.containerId, blockSizeBytes: this.blockSizeBytes,
      capacityRows,
    });
  }

  /** Tells the BlockSpace the new size of every block the operation changed. */
  private settleTouched(): void {
    for (const block of this.touched) {
      assert(block.rowCount > 0);
      const usedBytes = block.usedBytes;
      if (block.blockId === undefined) {
        block.blockId = this.space.place(this.owner, usedBytes);
      } else if (usedBytes !== block.spaceBytes) {
        block.blockId = this.space.resize(this.owner, block.blockId,
          { fromBytes: block.spaceBytes, toBytes: usedBytes });
      }
      block.spaceBytes = usedBytes;
    }
    this.touched.clear();
    if (invariants.enabled) this.checkInvariants();
  }

  /** O(rows): the invariants at the top of this file. */
  checkInvariants(): void {
    this.tree.checkInvariants();
    let rowCount = 0;
    let previous: RowBlock | undefined;
    for (const { key, value: block } of this.tree.entries({ direction: 'asc' })) {
      assert(block.rowCount > 0, 'empty block in the tree');
      assert(block.layout === this.layout, 'block of an old layout');
      assert(this.keys.compare(key, block.firstKey()) === 0, 'tree key is not the first key');
      if (previous !== undefined) assert(previous.compareAt(previous.rowCount - 1, key) < 0);
      assert(block.blockId !== undefined && block.spaceBytes === block.usedBytes, 'block not settled');
      block.checkInvariants();
      rowCount += block.rowCount;
      previous = block;
    }
    assert(rowCount === this.rowCount, 'row count drift');
  }
}

function sumRange(values: Float64Array | undefined, from: number, to: number): number {
  if (values === undefined) return 0;
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i]!;
  return sum;
}
