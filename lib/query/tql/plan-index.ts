// Index planning: which TREE index of the container can narrow a WHERE, and to which range of it.
// The planner (plan.ts) asks this only when the row-key range does not already say everything.
//
// WHERE is read as an AND of conditions (nested ANDs flattened; an OR, NOT or function is simply not
// used). Each condition of one column with a constant gives that column an interval:
//   col = c, c = col        [c, c]          col < c, col <= c, col > c, col >= c   half-open
//   col IS NULL             [NULL, NULL]    col IS NOT NULL                        below NULL
// (comparisons never select NULL, so their intervals stop below it; NULL sorts last, index-order.ts).
// An index is usable when its leading columns have point intervals (equality) and the next one any
// interval: a composite (a, b, c) serves `a = 1 AND b > 2`, not `b > 2` alone. The index whose
// range pins most columns wins; ties go to the index defined first.
//
// Like the key range, an index range is a superset of the rows WHERE selects: constants are rounded
// outward into the column's domain (a DOUBLE bound on a LONG column, a nanosecond bound on a
// millisecond column), anything not understood is left out, and the executor evaluates the whole
// WHERE on every row the index hands it. So results equal a scan's exactly, rows in row-key order.

import type { Mbr } from '../../geometry/geometry.ts';
import type { ColumnSchema, ContainerSchema } from '../../schema/container-schema.ts';
import type { Value } from '../../schema/column-type.ts';
import type { Integral } from './arithmetic.ts';
import type { TqlComparisonOperator } from './ast.ts';
import type { BoundExpression } from './bound.ts';
import { indexValueCompare } from './index-order.ts';
import { isFloating, isIntegral, unitsPerMs, type TqlType } from './types.ts';

/** A range of one index: entries whose leading values lie between `low` and `high`. */
export interface TqlIndexRange {
  /** The index's name as defined ('' when unnamed) and its columns, as in schema.indexes. */
  readonly name: string;
  readonly columnIndexes: readonly number[];
  /** Leading values the range starts at (a prefix of the index's columns; empty: the start). */
  readonly low: readonly Value[];
  readonly lowInclusive: boolean;
  /** Leading values the range ends at (empty: the end). */
  readonly high: readonly Value[];
  readonly highInclusive: boolean;
  /**
   * Set for a SPATIAL index (plan-index-spatial.ts): the rows whose GEOMETRY's box meets this one;
   * `low` and `high` are then empty.
   */
  readonly mbr?: Mbr;
}

interface Bound {
  readonly value: Value;
  readonly inclusive: boolean;
}

interface Interval {
  low: Bound | undefined;
  high: Bound | undefined;
}

const BELOW_NULL: Bound = { value: null, inclusive: false };

/**
 * How results and EXPLAIN name an index: its name, or TREE(its columns) (SPATIAL(its column)) when
 * it has none.
 */
export function indexLabel(
  index: Pick<TqlIndexRange, 'name' | 'columnIndexes' | 'mbr'>,
  columns: readonly ColumnSchema[],
): string {
  if (index.name !== '') return index.name;
  const type = index.mbr === undefined ? 'TREE' : 'SPATIAL';
  return `${type}(${index.columnIndexes.map((c) => columns[c]!.name).join(', ')})`;
}

export function planIndex(
  schema: ContainerSchema,
  where: BoundExpression,
): TqlIndexRange | undefined {
  if (!schema.indexes.some((index) => index.type === 'TREE')) return undefined;
  const intervals = new Map<number, Interval>();
  for (const condition of conjuncts(where)) {
    const found = conditionInterval(schema.columns, condition);
    if (found === undefined) continue;
    const [columnIndex, interval] = found;
    const column = schema.columns[columnIndex]!;
    const known = intervals.get(columnIndex);
    intervals.set(columnIndex, known === undefined ? interval : intersect(column, known, interval));
  }
  if (intervals.size === 0) return undefined;
  let best: { range: TqlIndexRange; score: number } | undefined;
  for (const index of schema.indexes) {
    if (index.type !== 'TREE') continue;
    const low: Value[] = [];
    const high: Value[] = [];
    let lowInclusive = true;
    let highInclusive = true;
    let score = 0;
    for (const columnIndex of index.columnIndexes) {
      const interval = intervals.get(columnIndex);
      if (interval === undefined) break;
      const column = schema.columns[columnIndex]!;
      if (isPoint(column, interval)) {
        low.push(interval.low!.value);
        high.push(interval.high!.value);
        score += 2;
        continue;
      }
      if (interval.low !== undefined) {
        low.push(interval.low.value);
        lowInclusive = interval.low.inclusive;
      }
      if (interval.high !== undefined) {
        high.push(interval.high.value);
        highInclusive = interval.high.inclusive;
      }
      score += 1;
      break;
    }
    if (score > 0 && (best === undefined || score > best.score)) {
      const { name, columnIndexes } = index;
      best = { range: { name, columnIndexes, low, lowInclusive, high, highInclusive }, score };
    }
  }
  return best?.range;
}

function conjuncts(where: BoundExpression): BoundExpression[] {
  if (where.kind === 'logical' && where.operator === 'AND') return where.operands.flatMap(conjuncts);
  return [where];
}

function isPoint(column: ColumnSchema, interval: Interval): boolean {
  const { low, high } = interval;
  return low !== undefined && high !== undefined && low.inclusive && high.inclusive &&
    indexValueCompare(column.type)(low.value, high.value) === 0;
}

/** The interval one condition gives one column; undefined when it gives none. */
function conditionInterval(
  columns: readonly ColumnSchema[],
  condition: BoundExpression,
): [number, Interval] | undefined {
  if (condition.kind === 'isNull') {
    if (condition.operand.kind !== 'column') return undefined;
    const interval = condition.negated
      ? { low: undefined, high: BELOW_NULL }
      : { low: { value: null, inclusive: true }, high: { value: null, inclusive: true } };
    return [condition.operand.columnIndex, interval];
  }
  if (condition.kind !== 'compare' || condition.operator === '<>') return undefined;
  let { left, right } = condition;
  let operator: TqlComparisonOperator = condition.operator;
  if (left.kind === 'constant' && right.kind === 'column') {
    [left, right] = [right, left];
    operator = flipComparison(operator);
  }
  if (left.kind !== 'column' || right.kind !== 'constant' || right.value === null) return undefined;
  const column = columns[left.columnIndex]!;
  const bounds = constantInColumn(column, right.value, right.type, operator);
  if (bounds === undefined) return undefined;
  return [left.columnIndex, comparisonInterval(operator, bounds)];
}

/** `a op b` as `b flip(op) a`. */
export function flipComparison(operator: TqlComparisonOperator): TqlComparisonOperator {
  switch (operator) {
    case '<': return '>';
    case '<=': return '>=';
    case '>': return '<';
    case '>=': return '<=';
    default: return operator;
  }
}

interface ColumnBounds {
  /** The greatest column value <= the constant, and the least >= it: equal when exact. */
  readonly floor: Value;
  readonly ceil: Value;
  readonly exact: boolean;
}

function comparisonInterval(operator: TqlComparisonOperator, bounds: ColumnBounds): Interval {
  const { floor, ceil, exact } = bounds;
  switch (operator) {
    case '=': return { low: { value: floor, inclusive: true }, high: { value: ceil, inclusive: true } };
    case '<': return { low: undefined, high: { value: floor, inclusive: !exact } };
    case '<=': return { low: undefined, high: { value: floor, inclusive: true } };
    case '>': return { low: { value: ceil, inclusive: !exact }, high: BELOW_NULL };
    default: return { low: { value: ceil, inclusive: true }, high: BELOW_NULL };
  }
}

/**
 * A constant as values of the column's domain, rounded outward; undefined when the comparison
 * does not map onto the column's order (it is then left to the filter).
 */
function constantInColumn(
  column: ColumnSchema,
  value: Value,
  type: TqlType,
  operator: TqlComparisonOperator,
): ColumnBounds | undefined {
  if (column.array || type.array) return undefined;
  switch (column.type) {
    case 'BYTE': case 'SHORT': case 'INTEGER': case 'FLOAT': case 'DOUBLE': {
      if (typeof value === 'number') return exactly(value);
      if (typeof value !== 'bigint') return undefined;
      const double = Number(value);
      return Number.isSafeInteger(double) ? exactly(double) : undefined;
    }
    case 'LONG': {
      if (isIntegral(type) && (typeof value === 'number' || typeof value === 'bigint')) {
        return exactly(BigInt(value));
      }
      if (!isFloating(type) || typeof value !== 'number') return undefined;
      // Beyond 2^53 many LONGs round to one double: no bound is narrow enough to be right.
      if (!Number.isFinite(value) || Math.abs(value) >= 2 ** 53) return undefined;
      const floor = BigInt(Math.floor(value));
      const ceil = BigInt(Math.ceil(value));
      return { floor, ceil, exact: floor === ceil };
    }
    case 'TIMESTAMP':
      if (type.scalar !== 'TIMESTAMP') return undefined;
      if (typeof value !== 'number' && typeof value !== 'bigint') return undefined;
      return timeInColumn(column, value, type);
    case 'STRING':
      return operator === '=' && typeof value === 'string' ? exactly(value) : undefined;
    case 'BOOL':
      return operator === '=' && typeof value === 'boolean' ? exactly(value) : undefined;
    default:
      return undefined;
  }
}

function exactly(value: Value): ColumnBounds {
  return { floor: value, ceil: value, exact: true };
}

function timeInColumn(column: ColumnSchema, value: Integral, type: TqlType): ColumnBounds {
  const columnUnits = unitsPerMs(column.timePrecision);
  const valueUnits = unitsPerMs(type.timePrecision);
  const shape = (units: bigint): Value =>
    ((column.timePrecision ?? 'MILLISECOND') === 'MILLISECOND' ? Number(units) : units);
  const v = BigInt(value);
  if (valueUnits <= columnUnits) return exactly(shape(v * BigInt(columnUnits / valueUnits)));
  const scale = BigInt(valueUnits / columnUnits);
  const quotient = v / scale;
  const floor = v % scale !== 0n && v < 0n ? quotient - 1n : quotient;
  const ceil = v % scale === 0n ? floor : floor + 1n;
  return { floor: shape(floor), ceil: shape(ceil), exact: floor === ceil };
}

function intersect(column: ColumnSchema, a: Interval, b: Interval): Interval {
  const compare = indexValueCompare(column.type);
  const tighter = (x: Bound | undefined, y: Bound | undefined, sign: number) => {
    if (x === undefined) return y;
    if (y === undefined) return x;
    const order = sign * compare(x.value, y.value);
    if (order !== 0) return order > 0 ? x : y;
    return x.inclusive ? y : x;
  };
  return { low: tighter(a.low, b.low, 1), high: tighter(a.high, b.high, -1) };
}
