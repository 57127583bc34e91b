// General users, databases and privileges (spec §4.7, §5.3): the node-wide catalog that
// CREATE/DROP USER, SET PASSWORD, CREATE/DROP DATABASE, GRANT and REVOKE change, with GridDB's
// rules and error codes (server/transaction_service_user.cpp's handlers). Administrators are not
// here: they live in conf/password (lib/config/users.ts) as in GridDB.
//
// An AccessCatalog is immutable: every change returns the next catalog, so the node persists the
// next one (access-file.ts) before it puts it in force, and a failed write leaves the old one.
// Names are case-insensitive for identity and keep the spelling they were created with (§4.6).

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import {
  DATABASE_COUNT_MAX, DATABASE_NAME_LENGTH_MAX, GENERAL_USER_COUNT_MAX, PASSWORD_BYTES_MAX,
  USER_NAME_LENGTH_MAX,
} from '../base/limits.ts';
import { DATABASE_ID_DROPPED } from '../schema/database-names.ts';

/** GRANT's SELECT is READ, as GridDB stores it (gs_sh's grantacl READ, gs_export's acl role). */
export type Privilege = 'ALL' | 'READ';

export interface GeneralUser {
  readonly name: string;
  /** Lower-case hex SHA-256 of the password: what the GridDB client sends at LOGIN. */
  readonly passwordSha256Hex: string;
  /**
   * PostgreSQL's SCRAM-SHA-256 verifier text (lib/config/scram-verifiers.ts); absent for a user
   * made from a SHA-256 digest alone (GridDB's PUT_USER, gs_import --acl) until SET PASSWORD.
   */
  readonly scramVerifier?: string;
}

export interface Grant {
  readonly user: string;
  readonly privilege: Privilege;
}

export interface DatabaseEntry {
  readonly name: string;
  /** GridDB's database id: `public` is 0, created databases count on from 1, never reused. */
  readonly id: number;
  readonly grants: readonly Grant[];
}

/** Who asks: an administrator (conf/password) or a general user, logged in to a database. */
export interface Principal {
  readonly user: string;
  readonly admin: boolean;
  readonly database: string;
}

export const DATABASE_PUBLIC = 'public';
const DATABASES_RESERVED = ['public', 'information_schema'];
const USERS_RESERVED = ['admin', 'system'];
/** §4.6: letters, digits and _, not starting with a digit (SQL's unquoted names). */
const GENERAL_USER_NAME = new RegExp(`^[A-Za-z_][A-Za-z0-9_]{0,${USER_NAME_LENGTH_MAX - 1}}$`);
const DATABASE_NAME = new RegExp(`^[A-Za-z_][A-Za-z0-9_]{0,${DATABASE_NAME_LENGTH_MAX - 1}}$`);

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Throws TXN_OPERATION_NOT_ALLOWED unless `actor` is an administrator. */
export function requireAdmin(actor: Principal, what: string): void {
  if (!actor.admin) {
    throw new StorageError('TXN_OPERATION_NOT_ALLOWED',
      `${what}: only an administrator may manage users and databases ` +
      `(user ${actor.user} is not one)`);
  }
}

export class AccessCatalog {
  static readonly EMPTY = new AccessCatalog([], [], 1);

  constructor(
    readonly users: readonly GeneralUser[],
    readonly databases: readonly DatabaseEntry[],
    /** The id the next created database gets. */
    readonly nextDatabaseId: number,
  ) {
    assert(users.length <= GENERAL_USER_COUNT_MAX);
    assert(databases.length <= DATABASE_COUNT_MAX);
    assert(nextDatabaseId >= 1);
  }

  user(name: string): GeneralUser | undefined {
    return this.users.find((user) => sameName(user.name, name));
  }

  database(name: string): DatabaseEntry | undefined {
    return this.databases.find((database) => sameName(database.name, name));
  }

  /** The user's privilege on a created database; undefined for none. */
  privilege(user: string, database: string): Privilege | undefined {
    return this.database(database)?.grants.find((grant) => sameName(grant.user, user))?.privilege;
  }

  createUser(actor: Principal, user: Omit<GeneralUser, 'name'> & { name: string }): AccessCatalog {
    requireAdmin(actor, 'CREATE USER');
    userNameCheck(user.name);
    const existing = this.user(user.name);
    if (existing !== undefined) {
      throw new StorageError('TXN_USER_NAME_ALREADY_EXISTS',
        `user ${JSON.stringify(existing.name)} already exists`);
    }
    if (this.users.length >= GENERAL_USER_COUNT_MAX) {
      throw new StorageError('TXN_USER_LIMIT_OVER',
        `a cluster may have at most ${GENERAL_USER_COUNT_MAX} general users`);
    }
    return new AccessCatalog([...this.users, user], this.databases, this.nextDatabaseId);
  }

  /** GridDB drops a user that does not exist without a word, and the user's grants with it. */
  dropUser(actor: Principal, name: string): AccessCatalog {
    requireAdmin(actor, 'DROP USER');
    userNameCheck(name);
    if (this.user(name) === undefined) return this;
    return new AccessCatalog(this.users.filter((user) => !sameName(user.name, name)),
      this.databases.map((database) => ({
        ...database, grants: database.grants.filter((grant) => !sameName(grant.user, name)),
      })), this.nextDatabaseId);
  }

  /** SET PASSWORD: an administrator for any general user, a general user for itself. */
  setPassword(actor: Principal, target: string, password: Omit<GeneralUser, 'name'>):
    AccessCatalog {
    if (!actor.admin && !sameName(actor.user, target)) {
      throw new StorageError('TXN_OPERATION_NOT_ALLOWED',
        `SET PASSWORD: user ${actor.user} may change only its own password`);
    }
    const existing = this.user(target);
    if (existing === undefined) {
      throw new StorageError('TXN_USER_NOT_EXIST', `user ${JSON.stringify(target)} does not exist` +
        (actor.admin ? ' (an administrator\'s password is changed with gs_passwd)' : ''));
    }
    return new AccessCatalog(this.users.map((user) => user === existing
      ? { ...password, name: existing.name } : user), this.databases, this.nextDatabaseId);
  }

  /** CREATE DATABASE of an existing name does nothing (spec §5.2). */
  createDatabase(actor: Principal, name: string): AccessCatalog {
    requireAdmin(actor, 'CREATE DATABASE');
    databaseNameCheck(name);
    if (this.database(name) !== undefined) return this;
    if (this.databases.length >= DATABASE_COUNT_MAX) {
      throw new StorageError('TXN_DATABASE_LIMIT_OVER',
        `a cluster may have at most ${DATABASE_COUNT_MAX} databases besides public`);
    }
    if (this.nextDatabaseId >= DATABASE_ID_DROPPED) {
      throw new StorageError('TXN_DATABASE_LIMIT_OVER', 'database ids are used up');
    }
    const entry: DatabaseEntry = { name, id: this.nextDatabaseId, grants: [] };
    return new AccessCatalog(this.users, [...this.databases, entry], this.nextDatabaseId + 1);
  }

  dropDatabase(actor: Principal, name: string): AccessCatalog {
    requireAdmin(actor, 'DROP DATABASE');
    databaseNameCheck(name);
    this.existingDatabase(name);
    return new AccessCatalog(this.users,
      this.databases.filter((database) => !sameName(database.name, name)), this.nextDatabaseId);
  }

  /** One privilege per user per database: GRANT of another one is TXN_OTHER_PRIVILEGE_EXISTS. */
  grant(actor: Principal, grant: Grant & { database: string }): AccessCatalog {
    requireAdmin(actor, 'GRANT');
    const database = this.existingDatabase(grant.database);
    const user = this.existingUser(grant.user);
    const held = this.privilege(user.name, database.name);
    if (held === grant.privilege) return this;
    if (held !== undefined) {
      throw new StorageError('TXN_OTHER_PRIVILEGE_EXISTS', `user ${user.name} holds ${held} on ` +
        `database ${database.name}: REVOKE it before granting ${grant.privilege}`);
    }
    return this.withGrants(database, [...database.grants,
      { user: user.name, privilege: grant.privilege }]);
  }

  /** REVOKE of a privilege the user does not hold does nothing. */
  revoke(actor: Principal, grant: Grant & { database: string }): AccessCatalog {
    requireAdmin(actor, 'REVOKE');
    const database = this.existingDatabase(grant.database);
    const user = this.existingUser(grant.user);
    if (this.privilege(user.name, database.name) !== grant.privilege) return this;
    return this.withGrants(database, database.grants.filter((held) =>
      !sameName(held.user, user.name)));
  }

  private withGrants(database: DatabaseEntry, grants: Grant[]): AccessCatalog {
    return new AccessCatalog(this.users, this.databases.map((entry) => entry === database
      ? { ...entry, grants } : entry), this.nextDatabaseId);
  }

  private existingDatabase(name: string): DatabaseEntry {
    if (isReservedDatabase(name)) {
      throw new StorageError('TXN_DATABASE_NAME_INVALID',
        `database ${JSON.stringify(name)} is reserved: it cannot be dropped and takes no grants`);
    }
    const database = this.database(name);
    if (database === undefined) {
      throw new StorageError('TXN_DATABASE_NOT_EXIST',
        `database ${JSON.stringify(name)} does not exist`);
    }
    return database;
  }

  private existingUser(name: string): GeneralUser {
    const user = this.user(name);
    if (user === undefined) {
      throw new StorageError('TXN_USER_NOT_EXIST', `user ${JSON.stringify(name)} does not exist`);
    }
    return user;
  }
}

function isReservedDatabase(name: string): boolean {
  const lower = name.toLowerCase();
  return DATABASES_RESERVED.includes(lower) || lower.startsWith('gs#');
}

export function userNameCheck(name: string): void {
  if (USERS_RESERVED.includes(name.toLowerCase()) || !GENERAL_USER_NAME.test(name)) {
    throw new StorageError('TXN_USER_NAME_INVALID', `${JSON.stringify(name)} cannot be a general ` +
      'user name: letters, digits and _, not starting with a digit, at most ' +
      `${USER_NAME_LENGTH_MAX} ` +
      'characters, and not admin or system');
  }
}

function databaseNameCheck(name: string): void {
  if (isReservedDatabase(name) || !DATABASE_NAME.test(name)) {
    throw new StorageError('TXN_DATABASE_NAME_INVALID', `${JSON.stringify(name)} cannot be a ` +
      'database name: letters, digits and _, not starting with a digit, at most ' +
      `${DATABASE_NAME_LENGTH_MAX} characters, and not public, information_schema or gs#...`);
  }
}

/** SQL's CREATE USER and SET PASSWORD take ASCII passwords (spec §4.6, §5.2). */
export function generalPasswordCheck(password: string): void {
  if (password.length === 0 || password.length > PASSWORD_BYTES_MAX ||
    !/^[\x20-\x7e]*$/.test(password)) {
    throw new StorageError('USER_INVALID', 'a general user\'s password is 1 to ' +
      `${PASSWORD_BYTES_MAX} printable ASCII characters`);
  }
}
