// Databases, users, roles, grants and views (§5.2, §5.3), from after CREATE, DROP, GRANT, REVOKE
// or SET. They parse whole so that the executor can answer NOT_SUPPORTED for a well-formed
// statement and a syntax error for a malformed one, as GridDB does.

import type { SqlStatement } from './ast-statements.ts';
import type { SqlCursor } from './cursor.ts';
import type { SqlPosition } from './errors.ts';
import { parseIfExists } from './parse-ddl.ts';
import { parseSelect } from './parse-select.ts';

/** CREATE DATABASE/USER/ROLE/[FORCE] VIEW, or undefined if another word follows CREATE. */
export function parseCreateAdministration(cursor: SqlCursor, position: SqlPosition):
  SqlStatement | undefined {
  if (cursor.acceptKeyword('DATABASE')) {
    return { kind: 'createDatabase', name: cursor.expectName('a database name'), position };
  }
  if (cursor.acceptKeyword('ROLE')) {
    return { kind: 'createRole', name: cursor.expectName('a role name'), position };
  }
  if (cursor.acceptKeyword('USER')) {
    const name = cursor.expectName('a user name');
    cursor.expectKeyword('IDENTIFIED');
    cursor.expectKeyword('BY');
    const digest = cursor.acceptKeyword('SHA256');
    const password = cursor.expectString(digest ? 'a SHA-256 hex string' : 'a password string');
    return { kind: 'createUser', name, password, ...(digest ? { digest } : {}), position };
  }
  const force = cursor.acceptKeyword('FORCE');
  if (force && !cursor.isKeyword('VIEW')) cursor.fail('VIEW');
  if (!cursor.acceptKeyword('VIEW')) return undefined;
  const name = cursor.expectName('a view name');
  cursor.expectKeyword('AS');
  return { kind: 'createView', force, name, query: parseSelect(cursor), position };
}

/** DROP DATABASE/USER/ROLE/VIEW, or undefined if another word follows DROP. */
export function parseDropAdministration(cursor: SqlCursor, position: SqlPosition):
  SqlStatement | undefined {
  if (cursor.acceptKeyword('DATABASE')) {
    return { kind: 'dropDatabase', name: cursor.expectName('a database name'), position };
  }
  if (cursor.acceptKeyword('ROLE')) {
    return { kind: 'dropRole', name: cursor.expectName('a role name'), position };
  }
  if (cursor.acceptKeyword('USER')) {
    return { kind: 'dropUser', name: cursor.expectName('a user name'), position };
  }
  if (!cursor.acceptKeyword('VIEW')) return undefined;
  const ifExists = parseIfExists(cursor);
  return { kind: 'dropView', ifExists, name: cursor.expectName('a view name'), position };
}

/** GRANT {SELECT|ALL} ON db TO name; REVOKE {SELECT|ALL} ON db FROM name. */
export function parseGrantRest(cursor: SqlCursor, kind: 'grant' | 'revoke', position: SqlPosition):
  SqlStatement {
  let privilege: 'SELECT' | 'ALL' = 'ALL';
  if (cursor.acceptKeyword('SELECT')) privilege = 'SELECT';
  else if (!cursor.acceptKeyword('ALL')) cursor.fail('SELECT or ALL');
  cursor.expectKeyword('ON');
  const database = cursor.expectName('a database name');
  cursor.expectKeyword(kind === 'grant' ? 'TO' : 'FROM');
  const grantee = cursor.expectName('a user or role name');
  return { kind, privilege, database, grantee, position };
}

/** SET PASSWORD [FOR user] = [SHA256] 'pw'. */
export function parseSetPasswordRest(cursor: SqlCursor, position: SqlPosition): SqlStatement {
  cursor.expectKeyword('PASSWORD');
  const user = cursor.acceptKeyword('FOR') ? cursor.expectName('a user name') : undefined;
  cursor.expectOperator('=');
  const digest = cursor.acceptKeyword('SHA256');
  const password = cursor.expectString(digest ? 'a SHA-256 hex string' : 'a password string');
  return { kind: 'setPassword', user, password, ...(digest ? { digest } : {}), position };
}
