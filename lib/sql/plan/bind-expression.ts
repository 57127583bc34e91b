// Name resolution and typing of one expression (GridDB's rules, §5.7): the syntax tree becomes a
// SqlBoundExpression over the columns a scope offers. Integer arithmetic is LONG, any float makes
// it DOUBLE; comparisons take numbers of any type together, timestamps of any precision together
// (widened to the finer one), and otherwise only values of one type; AND, OR and NOT are
// three-valued; `||` takes any types. A type error names the place in the text.

import { StorageError } from '../../base/errors.ts';
import { INT64_MAX, INT64_MIN } from '../../schema/column-type.ts';
import type { SqlExpression, SqlName } from '../ast.ts';
import { SqlError, sqlNotSupported, type SqlPosition } from '../errors.ts';
import { sqlCast } from '../functions/cast.ts';
import type { SqlEvalContext, SqlScalarFunction } from '../functions/scalar-function.ts';
import {
  isSqlNumericType, SQL_FLOATING_TYPES, SQL_INTEGER_TYPES, SQL_TIMESTAMP_TYPES, type SqlType,
  type SqlValue,
} from '../value.ts';
import type { SqlBoundExpression, SqlCompareOperator } from './bound-expression.ts';
import { foldConstant } from './fold-constant.ts';

/** A `?` parameter's value with the type the client gave it. */
export interface SqlTypedValue {
  readonly type: SqlType;
  readonly value: SqlValue;
}

/** What names and calls mean where an expression stands. */
export interface SqlBindScope {
  column(table: SqlName | undefined, name: SqlName, position: SqlPosition): SqlBoundExpression;
  /** An aggregate call; undefined where aggregates are not allowed (WHERE, GROUP BY). */
  aggregate?: (call: Extract<SqlExpression, { kind: 'call' }>) => SqlBoundExpression;
  /** A whole expression the scope already computes (a GROUP BY key), else undefined. */
  match?: (expression: SqlExpression) => SqlBoundExpression | undefined;
}

export interface SqlBindContext {
  readonly parameters: readonly SqlTypedValue[];
  readonly functions: (name: string) => SqlScalarFunction | undefined;
  /** The statement's context: with it, constant nodes are folded as they are bound (fold-constant.ts). */
  readonly evalContext?: SqlEvalContext;
  /** Plans a subquery expression standing in `scope` (plan-subquery.ts); absent: refused. */
  readonly bindSubquery?: (expression: SqlSubqueryExpression, scope: SqlBindScope) => SqlBoundExpression;
  /** `postgres`: a string literal compared with a TIMESTAMP is read as one (timestampLiteralSides). */
  readonly dialect?: SqlDialect;
}

/**
 * Whose SQL a statement is: GridDB's (undefined) or the PostgreSQL protocol's, which differs only
 * where PostgreSQL tools need it (a string literal compared with a TIMESTAMP, FLOOR and CEIL).
 */
export type SqlDialect = 'postgres';

export type SqlSubqueryExpression = Extract<SqlExpression, { kind: 'scalarSubquery' | 'exists' | 'inSubquery' }>;

export const SQL_AGGREGATE_NAMES: ReadonlySet<string> = new Set([
  'COUNT', 'SUM', 'AVG', 'MIN', 'MAX', 'TOTAL', 'GROUP_CONCAT', 'STDDEV_SAMP', 'STDDEV', 'STDDEV0',
  'STDDEV_POP', 'VAR_SAMP', 'VARIANCE', 'VARIANCE0', 'VAR_POP', 'MEDIAN', 'PERCENTILE_CONT',
]);

/** MIN and MAX with two or more arguments are the scalar functions of §5.8. */
export function isAggregateCall(expression: SqlExpression): boolean {
  if (expression.kind !== 'call') return false;
  const name = expression.name.toUpperCase();
  if (!SQL_AGGREGATE_NAMES.has(name)) return false;
  return !((name === 'MIN' || name === 'MAX') && expression.args.length > 1);
}

export function sqlTypeError(detail: string, position: SqlPosition): SqlError {
  return new SqlError('TYPE_MISMATCH', detail, position);
}

export function bindExpression(
  expression: SqlExpression,
  scope: SqlBindScope,
  context: SqlBindContext,
): SqlBoundExpression {
  return foldConstant(bindNode(expression, scope, context), context.evalContext);
}

function bindNode(
  expression: SqlExpression,
  scope: SqlBindScope,
  context: SqlBindContext,
): SqlBoundExpression {
  const matched = scope.match?.(expression);
  if (matched !== undefined) return matched;
  const bind = (inner: SqlExpression) => bindExpression(inner, scope, context);
  const fold = (node: SqlBoundExpression) => foldConstant(node, context.evalContext);
  switch (expression.kind) {
    case 'literal': return literal(expression.literal, expression.position);
    case 'parameter': {
      const parameter = context.parameters[expression.index - 1];
      if (parameter === undefined) {
        throw new SqlError('ROW_INVALID', `parameter ${expression.index} has no value ` +
          `(${context.parameters.length} given)`, expression.position);
      }
      return { kind: 'constant', value: parameter.value, type: parameter.type };
    }
    case 'column': return scope.column(expression.table, expression.name, expression.position);
    case 'unary': return unary(expression.operator, bind(expression.operand), expression.position);
    case 'binary': {
      const [left, right] = COMPARE_OPERATORS.has(expression.operator)
        ? timestampLiteralSides(bind(expression.left), bind(expression.right), expression.position, context)
        : [bind(expression.left), bind(expression.right)];
      return foldSides(binary(expression.operator, left, right, expression.position), fold);
    }
    case 'is':
      return {
        kind: 'is', negated: expression.negated, ...comparable(...timestampLiteralSides(bind(expression.left),
          bind(expression.right), expression.position, context), expression.position), type: 'BOOL',
      };
    case 'isNull':
      return { kind: 'isNull', negated: expression.negated, operand: bind(expression.operand), type: 'BOOL' };
    case 'like': {
      const args = [bind(expression.pattern), bind(expression.operand)];
      if (expression.escape !== undefined) args.push(bind(expression.escape));
      const call = fold(callFunction(expression.operator, args, expression.position, context));
      return expression.negated ? unary('NOT', call, expression.position) : call;
    }
    case 'between': {
      const operand = bind(expression.operand);
      const position = expression.position;
      const low = fold(compare('>=', ...timestampLiteralSides(operand, bind(expression.low), position, context), position));
      const high = fold(compare('<=', ...timestampLiteralSides(operand, bind(expression.high), position, context), position));
      const both = fold({ kind: 'logic', operator: 'AND', left: low, right: high, type: 'BOOL' });
      return expression.negated ? unary('NOT', both, expression.position) : both;
    }
    case 'in': {
      let operand = bind(expression.operand);
      let list = expression.list.map((item) =>
        timestampLiteralSides(operand, bind(item), expression.position, context)[1]);
      for (const item of list) comparable(operand, item, expression.position);
      if (SQL_TIMESTAMP_TYPES.has(operand.type)) {
        const finest = [operand, ...list].map((item) => item.type)
          .filter((type) => SQL_TIMESTAMP_TYPES.has(type))
          .sort((x, y) => TIMESTAMP_RANK[y]! - TIMESTAMP_RANK[x]!)[0]!;
        operand = fold(widen(operand, finest));
        list = list.map((item) => fold(widen(item, finest)));
      }
      return { kind: 'in', negated: expression.negated, operand, list, type: 'BOOL' };
    }
    case 'case': return caseExpression(expression, bind, fold);
    case 'window':
      throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', 'a window function (OVER) is allowed only in the select list',
        expression.position);
    case 'scalarSubquery': case 'exists': case 'inSubquery':
      if (context.bindSubquery === undefined) throw sqlNotSupported('a subquery is not allowed here', expression.position);
      return context.bindSubquery(expression, scope);
    case 'cast': {
      const operand = bind(expression.operand);
      if (operand.type === expression.type) return operand;
      const definition = sqlCast(expression.type);
      const type = definition.resultType([operand.type], [writtenConstant(operand)]);
      if (typeof type !== 'string') throw sqlTypeError(type.problem, expression.position);
      return { kind: 'call', function: definition, args: [operand], type, position: expression.position };
    }
    case 'call': {
      if (isAggregateCall(expression)) {
        if (scope.aggregate === undefined) {
          throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `the aggregate ${expression.name.toUpperCase()} ` +
            'is not allowed here (only in the select list, HAVING and ORDER BY)', expression.position);
        }
        return scope.aggregate(expression);
      }
      if (expression.quantifier !== undefined || expression.star || expression.withinGroup !== undefined) {
        throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `${expression.name} is not an aggregate: ` +
          'DISTINCT, ALL, * and WITHIN GROUP do not apply', expression.position);
      }
      return callFunction(expression.name, expression.args.map(bind), expression.position, context);
    }
    case 'timeUnit': return { kind: 'constant', value: expression.unit, type: 'STRING' };
  }
}

function literal(value: Extract<SqlExpression, { kind: 'literal' }>['literal'], position: SqlPosition):
  SqlBoundExpression {
  switch (value.type) {
    case 'NULL': return { kind: 'constant', value: null, type: 'UNKNOWN' };
    case 'BOOL': return { kind: 'constant', value: value.value, type: 'BOOL' };
    case 'INTEGER':
      if (value.value > INT64_MAX || value.value < INT64_MIN) {
        throw new SqlError('VALUE_OUT_OF_RANGE', `the integer ${value.value} does not fit a LONG`, position);
      }
      return { kind: 'constant', value: value.value, type: 'LONG' };
    case 'DOUBLE': return { kind: 'constant', value: value.value, type: 'DOUBLE' };
    case 'STRING': return { kind: 'constant', value: value.value, type: 'STRING' };
    case 'BLOB': return { kind: 'constant', value: value.value, type: 'BLOB' };
  }
}

function unary(operator: '-' | '+' | '~' | 'NOT', operand: SqlBoundExpression, position: SqlPosition):
  SqlBoundExpression {
  if (operator === 'NOT') {
    expectType(operand, (type) => type === 'BOOL', 'NOT takes a BOOL', position);
    return { kind: 'unary', operator, operand, type: 'BOOL', position };
  }
  expectType(operand, isSqlNumericType, `${operator} takes a number`, position);
  if (operator === '+') return operand;
  if (operator === '~') {
    expectType(operand, (type) => SQL_INTEGER_TYPES.has(type), '~ takes an integer', position);
    return { kind: 'unary', operator, operand, type: 'LONG', position };
  }
  const type = operand.type === 'UNKNOWN' ? 'UNKNOWN' : SQL_FLOATING_TYPES.has(operand.type) ? 'DOUBLE' : 'LONG';
  return { kind: 'unary', operator, operand, type, position };
}

function binary(
  operator: Extract<SqlExpression, { kind: 'binary' }>['operator'],
  left: SqlBoundExpression,
  right: SqlBoundExpression,
  position: SqlPosition,
): SqlBoundExpression {
  switch (operator) {
    case 'AND': case 'OR':
      expectType(left, (type) => type === 'BOOL', `${operator} takes BOOL operands`, position);
      expectType(right, (type) => type === 'BOOL', `${operator} takes BOOL operands`, position);
      return { kind: 'logic', operator, left, right, type: 'BOOL' };
    case '||': return { kind: 'concat', left, right, type: 'STRING' };
    case '=': case '==': return compare('=', left, right, position);
    case '!=': case '<>': return compare('!=', left, right, position);
    case '<': case '<=': case '>': case '>=': return compare(operator, left, right, position);
    case '&': case '|': case '<<': case '>>': {
      const integer = (type: SqlType) => SQL_INTEGER_TYPES.has(type);
      expectType(left, integer, `${operator} takes integers`, position);
      expectType(right, integer, `${operator} takes integers`, position);
      return { kind: 'arithmetic', operator, left, right, type: 'LONG', position };
    }
    case '+': case '-': case '*': case '/': case '%': {
      expectType(left, isSqlNumericType, `${operator} takes numbers`, position);
      expectType(right, isSqlNumericType, `${operator} takes numbers`, position);
      const floating = SQL_FLOATING_TYPES.has(left.type) || SQL_FLOATING_TYPES.has(right.type);
      const type = floating ? 'DOUBLE' : left.type === 'UNKNOWN' && right.type === 'UNKNOWN' ? 'UNKNOWN' : 'LONG';
      return { kind: 'arithmetic', operator, left, right, type, position };
    }
  }
}

function compare(operator: SqlCompareOperator, left: SqlBoundExpression, right: SqlBoundExpression,
  position: SqlPosition): SqlBoundExpression {
  return { kind: 'compare', operator, ...comparable(left, right, position), type: 'BOOL' };
}

const COMPARE_OPERATORS: ReadonlySet<string> = new Set(['=', '==', '!=', '<>', '<', '<=', '>', '>=']);

/**
 * In the postgres dialect, a string literal (or parameter) compared with a TIMESTAMP is read as
 * one of that precision, as CAST(... AS TIMESTAMP) reads it (§5.8): Grafana's `$__timeFilter(ts)`
 * is `ts BETWEEN '2026-01-01T00:00:00Z' AND '...'`, and PostgreSQL reads such a literal as the
 * column's type. GridDB's dialect keeps §5.7's rule: STRING and TIMESTAMP do not compare.
 */
function timestampLiteralSides(left: SqlBoundExpression, right: SqlBoundExpression, position: SqlPosition,
  context: SqlBindContext): [SqlBoundExpression, SqlBoundExpression] {
  if (context.dialect !== 'postgres') return [left, right];
  return [asTimestamp(left, right.type, position, context), asTimestamp(right, left.type, position, context)];
}

function asTimestamp(side: SqlBoundExpression, otherType: SqlType, position: SqlPosition,
  context: SqlBindContext): SqlBoundExpression {
  if (side.type !== 'STRING' || writtenConstant(side) === undefined) return side;
  if (otherType !== 'TIMESTAMP' && otherType !== 'TIMESTAMP(6)' && otherType !== 'TIMESTAMP(9)') return side;
  return foldConstant({ kind: 'call', function: sqlCast(otherType), args: [side], type: otherType, position },
    context.evalContext);
}

/** Both sides in one comparable shape: timestamps widened to the finer precision. */
export function comparable(left: SqlBoundExpression, right: SqlBoundExpression, position: SqlPosition):
  { left: SqlBoundExpression; right: SqlBoundExpression } {
  const a = left.type;
  const b = right.type;
  if (a === 'UNKNOWN' || b === 'UNKNOWN' || a === b) return { left, right };
  if (isSqlNumericType(a) && isSqlNumericType(b)) return { left, right };
  if (SQL_TIMESTAMP_TYPES.has(a) && SQL_TIMESTAMP_TYPES.has(b)) {
    const finer = TIMESTAMP_RANK[a]! > TIMESTAMP_RANK[b]! ? a : b;
    return { left: widen(left, finer), right: widen(right, finer) };
  }
  throw sqlTypeError(`${a} and ${b} cannot be compared`, position);
}

const TIMESTAMP_RANK: Partial<Record<SqlType, number>> = {
  'TIMESTAMP': 3, 'TIMESTAMP(6)': 6, 'TIMESTAMP(9)': 9,
};

export function widen(expression: SqlBoundExpression, type: SqlType): SqlBoundExpression {
  if (expression.type === type || expression.type === 'UNKNOWN') return expression;
  return { kind: 'widen', operand: expression, type };
}

function caseExpression(
  expression: Extract<SqlExpression, { kind: 'case' }>,
  bind: (inner: SqlExpression) => SqlBoundExpression,
  fold: (node: SqlBoundExpression) => SqlBoundExpression,
): SqlBoundExpression {
  const operand = expression.operand === undefined ? undefined : bind(expression.operand);
  const whens = expression.whens.map(({ when, then }) => {
    const condition = operand === undefined ? bind(when)
      : fold(compare('=', operand, bind(when), expression.position));
    expectType(condition, (type) => type === 'BOOL', 'a CASE condition must be BOOL', expression.position);
    return { when: condition, then: bind(then) };
  });
  const otherwise = expression.otherwise === undefined ? undefined : bind(expression.otherwise);
  const results = [...whens.map((when) => when.then), ...(otherwise === undefined ? [] : [otherwise])];
  const type = commonType(results.map((result) => result.type), expression.position);
  return {
    kind: 'case',
    whens: whens.map((when) => ({ when: when.when, then: fold(widenTo(when.then, type)) })),
    otherwise: otherwise === undefined ? undefined : fold(widenTo(otherwise, type)),
    type,
  };
}

/** The type CASE results share: one type, integers → LONG, floats with numbers → DOUBLE. */
export function commonType(types: readonly SqlType[], position: SqlPosition): SqlType {
  const known = [...new Set(types.filter((type) => type !== 'UNKNOWN'))];
  if (known.length === 0) return 'UNKNOWN';
  if (known.length === 1) return known[0]!;
  if (known.every((type) => SQL_INTEGER_TYPES.has(type))) return 'LONG';
  if (known.every(isSqlNumericType)) return 'DOUBLE';
  throw sqlTypeError(`results of types ${known.join(', ')} cannot be mixed`, position);
}

function widenTo(expression: SqlBoundExpression, type: SqlType): SqlBoundExpression {
  return widen(expression, type);
}

function callFunction(name: string, args: SqlBoundExpression[], position: SqlPosition,
  context: SqlBindContext): SqlBoundExpression {
  const definition = context.functions(name);
  if (definition === undefined) {
    throw sqlNotSupported(`the function ${name.toUpperCase()} is not known`, position);
  }
  if (args.length < definition.minArgs || args.length > definition.maxArgs) {
    const most = definition.maxArgs === Infinity ? 'or more' : `to ${definition.maxArgs}`;
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `${definition.name} takes ${definition.minArgs} ` +
      `${most} arguments, not ${args.length}`, position);
  }
  const constants = args.map(writtenConstant);
  const type = definition.resultType(args.map((arg) => arg.type), constants);
  if (typeof type !== 'string') throw sqlTypeError(`${definition.name}: ${type.problem}`, position);
  return { kind: 'call', function: definition, args, type, position };
}

/** A comparison with its sides folded (the widenings comparable() puts around constants). */
function foldSides(node: SqlBoundExpression, fold: (node: SqlBoundExpression) => SqlBoundExpression):
  SqlBoundExpression {
  if (node.kind !== 'compare') return node;
  const left = fold(node.left);
  const right = fold(node.right);
  return left === node.left && right === node.right ? node : { ...node, left, right };
}

/** A literal's or parameter's value; undefined for anything else, folded constants included. */
function writtenConstant(expression: SqlBoundExpression): SqlValue | undefined {
  return expression.kind === 'constant' && expression.folded !== true ? expression.value : undefined;
}

function expectType(expression: SqlBoundExpression, accepts: (type: SqlType) => boolean,
  detail: string, position: SqlPosition): void {
  if (expression.type === 'UNKNOWN' || accepts(expression.type)) return;
  throw sqlTypeError(`${detail}, not ${expression.type}`, position);
}

/** A constant expression's value at plan time (LIMIT, OFFSET, EVERY), or undefined. */
export function constantOf(expression: SqlBoundExpression): SqlValue | undefined {
  return expression.kind === 'constant' ? expression.value : undefined;
}

export function assertNever(value: never): never {
  throw new StorageError('INTERNAL_ERROR', `unexpected ${String(value)}`);
}
