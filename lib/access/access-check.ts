// The one privilege check every interface goes through (spec §4.7; GridDB's
// ConnectionOption::checkPrivilegeForOperator and checkSelect): each request of the node's
// RequestRunner — the client protocol, TQL, SQL, and through them the web API, gs_sh,
// gs_export/gs_import and the PostgreSQL protocol — is one of read, write or DDL, and
//
//   administrator                         everything, in every database
//   any user, in public                   read, write, DDL (public is open to all, §4.6)
//   general user with ALL on the database read, write, DDL
//   general user with READ (SELECT)       read only
//   general user without a privilege      nothing (its login is refused already)
//
// Managing users and databases is the access catalog's own check (access-catalog.ts).

import { StorageError } from '../base/errors.ts';
import { MessageType } from '../protocol/message-types.ts';
import type { SqlStatement } from '../sql/ast-statements.ts';
import { DATABASE_PUBLIC, type AccessCatalog, type Principal } from './access-catalog.ts';

export type AccessOperation = 'read' | 'write' | 'ddl';

/** Throws TXN_DB_ACCESS_INVALID unless `principal` may do `operation` where it is logged in. */
export function accessCheck(catalog: AccessCatalog, principal: Principal,
  operation: AccessOperation): void {
  if (principal.admin || principal.database.toLowerCase() === DATABASE_PUBLIC) return;
  const privilege = catalog.privilege(principal.user, principal.database);
  if (privilege === 'ALL' || (privilege === 'READ' && operation === 'read')) return;
  throw new StorageError('TXN_DB_ACCESS_INVALID', `user ${principal.user} may not ` +
    `${OPERATION_TEXT[operation]} in database ${principal.database}: it holds ` +
    `${privilege ?? 'no privilege'} there${privilege === 'READ' ? ' (ALL is needed)' : ''}`);
}

const OPERATION_TEXT: Record<AccessOperation, string> = {
  read: 'read', write: 'write', ddl: 'create, drop or change containers',
};

/**
 * What a client-protocol request does; undefined for requests that touch no data by themselves
 * (the handshake, PING, sessions, COMMIT and ABORT of writes already checked, FETCH and
 * RESULT_CLOSE of a result already checked, SQL_EXECUTE, which is checked by its statement).
 */
export function messageOperation(messageType: number): AccessOperation | undefined {
  return MESSAGE_OPERATIONS.get(messageType);
}

const MESSAGE_OPERATIONS: ReadonlyMap<number, AccessOperation> = new Map([
  [MessageType.CONTAINER_INFO, 'read'], [MessageType.CONTAINER_LIST, 'read'],
  [MessageType.LOG_SYNC, 'read'],
  [MessageType.ROW_GET, 'read'], [MessageType.MULTI_GET, 'read'], [MessageType.QUERY, 'read'],
  [MessageType.ROW_PUT, 'write'], [MessageType.ROW_REMOVE, 'write'],
  [MessageType.MULTI_PUT, 'write'],
  [MessageType.CONTAINER_PUT, 'ddl'], [MessageType.CONTAINER_DROP, 'ddl'],
  [MessageType.CREATE_INDEX, 'ddl'], [MessageType.DROP_INDEX, 'ddl'],
]);

/** An SQL statement's operation, or 'access' for the statements of the access catalog. */
export function sqlStatementOperation(statement: SqlStatement): AccessOperation | 'access' {
  switch (statement.kind) {
    case 'select': return 'read';
    case 'explain': return sqlStatementOperation(statement.statement);
    case 'insert': case 'update': case 'delete': return 'write';
    // A view is DDL to make or drop, and a read to SELECT (GridDB grants per database, not per
    // table: a view needs nothing on the tables it reads beyond that).
    case 'createView': case 'dropView': return 'ddl';
    case 'createDatabase': case 'dropDatabase': case 'createUser': case 'dropUser':
    case 'setPassword': case 'grant': case 'revoke':
      return 'access';
    default: return 'ddl';
  }
}
