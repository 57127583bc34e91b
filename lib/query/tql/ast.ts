// The syntax tree of one TQL statement, as the parser reads it: names are not resolved and nothing
// is typed yet (bind.ts does both). Every node keeps the position of its first token, for errors.

import type { TqlPosition } from './error.ts';

export type TqlLiteral =
  | { readonly type: 'NULL' }
  | { readonly type: 'BOOL'; readonly value: boolean }
  /** Any integer the text holds; the binder checks it fits a LONG. */
  | { readonly type: 'INTEGER'; readonly value: bigint }
  | { readonly type: 'DOUBLE'; readonly value: number }
  | { readonly type: 'STRING'; readonly value: string }
  | { readonly type: 'BLOB'; readonly value: Uint8Array };

export type TqlComparisonOperator = '=' | '<>' | '<' | '<=' | '>' | '>=';
export type TqlArithmeticOperator = '+' | '-' | '*' | '/' | '%' | '&' | '|' | '<<' | '>>';

export type TqlExpression =
  | { readonly kind: 'literal'; readonly literal: TqlLiteral; readonly position: TqlPosition }
  /** A name: a column, or an enumeration constant such as DAY where a function takes one. */
  | {
    readonly kind: 'name'; readonly name: string; readonly quoted: boolean;
    readonly position: TqlPosition;
  }
  | {
    readonly kind: 'call'; readonly name: string;
    /** `F(*)` or `F(*, a, ...)`: the first argument is `*`. */
    readonly star: boolean;
    readonly args: readonly TqlExpression[]; readonly position: TqlPosition;
  }
  | {
    readonly kind: 'unary'; readonly operator: '-' | 'NOT'; readonly operand: TqlExpression;
    readonly position: TqlPosition;
  }
  | {
    readonly kind: 'arithmetic'; readonly operator: TqlArithmeticOperator;
    readonly left: TqlExpression; readonly right: TqlExpression; readonly position: TqlPosition;
  }
  | {
    readonly kind: 'comparison'; readonly operator: TqlComparisonOperator;
    readonly left: TqlExpression; readonly right: TqlExpression; readonly position: TqlPosition;
  }
  /** AND and OR chains are flat: `a AND b AND c` is one node of three operands. */
  | {
    readonly kind: 'logical'; readonly operator: 'AND' | 'OR';
    readonly operands: readonly TqlExpression[]; readonly position: TqlPosition;
  }
  | {
    readonly kind: 'xor'; readonly left: TqlExpression; readonly right: TqlExpression;
    readonly position: TqlPosition;
  }
  | {
    readonly kind: 'isNull'; readonly operand: TqlExpression; readonly negated: boolean;
    readonly position: TqlPosition;
  }
  | {
    readonly kind: 'like'; readonly operand: TqlExpression; readonly pattern: TqlExpression;
    readonly escape: TqlExpression | undefined; readonly negated: boolean;
    readonly position: TqlPosition;
  }
  /** An extension: GridDB's lexer knows IN but its grammar has no rule for it. */
  | {
    readonly kind: 'in'; readonly operand: TqlExpression; readonly list: readonly TqlExpression[];
    readonly negated: boolean; readonly position: TqlPosition;
  }
  /** An extension, as IN. */
  | {
    readonly kind: 'between'; readonly operand: TqlExpression; readonly low: TqlExpression;
    readonly high: TqlExpression; readonly negated: boolean; readonly position: TqlPosition;
  };

export type TqlCall = Extract<TqlExpression, { kind: 'call' }>;

export interface TqlOrderKey {
  readonly expression: TqlExpression;
  readonly direction: 'ASC' | 'DESC';
  readonly position: TqlPosition;
}

/**
 * The text of a statement's clauses as written (trimmed, keywords WHERE and ORDER BY left out),
 * for EXPLAIN's STATEMENT column; undefined where the clause is absent.
 */
export interface TqlClauseText {
  readonly select: string;
  readonly where: string | undefined;
  readonly orderBy: string | undefined;
  /** `LIMIT n [OFFSET m]`. */
  readonly limit: string | undefined;
}

export interface TqlStatement {
  /** EXPLAIN or EXPLAIN ANALYZE before the SELECT. */
  readonly explain: 'EXPLAIN' | 'EXPLAIN ANALYZE' | undefined;
  /** `*`, or the one function of the select list. */
  readonly select: { readonly kind: 'all'; readonly position: TqlPosition } | TqlCall;
  /** FROM name, or FROM database.name (parts in order). */
  readonly from: { readonly parts: readonly string[]; readonly position: TqlPosition } | undefined;
  readonly where: TqlExpression | undefined;
  readonly orderBy: readonly TqlOrderKey[];
  readonly limit: { readonly count: bigint; readonly position: TqlPosition } | undefined;
  readonly offset: { readonly count: bigint; readonly position: TqlPosition } | undefined;
  readonly text: TqlClauseText;
}
