// INSERT, INSERT OR REPLACE, REPLACE, UPDATE and DELETE (§5.4), from after their first keyword
// (the statement parser takes it, with the hints around it). VALUES takes one row or many; an
// empty row `()` is a syntax error (GridDB 5.x crashed on `VALUES (1),()`: griddb/griddb#415).

import type { SqlExpression, SqlHint, SqlName } from './ast.ts';
import type { SqlInsertMode, SqlStatement } from './ast-statements.ts';
import type { SqlCursor } from './cursor.ts';
import { sqlSyntaxError, type SqlPosition } from './errors.ts';
import { parseExpression } from './parse-expression.ts';
import { parseSelect } from './parse-select.ts';

export function parseInsertRest(cursor: SqlCursor, mode: SqlInsertMode, hints: readonly SqlHint[],
  position: SqlPosition): SqlStatement {
  cursor.expectKeyword('INTO');
  const table = cursor.expectName('a table name');
  let columns: SqlName[] | undefined;
  if (cursor.isOperator('(')) {
    columns = cursor.parenthesizedList(() => cursor.expectName('a column name'));
  }
  if (cursor.isKeyword('SELECT')) {
    const source = { kind: 'query' as const, query: parseSelect(cursor) };
    return { kind: 'insert', hints, mode, table, columns, source, position };
  }
  if (!cursor.acceptKeyword('VALUES')) {
    cursor.fail(columns === undefined ? "VALUES, SELECT or '('" : 'VALUES or SELECT');
  }
  const source = { kind: 'values' as const, rows: parseRows(cursor) };
  return { kind: 'insert', hints, mode, table, columns, source, position };
}

/** Rows of VALUES: at least one value each, all rows as long as the first (as SQLite). */
function parseRows(cursor: SqlCursor): SqlExpression[][] {
  const rows: SqlExpression[][] = [];
  do {
    const position = cursor.position();
    if (cursor.isOperator('(') && cursor.isOperator(')', 1)) {
      throw sqlSyntaxError('a VALUES row needs at least one value', position);
    }
    const row = cursor.parenthesizedList(() => parseExpression(cursor));
    if (rows.length > 0 && row.length !== rows[0]!.length) {
      throw sqlSyntaxError(`this VALUES row has ${row.length} value(s), the first has ` +
        `${rows[0]!.length}`, position);
    }
    rows.push(row);
  } while (cursor.acceptOperator(','));
  return rows;
}

export function parseUpdateRest(cursor: SqlCursor, hints: readonly SqlHint[],
  position: SqlPosition): SqlStatement {
  const table = cursor.expectName('a table name');
  cursor.expectKeyword('SET');
  const assignments = cursor.list(() => {
    const column = cursor.expectName('a column name');
    if (cursor.isOperator('.')) {
      throw sqlSyntaxError('a SET target is a column name without its table', column.position);
    }
    cursor.expectOperator('=');
    return { column, value: parseExpression(cursor) };
  });
  const where = cursor.acceptKeyword('WHERE') ? parseExpression(cursor) : undefined;
  return { kind: 'update', hints, table, assignments, where, position };
}

export function parseDeleteRest(cursor: SqlCursor, hints: readonly SqlHint[],
  position: SqlPosition): SqlStatement {
  cursor.expectKeyword('FROM');
  const table = cursor.expectName('a table name');
  const where = cursor.acceptKeyword('WHERE') ? parseExpression(cursor) : undefined;
  return { kind: 'delete', hints, table, where, position };
}
