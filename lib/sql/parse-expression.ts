// Expressions: precedence climbing over the table of precedence.ts, so one nesting level of the
// text costs a few stack frames and SQL_EXPRESSION_DEPTH_MAX levels fit well inside Node's stack.
// Primaries (literals, names, calls, CASE, CAST) are in parse-primary.ts.

import type { SqlBinaryOperator, SqlExpression } from './ast.ts';
import type { SqlCursor } from './cursor.ts';
import type { SqlPosition } from './errors.ts';
import { parsePrimary } from './parse-primary.ts';
import { parseSelect } from './parse-select.ts';
import {
  BINARY_OPERATOR_LEVELS, LEVEL_COMPARISON, LEVEL_EQUALITY, LEVEL_NOT, LEVEL_OR, LEVEL_UNARY,
} from './precedence.ts';

export function parseExpression(cursor: SqlCursor): SqlExpression {
  return parseLevel(cursor, LEVEL_OR);
}

/** An expression whose operators all bind at least as tightly as `levelMin`. */
export function parseLevel(cursor: SqlCursor, levelMin: number): SqlExpression {
  cursor.enterExpression();
  let left = parsePrefix(cursor);
  for (;;) {
    const next = parseInfix(cursor, left, levelMin);
    if (next === undefined) break;
    left = next;
  }
  cursor.leaveExpression();
  return left;
}

/**
 * A prefix operator and its operand, or a primary. As in SQLite, NOT may stand where a tighter
 * operand is due (`a = NOT b AND c` is `(a = (NOT b)) AND c`): its operand takes everything that
 * binds tighter than NOT, so the caller sees only AND or OR next.
 */
function parsePrefix(cursor: SqlCursor): SqlExpression {
  const position = cursor.position();
  if (cursor.acceptKeyword('NOT')) {
    const operand = parseLevel(cursor, LEVEL_NOT);
    return { kind: 'unary', operator: 'NOT', operand, position };
  }
  for (const operator of ['-', '+', '~'] as const) {
    if (cursor.acceptOperator(operator)) {
      const operand = parseLevel(cursor, LEVEL_UNARY);
      return { kind: 'unary', operator, operand, position };
    }
  }
  return parsePrimary(cursor);
}

const SYMBOL_OPERATORS: readonly SqlBinaryOperator[] = [
  '=', '==', '!=', '<>', '<', '<=', '>', '>=', '&', '|', '<<', '>>', '+', '-', '*', '/', '%', '||',
];

/** The operator after `left` applied to it; undefined when none binds at `levelMin` or tighter. */
function parseInfix(cursor: SqlCursor, left: SqlExpression, levelMin: number):
  SqlExpression | undefined {
  const token = cursor.peek();
  const position = left.position;
  if (token.kind === 'operator') {
    const operator = SYMBOL_OPERATORS.find((candidate) => candidate === token.text);
    if (operator === undefined) return undefined;
    const level = BINARY_OPERATOR_LEVELS[operator];
    if (level < levelMin) return undefined;
    cursor.next();
    const right = parseLevel(cursor, level + 1);
    return { kind: 'binary', operator, left, right, position };
  }
  if (token.kind !== 'word') return undefined;
  if (token.upper === 'OR' || token.upper === 'AND') {
    const level = BINARY_OPERATOR_LEVELS[token.upper];
    if (level < levelMin) return undefined;
    cursor.next();
    const right = parseLevel(cursor, level + 1);
    return { kind: 'binary', operator: token.upper, left, right, position };
  }
  if (LEVEL_EQUALITY < levelMin) return undefined;
  return parseEqualityKeyword(cursor, left, position);
}

/** IS, ISNULL, NOTNULL, [NOT] LIKE/GLOB/BETWEEN/IN, NOT NULL after an operand. */
function parseEqualityKeyword(cursor: SqlCursor, operand: SqlExpression, position: SqlPosition):
  SqlExpression | undefined {
  if (cursor.acceptKeyword('IS')) {
    const negated = cursor.acceptKeyword('NOT');
    const right = parseLevel(cursor, LEVEL_COMPARISON);
    return { kind: 'is', negated, left: operand, right, position };
  }
  if (cursor.acceptKeyword('ISNULL')) return { kind: 'isNull', negated: false, operand, position };
  if (cursor.acceptKeyword('NOTNULL')) return { kind: 'isNull', negated: true, operand, position };
  let negated = false;
  if (cursor.isKeyword('NOT')) {
    if (cursor.isKeyword('NULL', 1)) {
      cursor.next();
      cursor.next();
      return { kind: 'isNull', negated: true, operand, position };
    }
    if (!['LIKE', 'GLOB', 'BETWEEN', 'IN'].some((word) => cursor.isKeyword(word, 1))) {
      return undefined;
    }
    cursor.next();
    negated = true;
  }
  if (cursor.isKeyword('LIKE') || cursor.isKeyword('GLOB')) {
    const operator = cursor.isKeyword('LIKE') ? 'LIKE' : 'GLOB';
    cursor.next();
    const pattern = parseLevel(cursor, LEVEL_COMPARISON);
    const escape = cursor.acceptKeyword('ESCAPE')
      ? parseLevel(cursor, LEVEL_COMPARISON) : undefined;
    return { kind: 'like', operator, negated, operand, pattern, escape, position };
  }
  if (cursor.acceptKeyword('BETWEEN')) {
    const low = parseLevel(cursor, LEVEL_COMPARISON);
    cursor.expectKeyword('AND');
    const high = parseLevel(cursor, LEVEL_COMPARISON);
    return { kind: 'between', negated, operand, low, high, position };
  }
  if (cursor.acceptKeyword('IN')) {
    if (cursor.isOperator('(') && cursor.isKeyword('SELECT', 1)) {
      cursor.next();
      const query = parseSelect(cursor);
      cursor.expectOperator(')');
      return { kind: 'inSubquery', negated, operand, query, position };
    }
    const list = cursor.parenthesizedList(() => parseExpression(cursor));
    return { kind: 'in', negated, operand, list, position };
  }
  return undefined;
}
