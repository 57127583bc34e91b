// Subquery expressions before a batch is evaluated: evaluation is synchronous and column-wise
// (evaluate.ts), a subquery runs a plan (asynchronous), so an operator whose expressions hold
// subqueries first computes each subquery's values over the batch here and evaluates with them.
// An uncorrelated subquery runs once per statement (kept by its node); a correlated one runs
// once per distinct set of outer values in the batch, at most SQL_CORRELATED_RUN_COUNT_MAX runs
// per statement. A scalar subquery giving two rows is GridDB's SQL_PROC_MULTIPLE_TUPLE, with its
// message. IN is three-valued: x IN (…) is NULL
// when x is NULL and the set is not empty, or when x is not found and the set holds a NULL.

import { SQL_CORRELATED_RUN_COUNT_MAX } from '../../base/limits.ts';
import { SqlError } from '../errors.ts';
import type { SqlBoundExpression } from '../plan/bound-expression.ts';
import type { SqlValue } from '../value.ts';
import { evaluate, type SqlBatch, type SqlSubqueryEvalContext } from './evaluate.ts';
import { runPlan, type SqlRunEnvironment } from './execute-plan.ts';
import { valueKey, valueSizeBytes } from './value-ops.ts';
import type { SqlWorkMemory } from './work-memory.ts';

type SubqueryNode = Extract<SqlBoundExpression, { kind: 'subquery' }>;

/** What one run of a subquery gave: a value, whether it had a row, or its values as a set. */
type SubqueryResult =
  | { readonly kind: 'scalar'; readonly value: SqlValue }
  | { readonly kind: 'exists'; readonly found: boolean }
  | { readonly kind: 'in'; readonly keys: ReadonlySet<string>; readonly hasNull: boolean };

interface StatementState {
  readonly uncorrelated: Map<SubqueryNode, SubqueryResult>;
  runCount: number;
}

/** Work units of starting one run of a subquery (planning a correlated one, its operators). */
const SUBQUERY_RUN_UNITS = 32;

// Keyed by the statement's work memory: one object per statement, shared by every env spread from it.
const statementStates = new WeakMap<SqlWorkMemory, StatementState>();

export function hasSubqueries(expressions: readonly SqlBoundExpression[]): boolean {
  return expressions.some((expression) => subqueriesOf(expression).length > 0);
}

/** The context to evaluate `expressions` over `batch` with: their subqueries' values included. */
export async function subqueryContext(expressions: readonly SqlBoundExpression[], batch: SqlBatch,
  env: SqlRunEnvironment): Promise<SqlSubqueryEvalContext> {
  const values = new Map<SqlBoundExpression, readonly SqlValue[]>();
  const context: SqlSubqueryEvalContext = { ...env.context, subqueryValues: values };
  // Innermost first: an IN's operand may hold a subquery of its own.
  for (const node of expressions.flatMap(subqueriesOf)) {
    values.set(node, await subqueryValues(node, batch, env, context));
  }
  return context;
}

function subqueriesOf(expression: SqlBoundExpression): SubqueryNode[] {
  const found: SubqueryNode[] = [];
  const visit = (e: SqlBoundExpression): void => {
    switch (e.kind) {
      case 'column': case 'constant': case 'outer': return;
      case 'unary': case 'widen': case 'isNull': visit(e.operand); return;
      case 'arithmetic': case 'compare': case 'logic': case 'concat': case 'is': visit(e.left); visit(e.right); return;
      case 'in': visit(e.operand); e.list.forEach(visit); return;
      case 'case':
        for (const { when, then } of e.whens) { visit(when); visit(then); }
        if (e.otherwise !== undefined) visit(e.otherwise);
        return;
      case 'call': e.args.forEach(visit); return;
      case 'subquery':
        if (e.operand !== undefined) visit(e.operand);
        e.outer.forEach(visit);
        found.push(e);
    }
  };
  visit(expression);
  return found;
}

async function subqueryValues(node: SubqueryNode, batch: SqlBatch, env: SqlRunEnvironment,
  context: SqlSubqueryEvalContext): Promise<SqlValue[]> {
  const state = stateOf(env.memory);
  const n = batch.rowCount;
  const results: SubqueryResult[] = new Array<SubqueryResult>(n);
  if (node.outer.length === 0) {
    let result = state.uncorrelated.get(node);
    if (result === undefined) {
      result = await runSubquery(node, env, []);
      state.uncorrelated.set(node, result);
    }
    results.fill(result);
  } else {
    const outerColumns = node.outer.map((expression) => evaluate(expression, batch, context));
    const seen = new Map<string, SubqueryResult>();
    for (let r = 0; r < n; r++) {
      const outerValues = outerColumns.map((column) => column[r]!);
      const key = outerValues.map(valueKey).join('\u0000');
      let result = seen.get(key);
      if (result === undefined) {
        state.runCount++;
        if (state.runCount > SQL_CORRELATED_RUN_COUNT_MAX) {
          throw new SqlError('LIMIT_EXCEEDED', `a correlated subquery ran more than ${SQL_CORRELATED_RUN_COUNT_MAX} ` +
            'times (SQL_CORRELATED_RUN_COUNT_MAX): rewrite it as a join', node.position);
        }
        result = await runSubquery(node, env, outerValues);
        seen.set(key, result);
      }
      results[r] = result;
    }
  }
  const operand = node.operand === undefined ? undefined : evaluate(node.operand, batch, context);
  return results.map((result, r) => valueOf(node, result, operand?.[r] ?? null));
}

function valueOf(node: SubqueryNode, result: SubqueryResult, operand: SqlValue): SqlValue {
  switch (result.kind) {
    case 'scalar': return result.value;
    case 'exists': return result.found !== node.negated;
    case 'in': {
      let found: boolean | null;
      if (result.keys.size === 0 && !result.hasNull) found = false;
      else if (operand === null) found = null;
      else if (result.keys.has(valueKey(operand))) found = true;
      else found = result.hasNull ? null : false;
      return found === null ? null : found !== node.negated;
    }
  }
}

async function runSubquery(node: SubqueryNode, env: SqlRunEnvironment, outerValues: readonly SqlValue[]):
  Promise<SubqueryResult> {
  const inner: SqlRunEnvironment = { ...env, context: { ...env.context, outerValues } as SqlSubqueryEvalContext };
  env.control.check();
  // A run that reads no row gives no batch to count: its setting up counts here.
  if (env.work.spend(SUBQUERY_RUN_UNITS)) await env.work.pause();
  const plan = node.planFor === undefined ? node.plan : node.planFor(outerValues);
  if (node.mode === 'exists') {
    for await (const batch of runPlan(plan, inner)) if (batch.rowCount > 0) return { kind: 'exists', found: true };
    return { kind: 'exists', found: false };
  }
  if (node.mode === 'scalar') {
    let value: SqlValue | undefined;
    for await (const batch of runPlan(plan, inner)) {
      if (batch.rowCount === 0) continue;
      if (value !== undefined || batch.rowCount > 1) {
        throw new SqlError('SQL_PROC_MULTIPLE_TUPLE', 'More than one tuples selected in a subquery', node.position);
      }
      value = batch.columns[0]![0]!;
    }
    return { kind: 'scalar', value: value ?? null };
  }
  const keys = new Set<string>();
  let hasNull = false;
  for await (const batch of runPlan(plan, inner)) {
    for (const value of batch.columns[0]!) {
      if (value === null) { hasNull = true; continue; }
      const key = valueKey(value);
      if (keys.has(key)) continue;
      env.memory.charge(32 + valueSizeBytes(value), 'IN (subquery)');
      keys.add(key);
    }
  }
  return { kind: 'in', keys, hasNull };
}

function stateOf(memory: SqlWorkMemory): StatementState {
  let state = statementStates.get(memory);
  if (state === undefined) {
    state = { uncorrelated: new Map(), runCount: 0 };
    statementStates.set(memory, state);
  }
  return state;
}
