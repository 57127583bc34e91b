// `--acl` and `--prefixdb` of gs_export and gs_import (spec/surface.md §7.5). The ACL file
// `gs_export_acl.json` holds GridDB's general users (never the administrators: GridDB migrates
// those by copying the user definition file) and the access rights of each database:
//
//   {"version":"5.8.0",
//    "user":[{"isRole":false,"username":"user1","password":"<SHA-256 hex>"}, ...],
//    "database":[{"name":"db1","acl":[{"username":"user1","role":"READ"|"ALL"}, ...]}, ...]}
//
// gs_export --acl (administrators only, as in GridDB) writes the general users, databases and
// grants of the node of GS_HOME (its dbPath's gs_access.json, lib/access/access-file.ts).
// gs_import --acl creates the users, databases and grants of the file through SQL (CREATE USER …
// IDENTIFIED BY SHA256 '<digest>', CREATE DATABASE, GRANT), so the node's own rules apply. A user
// the node has already is kept as it is (its password too). A user made from the file has only
// the SHA-256 of its password, so it logs in by every protocol that checks that, and on the
// PostgreSQL port only after a SET PASSWORD makes its SCRAM verifier. Roles (LDAP) are refused.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccessCatalog } from '../lib/access/access-catalog.ts';
import { accessFilePath, readAccessFile } from '../lib/access/access-file.ts';
import type { ClientStore } from '../lib/client/store-factory.ts';
import { loadConfig } from '../lib/config/config.ts';
import { homePath } from '../lib/config/home.ts';
import { readPasswordTable } from '../lib/config/users.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import { DATABASE_PUBLIC, EXPORT_FORMAT_VERSION } from './expimp-metadata.ts';
import { CommandError, EXIT_ARGUMENTS } from './operating-command.ts';

export const EXPORT_ACL_FILE = 'gs_export_acl.json';

export interface AclFile {
  version: string;
  user: Array<{ isRole: boolean; username: string; password?: string }>;
  database: Array<{ name: string; acl: Array<{ username: string; role: string }> }>;
}

/** The file as read, with the users of it this node does not have yet (made by importAcl). */
export type AclImport = AclFile & { usersToCreate: Array<{ username: string; sha256Hex: string }> };

/** The options as GridDB's commands check them: --acl with --all or --db, --prefixdb with -c or --containerregex. */
export function aclOptionsCheck(values: {
  acl?: boolean | undefined; all?: boolean | undefined; db?: string[] | undefined;
  prefixdb?: string | undefined; container?: string[] | undefined; containerregex?: string[] | undefined;
}): void {
  if (values.acl === true && values.all !== true && values.db === undefined) {
    throw new CommandError('D00A46: [--acl] option and [--all] option or [--db] option must be set at same time.',
      EXIT_ARGUMENTS);
  }
  if (values.prefixdb !== undefined) {
    if (values.container === undefined && values.containerregex === undefined) {
      throw new CommandError('D00A42: [--prefixdb] option and [--container] option must be set at same time.',
        EXIT_ARGUMENTS);
    }
  }
}

/** The access catalog of the node of `home`, and whether `user` is one of its administrators. */
export function homeAccessCatalog(home: string, user: string): { catalog: AccessCatalog; admin: boolean } {
  const fileSystem = new NodeFileSystem();
  const { config } = loadConfig(fileSystem, home);
  return {
    catalog: readAccessFile(fileSystem, accessFilePath(homePath(home, config.storage.dbPath))),
    admin: readPasswordTable(fileSystem, home).has(user),
  };
}

function requireAdministrator(admin: boolean, user: string): void {
  if (!admin) {
    throw new CommandError(`--acl is for administrators: ${user} is a general user.`, EXIT_ARGUMENTS);
  }
}

/** Writes the ACL file: the general users of `catalog`, and each database with its rights. */
export function writeAclFile(directory: string, access: { catalog: AccessCatalog; admin: boolean },
  user: string): void {
  requireAdministrator(access.admin, user);
  const acl: AclFile = {
    version: EXPORT_FORMAT_VERSION,
    user: access.catalog.users.map((entry) => ({
      isRole: false, username: entry.name, password: entry.passwordSha256Hex,
    })),
    database: access.catalog.databases.map((database) => ({
      name: database.name,
      acl: database.grants.map((grant) => ({ username: grant.user, role: grant.privilege })),
    })),
  };
  writeFileSync(join(directory, EXPORT_ACL_FILE), JSON.stringify(acl, null, 2) + '\n');
}

/**
 * Reads and checks the ACL file of an export: it must exist (D00235), be GridDB's shape (D0023B),
 * and name nothing this node cannot hold (D00238): a role, a user it does not have, a right other
 * than READ or ALL, or rights on public. Returns what it holds.
 */
export function readAclFile(directory: string, access: { catalog: AccessCatalog; admin: boolean },
  user: string): AclImport {
  requireAdministrator(access.admin, user);
  const path = join(directory, EXPORT_ACL_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CommandError(`D00235: An ACL file does not exist. (${path})`);
  }
  let json: Partial<AclFile>;
  try {
    json = JSON.parse(text) as Partial<AclFile>;
  } catch (error) {
    throw new CommandError(`D0023B: ${path} cannot be read: ${(error as Error).message}`);
  }
  const users = json.user ?? [];
  const databases = json.database ?? [];
  if (!Array.isArray(users) || !Array.isArray(databases)) {
    throw new CommandError(`D0023B: ${path}: "user" and "database" must be arrays`);
  }
  const usersToCreate: AclImport['usersToCreate'] = [];
  users.forEach((entry, i) => {
    const name = typeof entry?.username === 'string' ? entry.username : undefined;
    if (name === undefined) throw new CommandError(`D0023B: ${path}: user[${i}] needs "username"`);
    if (entry.isRole === true) {
      throw new CommandError(`D00238: ${path}: user[${i}] "${name}" is a role (LDAP): not in store; ` +
        'nothing was imported');
    }
    if (access.catalog.user(name) !== undefined) return;
    if (typeof entry.password !== 'string' || !/^[0-9a-fA-F]{64}$/.test(entry.password)) {
      throw new CommandError(`D0023B: ${path}: user[${i}] "${name}" is not on this node and its ` +
        '"password" is not a SHA-256 (64 hexadecimal digits) to make it from; nothing was imported');
    }
    usersToCreate.push({ username: name, sha256Hex: entry.password });
  });
  databases.forEach((database, i) => {
    const name = typeof database?.name === 'string' ? database.name : undefined;
    if (name === undefined) throw new CommandError(`D0023B: ${path}: database[${i}] needs "name"`);
    const rights = Array.isArray(database.acl) ? database.acl : [];
    if (name.toLowerCase() === DATABASE_PUBLIC && rights.length > 0) {
      throw new CommandError(`D00238: ${path}: database[${i}] public grants ${rights.length} rights: ` +
        'public has no ACL (every user has every right); nothing was imported');
    }
    rights.forEach((right, j) => {
      if (typeof right?.username !== 'string' || (right.role !== 'READ' && right.role !== 'ALL')) {
        throw new CommandError(`D0023B: ${path}: database[${i}].acl[${j}] needs "username" and ` +
          'a "role" of READ or ALL');
      }
    });
  });
  return { version: String(json.version ?? ''), user: users, database: databases, usersToCreate };
}

/** Creates the file's users, databases and grants on the node, as SQL statements. */
export async function importAcl(store: ClientStore, acl: AclImport): Promise<void> {
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
  for (const user of acl.usersToCreate) {
    await store.sql(`CREATE USER ${quoted(user.username)} IDENTIFIED BY SHA256 '${user.sha256Hex}'`);
  }
  for (const database of acl.database) {
    if (database.name.toLowerCase() === DATABASE_PUBLIC) continue;
    await store.sql(`CREATE DATABASE ${quoted(database.name)}`);
    for (const right of database.acl) {
      const privilege = right.role === 'ALL' ? 'ALL' : 'SELECT';
      await store.sql(`GRANT ${privilege} ON ${quoted(database.name)} TO ${quoted(right.username)}`);
    }
  }
}
