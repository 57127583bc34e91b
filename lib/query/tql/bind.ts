// The binder: resolves the names of an expression against the container's schema, checks and
// infers its types, and folds its constant parts, giving a BoundExpression (bound.ts). Every
// mistake a query can make about meaning is found here, before a row is read, with the position of
// the expression at fault: an unknown column (COLUMN_NOT_FOUND), an unknown function or a type
// mismatch (TQL_SEMANTIC), a function that comes later (NOT_SUPPORTED).
//
// Typing rules (spec/surface.md §3.3): comparisons pair BOOL with BOOL and STRING with STRING
// (= and <> only), numbers with numbers, TIMESTAMPs with TIMESTAMPs; arithmetic takes numbers and
// gives a LONG for integers and a DOUBLE when a floating value takes part (FLOAT when both are
// FLOAT); `%` and the bitwise operators take integers only. NULL is welcome wherever a value is.

import type { ContainerSchema } from '../../schema/container-schema.ts';
import { INT64_MAX, INT64_MIN } from '../../schema/column-type.ts';
import { normalizeName } from '../../schema/names.ts';
import { integralOf } from './arithmetic.ts';
import type { TqlComparisonOperator, TqlExpression, TqlLiteral } from './ast.ts';
import type { BoundExpression, CompareMode } from './bound.ts';
import { compileExpression } from './compile.ts';
import { TqlError, tqlSemanticError, type TqlPosition } from './error.ts';
import type { FunctionArgument, ScalarFunctionSpec } from './function-spec.ts';
import { isAggregateFunction, laterFunctionGroup, SCALAR_FUNCTIONS } from './functions.ts';
import { isTimeSeriesFunction } from './time-series-bind.ts';
import { TIME_UNITS, type TimeUnit } from './timestamp.ts';
import {
  columnTqlType, isFloating, isIntegral, isNull, isNumeric, isScalarOf, isTimestamp, TQL_BLOB,
  TQL_BOOL, TQL_DOUBLE, TQL_FLOAT, TQL_LONG, TQL_NULL, TQL_STRING, typeName, type TqlType,
} from './types.ts';

export interface BindScope {
  readonly schema: ContainerSchema;
  /** NOW() of this query. */
  readonly nowMs: number;
}

type Syntax<K extends TqlExpression['kind']> = Extract<TqlExpression, { kind: K }>;

export class Binder {
  private readonly columnIndexes = new Map<string, number>();

  constructor(readonly scope: BindScope) {
    scope.schema.columns.forEach((column, index) => {
      this.columnIndexes.set(normalizeName(column.name), index);
    });
  }

  /** A column by name (case-insensitive, quoted or not); COLUMN_NOT_FOUND when there is none. */
  column(syntax: Syntax<'name'>): BoundExpression & { kind: 'column' } {
    const index = this.columnIndexes.get(normalizeName(syntax.name));
    if (index === undefined) {
      throw new TqlError('COLUMN_NOT_FOUND', `column "${syntax.name}" does not exist in ` +
        `container "${this.scope.schema.name}"`, syntax.position);
    }
    const type = columnTqlType(this.scope.schema.columns[index]!);
    return { kind: 'column', type, columnIndex: index, position: syntax.position };
  }

  /** A WHERE condition: an expression of type BOOL (or NULL). */
  condition(syntax: TqlExpression): BoundExpression {
    const bound = this.expression(syntax);
    if (!isNull(bound.type) && !isScalarOf(bound.type, 'BOOL')) {
      throw tqlSemanticError(`WHERE needs a condition (BOOL), not ${describe(syntax, bound.type)}`,
        syntax.position);
    }
    return bound;
  }

  expression(syntax: TqlExpression): BoundExpression {
    switch (syntax.kind) {
      case 'literal': return literal(syntax.literal, syntax.position);
      case 'name': return this.column(syntax);
      case 'call': return fold(this.call(syntax));
      case 'unary': return fold(syntax.operator === 'NOT' ? this.not(syntax) : this.negate(syntax));
      case 'arithmetic': return fold(this.arithmetic(syntax));
      case 'comparison':
        return this.compare(syntax.operator, this.operand(syntax.left), this.operand(syntax.right),
          syntax.position);
      case 'logical': {
        const operands = syntax.operands.map((operand) => this.boolean(operand, syntax.operator));
        return fold({
          kind: 'logical', type: TQL_BOOL, operator: syntax.operator, operands,
          position: syntax.position,
        });
      }
      case 'xor': {
        const left = this.boolean(syntax.left, 'XOR');
        const right = this.boolean(syntax.right, 'XOR');
        return fold({ kind: 'xor', type: TQL_BOOL, left, right, position: syntax.position });
      }
      case 'isNull': {
        const operand = this.expression(syntax.operand);
        return fold({
          kind: 'isNull', type: TQL_BOOL, operand, negated: syntax.negated,
          position: syntax.position,
        });
      }
      case 'like': return fold(this.like(syntax));
      case 'in': return this.in(syntax);
      case 'between': return this.between(syntax);
    }
  }

  // ---- operators ---------------------------------------------------------------------------

  private operand(syntax: TqlExpression): Operand {
    return { bound: this.expression(syntax), syntax };
  }

  private boolean(syntax: TqlExpression, operator: string): BoundExpression {
    const bound = this.expression(syntax);
    if (!isNull(bound.type) && !isScalarOf(bound.type, 'BOOL')) {
      throw tqlSemanticError(`${operator} needs BOOL operands, not ${describe(syntax, bound.type)}`,
        syntax.position);
    }
    return bound;
  }

  private not(syntax: Syntax<'unary'>): BoundExpression {
    const operand = this.boolean(syntax.operand, 'NOT');
    return { kind: 'not', type: TQL_BOOL, operand, position: syntax.position };
  }

  private negate(syntax: Syntax<'unary'>): BoundExpression {
    const operand = this.expression(syntax.operand);
    const type = operand.type;
    if (!isNull(type) && !isNumeric(type)) {
      throw tqlSemanticError(`unary - needs a number, not ${describe(syntax.operand, type)}`,
        syntax.position);
    }
    const resultType = isNull(type) ? TQL_NULL : isIntegral(type) ? TQL_LONG : type;
    return { kind: 'negate', type: resultType, operand, position: syntax.position };
  }

  private arithmetic(syntax: Syntax<'arithmetic'>): BoundExpression {
    const { operator } = syntax;
    const left = this.expression(syntax.left);
    const right = this.expression(syntax.right);
    const integersOnly = operator === '%' || operator === '&' || operator === '|' ||
      operator === '<<' || operator === '>>';
    for (const [side, bound] of [[syntax.left, left], [syntax.right, right]] as const) {
      const type = bound.type;
      if (isNull(type)) continue;
      if (!isNumeric(type)) {
        throw tqlSemanticError(`operator ${operator} needs numbers, not ${describe(side, type)}`,
          side.position);
      }
      if (integersOnly && isFloating(type)) {
        throw tqlSemanticError(`operator ${operator} takes integers only, not ` +
          `${describe(side, type)}`, side.position);
      }
    }
    return {
      kind: 'arithmetic', type: arithmeticType(left.type, right.type), operator, left, right,
      position: syntax.position,
    };
  }

  /** A comparison of two bound operands; BETWEEN and IN lists make these too. */
  private compare(
    operator: TqlComparisonOperator,
    left: Operand,
    right: Operand,
    position: TqlPosition,
  ): BoundExpression {
    const mode = compareMode(operator, left, right);
    if (mode === undefined) return { kind: 'constant', type: TQL_BOOL, value: null, position };
    return fold({
      kind: 'compare', type: TQL_BOOL, operator, mode, left: left.bound, right: right.bound,
      position,
    });
  }

  private like(syntax: Syntax<'like'>): BoundExpression {
    const string = (part: TqlExpression, role: string) => {
      const bound = this.expression(part);
      if (!isNull(bound.type) && !isScalarOf(bound.type, 'STRING')) {
        throw tqlSemanticError(`LIKE needs a STRING ${role}, not ${describe(part, bound.type)}`,
          part.position);
      }
      return bound;
    };
    const escape = syntax.escape === undefined ? undefined
      : string(syntax.escape, 'escape character');
    if (escape?.kind === 'constant' && typeof escape.value === 'string' &&
      Array.from(escape.value).length !== 1) {
      throw tqlSemanticError(`the ESCAPE of LIKE must be one character, not '${escape.value}'`,
        escape.position);
    }
    return {
      kind: 'like', type: TQL_BOOL, operand: string(syntax.operand, 'to match'),
      pattern: string(syntax.pattern, 'pattern'), escape, negated: syntax.negated,
      position: syntax.position,
    };
  }

  private in(syntax: Syntax<'in'>): BoundExpression {
    const operand = this.operand(syntax.operand);
    const items = syntax.list.map((item) => this.operand(item));
    const modes = new Set<CompareMode>();
    for (const item of items) {
      const mode = compareMode('=', operand, item);
      if (mode !== undefined) modes.add(mode);
    }
    if (modes.size > 1) {
      // Mixed kinds of values (integers and doubles): one comparison per item.
      const operands = items.map((item) => this.compare('=', operand, item, item.syntax.position));
      const someEqual: BoundExpression = operands.length === 1 ? operands[0]!
        : { kind: 'logical', type: TQL_BOOL, operator: 'OR', operands, position: syntax.position };
      if (!syntax.negated) return fold(someEqual);
      return fold({ kind: 'not', type: TQL_BOOL, operand: someEqual, position: syntax.position });
    }
    return fold({
      kind: 'in', type: TQL_BOOL, operand: operand.bound, list: items.map((item) => item.bound),
      mode: [...modes][0] ?? 'bool', negated: syntax.negated, position: syntax.position,
    });
  }

  private between(syntax: Syntax<'between'>): BoundExpression {
    const operand = this.operand(syntax.operand);
    const low = this.compare('>=', operand, this.operand(syntax.low), syntax.position);
    const high = this.compare('<=', operand, this.operand(syntax.high), syntax.position);
    const both: BoundExpression = fold({
      kind: 'logical', type: TQL_BOOL, operator: 'AND', operands: [low, high],
      position: syntax.position,
    });
    return syntax.negated
      ? fold({ kind: 'not', type: TQL_BOOL, operand: both, position: syntax.position })
      : both;
  }

  // ---- functions ---------------------------------------------------------------------------

  private call(syntax: Syntax<'call'>): BoundExpression {
    const name = syntax.name.toUpperCase();
    if (isAggregateFunction(name)) {
      throw tqlSemanticError(`${name} is an aggregate: it may only be the select expression ` +
        `(SELECT ${name}(...))`, syntax.position);
    }
    if (isTimeSeriesFunction(name)) {
      throw tqlSemanticError(`${name} is a time-series function of the select list: it may ` +
        `only be the select expression (SELECT ${name}(...))`, syntax.position);
    }
    const later = laterFunctionGroup(name);
    if (later !== undefined) {
      throw new TqlError('NOT_SUPPORTED', `${name} is not supported yet (${later})`,
        syntax.position);
    }
    const spec = SCALAR_FUNCTIONS.get(name);
    if (spec === undefined) {
      throw tqlSemanticError(`unknown function ${syntax.name}`, syntax.position);
    }
    if (syntax.star) {
      throw tqlSemanticError(`${name} does not take *; use ${spec.usage}`, syntax.position);
    }
    let argsSyntax = syntax.args;
    let unit: TimeUnit | undefined;
    if (spec.unitArgument === true) {
      unit = timeUnit(name, argsSyntax[0], spec.usage, syntax.position);
      argsSyntax = argsSyntax.slice(1);
    }
    if (argsSyntax.length < spec.argumentCountMin || argsSyntax.length > spec.argumentCountMax) {
      throw tqlSemanticError(`${name} takes ${argumentCountText(spec)}: ${spec.usage}`,
        syntax.position);
    }
    const args: FunctionArgument[] = argsSyntax.map((arg) => ({
      bound: this.expression(arg), syntax: arg,
    }));
    const binding = spec.bind(args, {
      name, position: syntax.position, nowMs: this.scope.nowMs, unit,
      argumentNumberOffset: unit === undefined ? 0 : 1,
    });
    return {
      kind: 'function', type: binding.type, name, args: args.map((arg) => arg.bound),
      nullPropagating: binding.nullPropagating ?? true, impl: binding.impl,
      position: syntax.position,
    };
  }
}

interface Operand {
  readonly bound: BoundExpression;
  readonly syntax: TqlExpression;
}

function literal(value: TqlLiteral, position: TqlPosition): BoundExpression {
  switch (value.type) {
    case 'NULL': return { kind: 'constant', type: TQL_NULL, value: null, position };
    case 'BOOL': return { kind: 'constant', type: TQL_BOOL, value: value.value, position };
    case 'INTEGER':
      if (value.value < INT64_MIN || value.value > INT64_MAX) {
        throw tqlSemanticError(`integer ${value.value} is out of the LONG range`, position);
      }
      return { kind: 'constant', type: TQL_LONG, value: integralOf(value.value), position };
    case 'DOUBLE': return { kind: 'constant', type: TQL_DOUBLE, value: value.value, position };
    case 'STRING': return { kind: 'constant', type: TQL_STRING, value: value.value, position };
    case 'BLOB': return { kind: 'constant', type: TQL_BLOB, value: value.value, position };
  }
}

function arithmeticType(left: TqlType, right: TqlType): TqlType {
  const types = [left, right].filter((type) => !isNull(type));
  if (types.length === 0) return TQL_NULL;
  if (!types.some(isFloating)) return TQL_LONG;
  return types.every((type) => type.scalar === 'FLOAT') ? TQL_FLOAT : TQL_DOUBLE;
}

/** How two operands compare; undefined when one is NULL (the comparison is NULL). */
function compareMode(
  operator: TqlComparisonOperator,
  left: Operand,
  right: Operand,
): CompareMode | undefined {
  const l = left.bound.type;
  const r = right.bound.type;
  if (isNull(l) || isNull(r)) return undefined;
  const magnitude = operator !== '=' && operator !== '<>';
  for (const scalar of ['BOOL', 'STRING'] as const) {
    if (isScalarOf(l, scalar) && isScalarOf(r, scalar)) {
      if (magnitude) {
        throw tqlSemanticError(`${operator} cannot order ${scalar} values (only = and <> ` +
          `compare them): ${describe(left.syntax, l)}`, left.syntax.position);
      }
      return scalar === 'BOOL' ? 'bool' : 'string';
    }
  }
  if (isNumeric(l) && isNumeric(r)) return isIntegral(l) && isIntegral(r) ? 'integral' : 'floating';
  if (isTimestamp(l) && isTimestamp(r)) return 'time';
  throw tqlSemanticError(`cannot compare ${describe(left.syntax, l)} with ` +
    `${describe(right.syntax, r)}${compareHint(l, r)}`, left.syntax.position);
}

function compareHint(left: TqlType, right: TqlType): string {
  const time = isTimestamp(left) || isTimestamp(right);
  if (time && (isScalarOf(left, 'STRING') || isScalarOf(right, 'STRING'))) {
    return "; write a time as TIMESTAMP('2026-01-01T00:00:00Z')";
  }
  if (time && (isNumeric(left) || isNumeric(right))) {
    return '; TO_TIMESTAMP_MS(n) makes a TIMESTAMP of epoch milliseconds';
  }
  return '';
}

/** `column temp (DOUBLE)`, `a STRING value`: an operand as messages name it. */
function describe(syntax: TqlExpression, type: TqlType): string {
  if (syntax.kind === 'name') return `column ${syntax.name} (${typeName(type)})`;
  if (syntax.kind === 'literal') return `a ${typeName(type)} value`;
  return `an expression of type ${typeName(type)}`;
}

function timeUnit(
  name: string,
  syntax: TqlExpression | undefined,
  usage: string,
  position: TqlPosition,
): TimeUnit {
  let text: string | undefined;
  if (syntax?.kind === 'name') text = syntax.name.toUpperCase();
  if (syntax?.kind === 'literal' && syntax.literal.type === 'STRING') {
    text = syntax.literal.value.toUpperCase();
  }
  const unit = TIME_UNITS.find((candidate) => candidate === text);
  if (unit === undefined) {
    throw tqlSemanticError(`the first argument of ${name} must be a time unit ` +
      `(${TIME_UNITS.join(', ')}): ${usage}`, syntax?.position ?? position);
  }
  return unit;
}

function argumentCountText(spec: ScalarFunctionSpec): string {
  const extra = spec.unitArgument === true ? 1 : 0;
  const min = spec.argumentCountMin + extra;
  const max = spec.argumentCountMax + extra;
  if (min === max) return `${min} argument${min === 1 ? '' : 's'}`;
  return max === Number.POSITIVE_INFINITY ? `${min} or more arguments`
    : `${min} to ${max} arguments`;
}

function children(expression: BoundExpression): readonly BoundExpression[] {
  switch (expression.kind) {
    case 'constant': case 'column': return [];
    case 'compare': case 'arithmetic': case 'xor': return [expression.left, expression.right];
    case 'negate': case 'not': case 'isNull': return [expression.operand];
    case 'logical': return expression.operands;
    case 'like':
      return expression.escape === undefined ? [expression.operand, expression.pattern]
        : [expression.operand, expression.pattern, expression.escape];
    case 'in': return [expression.operand, ...expression.list];
    case 'function': return expression.args;
  }
}

/**
 * Evaluates an expression whose operands are all constants, once, now: TIMESTAMP('...') becomes a
 * value the planner can use, and a bad constant is reported before any row is read.
 */
function fold(expression: BoundExpression): BoundExpression {
  if (expression.kind === 'constant' || expression.kind === 'column') return expression;
  if (!children(expression).every((child) => child.kind === 'constant')) return expression;
  const value = compileExpression(expression)([]);
  return { kind: 'constant', type: expression.type, value, position: expression.position };
}
