// FROM (§5.5): table references joined left to right. `a, b` is a CROSS join; `[INNER] JOIN`,
// `LEFT [OUTER] JOIN`, `CROSS JOIN`, each optionally NATURAL, with `ON cond` or `USING (cols)`;
// `(SELECT ...) [AS] alias` is a derived table and needs its alias. GridDB's grammar is SQLite's,
// which refuses RIGHT and FULL outer joins with "RIGHT and FULL OUTER JOINs are not currently
// supported": so does this parser, at the join's first keyword. `t MATCH_RECOGNIZE (...)` and
// `(SELECT ...) MATCH_RECOGNIZE (...)` take their alias after the clause (parse-match-recognize.ts).

import type { SqlExpression, SqlJoinType, SqlName, SqlTableReference } from './ast.ts';
import type { SqlCursor } from './cursor.ts';
import { sqlSyntaxError } from './errors.ts';
import { parseExpression } from './parse-expression.ts';
import { parseMatchRecognize } from './parse-match-recognize.ts';
import { parseAlias, parseSelect } from './parse-select.ts';

/** Table references in one FROM at most (GridDB has no documented bound; this keeps plans small). */
export const SQL_FROM_TABLE_COUNT_MAX = 64;

const RIGHT_FULL_MESSAGE = 'RIGHT and FULL OUTER JOINs are not currently supported';

export function parseFrom(cursor: SqlCursor): SqlTableReference {
  let reference = parseTableFactor(cursor);
  let count = 1;
  for (;;) {
    const position = cursor.position();
    let type: SqlJoinType;
    let natural = false;
    if (cursor.acceptOperator(',')) {
      type = 'CROSS';
    } else {
      natural = cursor.acceptKeyword('NATURAL');
      if (cursor.isKeyword('RIGHT') || (isFullJoin(cursor))) throw sqlSyntaxError(RIGHT_FULL_MESSAGE, position);
      if (cursor.acceptKeyword('LEFT')) {
        cursor.acceptKeyword('OUTER');
        type = 'LEFT';
      } else if (cursor.acceptKeyword('CROSS')) {
        type = 'CROSS';
      } else {
        if (cursor.isKeyword('OUTER')) throw sqlSyntaxError(RIGHT_FULL_MESSAGE, position);
        if (!natural && !cursor.isKeyword('INNER') && !cursor.isKeyword('JOIN')) return reference;
        cursor.acceptKeyword('INNER');
        type = 'INNER';
      }
      cursor.expectKeyword('JOIN');
    }
    count++;
    if (count > SQL_FROM_TABLE_COUNT_MAX) {
      throw sqlSyntaxError(`FROM takes at most ${SQL_FROM_TABLE_COUNT_MAX} tables`, position);
    }
    const right = parseTableFactor(cursor);
    let condition: SqlExpression | undefined;
    let using: SqlName[] | undefined;
    if (!natural && cursor.acceptKeyword('ON')) {
      condition = parseExpression(cursor);
    } else if (!natural && cursor.acceptKeyword('USING')) {
      cursor.expectOperator('(');
      using = cursor.list(() => cursor.expectName('a column name'));
      cursor.expectOperator(')');
    }
    if (natural && (cursor.isKeyword('ON') || cursor.isKeyword('USING'))) {
      throw sqlSyntaxError('a NATURAL join takes no ON or USING clause', cursor.position());
    }
    reference = { kind: 'join', type, natural, left: reference, right, condition, using, position };
  }
}

/** FULL is no reserved word: `t FULL JOIN u` must not read FULL as t's alias. */
function isFullJoin(cursor: SqlCursor): boolean {
  const token = cursor.peek();
  if (token.kind !== 'word' || token.upper !== 'FULL') return false;
  return cursor.isKeyword('JOIN', 1) || cursor.isKeyword('OUTER', 1);
}

function parseTableFactor(cursor: SqlCursor): SqlTableReference {
  const position = cursor.position();
  if (cursor.acceptOperator('(')) {
    if (!cursor.isKeyword('SELECT')) cursor.fail('SELECT (a derived table)');
    const query = parseSelect(cursor);
    cursor.expectOperator(')');
    if (cursor.isKeyword('MATCH_RECOGNIZE')) return parseMatchRecognize(cursor, { kind: 'query', query }, position);
    const alias = parseAlias(cursor);
    if (alias === undefined) throw sqlSyntaxError('a subquery in FROM needs an alias', position);
    return { kind: 'derived', query, alias, position };
  }
  const name = cursor.expectName('a table name');
  if (cursor.isKeyword('MATCH_RECOGNIZE')) return parseMatchRecognize(cursor, { kind: 'table', name }, position);
  const alias = isFullJoin(cursor) ? undefined : parseAlias(cursor);
  return { kind: 'table', name, alias, position };
}
