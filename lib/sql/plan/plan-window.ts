// Window functions (§5.5): `f(...) OVER ([PARTITION BY ...] [ORDER BY ...] [frame])` in the select
// list, at most one per select list (GridDB's rule). In a query with GROUP BY or aggregates the
// window runs over the groups: its arguments and keys bind as the select list does (group keys,
// aggregates: `SUM(AVG(x)) OVER (ORDER BY host)`); PARTITION BY and ORDER BY take no aggregate
// (GridDB's rule, everywhere). ROW_NUMBER, LAG and LEAD take no frame; the aggregates AVG, COUNT, MAX,
// MIN, SUM, TOTAL, STDDEV*, VAR* take `ROWS` or `RANGE` frames. Without a frame an aggregate
// covers its partition from the start to the current row and its peers when there is an ORDER BY
// (SQL's default), else the whole partition. A RANGE offset needs one numeric or TIMESTAMP ORDER BY
// key; `(n, unit)` needs a TIMESTAMP key; a plain n on a TIMESTAMP key is milliseconds.

import type { SqlExpression, SqlFrameBound, SqlWindowFrame } from '../ast.ts';
import { SqlError } from '../errors.ts';
import { isSqlNumericType, SQL_TIMESTAMP_TYPES } from '../value.ts';
import { bindExpression, commonType, widen, type SqlBindScope } from './bind-expression.ts';
import type { SqlBoundExpression } from './bound-expression.ts';
import type { SqlPlanFrameBound, SqlPlanNode, SqlWindowFunction } from './logical-plan.ts';
import { constantValue, isStatementConstant } from './plan-key-range.ts';
import { aggregateCall, containsAggregate, type SqlPlanContext } from './plan-select.ts';

type WindowExpression = Extract<SqlExpression, { kind: 'window' }>;

const WINDOW_AGGREGATES: ReadonlySet<string> = new Set([
  'AVG', 'COUNT', 'MAX', 'MIN', 'SUM', 'TOTAL', 'STDDEV_SAMP', 'STDDEV', 'STDDEV0', 'STDDEV_POP', 'VAR_SAMP',
  'VARIANCE', 'VARIANCE0', 'VAR_POP',
]);

const UNIT_MS: Readonly<Record<string, number>> = {
  DAY: 86_400_000, HOUR: 3_600_000, MINUTE: 60_000, SECOND: 1000, MILLISECOND: 1,
};

/** The window node over `input` and the column that gives the window's value. */
export function planWindow(window: WindowExpression, input: SqlPlanNode, scope: SqlBindScope,
  context: SqlPlanContext, grouped: boolean): { node: SqlPlanNode; value: SqlBoundExpression } {
  for (const key of [...window.partitionBy, ...window.orderBy.map((item) => item.expression)]) {
    if (containsAggregate(key)) {
      throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', 'a window\'s PARTITION BY and ORDER BY take no aggregate',
        key.position);
    }
  }
  const bind = (expression: SqlExpression) => bindExpression(expression, scope, context);
  const partitionKeys = window.partitionBy.map(bind);
  const orderKeys = window.orderBy.map((item) => ({ expression: bind(item.expression), descending: item.direction === 'DESC' }));
  const fn = windowFunction(window, orderKeys.map((key) => key.expression), scope, context, grouped);
  const type = fn.kind === 'rowNumber' ? 'LONG' : fn.kind === 'shift' ? fn.value.type : fn.call.type;
  const columns = [...input.columns, { name: '#window', type }];
  return {
    node: { kind: 'window', input, partitionKeys, orderKeys, function: fn, columns },
    value: { kind: 'column', index: input.columns.length, type },
  };
}

/** Every window call in an expression (none nested in another: a window's arguments take none). */
export function windowsIn(expression: SqlExpression): WindowExpression[] {
  if (expression.kind === 'window') return [expression];
  const found: WindowExpression[] = [];
  const walk = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) { value.forEach(walk); return; }
    const node = value as { kind?: string };
    if (node.kind === 'window') { found.push(value as WindowExpression); return; }
    if (node.kind === 'scalarSubquery' || node.kind === 'exists' || node.kind === 'inSubquery') {
      walk((value as { operand?: unknown }).operand);
      return;
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'position') walk(child);
  };
  walk(expression);
  return found;
}

function windowFunction(window: WindowExpression, orderKeys: readonly SqlBoundExpression[], scope: SqlBindScope,
  context: SqlPlanContext, grouped: boolean): SqlWindowFunction {
  const { call } = window;
  const name = call.name.toUpperCase();
  const fail = (detail: string) => new SqlError('SQL_COMPILE_SYNTAX_ERROR', `${name} OVER: ${detail}`, call.position);
  if (call.quantifier === 'DISTINCT') throw fail('a window function takes no DISTINCT argument');
  if (name === 'ROW_NUMBER' || name === 'LAG' || name === 'LEAD') {
    if (window.frame !== undefined) throw fail('takes no frame (ROWS or RANGE)');
    if (name === 'ROW_NUMBER') {
      if (call.args.length !== 0 || call.star) throw fail('takes no arguments');
      return { kind: 'rowNumber' };
    }
    if (call.args.length < 1 || call.args.length > 3) throw fail('takes a value, an optional offset and a default');
    const args = call.args.map((arg) => bindExpression(arg, scope, context));
    let offset = 1;
    if (args.length >= 2) {
      const value = isStatementConstant(args[1]!) ? constantValue(args[1]!, context.evalContext) : undefined;
      if ((typeof value !== 'bigint' && typeof value !== 'number') || !Number.isSafeInteger(Number(value)) || Number(value) < 0) {
        throw fail('the offset must be a constant non-negative integer');
      }
      offset = Number(value);
    }
    const otherwise = args[2];
    const type = otherwise === undefined ? args[0]!.type : commonType([args[0]!.type, otherwise.type], call.position);
    return {
      kind: 'shift', direction: name, value: widen(args[0]!, type), offset,
      otherwise: otherwise === undefined ? undefined : widen(otherwise, type),
    };
  }
  if (!WINDOW_AGGREGATES.has(name)) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `${name} cannot be a window function`, call.position);
  }
  const aggregate = aggregateCall(call, scope, context, grouped ? scope : undefined);
  return { kind: 'aggregate', call: aggregate, frame: frameOf(window.frame, orderKeys, fail) };
}

function frameOf(frame: SqlWindowFrame | undefined, orderKeys: readonly SqlBoundExpression[],
  fail: (detail: string) => SqlError): Extract<SqlWindowFunction, { kind: 'aggregate' }>['frame'] {
  if (frame === undefined) {
    return orderKeys.length === 0
      ? { unit: 'ROWS', start: { kind: 'UNBOUNDED PRECEDING', offset: 0 }, end: { kind: 'UNBOUNDED FOLLOWING', offset: 0 } }
      : { unit: 'RANGE', start: { kind: 'UNBOUNDED PRECEDING', offset: 0 }, end: { kind: 'CURRENT ROW', offset: 0 } };
  }
  if (frame.start.kind === 'UNBOUNDED FOLLOWING') throw fail('a frame cannot start at UNBOUNDED FOLLOWING');
  if (frame.end.kind === 'UNBOUNDED PRECEDING') throw fail('a frame cannot end at UNBOUNDED PRECEDING');
  const bound = (b: SqlFrameBound): SqlPlanFrameBound => {
    if (b.kind !== 'PRECEDING' && b.kind !== 'FOLLOWING') return { kind: b.kind, offset: 0 };
    if (frame.unit === 'ROWS') {
      if (b.timeUnit !== undefined) throw fail('a ROWS frame counts rows: (n, unit) needs RANGE');
      return { kind: b.kind, offset: Number(b.offset) };
    }
    if (orderKeys.length !== 1) throw fail('a RANGE frame with an offset needs exactly one ORDER BY key');
    const keyType = orderKeys[0]!.type;
    if (SQL_TIMESTAMP_TYPES.has(keyType)) {
      const ms = Number(b.offset) * (b.timeUnit === undefined ? 1 : UNIT_MS[b.timeUnit]!);
      const scale = keyType === 'TIMESTAMP(6)' ? 1000 : keyType === 'TIMESTAMP(9)' ? 1_000_000 : 1;
      return { kind: b.kind, offset: ms * scale };
    }
    if (b.timeUnit !== undefined) throw fail('(n, unit) needs a TIMESTAMP ORDER BY key');
    if (!isSqlNumericType(keyType) && keyType !== 'UNKNOWN') throw fail(`a RANGE offset needs a number key, not ${keyType}`);
    return { kind: b.kind, offset: Number(b.offset) };
  };
  return { unit: frame.unit, start: bound(frame.start), end: bound(frame.end) };
}
