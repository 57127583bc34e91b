// Point reads from a row block image (block-format.ts draws the bytes) without decoding it whole.
// A get that finds its private block evicted reads the block's image back and keeps only that
// (BlockSpace.useForRead): the row asked for is read out of the image, where a full decode would
// allocate the block's columns and copy every row of every column.
//
// Opening locates the column regions once: a fixed column's by arithmetic, a variable-length
// column's by walking its length prefixes (recording each row's offset). Row i of a fixed column
// is then one read at start + i × slotBytes, of a variable-length column one read at its offset.
//
// Opening checks what decodeRowBlock checks of the header (magic, version, checksum, kind, column
// count, keylessness) and that the regions end exactly at usedBytes; every value read is checked
// as decodeRowBlock checks it (BOOL bytes, a NULL's empty payload, an array's length, a
// large-value reference). Key order is not checked (it is O(rows)): the checksum covers it, and
// the full decode that a change or a scan of the block goes through checks it as before.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { BlockId, ContainerId } from '../base/ids.ts';
import type { KeyValue, Row, RowKey, Value } from '../schema/column-type.ts';
import { compareKeyValues } from '../schema/row-key.ts';
import { BLOCK_KIND_ROW, rowBlockImageHeader } from './block-format.ts';
import {
  blockFormatReadVarValue, BlockFormatReader, getInt96,
} from './block-format-column.ts';
import { LARGE_VALUE_REF_BYTES, storedValue, type LargeValueResolver } from './large-value.ts';
import {
  ROW_ID_BYTES, STORAGE_BYTES, VAR_LENGTH_LARGE_FLAG, VAR_LENGTH_UTF16_FLAG,
  type BlockLayout, type ColumnLayout,
} from './row-block-layout.ts';

/** A length prefix without its flags: the payload bytes that follow it. */
const VAR_LENGTH_BYTES_MASK = ~(VAR_LENGTH_UTF16_FLAG | VAR_LENGTH_LARGE_FLAG) >>> 0;

/** What a point read needs of a row block or of its image. */
export interface RowPointReader {
  /** Index of the row with this normalised key, or -(insertion index) - 1 when absent. */
  search(key: RowKey): number;
  readRow(index: number): Row;
}

export interface RowBlockImageOptions {
  /** The size of the block the image is of. */
  blockSizeBytes: number;
  blockId?: BlockId | undefined;
  /** As decodeRowBlock's: reads a large value's chain (BlockSpace: the value in memory). */
  resolveLargeValue?: LargeValueResolver | undefined;
}

/** A row block image opened for point reads. It reads `bytes` in place: do not reuse them. */
export class RowBlockImage implements RowPointReader {
  readonly containerId: ContainerId;
  readonly rowCount: number;
  readonly usedBytes: number;
  readonly bytes: Uint8Array;
  private readonly layout: BlockLayout;
  private readonly view: DataView;
  private readonly reader: BlockFormatReader;
  /** Offset of the rowIds (keyless), else -1. */
  private readonly rowIdsStart: number;
  /** Per column: offset of its null bitmap, or -1 when it is NOT NULL. */
  private readonly nullStarts: Int32Array;
  /** Per column: offset of its first value (fixed columns; -1 for variable-length ones). */
  private readonly valueStarts: Int32Array;
  /** Per variable-length column: each row's offset (its length prefix). */
  private readonly varOffsets: Array<Uint32Array | undefined>;

  constructor(layout: BlockLayout, bytes: Uint8Array, options: RowBlockImageOptions) {
    const header = rowBlockImageHeader(bytes, options.blockId);
    // The name is built only on failure: opening is on the path of every point-read miss.
    const fail = (problem: string) => new StorageError('CORRUPTION',
      `block ${options.blockId ?? header.blockId} of container ${header.containerId}: ${problem}`);
    if (header.kind !== BLOCK_KIND_ROW) throw fail(`kind ${header.kind} is not a row block`);
    if (header.columnCount !== layout.columns.length || header.keyless !== layout.keyless) {
      throw fail(`${header.columnCount} columns do not match schema ${layout.schema.name}`);
    }
    this.layout = layout;
    this.bytes = bytes;
    this.containerId = header.containerId;
    this.rowCount = header.rowCount;
    this.usedBytes = header.usedBytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.reader = new BlockFormatReader(bytes, header.usedBytes, fail, {
      resolveLargeValue: options.resolveLargeValue, blockSizeBytes: options.blockSizeBytes,
    });
    const columnCount = layout.columns.length;
    this.nullStarts = new Int32Array(columnCount).fill(-1);
    this.valueStarts = new Int32Array(columnCount).fill(-1);
    this.varOffsets = new Array<Uint32Array | undefined>(columnCount);
    this.rowIdsStart = layout.keyless ? this.reader.take(this.rowCount * ROW_ID_BYTES) : -1;
    for (let c = 0; c < columnCount; c++) this.locateColumn(c);
    if (this.reader.offset !== header.usedBytes) {
      throw fail(`body is ${this.reader.offset} bytes, header says ${header.usedBytes}`);
    }
  }

  /** Moves the reader past column c's region, noting where its parts are. */
  private locateColumn(c: number): void {
    const column = this.layout.columns[c]!;
    const reader = this.reader;
    const rowCount = this.rowCount;
    if (column.nullable) this.nullStarts[c] = reader.take(Math.ceil(rowCount / 8));
    if (column.storage !== 'var') {
      this.valueStarts[c] = reader.take(rowCount * STORAGE_BYTES[column.storage]);
      return;
    }
    const offsets = new Uint32Array(rowCount);
    for (let i = 0; i < rowCount; i++) {
      offsets[i] = reader.offset;
      const prefix = reader.u32();
      reader.take((prefix & VAR_LENGTH_LARGE_FLAG) !== 0
        ? LARGE_VALUE_REF_BYTES : prefix & VAR_LENGTH_BYTES_MASK);
    }
    this.varOffsets[c] = offsets;
  }

  search(key: RowKey): number {
    let low = 0;
    let high = this.rowCount;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.compareAt(mid, key) < 0) low = mid + 1;
      else high = mid;
    }
    if (low < this.rowCount && this.compareAt(low, key) === 0) return low;
    return -low - 1;
  }

  /** Row index as RowBlock.readRow gives it. */
  readRow(index: number): Row {
    this.checkIndex(index);
    const columnCount = this.layout.columns.length;
    const row: Row = new Array(columnCount);
    for (let c = 0; c < columnCount; c++) row[c] = this.valueAt(c, index);
    return row;
  }

  /** The key of row index (its rowId when keyless), as RowBlock.keyAt gives it. */
  keyAt(index: number): RowKey {
    this.checkIndex(index);
    if (this.rowIdsStart >= 0) return this.rowIdAt(index);
    const keyCount = this.layout.keyColumnCount;
    if (keyCount === 1) return this.valueAt(0, index) as KeyValue;
    const key: KeyValue[] = [];
    for (let c = 0; c < keyCount; c++) key.push(this.valueAt(c, index) as KeyValue);
    return key;
  }

  /** Orders row index's key against a normalised key, as RowBlock.compareAt does. */
  compareAt(index: number, key: RowKey): number {
    if (this.rowIdsStart >= 0) return compareKeyValues(this.rowIdAt(index), key as number);
    const keyCount = this.layout.keyColumnCount;
    if (keyCount === 1) {
      return compareKeyValues(this.valueAt(0, index) as KeyValue, key as KeyValue);
    }
    const parts = key as KeyValue[];
    for (let c = 0; c < keyCount; c++) {
      const order = compareKeyValues(this.valueAt(c, index) as KeyValue, parts[c]!);
      if (order !== 0) return order;
    }
    return 0;
  }

  private rowIdAt(index: number): number {
    const rowId = this.view.getFloat64(this.rowIdsStart + index * ROW_ID_BYTES, true);
    if (!Number.isSafeInteger(rowId) || rowId < 0) {
      throw this.reader.fail(`bad rowId at row ${index}`);
    }
    return rowId;
  }

  private checkIndex(index: number): void {
    assert(Number.isInteger(index));
    assert(index >= 0 && index < this.rowCount, `row ${index} outside the image's rows`);
  }

  /** The value of column c at row index, as columnGet gives it (a large value's value). */
  private valueAt(c: number, index: number): Value {
    const column = this.layout.columns[c]!;
    const nullStart = this.nullStarts[c]!;
    const isNull = nullStart >= 0 &&
      ((this.bytes[nullStart + (index >> 3)]! >> (index & 7)) & 1) === 1;
    if (column.storage === 'var') {
      const reader = this.reader;
      reader.offset = this.varOffsets[c]![index]!;
      reader.columnIndex = c;
      return storedValue(blockFormatReadVarValue(reader, column, { isNull, rowIndex: index }));
    }
    const at = this.valueStarts[c]! + index * STORAGE_BYTES[column.storage];
    if (column.storage === 'u8') {
      const byte = this.bytes[at]!;
      if (byte > 1) throw this.reader.fail('bad BOOL value');
      return isNull ? null : byte === 1;
    }
    return isNull ? null : this.fixedValueAt(column, at);
  }

  private fixedValueAt(column: ColumnLayout, at: number): Value {
    const view = this.view;
    switch (column.storage) {
      case 'f64': return view.getFloat64(at, true);
      case 'f32': return view.getFloat32(at, true);
      case 'i32': return view.getInt32(at, true);
      case 'i16': return view.getInt16(at, true);
      case 'i8': return view.getInt8(at);
      case 'i64': return view.getBigInt64(at, true);
      case 'i96': return getInt96(view, at);
      default: assert(false, `${column.storage} is not a fixed storage`);
    }
  }
}
