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

import { assert } from '../base/assert.ts';
import {
  decodeGeometry, encodeGeometry, GEOMETRY_BINARY_HEADER_BYTES, GEOMETRY_BINARY_TAG,
  geometryBinaryMbrBytes, isGeometryBinaryProblem, KIND_CODE_POINT,
} from './geometry-binary.ts';
import { GEOMETRY_KINDS, type Geometry, type GeometryKind, type Mbr } from './geometry.ts';
import { isWktProblem, parseWkt } from './wkt-parse.ts';
import { printWkt } from './wkt-print.ts';

export class GeometryValue {
  /** Use geometryValueOf / geometryValueFromBytes. */
  private constructor(readonly bytes: Uint8Array) {}

  /** A value of checked bytes (geometryValueOf and geometryValueFromBytes check them). */
  static trusted(bytes: Uint8Array): GeometryValue {
    assert(bytes[0] === GEOMETRY_BINARY_TAG);
    assert(bytes.byteLength >= GEOMETRY_BINARY_HEADER_BYTES);
    return new GeometryValue(bytes);
  }

  get kind(): GeometryKind {
    return GEOMETRY_KINDS[this.bytes[1]! - 1]!;
  }

  /** 0 for an empty geometry. */
  get dimension(): 0 | 2 | 3 {
    return this.bytes[2] as 0 | 2 | 3;
  }

  get srid(): number {
    const { bytes } = this;
    return (bytes[4]! | (bytes[5]! << 8) | (bytes[6]! << 16) | (bytes[7]! << 24));
  }

  /** The box read from the header; undefined for an empty geometry and a QUADRATICSURFACE. */
  get mbr(): Mbr | undefined {
    const { bytes } = this;
    const dimension = this.dimension;
    if (dimension === 0) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset + GEOMETRY_BINARY_HEADER_BYTES);
    const f64 = (index: number) => view.getFloat64(index * 8, true);
    if (bytes[1] === KIND_CODE_POINT) {
      // A POINT is its own box: its coordinates.
      const [x, y] = [f64(0), f64(1)];
      return dimension === 3
        ? { minX: x, minY: y, minZ: f64(2), maxX: x, maxY: y, maxZ: f64(2) }
        : { minX: x, minY: y, minZ: -Infinity, maxX: x, maxY: y, maxZ: Infinity };
    }
    if (geometryBinaryMbrBytes(bytes[1]!, dimension) === 0) return undefined;
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
