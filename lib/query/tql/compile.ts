// Compiles a bound expression (bound.ts) into a function of a row, once per query, so evaluating
// a row is a walk over closures with no type dispatch left in it.
//
// NULL logic is SQL's, as GridDB's TQL defines it (spec/surface.md §3.3): NULL in, NULL out for
// operators and most functions; NOT NULL is NULL; AND is FALSE if any operand is FALSE, else NULL
// if any is NULL; OR likewise with TRUE; XOR is NULL if either side is. AND and OR stop at the
// first operand that decides them.

import { assert } from '../../base/assert.ts';
import type { Row } from '../../schema/column-type.ts';
import {
  compareDoubles, compareIntegrals, doubleEquals, integralAdd, integralBitAnd, integralBitOr,
  integralDivide, integralMultiply, integralNegate, integralOf, integralRemainder, integralShift,
  integralSubtract, timeInUnits, toDouble, type Integral,
} from './arithmetic.ts';
import type { TqlComparisonOperator } from './ast.ts';
import type { BoundExpression, CompareMode } from './bound.ts';
import { tqlEvaluationError } from './error.ts';
import { likeMatcher, type LikeMatcher } from './like.ts';
import { isFloating, unitsPerMs, type TqlType, type TqlValue } from './types.ts';

export type RowEvaluator = (row: Row) => TqlValue;

export function compileExpression(expression: BoundExpression): RowEvaluator {
  switch (expression.kind) {
    case 'constant': {
      const value = expression.value;
      return () => value;
    }
    case 'column': {
      const index = expression.columnIndex;
      return (row) => row[index] as TqlValue;
    }
    case 'compare': return compileCompare(expression);
    case 'arithmetic': return compileArithmetic(expression);
    case 'negate': {
      const operand = compileExpression(expression.operand);
      if (isFloating(expression.type)) {
        return (row) => {
          const value = operand(row);
          return value === null ? null : -(value as number);
        };
      }
      return (row) => {
        const value = operand(row);
        return value === null ? null : integralNegate(value as Integral);
      };
    }
    case 'not': {
      const operand = compileExpression(expression.operand);
      return (row) => {
        const value = operand(row);
        return value === null ? null : !value;
      };
    }
    case 'logical':
      return compileLogical(expression.operator, expression.operands.map(compileExpression));
    case 'xor': {
      const left = compileExpression(expression.left);
      const right = compileExpression(expression.right);
      return (row) => {
        const a = left(row);
        if (a === null) return null;
        const b = right(row);
        return b === null ? null : a !== b;
      };
    }
    case 'isNull': {
      const operand = compileExpression(expression.operand);
      const negated = expression.negated;
      return (row) => (operand(row) === null) !== negated;
    }
    case 'like': return compileLike(expression);
    case 'in': return compileIn(expression);
    case 'function': return compileFunction(expression);
  }
}

// ---- comparisons -----------------------------------------------------------------------------

type Equals = (a: TqlValue, b: TqlValue) => boolean;
type Order = (a: TqlValue, b: TqlValue) => number;

/** Equality and order of two non-NULL values of a comparison, by its mode and operand types. */
export function comparators(
  mode: CompareMode,
  leftType: TqlType,
  rightType: TqlType,
): { equals: Equals; order: Order } {
  switch (mode) {
    case 'bool':
    case 'string':
      return {
        equals: (a, b) => a === b,
        order: () => assert(false, 'magnitude comparison of BOOL or STRING') as never,
      };
    case 'integral':
      // `==` on purpose: it compares a number with a bigint by value.
      return {
        equals: (a, b) => a == b,
        order: (a, b) => compareIntegrals(a as Integral, b as Integral),
      };
    case 'floating':
      return {
        equals: (a, b) => doubleEquals(toDouble(a as Integral), toDouble(b as Integral)),
        order: (a, b) => compareDoubles(toDouble(a as Integral), toDouble(b as Integral)),
      };
    case 'time': return timeComparators(leftType, rightType);
  }
}

function timeComparators(leftType: TqlType, rightType: TqlType): { equals: Equals; order: Order } {
  const left = leftType.timePrecision;
  const right = rightType.timePrecision;
  if (unitsPerMs(left) === unitsPerMs(right)) {
    return {
      equals: (a, b) => a == b,
      order: (a, b) => compareIntegrals(a as Integral, b as Integral),
    };
  }
  const finer = unitsPerMs(left) > unitsPerMs(right) ? left : right;
  const order: Order = (a, b) => compareIntegrals(
    timeInUnits(a as Integral, left, finer), timeInUnits(b as Integral, right, finer));
  return { equals: (a, b) => order(a, b) === 0, order };
}

function orderTest(operator: TqlComparisonOperator): (order: number) => boolean {
  switch (operator) {
    case '<': return (order) => order < 0;
    case '<=': return (order) => order <= 0;
    case '>': return (order) => order > 0;
    case '>=': return (order) => order >= 0;
    default: return assert(false, `not an order operator: ${operator}`) as never;
  }
}

function compileCompare(expression: BoundExpression & { kind: 'compare' }): RowEvaluator {
  const left = compileExpression(expression.left);
  const right = compileExpression(expression.right);
  const { mode, left: leftSide, right: rightSide } = expression;
  const { equals, order } = comparators(mode, leftSide.type, rightSide.type);
  const operator = expression.operator;
  let test: (a: TqlValue, b: TqlValue) => boolean;
  if (operator === '=') test = equals;
  else if (operator === '<>') test = (a, b) => !equals(a, b);
  else {
    const accept = orderTest(operator);
    test = (a, b) => accept(order(a, b));
  }
  return (row) => {
    const a = left(row);
    if (a === null) return null;
    const b = right(row);
    return b === null ? null : test(a, b);
  };
}

// ---- arithmetic ------------------------------------------------------------------------------

function compileArithmetic(expression: BoundExpression & { kind: 'arithmetic' }): RowEvaluator {
  const left = compileExpression(expression.left);
  const right = compileExpression(expression.right);
  const { position } = expression;
  let apply: (a: TqlValue, b: TqlValue) => TqlValue;
  if (isFloating(expression.type)) {
    const float = expression.type.scalar === 'FLOAT';
    const op = floatingOperation(expression.operator);
    apply = float
      ? (a, b) => Math.fround(op(toDouble(a as Integral), toDouble(b as Integral)))
      : (a, b) => op(toDouble(a as Integral), toDouble(b as Integral));
  } else {
    switch (expression.operator) {
      case '+': apply = (a, b) => integralAdd(a as Integral, b as Integral); break;
      case '-': apply = (a, b) => integralSubtract(a as Integral, b as Integral); break;
      case '*': apply = (a, b) => integralMultiply(a as Integral, b as Integral); break;
      case '/': apply = (a, b) => integralDivide(a as Integral, b as Integral, position); break;
      case '%': apply = (a, b) => integralRemainder(a as Integral, b as Integral, position); break;
      case '&': apply = (a, b) => integralBitAnd(a as Integral, b as Integral); break;
      case '|': apply = (a, b) => integralBitOr(a as Integral, b as Integral); break;
      case '<<': apply = (a, b) => integralShift(a as Integral, b as Integral, 'left'); break;
      case '>>': apply = (a, b) => integralShift(a as Integral, b as Integral, 'right'); break;
    }
  }
  return (row) => {
    const a = left(row);
    if (a === null) return null;
    const b = right(row);
    return b === null ? null : apply(a, b);
  };
}

function floatingOperation(operator: string): (a: number, b: number) => number {
  switch (operator) {
    case '+': return (a, b) => a + b;
    case '-': return (a, b) => a - b;
    case '*': return (a, b) => a * b;
    case '/': return (a, b) => a / b;
    default: return assert(false, `${operator} on floating point`) as never;
  }
}

// ---- logic -----------------------------------------------------------------------------------

function compileLogical(operator: 'AND' | 'OR', operands: RowEvaluator[]): RowEvaluator {
  assert(operands.length >= 2);
  // AND stops at FALSE, OR at TRUE.
  const decisive = operator === 'OR';
  return (row) => {
    let sawNull = false;
    for (const operand of operands) {
      const value = operand(row);
      if (value === decisive) return decisive;
      if (value === null) sawNull = true;
    }
    return sawNull ? null : !decisive;
  };
}

// ---- LIKE and IN -----------------------------------------------------------------------------

function compileLike(expression: BoundExpression & { kind: 'like' }): RowEvaluator {
  const operand = compileExpression(expression.operand);
  const pattern = compileExpression(expression.pattern);
  const escape = expression.escape === undefined ? () => '' : compileExpression(expression.escape);
  const { negated, position } = expression;
  // The last matcher is kept: a pattern from a column usually repeats.
  let cachedPattern: string | undefined;
  let cachedEscape: string | undefined;
  let cached: LikeMatcher | undefined;
  return (row) => {
    const text = operand(row);
    if (text === null) return null;
    const patternText = pattern(row);
    const escapeText = escape(row);
    if (patternText === null || escapeText === null) return null;
    if (cached === undefined || patternText !== cachedPattern || escapeText !== cachedEscape) {
      const escapeCharacters = Array.from(escapeText as string);
      if (expression.escape !== undefined && escapeCharacters.length !== 1) {
        throw tqlEvaluationError(
          `the ESCAPE of LIKE must be one character, not '${escapeText as string}'`, position);
      }
      cached = likeMatcher(patternText as string, escapeCharacters[0]);
      cachedPattern = patternText as string;
      cachedEscape = escapeText as string;
    }
    return cached.matches(text as string) !== negated;
  };
}

function compileIn(expression: BoundExpression & { kind: 'in' }): RowEvaluator {
  const operand = compileExpression(expression.operand);
  const { negated, mode } = expression;
  const allConstant = expression.list.every((item) => item.kind === 'constant');
  if (allConstant && (mode === 'string' || mode === 'integral' || mode === 'bool')) {
    // A set of canonical values: integers are numbers when safe, so a bigint is looked up as one.
    const values = expression.list.map((item) => (item as { value: TqlValue }).value);
    const sawNull = values.includes(null);
    const set = new Set(values.filter((value) => value !== null));
    return (row) => {
      const value = operand(row);
      if (value === null) return null;
      const key = typeof value === 'bigint' ? integralOf(value) : value;
      if (set.has(key)) return !negated;
      return sawNull ? null : negated;
    };
  }
  const items = expression.list.map(compileExpression);
  const equalsOf = expression.list.map((item) =>
    comparators(mode, expression.operand.type, item.type).equals);
  return (row) => {
    const value = operand(row);
    if (value === null) return null;
    let sawNull = false;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!(row);
      if (item === null) sawNull = true;
      else if (equalsOf[i]!(value, item)) return !negated;
    }
    return sawNull ? null : negated;
  };
}

// ---- functions -------------------------------------------------------------------------------

function compileFunction(expression: BoundExpression & { kind: 'function' }): RowEvaluator {
  const args = expression.args.map(compileExpression);
  const { impl, nullPropagating } = expression;
  // One argument array per call site, reused row after row: evaluation never re-enters a node.
  const values: TqlValue[] = new Array<TqlValue>(args.length).fill(null);
  return (row) => {
    for (let i = 0; i < args.length; i++) {
      const value = args[i]!(row);
      if (value === null && nullPropagating) return null;
      values[i] = value;
    }
    return impl(values);
  };
}

