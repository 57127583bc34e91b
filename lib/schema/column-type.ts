// Column types (spec/surface.md §4.2) and the JavaScript shape of their values in the engine.
//
//   BOOL → boolean            STRING → string      BLOB → Uint8Array
//   GEOMETRY → GeometryValue (its binary encoding, lib/geometry/geometry-value.ts) inside the engine;
//              WKT text where rows enter and leave it (row-validate parses, Partition prints)
//   BYTE, SHORT, INTEGER → number (integer)     FLOAT, DOUBLE → number  LONG → bigint (full int64)
//   TIMESTAMP(ms) → number (integer ms since the epoch)   TIMESTAMP(µs|ns) → bigint (µs|ns since the epoch)
//   arrays → JavaScript arrays of the element shape (no nulls); NULL → null

import { GEOMETRY_EMPTY_POINT, type GeometryValue } from '../geometry/geometry-value.ts';

export const COLUMN_TYPES = [
  'BOOL', 'STRING', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP', 'GEOMETRY', 'BLOB',
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export const TIME_PRECISIONS = ['MILLISECOND', 'MICROSECOND', 'NANOSECOND'] as const;
export type TimePrecision = (typeof TIME_PRECISIONS)[number];

/** Types that may be array elements: everything but GEOMETRY and BLOB. */
export const ARRAY_ELEMENT_TYPES: readonly ColumnType[] = [
  'BOOL', 'STRING', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP',
];

/** Row key types of a collection (any timestamp precision); a time series key is TIMESTAMP(ms). */
export const ROW_KEY_TYPES: readonly ColumnType[] = ['STRING', 'INTEGER', 'LONG', 'TIMESTAMP'];

/** Bytes a value takes in the fixed-length part of a row; 0 for variable-length types. */
export const FIXED_SIZE_BYTES: Record<ColumnType, number> = {
  BOOL: 1, BYTE: 1, SHORT: 2, INTEGER: 4, LONG: 8, FLOAT: 4, DOUBLE: 8, TIMESTAMP: 8,
  STRING: 0, GEOMETRY: 0, BLOB: 0,
};

/** Earliest and latest TIMESTAMP: 1970-01-01T00:00:00Z … 9999-12-31T23:59:59.999999999Z. */
export const TIMESTAMP_MS_MIN = 0;
export const TIMESTAMP_MS_MAX = 253_402_300_799_999;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

export type ScalarValue = boolean | number | bigint | string | Uint8Array | GeometryValue;
export type ArrayValue = boolean[] | number[] | bigint[] | string[];
export type Value = ScalarValue | ArrayValue | null;
export type Row = Value[];

/** A row key: one value, or one per column of a composite key. */
export type KeyValue = number | bigint | string;
export type RowKey = KeyValue | KeyValue[];

/** TIMESTAMP(µs) and TIMESTAMP(ns) bounds: the instants of TIMESTAMP_MS_MIN/MAX, full precision. */
export const TIMESTAMP_US_MIN = 0n;
export const TIMESTAMP_US_MAX = BigInt(TIMESTAMP_MS_MAX) * 1000n + 999n;
export const TIMESTAMP_NS_MIN = 0n;
export const TIMESTAMP_NS_MAX = BigInt(TIMESTAMP_MS_MAX) * 1_000_000n + 999_999n;

/**
 * A column's value kind: its type with the TIMESTAMP precision folded in, as a small integer for
 * the hot loops of row-validate.ts and row-codec.ts. An array column has the kind of its elements.
 */
export const ValueKind = {
  BOOL: 0, BYTE: 1, SHORT: 2, INTEGER: 3, LONG: 4, FLOAT: 5, DOUBLE: 6,
  TIMESTAMP_MS: 7, TIMESTAMP_US: 8, TIMESTAMP_NS: 9, STRING: 10, GEOMETRY: 11, BLOB: 12,
} as const;
export type ValueKind = (typeof ValueKind)[keyof typeof ValueKind];

export function valueKind(type: ColumnType, timePrecision?: TimePrecision): ValueKind {
  if (type !== 'TIMESTAMP') return ValueKind[type];
  if (timePrecision === 'MICROSECOND') return ValueKind.TIMESTAMP_US;
  if (timePrecision === 'NANOSECOND') return ValueKind.TIMESTAMP_NS;
  return ValueKind.TIMESTAMP_MS;
}

/** `DOUBLE`, `TIMESTAMP(6)`, `INTEGER_ARRAY`: a column's type as messages spell it. */
export function columnTypeName(
  type: ColumnType,
  options: { array: boolean; timePrecision?: TimePrecision },
): string {
  const digits = options.timePrecision === 'MICROSECOND' ? '(6)'
    : options.timePrecision === 'NANOSECOND' ? '(9)' : '';
  return `${type}${digits}${options.array ? '_ARRAY' : ''}`;
}

/**
 * GridDB's empty value of a column: what a NOT NULL column added to existing rows holds, and what
 * a sampling in EMPTY mode gives where no row is. "" false 0 epoch `POINT(EMPTY)`, no bytes, no
 * elements.
 */
export function emptyValueOf(
  type: ColumnType,
  options: { array: boolean; timePrecision?: TimePrecision | undefined },
): Value {
  if (options.array) return [];
  switch (type) {
    case 'STRING': return '';
    case 'GEOMETRY': return GEOMETRY_EMPTY_POINT;
    case 'BLOB': return new Uint8Array(0);
    case 'BOOL': return false;
    case 'LONG': return 0n;
    case 'TIMESTAMP':
      return valueKind(type, options.timePrecision) === ValueKind.TIMESTAMP_MS ? 0 : 0n;
    default: return 0;
  }
}
