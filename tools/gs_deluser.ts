// gs_deluser USERNAME: removes an administrator from GS_HOME/conf/password (A60102 when the user
// is not there). The built-in admin and system stay (A60103, store's own message: GridDB's
// gs_deluser would remove them and leave the node without its default administrator). A running
// node refuses the user from the next login on.

import { BUILT_IN_USERS, passwordEntriesWithoutUser } from '../lib/config/password-file.ts';
import { parseUserArgs, readUsers, writeUsers } from './admin-users.ts';
import type { CommandHelp } from './command-help.ts';
import {
  CommandError, EXIT_ERROR, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  requireEnvironment, runCommand,
} from './operating-command.ts';

const HELP: CommandHelp = {
  name: 'gs_deluser',
  usage: ['USERNAME'],
  summary: 'Removes an administrator from GS_HOME/conf/password (not the built-in admin and ' +
    'system).\nA running node refuses the user from the next login on.',
  options: [],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_deluser gs#ops',
};

async function main(): Promise<number> {
  const { user } = parseUserArgs(process.argv.slice(2),
    { password: false, missing: 'A60001: Specify USERNAME.' });
  const { home } = requireEnvironment(process.env);
  const entries = readUsers(home);
  if ((BUILT_IN_USERS as readonly string[]).includes(user)) {
    throw new CommandError(`A60103: The built-in USERNAME '${user}' cannot be deleted.`,
      EXIT_ERROR);
  }
  if (!entries.some((entry) => entry.user === user)) {
    throw new CommandError(`A60102: USERNAME '${user}' does not exist.`, EXIT_ERROR);
  }
  let next;
  try {
    next = passwordEntriesWithoutUser(entries, user);
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT_ERROR);
  }
  await writeUsers(home, next);
  return EXIT_OK;
}

runCommand(HELP, main);
