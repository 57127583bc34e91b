// GridDB's GET_USERS 154 and GET_DATABASES 157, answered from the node's access catalog
// (lib/access/) as GridDB's server answers them from its GS_USERS and GS_DATABASES containers
// (server/user_management.cpp GetUsersHandler, GetDatabasesHandler). Bodies after the statement
// id, and replies after the result byte (transaction_service.h InMessage / OutMessage):
//
//   GET_USERS      | optional request | withFilter i8 | (userName str | property i8) if withFilter |
//   reply          | count u32 | count × (userName str | property i8 | withDigest i8 | digest str) |
//                  | count × (isGroupMapping i8 = 0 | roleName str = "") if feature version >= 4 |
//   GET_DATABASES  | optional request | withFilter i8 | (dbName str | property i8) if withFilter |
//   reply          | count u32 | count × (dbName str | property i8 = 0 | privileges u32 |
//                  |   privileges × (userName str | privilege str)) |
//
// "feature version" is the request's ACCEPTABLE_FEATURE_VERSION (griddb-optional-request.ts).
// Who sees what, as in GridDB:
// - GET_USERS: an administrator without a filter gets every general user (property 0, with the
//   SHA-256 digest of the password); with a filter, which must name the connection's own user,
//   the administrator gets itself (property 1, no digest). A general user must name itself
//   (else TXN_MESSAGE_INVALID) and gets itself with its digest, or TXN_CURRENT_USER_REMOVED when
//   it was dropped since its login. Administrators live in conf/password and are never listed.
// - GET_DATABASES: a filter must name the connection's database (an empty name is `public`),
//   else TXN_DATABASE_NAME_INVALID. `public` is listed with ALL for every general user (for a
//   general user: for itself). Else an administrator gets every created database (or the one
//   named) with all its grants, a general user the databases it has a grant on, with only its own;
//   a named database dropped since the login is TXN_CURRENT_DATABASE_REMOVED. A client before
//   GridDB 4.3 (feature version < 3) cannot read a READ privilege or more than one privilege a
//   database: such a list is DS_CON_ACCESS_INVALID.
// Both go to partition 0, else CM_INTERNAL_ERROR.

import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import {
  DATABASE_PUBLIC, type AccessCatalog, type DatabaseEntry, type Grant, type Principal,
} from '../../access/access-catalog.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { griddbDecode, griddbStringRead, griddbStringWrite } from './griddb-frame.ts';
import { griddbOptionalRequestFeatureVersion } from './griddb-optional-request.ts';
import { GriddbStatement } from './griddb-statements.ts';

/** StatementMessage::FEATURE_V4_3 and FEATURE_V4_5 of GridDB's server. */
const FEATURE_V4_3 = 3;
const FEATURE_V4_5 = 4;
/** GS_USERS' property: 0 a general user, 1 an administrator. */
const PROPERTY_USER_NORMAL = 0;
const PROPERTY_USER_ADMIN = 1;
const PROPERTY_DATABASE = 0;

interface ListRequest {
  featureVersion: number;
  /** The filter's name; undefined without a filter. */
  name: string | undefined;
}

interface UserInfo {
  name: string;
  property: number;
  /** Empty for an administrator (GridDB sends withDigest false then). */
  digestHex: string;
}

interface DatabaseInfo {
  name: string;
  grants: readonly Grant[];
}

function listRequestDecode(body: Uint8Array, what: string): ListRequest {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    const featureVersion = griddbOptionalRequestFeatureVersion(reader);
    let name: string | undefined;
    if (reader.i8() !== 0) {
      name = griddbStringRead(reader, what);
      reader.i8(); // property: GridDB's, unused
    }
    reader.expectEnd();
    return { featureVersion, name };
  });
}

function partitionCheck(type: number, partitionId: number): void {
  if (partitionId !== 0) {
    throw new GriddbError(GriddbErrorCode.CM_INTERNAL_ERROR,
      `statement ${type} goes to partition 0, not ${partitionId}`);
  }
}

/** GET_USERS: the reply's writer, or GridDB's refusal. */
export function griddbGetUsersRun(catalog: AccessCatalog, principal: Principal,
  partitionId: number, body: Uint8Array): (writer: ByteWriter) => void {
  partitionCheck(GriddbStatement.GET_USERS, partitionId);
  const { featureVersion, name } = listRequestDecode(body, 'user name');
  if (name !== undefined && name !== principal.user) {
    throw new GriddbError(GriddbErrorCode.TXN_MESSAGE_INVALID, `GET_USERS of ` +
      `${JSON.stringify(name)}: a filter names the connection's own user (${principal.user})`);
  }
  let users: UserInfo[];
  if (principal.admin) {
    users = name !== undefined
      ? [{ name, property: PROPERTY_USER_ADMIN, digestHex: '' }]
      : catalog.users.map((user) => ({ name: user.name, property: PROPERTY_USER_NORMAL,
        digestHex: user.passwordSha256Hex }));
  } else {
    if (name === undefined || name === '') {
      throw new GriddbError(GriddbErrorCode.TXN_MESSAGE_INVALID,
        'GET_USERS of a general user must name the user');
    }
    const user = catalog.user(name);
    if (user === undefined) {
      throw new GriddbError(GriddbErrorCode.TXN_CURRENT_USER_REMOVED,
        `user ${JSON.stringify(name)} was dropped`);
    }
    users = [{ name: user.name, property: PROPERTY_USER_NORMAL,
      digestHex: user.passwordSha256Hex }];
  }
  return (writer) => {
    writer.u32(users.length);
    for (const user of users) {
      griddbStringWrite(writer, user.name);
      writer.i8(user.property);
      writer.i8(user.digestHex === '' ? 0 : 1);
      griddbStringWrite(writer, user.digestHex);
    }
    if (featureVersion >= FEATURE_V4_5) {
      for (let i = 0; i < users.length; i++) {
        writer.i8(0); // isGroupMapping: store has no LDAP
        griddbStringWrite(writer, ''); // roleName
      }
    }
  };
}

/** GET_DATABASES: the reply's writer, or GridDB's refusal. */
export function griddbGetDatabasesRun(catalog: AccessCatalog, principal: Principal,
  partitionId: number, body: Uint8Array): (writer: ByteWriter) => void {
  partitionCheck(GriddbStatement.GET_DATABASES, partitionId);
  const request = listRequestDecode(body, 'database name');
  const name = request.name === '' ? DATABASE_PUBLIC : request.name;
  if (name !== undefined && name !== principal.database) {
    throw new GriddbError(GriddbErrorCode.TXN_DATABASE_NAME_INVALID, `GET_DATABASES of ` +
      `${JSON.stringify(name)}: a filter names the connection's database (${principal.database})`);
  }
  let databases: DatabaseInfo[];
  if (name === DATABASE_PUBLIC) {
    const users = principal.admin ? catalog.users.map((user) => user.name)
      : [catalog.user(principal.user)?.name].filter((user) => user !== undefined);
    databases = [{ name: DATABASE_PUBLIC,
      grants: users.map((user) => ({ user, privilege: 'ALL' as const })) }];
  } else {
    const entries: readonly DatabaseEntry[] = name === undefined ? catalog.databases
      : [catalog.database(name)].filter((entry) => entry !== undefined);
    databases = principal.admin ? entries.map((entry) => ({ name: entry.name, grants: entry.grants }))
      : entries.flatMap((entry) => {
        const own = entry.grants.filter((grant) =>
          grant.user.toLowerCase() === principal.user.toLowerCase());
        return own.length === 0 ? [] : [{ name: entry.name, grants: own }];
      });
    if (name !== undefined && databases.length === 0) {
      throw new GriddbError(GriddbErrorCode.TXN_CURRENT_DATABASE_REMOVED,
        `database ${JSON.stringify(name)} was dropped or grants this user nothing`);
    }
  }
  if (request.featureVersion < FEATURE_V4_3 && databases.some((database) =>
    database.grants.length > 1 || database.grants.some((grant) => grant.privilege === 'READ'))) {
    throw new GriddbError(GriddbErrorCode.DS_CON_ACCESS_INVALID, 'a client before GridDB 4.3 ' +
      'cannot read a READ privilege or more than one privilege of a database');
  }
  return (writer) => {
    writer.u32(databases.length);
    for (const database of databases) {
      griddbStringWrite(writer, database.name);
      writer.i8(PROPERTY_DATABASE);
      writer.u32(database.grants.length);
      for (const grant of database.grants) {
        griddbStringWrite(writer, grant.user);
        griddbStringWrite(writer, grant.privilege);
      }
    }
  };
}

