// gs_adduser USERNAME [-p PASSWORD]: adds an administrator to GS_HOME/conf/password, with GridDB's
// rules and messages: the name is `gs#` and ASCII letters, digits or `_` (A10002), not already
// there in any case (A10102); the password is asked twice when -p is absent (A10103 when they
// differ) and must not be empty (A10104). A running node takes the user at its next login.

import { USER_NAME_LENGTH_MAX } from '../lib/base/limits.ts';
import { passwordEntriesWithUser } from '../lib/config/password-file.ts';
import { parseUserArgs, readUsers, takePassword, writeUsers } from './admin-users.ts';
import type { CommandHelp } from './command-help.ts';
import {
  CommandError, EXIT_ERROR, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  requireEnvironment, runCommand,
} from './operating-command.ts';

const HELP: CommandHelp = {
  name: 'gs_adduser',
  usage: ['USERNAME [-p PASSWORD]'],
  summary: 'Adds an administrator to GS_HOME/conf/password. The USERNAME must start with gs#.\n' +
    'Without -p it asks for the password twice, not echoed (from stdin, a line each, when it is ' +
    'not a terminal).\nA running node takes the user at its next login.',
  options: [
    ['-p, --password PASSWORD', 'the password (default: asked for)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_adduser gs#ops -p s3cret',
};

/** GridDB's rule: `gs#` then ASCII letters, digits and `_`; admin and system are reserved names. */
const USER_NAME_PATTERN = /^gs#[a-zA-Z0-9_]+$/;
const RESERVED_NAMES = ['admin', 'system'];

async function main(): Promise<number> {
  const { user, password: given } = parseUserArgs(process.argv.slice(2),
    { password: true, missing: 'A10001: Specify the USERNAME.' });
  const { home } = requireEnvironment(process.env);
  if (!RESERVED_NAMES.includes(user) &&
    (!USER_NAME_PATTERN.test(user) || user.length > USER_NAME_LENGTH_MAX)) {
    throw new CommandError('A10002: The username must start with \'gs#\', and only one or more ' +
      'ASCII alphanumeric characters and the underscore sign \'_\' . This is case insensitive.' +
      (user.length > USER_NAME_LENGTH_MAX ? ` (at most ${USER_NAME_LENGTH_MAX} characters)` : ''),
    EXIT_ERROR);
  }
  const entries = readUsers(home);
  if (entries.some((entry) => entry.user.toUpperCase() === user.toUpperCase())) {
    throw new CommandError(`A10102: USERNAME '${user}' already exists. This is case insensitive.`,
      EXIT_ERROR);
  }
  const password = await takePassword(given, {
    mismatch: 'A10103: Password mismatch.', empty: 'A10104: Password cannot include space.',
  });
  if (password === undefined) return EXIT_OK;
  let next;
  try {
    next = passwordEntriesWithUser(entries, user, password);
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT_ERROR);
  }
  await writeUsers(home, next);
  return EXIT_OK;
}

runCommand(HELP, main, { passwordFlags: ['-p', '--password'] });
