// Primary expressions: literals, parameters, column references, function calls (with DISTINCT,
// `*`, WITHIN GROUP, and a time-unit first argument where §5.8 takes one), CASE, CAST and
// parenthesized expressions, scalar subqueries `(SELECT ...)` and `EXISTS (SELECT ...)`, window
// calls `f(...) OVER (PARTITION BY ... ORDER BY ... [ROWS|RANGE frame])`.

import { assert } from '../base/assert.ts';
import type { SqlExpression, SqlFrameBound, SqlOrderItem, SqlWindowFrame } from './ast.ts';
import type { SqlCursor } from './cursor.ts';
import { sqlSyntaxError, type SqlPosition } from './errors.ts';
import { parseExpression } from './parse-expression.ts';
import { parseSelect } from './parse-select.ts';
import { FUNCTION_KEYWORDS, RESERVED_WORDS } from './reserved-words.ts';
import { sqlColumnType, type SqlColumnType } from './sql-types.ts';

/** Functions whose first argument is a time unit keyword (§5.8). */
const TIME_UNIT_FUNCTIONS: ReadonlySet<string> = new Set([
  'EXTRACT', 'TIMESTAMP_ADD', 'TIMESTAMPADD', 'TIMESTAMP_DIFF', 'TIMESTAMPDIFF', 'TIMESTAMP_TRUNC',
]);

/** Units of EXTRACT, TIMESTAMP_ADD/DIFF/TRUNC and GROUP BY RANGE (§5.6, §5.8). */
export const SQL_TIME_UNITS: ReadonlySet<string> = new Set([
  'YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND',
  'DAY_OF_WEEK', 'DAY_OF_YEAR',
]);

export function parsePrimary(cursor: SqlCursor): SqlExpression {
  const token = cursor.peek();
  const position = token.position;
  switch (token.kind) {
    case 'integer':
      cursor.next();
      return { kind: 'literal', literal: { type: 'INTEGER', value: token.value }, position };
    case 'float':
      cursor.next();
      return { kind: 'literal', literal: { type: 'DOUBLE', value: token.value }, position };
    case 'string':
      cursor.next();
      return { kind: 'literal', literal: { type: 'STRING', value: token.value }, position };
    case 'blob':
      cursor.next();
      return { kind: 'literal', literal: { type: 'BLOB', value: token.value }, position };
    case 'parameter': {
      cursor.next();
      const index = cursor.nextParameterIndex(position);
      return { kind: 'parameter', index, text: token.text, position };
    }
    case 'operator':
      if (token.text !== '(') break;
      cursor.next();
      if (cursor.isKeyword('SELECT')) {
        const query = parseSelect(cursor);
        cursor.expectOperator(')');
        return { kind: 'scalarSubquery', query, position };
      }
      return parseParenthesized(cursor);
    case 'quotedName':
      return parseColumn(cursor);
    case 'word':
      return parseWord(cursor, token.upper, position);
    default:
      break;
  }
  return cursor.fail('an expression');
}

function parseParenthesized(cursor: SqlCursor): SqlExpression {
  const expression = parseExpression(cursor);
  cursor.expectOperator(')');
  return expression;
}

function parseWord(cursor: SqlCursor, upper: string, position: SqlPosition): SqlExpression {
  switch (upper) {
    case 'NULL':
      cursor.next();
      return { kind: 'literal', literal: { type: 'NULL' }, position };
    case 'TRUE':
    case 'FALSE':
      cursor.next();
      return { kind: 'literal', literal: { type: 'BOOL', value: upper === 'TRUE' }, position };
    case 'CASE':
      return parseCase(cursor);
    case 'CAST':
      return parseCast(cursor);
    case 'EXISTS': {
      cursor.next();
      cursor.expectOperator('(');
      if (!cursor.isKeyword('SELECT')) cursor.fail('SELECT (EXISTS takes a subquery)');
      const query = parseSelect(cursor);
      cursor.expectOperator(')');
      return { kind: 'exists', negated: false, query, position };
    }
    default:
      break;
  }
  if (cursor.isOperator('(', 1) && (cursor.isName() || FUNCTION_KEYWORDS.has(upper))) {
    return parseCall(cursor);
  }
  if (cursor.isName()) return parseColumn(cursor);
  return cursor.fail('an expression');
}

function parseColumn(cursor: SqlCursor): SqlExpression {
  const first = cursor.expectName('a column name');
  if (!cursor.isOperator('.') || cursor.isOperator('*', 1)) {
    return { kind: 'column', table: undefined, name: first, position: first.position };
  }
  cursor.next();
  const name = cursor.expectName('a column name');
  return { kind: 'column', table: first, name, position: first.position };
}

function parseCall(cursor: SqlCursor): SqlExpression {
  const nameToken = cursor.next();
  assert(nameToken.kind === 'word');
  const position = nameToken.position;
  const name = nameToken.text;
  cursor.expectOperator('(');
  if (name.toUpperCase() === 'EXTRACT' && cursor.isKeyword('FROM', 1)) return parseExtractFrom(cursor, position);
  let star = false;
  let quantifier: 'DISTINCT' | 'ALL' | undefined;
  let args: SqlExpression[] = [];
  if (cursor.acceptOperator('*')) {
    star = true;
  } else if (!cursor.isOperator(')')) {
    if (cursor.acceptKeyword('DISTINCT')) quantifier = 'DISTINCT';
    else if (cursor.acceptKeyword('ALL')) quantifier = 'ALL';
    const first = TIME_UNIT_FUNCTIONS.has(name.toUpperCase())
      ? parseTimeUnitArgument(cursor)
      : parseExpression(cursor);
    args = [first];
    while (cursor.acceptOperator(',')) args.push(parseExpression(cursor));
  }
  cursor.expectOperator(')');
  const withinGroup = parseWithinGroup(cursor);
  const call = { kind: 'call', name, star, quantifier, args, withinGroup, position } as const;
  // OVER is no reserved word: `max(x) over` may be an alias; a window has its parenthesis.
  if (!cursor.isKeyword('OVER') || !cursor.isOperator('(', 1)) return call;
  cursor.next();
  return parseWindow(cursor, call);
}

const FRAME_UNITS = ['DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'];

/** `OVER ([PARTITION BY expr, ...] [ORDER BY item, ...] [frame])` after a call. */
function parseWindow(cursor: SqlCursor, call: Extract<SqlExpression, { kind: 'call' }>): SqlExpression {
  cursor.expectOperator('(');
  let partitionBy: SqlExpression[] = [];
  let orderBy: SqlOrderItem[] = [];
  if (cursor.acceptKeyword('PARTITION')) {
    cursor.expectKeyword('BY');
    partitionBy = cursor.list(() => parseExpression(cursor));
  }
  if (cursor.acceptKeyword('ORDER')) {
    cursor.expectKeyword('BY');
    orderBy = cursor.list(() => parseOrderItem(cursor));
  }
  let frame: SqlWindowFrame | undefined;
  const unit = cursor.acceptKeyword('ROWS') ? 'ROWS' : cursor.acceptKeyword('RANGE') ? 'RANGE' : undefined;
  if (unit !== undefined) {
    if (cursor.acceptKeyword('BETWEEN')) {
      const start = parseFrameBound(cursor);
      cursor.expectKeyword('AND');
      frame = { unit, start, end: parseFrameBound(cursor) };
    } else {
      frame = { unit, start: parseFrameBound(cursor), end: { kind: 'CURRENT ROW' } };
    }
  }
  cursor.expectOperator(')');
  return { kind: 'window', call, partitionBy, orderBy, frame, position: call.position };
}

function parseFrameBound(cursor: SqlCursor): SqlFrameBound {
  if (cursor.acceptKeyword('UNBOUNDED')) {
    if (cursor.acceptKeyword('PRECEDING')) return { kind: 'UNBOUNDED PRECEDING' };
    cursor.expectKeyword('FOLLOWING');
    return { kind: 'UNBOUNDED FOLLOWING' };
  }
  if (cursor.acceptKeyword('CURRENT')) {
    cursor.expectKeyword('ROW');
    return { kind: 'CURRENT ROW' };
  }
  let offset: bigint;
  let timeUnit: string | undefined;
  if (cursor.acceptOperator('(')) {
    offset = cursor.expectInteger('a whole number of units');
    cursor.expectOperator(',');
    timeUnit = FRAME_UNITS.find((candidate) => cursor.isKeyword(candidate));
    if (timeUnit === undefined) cursor.fail(FRAME_UNITS.join(', '));
    cursor.next();
    cursor.expectOperator(')');
  } else {
    offset = cursor.expectInteger('UNBOUNDED, CURRENT ROW or a whole number');
  }
  const kind = cursor.acceptKeyword('PRECEDING') ? 'PRECEDING' : undefined;
  if (kind === undefined) cursor.expectKeyword('FOLLOWING');
  return { kind: kind ?? 'FOLLOWING', offset, timeUnit };
}

function parseTimeUnitArgument(cursor: SqlCursor): SqlExpression {
  const token = cursor.peek();
  if (token.kind !== 'word' || !SQL_TIME_UNITS.has(token.upper)) {
    return cursor.fail(`a time unit (${[...SQL_TIME_UNITS].join(', ')})`);
  }
  cursor.next();
  return { kind: 'timeUnit', unit: token.upper, position: token.position };
}

/**
 * PostgreSQL's `EXTRACT(field FROM ts)`, after `EXTRACT(`: GridDB's `EXTRACT(field, ts)` for its
 * fields, and `EXTRACT(EPOCH FROM ts)` as `TO_EPOCH_MS(ts) / 1000.0`, seconds since the epoch as a
 * DOUBLE (Grafana's `$__timeGroup` and `$__timeEpoch` expand to it). GridDB has neither form: each
 * is accepted for what PostgreSQL means by it, and changes no statement GridDB accepts.
 */
function parseExtractFrom(cursor: SqlCursor, position: SqlPosition): SqlExpression {
  const field = cursor.peek();
  const epoch = field.kind === 'word' && field.upper === 'EPOCH';
  if (epoch) cursor.next();
  const unit = epoch ? undefined : parseTimeUnitArgument(cursor);
  cursor.expectKeyword('FROM');
  const operand = parseExpression(cursor);
  cursor.expectOperator(')');
  if (unit !== undefined) {
    return { kind: 'call', name: 'EXTRACT', star: false, quantifier: undefined, args: [unit, operand],
      withinGroup: undefined, position };
  }
  const epochMs: SqlExpression = { kind: 'call', name: 'TO_EPOCH_MS', star: false, quantifier: undefined,
    args: [operand], withinGroup: undefined, position };
  return { kind: 'binary', operator: '/', left: epochMs,
    right: { kind: 'literal', literal: { type: 'DOUBLE', value: 1000 }, position }, position };
}

/** `WITHIN GROUP (ORDER BY key [ASC|DESC], ...)` after PERCENTILE_CONT(p). */
function parseWithinGroup(cursor: SqlCursor): readonly SqlOrderItem[] | undefined {
  if (!cursor.isKeyword('WITHIN') || !cursor.isKeyword('GROUP', 1)) return undefined;
  cursor.next();
  cursor.next();
  cursor.expectOperator('(');
  cursor.expectKeyword('ORDER');
  cursor.expectKeyword('BY');
  const items = cursor.list(() => parseOrderItem(cursor));
  cursor.expectOperator(')');
  return items;
}

export function parseOrderItem(cursor: SqlCursor): SqlOrderItem {
  const expression = parseExpression(cursor);
  let direction: 'ASC' | 'DESC' | undefined;
  if (cursor.acceptKeyword('ASC')) direction = 'ASC';
  else if (cursor.acceptKeyword('DESC')) direction = 'DESC';
  return { expression, direction };
}

function parseCase(cursor: SqlCursor): SqlExpression {
  const position = cursor.expectKeyword('CASE');
  const operand = cursor.isKeyword('WHEN') ? undefined : parseExpression(cursor);
  const whens: { when: SqlExpression; then: SqlExpression }[] = [];
  while (cursor.acceptKeyword('WHEN')) {
    const when = parseExpression(cursor);
    cursor.expectKeyword('THEN');
    whens.push({ when, then: parseExpression(cursor) });
  }
  if (whens.length === 0) cursor.fail('WHEN');
  const otherwise = cursor.acceptKeyword('ELSE') ? parseExpression(cursor) : undefined;
  cursor.expectKeyword('END');
  return { kind: 'case', operand, whens, otherwise, position };
}

function parseCast(cursor: SqlCursor): SqlExpression {
  const position = cursor.expectKeyword('CAST');
  cursor.expectOperator('(');
  const operand = parseExpression(cursor);
  cursor.expectKeyword('AS');
  const type = parseColumnType(cursor);
  cursor.expectOperator(')');
  return { kind: 'cast', operand, type, position };
}

/**
 * A type name: one or more words that are not reserved (`DOUBLE PRECISION`), then an optional
 * `(n)` or `(n, m)`; mapped to a storable type by sql-types.ts. DECIMAL and other names no rule
 * maps are a syntax error at the type name.
 */
export function parseColumnType(cursor: SqlCursor): SqlColumnType {
  const position = cursor.position();
  const words: string[] = [];
  for (;;) {
    const token = cursor.peek();
    if (token.kind !== 'word' || RESERVED_WORDS.has(token.upper)) break;
    words.push(token.text);
    cursor.next();
  }
  if (words.length === 0) cursor.fail('a type name');
  let precision: bigint | undefined;
  if (cursor.acceptOperator('(')) {
    precision = cursor.expectInteger('a type size or precision');
    if (cursor.acceptOperator(',')) cursor.expectInteger('a type scale');
    cursor.expectOperator(')');
  }
  const type = sqlColumnType(words.join(' '), precision);
  if (typeof type === 'object') throw sqlSyntaxError(type.problem, position);
  return type;
}
