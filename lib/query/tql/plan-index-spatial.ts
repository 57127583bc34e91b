// Spatial index planning: a SPATIAL index serves a WHERE that is, or has among its ANDed
// conditions, ST_MBRIntersects(column, constant) or ST_MBRIntersects(constant, column), where the
// column has a SPATIAL index and the constant is a non-empty geometry other than a QUADRATICSURFACE
// (ST_GeomFromText('...'), ST_MakeRect(...), folded to a value when bound). The range is the
// constant's bounding box; like every index range it holds a superset of the rows WHERE selects,
// and the executor evaluates the whole WHERE on each. The first such condition wins.

import type { ContainerSchema } from '../../schema/container-schema.ts';
import { isGeometryValue } from '../../geometry/geometry-value.ts';
import type { BoundExpression } from './bound.ts';
import type { TqlIndexRange } from './plan-index.ts';

export function planSpatialIndex(
  schema: ContainerSchema,
  where: BoundExpression,
): TqlIndexRange | undefined {
  const spatial = schema.indexes.filter((index) => index.type === 'SPATIAL');
  if (spatial.length === 0) return undefined;
  for (const condition of conjuncts(where)) {
    if (condition.kind !== 'function' || condition.name !== 'ST_MBRINTERSECTS') continue;
    const [a, b] = condition.args as [BoundExpression, BoundExpression];
    const [column, constant] = a.kind === 'column' ? [a, b] : [b, a];
    if (column.kind !== 'column' || constant.kind !== 'constant') continue;
    if (!isGeometryValue(constant.value)) continue;
    const index = spatial.find((i) => i.columnIndexes[0] === column.columnIndex);
    if (index === undefined) continue;
    // The box comes from the value's header: nothing is parsed or decoded.
    if (constant.value.kind === 'QUADRATICSURFACE') continue;
    const mbr = constant.value.mbr;
    if (mbr === undefined) continue;
    return {
      name: index.name, columnIndexes: index.columnIndexes, low: [], lowInclusive: true,
      high: [], highInclusive: true, mbr,
    };
  }
  return undefined;
}

function conjuncts(where: BoundExpression): BoundExpression[] {
  if (where.kind !== 'logical' || where.operator !== 'AND') return [where];
  return where.operands.flatMap(conjuncts);
}
