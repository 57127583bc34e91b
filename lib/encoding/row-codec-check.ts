// The invariant check of row-codec.ts: does a value have the JavaScript shape of its kind? It runs
// on writes only when invariants are on (tests, the simulator): rows reaching the codec were
// validated, so a mismatch is our bug, and without this check it would be written silently wrong
// (a string written as f64 is NaN on disk).

import { isGeometryValue } from '../geometry/geometry-value.ts';
import {
  INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN, TIMESTAMP_NS_MAX, TIMESTAMP_US_MAX,
  ValueKind,
} from '../schema/column-type.ts';

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

/** row-codec.ts's kind for a GEOMETRY in the wire form (WKT text): past every ValueKind. */
export const ROW_CODEC_KIND_GEOMETRY_WKT = 13;
const K_GEOMETRY_WKT = ROW_CODEC_KIND_GEOMETRY_WKT;

export function rowCodecValueMatches(kind: number, value: unknown): boolean {
  switch (kind) {
    case K_BOOL: return typeof value === 'boolean';
    case K_BYTE: return integerIn(value, 0x80);
    case K_SHORT: return integerIn(value, 0x8000);
    case K_INTEGER: return integerIn(value, 0x8000_0000);
    case K_LONG: return bigintIn(value, INT64_MIN, INT64_MAX);
    case K_FLOAT: return typeof value === 'number' && Object.is(Math.fround(value), value);
    case K_DOUBLE: return typeof value === 'number';
    case K_TIMESTAMP_MS:
      return typeof value === 'number' && Number.isInteger(value) && !Object.is(value, -0) &&
        value >= TIMESTAMP_MS_MIN && value <= TIMESTAMP_MS_MAX;
    case K_TIMESTAMP_US: return bigintIn(value, 0n, TIMESTAMP_US_MAX);
    case K_TIMESTAMP_NS: return bigintIn(value, 0n, TIMESTAMP_NS_MAX);
    case K_STRING: return typeof value === 'string';
    // A string: WKT text that did not parse, kept from before values were checked.
    case K_GEOMETRY: return isGeometryValue(value) || (typeof value === 'string' && value.length > 0);
    // A client writes the GeometryValue its validator made; a node writes WKT its engine printed.
    case K_GEOMETRY_WKT:
      return isGeometryValue(value) || (typeof value === 'string' && value.length > 0);
    case K_BLOB:
      return value instanceof Uint8Array && Object.getPrototypeOf(value) === Uint8Array.prototype;
    default: return false;
  }
}

function integerIn(value: unknown, bound: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && !Object.is(value, -0) &&
    value >= -bound && value < bound;
}

function bigintIn(value: unknown, min: bigint, max: bigint): boolean {
  return typeof value === 'bigint' && value >= min && value <= max;
}
