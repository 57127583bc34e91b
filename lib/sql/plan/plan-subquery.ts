// Subqueries as expressions: `(SELECT ...)`, `EXISTS (SELECT ...)`, `x [NOT] IN (SELECT ...)`.
// The subquery is planned on its own; a name it cannot resolve is looked up in the enclosing
// query (a correlated reference): the enclosing expression is recorded in `outer` and the
// subquery reads it as an `outer` value; for each run, scans under conditions on outer values are
// narrowed by them (`r.device = d.id` reads reading's key or index range for that id). The executor runs an uncorrelated subquery once per
// statement and a correlated one once per distinct outer row of each batch (execute-subquery.ts).

import { isStorageError } from '../../base/errors.ts';
import { SqlError } from '../errors.ts';
import type { SqlExpression } from '../ast.ts';
import { bindExpression, type SqlBindScope, type SqlSubqueryExpression } from './bind-expression.ts';
import { boundExpressionKey, mapBoundChildren, type SqlBoundExpression } from './bound-expression.ts';
import type { SqlValue } from '../value.ts';
import type { SqlPlanNode } from './logical-plan.ts';
import { planQuery, scanWithRanges, type SqlPlanContext } from './plan-select.ts';

/** What a subquery reads of its enclosing query: the enclosing scope and the values it took. */
export interface SqlOuterReferences {
  readonly scope: SqlBindScope;
  readonly expressions: SqlBoundExpression[];
}

/** `scope`, falling back to the enclosing query's names inside a subquery. */
export function withOuterScope(scope: SqlBindScope, context: SqlPlanContext): SqlBindScope {
  const outer = context.outer;
  if (outer === undefined) return scope;
  return {
    ...scope,
    column(table, name, position) {
      try {
        return scope.column(table, name, position);
      } catch (error) {
        if (!isStorageError(error, 'COLUMN_NOT_FOUND')) throw error;
        let bound: SqlBoundExpression;
        try {
          bound = outer.scope.column(table, name, position);
        } catch {
          throw error;
        }
        const key = boundExpressionKey(bound);
        let index = outer.expressions.findIndex((candidate) => boundExpressionKey(candidate) === key);
        if (index < 0) index = outer.expressions.push(bound) - 1;
        return { kind: 'outer', index, type: bound.type };
      }
    },
  };
}

/** The binder a query's expressions use for the subqueries in them. */
export function subqueryBinder(context: SqlPlanContext): (expression: SqlSubqueryExpression, scope: SqlBindScope) =>
  SqlBoundExpression {
  return (expression, scope) => bindSubquery(expression, scope, context);
}

function bindSubquery(expression: SqlSubqueryExpression, scope: SqlBindScope, context: SqlPlanContext):
  SqlBoundExpression {
  const outer: SqlOuterReferences = { scope, expressions: [] };
  const plan = planQuery(expression.query, { ...context, outer });
  const { position } = expression;
  if (expression.kind !== 'exists' && plan.columns.length !== 1) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `the subquery must give one column, not ${plan.columns.length}`,
      position);
  }
  const root = plan.root;
  const base = {
    plan: root, outer: outer.expressions, position,
    ...(outer.expressions.length === 0 ? {} : { planFor: (values: readonly SqlValue[]) => narrowedPlan(root, values, context) }),
  };
  switch (expression.kind) {
    case 'scalarSubquery':
      return { kind: 'subquery', mode: 'scalar', negated: false, operand: undefined, type: plan.columns[0]!.type, ...base };
    case 'exists':
      return { kind: 'subquery', mode: 'exists', negated: expression.negated, operand: undefined, type: 'BOOL', ...base };
    case 'inSubquery': {
      const operand = bindExpression(expression.operand, scope, context);
      comparable(operand, plan.columns[0]!.type, expression, context);
      return { kind: 'subquery', mode: 'in', negated: expression.negated, operand, type: 'BOOL', ...base };
    }
  }
}

/**
 * The plan with each scan under a filter narrowed by the filter's conditions on outer values, read
 * as the constants they are for this run. The filter itself stays: the scan's ranges are supersets.
 */
function narrowedPlan(node: SqlPlanNode, values: readonly SqlValue[], context: SqlPlanContext): SqlPlanNode {
  if (node.kind === 'filter' && node.input.kind === 'scan' && usesOuter(node.predicate)) {
    const schema = context.tableSchema(node.input.table);
    if (schema === undefined) return node;
    const scan = node.input;
    const ranged = scanWithRanges(scan, schema, withConstants(node.predicate, values), context);
    // Keep what planning found when the outer values add nothing (or the scan had a range already).
    const narrowed = ranged.keyRange.from === undefined && ranged.keyRange.to === undefined && !ranged.keyRange.empty &&
      ranged.index === undefined ? scan : { ...ranged, columnIndexes: scan.columnIndexes, rowCountMax: scan.rowCountMax };
    return narrowed === scan ? node : { ...node, input: narrowed };
  }
  if (node.kind === 'join' || node.kind === 'setOperation') {
    const left = narrowedPlan(node.left, values, context);
    const right = narrowedPlan(node.right, values, context);
    return left === node.left && right === node.right ? node : { ...node, left, right };
  }
  if (!('input' in node)) return node;
  const input = narrowedPlan(node.input, values, context);
  return input === node.input ? node : { ...node, input } as SqlPlanNode;
}

function usesOuter(expression: SqlBoundExpression): boolean {
  return JSON.stringify(expression, (key, value: unknown) =>
    (key === 'function' || key === 'plan' || key === 'planFor' ? undefined
      : typeof value === 'bigint' ? 0 : value instanceof Uint8Array ? 0 : value)).includes('"kind":"outer"');
}

/** The expression with this query's `outer` values as constants (nested subqueries left alone). */
function withConstants(expression: SqlBoundExpression, values: readonly SqlValue[]): SqlBoundExpression {
  if (expression.kind === 'outer') return { kind: 'constant', value: values[expression.index]!, type: expression.type };
  if (expression.kind === 'subquery') return expression;
  return mapBoundChildren(expression, (child) => withConstants(child, values));
}

/** Throws the `=` operator's TYPE_MISMATCH when the operand and the subquery's column do not compare. */
function comparable(operand: SqlBoundExpression, type: SqlBoundExpression['type'], expression: SqlExpression,
  context: SqlPlanContext): void {
  const { position } = expression;
  const at = (text: string): SqlExpression => ({ kind: 'column', table: undefined, name: { text, quoted: true, position }, position });
  const scope: SqlBindScope = {
    column: (_table, name) => (name.text === '#l' ? operand : { kind: 'column', index: 0, type }),
  };
  bindExpression({ kind: 'binary', operator: '=', left: at('#l'), right: at('#r'), position }, scope, context);
}
