// GridDB's statements that change users, databases and privileges (the C client has no call that
// sends them; they are read as GridDB's server reads them): PUT_USER 155, DROP_USER 156,
// PUT_DATABASE 158, DROP_DATABASE 159, PUT_PRIVILEGE 160, DROP_PRIVILEGE 161. Each runs as the
// store SQL statement that does the same (CREATE USER / SET PASSWORD … SHA256 'digest', CREATE
// DATABASE, DROP USER, DROP DATABASE, GRANT, REVOKE), sent through the
// connection's engine, so the access runner (lib/server/access-runner.ts) applies it with the
// checks, limits and GridDB error codes of store's own SQL (docs/operations.md). Bodies after
// the statement id (GridDB's server/transaction_service.h InMessage of each handler,
// user_management.cpp decodeDatabaseInfo):
//
//   PUT_USER        | optional request | userName str | property i8 | withDigest i8 |
//                     (digest str if withDigest) | modifiable i8 |
//   DROP_USER       | optional request | userName str |
//   DROP_DATABASE   | optional request | dbName str |
//   PUT_DATABASE    | optional request | database | modifiable i8 (must be 0) |
//   PUT_PRIVILEGE,  | optional request | database (exactly one privilege) |
//   DROP_PRIVILEGE
//     database      | dbName str | property i8 | count i32 | (userName str | privilege str)… |
//   reply           empty
//
// str is GridDB's string (griddb-frame.ts). privilege is "ALL" or "READ" (store's SQL GRANT ALL /
// SELECT). As in GridDB (DbUserHandler): the statement goes to partition 0, else CM_INTERNAL_ERROR;
// PUT_DATABASE carries no privileges and modifiable false, a privilege statement exactly one
// privilege, else TXN_MESSAGE_INVALID. A name that is no SQL identifier is refused here with
// GridDB's name code before any SQL is made of it.
//
// PUT_USER's digest is the SHA-256 hex of the password (GridDB's clients send nothing else):
// modifiable 0 creates the user (CREATE USER u IDENTIFIED BY SHA256 'digest'), 1 changes its
// password (SET PASSWORD FOR u = SHA256 'digest'); without a digest it is TXN_MESSAGE_INVALID. A
// user made so has no SCRAM verifier until a SET PASSWORD with the password itself, so the
// PostgreSQL port refuses it until then (docs/operations.md). GET_USERS (154) and GET_DATABASES
// (157) are answered from the access catalog (griddb-access-lists.ts).

import { ByteReader } from '../../encoding/byte-reader.ts';
import { SQL_EXECUTE } from '../../protocol/messages-sql.ts';
import type { GriddbEngine } from './griddb-engine.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError, griddbDecode, griddbStringRead } from './griddb-frame.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';
import { GriddbStatement } from './griddb-statements.ts';

/** Privileges a database entry may list (GridDB sends at most one per user; store has two kinds). */
const PRIVILEGES_MAX = 128;
/** Store's names of users and databases: letters, digits and _, not a digit first. */
const SQL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const PRIVILEGE_SQL = new Map([['ALL', 'ALL'], ['READ', 'SELECT']]);

export type GriddbAccessStatement =
  | { kind: 'putUser'; user: string; digest: string; modifiable: boolean }
  | { kind: 'dropUser'; user: string }
  | { kind: 'dropDatabase'; database: string }
  | { kind: 'putDatabase'; database: string }
  | { kind: 'grant' | 'revoke'; database: string; user: string; privilege: string };

export function griddbAccessStatementDecode(type: number, body: Uint8Array):
  GriddbAccessStatement {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    griddbOptionalRequestSkip(reader);
    let statement: GriddbAccessStatement;
    switch (type) {
      case GriddbStatement.PUT_USER: {
        const user = griddbStringRead(reader, 'user name');
        reader.i8(); // property: GridDB's, unused
        const digest = reader.i8() !== 0 ? griddbStringRead(reader, 'digest') : undefined;
        const modifiable = reader.i8() !== 0;
        if (digest === undefined) {
          throw new GriddbError(GriddbErrorCode.TXN_MESSAGE_INVALID, `PUT_USER of "${user}" ` +
            'without a password digest: store keeps users only with one');
        }
        statement = { kind: 'putUser', user, digest, modifiable };
        break;
      }
      case GriddbStatement.DROP_USER:
        statement = { kind: 'dropUser', user: griddbStringRead(reader, 'user name') };
        break;
      case GriddbStatement.DROP_DATABASE:
        statement = { kind: 'dropDatabase', database: griddbStringRead(reader, 'database name') };
        break;
      case GriddbStatement.PUT_DATABASE: {
        const { database, privileges } = databaseRead(reader);
        const modifiable = reader.i8() !== 0;
        if (privileges.length !== 0 || modifiable) {
          throw new GriddbError(GriddbErrorCode.TXN_MESSAGE_INVALID, `PUT_DATABASE of ` +
            `"${database}" with ${privileges.length} privileges and modifiable ${modifiable}: ` +
            'GridDB takes none and false');
        }
        statement = { kind: 'putDatabase', database };
        break;
      }
      case GriddbStatement.PUT_PRIVILEGE:
      case GriddbStatement.DROP_PRIVILEGE: {
        const { database, privileges } = databaseRead(reader);
        const [privilege] = privileges;
        if (privileges.length !== 1 || privilege === undefined) {
          throw new GriddbError(GriddbErrorCode.TXN_MESSAGE_INVALID, `a privilege statement ` +
            `names exactly one privilege (this one ${privileges.length})`);
        }
        statement = { kind: type === GriddbStatement.PUT_PRIVILEGE ? 'grant' : 'revoke',
          database, ...privilege };
        break;
      }
      default:
        throw new GriddbFrameError(`statement ${type} is not one of users and databases`);
    }
    reader.expectEnd();
    return statement;
  });
}

function databaseRead(reader: ByteReader):
  { database: string; privileges: Array<{ user: string; privilege: string }> } {
  const database = griddbStringRead(reader, 'database name');
  reader.i8(); // property: GridDB's, unused
  const count = reader.i32();
  if (count < 0 || count > PRIVILEGES_MAX) {
    throw new GriddbFrameError(`privilege count ${count} is outside 0..${PRIVILEGES_MAX}`);
  }
  const privileges: Array<{ user: string; privilege: string }> = [];
  for (let i = 0; i < count; i++) {
    privileges.push({ user: griddbStringRead(reader, 'user name'),
      privilege: griddbStringRead(reader, 'privilege') });
  }
  return { database, privileges };
}

/** The store SQL statement of a GridDB one; names are checked to be SQL names first. */
export function griddbAccessSql(statement: GriddbAccessStatement): string {
  const user = (name: string): string => sqlName(name, GriddbErrorCode.TXN_USER_NAME_INVALID);
  const database = (name: string): string =>
    sqlName(name, GriddbErrorCode.TXN_DATABASE_NAME_INVALID);
  switch (statement.kind) {
    case 'putUser': {
      if (!/^[0-9a-fA-F]{64}$/.test(statement.digest)) {
        throw new GriddbError(GriddbErrorCode.TXN_MESSAGE_INVALID, `PUT_USER of "${statement.user}": ` +
          'the digest is not 64 hexadecimal digits (a SHA-256)');
      }
      return statement.modifiable ? `SET PASSWORD FOR ${user(statement.user)} = SHA256 '${statement.digest}'`
        : `CREATE USER ${user(statement.user)} IDENTIFIED BY SHA256 '${statement.digest}'`;
    }
    case 'dropUser': return `DROP USER ${user(statement.user)}`;
    case 'dropDatabase': return `DROP DATABASE ${database(statement.database)}`;
    case 'putDatabase': return `CREATE DATABASE ${database(statement.database)}`;
    case 'grant':
    case 'revoke': {
      const privilege = PRIVILEGE_SQL.get(statement.privilege.toUpperCase());
      if (privilege === undefined) {
        throw new GriddbError(GriddbErrorCode.TXN_MESSAGE_INVALID, `privilege ` +
          `${JSON.stringify(statement.privilege)} is not ALL or READ`);
      }
      const on = `${privilege} ON ${database(statement.database)}`;
      return statement.kind === 'grant' ? `GRANT ${on} TO ${user(statement.user)}`
        : `REVOKE ${on} FROM ${user(statement.user)}`;
    }
  }
}

function sqlName(name: string, code: GriddbErrorCode): string {
  if (!SQL_NAME.test(name)) {
    throw new GriddbError(code, `${JSON.stringify(name)} is not a name store allows (letters, ` +
      'digits and _, not starting with a digit, at most 64)');
  }
  return name;
}

/** Runs one of the statements on the connection's engine (partition 0, as GridDB requires). */
export async function griddbAccessStatementRun(engine: GriddbEngine, type: number,
  partitionId: number, body: Uint8Array): Promise<void> {
  if (partitionId !== 0) {
    throw new GriddbError(GriddbErrorCode.CM_INTERNAL_ERROR,
      `statement ${type} goes to partition 0, not ${partitionId}`);
  }
  const sql = griddbAccessSql(griddbAccessStatementDecode(type, body));
  await engine.call(SQL_EXECUTE, { sql, fetchSize: 1, timeoutMs: 0, parameters: [] });
}
