// Prepares a TQL statement for one container: parse, bind against the container's schema, plan.
// Everything that can be wrong with a query is found here, before a row is read.

import type { ContainerSchema } from '../../schema/container-schema.ts';
import { normalizeName } from '../../schema/names.ts';
import { bindAggregate, type AggregateSpec } from './aggregate.ts';
import type { TqlClauseText, TqlStatement } from './ast.ts';
import { Binder } from './bind.ts';
import type { BoundExpression } from './bound.ts';
import { compileExpression, type RowEvaluator } from './compile.ts';
import { TqlError, tqlSemanticError } from './error.ts';
import { isAggregateFunction, laterFunctionGroup } from './functions.ts';
import { bindOrderKeys, type OrderKey } from './order.ts';
import { parseTql } from './parser.ts';
import { planScan, type TqlScanPlan } from './plan.ts';
import {
  bindTimeSeriesSelection, isTimeSeriesFunction, type TimeSeriesSelection,
} from './time-series-bind.ts';

export interface PreparedTql {
  readonly text: string;
  /** EXPLAIN: the plan as rows (explain.ts), with ANALYZE also the measures of a run. */
  readonly explain: TqlStatement['explain'];
  /** The clauses as written, for EXPLAIN. */
  readonly clauses: TqlClauseText;
  readonly schema: ContainerSchema;
  /** NOW() of this query. */
  readonly nowMs: number;
  /** Rows, or one aggregate. */
  readonly aggregate: AggregateSpec | undefined;
  /** A time-series function of the select list (time-series-bind.ts), else undefined. */
  readonly timeSeries: TimeSeriesSelection | undefined;
  readonly where: BoundExpression | undefined;
  /** WHERE as a function of a row; undefined: every row the plan reads is selected. */
  readonly filter: RowEvaluator | undefined;
  readonly orderBy: readonly OrderKey[];
  /** Infinity when there is no LIMIT. */
  readonly limit: number;
  readonly offset: number;
  readonly plan: TqlScanPlan;
}

export interface PrepareOptions {
  readonly nowMs: number;
}

/** `parsed`: parseTql(text), when the caller has it already (prepare-cache.ts). */
export function prepareTql(
  text: string,
  schema: ContainerSchema,
  options: PrepareOptions,
  parsed?: TqlStatement,
): PreparedTql {
  const statement = parsed ?? parseTql(text);
  checkFrom(statement, schema);
  const binder = new Binder({ schema, nowMs: options.nowMs });
  const select = bindSelect(statement, binder);
  const aggregate = select?.kind === 'aggregate' ? select.spec : undefined;
  const timeSeries = select?.kind === 'timeSeries' ? select.selection : undefined;
  let where = statement.where === undefined ? undefined : binder.condition(statement.where);
  // A WHERE that always holds reads like no WHERE at all.
  if (where?.kind === 'constant' && where.value === true) where = undefined;
  const orderBy = bindOrderKeys(statement.orderBy, binder);
  const plan = planScan(schema, where, select === undefined ? orderBy : []);
  return {
    text, explain: statement.explain, clauses: statement.text, schema, nowMs: options.nowMs,
    aggregate, timeSeries, where,
    filter: where === undefined || plan.whereCovered ? undefined : compileExpression(where),
    orderBy,
    limit: statement.limit === undefined
      ? Number.POSITIVE_INFINITY : countOf(statement.limit.count),
    offset: statement.offset === undefined ? 0 : countOf(statement.offset.count),
    plan,
  };
}

/** LIMIT and OFFSET beyond any possible row count mean "no limit" and "skip everything". */
function countOf(count: bigint): number {
  return count > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(count);
}

function checkFrom(statement: TqlStatement, schema: ContainerSchema): void {
  const from = statement.from;
  if (from === undefined) return;
  if (from.parts.length > 1) {
    throw new TqlError('NOT_SUPPORTED', 'FROM database.container is not supported yet: name the ' +
      'container alone', from.position);
  }
  const name = from.parts[0]!;
  if (normalizeName(name) !== normalizeName(schema.name)) {
    throw tqlSemanticError(`FROM names "${name}", but the query runs on container "${schema.name}"`,
      from.position);
  }
}

type BoundSelect =
  | { readonly kind: 'aggregate'; readonly spec: AggregateSpec }
  | { readonly kind: 'timeSeries'; readonly selection: TimeSeriesSelection };

function bindSelect(statement: TqlStatement, binder: Binder): BoundSelect | undefined {
  const select = statement.select;
  if (select.kind === 'all') return undefined;
  const name = select.name.toUpperCase();
  if (isAggregateFunction(name)) {
    return { kind: 'aggregate', spec: bindAggregate(select, name, binder) };
  }
  if (isTimeSeriesFunction(name)) {
    return { kind: 'timeSeries', selection: bindTimeSeriesSelection(select, name, binder) };
  }
  const later = laterFunctionGroup(name);
  if (later !== undefined) {
    throw new TqlError('NOT_SUPPORTED', `${name} is not supported yet (${later})`, select.position);
  }
  throw tqlSemanticError(`SELECT takes * or one aggregate (COUNT, SUM, AVG, MIN, MAX, VARIANCE, ` +
    `STDDEV, TIME_AVG) or selection (TIME_NEXT, TIME_PREV, TIME_INTERPOLATED, TIME_SAMPLING, ` +
    `MAX_ROWS, ...), not ${select.name}`, select.position);
}
