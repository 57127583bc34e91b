// Helpers of the SQL parser tests: a tree without positions (to compare trees of different texts)
// and the canonical text of one expression or statement.

import { parseSqlStatement } from '../../../lib/sql/parser.ts';
import { printSqlExpression, printSqlStatement } from '../../../lib/sql/print.ts';
import type { SqlExpression } from '../../../lib/sql/ast.ts';
import type { SqlStatement } from '../../../lib/sql/ast-statements.ts';

export function withoutPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPositions);
  if (value instanceof Uint8Array) return [...value];
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key !== 'position' && field !== undefined) copy[key] = withoutPositions(field);
  }
  return copy;
}

export function statementOf(text: string): SqlStatement {
  return parseSqlStatement(text).statement;
}

/** The WHERE expression of `SELECT 1 FROM t WHERE <text>`. */
export function expressionOf(text: string): SqlExpression {
  const statement = statementOf(`SELECT ${text}`);
  if (statement.kind !== 'select' || statement.query.kind !== 'select' ||
    statement.query.items[0]?.kind !== 'expression') {
    throw new Error('not an expression');
  }
  return statement.query.items[0].expression;
}

/** The expression re-printed with every operation in parentheses, to show how it grouped. */
export function grouping(text: string): string {
  return fullyParenthesized(expressionOf(text));
}

function fullyParenthesized(e: SqlExpression): string {
  const p = fullyParenthesized;
  switch (e.kind) {
    case 'binary': return `(${p(e.left)} ${e.operator} ${p(e.right)})`;
    case 'unary': return `(${e.operator === 'NOT' ? 'NOT ' : e.operator}${p(e.operand)})`;
    case 'is': return `(${p(e.left)} IS ${e.negated ? 'NOT ' : ''}${p(e.right)})`;
    case 'isNull': return `(${p(e.operand)} ${e.negated ? 'NOTNULL' : 'ISNULL'})`;
    case 'like': return `(${p(e.operand)} ${e.negated ? 'NOT ' : ''}${e.operator} ${p(e.pattern)}` +
      `${e.escape === undefined ? '' : ` ESCAPE ${p(e.escape)}`})`;
    case 'between': return `(${p(e.operand)} ${e.negated ? 'NOT ' : ''}BETWEEN ${p(e.low)} AND ` +
      `${p(e.high)})`;
    case 'in':
      return `(${p(e.operand)} ${e.negated ? 'NOT ' : ''}IN (${e.list.map(p).join(', ')}))`;
    default: return printSqlExpression(e);
  }
}

export { printSqlStatement };
