// The binary GEOMETRY form (geometry-binary.ts, geometry-value.ts): WKT → binary → WKT gives the
// very text back for geometries of every kind; the header's kind, dimension, SRID and MBR are
// those of the parsed geometry (what ST_MBRIntersects and the spatial index read); damaged bytes
// are a problem, never a crash, and bytes that decode are exactly the encoding of what they hold.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  decodeGeometry, encodeGeometry, isGeometryBinaryProblem,
} from '../../../lib/geometry/geometry-binary.ts';
import {
  geometryValueFromBytes, geometryValueFromWkt, geometryValueOf, isGeometryValue,
} from '../../../lib/geometry/geometry-value.ts';
import { geometryMbr, type Geometry } from '../../../lib/geometry/geometry.ts';
import { isWktProblem, parseWkt } from '../../../lib/geometry/wkt-parse.ts';
import { printWkt } from '../../../lib/geometry/wkt-print.ts';
import { wktArbitrary } from './geometry-arbitraries.ts';

function parsed(wkt: string): Geometry {
  const geometry = parseWkt(wkt);
  assert.ok(!isWktProblem(geometry), `${wkt}: ${isWktProblem(geometry) ? geometry.problem : ''}`);
  return geometry;
}

describe('binary GEOMETRY', () => {
  it('WKT → binary → WKT is the same text, and the header answers as the parsed geometry', () => {
    fc.assert(fc.property(wktArbitrary, (wkt) => {
      const geometry = parsed(wkt);
      const value = geometryValueOf(geometry);
      assert.equal(value.wkt, wkt);
      const read = geometryValueFromBytes(value.bytes.slice());
      assert.ok(isGeometryValue(read));
      assert.equal(read.wkt, wkt);
      assert.deepStrictEqual(read, value);
      assert.equal(read.kind, geometry.kind);
      assert.equal(read.dimension, geometry.dimension);
      assert.equal(read.srid, geometry.srid);
      const mbr = geometry.kind === 'QUADRATICSURFACE' ? undefined : geometryMbr(geometry);
      assert.deepStrictEqual(read.mbr, mbr);
      assert.deepStrictEqual(read.geometry, geometry);
    }), { numRuns: 2000 });
  });

  it('draws the format: header, MBR, counts, coordinates', () => {
    const point = geometryValueFromWkt('POINT(1 2;4326)');
    assert.ok(isGeometryValue(point));
    const pointBytes = point.bytes;
    const view = new DataView(pointBytes.buffer, pointBytes.byteOffset, pointBytes.byteLength);
    assert.deepEqual([...point.bytes.subarray(0, 4)], [0x01, 1, 2, 0]);
    assert.equal(view.getInt32(4, true), 4326);
    assert.deepEqual([8, 16].map((at) => view.getFloat64(at, true)), [1, 2]);
    assert.equal(point.sizeBytes, 8 + 16);
    const line = geometryValueFromWkt('LINESTRING(3 -1 5,0 2 4)');
    assert.ok(isGeometryValue(line));
    const lineBytes = line.bytes;
    const lineView = new DataView(lineBytes.buffer, lineBytes.byteOffset, lineBytes.byteLength);
    assert.deepEqual([...line.bytes.subarray(0, 8)], [0x01, 2, 3, 0, 0xff, 0xff, 0xff, 0xff]);
    assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => lineView.getFloat64(8 + i * 8, true)),
      [0, -1, 4, 3, 2, 5]);
    assert.equal(lineView.getUint32(56, true), 2);
    assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => lineView.getFloat64(60 + i * 8, true)),
      [3, -1, 5, 0, 2, 4]);
    assert.equal(line.sizeBytes, 60 + 48);
    const empty = geometryValueFromWkt('POLYGON(EMPTY)');
    assert.ok(isGeometryValue(empty));
    assert.deepEqual([...empty.bytes], [0x01, 3, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    assert.equal(empty.mbr, undefined);
  });

  it('damaged bytes are a problem; bytes that decode are the encoding of what they hold', () => {
    const damaged = fc.tuple(wktArbitrary, fc.array(fc.tuple(fc.nat(), fc.nat(255)),
      { minLength: 1, maxLength: 4 }), fc.nat()).map(([wkt, flips, cut]) => {
      const bytes = encodeGeometry(parsed(wkt)).slice();
      for (const [at, byte] of flips) bytes[at % bytes.length] = byte;
      return cut % 3 === 0 ? bytes.subarray(0, cut % (bytes.length + 1)) : bytes;
    });
    fc.assert(fc.property(damaged, (bytes) => {
      const decoded = decodeGeometry(bytes);
      if (isGeometryBinaryProblem(decoded)) {
        assert.match(decoded.problem, /^binary GEOMETRY: /);
        return;
      }
      assert.deepStrictEqual(encodeGeometry(decoded), Uint8Array.from(bytes));
      assert.equal(printWkt(parsed(printWkt(decoded))), printWkt(decoded));
    }), { numRuns: 2000 });
  });
});
