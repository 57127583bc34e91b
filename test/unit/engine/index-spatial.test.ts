// SpatialIndex on its own: which rows get an entry (NULL and empty geometries none; a stored text
// that is not WKT, as a home written before values were checked may hold, the whole plane), search
// by x-y box (2-D and 3-D geometries alike), removal by position, and the bytes it counts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SpatialIndex } from '../../../lib/engine/index-spatial.ts';
import { geometryValueFromWkt, type GeometryValue } from '../../../lib/geometry/geometry-value.ts';
import type { Row } from '../../../lib/schema/column-type.ts';

/** Rows hold a GEOMETRY as its binary form; a string is legacy text that did not parse. */
const g = (wkt: string) => geometryValueFromWkt(wkt) as GeometryValue;

const compare = (a: unknown, b: unknown) => (a as number) - (b as number);
const window = (minX: number, minY: number, maxX: number, maxY: number) =>
  ({ minX, minY, maxX, maxY, minZ: -Infinity, maxZ: Infinity });

describe('SpatialIndex', () => {
  it('enters parsed boxes, skips NULL and empty, and keeps unreadable text findable', () => {
    const index = new SpatialIndex(1, compare);
    const rows: Row[] = [
      [0, g('POINT(1 1)')], [1, g('POINT(5 5 100)')], [2, g('LINESTRING(-10 0,10 0)')], [3, null],
      [4, g('POINT(EMPTY)')], [5, 'CIRCLE(1)'], [6, g('POINT(50 50)')],
    ];
    let sizeBytes = 0;
    for (const row of rows) sizeBytes += index.insertRow(row, row[0] as number);
    assert.equal(index.entryCount, 5);
    assert.equal(index.sizeBytes, sizeBytes);
    const found = (mbr: ReturnType<typeof window>) => [...index.positions(mbr)].sort(compare);
    assert.deepEqual(found(window(0, 0, 6, 6)), [0, 1, 2, 5]);
    assert.deepEqual(found(window(40, 40, 60, 60)), [5, 6]);
    assert.deepEqual(found(window(100, 100, 101, 101)), [5]);
  });

  it('removes the entry of a row by its position, and counts the bytes back', () => {
    const index = new SpatialIndex(1, compare);
    index.insertRow([0, g('POINT(1 1)')], 0);
    index.insertRow([1, g('POINT(1 1)')], 1);
    const sizeBytes = index.deleteRow([0, g('POINT(1 1)')], 0);
    assert.ok(sizeBytes > 0);
    assert.deepEqual([...index.positions(window(0, 0, 2, 2))], [1]);
    assert.equal(index.deleteRow([3, null], 3), 0);
    index.deleteRow([1, g('POINT(1 1)')], 1);
    assert.equal(index.sizeBytes, 0);
    assert.equal(index.entryCount, 0);
  });
});
