// What a table scan does itself, from the WHERE above it: the row-key ranges it reads, a TREE
// index range (plan-index-range.ts), and, for SELECT, the scan order that makes an ORDER BY on the
// row key needless. SELECT (plan-select.ts), UPDATE and DELETE (run-dml.ts) all scan through it.
//
// Key ranges. A composite key takes its leading columns' points and then one range:
// `PRIMARY KEY (hostname, ts)` with `hostname = 'h1' AND ts >= 10 AND ts < 20` reads from
// ['h1', 10] to ['h1', 19]; `hostname = 'h1'` alone reads ['h1'] to ['h1'] (prefixes, which the
// engine pads). `hostname IN ('h1', 'h3')` gives one range per value, in key order (at most
// SQL_KEY_RANGE_COUNT_MAX; past it the hull). A STRING key column other than the first takes
// points only: SQL orders strings by code point, keys by UTF-16 unit. Bounds are any statement
// constant: literals, `?` parameters, folded calls (fold-constant.ts). The filter stays above the
// scan, so the ranges only spare reading rows that cannot match.
//
// Order. Rows come in row-key order; within one range whose leading columns are points, in the
// order of the next key columns. An ORDER BY that lists those columns (not STRING: the same
// code-point rule), all ASC or all DESC, with only filters and projections between it and the
// scan, is dropped, the scan runs in that direction, and a LIMIT above stops it early:
// `WHERE hostname = ? ORDER BY ts DESC LIMIT 1` reads the host's last block only.

import { SQL_KEY_RANGE_COUNT_MAX } from '../../base/limits.ts';
import type { KeyValue, RowKey } from '../../schema/column-type.ts';
import type { ContainerSchema } from '../../schema/container-schema.ts';
import { compareKeyValues } from '../../schema/row-key.ts';
import type { SqlHint } from '../ast.ts';
import { sqlTypeOfColumn } from '../exec/table-source.ts';
import type { SqlEvalContext } from '../functions/scalar-function.ts';
import { isSqlNumericType, type SqlType } from '../value.ts';
import type { SqlBoundExpression } from './bound-expression.ts';
import type { SqlIndexRange, SqlKeyRange, SqlPlanNode } from './logical-plan.ts';
import { planIndexRange } from './plan-index-range.ts';
import { columnBounds, conjunctsOf, constantValue, isStatementConstant } from './plan-key-range.ts';

export interface SqlScanAccess {
  /** The hull of keyRanges (what EXPLAIN shows). */
  readonly keyRange: SqlKeyRange;
  /** Disjoint ranges in key order, when more than one. */
  readonly keyRanges: readonly SqlKeyRange[] | undefined;
  readonly index: SqlIndexRange | undefined;
}

export const FULL_RANGE: SqlKeyRange = { from: undefined, to: undefined, empty: false };
const EMPTY_RANGE: SqlKeyRange = { from: undefined, to: undefined, empty: true };

/** The key ranges and index range WHERE allows on a table. */
export function scanAccess(schema: ContainerSchema, where: SqlBoundExpression | undefined,
  context: { readonly evalContext: SqlEvalContext; readonly hints: readonly SqlHint[] }): SqlScanAccess {
  if (where === undefined) return { keyRange: FULL_RANGE, keyRanges: undefined, index: undefined };
  const conjuncts = conjunctsOf(where);
  const ranges = keyRangesOf(schema, conjuncts, context.evalContext);
  const keyRange = ranges.length === 1 ? ranges[0]!
    : ranges.length === 0 ? EMPTY_RANGE : { from: ranges[0]!.from, to: ranges.at(-1)!.to, empty: false };
  const index = keyRange.empty ? undefined : planIndexRange(schema, conjuncts, context.hints, context.evalContext);
  return { keyRange, keyRanges: ranges.length > 1 ? ranges : undefined, index };
}

/** The key ranges, in key order; none when WHERE proves no row can match. */
function keyRangesOf(schema: ContainerSchema, conjuncts: readonly SqlBoundExpression[],
  context: SqlEvalContext): SqlKeyRange[] {
  const count = schema.rowKeyColumnCount;
  if (count === 0) return [FULL_RANGE];
  let prefixes: KeyValue[][] = [[]];
  let low: KeyValue | undefined;
  let high: KeyValue | undefined;
  for (let i = 0; i < count; i++) {
    const range = columnKeyRange(schema, conjuncts, i, context);
    if (range.empty) return [];
    const inRange = (value: KeyValue) =>
      (range.from === undefined || compareKeyValues(value, range.from as KeyValue) >= 0) &&
      (range.to === undefined || compareKeyValues(value, range.to as KeyValue) <= 0);
    const listed = columnPoints(schema, conjuncts, i, context)?.filter(inRange);
    const points = listed ?? (range.from !== undefined && range.from === range.to ? [range.from as KeyValue] : undefined);
    if (points !== undefined) {
      if (points.length === 0) return [];
      if (prefixes.length * points.length <= SQL_KEY_RANGE_COUNT_MAX) {
        prefixes = prefixes.flatMap((prefix) => points.map((point) => [...prefix, point]));
        continue;
      }
      low = points[0];
      high = points.at(-1);
      break;
    }
    if (i > 0 && schema.columns[i]!.type === 'STRING') break;
    low = range.from as KeyValue | undefined;
    high = range.to as KeyValue | undefined;
    break;
  }
  return prefixes.map((prefix) => {
    const from = low === undefined ? prefix : [...prefix, low];
    const to = high === undefined ? prefix : [...prefix, high];
    if (count === 1) return { from: from[0], to: to[0], empty: false };
    return {
      from: from.length === 0 ? undefined : from as RowKey, to: to.length === 0 ? undefined : to as RowKey, empty: false,
    };
  });
}

/**
 * The bounds the conjuncts put on key column `columnIndex` (> 0) once the columns before it are
 * fixed, as an index nested-loop join's look-up fixes them; undefined: no bound (or a STRING column,
 * whose code-point order is not the key's). `empty`: no row can match.
 */
export function keyColumnRange(schema: ContainerSchema, conjuncts: readonly SqlBoundExpression[], columnIndex: number,
  context: SqlEvalContext): { from: KeyValue | undefined; to: KeyValue | undefined; empty: boolean } | undefined {
  if (columnIndex >= schema.rowKeyColumnCount || schema.columns[columnIndex]!.type === 'STRING') return undefined;
  const range = columnKeyRange(schema, conjuncts, columnIndex, context);
  if (!range.empty && range.from === undefined && range.to === undefined) return undefined;
  return { from: range.from as KeyValue | undefined, to: range.to as KeyValue | undefined, empty: range.empty };
}

/** The values an IN list (or several: their intersection) allows a key column, sorted; undefined: no list. */
function columnPoints(schema: ContainerSchema, conjuncts: readonly SqlBoundExpression[], columnIndex: number,
  context: SqlEvalContext): KeyValue[] | undefined {
  const keyType = sqlTypeOfColumn(schema.columns[columnIndex]!);
  let points: KeyValue[] | undefined;
  for (const conjunct of conjuncts) {
    if (conjunct.kind !== 'in' || conjunct.negated) continue;
    const { operand } = conjunct;
    if (operand.kind !== 'column' || operand.index !== columnIndex) continue;
    if (!conjunct.list.every((item) => isStatementConstant(item) && sameFamily(item.type, operand.type))) continue;
    const values: KeyValue[] = [];
    for (const item of conjunct.list) {
      const value = constantValue(item, context);
      const from = keyBound(value, false, keyType, 'low');
      const to = keyBound(value, false, keyType, 'high');
      // NULL, or a value no key equals (1.5 for a LONG key): that item selects nothing.
      if (from === undefined || from === null || to === undefined || to === null || from !== to) continue;
      values.push(from as KeyValue);
    }
    values.sort(compareKeyValues);
    const unique = values.filter((value, i) => i === 0 || compareKeyValues(values[i - 1]!, value) !== 0);
    points = points === undefined ? unique
      : points.filter((point) => unique.some((value) => compareKeyValues(value, point) === 0));
  }
  return points;
}

function sameFamily(a: SqlType, b: SqlType): boolean {
  return a === b || (isSqlNumericType(a) && isSqlNumericType(b));
}

/** One key column's bounds in its own shape, and whether they prove no row can match. */
function columnKeyRange(schema: ContainerSchema, conjuncts: readonly SqlBoundExpression[], columnIndex: number,
  context: SqlEvalContext): { from: RowKey | undefined; to: RowKey | undefined; empty: boolean } {
  const keyType = sqlTypeOfColumn(schema.columns[columnIndex]!);
  const bounds = columnBounds(conjuncts, columnIndex, context);
  const from = keyBound(bounds.low, bounds.lowStrict, keyType, 'low');
  const to = keyBound(bounds.high, bounds.highStrict, keyType, 'high');
  const empty = from === null || to === null ||
    (from !== undefined && to !== undefined && (typeof from === 'string' ? from > (to as string) : Number(from) > Number(to)));
  return { from: from ?? undefined, to: to ?? undefined, empty };
}

/** A bound in the key's own shape; null: no key can be past it. */
function keyBound(value: unknown, strict: boolean, keyType: SqlType, side: 'low' | 'high'): RowKey | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (keyType === 'STRING') return typeof value === 'string' ? value : undefined;
  if (typeof value !== 'number' && typeof value !== 'bigint') return undefined;
  const step = strict ? 1 : 0;
  let integer: number | bigint;
  if (typeof value === 'number') {
    // NaN orders above every number (compare.ts): `k < NaN` holds for every key, `k >= NaN` for none.
    if (Number.isNaN(value)) return side === 'low' ? null : undefined;
    if (!Number.isFinite(value)) return (value > 0) === (side === 'low') ? null : undefined;
    const rounded = side === 'low' ? Math.ceil(value) : Math.floor(value);
    integer = rounded === value ? rounded + (side === 'low' ? step : -step) : rounded;
  } else {
    integer = value + BigInt(side === 'low' ? step : -step);
  }
  if (keyType === 'LONG' || keyType === 'TIMESTAMP(6)' || keyType === 'TIMESTAMP(9)') return BigInt(integer);
  const number = Number(integer);
  if (!Number.isSafeInteger(number)) return side === 'low' ? (number > 0 ? null : undefined) : (number < 0 ? null : undefined);
  return number;
}

/**
 * The plan without its sort when the scan's key order gives the order asked for (see the top):
 * then the scan reads in that direction. Undefined when the sort must stay.
 */
export function sortByScan(root: SqlPlanNode, scan: Extract<SqlPlanNode, { kind: 'scan' }>, schema: ContainerSchema):
  { root: SqlPlanNode; descending: boolean } | undefined {
  if (scan.index !== undefined || scan.keyRange.empty) return undefined;
  const sort = findNode(root, 'sort');
  if (sort === undefined || sort.input.kind !== 'project') return undefined;
  const project = sort.input;
  // Only filters between: the projection's columns are then the scan's.
  let below: SqlPlanNode = project.input;
  while (below.kind === 'filter') below = below.input;
  if (below !== scan) return undefined;
  // Leading key columns fixed to one value in the one range: their order in ORDER BY does not matter.
  const fixed = scan.keyRanges === undefined ? fixedKeyColumnCount(scan.keyRange, schema.rowKeyColumnCount) : 0;
  let next = fixed;
  let descending: boolean | undefined;
  for (const key of sort.keys) {
    const expression = project.expressions[key.column];
    if (expression?.kind !== 'column' || expression.index >= schema.rowKeyColumnCount) return undefined;
    if (expression.index < fixed) continue;
    if (expression.index !== next || schema.columns[expression.index]!.type === 'STRING') return undefined;
    if (descending !== undefined && descending !== key.descending) return undefined;
    descending = key.descending;
    next++;
  }
  if (descending === undefined) descending = false;
  // A descending read starts at `to` padded with the greatest key values: STRING has none.
  if (descending && schema.rowKeyColumnCount > 1) {
    for (const range of scan.keyRanges ?? [scan.keyRange]) {
      const length = range.to === undefined ? schema.rowKeyColumnCount : (range.to as KeyValue[]).length;
      for (let i = length; i < schema.rowKeyColumnCount; i++) {
        if (schema.columns[i]!.type === 'STRING') return undefined;
      }
    }
  }
  return { root: replaceNode(root, sort, sort.input), descending };
}

function fixedKeyColumnCount(range: SqlKeyRange, keyColumnCount: number): number {
  const { from, to } = range;
  if (from === undefined || to === undefined) return 0;
  if (keyColumnCount === 1) return from === to ? 1 : 0;
  const a = from as KeyValue[];
  const b = to as KeyValue[];
  let fixed = 0;
  while (fixed < a.length && fixed < b.length && compareKeyValues(a[fixed]!, b[fixed]!) === 0) fixed++;
  return fixed;
}

function findNode<K extends SqlPlanNode['kind']>(node: SqlPlanNode, kind: K): Extract<SqlPlanNode, { kind: K }> | undefined {
  if (node.kind === kind) return node as Extract<SqlPlanNode, { kind: K }>;
  return 'input' in node ? findNode(node.input, kind) : undefined;
}

export function replaceNode(node: SqlPlanNode, from: SqlPlanNode, to: SqlPlanNode): SqlPlanNode {
  if (node === from) return to;
  if (!('input' in node)) return node;
  const input = replaceNode(node.input, from, to);
  return input === node.input ? node : { ...node, input } as SqlPlanNode;
}
