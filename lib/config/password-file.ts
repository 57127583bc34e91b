// The administrator users' file, `<GS_HOME>/conf/password` (surface.md §8.3). One user a line:
//
//   <user name>,<SHA-256 of the password, 64 lower-case hex digits>
//   admin,8c6976e5b5410415bde908bd4dee15dfb167a9c873fc4bb8a81f6f2ab448a918
//   system,
//
// An empty hash (as GridDB's source tree ships `admin,` and `system,`) is a user whose password is
// not set yet: nobody can log in as it until gs_passwd sets one. Names are the built-in `admin` and
// `system` or `gs#` followed by letters, digits and `_`. Lines end with LF (a CR before it is
// tolerated); blank lines are skipped. The file must be identical on every node.

import { createHash } from 'node:crypto';
import { StorageError } from '../base/errors.ts';
import {
  PASSWORD_BYTES_MAX, PASSWORD_FILE_USER_COUNT_MAX, USER_NAME_LENGTH_MAX,
} from '../base/limits.ts';

export interface PasswordEntry {
  user: string;
  /** Lower-case hex SHA-256 of the password; empty when no password is set. */
  passwordSha256Hex: string;
}

export const BUILT_IN_USERS = ['admin', 'system'] as const;

const USER_NAME_PATTERN = new RegExp(`^gs#[A-Za-z0-9_]{1,${USER_NAME_LENGTH_MAX - 3}}$`);
const HASH_PATTERN = /^(?:[0-9a-fA-F]{64})?$/;

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Why a name cannot be an administrator user, or undefined when it can. */
export function userNameProblem(user: string): string | undefined {
  if ((BUILT_IN_USERS as readonly string[]).includes(user) || USER_NAME_PATTERN.test(user)) {
    return undefined;
  }
  return `${JSON.stringify(user)} is not an administrator user name: admin, system, or gs# ` +
    `followed by letters, digits and _ (at most ${USER_NAME_LENGTH_MAX} characters)`;
}

/** Why a text cannot be a password, or undefined when it can. */
export function passwordProblem(password: string): string | undefined {
  const bytes = Buffer.byteLength(password, 'utf8');
  if (bytes === 0) return 'a password must not be empty';
  if (bytes > PASSWORD_BYTES_MAX) {
    return `a password may have at most ${PASSWORD_BYTES_MAX} bytes of UTF-8, not ${bytes}`;
  }
  return undefined;
}

/** Parses the file; a malformed line is a CONFIG_INVALID error naming the file and the line. */
export function parsePasswordFile(text: string, path: string): PasswordEntry[] {
  const entries: PasswordEntry[] = [];
  const lineOfUser = new Map<string, number>();
  const lines = text.split('\n');
  for (const [index, rawLine] of lines.entries()) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line.trim() === '') continue;
    const lineNumber = index + 1;
    const fail = (detail: string): never => {
      throw new StorageError('CONFIG_INVALID', `${path} line ${lineNumber}: ${detail}`);
    };
    const comma = line.indexOf(',');
    const commaCount = line.split(',').length - 1;
    if (commaCount !== 1) {
      // The line is not echoed: it may hold a password written in clear by mistake.
      fail(`not "<user>,<SHA-256 hex of the password>" (the line has ${commaCount} commas, ` +
        'not 1)');
    }
    const user = line.slice(0, comma);
    const hash = line.slice(comma + 1);
    const nameProblem = userNameProblem(user);
    if (nameProblem !== undefined) fail(nameProblem);
    if (!HASH_PATTERN.test(hash)) {
      fail(`the password of ${JSON.stringify(user)} is not 64 hex digits (a SHA-256) or empty`);
    }
    const earlier = lineOfUser.get(user);
    if (earlier !== undefined) fail(`user ${JSON.stringify(user)} is listed again (line ${earlier})`);
    if (entries.length === PASSWORD_FILE_USER_COUNT_MAX) {
      fail(`more than ${PASSWORD_FILE_USER_COUNT_MAX} users`);
    }
    lineOfUser.set(user, lineNumber);
    entries.push({ user, passwordSha256Hex: hash.toLowerCase() });
  }
  return entries;
}

export function formatPasswordFile(entries: readonly PasswordEntry[]): string {
  return entries.map((entry) => `${entry.user},${entry.passwordSha256Hex}\n`).join('');
}

/** The file as packages ship it: admin/admin and system/manager (surface.md §8.3). */
export const DEFAULT_PASSWORD_ENTRIES: readonly PasswordEntry[] = [
  { user: 'admin', passwordSha256Hex: sha256Hex('admin') },
  { user: 'system', passwordSha256Hex: sha256Hex('manager') },
];

/** A new list with the user added; USER_EXISTS if it is there, USER_INVALID for bad input. */
export function passwordEntriesWithUser(entries: readonly PasswordEntry[], user: string,
  password: string): PasswordEntry[] {
  checkUserInput(user, password);
  if (entries.some((entry) => entry.user === user)) {
    throw new StorageError('USER_EXISTS', `user ${JSON.stringify(user)} already exists`);
  }
  if (entries.length >= PASSWORD_FILE_USER_COUNT_MAX) {
    throw new StorageError('LIMIT_EXCEEDED',
      `the password file already holds ${PASSWORD_FILE_USER_COUNT_MAX} users`);
  }
  return [...entries, { user, passwordSha256Hex: sha256Hex(password) }];
}

/** A new list with the user's password changed; USER_NOT_FOUND if it is not there. */
export function passwordEntriesWithPassword(entries: readonly PasswordEntry[], user: string,
  password: string): PasswordEntry[] {
  checkUserInput(user, password);
  if (!entries.some((entry) => entry.user === user)) {
    throw new StorageError('USER_NOT_FOUND', `user ${JSON.stringify(user)} does not exist`);
  }
  return entries.map((entry) =>
    entry.user === user ? { user, passwordSha256Hex: sha256Hex(password) } : entry);
}

/** A new list without the user; USER_NOT_FOUND if it is not there. Built-in users stay. */
export function passwordEntriesWithoutUser(entries: readonly PasswordEntry[], user: string):
  PasswordEntry[] {
  if ((BUILT_IN_USERS as readonly string[]).includes(user)) {
    throw new StorageError('USER_INVALID',
      `the built-in user ${JSON.stringify(user)} cannot be removed`);
  }
  if (!entries.some((entry) => entry.user === user)) {
    throw new StorageError('USER_NOT_FOUND', `user ${JSON.stringify(user)} does not exist`);
  }
  return entries.filter((entry) => entry.user !== user);
}

function checkUserInput(user: string, password: string): void {
  const problem = userNameProblem(user) ?? passwordProblem(password);
  if (problem !== undefined) throw new StorageError('USER_INVALID', problem);
}
