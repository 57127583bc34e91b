// Constant folding at bind time: a bound node whose inputs are all constants becomes the constant
// it evaluates to, once per statement instead of once per row. `TIMESTAMP('2016-01-01T00:00:00Z')`,
// `? + 1`, `CAST(? AS LONG)` are then plain constants, which the key-range and index push-down
// (plan-key-range.ts, plan-index-range.ts) read as bounds and the executor fills without a call.
//
// Two rules keep the results exactly those of evaluating every row:
// - Volatile calls (NOW, RANDOM, RANDOMBLOB: SqlScalarFunction.volatile) are never folded, nor is
//   anything above them.
// - A node whose evaluation fails (1/0, TIMESTAMP('bad')) is left as it is: the error comes when
//   the executor evaluates it, with the same code and position, and only if a row reaches it.
//   CASE folds branch by branch: a constant FALSE or NULL condition drops its branch unevaluated,
//   a constant TRUE one makes the CASE its result, so an unreachable `ELSE 1/0` never fails.
//
// Folded constants carry `folded: true`: a function's resultType is still given only the literal
// and parameter arguments (a unit, a format), so a type error at plan time stays the same error.

import { evaluate } from '../exec/evaluate.ts';
import type { SqlEvalContext } from '../functions/scalar-function.ts';
import type { SqlBoundExpression } from './bound-expression.ts';

const ONE_ROW = { rowCount: 1, columns: [] } as const;

/** The node folded when its inputs are constants; the node itself otherwise. */
export function foldConstant(expression: SqlBoundExpression, context: SqlEvalContext | undefined):
  SqlBoundExpression {
  if (context === undefined) return expression;
  if (expression.kind === 'case') return foldCase(expression);
  if (!foldable(expression)) return expression;
  try {
    const value = evaluate(expression, ONE_ROW, context)[0]!;
    return { kind: 'constant', value, type: expression.type, folded: true };
  } catch {
    return expression;
  }
}

function foldable(expression: SqlBoundExpression): boolean {
  switch (expression.kind) {
    case 'column': case 'constant': case 'case': return false;
    case 'call': return expression.function.volatile !== true && expression.args.every(isConstant);
    case 'unary': case 'widen': case 'isNull': return isConstant(expression.operand);
    case 'arithmetic': case 'compare': case 'logic': case 'concat': case 'is':
      return isConstant(expression.left) && isConstant(expression.right);
    case 'in': return isConstant(expression.operand) && expression.list.every(isConstant);
    default: return false; // subqueries and outer references: their value is not known at planning
  }
}

function isConstant(expression: SqlBoundExpression): boolean {
  return expression.kind === 'constant';
}

function foldCase(expression: Extract<SqlBoundExpression, { kind: 'case' }>): SqlBoundExpression {
  const whens: { when: SqlBoundExpression; then: SqlBoundExpression }[] = [];
  for (const branch of expression.whens) {
    if (branch.when.kind !== 'constant') {
      whens.push(branch);
      continue;
    }
    if (branch.when.value !== true) continue; // FALSE or NULL: never taken
    if (whens.length === 0) return asType(branch.then, expression);
    // Taken whenever the branches before it are not: it is the ELSE of what is left.
    return { ...expression, whens, otherwise: branch.then };
  }
  if (whens.length === 0) {
    return expression.otherwise === undefined
      ? { kind: 'constant', value: null, type: expression.type, folded: true }
      : asType(expression.otherwise, expression);
  }
  return whens.length === expression.whens.length ? expression : { ...expression, whens };
}

/** A branch standing for the whole CASE keeps the CASE's type (a NULL branch is UNKNOWN alone). */
function asType(result: SqlBoundExpression, whole: Extract<SqlBoundExpression, { kind: 'case' }>):
  SqlBoundExpression {
  if (result.type === whole.type) return result;
  if (result.kind === 'constant') return { ...result, type: whole.type, folded: true };
  return { ...whole, whens: [], otherwise: result };
}
