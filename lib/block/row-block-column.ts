// One column of a row block in memory: a typed array (fixed-size types) or a JS array (strings,
// BLOBs, arrays), plus a null map when the column is nullable. The null map keeps one byte per row
// (1 = NULL) so that scans can hand out subarray views at any row offset; the block image packs it
// into bits.
//
// Invariants, for rows [0, rowCount): a NULL has nulls[i] === 1 and a zero fixed slot (0, 0n) or a
// null var slot, so images are deterministic; JS arrays ('var', 'i96') have length rowCount
// exactly; typed arrays have length >= rowCount (the rest is spare capacity). Mutable values
// (BLOBs, arrays) are copied on the way in, so a block never aliases a caller's buffer; values read
// out are shared and read-only. A 'var' slot may hold a LargeValue (large-value.ts) in place of
// its value: reads hand out the value, moves carry the object.

import { assert } from '../base/assert.ts';
import type { Row, Value } from '../schema/column-type.ts';
import { storedValue, type StoredValue } from './large-value.ts';
import {
  STORAGE_BYTES, type ColumnLayout, type FixedValues, type TypedStorage,
} from './row-block-layout.ts';

export interface ColumnData {
  values: FixedValues | StoredValue[];
  nulls: Uint8Array | undefined;
}

/** A column of a scan batch: views into the block for fixed types, a copied slice for the rest. */
export type ColumnVector =
  | {
    readonly kind: 'fixed';
    /** Typed-array view of the block (do not write). BOOL is 0/1; NULL slots hold 0 / 0n. */
    readonly values: FixedValues;
    /** 1 = NULL at that row; undefined when the column is NOT NULL. */
    readonly nulls: Uint8Array | undefined;
  }
  | {
    readonly kind: 'var';
    /** Strings, BLOBs, arrays or TIMESTAMP(ns) bigints (shared: read-only), null for NULL. */
    readonly values: readonly Value[];
    readonly nulls: Uint8Array | undefined;
  };

/**
 * One ArrayBuffer for all typed arrays of a block (values, null maps, rowIds): one allocation per
 * block rather than one per column, which is most of the cost of starting a block during ingest.
 * Views start at multiples of 8 bytes, as Float64Array and BigInt64Array need.
 */
export class ColumnSlab {
  private readonly buffer: ArrayBuffer;
  private offsetBytes = 0;

  constructor(
    columns: readonly ColumnLayout[], capacityRows: number, options: { rowIds: boolean },
  ) {
    this.buffer = new ArrayBuffer(columnSlabBytes(columns, capacityRows, options));
  }

  take(storage: TypedStorage, length: number): FixedValues {
    const sizeBytes = align8(length * STORAGE_BYTES[storage]);
    assert(this.offsetBytes + sizeBytes <= this.buffer.byteLength, 'slab overrun');
    const at = this.offsetBytes;
    this.offsetBytes += sizeBytes;
    switch (storage) {
      case 'f64': return new Float64Array(this.buffer, at, length);
      case 'f32': return new Float32Array(this.buffer, at, length);
      case 'i32': return new Int32Array(this.buffer, at, length);
      case 'i16': return new Int16Array(this.buffer, at, length);
      case 'i8': return new Int8Array(this.buffer, at, length);
      case 'u8': return new Uint8Array(this.buffer, at, length);
      case 'i64': return new BigInt64Array(this.buffer, at, length);
    }
  }
}

const align8 = (sizeBytes: number) => Math.ceil(sizeBytes / 8) * 8;

function columnSlabBytes(
  columns: readonly ColumnLayout[], capacityRows: number, options: { rowIds: boolean },
): number {
  let sizeBytes = options.rowIds ? capacityRows * 8 : 0;
  for (const column of columns) {
    if (column.nullable) sizeBytes += align8(capacityRows);
    if (!column.jsArray) sizeBytes += align8(capacityRows * column.slotBytes);
  }
  return sizeBytes;
}

export function columnAllocate(
  column: ColumnLayout, capacityRows: number, slab: ColumnSlab,
): ColumnData {
  const nulls = column.nullable ? (slab.take('u8', capacityRows) as Uint8Array) : undefined;
  if (column.storage === 'var' || column.storage === 'i96') return { values: [], nulls };
  return { values: slab.take(column.storage, capacityRows), nulls };
}

/** Moves typed arrays to a slab of capacityRows, keeping the first rowCount rows. */
export function columnGrow(
  column: ColumnLayout, data: ColumnData, sizes: { rowCount: number; capacityRows: number },
  slab: ColumnSlab,
): void {
  const { rowCount, capacityRows } = sizes;
  assert(capacityRows >= rowCount);
  const grown = columnAllocate(column, capacityRows, slab);
  if (data.nulls !== undefined) grown.nulls!.set(data.nulls.subarray(0, rowCount));
  data.nulls = grown.nulls;
  if (column.storage === 'var' || column.storage === 'i96') return;
  (grown.values as Float64Array).set((data.values as Float64Array).subarray(0, rowCount));
  data.values = grown.values;
}

/**
 * Copies a BLOB or an array so the block never shares a caller's mutable object. A LargeValue is
 * the store's own (RowStore copied its value when it made it) and moves as it is.
 */
export function ownedValue(value: StoredValue): StoredValue {
  if (value instanceof Uint8Array) return value.slice();
  if (Array.isArray(value)) return value.slice() as Value;
  return value;
}

export function columnGet(column: ColumnLayout, data: ColumnData, index: number): Value {
  if (data.nulls !== undefined && data.nulls[index] === 1) return null;
  const value = data.values[index];
  assert(value !== undefined);
  if (column.storage === 'u8') return value === 1;
  return column.jsArray ? storedValue(value as StoredValue) : (value as Value);
}

/** Stores one value at index (which must already exist: rowCount > index). */
export function columnSet(
  column: ColumnLayout, data: ColumnData, index: number, value: StoredValue,
): void {
  const isNull = value === null;
  if (isNull) assert(data.nulls !== undefined, 'NULL in a NOT NULL column');
  if (data.nulls !== undefined) data.nulls[index] = isNull ? 1 : 0;
  switch (column.storage) {
    case 'var': case 'i96':
      (data.values as StoredValue[])[index] = isNull ? null : ownedValue(value);
      return;
    case 'u8': (data.values as Uint8Array)[index] = value === true ? 1 : 0; return;
    case 'i64': (data.values as BigInt64Array)[index] = isNull ? 0n : (value as bigint); return;
    default: (data.values as Float64Array)[index] = isNull ? 0 : (value as number);
  }
}

/** Rows on their way into a block: values, or LargeValues RowStore put in their place. */
export type StoredRow = readonly StoredValue[];

/**
 * The ingest hot path: stores column `columnIndex` of rows[from, to) at rows [at, ...). Column by
 * column, so each loop stores into one typed array with one element kind.
 */
export function columnAppendRows(
  column: ColumnLayout, data: ColumnData, columnIndex: number,
  rows: readonly StoredRow[], range: { from: number; to: number; at: number },
): void {
  const { from, to, at } = range;
  const nulls = data.nulls;
  if (column.jsArray) {
    const values = data.values as StoredValue[];
    assert(values.length === at);
    for (let r = from; r < to; r++) {
      const value = rows[r]![columnIndex]!;
      values.push(value === null ? null : ownedValue(value));
      if (nulls !== undefined) nulls[at + r - from] = value === null ? 1 : 0;
    }
    return;
  }
  if (column.storage === 'i64') {
    const values = data.values as BigInt64Array;
    for (let r = from, i = at; r < to; r++, i++) {
      const value = rows[r]![columnIndex] as bigint | null;
      if (nulls !== undefined) nulls[i] = value === null ? 1 : 0;
      values[i] = value === null ? 0n : value;
    }
    return;
  }
  if (column.storage === 'u8') {
    const values = data.values as Uint8Array;
    for (let r = from, i = at; r < to; r++, i++) {
      const value = rows[r]![columnIndex];
      if (nulls !== undefined) nulls[i] = value === null ? 1 : 0;
      values[i] = value === true ? 1 : 0;
    }
    return;
  }
  columnAppendNumbers(data.values as Float64Array, nulls, columnIndex, rows, range);
}

function columnAppendNumbers(
  values: Float64Array, nulls: Uint8Array | undefined, columnIndex: number,
  rows: readonly StoredRow[], { from, to, at }: { from: number; to: number; at: number },
): void {
  if (nulls === undefined) {
    for (let r = from, i = at; r < to; r++, i++) values[i] = rows[r]![columnIndex] as number;
    return;
  }
  for (let r = from, i = at; r < to; r++, i++) {
    const value = rows[r]![columnIndex] as number | null;
    if (value === null) {
      nulls[i] = 1;
      values[i] = 0;
    } else {
      nulls[i] = 0;
      values[i] = value;
    }
  }
}

/**
 * Materialises column c of rows [start, end) into rows[base + i] (descending: from the end), column
 * by column so each loop reads one array of one element kind.
 */
export function columnReadInto(
  column: ColumnLayout, data: ColumnData, c: number,
  rows: Row[], range: { start: number; end: number; base: number; descending: boolean },
): void {
  const { start, end, base, descending } = range;
  const nulls = data.nulls;
  const values = data.values;
  const last = base + end - start - 1;
  const step = descending ? -1 : 1;
  if (column.jsArray) {
    const stored = values as StoredValue[];
    for (let i = start, r = descending ? last : base; i < end; i++, r += step) {
      rows[r]![c] = storedValue(stored[i]!);
    }
    return;
  }
  const bool = column.storage === 'u8';
  for (let i = start, r = descending ? last : base; i < end; i++, r += step) {
    const row = rows[r]!;
    if (nulls !== undefined && nulls[i] === 1) row[c] = null;
    else row[c] = bool ? values[i] === 1 : (values[i] as number | bigint);
  }
}

/** Removes row index by shifting rows (index, rowCount) down. */
export function columnRemoveRow(
  column: ColumnLayout, data: ColumnData, index: number, rowCount: number,
): void {
  assert(index < rowCount);
  if (data.nulls !== undefined) data.nulls.copyWithin(index, index + 1, rowCount);
  if (column.jsArray) (data.values as StoredValue[]).splice(index, 1);
  else (data.values as Float64Array).copyWithin(index, index + 1, rowCount);
}

/** Moves rows [from, rowCount) of data to the empty column tail; data keeps rows [0, from). */
export function columnMoveTail(
  column: ColumnLayout, data: ColumnData, range: { from: number; rowCount: number },
  tail: ColumnData,
): void {
  const { from, rowCount } = range;
  if (data.nulls !== undefined) tail.nulls!.set(data.nulls.subarray(from, rowCount));
  if (column.jsArray) {
    assert((tail.values as StoredValue[]).length === 0);
    tail.values = (data.values as StoredValue[]).splice(from, rowCount - from);
  } else {
    (tail.values as Float64Array).set((data.values as Float64Array).subarray(from, rowCount));
  }
}

/** Appends count rows of source (from sourceFrom) after the target's first targetCount rows. */
export function columnAppendColumn(
  column: ColumnLayout, target: ColumnData, targetCount: number,
  source: { data: ColumnData; from: number; count: number },
): void {
  const { data, from, count } = source;
  if (target.nulls !== undefined) {
    target.nulls.set(data.nulls!.subarray(from, from + count), targetCount);
  }
  if (column.jsArray) {
    const values = target.values as StoredValue[];
    assert(values.length === targetCount);
    for (let i = from; i < from + count; i++) values.push((data.values as StoredValue[])[i]!);
  } else {
    (target.values as Float64Array).set(
      (data.values as Float64Array).subarray(from, from + count), targetCount);
  }
}

export function columnVector(
  column: ColumnLayout, data: ColumnData, start: number, end: number,
): ColumnVector {
  const nulls = data.nulls?.subarray(start, end);
  if (column.jsArray) {
    const stored = data.values as StoredValue[];
    const values: Value[] = new Array<Value>(end - start);
    for (let i = start; i < end; i++) values[i - start] = storedValue(stored[i]!);
    return { kind: 'var', values, nulls };
  }
  return { kind: 'fixed', values: (data.values as Float64Array).subarray(start, end), nulls };
}
