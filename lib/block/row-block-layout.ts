// How a schema's columns are laid out in a row block, computed once per schema object, and the
// arithmetic of a block's encoded size. The encoded size (block-format.ts draws the bytes) is:
//
//   ROW_BLOCK_HEADER_BYTES
//   + rowCount × rowFixedBytes                  (rowId f64 when keyless, each fixed value, and a
//                                                u32 length prefix per variable-length value)
//   + nullableColumnCount × ⌈rowCount / 8⌉      (one null bitmap per nullable column)
//   + varPayloadBytes                           (the bytes after each length prefix; for a value
//                                                kept out of line, its LARGE_VALUE_REF_BYTES)
//
// Row blocks keep rowCount and varPayloadBytes up to date, so usedBytes is O(1) and always equals
// what encodeRowBlock writes.

import { assert } from '../base/assert.ts';
import {
  emptyValueOf, type ColumnType, type TimePrecision, type Value,
} from '../schema/column-type.ts';
import type { GeometryValue } from '../geometry/geometry-value.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import { rowKeyOps, type RowKeyOps } from '../schema/row-key.ts';
import {
  LARGE_VALUE_REF_BYTES, LargeValue, LargeValueKind, type StoredValue,
} from './large-value.ts';

/** Magic, version, checksum, kind, flags, column count, owner, block id, rows, used bytes, ... */
export const ROW_BLOCK_HEADER_BYTES = 32;
/** Each variable-length value is prefixed by its byte length (u32; the top bit is a flag). */
export const VAR_LENGTH_PREFIX_BYTES = 4;
/** Keyless collections keep each row's rowId as a float64 (an integer below 2^53). */
export const ROW_ID_BYTES = 8;

/**
 * Where a column's values live in memory. Typed arrays for fixed sizes, except TIMESTAMP(ns): its
 * range (to year 9999, about 2^68 ns) does not fit an int64, so 'i96' keeps bigints in a JS array
 * and 12 bytes a value in the image. 'var' is a JS array of variable-length values.
 */
export type ColumnStorage = 'f64' | 'f32' | 'i32' | 'i16' | 'i8' | 'u8' | 'i64' | 'i96' | 'var';
export type TypedStorage = Exclude<ColumnStorage, 'var' | 'i96'>;

export type FixedValues =
  | Float64Array | Float32Array | Int32Array | Int16Array | Int8Array | Uint8Array | BigInt64Array;

export interface ColumnLayout {
  readonly type: ColumnType;
  readonly array: boolean;
  readonly nullable: boolean;
  /** MILLISECOND timestamps are numbers; MICROSECOND and NANOSECOND ones are bigints. */
  readonly bigintTime: boolean;
  /** TIMESTAMP columns only. */
  readonly timePrecision: TimePrecision | undefined;
  readonly storage: ColumnStorage;
  /** Values in a JS array ('var', 'i96') rather than a typed array. */
  readonly jsArray: boolean;
  /** Bytes of one value in the block image; VAR_LENGTH_PREFIX_BYTES for 'var'. */
  readonly slotBytes: number;
}

export interface BlockLayout {
  readonly schema: ContainerSchema;
  readonly columns: readonly ColumnLayout[];
  readonly keyless: boolean;
  readonly keyColumnCount: number;
  readonly keys: RowKeyOps;
  readonly rowFixedBytes: number;
  readonly nullableColumnCount: number;
  /** Positions of the 'var' columns, so fixed-only schemas skip payload sizing entirely. */
  readonly varColumnIndexes: readonly number[];
}

const layouts = new WeakMap<ContainerSchema, BlockLayout>();

/** The layout of a schema; cached per schema object (schemas are immutable once made). */
export function blockLayout(schema: ContainerSchema): BlockLayout {
  const cached = layouts.get(schema);
  if (cached !== undefined) return cached;
  assert(schema.columns.length > 0);
  const columns = schema.columns.map((column, index): ColumnLayout => {
    const precision = column.type === 'TIMESTAMP'
      ? column.timePrecision ?? 'MILLISECOND'
      : undefined;
    const storage = column.array ? 'var' : scalarStorage(column.type, precision);
    const key = index < schema.rowKeyColumnCount;
    if (key) assert(column.notNull);
    return {
      type: column.type, array: column.array, nullable: !column.notNull,
      bigintTime: precision !== undefined && precision !== 'MILLISECOND', timePrecision: precision,
      storage,
      jsArray: storage === 'var' || storage === 'i96',
      slotBytes: storage === 'var' ? VAR_LENGTH_PREFIX_BYTES : STORAGE_BYTES[storage],
    };
  });
  const keyless = schema.rowKeyColumnCount === 0;
  const layout: BlockLayout = {
    schema, columns, keyless, keyColumnCount: schema.rowKeyColumnCount, keys: rowKeyOps(schema),
    rowFixedBytes: (keyless ? ROW_ID_BYTES : 0) + columns.reduce((sum, c) => sum + c.slotBytes, 0),
    nullableColumnCount: columns.filter((c) => c.nullable).length,
    varColumnIndexes: columns.flatMap((c, i) => (c.storage === 'var' ? [i] : [])),
  };
  layouts.set(schema, layout);
  return layout;
}

export const STORAGE_BYTES: Record<Exclude<ColumnStorage, 'var'>, number> = {
  f64: 8, f32: 4, i32: 4, i16: 2, i8: 1, u8: 1, i64: 8, i96: 12,
};

function scalarStorage(type: ColumnType, precision: TimePrecision | undefined): ColumnStorage {
  switch (type) {
    case 'BOOL': return 'u8';
    case 'BYTE': return 'i8';
    case 'SHORT': return 'i16';
    case 'INTEGER': return 'i32';
    case 'LONG': return 'i64';
    case 'FLOAT': return 'f32';
    case 'DOUBLE': return 'f64';
    // Milliseconds up to year 9999 are below 2^53, so a float64 holds them exactly.
    case 'TIMESTAMP':
      return precision === 'NANOSECOND' ? 'i96' : precision === 'MICROSECOND' ? 'i64' : 'f64';
    case 'STRING': case 'GEOMETRY': case 'BLOB': return 'var';
  }
}

/** Encoded size of a block of rowCount rows whose variable-length payloads sum to given bytes. */
export function rowBlockUsedBytes(
  layout: BlockLayout, rowCount: number, varPayloadBytes: number,
): number {
  return ROW_BLOCK_HEADER_BYTES + rowCount * layout.rowFixedBytes +
    layout.nullableColumnCount * Math.ceil(rowCount / 8) + varPayloadBytes;
}

/** The most rows that fit in blockSizeBytes with the given payload; O(1). */
export function rowBlockRowCountFit(
  layout: BlockLayout, blockSizeBytes: number, varPayloadBytes: number,
): number {
  const freeBytes = blockSizeBytes - ROW_BLOCK_HEADER_BYTES - varPayloadBytes;
  if (freeBytes <= 0) return 0;
  // Each row costs rowFixedBytes plus 1/8 byte per nullable column; fix the rounding after.
  let count = Math.floor((freeBytes * 8) / (layout.rowFixedBytes * 8 + layout.nullableColumnCount));
  while (rowBlockUsedBytes(layout, count + 1, varPayloadBytes) <= blockSizeBytes) count++;
  while (count > 0 && rowBlockUsedBytes(layout, count, varPayloadBytes) > blockSizeBytes) count--;
  return count;
}

/** Set in a length prefix when a string is stored as UTF-16LE (it holds a lone surrogate). */
export const VAR_LENGTH_UTF16_FLAG = 0x8000_0000;
/**
 * Set in a length prefix when a reference to a large value kept out of line follows. Inline values
 * are smaller than a block, and a BLOB is below 2^30 bytes, so the bit is free in any other
 * prefix.
 */
export const VAR_LENGTH_LARGE_FLAG = 0x4000_0000;
export const VAR_LENGTH_MASK = 0x7fff_ffff;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** UTF-8 cannot hold a lone surrogate; such strings are stored as UTF-16LE so they round-trip. */
export function stringIsUtf16Stored(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

export function stringPayloadBytes(text: string): number {
  return stringIsUtf16Stored(text) ? text.length * 2 : Buffer.byteLength(text, 'utf8');
}

/**
 * Bytes after the length prefix of one variable-length value (block-format.ts writes these); a
 * large value kept out of line takes only its reference.
 */
export function varPayloadBytes(column: ColumnLayout, value: StoredValue): number {
  if (value === null) return 0;
  if (value instanceof LargeValue) return LARGE_VALUE_REF_BYTES;
  if (!column.array) {
    if (column.type === 'BLOB') return (value as Uint8Array).byteLength;
    if (column.type === 'GEOMETRY' && typeof value !== 'string') {
      return (value as GeometryValue).sizeBytes;
    }
    return stringPayloadBytes(value as string);
  }
  const elements = value as unknown[];
  // Arrays: element count u32, then the elements (strings each length-prefixed).
  if (column.type === 'STRING') {
    let bytes = 4;
    for (const element of elements as string[]) {
      bytes += VAR_LENGTH_PREFIX_BYTES + stringPayloadBytes(element);
    }
    return bytes;
  }
  return 4 + elements.length * arrayElementBytes(column);
}

export function arrayElementBytes(column: ColumnLayout): number {
  assert(column.array);
  assert(column.type !== 'STRING');
  const storage = scalarStorage(column.type, column.timePrecision);
  assert(storage !== 'var');
  return STORAGE_BYTES[storage];
}

/** Sum of varPayloadBytes over a row's variable-length columns. */
export function rowVarPayloadBytes(layout: BlockLayout, row: readonly StoredValue[]): number {
  let bytes = 0;
  for (const index of layout.varColumnIndexes) {
    bytes += varPayloadBytes(layout.columns[index]!, row[index] ?? null);
  }
  return bytes;
}

/** The value a column added to existing rows gets: NULL, else GridDB's empty value. */
export function columnEmptyValue(column: ColumnLayout): Value {
  return column.nullable ? null : emptyValueOf(column.type, column);
}

const ARRAY_KINDS: Partial<Record<ColumnType, LargeValueKind>> = {
  BOOL: LargeValueKind.ARRAY_BOOL, BYTE: LargeValueKind.ARRAY_BYTE,
  SHORT: LargeValueKind.ARRAY_SHORT, INTEGER: LargeValueKind.ARRAY_INTEGER,
  LONG: LargeValueKind.ARRAY_LONG, FLOAT: LargeValueKind.ARRAY_FLOAT,
  DOUBLE: LargeValueKind.ARRAY_DOUBLE, STRING: LargeValueKind.ARRAY_STRING,
};
const TIMESTAMP_ARRAY_KINDS: Record<TimePrecision, LargeValueKind> = {
  MILLISECOND: LargeValueKind.ARRAY_TIMESTAMP_MS,
  MICROSECOND: LargeValueKind.ARRAY_TIMESTAMP_US,
  NANOSECOND: LargeValueKind.ARRAY_TIMESTAMP_NS,
};

/** How a variable-length value of this column is kept out of line. */
export function largeValueKindOf(
  column: ColumnLayout, value: Exclude<Value, null>,
): LargeValueKind {
  assert(column.storage === 'var');
  if (!column.array) {
    if (column.type === 'BLOB') return LargeValueKind.BLOB;
    if (column.type === 'GEOMETRY' && typeof value !== 'string') return LargeValueKind.GEOMETRY;
    return stringIsUtf16Stored(value as string)
      ? LargeValueKind.STRING_UTF16
      : LargeValueKind.STRING_UTF8;
  }
  const kind = column.type === 'TIMESTAMP'
    ? TIMESTAMP_ARRAY_KINDS[column.timePrecision ?? 'MILLISECOND']
    : ARRAY_KINDS[column.type];
  assert(kind !== undefined, `no array of ${column.type}`);
  return kind;
}

/** Could a value of this column be kept out of line as this kind? */
export function largeValueKindFits(column: ColumnLayout, kind: LargeValueKind): boolean {
  if (column.storage !== 'var') return false;
  if (column.array) return kind === largeValueKindOf(column, []);
  if (column.type === 'BLOB') return kind === LargeValueKind.BLOB;
  // STRING_UTF8: a GEOMETRY written as WKT text, before the binary encoding.
  if (column.type === 'GEOMETRY') {
    return kind === LargeValueKind.GEOMETRY || kind === LargeValueKind.STRING_UTF8;
  }
  return kind === LargeValueKind.STRING_UTF8 || kind === LargeValueKind.STRING_UTF16;
}

const arrayColumns = new Map<LargeValueKind, ColumnLayout>();

/** A column layout whose values are arrays of this kind's elements; undefined for other kinds. */
export function largeValueArrayColumn(kind: LargeValueKind): ColumnLayout | undefined {
  if (arrayColumns.size === 0) {
    for (const type of [...Object.keys(ARRAY_KINDS), 'TIMESTAMP'] as ColumnType[]) {
      const precisions = type === 'TIMESTAMP' ? TIME_PRECISIONS_ALL : [undefined];
      for (const precision of precisions) {
        const column = arrayColumnLayout(type, precision);
        arrayColumns.set(largeValueKindOf(column, []), column);
      }
    }
  }
  return arrayColumns.get(kind);
}

const TIME_PRECISIONS_ALL: readonly TimePrecision[] = ['MILLISECOND', 'MICROSECOND', 'NANOSECOND'];

function arrayColumnLayout(type: ColumnType, precision: TimePrecision | undefined): ColumnLayout {
  return {
    type, array: true, nullable: true, timePrecision: precision,
    bigintTime: precision !== undefined && precision !== 'MILLISECOND',
    storage: 'var', jsArray: true, slotBytes: VAR_LENGTH_PREFIX_BYTES,
  };
}
