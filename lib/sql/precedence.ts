// Operator precedence of GridDB's SQL, one table for the parser and the printer. GridDB's grammar
// is SQLite's (lemon), whose precedence is, loosest first:
//
//   1  OR
//   2  AND
//   3  NOT x                                   (prefix, right-associative)
//   4  = == != <> IS [NOT] [NOT] IN [NOT] LIKE/GLOB [NOT] BETWEEN ISNULL NOTNULL
//   5  < <= > >=
//   6  & | << >>
//   7  + -
//   8  * / %
//   9  ||
//  10  -x +x ~x                                (prefix)
//  11  literals, names, calls, CASE, CAST, (expression)
//
// Binary operators are left-associative: the right operand binds one level tighter. Operands of
// LIKE's pattern and ESCAPE, of BETWEEN's bounds and of IS are read at level 5, as in SQLite.

import type { SqlBinaryOperator, SqlExpression } from './ast.ts';

export const LEVEL_OR = 1;
export const LEVEL_AND = 2;
export const LEVEL_NOT = 3;
export const LEVEL_EQUALITY = 4;
export const LEVEL_COMPARISON = 5;
export const LEVEL_BITWISE = 6;
export const LEVEL_ADDITIVE = 7;
export const LEVEL_MULTIPLICATIVE = 8;
export const LEVEL_CONCAT = 9;
export const LEVEL_UNARY = 10;
export const LEVEL_PRIMARY = 11;

export const BINARY_OPERATOR_LEVELS: Readonly<Record<SqlBinaryOperator, number>> = {
  'OR': LEVEL_OR,
  'AND': LEVEL_AND,
  '=': LEVEL_EQUALITY, '==': LEVEL_EQUALITY, '!=': LEVEL_EQUALITY, '<>': LEVEL_EQUALITY,
  '<': LEVEL_COMPARISON, '<=': LEVEL_COMPARISON, '>': LEVEL_COMPARISON, '>=': LEVEL_COMPARISON,
  '&': LEVEL_BITWISE, '|': LEVEL_BITWISE, '<<': LEVEL_BITWISE, '>>': LEVEL_BITWISE,
  '+': LEVEL_ADDITIVE, '-': LEVEL_ADDITIVE,
  '*': LEVEL_MULTIPLICATIVE, '/': LEVEL_MULTIPLICATIVE, '%': LEVEL_MULTIPLICATIVE,
  '||': LEVEL_CONCAT,
};

/** How tightly an expression binds, to decide where the printer needs parentheses. */
export function expressionLevel(expression: SqlExpression): number {
  switch (expression.kind) {
    case 'binary': return BINARY_OPERATOR_LEVELS[expression.operator];
    case 'unary': return expression.operator === 'NOT' ? LEVEL_NOT : LEVEL_UNARY;
    case 'is':
    case 'isNull':
    case 'like':
    case 'between':
    case 'in':
    case 'inSubquery': return LEVEL_EQUALITY;
    default: return LEVEL_PRIMARY;
  }
}
