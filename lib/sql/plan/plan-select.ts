// The planner of a query: FROM, WHERE, GROUP BY [RANGE], HAVING, the select list, DISTINCT, ORDER
// BY and LIMIT/OFFSET become a chain of logical operators (logical-plan.ts), with names resolved,
// every expression typed, and what the scan can do itself pushed down to it: the columns read,
// the row-key ranges WHERE implies, a TREE index range, the scan order that spares a sort
// (plan-scan.ts), and LIMIT when nothing between drops rows.
//
// A column outside GROUP BY in an aggregate query takes its group's first value (SQLite's and
// GridDB's behaviour, which `SELECT * … GROUP BY RANGE` relies on). ORDER BY takes an ordinal, an
// output alias, or any expression (computed as a hidden column and dropped after the sort).

import { SQL_RANGE_GROUP_COUNT_MAX } from '../../base/limits.ts';
import type { ColumnType } from '../../schema/column-type.ts';
import type { ContainerSchema } from '../../schema/container-schema.ts';
import { SQL_METATABLE_COLUMNS, sqlMetatableOf, type SqlMetatableName } from '../meta/metatables.ts';
import { normalizeName } from '../../schema/names.ts';
import type { SqlExpression, SqlHint, SqlName, SqlQuery, SqlSelectCore } from '../ast.ts';
import { SqlError, type SqlPosition } from '../errors.ts';
import type { SqlEvalContext } from '../functions/scalar-function.ts';
import { sqlTypeOfColumn } from '../exec/table-source.ts';
import { printSqlExpression } from '../print.ts';
import { SQL_INTEGER_TYPES, SQL_TIMESTAMP_TYPES, isSqlNumericType, type SqlType } from '../value.ts';
import {
  bindExpression, isAggregateCall, sqlTypeError, type SqlBindContext, type SqlBindScope,
} from './bind-expression.ts';
import { boundExpressionKey, type SqlBoundExpression } from './bound-expression.ts';
import type {
  SqlAggregateCall, SqlAggregateName, SqlPlanColumn, SqlPlanNode,
} from './logical-plan.ts';
import { planFromReference, relationScope, relationStar } from './plan-from.ts';
import { andOf, columnsOf, hasSubquery, optimizeJoins } from './plan-join.ts';
import { conjunctsNotImplied } from './plan-key-implied.ts';
import { planSetOperation } from './plan-set-operation.ts';
import { planWindow, windowsIn } from './plan-window.ts';
import { subqueryBinder, withOuterScope, type SqlOuterReferences } from './plan-subquery.ts';
import { columnBounds, conjunctsOf, constantValue, isStatementConstant } from './plan-key-range.ts';
import { aggregateInScan } from './plan-scan-aggregate.ts';
import { aggregateBySkipScan } from './plan-skip-scan.ts';
import { replaceNode, scanAccess, sortByScan } from './plan-scan.ts';

export interface SqlPlanContext extends SqlBindContext {
  /** A table's schema by name (any case), or undefined when there is none. */
  readonly tableSchema: (name: string) => ContainerSchema | undefined;
  readonly evalContext: SqlEvalContext;
  readonly hints: readonly SqlHint[];
  /** Committed rows of a table, for the join's cost (TableRowCount hints come first). */
  readonly tableRowCount?: (name: string) => number | undefined;
  /** /sql/costBasedJoin: false orders joins as FROM names them (plan-join-order.ts); true when absent. */
  readonly costBasedJoin?: boolean;
  /** Inside a subquery: the enclosing query's names (plan-subquery.ts). */
  readonly outer?: SqlOuterReferences;
}

export interface SqlQueryPlan {
  readonly root: SqlPlanNode;
  readonly columns: readonly SqlPlanColumn[];
  /** The table the query reads, if any. */
  readonly schema: ContainerSchema | undefined;
}

interface Source {
  readonly node: SqlPlanNode;
  readonly scope: SqlBindScope;
  readonly schema: ContainerSchema | undefined;
  readonly tableLabel: string | undefined;
  readonly usedColumns: Set<number>;
  /** `*` and `t.*` over a FROM with joins or derived tables. */
  readonly star?: (table: SqlName | undefined, position: SqlPosition) => { expression: SqlExpression; name: string }[];
}

export function planQuery(query: SqlQuery, outerContext: SqlPlanContext): SqlQueryPlan {
  if (query.kind === 'setOperation') return planSetOperation(query, outerContext);
  const context: SqlPlanContext = { ...outerContext };
  Object.assign(context, { bindSubquery: subqueryBinder(context) });
  return planSelect(query, context);
}

function planSelect(query: SqlSelectCore, context: SqlPlanContext): SqlQueryPlan {
  const source = planSource(query, context);
  const where = query.where === undefined ? undefined : bindCondition(query.where, source.scope, context, 'WHERE');
  let node: SqlPlanNode = source.node;
  if (where !== undefined) node = { kind: 'filter', input: node, predicate: where, columns: node.columns };

  const items = selectItems(query, source);
  const aggregated = query.groupBy !== undefined || query.having !== undefined ||
    items.some((item) => containsAggregate(item.expression)) ||
    query.orderBy.some((item) => containsAggregate(item.expression));
  if (query.having !== undefined && query.groupBy === undefined) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', 'HAVING requires GROUP BY', query.position);
  }
  let scope = source.scope;
  if (aggregated) {
    const grouping = planGrouping(query, node, source, where, context);
    node = grouping.node;
    scope = grouping.scope;
    if (query.having !== undefined) {
      const having = bindCondition(query.having, scope, context, 'HAVING');
      // The aggregate node's columns grow while HAVING and the select list are bound.
      node = { kind: 'filter', input: node, predicate: having, columns: node.columns };
    }
  }

  const windows = items.flatMap((item) => windowsIn(item.expression));
  if (windows.length > 0) {
    if (aggregated) registerAggregates(query, items, windows, node, scope, context);
    const planned = windowNode(windows, node, scope, context, aggregated);
    node = planned.node;
    const inner = scope;
    scope = { ...inner, match: (expression) => (expression === windows[0] ? planned.value : inner.match?.(expression)) };
  }
  const expressions = items.map((item) => bindExpression(item.expression, scope, context));
  const columns: SqlPlanColumn[] = items.map((item, i) => ({ name: item.name, type: expressions[i]!.type }));
  const keys = orderKeys(query, items, expressions, scope, context);
  const hidden = keys.hidden;
  if (hidden.length > 0 && query.quantifier === 'DISTINCT') {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', 'with SELECT DISTINCT, ORDER BY must name ' +
      'columns of the select list', query.orderBy[0]!.expression.position);
  }
  const projected = [...expressions, ...hidden];
  const projectedColumns = [...columns, ...hidden.map((h, i) => ({ name: `#order${i}`, type: h.type }))];
  node = { kind: 'project', input: node, expressions: projected, columns: projectedColumns };
  if (query.quantifier === 'DISTINCT') node = { kind: 'distinct', input: node, columns: node.columns };

  const limit = countOf(query.limit, 'LIMIT', context) ?? Infinity;
  const offset = countOf(query.offset, 'OFFSET', context) ?? 0;
  if (keys.sort.length > 0) {
    node = { kind: 'sort', input: node, keys: keys.sort, rowCountMax: limit + offset, columns: node.columns };
  }
  if (limit !== Infinity || offset > 0) node = { kind: 'limit', input: node, limit, offset, columns: node.columns };
  if (hidden.length > 0) {
    node = {
      kind: 'project', input: node, columns,
      expressions: columns.map((column, index) => ({ kind: 'column', index, type: column.type })),
    };
  }
  const root = aggregateBySkipScan(aggregateInScan(pushDown(node, source, context, limit + offset,
    aggregated || query.quantifier === 'DISTINCT' || where !== undefined || windows.length > 0)), source.schema);
  return { root, columns, schema: source.schema };
}

/**
 * GridDB allows one window function per select list. Over groups (§5.5) it runs on the grouped
 * rows; not with GROUP BY RANGE (§5.6), MEDIAN or PERCENTILE_CONT.
 */
function windowNode(windows: ReturnType<typeof windowsIn>, input: SqlPlanNode, scope: SqlBindScope,
  context: SqlPlanContext, aggregated: boolean): ReturnType<typeof planWindow> {
  if (windows.length > 1) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', 'a select list takes at most one window function (OVER)',
      windows[1]!.position);
  }
  const grouping = groupingNode(input);
  if (grouping?.kind === 'rangeGroup') {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', 'GROUP BY RANGE takes no window function (OVER)',
      windows[0]!.position);
  }
  const ordered = grouping?.kind === 'aggregate'
    ? grouping.aggregates.find((call) => call.name === 'MEDIAN' || call.name === 'PERCENTILE_CONT') : undefined;
  if (ordered !== undefined) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `a window function (OVER) cannot be in a query with ${ordered.name}`,
      windows[0]!.position);
  }
  return planWindow(windows[0]!, input, scope, context, aggregated);
}

/** The GROUP BY node under HAVING's filter, if any. */
function groupingNode(node: SqlPlanNode): SqlPlanNode | undefined {
  if (node.kind === 'filter') return groupingNode(node.input);
  return node.kind === 'aggregate' || node.kind === 'rangeGroup' ? node : undefined;
}

/**
 * Binds the select list and ORDER BY once over the groups, with the window in place, and throws
 * the result away: binding adds each aggregate they name to the grouping node's columns, and the
 * window node copies its input's columns when planned, so all must be there first.
 */
function registerAggregates(query: SqlSelectCore, items: readonly SelectItem[],
  windows: ReturnType<typeof windowsIn>, input: SqlPlanNode, scope: SqlBindScope, context: SqlPlanContext): void {
  const first = windowNode(windows, input, scope, context, true);
  const registering: SqlBindScope = {
    ...scope, match: (expression) => (expression === windows[0] ? first.value : scope.match?.(expression)),
  };
  const expressions = items.map((item) => bindExpression(item.expression, registering, context));
  orderKeys(query, items, expressions, registering, context);
}

function planSource(query: SqlSelectCore, context: SqlPlanContext): Source {
  const usedColumns = new Set<number>();
  if (query.from === undefined) {
    return {
      node: { kind: 'values', rows: [[]], columns: [] },
      scope: {
        column(_table, name, position) {
          throw new SqlError('COLUMN_NOT_FOUND', `no column ${name.text}: the query has no FROM`, position);
        },
      },
      schema: undefined, tableLabel: undefined, usedColumns,
    };
  }
  const reference = query.from;
  if (reference.kind !== 'table') {
    const relation = planFromReference(reference, context);
    return {
      node: relation.node, scope: withOuterScope(relationScope(relation.columns), context), schema: undefined,
      tableLabel: undefined, usedColumns, star: (table, position) => relationStar(relation.columns, table, position),
    };
  }
  const metatable = sqlMetatableOf(reference.name);
  const schema = metatable === undefined ? context.tableSchema(reference.name.text) : metatableSchema(metatable);
  if (schema === undefined) {
    throw new SqlError('CONTAINER_NOT_FOUND', `no table ${reference.name.text}`, reference.name.position);
  }
  const label = reference.alias ?? reference.name;
  const scope: SqlBindScope = {
    column(table, name, position) {
      if (table !== undefined && !sameName(table, label)) {
        throw new SqlError('COLUMN_NOT_FOUND', `no table ${table.text} in FROM (it reads ${label.text})`, position);
      }
      const index = columnIndexOf(schema, name);
      if (index < 0) throw new SqlError('COLUMN_NOT_FOUND', `table ${schema.name} has no column ${name.text}`, position);
      usedColumns.add(index);
      return { kind: 'column', index, type: sqlTypeOfColumn(schema.columns[index]!) };
    },
  };
  const columns = schema.columns.map((column) => ({ name: column.name, type: sqlTypeOfColumn(column) }));
  const node: SqlPlanNode = metatable !== undefined ? { kind: 'metatable', table: metatable, columns } : {
    kind: 'scan', table: schema.name, columnIndexes: [], columns, rowCountMax: Infinity,
    keyRange: { from: undefined, to: undefined, empty: false }, index: undefined,
  };
  return { node, scope: withOuterScope(scope, context), schema, tableLabel: label.text, usedColumns };
}

/** A metatable seen as a container without a row key, so `*` and column names bind as for a table. */
export function metatableSchema(name: SqlMetatableName): ContainerSchema {
  return {
    name, type: 'COLLECTION', rowKeyColumnCount: 0, indexes: [], schemaVersion: 0,
    columns: SQL_METATABLE_COLUMNS[name].map((column) => ({
      name: column.name, type: column.type as ColumnType, array: false, notNull: false,
    })),
  };
}

export function columnIndexOf(schema: ContainerSchema, name: SqlName): number {
  const wanted = name.quoted ? name.text : normalizeName(name.text);
  return schema.columns.findIndex((column) =>
    (name.quoted ? column.name === wanted || normalizeName(column.name) === normalizeName(wanted)
      : normalizeName(column.name) === wanted));
}

function sameName(a: SqlName, b: SqlName): boolean {
  return normalizeName(a.text) === normalizeName(b.text);
}

export function bindCondition(expression: SqlExpression, scope: SqlBindScope, context: SqlBindContext,
  clause: string): SqlBoundExpression {
  const bound = bindExpression(expression, scope, context);
  if (bound.type !== 'BOOL' && bound.type !== 'UNKNOWN') {
    throw sqlTypeError(`${clause} needs a BOOL condition, not ${bound.type}`, expression.position);
  }
  return bound;
}

interface SelectItem {
  readonly expression: SqlExpression;
  readonly name: string;
  readonly alias: string | undefined;
}

function selectItems(query: SqlSelectCore, source: Source): SelectItem[] {
  return query.items.flatMap((item): SelectItem[] => {
    if (item.kind === 'star') {
      if (source.star !== undefined) {
        return source.star(item.table, item.position).map(({ expression, name }) => ({ expression, name, alias: undefined }));
      }
      if (source.schema === undefined) {
        throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', '* needs a FROM', item.position);
      }
      if (item.table !== undefined && normalizeName(item.table.text) !== normalizeName(source.tableLabel!)) {
        throw new SqlError('COLUMN_NOT_FOUND', `no table ${item.table.text} in FROM`, item.position);
      }
      return source.schema.columns.map((column) => ({
        expression: {
          kind: 'column', table: undefined, position: item.position,
          name: { text: column.name, quoted: true, position: item.position },
        },
        name: column.name, alias: undefined,
      }));
    }
    const { expression, alias } = item;
    const name = alias?.text ?? (expression.kind === 'column' ? expression.name.text : printSqlExpression(expression));
    return [{ expression, name, alias: alias?.text }];
  });
}

export function containsAggregate(expression: SqlExpression): boolean {
  if (isAggregateCall(expression)) return true;
  let found = false;
  forEachChild(expression, (child) => { found ||= containsAggregate(child); });
  return found;
}

function forEachChild(expression: SqlExpression, visit: (child: SqlExpression) => void): void {
  switch (expression.kind) {
    case 'unary': case 'isNull': case 'cast': visit(expression.operand); break;
    case 'binary': case 'is': visit(expression.left); visit(expression.right); break;
    case 'like':
      visit(expression.operand); visit(expression.pattern);
      if (expression.escape !== undefined) visit(expression.escape);
      break;
    case 'between': visit(expression.operand); visit(expression.low); visit(expression.high); break;
    case 'in': visit(expression.operand); expression.list.forEach(visit); break;
    case 'case':
      if (expression.operand !== undefined) visit(expression.operand);
      for (const { when, then } of expression.whens) { visit(when); visit(then); }
      if (expression.otherwise !== undefined) visit(expression.otherwise);
      break;
    case 'call': expression.args.forEach(visit); break;
    default: break;
  }
}

interface Grouping {
  readonly node: SqlPlanNode;
  readonly scope: SqlBindScope;
}

/**
 * In the postgres dialect, `GROUP BY 1` groups by the select list's first item, as PostgreSQL
 * reads it (Grafana's time-series queries end `GROUP BY 1 ORDER BY 1`); in GridDB's, an integer
 * is a constant, one group.
 */
function groupOrdinalItem(query: SqlSelectCore, expression: SqlExpression, context: SqlPlanContext): SqlExpression {
  if (context.dialect !== 'postgres' || expression.kind !== 'literal' || expression.literal.type !== 'INTEGER') {
    return expression;
  }
  const ordinal = Number(expression.literal.value);
  const item = query.items[ordinal - 1];
  if (item === undefined || item.kind !== 'expression') {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `GROUP BY ${ordinal}: the select list has no expression ` +
      `at position ${ordinal}`, expression.position);
  }
  if (containsAggregate(item.expression)) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `GROUP BY ${ordinal}: the select list's item ${ordinal} ` +
      'is an aggregate', expression.position);
  }
  return item.expression;
}

/**
 * The aggregate (or GROUP BY RANGE) node and the scope above it: group keys first, then one
 * column per distinct aggregate call. The node's `aggregates` and `columns` arrays grow in place
 * while HAVING, the select list and ORDER BY are bound in that scope.
 */
function planGrouping(query: SqlSelectCore, input: SqlPlanNode, source: Source,
  where: SqlBoundExpression | undefined, context: SqlPlanContext): Grouping {
  const groupBy = query.groupBy;
  const keys: SqlBoundExpression[] = groupBy?.kind === 'expressions'
    ? groupBy.expressions.map((expression) =>
      bindExpression(groupOrdinalItem(query, expression, context), source.scope, context))
    : groupBy?.kind === 'range' ? [rangeKey(groupBy.key, source, context)] : [];
  const keyTexts = keys.map(boundExpressionKey);
  const aggregates: SqlAggregateCall[] = [];
  const aggregateTexts: string[] = [];
  const columns: SqlPlanColumn[] = keys.map((key, i) => ({ name: `#key${i}`, type: key.type }));
  const addAggregate = (call: SqlAggregateCall): SqlBoundExpression => {
    const text = JSON.stringify([call.name, call.distinct, call.fraction, call.separator,
      call.args.map(boundExpressionKey)]);
    let index = aggregateTexts.indexOf(text);
    if (index < 0) {
      index = aggregates.length;
      aggregates.push(call);
      aggregateTexts.push(text);
      columns.push({ name: call.name, type: call.type });
    }
    return { kind: 'column', index: keys.length + index, type: call.type };
  };
  const scope: SqlBindScope = {
    match(expression) {
      if (containsAggregate(expression) || expression.kind === 'literal' || expression.kind === 'parameter') {
        return undefined;
      }
      let bound: SqlBoundExpression;
      try {
        bound = bindExpression(expression, source.scope, context);
      } catch {
        return undefined;
      }
      const index = keyTexts.indexOf(boundExpressionKey(bound));
      return index < 0 ? undefined : { kind: 'column', index, type: keys[index]!.type };
    },
    column(table, name, position) {
      const column = source.scope.column(table, name, position);
      return addAggregate({ name: 'FIRST', args: [column], distinct: false, type: column.type });
    },
    aggregate(call) {
      return addAggregate(aggregateCall(call, source.scope, context));
    },
  };
  let node: SqlPlanNode;
  if (groupBy?.kind === 'range') {
    node = rangeGroupNode(groupBy, keys[0]!, input, where, aggregates, columns, context);
  } else {
    node = { kind: 'aggregate', input, keys, aggregates, columns };
  }
  return { node, scope };
}

function rangeKey(key: SqlExpression, source: Source, context: SqlPlanContext): SqlBoundExpression {
  const bound = bindExpression(key, source.scope, context);
  if (bound.kind !== 'column' || !SQL_TIMESTAMP_TYPES.has(bound.type)) {
    throw sqlTypeError('GROUP BY RANGE takes a TIMESTAMP column', key.position);
  }
  return bound;
}

const UNIT_MS: Readonly<Record<string, bigint>> = {
  DAY: 86_400_000n, HOUR: 3_600_000n, MINUTE: 60_000n, SECOND: 1000n, MILLISECOND: 1n,
};

function rangeGroupNode(
  groupBy: Extract<NonNullable<SqlSelectCore['groupBy']>, { kind: 'range' }>,
  key: SqlBoundExpression,
  input: SqlPlanNode,
  where: SqlBoundExpression | undefined,
  aggregates: SqlAggregateCall[],
  columns: SqlPlanColumn[],
  context: SqlPlanContext,
): SqlPlanNode {
  const unitMs = UNIT_MS[groupBy.unit.toUpperCase()];
  if (unitMs === undefined) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `EVERY takes DAY, HOUR, MINUTE, SECOND or ` +
      `MILLISECOND, not ${groupBy.unit}`, groupBy.position);
  }
  if (groupBy.interval <= 0n) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', 'EVERY takes a positive interval', groupBy.position);
  }
  columns[0] = { name: '#range', type: key.type };
  const scale = key.type === 'TIMESTAMP' ? 1n : key.type === 'TIMESTAMP(6)' ? 1000n : 1_000_000n;
  const bounds = columnBounds(conjunctsOf(where), (key as { index: number }).index, context.evalContext);
  if (bounds.low === undefined || bounds.high === undefined) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', 'GROUP BY RANGE needs WHERE to bound the key ' +
      'column on both sides with constants (BETWEEN, or >= and <=)', groupBy.position);
  }
  const low = BigInt(bounds.low as number | bigint) + (bounds.lowStrict ? 1n : 0n);
  const high = BigInt(bounds.high as number | bigint) - (bounds.highStrict ? 1n : 0n);
  const originMs = rangeOriginMs(groupBy.offset, unitMs, context, groupBy.position);
  return {
    kind: 'rangeGroup', input, key, interval: groupBy.interval * unitMs * scale, origin: originMs * scale,
    low, high, fill: groupBy.fill ?? 'NONE', groupCountMax: maxGeneratedRows(context.hints),
    aggregates, columns,
  };
}

/** Where one group starts: a LONG offset in the unit, a time zone, or the session's time zone. */
function rangeOriginMs(offset: bigint | string | undefined, unitMs: bigint, context: SqlPlanContext,
  position: SqlPosition): bigint {
  if (typeof offset === 'bigint') return offset * unitMs;
  const minutes = offset === undefined ? context.evalContext.timeZoneOffsetMinutes : zoneMinutes(offset, position);
  // Local midnight is UTC midnight minus the zone's offset.
  return -BigInt(minutes) * 60_000n;
}

function zoneMinutes(zone: string, position: SqlPosition): number {
  if (zone === 'Z') return 0;
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (match === null) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `the offset ${zone} is not a time zone (Z, ±HH:MM, ±HHMM)`, position);
  }
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

function maxGeneratedRows(hints: readonly SqlHint[]): number {
  const hint = hints.find((candidate) => candidate.name.toUpperCase() === 'MAXGENERATEDROWS');
  const argument = hint?.args[0];
  if (argument?.kind !== 'number') return SQL_RANGE_GROUP_COUNT_MAX;
  const count = Number(argument.text);
  return Number.isSafeInteger(count) && count >= 0 ? count : SQL_RANGE_GROUP_COUNT_MAX;
}

const AGGREGATE_ALIASES: Readonly<Record<string, SqlAggregateName>> = {
  STDDEV: 'STDDEV_SAMP', VARIANCE: 'VAR_SAMP',
};

/**
 * `argScope` binds the arguments: by default the rows' columns only (no aggregate in an
 * aggregate); a window aggregate over groups binds them in the groups' scope (`SUM(AVG(x)) OVER`).
 */
export function aggregateCall(call: Extract<SqlExpression, { kind: 'call' }>, scope: SqlBindScope,
  context: SqlPlanContext, argScope?: SqlBindScope): SqlAggregateCall {
  const upper = call.name.toUpperCase();
  const name = AGGREGATE_ALIASES[upper] ?? upper as SqlAggregateName;
  const distinct = call.quantifier === 'DISTINCT';
  const inner: SqlBindScope = argScope ?? { column: scope.column.bind(scope) };
  const args = call.args.map((arg) => bindExpression(arg, inner, context));
  const fail = (detail: string) => new SqlError('SQL_COMPILE_SYNTAX_ERROR', `${upper}: ${detail}`, call.position);
  if (call.star) {
    if (name !== 'COUNT' || distinct) throw fail('only COUNT takes *');
    return { name, args: [], distinct: false, type: 'LONG' };
  }
  if (name === 'PERCENTILE_CONT') {
    if (args.length !== 1 || call.withinGroup?.length !== 1) {
      throw fail('write PERCENTILE_CONT(fraction) WITHIN GROUP (ORDER BY expression)');
    }
    const fraction = isStatementConstant(args[0]!) ? constantValue(args[0]!, context.evalContext) : undefined;
    if (typeof fraction !== 'number' && typeof fraction !== 'bigint') throw fail('the fraction must be a constant number');
    if (Number(fraction) < 0 || Number(fraction) > 1) throw fail('the fraction must be between 0 and 1');
    const [order] = call.withinGroup;
    const key = bindExpression(order!.expression, inner, context);
    numeric(key.type);
    return { name, args: [key], distinct, fraction: Number(fraction), type: 'DOUBLE' };
  }
  if (call.withinGroup !== undefined) throw fail('WITHIN GROUP is for PERCENTILE_CONT');
  function numeric(type: SqlType): void {
    if (type !== 'UNKNOWN' && !isSqlNumericType(type)) throw sqlTypeError(`${upper} takes numbers, not ${type}`, call.position);
  }
  if (name === 'GROUP_CONCAT') {
    if (args.length < 1 || args.length > 2) throw fail('takes a value and an optional separator');
    let separator: string | undefined;
    if (args.length === 2) {
      const value = isStatementConstant(args[1]!) ? constantValue(args[1]!, context.evalContext) : undefined;
      if (typeof value !== 'string') throw fail('the separator must be a constant string');
      separator = value;
    }
    return { name, args: [args[0]!], distinct, type: 'STRING', ...(separator === undefined ? {} : { separator }) };
  }
  if (args.length !== 1) throw fail('takes one argument');
  const type = args[0]!.type;
  switch (name) {
    case 'COUNT': return { name, args, distinct, type: 'LONG' };
    case 'MIN': case 'MAX': return { name, args, distinct, type };
    case 'SUM': numeric(type); return { name, args, distinct, type: SQL_INTEGER_TYPES.has(type) ? 'LONG' : 'DOUBLE' };
    case 'MEDIAN': numeric(type); return { name, args, distinct, type: SQL_INTEGER_TYPES.has(type) ? 'LONG' : 'DOUBLE' };
    default: numeric(type); return { name, args, distinct, type: 'DOUBLE' };
  }
}

interface OrderKeys {
  readonly sort: { column: number; descending: boolean }[];
  readonly hidden: SqlBoundExpression[];
}

function orderKeys(query: SqlSelectCore, items: readonly SelectItem[], expressions: readonly SqlBoundExpression[],
  scope: SqlBindScope, context: SqlPlanContext): OrderKeys {
  const sort: { column: number; descending: boolean }[] = [];
  const hidden: SqlBoundExpression[] = [];
  const texts = expressions.map(boundExpressionKey);
  for (const item of query.orderBy) {
    const { expression } = item;
    const descending = item.direction === 'DESC';
    if (expression.kind === 'literal' && expression.literal.type === 'INTEGER') {
      const ordinal = Number(expression.literal.value);
      if (ordinal < 1 || ordinal > items.length) {
        throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `ORDER BY ${ordinal}: the select list has ` +
          `${items.length} columns`, expression.position);
      }
      sort.push({ column: ordinal - 1, descending });
      continue;
    }
    if (expression.kind === 'column' && expression.table === undefined) {
      const wanted = normalizeName(expression.name.text);
      const aliased = items.findIndex((candidate) => candidate.alias !== undefined && normalizeName(candidate.alias) === wanted);
      if (aliased >= 0) {
        sort.push({ column: aliased, descending });
        continue;
      }
    }
    const bound = bindExpression(expression, scope, context);
    const same = texts.indexOf(boundExpressionKey(bound));
    if (same >= 0) {
      sort.push({ column: same, descending });
      continue;
    }
    sort.push({ column: items.length + hidden.length, descending });
    hidden.push(bound);
  }
  return { sort, hidden };
}

export function countOf(expression: SqlExpression | undefined, clause: string, context: SqlPlanContext): number | undefined {
  if (expression === undefined) return undefined;
  const bound = bindExpression(expression, { column: (_t, name, position) => {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `${clause} takes a constant, not the column ${name.text}`, position);
  } }, context);
  const value = isStatementConstant(bound) ? constantValue(bound, context.evalContext) : undefined;
  if ((typeof value !== 'bigint' && typeof value !== 'number') || !Number.isInteger(Number(value)) || Number(value) < 0) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `${clause} takes a non-negative integer`, expression.position);
  }
  return Number(value);
}

/**
 * Gives the scan its columns, its key ranges and index range (plan-scan.ts), its direction when
 * that makes the sort needless, and a row limit when nothing above drops or reorders rows.
 */
function pushDown(root: SqlPlanNode, source: Source, context: SqlPlanContext, rowCountMax: number,
  drops: boolean): SqlPlanNode {
  const scan = source.node;
  if (source.star !== undefined) return optimizeJoins(root, context);
  if (scan.kind !== 'scan') return root;
  const schema = source.schema!;
  const filter = filterOverScan(root, scan);
  const access = scanAccess(schema, filter?.predicate, context);
  let columnIndexes = [...source.usedColumns].sort((a, b) => a - b);
  // The WHERE conjuncts the key ranges enforce leave the filter (plan-key-implied.ts).
  if (filter !== undefined && access.index === undefined) {
    const conjuncts = conjunctsOf(filter.predicate);
    const left = conjunctsNotImplied(schema, access.keyRanges ?? [access.keyRange], conjuncts, context.evalContext);
    if (left.length < conjuncts.length) {
      root = replaceNode(root, filter, left.length === 0 ? scan : { ...filter, predicate: andOf(left)! });
      columnIndexes = columnsReadBy(root, scan) ?? columnIndexes;
    }
  }
  const pushed: Extract<SqlPlanNode, { kind: 'scan' }> = { ...scan, columnIndexes, ...access, descending: false };
  let plan = replaceNode(root, scan, pushed);
  const ordered = sortByScan(plan, pushed, schema);
  const sorted = ordered === undefined && hasSort(plan);
  const final: Extract<SqlPlanNode, { kind: 'scan' }> = {
    ...pushed, descending: ordered?.descending ?? false, rowCountMax: drops || sorted ? Infinity : rowCountMax,
  };
  if (ordered !== undefined) plan = ordered.root;
  return replaceNode(plan, pushed, final);
}

/**
 * The columns of `scan` the plan reads, when the scan's reader is an aggregate (under a filter or
 * not), whose keys, arguments and filter are then all it reads: the nodes above read the
 * aggregate's columns. Undefined for any other shape, or a subquery anywhere on the chain (an
 * outer reference reads the scan's row): the scan keeps every column the statement names.
 */
function columnsReadBy(root: SqlPlanNode, scan: SqlPlanNode): number[] | undefined {
  for (let node: SqlPlanNode = root; 'input' in node; node = node.input) {
    if (node.kind === 'project' ? node.expressions.some(hasSubquery)
      : node.kind === 'filter' ? hasSubquery(node.predicate)
        : node.kind !== 'sort' && node.kind !== 'limit' && node.kind !== 'distinct' && node.kind !== 'aggregate') {
      return undefined;
    }
    if (node.kind !== 'aggregate') continue;
    const filter = node.input.kind === 'filter' ? node.input : undefined;
    if ((filter?.input ?? node.input) !== scan) return undefined;
    const expressions = [...node.keys, ...node.aggregates.flatMap((call) => call.args)];
    if (filter !== undefined) expressions.push(filter.predicate);
    if (expressions.some(hasSubquery)) return undefined;
    const columns = [...new Set(expressions.flatMap(columnsOf))].sort((a, b) => a - b);
    return columns.length === 0 ? undefined : columns;
  }
  return undefined;
}

/** The filter whose input is `scan`, on the chain of inputs from root. */
function filterOverScan(root: SqlPlanNode, scan: SqlPlanNode): Extract<SqlPlanNode, { kind: 'filter' }> | undefined {
  for (let node: SqlPlanNode = root; 'input' in node; node = node.input) {
    if (node.kind === 'filter' && node.input === scan) return node;
  }
  return undefined;
}

function hasSort(node: SqlPlanNode): boolean {
  return node.kind === 'sort' || ('input' in node && hasSort(node.input));
}

/** The scan with the row-key ranges and TREE index range `where` implies (plan-scan.ts). */
export function scanWithRanges(scan: Extract<SqlPlanNode, { kind: 'scan' }>, schema: ContainerSchema,
  where: SqlBoundExpression | undefined, context: SqlPlanContext): Extract<SqlPlanNode, { kind: 'scan' }> {
  return { ...scan, ...scanAccess(schema, where, context) };
}
