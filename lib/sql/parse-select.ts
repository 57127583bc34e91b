// SELECT (§5.5, §5.6): select list, FROM (tables, joins, derived tables: parse-from.ts), WHERE,
// GROUP BY expressions or GROUP BY RANGE ... EVERY ... FILL, HAVING, UNION [ALL] / INTERSECT /
// EXCEPT chains (left to right, equal precedence, as GridDB's SQLite-derived grammar), ORDER BY,
// LIMIT/OFFSET (of the whole chain when there is one).

import type {
  SqlExpression, SqlFillMethod, SqlGroupBy, SqlName, SqlQuery, SqlSelectCore, SqlSelectItem,
  SqlSetOperator,
} from './ast.ts';
import type { SqlCursor } from './cursor.ts';
import { sqlSyntaxError, type SqlPosition } from './errors.ts';
import { parseExpression } from './parse-expression.ts';
import { parseFrom } from './parse-from.ts';
import { parseOrderItem } from './parse-primary.ts';
import { RESERVED_WORDS } from './reserved-words.ts';

const SET_OPERATION_WORDS = ['UNION', 'INTERSECT', 'EXCEPT'];
const FILL_METHODS: readonly SqlFillMethod[] = ['LINEAR', 'NONE', 'NULL', 'PREVIOUS'];
const RANGE_UNITS = ['DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND'];

/** `SELECT ...` from its first keyword on, with any set operations after it. */
export function parseSelect(cursor: SqlCursor): SqlQuery {
  const position = cursor.expectKeyword('SELECT');
  return parseSelectAfterKeyword(cursor, position);
}

/** The rest of a SELECT whose keyword (and any hint after it) the caller took. */
export function parseSelectAfterKeyword(cursor: SqlCursor, position: SqlPosition): SqlQuery {
  const first = parseSelectCore(cursor, position);
  if (!SET_OPERATION_WORDS.some((word) => cursor.isKeyword(word))) return first;
  if (first.orderBy.length > 0 || first.limit !== undefined) {
    throw sqlSyntaxError('ORDER BY and LIMIT go after the last SELECT of a set operation', cursor.position());
  }
  let query: SqlQuery = first;
  for (;;) {
    const operatorPosition = cursor.position();
    const word = SET_OPERATION_WORDS.find((candidate) => cursor.isKeyword(candidate));
    if (word === undefined) break;
    cursor.next();
    const operator = (word === 'UNION' && cursor.acceptKeyword('ALL') ? 'UNION ALL' : word) as SqlSetOperator;
    const rightPosition = cursor.expectKeyword('SELECT');
    const right = parseSelectCore(cursor, rightPosition);
    query = {
      kind: 'setOperation', operator, left: query, right, orderBy: right.orderBy, limit: right.limit,
      offset: right.offset, position: operatorPosition,
    };
    if (right.orderBy.length > 0 || right.limit !== undefined) {
      query = { ...query, right: { ...right, orderBy: [], limit: undefined, offset: undefined } };
      if (SET_OPERATION_WORDS.some((candidate) => cursor.isKeyword(candidate))) {
        throw sqlSyntaxError('ORDER BY and LIMIT go after the last SELECT of a set operation', operatorPosition);
      }
      break;
    }
  }
  return query;
}

function parseSelectCore(cursor: SqlCursor, position: SqlPosition): SqlSelectCore {
  let quantifier: 'DISTINCT' | 'ALL' | undefined;
  if (cursor.acceptKeyword('DISTINCT')) quantifier = 'DISTINCT';
  else if (cursor.acceptKeyword('ALL')) quantifier = 'ALL';
  const items = cursor.list(() => parseSelectItem(cursor));
  const from = cursor.acceptKeyword('FROM') ? parseFrom(cursor) : undefined;
  const where = cursor.acceptKeyword('WHERE') ? parseExpression(cursor) : undefined;
  let groupBy: SqlGroupBy | undefined;
  let having: SqlExpression | undefined;
  if (cursor.isKeyword('GROUP')) {
    cursor.next();
    cursor.expectKeyword('BY');
    groupBy = parseGroupBy(cursor);
    if (cursor.acceptKeyword('HAVING')) having = parseExpression(cursor);
  } else if (cursor.isKeyword('HAVING')) {
    throw sqlSyntaxError('HAVING needs a GROUP BY before it', cursor.position());
  }
  let orderBy: SqlSelectCore['orderBy'] = [];
  if (cursor.acceptKeyword('ORDER')) {
    cursor.expectKeyword('BY');
    orderBy = cursor.list(() => parseOrderItem(cursor));
  }
  let limit: SqlExpression | undefined;
  let offset: SqlExpression | undefined;
  if (cursor.acceptKeyword('LIMIT')) {
    limit = parseExpression(cursor);
    if (cursor.acceptKeyword('OFFSET')) offset = parseExpression(cursor);
  }
  return {
    kind: 'select', quantifier, items, from, where, groupBy, having, orderBy, limit, offset,
    position,
  };
}

function parseSelectItem(cursor: SqlCursor): SqlSelectItem {
  const position = cursor.position();
  if (cursor.acceptOperator('*')) return { kind: 'star', table: undefined, position };
  if (cursor.isName() && cursor.isOperator('.', 1) && cursor.isOperator('*', 2)) {
    const table = cursor.expectName('a table name');
    cursor.next();
    cursor.next();
    return { kind: 'star', table, position };
  }
  const expression = parseExpression(cursor);
  return { kind: 'expression', expression, alias: parseAlias(cursor) };
}

/** `AS name`, or a name no clause begins with (`SELECT a b`). */
export function parseAlias(cursor: SqlCursor): SqlName | undefined {
  if (cursor.acceptKeyword('AS')) return cursor.expectName('an alias');
  if (cursor.isImplicitAlias()) return cursor.expectName('an alias');
  return undefined;
}

/** GROUP BY RANGE when RANGE is followed by an operand, not by what ends a grouping key. */
function isGroupByRange(cursor: SqlCursor): boolean {
  if (!cursor.isKeyword('RANGE')) return false;
  const after = cursor.peek(1);
  if (after.kind === 'quotedName') return true;
  if (after.kind === 'word') return !RESERVED_WORDS.has(after.upper);
  return after.kind === 'operator' && after.text === '(';
}

function parseGroupBy(cursor: SqlCursor): SqlGroupBy {
  if (!isGroupByRange(cursor)) {
    return { kind: 'expressions', expressions: cursor.list(() => parseExpression(cursor)) };
  }
  const position = cursor.expectKeyword('RANGE');
  const key = parseExpression(cursor);
  cursor.expectKeyword('EVERY');
  cursor.expectOperator('(');
  const intervalPosition = cursor.position();
  const interval = cursor.expectInteger('a positive whole interval');
  if (interval <= 0n) {
    throw sqlSyntaxError('the interval of EVERY must be positive', intervalPosition);
  }
  cursor.expectOperator(',');
  const unit = RANGE_UNITS.find((candidate) => cursor.isKeyword(candidate));
  if (unit === undefined) cursor.fail(RANGE_UNITS.join(', ').replace(/, (\w+)$/, ' or $1'));
  cursor.next();
  let offset: bigint | string | undefined;
  if (cursor.acceptOperator(',')) offset = parseRangeOffset(cursor);
  cursor.expectOperator(')');
  let fill: SqlFillMethod | undefined;
  if (cursor.acceptKeyword('FILL')) {
    cursor.expectOperator('(');
    fill = FILL_METHODS.find((method) => cursor.isKeyword(method));
    if (fill === undefined) cursor.fail('LINEAR, NONE, NULL or PREVIOUS');
    cursor.next();
    cursor.expectOperator(')');
  }
  return { kind: 'range', key, interval, unit, offset, fill, position };
}

/** A whole number of units, possibly negative, or a time zone string (§5.6). */
function parseRangeOffset(cursor: SqlCursor): bigint | string {
  if (cursor.peek().kind === 'string') return cursor.expectString('a time zone');
  const negative = cursor.acceptOperator('-');
  const value = cursor.expectInteger('an offset: a whole number or a time zone string');
  return negative ? -value : value;
}
