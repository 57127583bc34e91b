// The user and database sub-commands (spec/surface.md §6.2): createuser, dropuser, setpassword,
// showuser, createdatabase, dropdatabase, grantacl, revokeacl, showdatabase. As in GridDB they
// manage general users, databases and access rights on the node (lib/access/), through the
// connection: each runs the SQL statement of §5.2/§5.3 (CREATE USER, GRANT …), so the node's one
// check decides (an administrator manages everyone; a general user may only change its own
// password). Administrators are conf/password's, managed with gs_adduser, gs_deluser and gs_passwd
// (GridDB's D20354 for setpassword of one). showuser and showdatabase read the node's catalog file
// under GS_HOME (its dbPath's gs_access.json) beside conf/password, as the node of GS_HOME sees them.

import { isStorageError } from '../../lib/base/errors.ts';
import { AccessCatalog } from '../../lib/access/access-catalog.ts';
import { accessFilePath, readAccessFile } from '../../lib/access/access-file.ts';
import { loadConfig } from '../../lib/config/config.ts';
import { readConfigText } from '../../lib/config/definition-file.ts';
import { homePath } from '../../lib/config/home.ts';
import { parsePasswordFile } from '../../lib/config/password-file.ts';
import { passwordFilePath } from '../../lib/config/users.ts';
import { NodeFileSystem } from '../../lib/io/node-file-system.ts';
import { DATABASE_PUBLIC } from './shell-connection.ts';
import { expectWords, type SubCommand } from './shell-command-table.ts';
import { MESSAGES, ShellError } from './shell-messages.ts';
import { columnsText } from './shell-output.ts';
import type { Shell } from './shell.ts';

/** A name as SQL takes it: quoted, so any spelling the node accepts reaches it unchanged. */
function sqlName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Runs one statement on the connection; the node's refusal is the command's error. */
async function runStatement(shell: Shell, sql: string): Promise<void> {
  const store = await shell.connection.require();
  try {
    await store.sql(sql);
  } catch (error) {
    if (isStorageError(error)) throw new ShellError(`${error.code}: ${error.message}`);
    throw error;
  }
}

/** The administrators and the access catalog of the node of GS_HOME. */
async function homeUsers(shell: Shell): Promise<{ administrators: string[]; catalog: AccessCatalog }> {
  await shell.connection.require();
  const home = shell.env['GS_HOME'];
  if (home === undefined || home === '') {
    throw new ShellError('The users are those of the node of GS_HOME: set GS_HOME to its home.');
  }
  const fileSystem = new NodeFileSystem();
  const path = passwordFilePath(home);
  const text = readConfigText(fileSystem, path);
  if (text === undefined) throw new ShellError(`${path} does not exist.`);
  try {
    const { config } = loadConfig(fileSystem, home);
    return {
      administrators: parsePasswordFile(text, path).map((entry) => entry.user),
      catalog: readAccessFile(fileSystem, accessFilePath(homePath(home, config.storage.dbPath))),
    };
  } catch (error) {
    if (isStorageError(error)) throw new ShellError(`${error.code}: ${error.message}`);
    throw error;
  }
}

function privilegeWord(word: string): 'ALL' | 'SELECT' {
  const upper = word.toUpperCase();
  if (upper === 'ALL') return 'ALL';
  if (upper === 'READ') return 'SELECT';
  throw new ShellError(`The privilege must be ALL or READ, not "${word}".`);
}

export const USER_COMMANDS: SubCommand[] = [
  {
    name: 'showuser', usage: '[<user>]', summary: 'the users: administrators and general users with their databases',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const { administrators, catalog } = await homeUsers(shell);
      const wanted = input.words[0]?.text;
      const rows = [
        ...administrators.map((user) => [user, 'Administrator']),
        ...catalog.users.map((user) => [user.name, 'General User']),
      ].filter(([user]) => wanted === undefined || user === wanted);
      if (wanted !== undefined && rows.length === 0) throw new ShellError(`The user "${wanted}" does not exist.`);
      if (wanted !== undefined && rows[0]![1] === 'General User') {
        const grants = catalog.databases.flatMap((database) => database.grants
          .filter((grant) => grant.user === wanted).map((grant) => [database.name, grant.privilege]));
        shell.io.out(columnsText([['Name', 'Type'], ...rows], [20]));
        shell.io.out(columnsText([['Database', 'Privilege'], ['public', 'ALL'], ...grants], [20]));
        return;
      }
      shell.io.out(columnsText([['Name', 'Type'], ...rows], [20]));
    },
  },
  {
    name: 'createuser', usage: '<user> <password>', summary: 'create a general user (administrators only)',
    async run(shell, input) {
      expectWords(input, 2);
      const [user, password] = input.words.map((word) => word.text);
      await runStatement(shell, `CREATE USER ${sqlName(user!)} IDENTIFIED BY ${sqlString(password!)}`);
    },
  },
  {
    name: 'dropuser', usage: '<user>', summary: 'drop a general user and its access rights (administrators only)',
    async run(shell, input) {
      expectWords(input, 1);
      await runStatement(shell, `DROP USER ${sqlName(input.words[0]!.text)}`);
    },
  },
  {
    name: 'setpassword', usage: '[<user>] <password>', summary: 'change your password, or a general user\'s',
    async run(shell, input) {
      expectWords(input, 1, 2);
      const self = shell.connection.current?.credentials.user;
      if (self === undefined) throw new ShellError(MESSAGES.connectionClosed);
      const [user, password] = input.words.length === 2
        ? [input.words[0]!.text, input.words[1]!.text] : [self, input.words[0]!.text];
      const { administrators } = await homeUsers(shell);
      if (administrators.includes(user)) {
        throw new ShellError(`D20354: To change the administrator "${user}" password, execute gs_passwd ` +
          'operating command.');
      }
      await runStatement(shell, user === self ? `SET PASSWORD = ${sqlString(password)}`
        : `SET PASSWORD FOR ${sqlName(user)} = ${sqlString(password)}`);
      if (user === self) {
        shell.credentials = { user, password };
        shell.connection.passwordChanged(password);
      }
    },
  },
  {
    name: 'createdatabase', usage: '<database>', summary: 'create a database (administrators only)',
    async run(shell, input) {
      expectWords(input, 1);
      await runStatement(shell, `CREATE DATABASE ${sqlName(input.words[0]!.text)}`);
    },
  },
  {
    name: 'dropdatabase', usage: '<database>', summary: 'drop a database (administrators only)',
    async run(shell, input) {
      expectWords(input, 1);
      await runStatement(shell, `DROP DATABASE ${sqlName(input.words[0]!.text)}`);
    },
  },
  {
    name: 'grantacl', usage: 'ALL|READ <database> <user>', summary: 'grant a user a privilege on a database',
    async run(shell, input) {
      expectWords(input, 3);
      const [privilege, database, user] = input.words.map((word) => word.text);
      await runStatement(shell, `GRANT ${privilegeWord(privilege!)} ON ${sqlName(database!)} TO ${sqlName(user!)}`);
    },
  },
  {
    name: 'revokeacl', usage: 'ALL|READ <database> <user>', summary: 'revoke a user\'s privilege on a database',
    async run(shell, input) {
      expectWords(input, 3);
      const [privilege, database, user] = input.words.map((word) => word.text);
      await runStatement(shell, `REVOKE ${privilegeWord(privilege!)} ON ${sqlName(database!)} FROM ${sqlName(user!)}`);
    },
  },
  {
    name: 'showdatabase', usage: '[<database>]', summary: 'the databases and their access rights',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const { catalog } = await homeUsers(shell);
      const wanted = input.words[0]?.text;
      const rows: string[][] = [[DATABASE_PUBLIC, 'ALL_USER', '']];
      for (const database of catalog.databases) {
        if (database.grants.length === 0) rows.push([database.name, '', '']);
        for (const grant of database.grants) rows.push([database.name, grant.user, grant.privilege]);
      }
      const shown = rows.filter(([name]) => wanted === undefined || name === wanted);
      if (shown.length === 0) throw new ShellError(MESSAGES.databaseMissing(wanted!));
      shell.io.out(['Name             ACL', '---------------------------------',
        ...shown.map(([name, user, privilege]) => `${name!.padEnd(16)} ${user!.padEnd(15)} ${privilege}`.trimEnd())].join('\n'));
    },
  },
];
