// RowStore: the committed rows of one container, in row blocks ordered by key (row-store-blocks.ts
// keeps the blocks, their B+tree and their places in the partition's BlockSpace), and its large
// values, kept out of line in blocks of their own (row-store-put.ts says which values,
// large-value-store.ts keeps them).
//
// put appends a batch whose keys ascend past the last row straight into the last block; any other
// batch is sorted once and merged block by block (row-store-merge.ts).
//
// Invariants (checkInvariants, run after every change when invariants are on): those of
// RowStoreBlocks and LargeValueStore, and count() is the sum of the blocks' row counts.
//
// Keyless collections order rows by rowId, a per-container counter: rows only append, and a "key"
// (get, remove, scan bounds) is a rowId. Nothing may change the store while a scan iterates; the
// scan asserts so.
//
// Every public operation begins a buffer-pool operation (buffer-pool.ts): the blocks it uses are
// held until the next one begins. A scan begins one per block, so it holds only the block it is
// reading and scans a container far larger than the pool.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { BlockId, ContainerId } from '../base/ids.ts';
import { invariants } from '../base/invariants.ts';
import { MULTI_PUT_ROW_COUNT_MAX, SCAN_ROW_COUNT_MAX } from '../base/limits.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import type { RowKeyOps } from '../schema/row-key.ts';
import { blockOwnerOf, type BlockKind, type BlockSpace } from './block-space.ts';
import { blockLargeValues, LargeValueStore } from './large-value-store.ts';
import type { RowBlock } from './row-block.ts';
import type { ColumnVector, StoredRow } from './row-block-column.ts';
import { blockLayout, type BlockLayout } from './row-block-layout.ts';
import { RowStoreBlocks } from './row-store-blocks.ts';
import {
  rowStoreMergeSorted, rowStoreSortBatch, type RowStoreMergeContext,
} from './row-store-merge.ts';
import { rowStorePreparePut } from './row-store-put.ts';
import { rowStoreAddColumns, rowStoreRenameColumns } from './row-store-schema.ts';
import {
  rowStoreRanges, type BlockRange, type RowBatch, type RowBatchScanOptions, type RowScanOptions,
} from './row-store-scan.ts';

export type { RowBatch, RowBatchScanOptions, RowScanOptions } from './row-store-scan.ts';

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
  private readonly blocks: RowStoreBlocks;
  private readonly largeValues: LargeValueStore;
  private rowCount = 0;
  private rowIdNext = 0;
  /** +1 on every change; a scan asserts it did not move under it. */
  private changeCount = 0;
  private dropped = false;
  /**
   * Brings a block's rows in for a scan (rowStoreRanges' use). One function for the store's life,
   * not a closure a scan: a look-up join scans once a look-up, and tsx names every closure it
   * creates (an Object.defineProperty each).
   */
  private readonly useBlock = (block: RowBlock): void => {
    this.blocks.beginOperation();
    this.blocks.use(block);
  };

  constructor(options: RowStoreOptions) {
    this.containerId = options.containerId;
    this.blockSizeBytes = options.blockSizeBytes;
    this.schemaCurrent = options.schema;
    this.layout = blockLayout(options.schema);
    this.keys = this.layout.keys;
    const owner = blockOwnerOf(this.containerId, options.schema.dataAffinity);
    this.blocks = new RowStoreBlocks({
      containerId: this.containerId, blockSizeBytes: this.blockSizeBytes, layout: this.layout,
      space: options.space, owner,
    });
    this.largeValues = new LargeValueStore({ space: options.space, owner });
  }

  get schema(): ContainerSchema {
    return this.schemaCurrent;
  }

  /** Keyless collections: the rowId the next appended row gets. */
  get nextRowId(): number {
    return this.rowIdNext;
  }

  /** Row blocks. */
  get blockCount(): number {
    return this.blocks.count;
  }

  /** Values kept out of line. */
  get largeValueCount(): number {
    return this.largeValues.count;
  }

  /** Whole blocks the large values take in the BlockSpace. */
  get largeValueBlockCount(): number {
    return this.largeValues.blockCount;
  }

  /** Sum of the row blocks' encoded sizes: a large value counts its reference, not its chain. */
  get usedBytes(): number {
    let bytes = 0;
    for (const block of this.blocks.outlines()) bytes += block.usedBytes;
    return bytes;
  }

  count(): number {
    return this.rowCount;
  }

  /**
   * Upserts validated rows: a row replaces the row with the same key; a keyless collection appends
   * them with new rowIds. A later row of the batch wins over an earlier one with the same key.
   * Large values go out of line; throws LIMIT_EXCEEDED, changing nothing, when a row's key and
   * fixed part alone are larger than a block.
   */
  put(rows: readonly Row[]): void {
    this.begin();
    assert(rows.length <= MULTI_PUT_ROW_COUNT_MAX);
    if (rows.length === 0) return;
    const prepared = rowStorePreparePut(this.layout, this.blockSizeBytes, rows);
    this.changeCount++;
    const varColumns = this.layout.varColumnIndexes;
    if (this.layout.keyless || this.putInOrder(prepared.rows)) {
      if (prepared.largeValueCount > 0) this.largeValues.placeRows(prepared.rows, varColumns);
      this.appendRows(prepared.rows, prepared.payloadBytes);
    } else {
      const batch = rowStoreSortBatch(prepared.rows, this.keys, prepared.payloadBytes);
      // Rows that lose to a later row of the batch are dropped before their values are placed.
      if (prepared.largeValueCount > 0) this.largeValues.placeRows(batch.rows, varColumns);
      this.rowCount += rowStoreMergeSorted(this.mergeContext(), batch);
    }
    this.settle();
  }

  /** Removes the rows with these keys (rowIds when keyless); returns how many there were. */
  remove(keys: readonly RowKey[]): number {
    this.begin();
    assert(keys.length <= MULTI_PUT_ROW_COUNT_MAX);
    // Every key is checked before any row goes: a bad key changes nothing.
    const normalKeys = keys.map((key) => this.keys.normalizeKey(key));
    this.changeCount++;
    let removedCount = 0;
    for (const key of normalKeys) if (this.removeKey(key)) removedCount++;
    this.blocks.mergeTouched();
    this.settle();
    return removedCount;
  }

  get(key: RowKey): Row | undefined {
    this.begin();
    const normal = this.keys.normalizeKey(key);
    // An evicted block may come back as its image only: one row is read, not the whole block.
    const reader = this.blocks.readerFor(normal);
    if (reader === undefined) return undefined;
    const index = reader.search(normal);
    return index >= 0 ? reader.readRow(index) : undefined;
  }

  has(key: RowKey): boolean {
    this.begin();
    const normal = this.keys.normalizeKey(key);
    const reader = this.blocks.readerFor(normal);
    return reader !== undefined && reader.search(normal) >= 0;
  }

  /**
   * Rows with from <= key <= to, in key order or reversed. Without a limit, a range of more than
   * SCAN_ROW_COUNT_MAX rows is LIMIT_EXCEEDED: page with a key bound, or use scanBatches.
   */
  scan(options: RowScanOptions): Row[] {
    const rows: Row[] = [];
    const descending = options.direction === 'desc';
    for (const { block, start, end } of this.ranges(options, true)) {
      block.readRows({ start, end, descending }, rows);
    }
    return rows;
  }

  /** The zero-copy scan: one batch per block in range; RowBatch says the row order inside one. */
  *scanBatches(options: RowBatchScanOptions): Generator<RowBatch, undefined, undefined> {
    if (options.columnIndexes !== undefined) {
      for (const c of options.columnIndexes) assert(c >= 0 && c < this.layout.columns.length);
    }
    for (const { block, start, end } of this.ranges(options, false)) {
      yield new BlockRowBatch(block, start, end, options.columnIndexes);
    }
  }

  /** Rows with from <= key <= to (either bound optional). */
  rowCountInRange(range: { from?: RowKey; to?: RowKey } = {}): number {
    if (range.from === undefined && range.to === undefined) return this.rowCount;
    let count = 0;
    for (const { start, end } of this.ranges({ ...range, direction: 'asc' }, false)) {
      count += end - start;
    }
    return count;
  }

  /** Applies a schema with columns added at the end: existing rows get NULL or the empty value. */
  addColumn(schema: ContainerSchema): void {
    // Every block is held to the end: a container larger than the pool goes over it meanwhile.
    this.begin();
    this.changeCount++;
    const layout = blockLayout(schema);
    rowStoreAddColumns(this.layout, layout, {
      blocks: [...this.blocks.inOrder()],
      split: (block) => this.blocks.split(block),
      willChange: (block) => this.blocks.willChange(block),
    });
    this.setSchema(schema, layout);
    for (const block of this.blocks.inOrder()) this.blocks.touch(block);
    this.settle();
  }

  /** Applies a schema that renames columns; the rows do not change. */
  renameColumn(schema: ContainerSchema): void {
    this.begin();
    const layout = blockLayout(schema);
    rowStoreRenameColumns(this.layout, layout);
    // The images carry the schema version, so every block changes; one block held at a time.
    for (const block of this.blocks.outlines()) {
      this.blocks.beginOperation();
      this.blocks.use(block);
      this.blocks.willChange(block);
      block.relayout(layout);
    }
    this.setSchema(schema, layout);
  }

  /** Removes every row and gives the blocks back to the BlockSpace. rowIds keep counting. */
  clear(): void {
    this.begin();
    this.changeCount++;
    this.blocks.releaseAll();
    this.largeValues.releaseAll();
    this.rowCount = 0;
  }

  /** clear(), and the store may not be used again. */
  drop(): void {
    this.clear();
    this.dropped = true;
  }

  /**
   * The distinct physical blocks holding this container's data: its row blocks in key order, then
   * its large values' chains.
   */
  blockIds(): BlockId[] {
    const ids = new Set<BlockId>();
    for (const block of this.blocks.outlines()) ids.add(block.blockId!);
    for (const id of this.largeValues.blockIds()) ids.add(id);
    return [...ids];
  }

  /**
   * Adds a block decoded from an image, in key order: its keys must all lie above the rows already
   * here. Without `placed` it is placed anew in this store's BlockSpace, and so are its large
   * values (decodeRowBlock read them through its resolver). With it (recovery,
   * block-space-restore.ts) it keeps its physical block (block.blockId, of placed.kind) and its
   * large values their chains (value.blockIds), and the BlockSpace restores them, clean. A keyless
   * store's next rowId becomes at least the block's last rowId + 1.
   */
  restoreBlock(block: RowBlock, placed?: { kind: BlockKind }): void {
    this.assertOpen();
    assert(block.layout === this.layout, 'restored block decoded with another schema');
    assert(block.containerId === this.containerId);
    assert(block.blockSizeBytes === this.blockSizeBytes);
    assert(block.rowCount > 0);
    const last = this.blocks.last();
    if (last !== undefined) assert(last.compareAt(last.rowCount - 1, block.firstKey()) < 0);
    this.changeCount++;
    const values = blockLargeValues([block]);
    if (placed === undefined) {
      block.blockId = undefined;
      block.spaceBytes = 0;
      this.blocks.register(block);
      for (const value of values) this.largeValues.place(value);
    } else {
      this.blocks.restore(block, placed.kind);
      for (const value of values) this.largeValues.restore(value);
    }
    this.rowCount += block.rowCount;
    if (block.rowIds !== undefined) this.raiseNextRowId(block.rowIds[block.rowCount - 1]! + 1);
    this.settle();
  }

  /**
   * Keyless collections: the next rowId is at least rowId. Recovery derives it from the restored
   * blocks; a caller that kept the exact counter (rows removed from the end, clear) raises it.
   */
  raiseNextRowId(rowId: number): void {
    assert(Number.isSafeInteger(rowId) && rowId >= 0);
    this.rowIdNext = Math.max(this.rowIdNext, rowId);
  }

  /** The row blocks in key order. Do not modify them (a checkpoint encodes through the space). */
  blocksInOrder(): Generator<RowBlock, undefined, undefined> {
    return this.blocks.inOrder();
  }

  /** A public operation begins: it is open, and a new buffer-pool operation starts. */
  private begin(): void {
    this.assertOpen();
    this.blocks.beginOperation();
  }

  private assertOpen(): void {
    assert(!this.dropped, `container ${this.containerId} was dropped`);
  }

  private setSchema(schema: ContainerSchema, layout: BlockLayout): void {
    this.schemaCurrent = schema;
    this.layout = layout;
    this.keys = layout.keys;
    this.blocks.layout = layout;
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
    const scan = { from, to, direction, limit };
    for (const range of rowStoreRanges(this.blocks.tree, this.keys, scan, this.useBlock)) {
      rowCount += range.end - range.start;
      if (materialise && rowCount > SCAN_ROW_COUNT_MAX) {
        throw new StorageError('LIMIT_EXCEEDED',
          `scan of container ${this.containerId} exceeds ${SCAN_ROW_COUNT_MAX} rows; ` +
            'page with a key bound');
      }
      yield range;
      assert(this.changeCount === changeCount, 'row store changed during a scan');
    }
  }

  /** Are the keys strictly increasing and all above the current maximum? Then rows just append. */
  private putInOrder(storedRows: readonly StoredRow[]): boolean {
    // Key columns are never out of line, so a stored row's key is its row's.
    const rows = storedRows as readonly Row[];
    const last = this.blocks.last();
    const keys = this.keys;
    if (last !== undefined && last.compareAt(last.rowCount - 1, keys.keyOf(rows[0]!)) >= 0) {
      return false;
    }
    for (let i = 1; i < rows.length; i++) {
      if (keys.compareRows(rows[i - 1]!, rows[i]!) >= 0) return false;
    }
    return true;
  }

  /** The in-order path: fill the last block, then new ones, without a tree search per row. */
  private appendRows(rows: readonly StoredRow[], payloadBytes: Float64Array | undefined): void {
    const rowIdFirst = this.layout.keyless ? { rowIdFirst: this.rowIdNext } : {};
    this.blocks.appendRun(this.blocks.last(), rows, { from: 0, to: rows.length },
      { payloadBytes, ...rowIdFirst });
    this.rowCount += rows.length;
    if (this.layout.keyless) {
      this.rowIdNext += rows.length;
      assert(Number.isSafeInteger(this.rowIdNext));
    }
  }

  private mergeContext(): RowStoreMergeContext {
    const onReplace = this.largeValues.count === 0 ? undefined
      : (block: RowBlock, index: number) => this.largeValues.releaseRow(block, index);
    return { blocks: this.blocks, keys: this.keys, onReplace };
  }

  private removeKey(key: RowKey): boolean {
    const block = this.blocks.blockFor(key);
    if (block === undefined) return false;
    const index = block.search(key);
    if (index < 0) return false;
    // Before the row's large values go: a snapshot image of the block still names them.
    this.blocks.willChange(block);
    if (this.largeValues.count > 0) this.largeValues.releaseRow(block, index);
    this.blocks.removeAt(block, index);
    this.rowCount--;
    return true;
  }

  private settle(): void {
    this.blocks.settle();
    if (invariants.enabled) this.checkInvariants();
  }

  /** O(rows): the invariants at the top of this file and of row-store-blocks.ts. */
  checkInvariants(): void {
    assert(this.blocks.checkInvariants() === this.rowCount, 'row count drift');
    assert(this.blocks.layout === this.layout);
    this.largeValues.checkInvariants(this.blocks.outlines());
  }
}

/** One block's rows start … end - 1 as a RowBatch: keyAt is a method, not a closure a batch. */
class BlockRowBatch implements RowBatch {
  readonly rowCount: number;
  readonly columns: ColumnVector[];
  readonly rowIds: Float64Array | undefined;
  private readonly block: RowBlock;
  private readonly start: number;

  constructor(block: RowBlock, start: number, end: number, columnIndexes: readonly number[] | undefined) {
    this.block = block;
    this.start = start;
    this.rowCount = end - start;
    this.columns = block.vectors({ start, end }, columnIndexes);
    this.rowIds = block.rowIds?.subarray(start, end);
  }

  keyAt(index: number): RowKey {
    return this.block.keyAt(this.start + index);
  }
}
