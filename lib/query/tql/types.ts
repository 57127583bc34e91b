// Types of TQL expressions and the JavaScript shape of their values while a query runs.
//
//   BOOL → boolean   STRING → string   BLOB → Uint8Array
//   GEOMETRY → GeometryValue (its binary form, lib/geometry/geometry-value.ts); a string is WKT text
//              kept from before that form (spatial-value.ts geometryArgument reads both)
//   BYTE, SHORT, INTEGER, FLOAT, DOUBLE → number
//   LONG → bigint from a column; a computed integer is a number when it is a safe integer and a
//          bigint otherwise (see arithmetic.ts), so code reading an integral value takes both
//   TIMESTAMP(ms) → number of ms; TIMESTAMP(µs | ns) → bigint of µs | ns, as column-type.ts
//   arrays → JavaScript arrays of the element shape; NULL → null
//
// Numbers and bigints compare exactly with `<` and `==` in JavaScript; the comparisons rely on it.

import type { ColumnType, TimePrecision, Value } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';

export type TqlScalarType = ColumnType | 'NULL';

export interface TqlType {
  readonly scalar: TqlScalarType;
  readonly array: boolean;
  /** TIMESTAMP only. */
  readonly timePrecision?: TimePrecision;
}

export type TqlValue = Value;

export const TQL_NULL: TqlType = { scalar: 'NULL', array: false };
export const TQL_BOOL: TqlType = { scalar: 'BOOL', array: false };
export const TQL_STRING: TqlType = { scalar: 'STRING', array: false };
export const TQL_LONG: TqlType = { scalar: 'LONG', array: false };
export const TQL_FLOAT: TqlType = { scalar: 'FLOAT', array: false };
export const TQL_DOUBLE: TqlType = { scalar: 'DOUBLE', array: false };
export const TQL_BLOB: TqlType = { scalar: 'BLOB', array: false };
export const TQL_TIMESTAMP_MS: TqlType = timestampType('MILLISECOND');

export function timestampType(timePrecision: TimePrecision): TqlType {
  return { scalar: 'TIMESTAMP', array: false, timePrecision };
}

export function columnTqlType(column: ColumnSchema): TqlType {
  if (column.type !== 'TIMESTAMP') return { scalar: column.type, array: column.array };
  const timePrecision = column.timePrecision ?? 'MILLISECOND';
  return { scalar: 'TIMESTAMP', array: column.array, timePrecision };
}

export function elementType(type: TqlType): TqlType {
  return { ...type, array: false };
}

const INTEGRAL_TYPES: ReadonlySet<TqlScalarType> = new Set(['BYTE', 'SHORT', 'INTEGER', 'LONG']);
const FLOATING_TYPES: ReadonlySet<TqlScalarType> = new Set(['FLOAT', 'DOUBLE']);

export function isNull(type: TqlType): boolean {
  return type.scalar === 'NULL';
}

export function isIntegral(type: TqlType): boolean {
  return !type.array && INTEGRAL_TYPES.has(type.scalar);
}

export function isFloating(type: TqlType): boolean {
  return !type.array && FLOATING_TYPES.has(type.scalar);
}

export function isNumeric(type: TqlType): boolean {
  return isIntegral(type) || isFloating(type);
}

export function isTimestamp(type: TqlType): boolean {
  return !type.array && type.scalar === 'TIMESTAMP';
}

export function isScalarOf(type: TqlType, scalar: TqlScalarType): boolean {
  return !type.array && type.scalar === scalar;
}

/** Units of one TIMESTAMP value of this precision, per millisecond. */
export function unitsPerMs(timePrecision: TimePrecision | undefined): number {
  return timePrecision === 'NANOSECOND' ? 1_000_000 : timePrecision === 'MICROSECOND' ? 1000 : 1;
}

/** `LONG`, `TIMESTAMP(6)`, `INTEGER_ARRAY`, `NULL`: a type as messages spell it. */
export function typeName(type: TqlType): string {
  const digits = type.timePrecision === 'MICROSECOND' ? '(6)'
    : type.timePrecision === 'NANOSECOND' ? '(9)' : '';
  return `${type.scalar}${digits}${type.array ? '_ARRAY' : ''}`;
}
