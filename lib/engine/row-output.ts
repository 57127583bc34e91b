// Rows leaving the engine: a GEOMETRY value, a GeometryValue (its binary form) inside, leaves as
// the WKT text GridDB prints (docs/data-model.md), which is what the client protocol, the web API
// and an embedding program read. Rows inside blocks are shared and never changed: a row holding a
// geometry is copied, any other row goes out as it is.

import type { ContainerSchema } from '../schema/container-schema.ts';
import type { Row } from '../schema/column-type.ts';
import { isGeometryValue } from '../geometry/geometry-value.ts';

const geometryColumnsCache = new WeakMap<ContainerSchema, readonly number[]>();

function geometryColumnsOf(schema: ContainerSchema): readonly number[] {
  let indexes = geometryColumnsCache.get(schema);
  if (indexes === undefined) {
    indexes = schema.columns.flatMap((c, i) => (c.type === 'GEOMETRY' ? [i] : []));
    geometryColumnsCache.set(schema, indexes);
  }
  return indexes;
}

/** The rows as they leave the engine: the same array when the schema has no GEOMETRY column. */
export function rowsForOutput(schema: ContainerSchema, rows: Row[]): Row[] {
  const indexes = geometryColumnsOf(schema);
  if (indexes.length === 0) return rows;
  return rows.map((row) => rowWithText(row, indexes));
}

export function rowForOutput(schema: ContainerSchema, row: Row): Row {
  const indexes = geometryColumnsOf(schema);
  return indexes.length === 0 ? row : rowWithText(row, indexes);
}

function rowWithText(row: Row, indexes: readonly number[]): Row {
  const copy = row.slice();
  for (const index of indexes) {
    const value = copy[index];
    if (isGeometryValue(value)) copy[index] = value.wkt;
  }
  return copy;
}
