// Which TREE index of a table can narrow a WHERE, and to which range of it. The scan then reads
// only the rows the index names (lib/engine/sql-database.ts), in row-key order as a scan would.
//
// WHERE is read as an AND of conditions; each condition on one column with a statement constant
// gives that column an interval:
//   col = c, c = col          [c, c]              col < c, <=, >, >=, BETWEEN   one side bounded
//   col IN (c1, …, cn)        [min ci, max ci]
// Anything else (OR, NOT, !=, functions of the column) is left to the filter. An index is usable
// when its leading columns have point intervals and the next one any interval: (a, b) serves
// `a = 1 AND b > 2` and `a > 1`, not `b > 2` alone. The index pinning most columns wins; ties go
// to the index defined first. An index led by the row key is skipped: the key range does that.
//
// The rule for "pays" is this simple one: an equality or a range on an indexed column uses the
// index; the engine still scans instead when the index names more than INDEX_CANDIDATE_SHARE_MAX
// of the rows (index-source.ts' limit), since reading each row by key would then cost more.
//
// Like the key range, an index range is a superset of the rows WHERE selects: bounds are
// inclusive and rounded outward into the column's domain (a DOUBLE bound on a LONG column),
// anything not understood is left out, and the filter above the scan evaluates the whole WHERE on
// every row. So results equal a full scan's exactly. Strings take only equality and IN: SQL orders
// strings by code point, the index by UTF-16 unit, and the two differ above U+FFFF.

import type { ColumnSchema, ContainerSchema } from '../../schema/container-schema.ts';
import type { Value } from '../../schema/column-type.ts';
import { indexValueCompare } from '../../query/tql/index-order.ts';
import type { SqlHint } from '../ast.ts';
import type { SqlEvalContext } from '../functions/scalar-function.ts';
import { isSqlNumericType, type SqlValue } from '../value.ts';
import type { SqlBoundExpression } from './bound-expression.ts';
import type { SqlIndexRange } from './logical-plan.ts';
import { constantValue, isStatementConstant } from './plan-key-range.ts';

interface Interval {
  /** Inclusive; undefined: unbounded. */
  low: Value | undefined;
  high: Value | undefined;
}

/** The index range the conjuncts allow, or undefined: scan (also under a NoIndexScan hint). */
export function planIndexRange(
  schema: ContainerSchema,
  conjuncts: readonly SqlBoundExpression[],
  hints: readonly SqlHint[],
  context: SqlEvalContext,
): SqlIndexRange | undefined {
  if (hints.some((hint) => hint.name.toUpperCase() === 'NOINDEXSCAN')) return undefined;
  const indexes = schema.indexes.filter((index) => index.type === 'TREE' &&
    !(schema.rowKeyColumnCount > 0 && index.columnIndexes[0] === 0));
  if (indexes.length === 0) return undefined;
  const intervals = new Map<number, Interval>();
  for (const conjunct of conjuncts) {
    const found = conditionInterval(schema.columns, conjunct, context);
    if (found === undefined) continue;
    const [columnIndex, interval] = found;
    const known = intervals.get(columnIndex);
    const compare = indexValueCompare(schema.columns[columnIndex]!.type);
    intervals.set(columnIndex, known === undefined ? interval : {
      low: tighter(known.low, interval.low, (a, b) => compare(a, b)),
      high: tighter(known.high, interval.high, (a, b) => -compare(a, b)),
    });
  }
  let best: { range: SqlIndexRange; score: number } | undefined;
  for (const index of indexes) {
    const low: Value[] = [];
    const high: Value[] = [];
    let highInclusive = true;
    let score = 0;
    for (const columnIndex of index.columnIndexes) {
      const interval = intervals.get(columnIndex);
      if (interval === undefined) break;
      const compare = indexValueCompare(schema.columns[columnIndex]!.type);
      if (interval.low !== undefined && interval.high !== undefined && compare(interval.low, interval.high) === 0) {
        low.push(interval.low);
        high.push(interval.high);
        score += 2;
        continue;
      }
      if (interval.low !== undefined) low.push(interval.low);
      // A comparison never selects NULL, which sorts last in the index: stop below it.
      if (interval.high !== undefined) high.push(interval.high);
      else {
        high.push(null);
        highInclusive = false;
      }
      score += 1;
      break;
    }
    if (score > 0 && (best === undefined || score > best.score)) {
      const name = index.name ?? '';
      const range: SqlIndexRange = {
        name, columnIndexes: index.columnIndexes, low, lowInclusive: true, high, highInclusive,
      };
      best = { range, score };
    }
  }
  return best?.range;
}

/** How EXPLAIN names an index: its name, or TREE(its columns) when it has none. */
export function sqlIndexLabel(range: SqlIndexRange, columns: readonly { name: string }[]): string {
  return range.name !== '' ? range.name : `TREE(${range.columnIndexes.map((c) => columns[c]!.name).join(', ')})`;
}

function tighter(a: Value | undefined, b: Value | undefined, order: (a: Value, b: Value) => number) {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return order(a, b) >= 0 ? a : b;
}

const FLIPPED = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;

function conditionInterval(columns: readonly ColumnSchema[], condition: SqlBoundExpression,
  context: SqlEvalContext): [number, Interval] | undefined {
  if (condition.kind === 'in') {
    const operand = condition.operand;
    if (condition.negated || operand.kind !== 'column' || condition.list.length === 0) return undefined;
    const column = columns[operand.index]!;
    const compare = indexValueCompare(column.type);
    let low: Value | undefined;
    let high: Value | undefined;
    for (const item of condition.list) {
      if (!sameFamily(operand.type, item) || !isStatementConstant(item)) return undefined;
      const value = constantValue(item, context);
      if (value === null) continue; // `col IN (NULL)` selects nothing
      const itemLow = inColumn(column, value, 'low', '=');
      const itemHigh = inColumn(column, value, 'high', '=');
      if (itemLow === undefined || itemHigh === undefined) return undefined;
      if (low === undefined || compare(itemLow, low) < 0) low = itemLow;
      if (high === undefined || compare(itemHigh, high) > 0) high = itemHigh;
    }
    return low === undefined ? undefined : [operand.index, { low, high }];
  }
  if (condition.kind !== 'compare' || condition.operator === '!=') return undefined;
  let operator = condition.operator;
  let columnSide = condition.left;
  let other = condition.right;
  if (columnSide.kind !== 'column') {
    [columnSide, other] = [other, columnSide];
    operator = FLIPPED[operator];
  }
  if (columnSide.kind !== 'column' || !sameFamily(columnSide.type, other) || !isStatementConstant(other)) {
    return undefined;
  }
  const value = constantValue(other, context);
  if (value === null) return undefined;
  const column = columns[columnSide.index]!;
  const interval: Interval = { low: undefined, high: undefined };
  if (operator === '=' || operator === '>' || operator === '>=') {
    interval.low = inColumn(column, value, 'low', operator);
    if (interval.low === undefined) return undefined;
  }
  if (operator === '=' || operator === '<' || operator === '<=') {
    interval.high = inColumn(column, value, 'high', operator);
    if (interval.high === undefined) return undefined;
  }
  return [columnSide.index, interval];
}

function sameFamily(columnType: string, other: SqlBoundExpression): boolean {
  return other.type === columnType || (isSqlNumericType(other.type) && isSqlNumericType(columnType as never));
}

/**
 * A constant as a value of the column's index order, rounded outward on `side`; undefined when it
 * does not map onto that order (the condition is then left to the filter).
 */
function inColumn(column: ColumnSchema, value: SqlValue, side: 'low' | 'high', operator: string): Value | undefined {
  if (column.array) return undefined;
  switch (column.type) {
    case 'BYTE': case 'SHORT': case 'INTEGER': case 'FLOAT': case 'DOUBLE': {
      if (typeof value === 'number') return Number.isNaN(value) ? undefined : value;
      if (typeof value !== 'bigint') return undefined;
      const double = Number(value);
      return Number.isSafeInteger(double) ? double : undefined;
    }
    case 'LONG': case 'TIMESTAMP': {
      if (typeof value === 'bigint') return value;
      if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) >= 2 ** 53) return undefined;
      const integer = side === 'low' ? Math.ceil(value) : Math.floor(value);
      return column.type === 'LONG' ? BigInt(integer) : integer;
    }
    case 'STRING':
      return operator === '=' && typeof value === 'string' ? value : undefined;
    default:
      return undefined;
  }
}
