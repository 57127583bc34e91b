// What gs_adduser, gs_deluser and gs_passwd share: their arguments (USERNAME [-p PASSWORD]), the
// password file of GS_HOME read and replaced (lib/config/password-file.ts: parsed and formatted
// there; replaced by write to `password.tmp`, fsync, rename, fsync of conf/, so a running node
// reads the old file or the new one, never a part), and the password asked twice when -p is
// absent. Like GridDB's, these commands edit the file and need no node and no -u: a running node
// reads the file again at each login (lib/config/users.ts LivePasswordFile).

import { parseArgs } from 'node:util';
import { replaceConfigFile, readConfigText } from '../lib/config/definition-file.ts';
import {
  formatPasswordFile, parsePasswordFile, passwordProblem, type PasswordEntry,
} from '../lib/config/password-file.ts';
import { passwordFilePath } from '../lib/config/users.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import { CommandError, EXIT_ARGUMENTS, EXIT_ERROR } from './operating-command.ts';
import { openPasswordInput } from './password-prompt.ts';

/** The user name, and -p when given; `missing` is the command's GridDB message for no name. */
export function parseUserArgs(args: readonly string[],
  options: { password: boolean; missing: string }): { user: string; password: string | undefined } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args], allowPositionals: true, strict: true,
      options: options.password ? { password: { type: 'string', short: 'p' } } : {},
    });
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT_ARGUMENTS);
  }
  const [user, ...extra] = parsed.positionals;
  if (user === undefined) throw new CommandError(options.missing, EXIT_ARGUMENTS);
  if (extra.length > 0) {
    throw new CommandError(`One USERNAME only: also given ${extra.join(' ')}.`, EXIT_ARGUMENTS);
  }
  const password = (parsed.values as { password?: string | boolean }).password;
  return { user, password: typeof password === 'string' ? password : undefined };
}

export function readUsers(home: string): PasswordEntry[] {
  const path = passwordFilePath(home);
  try {
    const text = readConfigText(new NodeFileSystem(), path);
    if (text === undefined) throw new CommandError(`${path} does not exist.`, EXIT_ERROR);
    return parsePasswordFile(text, path);
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError((error as Error).message, EXIT_ERROR);
  }
}

export async function writeUsers(home: string, entries: readonly PasswordEntry[]): Promise<void> {
  await replaceConfigFile(new NodeFileSystem(), passwordFilePath(home),
    formatPasswordFile(entries));
}

/**
 * The password of -p, or asked twice (tools/password-prompt.ts); undefined when the user cancelled
 * at the prompt (GridDB then exits 0 having changed nothing). `messages` are the command's GridDB
 * messages for a mismatch and for an empty password.
 */
export async function takePassword(given: string | undefined, messages: {
  mismatch: string; empty: string;
}): Promise<string | undefined> {
  let password = given;
  if (password === undefined) {
    const input = openPasswordInput();
    try {
      password = await input.read('Password: ');
      if (password === undefined) return undefined;
      const again = await input.read('Retype password: ');
      if (again === undefined) return undefined;
      if (again !== password) throw new CommandError(messages.mismatch, EXIT_ERROR);
    } finally {
      input.close();
    }
  }
  if (password === '') throw new CommandError(messages.empty, EXIT_ERROR);
  // Beyond GridDB's checks: the node would refuse a longer password at login (64 bytes).
  const problem = passwordProblem(password);
  if (problem !== undefined) {
    throw new CommandError(`The password is refused: ${problem}.`, EXIT_ERROR);
  }
  return password;
}
