// The typed tree the binder (bind.ts) makes of an expression: columns resolved to positions, every
// node typed, constant parts folded to values. compile.ts turns it into a function of a row; the
// planner (plan.ts) reads it for row-key ranges.

import type { TqlArithmeticOperator, TqlComparisonOperator } from './ast.ts';
import type { TqlPosition } from './error.ts';
import type { TqlType, TqlValue } from './types.ts';

/**
 * How a comparison compares, decided from its operand types: BOOL with BOOL and STRING with STRING
 * for (in)equality only; integers exactly; any floating operand as doubles (NaN greatest);
 * TIMESTAMPs in the finer precision of the two.
 */
export type CompareMode = 'bool' | 'string' | 'integral' | 'floating' | 'time';

/** A scalar function, ready to run: takes its evaluated arguments, gives its value. */
export type ScalarFunctionImpl = (args: readonly TqlValue[]) => TqlValue;

interface Node {
  readonly type: TqlType;
  readonly position: TqlPosition;
}

type Expression = BoundExpression;

export type BoundExpression =
  | Node & { readonly kind: 'constant'; readonly value: TqlValue }
  | Node & { readonly kind: 'column'; readonly columnIndex: number }
  | Node & {
    readonly kind: 'compare'; readonly operator: TqlComparisonOperator; readonly mode: CompareMode;
    readonly left: Expression; readonly right: Expression;
  }
  | Node & {
    readonly kind: 'arithmetic'; readonly operator: TqlArithmeticOperator;
    readonly left: Expression; readonly right: Expression;
  }
  | Node & { readonly kind: 'negate'; readonly operand: Expression }
  | Node & { readonly kind: 'not'; readonly operand: Expression }
  | Node & {
    readonly kind: 'logical'; readonly operator: 'AND' | 'OR';
    readonly operands: readonly Expression[];
  }
  | Node & { readonly kind: 'xor'; readonly left: Expression; readonly right: Expression }
  | Node & { readonly kind: 'isNull'; readonly operand: Expression; readonly negated: boolean }
  | Node & {
    readonly kind: 'like'; readonly operand: Expression; readonly pattern: Expression;
    readonly escape: Expression | undefined; readonly negated: boolean;
  }
  | Node & {
    readonly kind: 'in'; readonly operand: Expression; readonly list: readonly Expression[];
    readonly mode: CompareMode; readonly negated: boolean;
  }
  | Node & {
    readonly kind: 'function'; readonly name: string; readonly args: readonly Expression[];
    /** false: NULL arguments reach the function (CONCAT skips them); true: NULL in, NULL out. */
    readonly nullPropagating: boolean;
    readonly impl: ScalarFunctionImpl;
  };
