// The binary GEOMETRY encoding: how rows, blocks, xlog records and checkpoint images keep a
// geometry (geometry-value.ts holds it in memory). WKT is parsed once, when a value is written;
// reading a value, a spatial function or the spatial index never parses text again.
//
/**
 * Little-endian:
 *
 *   offset size
 *    0     1   tag 0x01 (GEOMETRY_BINARY_TAG). Values written before this encoding are WKT text,
 *              whose first byte is a letter (0x41 and up): the tag tells the two apart.
 *    1     1   kind: 1 POINT, 2 LINESTRING, 3 POLYGON, 4 POLYHEDRALSURFACE, 5 QUADRATICSURFACE
 *    2     1   dimension: 0 (empty), 2 or 3
 *    3     1   zero
 *    4     4   srid i32 (-1: none)
 *    8         MBR, when dimension > 0 and kind is LINESTRING, POLYGON or POLYHEDRALSURFACE:
 *                | min x | min y | [min z] | max x | max y | [max z] |  dimension × 2 f64
 *              so a box test reads 48 bytes at most and decodes no coordinate. A POINT is its
 *              own box: it has none (24 bytes in all in 2-D, 32 in 3-D; its WKT takes about as
 *              many), and a QUADRATICSURFACE is unbounded.
 *    then the body (nothing when empty):
 *      POINT               | dimension f64 |
 *      LINESTRING          | point count u32 | point count × dimension f64 |
 *      POLYGON             | ring count u32 | per ring: | point count u32 | its f64s |
 *      POLYHEDRALSURFACE   | polygon count u32 | per polygon: a POLYGON body |
 *      QUADRATICSURFACE    | 13 f64 | (A00 … A22 B0 B1 B2 c)
 *
 * Coordinates are the doubles the WKT gave, bit for bit (-0 kept), so printing a decoded value
 * gives exactly the WKT printed from the parsed one. Decoding checks what bytes can get wrong
 * (tag, kind, dimension, counts against the bytes left and the part limits, point counts and
 * closed rings as the WKT reader wants them, finite coordinates, the MBR against the coordinates,
 * nothing after the end) and returns a problem.
 */

import { assert } from '../base/assert.ts';
import {
  GEOMETRY_PART_COUNT_MAX, GEOMETRY_PART_POINT_COUNT_MAX,
} from '../base/limits.ts';
import {
  GEOMETRY_KINDS, geometryMbr, type Geometry, type GeometryKind, type Mbr, type Position,
} from './geometry.ts';

export const GEOMETRY_BINARY_TAG = 0x01;
export const GEOMETRY_BINARY_HEADER_BYTES = 8;
const QUADRATIC_COEFFICIENT_COUNT = 13;
const F64_BYTES = 8;
const U32_BYTES = 4;

/** Kind codes: the index in GEOMETRY_KINDS, plus one. */
export function geometryKindCode(kind: GeometryKind): number {
  return GEOMETRY_KINDS.indexOf(kind) + 1;
}

export const KIND_CODE_POINT = geometryKindCode('POINT');
const KIND_CODE_QUADRATIC = geometryKindCode('QUADRATICSURFACE');

export interface GeometryBinaryProblem {
  readonly problem: string;
}

export function isGeometryBinaryProblem(
  value: Geometry | GeometryBinaryProblem,
): value is GeometryBinaryProblem {
  return 'problem' in value;
}

/** Bytes of the MBR section for a header's kind and dimension. */
export function geometryBinaryMbrBytes(kindCode: number, dimension: number): number {
  return dimension === 0 || kindCode === KIND_CODE_POINT || kindCode === KIND_CODE_QUADRATIC
    ? 0 : dimension * 2 * F64_BYTES;
}

export function encodeGeometry(geometry: Geometry): Uint8Array {
  const kindCode = geometryKindCode(geometry.kind);
  const mbr = geometryBinaryMbrBytes(kindCode, geometry.dimension) === 0
    ? undefined : geometryMbr(geometry);
  const { dimension } = geometry;
  const sizeBytes = GEOMETRY_BINARY_HEADER_BYTES + geometryBinaryMbrBytes(kindCode, dimension) +
    bodyBytes(geometry);
  const bytes = new Uint8Array(sizeBytes);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, GEOMETRY_BINARY_TAG);
  view.setUint8(1, kindCode);
  view.setUint8(2, dimension);
  view.setInt32(4, geometry.srid, true);
  let at = GEOMETRY_BINARY_HEADER_BYTES;
  const f64 = (value: number) => { view.setFloat64(at, value, true); at += F64_BYTES; };
  const u32 = (value: number) => { view.setUint32(at, value, true); at += U32_BYTES; };
  if (mbr !== undefined) {
    f64(mbr.minX); f64(mbr.minY); if (dimension === 3) f64(mbr.minZ);
    f64(mbr.maxX); f64(mbr.maxY); if (dimension === 3) f64(mbr.maxZ);
  }
  const points = (positions: readonly Position[]) => {
    u32(positions.length);
    for (const p of positions) for (const c of p) f64(c);
  };
  const rings = (list: readonly (readonly Position[])[]) => {
    u32(list.length);
    for (const ring of list) points(ring);
  };
  if (dimension !== 0) {
    switch (geometry.kind) {
      case 'POINT': for (const c of geometry.positions[0]!) f64(c); break;
      case 'LINESTRING': points(geometry.positions); break;
      case 'POLYGON': rings(geometry.rings); break;
      case 'POLYHEDRALSURFACE':
        u32(geometry.polygons.length);
        for (const polygon of geometry.polygons) rings(polygon);
        break;
      case 'QUADRATICSURFACE': for (const c of geometry.coefficients) f64(c); break;
    }
  }
  assert(at === sizeBytes);
  return bytes;
}

function bodyBytes(geometry: Geometry): number {
  if (geometry.dimension === 0) return 0;
  const pointBytes = geometry.dimension * F64_BYTES;
  const points = (positions: readonly Position[]) => U32_BYTES + positions.length * pointBytes;
  const rings = (list: readonly (readonly Position[])[]) =>
    list.reduce((sum, ring) => sum + points(ring), U32_BYTES);
  switch (geometry.kind) {
    case 'POINT': return pointBytes;
    case 'LINESTRING': return points(geometry.positions);
    case 'POLYGON': return rings(geometry.rings);
    case 'POLYHEDRALSURFACE':
      return geometry.polygons.reduce((sum, polygon) => sum + rings(polygon), U32_BYTES);
    case 'QUADRATICSURFACE': return QUADRATIC_COEFFICIENT_COUNT * F64_BYTES;
  }
}

class BinaryDamage extends Error {}

/** Decodes and checks one encoded geometry. */
export function decodeGeometry(bytes: Uint8Array): Geometry | GeometryBinaryProblem {
  try {
    return new Decoder(bytes).geometry();
  } catch (error) {
    if (error instanceof BinaryDamage) return { problem: error.message };
    throw error;
  }
}

class Decoder {
  private readonly view: DataView;
  private at = GEOMETRY_BINARY_HEADER_BYTES;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  geometry(): Geometry {
    const { bytes } = this;
    if (bytes.byteLength < GEOMETRY_BINARY_HEADER_BYTES) this.fail(`${bytes.byteLength} bytes`);
    if (bytes[0] !== GEOMETRY_BINARY_TAG) this.fail(`tag ${bytes[0]}`);
    const kind = GEOMETRY_KINDS[bytes[1]! - 1];
    if (kind === undefined) this.fail(`kind ${bytes[1]}`);
    const dimension = bytes[2]!;
    if (dimension !== 0 && dimension !== 2 && dimension !== 3) this.fail(`dimension ${dimension}`);
    if (bytes[3] !== 0) this.fail('header padding');
    const srid = this.view.getInt32(4, true);
    const storedMbr = this.mbr(kind, dimension);
    const geometry = this.body(kind, dimension, srid);
    if (this.at !== bytes.byteLength) this.fail(`${bytes.byteLength - this.at} bytes after the end`);
    if (storedMbr !== undefined && !mbrEquals(storedMbr, geometryMbr(geometry)!)) {
      this.fail('MBR does not bound the coordinates');
    }
    return geometry;
  }

  private mbr(kind: GeometryKind, dimension: number): Mbr | undefined {
    if (geometryBinaryMbrBytes(geometryKindCode(kind), dimension) === 0) return undefined;
    const minX = this.f64(); const minY = this.f64();
    const minZ = dimension === 3 ? this.f64() : -Infinity;
    const maxX = this.f64(); const maxY = this.f64();
    const maxZ = dimension === 3 ? this.f64() : Infinity;
    return { minX, minY, minZ, maxX, maxY, maxZ };
  }

  private body(kind: GeometryKind, dimension: 0 | 2 | 3, srid: number): Geometry {
    if (dimension === 0) {
      switch (kind) {
        case 'POINT': case 'LINESTRING': return { kind, srid, dimension, positions: [] };
        case 'POLYGON': return { kind, srid, dimension, rings: [] };
        case 'POLYHEDRALSURFACE': return { kind, srid, dimension, polygons: [] };
        case 'QUADRATICSURFACE': return { kind, srid, dimension, coefficients: [] };
      }
    }
    switch (kind) {
      case 'POINT': {
        const position = [];
        for (let i = 0; i < dimension; i++) position.push(this.f64());
        return { kind, srid, dimension, positions: [position] };
      }
      case 'LINESTRING': {
        const positions = this.points(dimension, 2);
        return { kind, srid, dimension, positions };
      }
      case 'POLYGON': return { kind, srid, dimension, rings: this.rings(dimension) };
      case 'POLYHEDRALSURFACE': {
        if (dimension !== 3) this.fail('a 2-D POLYHEDRALSURFACE');
        const count = this.count(GEOMETRY_PART_COUNT_MAX, U32_BYTES);
        const polygons = [];
        for (let i = 0; i < count; i++) polygons.push(this.rings(dimension));
        return { kind, srid, dimension, polygons };
      }
      case 'QUADRATICSURFACE': {
        const coefficients = [];
        for (let i = 0; i < QUADRATIC_COEFFICIENT_COUNT; i++) coefficients.push(this.f64());
        return { kind, srid, dimension, coefficients };
      }
    }
  }

  private rings(dimension: 2 | 3): Position[][] {
    const count = this.count(GEOMETRY_PART_COUNT_MAX, U32_BYTES);
    if (count === 0) this.fail('a polygon of no rings');
    const rings = [];
    for (let i = 0; i < count; i++) {
      const ring = this.points(dimension, 4);
      const [first, last] = [ring[0]!, ring[ring.length - 1]!];
      if (!first.every((c, k) => c === last[k])) this.fail('a ring that is not closed');
      rings.push(ring);
    }
    return rings;
  }

  private points(dimension: 2 | 3, countMin: number): Position[] {
    const count = this.count(GEOMETRY_PART_POINT_COUNT_MAX, dimension * F64_BYTES);
    if (count < countMin) this.fail(`${count} points where ${countMin} or more belong`);
    const positions = [];
    for (let i = 0; i < count; i++) {
      positions.push(dimension === 2 ? [this.f64(), this.f64()] : [this.f64(), this.f64(), this.f64()]);
    }
    return positions;
  }

  /** A count, checked against its limit and against the bytes its items need. */
  private count(countMax: number, itemBytesMin: number): number {
    const count = this.u32();
    if (count > countMax) this.fail(`count ${count} over ${countMax}`);
    if (count * itemBytesMin > this.bytes.byteLength - this.at) {
      this.fail(`count ${count} past the end`);
    }
    return count;
  }

  private u32(): number {
    this.need(U32_BYTES);
    const value = this.view.getUint32(this.at, true);
    this.at += U32_BYTES;
    return value;
  }

  private f64(): number {
    this.need(F64_BYTES);
    const value = this.view.getFloat64(this.at, true);
    this.at += F64_BYTES;
    if (!Number.isFinite(value)) this.fail(`coordinate ${value}`);
    return value;
  }

  private need(sizeBytes: number): void {
    if (this.at + sizeBytes > this.bytes.byteLength) this.fail('ends early');
  }

  private fail(problem: string): never {
    throw new BinaryDamage(`binary GEOMETRY: ${problem}`);
  }
}

function mbrEquals(a: Mbr, b: Mbr): boolean {
  return Object.is(a.minX, b.minX) && Object.is(a.minY, b.minY) && Object.is(a.minZ, b.minZ) &&
    Object.is(a.maxX, b.maxX) && Object.is(a.maxY, b.maxY) && Object.is(a.maxZ, b.maxZ);
}
