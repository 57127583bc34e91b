// Expressions after planning: names resolved to column positions of the operator's input, every
// node typed (SqlType), parameters and literals folded into constants, scalar calls resolved
// through the function registry. BETWEEN, simple CASE and NOT LIKE are lowered into the nodes
// below, so the executor (lib/sql/exec/evaluate.ts) knows only these kinds.

import type { SqlScalarFunction } from '../functions/scalar-function.ts';
import type { SqlPosition } from '../errors.ts';
import type { SqlType, SqlValue } from '../value.ts';
import type { SqlPlanNode } from './logical-plan.ts';

export type SqlArithmeticOperator = '+' | '-' | '*' | '/' | '%' | '&' | '|' | '<<' | '>>';
export type SqlCompareOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type SqlBoundExpression =
  /** Column `index` of the operator's input batch. */
  | { readonly kind: 'column'; readonly index: number; readonly type: SqlType }
  /** `folded`: computed by the planner from constant inputs (fold-constant.ts), not written. */
  | { readonly kind: 'constant'; readonly value: SqlValue; readonly type: SqlType; readonly folded?: true }
  /** `-x`, `~x` on LONG / DOUBLE; NOT on BOOL with three-valued logic. */
  | {
    readonly kind: 'unary'; readonly operator: '-' | '~' | 'NOT'; readonly operand: SqlBoundExpression;
    readonly type: SqlType; readonly position: SqlPosition;
  }
  /** Integer operands compute in LONG (bigint, overflow is an error), any float in DOUBLE. */
  | {
    readonly kind: 'arithmetic'; readonly operator: SqlArithmeticOperator;
    readonly left: SqlBoundExpression; readonly right: SqlBoundExpression;
    readonly type: 'LONG' | 'DOUBLE' | 'UNKNOWN'; readonly position: SqlPosition;
  }
  /** Operands of one family (numbers, timestamps of one precision, strings, BOOL, BLOB). */
  | {
    readonly kind: 'compare'; readonly operator: SqlCompareOperator;
    readonly left: SqlBoundExpression; readonly right: SqlBoundExpression; readonly type: 'BOOL';
  }
  | {
    readonly kind: 'logic'; readonly operator: 'AND' | 'OR';
    readonly left: SqlBoundExpression; readonly right: SqlBoundExpression; readonly type: 'BOOL';
  }
  | {
    readonly kind: 'concat'; readonly left: SqlBoundExpression; readonly right: SqlBoundExpression;
    readonly type: 'STRING';
  }
  /** NULL-safe equality. */
  | {
    readonly kind: 'is'; readonly negated: boolean; readonly left: SqlBoundExpression;
    readonly right: SqlBoundExpression; readonly type: 'BOOL';
  }
  | {
    readonly kind: 'isNull'; readonly negated: boolean; readonly operand: SqlBoundExpression;
    readonly type: 'BOOL';
  }
  | {
    readonly kind: 'in'; readonly negated: boolean; readonly operand: SqlBoundExpression;
    readonly list: readonly SqlBoundExpression[]; readonly type: 'BOOL';
  }
  | {
    readonly kind: 'case';
    readonly whens: readonly { readonly when: SqlBoundExpression; readonly then: SqlBoundExpression }[];
    readonly otherwise: SqlBoundExpression | undefined; readonly type: SqlType;
  }
  /** A scalar function of the registry (§5.8), LIKE and GLOB included. */
  | {
    readonly kind: 'call'; readonly function: SqlScalarFunction;
    readonly args: readonly SqlBoundExpression[]; readonly type: SqlType;
    readonly position: SqlPosition;
  }
  /**
   * A widening the planner inserts so both sides of an operator share a shape: integers to DOUBLE,
   * a timestamp to a finer precision, an integer to LONG (bigint).
   */
  | { readonly kind: 'widen'; readonly operand: SqlBoundExpression; readonly type: SqlType }
  /** A value of the enclosing query's current row, inside a correlated subquery (execute-subquery.ts). */
  | { readonly kind: 'outer'; readonly index: number; readonly type: SqlType }
  /**
   * A subquery: `scalar` gives its one value (no row: NULL; more: an error), `exists` whether it
   * has a row, `in` whether `operand` is among its one column's values (three-valued). `outer`
   * are expressions over this query's input that the subquery reads as `outer` 0, 1, …: none
   * means uncorrelated, run once per statement; otherwise it runs once per row.
   */
  | {
    readonly kind: 'subquery'; readonly mode: 'scalar' | 'exists' | 'in'; readonly negated: boolean;
    readonly operand: SqlBoundExpression | undefined; readonly plan: SqlPlanNode;
    readonly outer: readonly SqlBoundExpression[]; readonly type: SqlType; readonly position: SqlPosition;
    /**
     * Correlated: the plan for one set of outer values, its scans narrowed by them (a key or
     * index range from `r.k = outer`), so each run reads only what it needs.
     */
    readonly planFor?: (outerValues: readonly SqlValue[]) => SqlPlanNode;
  };

/**
 * The expression with `map` applied to each direct child (a subquery's operand and outer
 * expressions; not its plan); leaves (column, constant, outer) as they are. Rewrites that treat
 * a few kinds specially handle those and give the rest to this.
 */
export function mapBoundChildren(expression: SqlBoundExpression,
  map: (child: SqlBoundExpression) => SqlBoundExpression): SqlBoundExpression {
  switch (expression.kind) {
    case 'column': case 'constant': case 'outer': return expression;
    case 'unary': case 'widen': case 'isNull': return { ...expression, operand: map(expression.operand) } as SqlBoundExpression;
    case 'arithmetic': case 'compare': case 'logic': case 'concat': case 'is':
      return { ...expression, left: map(expression.left), right: map(expression.right) } as SqlBoundExpression;
    case 'in': return { ...expression, operand: map(expression.operand), list: expression.list.map(map) };
    case 'case':
      return {
        ...expression, whens: expression.whens.map((w) => ({ when: map(w.when), then: map(w.then) })),
        otherwise: expression.otherwise === undefined ? undefined : map(expression.otherwise),
      };
    case 'call': return { ...expression, args: expression.args.map(map) };
    case 'subquery':
      return {
        ...expression, operand: expression.operand === undefined ? undefined : map(expression.operand),
        outer: expression.outer.map(map),
      };
  }
}

/** A stable text of an expression, to match a SELECT item against a GROUP BY key. */
export function boundExpressionKey(expression: SqlBoundExpression): string {
  return JSON.stringify(expression, (key, value: unknown) => {
    if (key === 'position') return undefined;
    if (key === 'plan') return (value as SqlPlanNode).kind; // subqueries: never equal by text
    if (key === 'planFor') return undefined;

    if (key === 'function') return (value as SqlScalarFunction).name;
    if (typeof value === 'bigint') return `${value}n`;
    if (value instanceof Uint8Array) return `X'${Buffer.from(value).toString('hex')}'`;
    return value;
  });
}
