// The SQL parser's entry points: one SQL text → its statements, separated by `;` as the web API
// sends them. Each statement's first keyword decides its form; hints (§5.9) are taken right before
// or after the first SELECT, INSERT, UPDATE or DELETE, at most one hint comment per statement.
// Every error is a SqlError with the line and column of the token at fault.

import { assert } from '../base/assert.ts';
import { SQL_STATEMENT_COUNT_MAX } from '../base/limits.ts';
import type { SqlHint } from './ast.ts';
import type { SqlStatement } from './ast-statements.ts';
import { SqlCursor } from './cursor.ts';
import {
  sqlLimitExceeded, sqlNotSupported, sqlSyntaxError, SQL_POSITION_START, type SqlPosition,
} from './errors.ts';
import { parseHints } from './hints.ts';
import { sqlTokenize } from './lexer.ts';
import {
  parseCreateAdministration, parseDropAdministration, parseGrantRest, parseSetPasswordRest,
} from './parse-admin.ts';
import {
  parseAlterTableRest, parseCreateIndexRest, parseCreateTableRest, parseIfExists,
} from './parse-ddl.ts';
import { parseDeleteRest, parseInsertRest, parseUpdateRest } from './parse-dml.ts';
import { parseSelectAfterKeyword } from './parse-select.ts';
import type { SqlToken } from './tokens.ts';

export interface SqlParsedStatement {
  readonly statement: SqlStatement;
  /** The statement's own text, from its first token to its last (comments inside kept). */
  readonly text: string;
  /** `?` parameters, numbered 1 … parameterCount in order of appearance. */
  readonly parameterCount: number;
}

/** Every statement of an SQL text; empty statements (`;;`) are skipped. */
export function parseSql(text: string): SqlParsedStatement[] {
  const tokens = sqlTokenize(text);
  const cursor = new SqlCursor(tokens);
  const statements: SqlParsedStatement[] = [];
  for (;;) {
    while (isSemicolon(cursor.peekRaw())) cursor.next(); // empty statements
    if (cursor.peekRaw().kind === 'end') break;
    if (statements.length === SQL_STATEMENT_COUNT_MAX) {
      throw sqlLimitExceeded(
        `an SQL text may hold at most ${SQL_STATEMENT_COUNT_MAX} statements`, cursor.position());
    }
    cursor.startStatement();
    const startOffset = cursor.peekRaw().position.offset;
    const statement = parseStatement(cursor);
    const endOffset = cursor.lastEndOffset();
    if (!cursor.isOperator(';') && cursor.peek().kind !== 'end') {
      cursor.fail(statement.kind === 'select'
        ? "FROM, WHERE, GROUP BY, ORDER BY, LIMIT, an operator, ';' or the end"
        : "an operator, ';' or the end");
    }
    statements.push({
      statement, text: text.slice(startOffset, endOffset), parameterCount: cursor.parameterCount,
    });
  }
  return statements;
}

/** Exactly one statement (a trailing `;` allowed), as JDBC's prepareStatement takes. */
export function parseSqlStatement(text: string): SqlParsedStatement {
  const statements = parseSql(text);
  if (statements.length === 0) throw sqlSyntaxError('the query is empty', SQL_POSITION_START);
  if (statements.length > 1) {
    const second = statements[1]!.statement.position;
    // GridDB answers several statements where one is wanted with SQL_COMPILE_UNSUPPORTED
    throw sqlNotSupported('multiple SQL statements are not supported here: one at a time', second);
  }
  return statements[0]!;
}

function isSemicolon(token: SqlToken): boolean {
  return token.kind === 'operator' && token.text === ';';
}

function parseStatement(cursor: SqlCursor): SqlStatement {
  const hintsBefore = takeHintComment(cursor);
  const position = cursor.position();
  const token = cursor.next();
  const word = token.kind === 'word' ? token.upper : '';
  if (['SELECT', 'INSERT', 'REPLACE', 'UPDATE', 'DELETE'].includes(word)) {
    const hintsAfter = takeHintComment(cursor);
    if (hintsBefore !== undefined && hintsAfter !== undefined) {
      throw sqlSyntaxError('a statement may have one hint comment, this one has two',
        cursor.lastHintPosition());
    }
    return parseDataStatement(cursor, word, hintsBefore ?? hintsAfter ?? [], position);
  }
  if (hintsBefore !== undefined) {
    throw sqlSyntaxError('a hint /*+ ... */ may only stand right before or after the first ' +
      'SELECT, INSERT, UPDATE or DELETE of a statement', cursor.lastHintPosition());
  }
  switch (word) {
    case 'EXPLAIN': {
      const analyze = cursor.acceptKeyword('ANALYZE');
      if (cursor.isKeyword('EXPLAIN')) cursor.fail('a statement to explain');
      return { kind: 'explain', analyze, statement: parseStatement(cursor), position };
    }
    case 'CREATE': return parseCreate(cursor, position);
    case 'DROP': return parseDrop(cursor, position);
    case 'ALTER': return parseAlterTableRest(cursor, position);
    case 'GRANT': return parseGrantRest(cursor, 'grant', position);
    case 'REVOKE': return parseGrantRest(cursor, 'revoke', position);
    case 'SET': return parseSetPasswordRest(cursor, position);
    default:
      throw sqlSyntaxError(`expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ` +
        `ALTER, EXPLAIN, ...), found ${describeFirst(token)}`, position);
  }
}

function describeFirst(token: SqlToken): string {
  return token.kind === 'word' ? JSON.stringify(token.text) : `'${token.kind}'`;
}

function parseDataStatement(cursor: SqlCursor, word: string, hints: readonly SqlHint[],
  position: SqlPosition): SqlStatement {
  switch (word) {
    case 'SELECT':
      return { kind: 'select', hints, query: parseSelectAfterKeyword(cursor, position), position };
    case 'INSERT': {
      if (!cursor.acceptKeyword('OR')) return parseInsertRest(cursor, 'INSERT', hints, position);
      cursor.expectKeyword('REPLACE');
      return parseInsertRest(cursor, 'INSERT OR REPLACE', hints, position);
    }
    case 'REPLACE': return parseInsertRest(cursor, 'REPLACE', hints, position);
    case 'UPDATE': return parseUpdateRest(cursor, hints, position);
    default:
      assert(word === 'DELETE');
      return parseDeleteRest(cursor, hints, position);
  }
}

/** The hints of one hint comment here, or undefined if there is none; two in a row is an error. */
function takeHintComment(cursor: SqlCursor): SqlHint[] | undefined {
  if (cursor.peekRaw().kind !== 'hint') return undefined;
  const token = cursor.nextHint();
  if (cursor.peekRaw().kind === 'hint') {
    throw sqlSyntaxError('a statement may have one hint comment, this one has two',
      cursor.peekRaw().position);
  }
  return parseHints(token.text, token.position);
}

function parseCreate(cursor: SqlCursor, position: SqlPosition): SqlStatement {
  if (cursor.acceptKeyword('TABLE')) return parseCreateTableRest(cursor, position);
  if (cursor.acceptKeyword('INDEX')) return parseCreateIndexRest(cursor, position);
  return parseCreateAdministration(cursor, position) ??
    cursor.fail('TABLE, INDEX, VIEW, USER, ROLE or DATABASE');
}

function parseDrop(cursor: SqlCursor, position: SqlPosition): SqlStatement {
  if (cursor.acceptKeyword('TABLE')) {
    const ifExists = parseIfExists(cursor);
    return { kind: 'dropTable', ifExists, name: cursor.expectName('a table name'), position };
  }
  if (cursor.acceptKeyword('INDEX')) {
    const ifExists = parseIfExists(cursor);
    const name = cursor.expectName('an index name');
    cursor.expectKeyword('ON');
    const table = cursor.expectName('a table name');
    return { kind: 'dropIndex', ifExists, name, table, position };
  }
  return parseDropAdministration(cursor, position) ??
    cursor.fail('TABLE, INDEX, VIEW, USER, ROLE or DATABASE');
}
