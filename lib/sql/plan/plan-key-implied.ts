// The WHERE conjuncts a scan's row-key ranges already enforce, so that the filter above the scan
// need not test them on every row again: `hostname IN ('h1', 'h3') AND ts >= ? AND ts < ?` on
// PRIMARY KEY (hostname, ts) reads exactly the ranges ['h1', a]..['h1', b-1] and ['h3', a]..
// ['h3', b-1], and every row they hold passes all three conjuncts; only the rest of the WHERE
// (`usage_user > 90`) stays a filter.
//
// A conjunct is dropped only when it is proven for every key of every range, by the executor's own
// evaluation at the ranges' ends (so every SQL rule, NULL and cast stays the executor's):
//   - a key column a range fixes to one value (its leading columns equal at both ends): the
//     conjunct `col op constant` or `col IN (constants)` is true at that value;
//   - the first key column a range does not fix, numeric or TIMESTAMP (key order is then SQL's
//     order), only for `col op constant` with op in = < <= > >=, whose true set is an interval:
//     true at both ends, or, at an open end, the interval itself unbounded on that side.
// Anything else stays: later key columns (any value), STRING ranges (SQL orders strings by code
// point, keys by UTF-16 unit), `!=`, an IN list over a range (the hull past
// SQL_KEY_RANGE_COUNT_MAX values), a constant that cannot be computed here, and scans through a
// TREE index.

import { isStorageError } from '../../base/errors.ts';
import type { KeyValue } from '../../schema/column-type.ts';
import type { ContainerSchema } from '../../schema/container-schema.ts';
import { evaluate } from '../exec/evaluate.ts';
import type { SqlEvalContext } from '../functions/scalar-function.ts';
import type { SqlColumn } from '../value.ts';
import type { SqlBoundExpression, SqlCompareOperator } from './bound-expression.ts';
import type { SqlKeyRange } from './logical-plan.ts';
import { isStatementConstant } from './plan-key-range.ts';

/** The conjuncts some key of `ranges` might fail, in their order; all of them when `ranges` is empty. */
export function conjunctsNotImplied(schema: ContainerSchema, ranges: readonly SqlKeyRange[],
  conjuncts: readonly SqlBoundExpression[], context: SqlEvalContext): SqlBoundExpression[] {
  if (ranges.length === 0 || ranges.some((range) => range.empty)) return [...conjuncts];
  const shapes = ranges.map((range) => rangeShape(schema.rowKeyColumnCount, range));
  return conjuncts.filter((conjunct) => {
    const target = keyConjunct(conjunct, schema.rowKeyColumnCount);
    if (target === undefined) return true;
    return !shapes.every((shape) => impliedIn(schema, shape, target, context));
  });
}

/** A range as key columns: `fixed` leading ones at one value, then the next one between from and to. */
interface RangeShape {
  readonly fixed: number;
  readonly from: readonly KeyValue[];
  readonly to: readonly KeyValue[];
}

function rangeShape(keyColumnCount: number, range: SqlKeyRange): RangeShape {
  const list = (bound: unknown): readonly KeyValue[] => bound === undefined ? []
    : keyColumnCount === 1 ? [bound as KeyValue] : bound as readonly KeyValue[];
  const from = list(range.from);
  const to = list(range.to);
  let fixed = 0;
  while (fixed < from.length && fixed < to.length && sameKeyValue(from[fixed]!, to[fixed]!)) fixed++;
  return { fixed, from, to };
}

function sameKeyValue(a: KeyValue, b: KeyValue): boolean {
  return typeof a === typeof b && a === b;
}

interface KeyConjunct {
  readonly conjunct: SqlBoundExpression;
  readonly columnIndex: number;
  /** The comparison with the column on the left; undefined for an IN list. */
  readonly operator: SqlCompareOperator | undefined;
}

const FLIPPED: Record<SqlCompareOperator, SqlCompareOperator> = {
  '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=',
};

/** The conjunct as `key column op constant` or `key column IN (constants)`; undefined: another shape. */
function keyConjunct(conjunct: SqlBoundExpression, keyColumnCount: number): KeyConjunct | undefined {
  const isKey = (e: SqlBoundExpression): e is Extract<SqlBoundExpression, { kind: 'column' }> =>
    e.kind === 'column' && e.index < keyColumnCount;
  if (conjunct.kind === 'compare') {
    if (isKey(conjunct.left) && isStatementConstant(conjunct.right)) {
      return { conjunct, columnIndex: conjunct.left.index, operator: conjunct.operator };
    }
    if (isKey(conjunct.right) && isStatementConstant(conjunct.left)) {
      return { conjunct, columnIndex: conjunct.right.index, operator: FLIPPED[conjunct.operator] };
    }
    return undefined;
  }
  if (conjunct.kind === 'in' && !conjunct.negated && isKey(conjunct.operand) &&
    conjunct.list.every(isStatementConstant)) {
    return { conjunct, columnIndex: conjunct.operand.index, operator: undefined };
  }
  return undefined;
}

function impliedIn(schema: ContainerSchema, shape: RangeShape, target: KeyConjunct, context: SqlEvalContext): boolean {
  const i = target.columnIndex;
  if (i < shape.fixed) return trueAt(target.conjunct, i, shape.from[i]!, context);
  if (i > shape.fixed || target.operator === undefined || target.operator === '!=') return false;
  const type = schema.columns[i]!.type;
  if (type !== 'INTEGER' && type !== 'LONG' && type !== 'TIMESTAMP') return false;
  const low = shape.from[i];
  const high = shape.to[i];
  const op = target.operator;
  const lowHolds = low === undefined ? op === '<' || op === '<=' : trueAt(target.conjunct, i, low, context);
  const highHolds = high === undefined ? op === '>' || op === '>=' : trueAt(target.conjunct, i, high, context);
  return lowHolds && highHolds;
}

/** Whether the conjunct is TRUE (not FALSE, not NULL) when key column `columnIndex` holds `value`. */
function trueAt(conjunct: SqlBoundExpression, columnIndex: number, value: KeyValue, context: SqlEvalContext): boolean {
  const columns = new Array<SqlColumn>(columnIndex + 1).fill(NOT_READ);
  columns[columnIndex] = [value];
  try {
    return evaluate(conjunct, { rowCount: 1, columns }, context)[0] === true;
  } catch (error) {
    // A constant that fails to compute (an overflow, a bad cast): the filter keeps it and fails as before.
    if (isStorageError(error)) return false;
    throw error;
  }
}

const NOT_READ: SqlColumn = [];
