// The user sub-commands (spec/surface.md §6.2): showuser, createuser, dropuser, setpassword. In
// store every user is an administrator of GS_HOME/conf/password (docs/operations.md "Users"), so
// these edit that file as gs_adduser, gs_deluser and gs_passwd do (lib/config/users.ts): they need
// GS_HOME, the node's own home, and a connection (as GridDB's, which are requests to the node); the
// running node takes a change at its next login. Names are `gs#...`; the built-in admin and
// system change their password with gs_passwd (GridDB's D20354).

import { isStorageError } from '../../lib/base/errors.ts';
import { readConfigText } from '../../lib/config/definition-file.ts';
import { BUILT_IN_USERS, parsePasswordFile } from '../../lib/config/password-file.ts';
import { addUser, changePassword, passwordFilePath, removeUser } from '../../lib/config/users.ts';
import { NodeFileSystem } from '../../lib/io/node-file-system.ts';
import { expectWords, type SubCommand } from './shell-command-table.ts';
import { ShellError } from './shell-messages.ts';
import { columnsText } from './shell-output.ts';
import type { Shell } from './shell.ts';

async function homeOf(shell: Shell): Promise<string> {
  await shell.connection.require();
  const home = shell.env['GS_HOME'];
  if (home === undefined || home === '') {
    throw new ShellError('The users are GS_HOME/conf/password of the node: set GS_HOME to its home.');
  }
  return home;
}

async function edit(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (isStorageError(error)) throw new ShellError(`${error.code}: ${error.message}`);
    throw error;
  }
}

function isBuiltIn(user: string): boolean {
  return (BUILT_IN_USERS as readonly string[]).includes(user);
}

export const USER_COMMANDS: SubCommand[] = [
  {
    name: 'showuser', usage: '[<user>]', summary: 'the users (all administrators in store)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const home = await homeOf(shell);
      const path = passwordFilePath(home);
      const text = readConfigText(new NodeFileSystem(), path);
      if (text === undefined) throw new ShellError(`${path} does not exist.`);
      const wanted = input.words[0]?.text;
      const users = parsePasswordFile(text, path).map((entry) => entry.user)
        .filter((user) => wanted === undefined || user === wanted);
      if (wanted !== undefined && users.length === 0) {
        throw new ShellError(`The user "${wanted}" does not exist.`);
      }
      shell.io.out(columnsText([['Name', 'Type'], ...users.map((user) => [user, 'Administrator'])], [20]));
    },
  },
  {
    name: 'createuser', usage: '<user> <password>', summary: 'add a user (gs#name) to the node\'s password file',
    async run(shell, input) {
      expectWords(input, 2);
      const home = await homeOf(shell);
      const [user, password] = input.words.map((word) => word.text);
      await edit(() => addUser(new NodeFileSystem(), home, { user: user!, password: password! }));
    },
  },
  {
    name: 'dropuser', usage: '<user>', summary: 'remove a user from the node\'s password file',
    async run(shell, input) {
      expectWords(input, 1);
      const home = await homeOf(shell);
      await edit(() => removeUser(new NodeFileSystem(), home, input.words[0]!.text));
    },
  },
  {
    name: 'setpassword', usage: '[<user>] <password>', summary: 'change your password, or a user\'s',
    async run(shell, input) {
      expectWords(input, 1, 2);
      const home = await homeOf(shell);
      const self = shell.connection.current!.credentials.user;
      const [user, password] = input.words.length === 2
        ? [input.words[0]!.text, input.words[1]!.text] : [self, input.words[0]!.text];
      if (isBuiltIn(user)) {
        throw new ShellError(`D20354: To change the administrator "${user}" password, execute gs_passwd ` +
          'operating command.');
      }
      await edit(() => changePassword(new NodeFileSystem(), home, { user, password }));
      if (user === self) {
        shell.credentials = { user, password };
        shell.connection.passwordChanged(password);
      }
    },
  },
];
