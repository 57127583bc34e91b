// A row block: the committed rows of ONE container for one key range, sorted by row key (by rowId
// in a keyless collection), in a columnar (PAX) layout: one typed array per fixed-size column, one
// JS array per variable-length column, and a null map per nullable column (row-block-column.ts).
//
// A block is full when its encoded image (block-format.ts) would exceed blockSizeBytes; usedBytes
// is exact and O(1) (row-block-layout.ts). Typed arrays start small and double up to the most rows
// an image can hold, so thousands of tiny containers do not each pin a full block of memory; all of
// a block's typed arrays share one ArrayBuffer (ColumnSlab), one allocation per block and growth.
//
// Keys are strictly increasing within a block. The block knows nothing of its neighbours: RowStore
// keeps blocks disjoint and ordered, and decides where rows go.

import { assert } from '../base/assert.ts';
import type { BlockId, ContainerId } from '../base/ids.ts';
import type { KeyValue, Row, RowKey, Value } from '../schema/column-type.ts';
import { compareKeyValues } from '../schema/row-key.ts';
import type { StoredValue } from './large-value.ts';
import {
  columnAllocate, columnAppendColumn, columnAppendRows, columnGet, columnGrow, columnMoveTail,
  columnReadInto, columnRemoveRow, columnSet, columnVector, ColumnSlab,
  type ColumnData, type ColumnVector, type StoredRow,
} from './row-block-column.ts';
import {
  columnMergeOpenSlots, columnMergeWrite, type ColumnMergePlan,
} from './row-block-column-merge.ts';
import {
  rowBlockRowCountFit, rowBlockUsedBytes, varPayloadBytes as varPayloadBytesOf, type BlockLayout,
} from './row-block-layout.ts';

const ROW_CAPACITY_INITIAL = 16;

export interface RowBlockOptions {
  layout: BlockLayout;
  containerId: ContainerId;
  blockSizeBytes: number;
  /** Rows to allocate room for up front; grows by doubling as rows arrive. */
  capacityRows?: number;
}

export class RowBlock {
  layout: BlockLayout;
  readonly containerId: ContainerId;
  readonly blockSizeBytes: number;
  /** The physical block the BlockSpace placed this row block in; undefined until placed. */
  blockId: BlockId | undefined = undefined;
  /** The usedBytes the BlockSpace last accounted for this block. */
  spaceBytes = 0;
  rowCount = 0;
  /** Sum of the bytes after each variable-length value's length prefix. */
  varPayloadBytes = 0;
  /** Keyless collections only: each row's rowId, increasing. */
  rowIds: Float64Array | undefined;
  columns: ColumnData[];
  private capacityRows: number;
  /** The most rows an image can hold (every variable-length value empty). */
  private rowCountMax: number;
  /**
   * Set while the rows are evicted (buffer-pool.ts): then only the fields above and the first key
   * remain, and the rows come back from the block's image (reload).
   */
  private evictedFirstKey: RowKey | undefined = undefined;

  constructor(options: RowBlockOptions) {
    const { layout, blockSizeBytes } = options;
    this.layout = layout;
    this.containerId = options.containerId;
    this.blockSizeBytes = blockSizeBytes;
    this.rowCountMax = rowBlockRowCountFit(layout, blockSizeBytes, 0);
    assert(this.rowCountMax >= 1);
    const capacityRows = options.capacityRows ?? ROW_CAPACITY_INITIAL;
    this.capacityRows = Math.max(1, Math.min(capacityRows, this.rowCountMax));
    const slab = new ColumnSlab(layout.columns, this.capacityRows, { rowIds: layout.keyless });
    this.rowIds = layout.keyless
      ? (slab.take('f64', this.capacityRows) as Float64Array)
      : undefined;
    this.columns = layout.columns.map((column) => columnAllocate(column, this.capacityRows, slab));
  }

  /** Are the rows in memory? */
  get resident(): boolean {
    return this.evictedFirstKey === undefined;
  }

  /** Drops the rows, whose image is on disk; keeps the counts, the layout and the first key. */
  evict(): void {
    assert(this.resident && this.rowCount > 0);
    const firstKey = this.firstKey();
    this.columns = [];
    this.rowIds = undefined;
    this.capacityRows = 0;
    this.evictedFirstKey = firstKey;
  }

  /** Takes the rows back from `decoded`, this block decoded from its image on disk. */
  reload(decoded: RowBlock): void {
    assert(!this.resident, 'reloading a resident block');
    assert(decoded.layout === this.layout, 'block image of another layout');
    assert(decoded.rowCount === this.rowCount && decoded.varPayloadBytes === this.varPayloadBytes,
      'block image differs from the evicted block');
    this.columns = decoded.columns;
    this.rowIds = decoded.rowIds;
    this.capacityRows = decoded.capacityRows;
    this.evictedFirstKey = undefined;
  }

  get usedBytes(): number {
    return rowBlockUsedBytes(this.layout, this.rowCount, this.varPayloadBytes);
  }

  /** Would `rowCount` more rows carrying payloadBytes of variable-length data still fit? */
  fits(rowCount: number, payloadBytes: number): boolean {
    const usedBytes = rowBlockUsedBytes(
      this.layout, this.rowCount + rowCount, this.varPayloadBytes + payloadBytes);
    return usedBytes <= this.blockSizeBytes;
  }

  /** How many of rows[from, to) fit at the end; payloadBytes[i] is row i's (none: fixed only). */
  appendCountFit(
    range: { from: number; to: number }, payloadBytes: Float64Array | undefined,
  ): number {
    const { from, to } = range;
    if (payloadBytes === undefined) {
      const fit = rowBlockRowCountFit(this.layout, this.blockSizeBytes, this.varPayloadBytes);
      return Math.max(0, Math.min(to - from, fit - this.rowCount));
    }
    let count = 0;
    let bytes = 0;
    while (from + count < to && this.fits(count + 1, bytes + payloadBytes[from + count]!)) {
      bytes += payloadBytes[from + count]!;
      count++;
    }
    return count;
  }

  /** Appends rows[from, to); the caller checked that they fit and their keys follow the last. */
  appendRows(
    rows: readonly StoredRow[], range: { from: number; to: number },
    extra: { payloadBytes: number; rowIdFirst?: number },
  ): void {
    const { from, to } = range;
    const count = to - from;
    assert(count >= 0);
    assert(this.fits(count, extra.payloadBytes));
    this.reserve(this.rowCount + count);
    const at = this.rowCount;
    const columns = this.layout.columns;
    for (let c = 0; c < columns.length; c++) {
      columnAppendRows(columns[c]!, this.columns[c]!, c, rows, { from, to, at });
    }
    if (this.rowIds !== undefined) {
      assert(extra.rowIdFirst !== undefined);
      for (let i = 0; i < count; i++) this.rowIds[at + i] = extra.rowIdFirst + i;
    }
    this.rowCount += count;
    this.varPayloadBytes += extra.payloadBytes;
  }

  /**
   * Merges sorted rows[from, to) into this block in one pass per column, as the plan says
   * (row-block-column-merge.ts); it fills in plan.targets. runPayloadBytes is the variable-length
   * payload of those rows; the caller checked that the merged block fits.
   */
  mergeRows(rows: readonly StoredRow[], plan: ColumnMergePlan, runPayloadBytes: number): void {
    assert(!this.layout.keyless, 'keyless collections only append');
    const { from, to, positions, replaces, targets } = plan;
    assert(from < to);
    assert(targets.length >= to);
    let insertCount = 0;
    let replacedPayloadBytes = 0;
    for (let k = from; k < to; k++) {
      const position = positions[k]!;
      assert(position >= (k === from ? 0 : positions[k - 1]! + replaces[k - 1]!));
      assert(position + replaces[k]! <= this.rowCount);
      targets[k] = position + insertCount;
      if (replaces[k] === 1) replacedPayloadBytes += this.rowPayloadBytes(position);
      else insertCount++;
    }
    const payloadBytes = runPayloadBytes - replacedPayloadBytes;
    assert(this.fits(insertCount, payloadBytes));
    this.reserve(this.rowCount + insertCount);
    const columns = this.layout.columns;
    for (let c = 0; c < columns.length; c++) {
      columnMergeOpenSlots(columns[c]!, this.columns[c]!, plan, this.rowCount);
      columnMergeWrite(columns[c]!, this.columns[c]!, c, rows, plan);
    }
    this.rowCount += insertCount;
    this.varPayloadBytes += payloadBytes;
  }

  removeRow(index: number): void {
    assert(index >= 0 && index < this.rowCount);
    this.varPayloadBytes -= this.rowPayloadBytes(index);
    const columns = this.layout.columns;
    for (let c = 0; c < columns.length; c++) {
      columnRemoveRow(columns[c]!, this.columns[c]!, index, this.rowCount);
    }
    if (this.rowIds !== undefined) this.rowIds.copyWithin(index, index + 1, this.rowCount);
    this.rowCount--;
    assert(this.varPayloadBytes >= 0);
  }

  /** Moves rows [index, rowCount) into a new block and returns it (the upper key range). */
  splitAt(index: number): RowBlock {
    assert(index > 0 && index < this.rowCount);
    const tailCount = this.rowCount - index;
    const tail = new RowBlock({
      layout: this.layout, containerId: this.containerId, blockSizeBytes: this.blockSizeBytes,
      capacityRows: tailCount * 2,
    });
    // Past rowCountMax only when this block is over its size after addColumn; splits follow.
    if (tailCount > tail.capacityRows) tail.resizeCapacity(tailCount);
    const tailPayloadBytes = this.rangePayloadBytes(index, this.rowCount);
    const range = { from: index, rowCount: this.rowCount };
    this.layout.columns.forEach((column, c) => {
      columnMoveTail(column, this.columns[c]!, range, tail.columns[c]!);
    });
    if (this.rowIds !== undefined) tail.rowIds!.set(this.rowIds.subarray(index, this.rowCount));
    tail.rowCount = tailCount;
    tail.varPayloadBytes = tailPayloadBytes;
    this.rowCount = index;
    this.varPayloadBytes -= tailPayloadBytes;
    return tail;
  }

  /** Appends every row of `next` (whose keys all follow ours); the caller then discards `next`. */
  appendBlock(next: RowBlock): void {
    assert(next.layout === this.layout);
    assert(this.fits(next.rowCount, next.varPayloadBytes));
    this.reserve(this.rowCount + next.rowCount);
    const columns = this.layout.columns;
    for (let c = 0; c < columns.length; c++) {
      columnAppendColumn(columns[c]!, this.columns[c]!, this.rowCount,
        { data: next.columns[c]!, from: 0, count: next.rowCount });
    }
    if (this.rowIds !== undefined) {
      this.rowIds.set(next.rowIds!.subarray(0, next.rowCount), this.rowCount);
    }
    this.rowCount += next.rowCount;
    this.varPayloadBytes += next.varPayloadBytes;
  }

  readRow(index: number): Row {
    assert(index >= 0 && index < this.rowCount);
    const columns = this.layout.columns;
    const row: Row = new Array(columns.length);
    for (let c = 0; c < columns.length; c++) {
      row[c] = columnGet(columns[c]!, this.columns[c]!, index);
    }
    return row;
  }

  /** Appends rows [start, end) to `rows` as Row arrays, in key order or reversed. */
  readRows(range: { start: number; end: number; descending: boolean }, rows: Row[]): void {
    const { start, end, descending } = range;
    assert(start >= 0 && start <= end && end <= this.rowCount);
    const columns = this.layout.columns;
    const base = rows.length;
    for (let i = start; i < end; i++) rows.push(new Array<Value>(columns.length));
    for (let c = 0; c < columns.length; c++) {
      columnReadInto(columns[c]!, this.columns[c]!, c, rows, { start, end, base, descending });
    }
  }

  /** Views of rows [start, end): typed subarrays for fixed columns (zero-copy). */
  vectors(
    range: { start: number; end: number }, columnIndexes?: readonly number[],
  ): ColumnVector[] {
    const { start, end } = range;
    assert(start >= 0 && start <= end && end <= this.rowCount);
    const columns = this.layout.columns;
    if (columnIndexes === undefined) {
      return columns.map((column, c) => columnVector(column, this.columns[c]!, start, end));
    }
    return columnIndexes.map((c) => columnVector(columns[c]!, this.columns[c]!, start, end));
  }

  /** The key of row index: its rowId in a keyless collection. */
  keyAt(index: number): RowKey {
    assert(index >= 0 && index < this.rowCount);
    if (this.rowIds !== undefined) return this.rowIds[index]!;
    if (this.layout.keyColumnCount === 1) return this.columns[0]!.values[index] as KeyValue;
    const key: KeyValue[] = [];
    for (let c = 0; c < this.layout.keyColumnCount; c++) {
      key.push(this.columns[c]!.values[index] as KeyValue);
    }
    return key;
  }

  firstKey(): RowKey {
    return this.evictedFirstKey ?? this.keyAt(0);
  }

  lastKey(): RowKey {
    return this.keyAt(this.rowCount - 1);
  }

  /** Index of the row with this key, or -(insertion index) - 1 when absent. */
  search(key: RowKey): number {
    const index = this.lowerBound(key);
    if (index < this.rowCount && this.compareAt(index, key) === 0) return index;
    return -index - 1;
  }

  /** First index whose key is >= key; `low` when the caller knows no earlier row qualifies. */
  lowerBound(key: RowKey, low = 0): number {
    assert(low >= 0 && low <= this.rowCount);
    let high = this.rowCount;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compareAt(mid, key) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** First index whose key is > key. */
  upperBound(key: RowKey): number {
    let low = 0;
    let high = this.rowCount;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compareAt(mid, key) <= 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Orders row index's key against a normalised key. */
  compareAt(index: number, key: RowKey): number {
    if (this.rowIds !== undefined) return compareKeyValues(this.rowIds[index]!, key as number);
    const keyCount = this.layout.keyColumnCount;
    if (keyCount === 1) {
      return compareKeyValues(this.columns[0]!.values[index] as KeyValue, key as KeyValue);
    }
    const parts = key as KeyValue[];
    for (let c = 0; c < keyCount; c++) {
      const order = compareKeyValues(this.columns[c]!.values[index] as KeyValue, parts[c]!);
      if (order !== 0) return order;
    }
    return 0;
  }

  /**
   * Adds the columns a new layout has beyond ours, every row getting `values[i]` for new column i.
   * The block may then be over its size; the caller splits it.
   */
  addColumns(layout: BlockLayout, values: readonly Value[]): void {
    const oldCount = this.layout.columns.length;
    assert(layout.columns.length === oldCount + values.length);
    for (let i = 0; i < values.length; i++) {
      const column = layout.columns[oldCount + i]!;
      const slab = new ColumnSlab([column], this.capacityRows, { rowIds: false });
      const data = columnAllocate(column, this.capacityRows, slab);
      if (column.jsArray) for (let r = 0; r < this.rowCount; r++) (data.values as Row).push(null);
      for (let r = 0; r < this.rowCount; r++) columnSet(column, data, r, values[i]!);
      this.columns.push(data);
      if (column.storage === 'var') {
        this.varPayloadBytes += this.rowCount * varPayloadBytesOf(column, values[i]!);
      }
    }
    this.relayout(layout);
  }

  /** Takes a layout of the same columns (a renamed column) or with columns added by addColumns. */
  relayout(layout: BlockLayout): void {
    assert(layout.columns.length === this.columns.length);
    assert(layout.keyless === this.layout.keyless);
    this.layout = layout;
    this.rowCountMax = rowBlockRowCountFit(layout, this.blockSizeBytes, 0);
    assert(this.rowCountMax >= 1);
  }

  /** Payload bytes of rows [start, end). */
  rangePayloadBytes(start: number, end: number): number {
    let bytes = 0;
    for (const c of this.layout.varColumnIndexes) {
      const column = this.layout.columns[c]!;
      const values = this.columns[c]!.values as StoredValue[];
      for (let i = start; i < end; i++) bytes += varPayloadBytesOf(column, values[i] ?? null);
    }
    return bytes;
  }

  rowPayloadBytes(index: number): number {
    if (this.layout.varColumnIndexes.length === 0) return 0;
    return this.rangePayloadBytes(index, index + 1);
  }

  private reserve(rowCount: number): void {
    if (rowCount <= this.capacityRows) return;
    assert(rowCount <= this.rowCountMax);
    let capacityRows = this.capacityRows;
    while (capacityRows < rowCount) capacityRows *= 2;
    this.resizeCapacity(Math.min(capacityRows, this.rowCountMax));
  }

  private resizeCapacity(capacityRows: number): void {
    assert(capacityRows >= this.rowCount);
    const columns = this.layout.columns;
    const slab = new ColumnSlab(columns, capacityRows, { rowIds: this.rowIds !== undefined });
    if (this.rowIds !== undefined) {
      const grown = slab.take('f64', capacityRows) as Float64Array;
      grown.set(this.rowIds.subarray(0, this.rowCount));
      this.rowIds = grown;
    }
    const sizes = { rowCount: this.rowCount, capacityRows };
    for (let c = 0; c < columns.length; c++) columnGrow(columns[c]!, this.columns[c]!, sizes, slab);
    this.capacityRows = capacityRows;
  }

  /** O(n): keys strictly increasing, size within the block, payload exact, NULL slots zero. */
  checkInvariants(): void {
    if (!this.resident) {
      assert(this.columns.length === 0 && this.rowIds === undefined, 'evicted block holds rows');
      return;
    }
    assert(this.usedBytes <= this.blockSizeBytes, 'row block over its size');
    const payloadBytes = this.rangePayloadBytes(0, this.rowCount);
    assert(payloadBytes === this.varPayloadBytes, 'payload bytes drift');
    this.layout.columns.forEach((column, c) => {
      const { values, nulls } = this.columns[c]!;
      if (column.jsArray) assert(values.length === this.rowCount, 'JS array column length drift');
      for (let i = 0; nulls !== undefined && i < this.rowCount; i++) {
        if (nulls[i] !== 1) continue;
        if (column.jsArray) assert(values[i] === null, 'NULL slot not null');
        else assert(Number(values[i]) === 0, 'NULL slot not zero');
      }
    });
    for (let i = 1; i < this.rowCount; i++) {
      assert(this.compareAt(i - 1, this.keyAt(i)) < 0, `row block keys not increasing at ${i}`);
    }
  }
}
