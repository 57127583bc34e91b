// `--acl` and `--prefixdb` of gs_export and gs_import (spec/surface.md §7.5). The ACL file
// `gs_export_acl.json` holds GridDB's general users (never the administrators: GridDB migrates
// those by copying the user definition file) and the access rights of each database:
//
//   {"version":"5.8.0",
//    "user":[{"isRole":false,"username":"user1","password":"<SHA-256 hex>"}, ...],
//    "database":[{"name":"db1","acl":[{"username":"user1","role":"READ"|"ALL"}, ...]}, ...]}
//
// store has only administrators (GS_HOME/conf/password, docs/operations.md "Users") and only the
// database `public`, on which every user has every right and which has no ACL of its own. So the
// file written lists no user and no database, and an import of a file that names a general user
// or a database's rights (one written by GridDB) is refused before any container is touched:
// they cannot be created here, and making a general user an administrator would widen its rights.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_PUBLIC, EXPORT_FORMAT_VERSION } from './expimp-metadata.ts';
import { CommandError, EXIT_ARGUMENTS } from './operating-command.ts';

export const EXPORT_ACL_FILE = 'gs_export_acl.json';

export interface AclFile {
  version: string;
  user: Array<{ isRole: boolean; username: string; password?: string }>;
  database: Array<{ name: string; acl: Array<{ username: string; role: string }> }>;
}

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
    if (values.prefixdb !== DATABASE_PUBLIC) {
      throw new CommandError(`D00E0D: database "${values.prefixdb}" does not exist (public is the only one).`);
    }
  }
}

/** Writes the ACL file of this node: no general user, no database with rights of its own. */
export function writeAclFile(directory: string): void {
  const acl: AclFile = { version: EXPORT_FORMAT_VERSION, user: [], database: [] };
  writeFileSync(join(directory, EXPORT_ACL_FILE), JSON.stringify(acl, null, 2) + '\n');
}

/**
 * Reads and checks the ACL file of an export: it must exist (D00235), be GridDB's shape (D0023B),
 * and name nothing this node cannot hold (D00238). Returns what it holds.
 */
export function readAclFile(directory: string): AclFile {
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
  users.forEach((user, i) => {
    const name = typeof user?.username === 'string' ? user.username : undefined;
    if (name === undefined) throw new CommandError(`D0023B: ${path}: user[${i}] needs "username"`);
    const kind = user.isRole === true ? 'role' : 'user';
    throw new CommandError(`D00238: ${path}: user[${i}] "${name}" is a general ${kind}` +
      ': this node has administrators only (GS_HOME/conf/password; gs_adduser adds gs#NAME administrators); ' +
      'nothing was imported');
  });
  databases.forEach((database, i) => {
    const name = typeof database?.name === 'string' ? database.name : undefined;
    if (name === undefined) throw new CommandError(`D0023B: ${path}: database[${i}] needs "name"`);
    const rights = Array.isArray(database.acl) ? database.acl.length : 0;
    if (name !== DATABASE_PUBLIC || rights > 0) {
      throw new CommandError(`D00238: ${path}: database[${i}] "${name}"` + (name === DATABASE_PUBLIC
        ? ` grants ${rights} rights: public has no ACL here (every user has every right)`
        : ': public is the only database here') + '; nothing was imported');
    }
  });
  return { version: String(json.version ?? ''), user: users, database: databases };
}
