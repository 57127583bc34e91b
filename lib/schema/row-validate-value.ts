// One value of one column → its canonical form, or a StorageError naming the container, the
// column and the bad value. This is the slow path of row-validate.ts: the hot loop there accepts
// values already in canonical form inline and calls here only to convert or to complain.
//
// Canonical forms (column-type.ts) and what else is accepted:
//   BOOL            boolean
//   BYTE/SHORT/INT  integral number in range; -0 becomes 0
//   LONG            bigint in int64 range; a safe-integer number is converted to bigint
//   FLOAT           number rounded with Math.fround; a finite number beyond FLOAT's range is
//                   refused rather than turned into ±Infinity
//   DOUBLE          number (NaN, ±Infinity and -0 are values like any other)
//   TIMESTAMP(ms)   integral number in [TIMESTAMP_MS_MIN, TIMESTAMP_MS_MAX]; a Date gives its ms
//   TIMESTAMP(µs|ns) bigint in range; a safe-integer number or a Date is converted to bigint
//   STRING          string, no U+0000, no lone surrogate, UTF-8 size ≤ limits.stringSizeBytesMax
//   GEOMETRY        WKT (wkt-parse.ts) → GeometryValue (its binary form); QUADRATICSURFACE refused
//   BLOB            Uint8Array ≤ BLOB_SIZE_BYTES_MAX; a subclass (Buffer) becomes a plain view
//                   of the same memory, so decoding gives back an equal value
// Codes: TYPE_MISMATCH for the wrong kind of value, VALUE_OUT_OF_RANGE for a value outside its
// type's domain (numbers, U+0000, lone surrogates, empty GEOMETRY), LIMIT_EXCEEDED for sizes.

import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.ts';
import { StorageError, type StorageErrorCode } from '../base/errors.ts';
import { BLOB_SIZE_BYTES_MAX, type BlockSizeLimits } from '../base/limits.ts';
import {
  INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN, TIMESTAMP_NS_MAX, TIMESTAMP_US_MAX,
  ValueKind, type ScalarValue,
} from './column-type.ts';
import {
  geometryValueOf, isGeometryValue, type GeometryValue,
} from '../geometry/geometry-value.ts';
import { isWktProblem, parseWkt } from '../geometry/wkt-parse.ts';
import { printWkt } from '../geometry/wkt-print.ts';
import { describeValue, quote } from './describe-value.ts';

// Module constants: case labels are evaluated at every switch, and a loader (tsx) may turn an
// imported binding into a getter call.
const K_BLOB = ValueKind.BLOB;
const K_BOOL = ValueKind.BOOL;
const K_BYTE = ValueKind.BYTE;
const K_DOUBLE = ValueKind.DOUBLE;
const K_FLOAT = ValueKind.FLOAT;
const K_GEOMETRY = ValueKind.GEOMETRY;
const K_INTEGER = ValueKind.INTEGER;
const K_LONG = ValueKind.LONG;
const K_SHORT = ValueKind.SHORT;
const K_STRING = ValueKind.STRING;
const K_TIMESTAMP_MS = ValueKind.TIMESTAMP_MS;
const K_TIMESTAMP_NS = ValueKind.TIMESTAMP_NS;
const K_TIMESTAMP_US = ValueKind.TIMESTAMP_US;

/** Everything a check of one column needs, computed once per schema. */
export interface ValueCheck {
  containerName: string;
  columnName: string;
  /** The scalar type as messages spell it: `INTEGER`, `TIMESTAMP(6)`; an array's element type. */
  typeName: string;
  kind: ValueKind;
  array: boolean;
  limits: BlockSizeLimits;
}

/** No element: the value is the column's own. */
export const ELEMENT_NONE = -1;

const isWellFormedMaybe = (String.prototype as { isWellFormed?: (this: string) => boolean })
  .isWellFormed;
assert(isWellFormedMaybe !== undefined, 'String.prototype.isWellFormed needs Node 20+');
const isWellFormed = isWellFormedMaybe;

/** The canonical form of a non-null scalar `value`, or throws. */
export function scalarCanonical(
  check: ValueCheck,
  value: unknown,
  elementIndex: number,
): ScalarValue {
  switch (check.kind) {
    case K_BOOL:
      if (typeof value !== 'boolean') valueMismatch(check, value, elementIndex);
      return value;
    case K_BYTE: return integerCanonical(check, value, elementIndex, 0x80);
    case K_SHORT: return integerCanonical(check, value, elementIndex, 0x8000);
    case K_INTEGER: return integerCanonical(check, value, elementIndex, 0x8000_0000);
    case K_LONG: return bigintCanonical(check, value, elementIndex, INT64_MIN, INT64_MAX);
    case K_FLOAT: return floatCanonical(check, value, elementIndex);
    case K_DOUBLE:
      if (typeof value !== 'number') valueMismatch(check, value, elementIndex);
      return value;
    case K_TIMESTAMP_MS: return timestampMsCanonical(check, value, elementIndex);
    case K_TIMESTAMP_US:
      return bigintCanonical(check, dateToBigint(value, 1000n), elementIndex, 0n, TIMESTAMP_US_MAX);
    case K_TIMESTAMP_NS:
      return bigintCanonical(check, dateToBigint(value, 1_000_000n), elementIndex, 0n,
        TIMESTAMP_NS_MAX);
    case K_STRING: return stringCanonical(check, value, elementIndex);
    case K_GEOMETRY: return geometryCanonical(check, value, elementIndex);
    case K_BLOB: return blobCanonical(check, value, elementIndex);
  }
}

export interface StringProblem {
  code: 'VALUE_OUT_OF_RANGE' | 'LIMIT_EXCEEDED';
  reason: string;
}

/** What is wrong with a string value for a limit in UTF-8 bytes, or undefined when it is fine. */
export function stringProblem(text: string, sizeBytesMax: number): StringProblem | undefined {
  // UTF-8 takes at least one byte and at most three per UTF-16 unit, so most strings are decided
  // by their length alone; only the rest are measured.
  if (text.length > sizeBytesMax) {
    return { code: 'LIMIT_EXCEEDED', reason: `is longer than ${sizeBytesMax} bytes` };
  }
  if (text.indexOf('\0') >= 0) return { code: 'VALUE_OUT_OF_RANGE', reason: 'contains U+0000' };
  if (!isWellFormed.call(text)) {
    return { code: 'VALUE_OUT_OF_RANGE', reason: 'contains a lone surrogate (not Unicode text)' };
  }
  if (text.length * 3 > sizeBytesMax) {
    const sizeBytes = Buffer.byteLength(text, 'utf8');
    if (sizeBytes > sizeBytesMax) {
      const reason = `takes ${sizeBytes} bytes, more than ${sizeBytesMax}`;
      return { code: 'LIMIT_EXCEEDED', reason };
    }
  }
  return undefined;
}

export function valueMismatch(check: ValueCheck, value: unknown, elementIndex: number): never {
  throw valueError(check, 'TYPE_MISMATCH', elementIndex,
    `expected ${check.typeName}, got ${describeValue(value)}`);
}

/** `column "temp" of "sensor1"[ element 3]: <text>`. */
export function valueError(
  check: ValueCheck,
  code: StorageErrorCode,
  elementIndex: number,
  text: string,
): StorageError {
  const element = elementIndex === ELEMENT_NONE ? '' : ` element ${elementIndex}`;
  return new StorageError(code,
    `column ${quote(check.columnName)} of ${quote(check.containerName)}${element}: ${text}`);
}

function integerCanonical(check: ValueCheck, value: unknown, elementIndex: number, bound: number) {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return valueMismatch(check, value, elementIndex);
  }
  if (value < -bound || value >= bound) {
    throw valueError(check, 'VALUE_OUT_OF_RANGE', elementIndex,
      `${describeValue(value)} is out of ${check.typeName} range ${-bound}..${bound - 1}`);
  }
  return value === 0 ? 0 : value;
}

function bigintCanonical(
  check: ValueCheck,
  value: unknown,
  elementIndex: number,
  min: bigint,
  max: bigint,
): bigint {
  let result: bigint;
  if (typeof value === 'bigint') result = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) result = BigInt(value);
  else if (typeof value === 'number' && Number.isInteger(value)) {
    throw valueError(check, 'TYPE_MISMATCH', elementIndex, `expected ${check.typeName}, got ` +
      `${describeValue(value)}, beyond ±2^53 where numbers lose precision; use a bigint`);
  } else return valueMismatch(check, value, elementIndex);
  if (result < min || result > max) {
    throw valueError(check, 'VALUE_OUT_OF_RANGE', elementIndex,
      `${describeValue(value)} is out of ${check.typeName} range ${min}..${max}`);
  }
  return result;
}

function floatCanonical(check: ValueCheck, value: unknown, elementIndex: number): number {
  if (typeof value !== 'number') return valueMismatch(check, value, elementIndex);
  const rounded = Math.fround(value);
  if (!Number.isFinite(rounded) && Number.isFinite(value)) {
    throw valueError(check, 'VALUE_OUT_OF_RANGE', elementIndex,
      `${describeValue(value)} is beyond FLOAT range (±3.4028234663852886e38)`);
  }
  return rounded;
}

function timestampMsCanonical(check: ValueCheck, value: unknown, elementIndex: number): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isInteger(ms)) {
    return valueMismatch(check, value, elementIndex);
  }
  if (ms < TIMESTAMP_MS_MIN || ms > TIMESTAMP_MS_MAX) {
    throw valueError(check, 'VALUE_OUT_OF_RANGE', elementIndex, `${describeValue(value)} is out ` +
      `of TIMESTAMP range ${TIMESTAMP_MS_MIN}..${TIMESTAMP_MS_MAX} ms (1970-01-01..9999-12-31)`);
  }
  return ms === 0 ? 0 : ms;
}

/** A valid Date as a bigint of `unitsPerMs` units; anything else is returned unchanged. */
function dateToBigint(value: unknown, unitsPerMs: bigint): unknown {
  if (!(value instanceof Date)) return value;
  const ms = value.getTime();
  return Number.isInteger(ms) ? BigInt(ms) * unitsPerMs : value;
}

function stringCanonical(check: ValueCheck, value: unknown, elementIndex: number): string {
  if (typeof value !== 'string') return valueMismatch(check, value, elementIndex);
  stringCheck(check, value, elementIndex);
  return value;
}

/**
 * A GEOMETRY is parsed once, here, and kept as its binary encoding (geometry-value.ts): rows,
 * blocks, TQL and the spatial index read that, never the text again. The size limit applies to
 * the WKT as GridDB prints it (wkt-print.ts), which is what a client reads back.
 */
function geometryCanonical(check: ValueCheck, value: unknown, elementIndex: number): GeometryValue {
  // A GeometryValue was made by this validator already (a client's row, a row moved inside the
  // engine): it is canonical.
  if (isGeometryValue(value)) {
    if (value.kind === 'QUADRATICSURFACE') return quadraticRefused(check, elementIndex);
    return value;
  }
  if (typeof value !== 'string') return valueMismatch(check, value, elementIndex);
  if (value.length === 0) {
    throw valueError(check, 'VALUE_OUT_OF_RANGE', elementIndex, 'GEOMETRY text is empty');
  }
  stringCheck(check, value, elementIndex);
  const geometry = parseWkt(value);
  if (isWktProblem(geometry)) {
    throw valueError(check, 'VALUE_OUT_OF_RANGE', elementIndex,
      `${describeValue(value)} is not a GEOMETRY: ${geometry.problem}`);
  }
  if (geometry.kind === 'QUADRATICSURFACE') return quadraticRefused(check, elementIndex);
  const canonical = printWkt(geometry);
  stringCheck(check, canonical, elementIndex);
  return geometryValueOf(geometry);
}

function quadraticRefused(check: ValueCheck, elementIndex: number): never {
  throw valueError(check, 'VALUE_OUT_OF_RANGE', elementIndex,
    'a QUADRATICSURFACE exists only in queries and cannot be stored');
}

function stringCheck(check: ValueCheck, text: string, elementIndex: number): void {
  const problem = stringProblem(text, check.limits.stringSizeBytesMax);
  if (problem === undefined) return;
  throw valueError(check, problem.code, elementIndex, `${describeValue(text)} ${problem.reason}`);
}

function blobCanonical(check: ValueCheck, value: unknown, elementIndex: number): Uint8Array {
  if (!(value instanceof Uint8Array)) return valueMismatch(check, value, elementIndex);
  if (value.byteLength > BLOB_SIZE_BYTES_MAX) {
    throw valueError(check, 'LIMIT_EXCEEDED', elementIndex,
      `BLOB of ${value.byteLength} bytes, more than ${BLOB_SIZE_BYTES_MAX}`);
  }
  if (Object.getPrototypeOf(value) === Uint8Array.prototype) return value;
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}
