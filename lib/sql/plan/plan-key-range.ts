// Bounds a WHERE clause puts on one column: the conjuncts `col op constant` (and BETWEEN, which
// the binder lowered into two of them) give an inclusive [low, high] the scan can start and stop
// at, or GROUP BY RANGE can take its groups from. The filter stays in the plan; the bounds only
// spare reading rows that cannot match. Constant sides are computed once here (TIMESTAMP('...'),
// parameters, arithmetic); anything else leaves that side unbounded.

import type { SqlEvalContext } from '../functions/scalar-function.ts';
import { evaluate } from '../exec/evaluate.ts';
import { isSqlNumericType, type SqlValue } from '../value.ts';
import type { SqlBoundExpression, SqlCompareOperator } from './bound-expression.ts';

export interface SqlColumnBounds {
  /** Inclusive; undefined: unbounded. Values in the column's own shape. */
  readonly low: SqlValue | undefined;
  readonly high: SqlValue | undefined;
  /** Whether each bound was strict (`<`, `>`): an integer key moves it by one. */
  readonly lowStrict: boolean;
  readonly highStrict: boolean;
}

export function conjunctsOf(expression: SqlBoundExpression | undefined): SqlBoundExpression[] {
  if (expression === undefined) return [];
  if (expression.kind === 'logic' && expression.operator === 'AND') {
    return [...conjunctsOf(expression.left), ...conjunctsOf(expression.right)];
  }
  return [expression];
}

/** Whether an expression reads no column and calls nothing random: its value is one per statement. */
export function isStatementConstant(expression: SqlBoundExpression): boolean {
  switch (expression.kind) {
    case 'column': case 'outer': case 'subquery': return false;
    case 'constant': return true;
    case 'call':
      return !/^RANDOM/.test(expression.function.name) && expression.args.every(isStatementConstant);
    case 'unary': case 'widen': case 'isNull': return isStatementConstant(expression.operand);
    case 'arithmetic': case 'compare': case 'logic': case 'concat': case 'is':
      return isStatementConstant(expression.left) && isStatementConstant(expression.right);
    case 'in': return isStatementConstant(expression.operand) && expression.list.every(isStatementConstant);
    case 'case':
      return expression.whens.every((w) => isStatementConstant(w.when) && isStatementConstant(w.then)) &&
        (expression.otherwise === undefined || isStatementConstant(expression.otherwise));
  }
}

export function constantValue(expression: SqlBoundExpression, context: SqlEvalContext): SqlValue {
  return evaluate(expression, { rowCount: 1, columns: [] }, context)[0]!;
}

const FLIPPED: Record<SqlCompareOperator, SqlCompareOperator> = {
  '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=',
};

/** Bounds of column `columnIndex` (read without widening) that the conjuncts imply. */
export function columnBounds(
  conjuncts: readonly SqlBoundExpression[],
  columnIndex: number,
  context: SqlEvalContext,
): SqlColumnBounds {
  let low: SqlValue | undefined;
  let high: SqlValue | undefined;
  let lowStrict = false;
  let highStrict = false;
  const tighterLow = (value: SqlValue, strict: boolean) => {
    if (low === undefined || compareBound(value, low) > 0 || (compareBound(value, low) === 0 && strict)) {
      low = value;
      lowStrict = strict;
    }
  };
  const tighterHigh = (value: SqlValue, strict: boolean) => {
    if (high === undefined || compareBound(value, high) < 0 || (compareBound(value, high) === 0 && strict)) {
      high = value;
      highStrict = strict;
    }
  };
  for (const conjunct of conjuncts) {
    if (conjunct.kind !== 'compare') continue;
    let operator = conjunct.operator;
    let other: SqlBoundExpression;
    if (isColumn(conjunct.left, columnIndex)) other = conjunct.right;
    else if (isColumn(conjunct.right, columnIndex)) {
      other = conjunct.left;
      operator = FLIPPED[operator];
    } else continue;
    const columnType = columnTypeOf(conjunct, columnIndex);
    const sameFamily = other.type === columnType ||
      (isSqlNumericType(other.type) && isSqlNumericType(columnType));
    if (!isStatementConstant(other) || !sameFamily) continue;
    const value = constantValue(other, context);
    if (value === null) continue;
    if (operator === '=' || operator === '>=' || operator === '>') tighterLow(value, operator === '>');
    if (operator === '=' || operator === '<=' || operator === '<') tighterHigh(value, operator === '<');
  }
  return { low, high, lowStrict, highStrict };
}

function isColumn(expression: SqlBoundExpression, columnIndex: number): boolean {
  return expression.kind === 'column' && expression.index === columnIndex;
}

function columnTypeOf(conjunct: Extract<SqlBoundExpression, { kind: 'compare' }>, columnIndex: number) {
  return isColumn(conjunct.left, columnIndex) ? conjunct.left.type : conjunct.right.type;
}

function compareBound(a: SqlValue, b: SqlValue): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  // NaN above every number, as the executor orders it (compare.ts).
  if (Number.isNaN(x) || Number.isNaN(y)) return Number(Number.isNaN(x)) - Number(Number.isNaN(y));
  return x < y ? -1 : x > y ? 1 : 0;
}
