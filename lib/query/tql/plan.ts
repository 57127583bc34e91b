// The planner: how to read a container for a query. From WHERE it derives a range of the row key
// and, when a TREE index fits the rest of WHERE, a range of that index (plan-index.ts)
// (single-column keys), so that `ts >= TIMESTAMP(...) AND ts < TIMESTAMP(...)` reads only the
// blocks of that range; from ORDER BY it decides whether row-key order (ascending or descending)
// already is the result order, so that no sort is needed and LIMIT can stop the scan early.
//
// The range is a superset of the rows WHERE can select: the executor still evaluates the whole
// WHERE on every row it reads, so the planner may round outward (a DOUBLE bound, a nanosecond bound
// on a millisecond key) and may ignore what it does not understand (OR of unlike parts, NOT, any
// function), and the result stays exact.
//
//   AND → intersection of the operands' ranges     OR → the hull of the operands' ranges
//   key op constant, constant op key (=, <, <=, >, >=), key IN (constants), key BETWEEN a AND b
//   a comparison with NULL, FALSE or NULL alone → the empty range: no row is read at all

import {
  INT64_MAX, INT64_MIN, type RowKey, type TimePrecision,
} from '../../schema/column-type.ts';
import type { ContainerSchema } from '../../schema/container-schema.ts';
import { compareKeyValues } from '../../schema/row-key.ts';
import type { Integral } from './arithmetic.ts';
import type { TqlComparisonOperator } from './ast.ts';
import type { BoundExpression } from './bound.ts';
import type { OrderKey } from './order.ts';
import { flipComparison, planIndex, type TqlIndexRange } from './plan-index.ts';
import { planSpatialIndex } from './plan-index-spatial.ts';
import { isFloating, unitsPerMs, type TqlType } from './types.ts';

export interface TqlScanPlan {
  /** WHERE can select no row: nothing need be read. */
  readonly empty: boolean;
  /** Inclusive row-key bounds; undefined: open. */
  readonly from: RowKey | undefined;
  readonly to: RowKey | undefined;
  readonly direction: 'asc' | 'desc';
  /** The scan's order is the ORDER BY order: no sort, and LIMIT stops the scan. */
  readonly ordered: boolean;
  /**
   * The key range says all WHERE says (`ts >= a AND ts < b`): every row in range is selected, so
   * WHERE need not be evaluated, and an aggregate may read columns without rows.
   */
  readonly whereCovered: boolean;
  /**
   * A range of a TREE index that holds every row WHERE selects (plan-index.ts); the source may read
   * through it, or scan when the index is not in memory. Never set when whereCovered.
   */
  readonly index: TqlIndexRange | undefined;
}

type KeyDomain =
  | { readonly kind: 'string' }
  /** Integers in key units (1 for INTEGER and LONG, units per ms for TIMESTAMP). */
  | {
    readonly kind: 'integer'; readonly js: 'number' | 'bigint';
    readonly timePrecision: TimePrecision | undefined;
  };

interface KeyRange {
  readonly empty: boolean;
  readonly low?: bigint | string;
  readonly high?: bigint | string;
}

const FULL: KeyRange = { empty: false };
const EMPTY: KeyRange = { empty: true };

export function planScan(
  schema: ContainerSchema,
  where: BoundExpression | undefined,
  orderBy: readonly OrderKey[],
): TqlScanPlan {
  const order = scanOrder(schema, orderBy);
  const domain = keyDomain(schema);
  const range = where === undefined ? FULL : rangeOf(where, domain);
  const bounds = range.empty ? undefined : scanBounds(range, domain);
  if (bounds === undefined) {
    return {
      empty: true, from: undefined, to: undefined, ...order, whereCovered: false, index: undefined,
    };
  }
  const whereCovered = where === undefined || (domain !== undefined && covers(where, domain));
  const index = where === undefined || whereCovered ? undefined
    : planIndex(schema, where) ?? planSpatialIndex(schema, where);
  return { empty: false, ...bounds, ...order, whereCovered, index };
}

/**
 * Is WHERE exactly "the key is in the range"? So it is when it is an AND of comparisons of the key
 * with constants whose bounds are exact: integers with an integer key, times no finer than the
 * key's, a string key with =.
 */
function covers(where: BoundExpression, domain: KeyDomain): boolean {
  if (where.kind === 'logical') {
    return where.operator === 'AND' && where.operands.every((operand) => covers(operand, domain));
  }
  if (where.kind !== 'compare' || where.operator === '<>') return false;
  const constant = isKey(where.left) ? where.right : isKey(where.right) ? where.left : undefined;
  if (constant?.kind !== 'constant' || constant.value === null) return false;
  if (domain.kind === 'string') return where.operator === '=';
  if (domain.timePrecision !== undefined) {
    return constant.type.scalar === 'TIMESTAMP' &&
      unitsPerMs(constant.type.timePrecision) <= unitsPerMs(domain.timePrecision);
  }
  return where.mode === 'integral';
}

function keyDomain(schema: ContainerSchema): KeyDomain | undefined {
  if (schema.rowKeyColumnCount !== 1) return undefined; // keyless, or composite
  const column = schema.columns[0]!;
  switch (column.type) {
    case 'STRING': return { kind: 'string' };
    case 'INTEGER': return { kind: 'integer', js: 'number', timePrecision: undefined };
    case 'LONG': return { kind: 'integer', js: 'bigint', timePrecision: undefined };
    case 'TIMESTAMP': {
      const precision = column.timePrecision ?? 'MILLISECOND';
      const js = precision === 'MILLISECOND' ? 'number' : 'bigint';
      return { kind: 'integer', js, timePrecision: precision };
    }
    default: return undefined;
  }
}

// ---- ranges ----------------------------------------------------------------------------------

function rangeOf(expression: BoundExpression, domain: KeyDomain | undefined): KeyRange {
  switch (expression.kind) {
    case 'constant': return expression.value === false || expression.value === null ? EMPTY : FULL;
    case 'logical': {
      const ranges = expression.operands.map((operand) => rangeOf(operand, domain));
      return expression.operator === 'AND' ? ranges.reduce(intersect) : ranges.reduce(hull);
    }
    case 'compare': {
      if (domain === undefined) return FULL;
      if (isKey(expression.left) && expression.right.kind === 'constant') {
        return comparisonRange(expression.operator, expression.right, domain);
      }
      if (isKey(expression.right) && expression.left.kind === 'constant') {
        return comparisonRange(flipComparison(expression.operator), expression.left, domain);
      }
      return FULL;
    }
    case 'in': {
      if (domain === undefined || expression.negated || !isKey(expression.operand)) return FULL;
      if (!expression.list.every((item) => item.kind === 'constant')) return FULL;
      return expression.list
        .map((item) => comparisonRange('=', item as BoundExpression & { kind: 'constant' }, domain))
        .reduce(hull, EMPTY);
    }
    default: return FULL;
  }
}

function isKey(expression: BoundExpression): boolean {
  return expression.kind === 'column' && expression.columnIndex === 0;
}

/** The keys that can satisfy `key operator constant`. */
function comparisonRange(
  operator: TqlComparisonOperator,
  constant: BoundExpression & { kind: 'constant' },
  domain: KeyDomain,
): KeyRange {
  const value = constant.value;
  if (value === null) return EMPTY;
  if (operator === '<>') return FULL;
  if (domain.kind === 'string') {
    if (operator !== '=' || typeof value !== 'string') return FULL;
    return { empty: false, low: value, high: value };
  }
  const bounds = integerBounds(value, constant.type, domain, operator);
  if (bounds === 'full' || bounds === 'empty') return bounds === 'full' ? FULL : EMPTY;
  const { floor, ceil } = bounds;
  const exact = floor === ceil;
  switch (operator) {
    case '=': return exact ? { empty: false, low: floor, high: floor } : EMPTY;
    case '<': return { empty: false, high: exact ? floor - 1n : floor };
    case '<=': return { empty: false, high: floor };
    case '>': return { empty: false, low: exact ? ceil + 1n : ceil };
    case '>=': return { empty: false, low: ceil };
  }
}

/**
 * The constant in key units as floor and ceiling integers; NaN and ±INF decide the comparison
 * alone (NaN is above every number: `key < NaN` holds for every key).
 */
function integerBounds(
  value: unknown,
  type: TqlType,
  domain: KeyDomain & { kind: 'integer' },
  operator: TqlComparisonOperator,
): { floor: bigint; ceil: bigint } | 'full' | 'empty' {
  if (domain.timePrecision !== undefined) {
    if (type.scalar !== 'TIMESTAMP') return 'full';
    const keyUnits = unitsPerMs(domain.timePrecision);
    const valueUnits = unitsPerMs(type.timePrecision);
    const v = BigInt(value as Integral);
    if (valueUnits <= keyUnits) {
      const scaled = v * BigInt(keyUnits / valueUnits);
      return { floor: scaled, ceil: scaled };
    }
    const scale = BigInt(valueUnits / keyUnits);
    const floor = floorDivide(v, scale);
    return { floor, ceil: v % scale === 0n ? floor : floor + 1n };
  }
  if (isFloating(type)) {
    const d = value as number;
    if (Number.isNaN(d) || !Number.isFinite(d)) {
      const above = Number.isNaN(d) || d > 0; // the constant is above every key
      const holds = above
        ? operator === '<' || operator === '<=' : operator === '>' || operator === '>=';
      return holds ? 'full' : 'empty';
    }
    // A LONG key is compared as a double: beyond 2^53 many keys round to the same double, so a
    // bound there would be narrower than the comparison.
    if (domain.js === 'bigint' && Math.abs(d) >= 2 ** 53) return 'full';
    return { floor: BigInt(Math.floor(d)), ceil: BigInt(Math.ceil(d)) };
  }
  if (typeof value === 'number' || typeof value === 'bigint') {
    const v = BigInt(value);
    return { floor: v, ceil: v };
  }
  return 'full';
}

function floorDivide(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? quotient - 1n : quotient;
}

function less(a: bigint | string, b: bigint | string): boolean {
  return compareKeyValues(a, b) < 0;
}

function intersect(a: KeyRange, b: KeyRange): KeyRange {
  if (a.empty || b.empty) return EMPTY;
  const low = a.low === undefined ? b.low
    : b.low === undefined || less(b.low, a.low) ? a.low : b.low;
  const high = a.high === undefined ? b.high
    : b.high === undefined || less(a.high, b.high) ? a.high : b.high;
  if (low !== undefined && high !== undefined && less(high, low)) return EMPTY;
  return { empty: false, low, high };
}

function hull(a: KeyRange, b: KeyRange): KeyRange {
  if (a.empty) return b;
  if (b.empty) return a;
  const low = a.low === undefined || b.low === undefined ? undefined
    : less(a.low, b.low) ? a.low : b.low;
  const high = a.high === undefined || b.high === undefined ? undefined
    : less(a.high, b.high) ? b.high : a.high;
  return { empty: false, low, high };
}

/** Range → scan bounds in the key's JS shape; undefined when no key can be in range. */
function scanBounds(
  range: KeyRange,
  domain: KeyDomain | undefined,
): { from: RowKey | undefined; to: RowKey | undefined } | undefined {
  if (domain === undefined) return { from: undefined, to: undefined };
  if (domain.kind === 'string') {
    return { from: range.low as string | undefined, to: range.high as string | undefined };
  }
  const [min, max] = domain.js === 'number'
    ? [BigInt(Number.MIN_SAFE_INTEGER), BigInt(Number.MAX_SAFE_INTEGER)]
    : [INT64_MIN, INT64_MAX];
  const low = range.low as bigint | undefined;
  const high = range.high as bigint | undefined;
  if ((low !== undefined && low > max) || (high !== undefined && high < min)) return undefined;
  const shape = (value: bigint): RowKey => (domain.js === 'number' ? Number(value) : value);
  return {
    from: low === undefined || low < min ? undefined : shape(low),
    to: high === undefined || high > max ? undefined : shape(high),
  };
}

// ---- order -----------------------------------------------------------------------------------

/**
 * Row-key order is the ORDER BY order when the keys are the row-key columns in order: all of them
 * in one direction, or a leading part of them ascending (ties then stay in key order, as a stable
 * sort keeps them). Any other ORDER BY sorts.
 */
function scanOrder(
  schema: ContainerSchema,
  orderBy: readonly OrderKey[],
): { direction: 'asc' | 'desc'; ordered: boolean } {
  if (orderBy.length === 0) return { direction: 'asc', ordered: true };
  const keyCount = schema.rowKeyColumnCount;
  let covered = 0;
  const limit = Math.min(orderBy.length, keyCount);
  while (covered < limit && orderBy[covered]!.columnIndex === covered) covered++;
  if (covered === 0) return { direction: 'asc', ordered: false };
  const keys = orderBy.slice(0, covered);
  const ascending = keys.every((key) => !key.descending);
  const descending = keys.every((key) => key.descending);
  if (covered === keyCount && (ascending || descending)) {
    return { direction: descending ? 'desc' : 'asc', ordered: true };
  }
  if (covered === orderBy.length && ascending) return { direction: 'asc', ordered: true };
  return { direction: 'asc', ordered: false };
}

