// A GEOMETRY value as the engine holds it in rows, blocks and TQL: its binary encoding
// (geometry-binary.ts draws it). The header answers kind, dimension, SRID and MBR without decoding
// a coordinate, which is all ST_MBRIntersects and the spatial index need; the coordinates are
// decoded, and the WKT printed, only when asked.
//
// A GEOMETRY column may also hold a string: WKT text from a home written before this encoding,
// kept in a row block not written since (block-format-column.ts says why), or text that does not
// parse (legacyGeometry). Whatever reads a GEOMETRY takes both.
//
// Values are immutable and shared (a block hands out the one object it holds). Equal geometries
// have equal bytes, so deepStrictEqual compares values.

import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.ts';
import {
  decodeGeometry, encodeGeometry, GEOMETRY_BINARY_HEADER_BYTES, GEOMETRY_BINARY_TAG,
  geometryBinaryMbrBytes, isGeometryBinaryProblem, KIND_CODE_POINT,
} from './geometry-binary.ts';
import { GEOMETRY_KINDS, type Geometry, type GeometryKind, type Mbr } from './geometry.ts';
import { isWktProblem, parseWkt } from './wkt-parse.ts';
import { printWkt } from './wkt-print.ts';

export class GeometryValue {
  /**
   * The bytes, one per char of a one-byte string: a small Uint8Array costs well over 100 bytes of
   * heap beside its contents, a one-byte string about 16, and a block holds values by the million.
   */
  private readonly packed: string;

  /** Use geometryValueOf / geometryValueFromBytes. */
  private constructor(bytes: Uint8Array) {
    this.packed = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }

  /** A value of checked bytes (geometryValueOf and geometryValueFromBytes check them). */
  static trusted(bytes: Uint8Array): GeometryValue {
    assert(bytes[0] === GEOMETRY_BINARY_TAG);
    assert(bytes.byteLength >= GEOMETRY_BINARY_HEADER_BYTES);
    return new GeometryValue(bytes);
  }

  /** The encoding, a fresh copy. */
  get bytes(): Uint8Array {
    return Buffer.from(this.packed, 'latin1');
  }

  get sizeBytes(): number {
    return this.packed.length;
  }

  /** Writes the encoding into `target` at `offset`; returns the bytes written. */
  writeTo(target: Buffer, offset: number): number {
    const written = target.write(this.packed, offset, 'latin1');
    assert(written === this.packed.length);
    return written;
  }

  get kind(): GeometryKind {
    return GEOMETRY_KINDS[this.packed.charCodeAt(1) - 1]!;
  }

  /** 0 for an empty geometry. */
  get dimension(): 0 | 2 | 3 {
    return this.packed.charCodeAt(2) as 0 | 2 | 3;
  }

  get srid(): number {
    const { packed } = this;
    return packed.charCodeAt(4) | (packed.charCodeAt(5) << 8) | (packed.charCodeAt(6) << 16) |
      (packed.charCodeAt(7) << 24);
  }

  /** The box read from the header; undefined for an empty geometry and a QUADRATICSURFACE. */
  get mbr(): Mbr | undefined {
    const { packed } = this;
    const dimension = this.dimension;
    if (dimension === 0) return undefined;
    const kindCode = packed.charCodeAt(1);
    const f64 = (index: number) => f64At(packed, GEOMETRY_BINARY_HEADER_BYTES + index * 8);
    if (kindCode === KIND_CODE_POINT) {
      // A POINT is its own box: its coordinates.
      const [x, y] = [f64(0), f64(1)];
      return dimension === 3
        ? { minX: x, minY: y, minZ: f64(2), maxX: x, maxY: y, maxZ: f64(2) }
        : { minX: x, minY: y, minZ: -Infinity, maxX: x, maxY: y, maxZ: Infinity };
    }
    if (geometryBinaryMbrBytes(kindCode, dimension) === 0) return undefined;
    return dimension === 3
      ? { minX: f64(0), minY: f64(1), minZ: f64(2), maxX: f64(3), maxY: f64(4), maxZ: f64(5) }
      : { minX: f64(0), minY: f64(1), minZ: -Infinity, maxX: f64(2), maxY: f64(3), maxZ: Infinity };
  }

  /** Every coordinate, decoded (nothing is cached: values live in blocks, by the million). */
  get geometry(): Geometry {
    const decoded = decodeGeometry(this.bytes);
    // The bytes were checked when this value was made.
    assert(!isGeometryBinaryProblem(decoded), 'a checked GEOMETRY decodes');
    return decoded;
  }

  /** The WKT as GridDB prints it (wkt-print.ts). */
  get wkt(): string {
    return printWkt(this.geometry);
  }

  toString(): string {
    return this.wkt;
  }
}

// One double read from 8 chars of a packed value, little-endian, with no allocation.
const f64Scratch = new Float64Array(1);
const f64ScratchBytes = new Uint8Array(f64Scratch.buffer);
const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
assert(HOST_LITTLE_ENDIAN, 'packed GEOMETRY values are read on a little-endian host');

function f64At(packed: string, offset: number): number {
  for (let i = 0; i < 8; i++) f64ScratchBytes[i] = packed.charCodeAt(offset + i);
  return f64Scratch[0]!;
}

export function isGeometryValue(value: unknown): value is GeometryValue {
  return value instanceof GeometryValue;
}

/** The value of a parsed geometry. */
export function geometryValueOf(geometry: Geometry): GeometryValue {
  return GeometryValue.trusted(encodeGeometry(geometry));
}

/** Encoded bytes, checked: a problem when they are not a geometry (the caller says whose fault). */
export function geometryValueFromBytes(bytes: Uint8Array): GeometryValue | { problem: string } {
  const geometry = decodeGeometry(bytes);
  if (isGeometryBinaryProblem(geometry)) return geometry;
  return GeometryValue.trusted(bytes);
}

/** WKT text parsed into a value, or its problem. */
export function geometryValueFromWkt(text: string): GeometryValue | { problem: string } {
  const geometry = parseWkt(text);
  if (isWktProblem(geometry)) return geometry;
  return geometryValueOf(geometry);
}

/**
 * Stored WKT text from before the binary encoding: its GeometryValue, or the text itself when it
 * does not parse (a home written before values were checked). Such a text stays as it is, is
 * written back as text, and fails a query that reads it as a geometry, as it always did.
 */
export function legacyGeometry(text: string): GeometryValue | string {
  const value = geometryValueFromWkt(text);
  return isGeometryValue(value) ? value : text;
}

/** GridDB's empty GEOMETRY value, `POINT(EMPTY)`. */
export const GEOMETRY_EMPTY_POINT: GeometryValue = geometryValueOf({
  kind: 'POINT', dimension: 0, srid: -1, positions: [],
});
