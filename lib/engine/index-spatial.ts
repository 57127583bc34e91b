// One SPATIAL index of one container in memory: an R-tree (rbush) of the x-y bounding boxes of the
// committed rows' GEOMETRY values, each entry holding its row's position. Like a TREE index it is
// derived from the rows (container-indexes.ts builds it, keeps it equal to them, and builds it
// again after a restart), so nothing of it is persisted.
//
// Why 2-D. ST_MBRIntersects compares boxes in x, y and z, but a 2-D geometry spans all of z, and
// boxes that meet in 3-D meet in x-y: the x-y boxes name a superset of the rows, which the
// executor then filters with the whole WHERE, as for every index. rbush-3d would narrow 3-D data
// in z too; it is young (0.1.x, May 2026), rbush is mature and maintained (4.0.1, Dec 2024).
//
// What is entered: a row whose value is not empty, with the MBR its binary form's header holds
// (geometry-value.ts; no coordinate is decoded, no text parsed). NULL and empty geometries never
// satisfy ST_MBRIntersects and are left out. A string is WKT text from a home written before the
// binary form (a row block not written since keeps it): it is parsed, and one that does not parse
// (written before values were checked) is entered with the whole plane as its box, so that the
// query reads it and fails on it exactly as a scan would.

import RBush from 'rbush';
import { assert } from '../base/assert.ts';
import type { Mbr } from '../geometry/geometry.ts';
import {
  geometryValueFromWkt, isGeometryValue, type GeometryValue,
} from '../geometry/geometry-value.ts';
import type { Row, RowKey } from '../schema/column-type.ts';

function geometryOfText(value: unknown): GeometryValue | undefined {
  assert(typeof value === 'string');
  const geometry = geometryValueFromWkt(value);
  return isGeometryValue(geometry) ? geometry : undefined;
}

/** Memory an entry is counted for: its box object, its share of the tree's nodes, its key. */
const SPATIAL_ENTRY_SIZE_BYTES = 160;
/** rbush node fan-out; 16 favours search over insert a little (rbush's default is 9). */
const SPATIAL_NODE_ENTRY_COUNT_MAX = 16;

interface SpatialEntry {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  readonly position: RowKey;
}

export class SpatialIndex {
  private readonly tree = new RBush<SpatialEntry>(SPATIAL_NODE_ENTRY_COUNT_MAX);
  /** What the entries hold, by SPATIAL_ENTRY_SIZE_BYTES. */
  sizeBytes = 0;
  entryCount = 0;

  constructor(
    readonly columnIndex: number,
    private readonly comparePosition: (a: RowKey, b: RowKey) => number,
  ) {}

  /** The entry of a row, or undefined when the row has none (NULL or empty geometry). */
  entryOf(row: Row, position: RowKey): SpatialEntry | undefined {
    const value = row[this.columnIndex];
    if (value === null || value === undefined) return undefined;
    const geometry = isGeometryValue(value) ? value : geometryOfText(value);
    if (geometry === undefined) {
      const far = Number.MAX_VALUE;
      return { minX: -far, minY: -far, maxX: far, maxY: far, position };
    }
    const mbr = geometry.mbr;
    if (mbr === undefined) return undefined;
    return { minX: mbr.minX, minY: mbr.minY, maxX: mbr.maxX, maxY: mbr.maxY, position };
  }

  /** Adds entries all at once (a build); returns the bytes they take. */
  load(entries: SpatialEntry[]): number {
    this.tree.load(entries);
    return this.counted(entries.length);
  }

  /** Adds the entry of a row; returns the bytes it takes (0: the row has none). */
  insertRow(row: Row, position: RowKey): number {
    const entry = this.entryOf(row, position);
    if (entry === undefined) return 0;
    this.tree.insert(entry);
    return this.counted(1);
  }

  /** Removes the entry of a row; returns the bytes it took. */
  deleteRow(row: Row, position: RowKey): number {
    const entry = this.entryOf(row, position);
    if (entry === undefined) return 0;
    assert(this.entryCount > 0, 'a spatial entry missing for a committed row');
    this.tree.remove(entry, (a, b) => this.comparePosition(a.position, b.position) === 0);
    return this.counted(-1);
  }

  /** Positions of the rows whose box meets `mbr` in x and y, in no particular order. */
  *positions(mbr: Mbr): Generator<RowKey, undefined, undefined> {
    const box = { minX: mbr.minX, minY: mbr.minY, maxX: mbr.maxX, maxY: mbr.maxY };
    for (const entry of this.tree.search(box)) yield entry.position;
  }

  /** The bytes `entryCount` entries are counted for. */
  sizeBytesOf(entryCount: number): number {
    return entryCount * SPATIAL_ENTRY_SIZE_BYTES;
  }

  private counted(entryCount: number): number {
    this.entryCount += entryCount;
    assert(this.entryCount >= 0);
    const sizeBytes = Math.abs(entryCount) * SPATIAL_ENTRY_SIZE_BYTES;
    this.sizeBytes += entryCount >= 0 ? sizeBytes : -sizeBytes;
    return sizeBytes;
  }
}
