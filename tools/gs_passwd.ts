// gs_passwd USERNAME [-p PASSWORD]: sets an administrator's password in GS_HOME/conf/password,
// with GridDB's messages: the user must be there (AB0102); the password is asked twice when -p is
// absent (AB0103 when they differ) and must not be empty (AB0104). A running node refuses the old
// password and takes the new one from the next login on.

import { passwordEntriesWithPassword } from '../lib/config/password-file.ts';
import { parseUserArgs, readUsers, takePassword, writeUsers } from './admin-users.ts';
import type { CommandHelp } from './command-help.ts';
import {
  CommandError, EXIT_ERROR, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  requireEnvironment, runCommand,
} from './operating-command.ts';

const HELP: CommandHelp = {
  name: 'gs_passwd',
  usage: ['USERNAME [-p PASSWORD]'],
  summary: 'Changes an administrator\'s password in GS_HOME/conf/password. Without -p it asks ' +
    'for it twice,\nnot echoed (from stdin, a line each, when it is not a terminal). A running ' +
    'node takes it at the next login.',
  options: [
    ['-p, --password PASSWORD', 'the new password (default: asked for)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_passwd admin -p n3w-secret',
};

async function main(): Promise<number> {
  const { user, password: given } = parseUserArgs(process.argv.slice(2),
    { password: true, missing: 'AB0001: Specify the USERNAME.' });
  const { home } = requireEnvironment(process.env);
  const entries = readUsers(home);
  if (!entries.some((entry) => entry.user === user)) {
    throw new CommandError(`AB0102: The USERNAME '${user}' does not exist.`, EXIT_ERROR);
  }
  const password = await takePassword(given, {
    // GridDB's texts, its spelling included.
    mismatch: 'AB0103: The password mismatch.',
    empty: 'AB0104: The password cannnot contain any spaces.',
  });
  if (password === undefined) return EXIT_OK;
  let next;
  try {
    next = passwordEntriesWithPassword(entries, user, password);
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT_ERROR);
  }
  await writeUsers(home, next);
  return EXIT_OK;
}

runCommand(HELP, main, { passwordFlags: ['-p', '--password'] });
