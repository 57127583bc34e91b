// Administrator users: authentication against the password file, and the library part of
// gs_adduser, gs_passwd and gs_deluser (each rewrites the file atomically), and the running node's
// view of the file (LivePasswordFile: read again at each login, so those commands take effect on a
// running node without a restart).
//
// authenticate() takes the same time whatever is wrong and says only "authentication failed": it
// compares the digests of the name with every user's and the password's digest with one stored
// digest (a dummy one when the user does not exist or has no password), all with
// crypto.timingSafeEqual, so neither the message nor the timing tells a caller whether the user or
// the password was wrong.

import { createHash, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { StorageError } from '../base/errors.ts';
import type { FileSystem } from '../io/file-system.ts';
import { readConfigText, replaceConfigFile } from './definition-file.ts';
import {
  formatPasswordFile, parsePasswordFile, passwordEntriesWithPassword, passwordEntriesWithUser,
  passwordEntriesWithoutUser, type PasswordEntry,
} from './password-file.ts';
import { setScramVerifier } from './scram-verifiers.ts';

interface UserDigests {
  nameDigest: Buffer;
  /** Undefined when no password is set: nobody can log in as this user. */
  passwordDigest: Buffer | undefined;
}

const NO_PASSWORD_DIGEST = Buffer.alloc(32);

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export class PasswordTable {
  private readonly users: readonly UserDigests[];

  constructor(readonly entries: readonly PasswordEntry[]) {
    this.users = entries.map((entry) => ({
      nameDigest: sha256(entry.user),
      passwordDigest: entry.passwordSha256Hex === ''
        ? undefined : Buffer.from(entry.passwordSha256Hex, 'hex'),
    }));
  }

  /** Throws AUTHENTICATION_FAILED unless the user exists and the password is its password. */
  authenticate(user: string, password: string): void {
    if (!this.verify(user, password)) {
      throw new StorageError('AUTHENTICATION_FAILED', 'authentication failed');
    }
  }

  /** True when the user exists and the password is its password; constant time in both. */
  verify(user: string, password: string): boolean {
    const nameDigest = sha256(user);
    const passwordDigest = sha256(password);
    let found: UserDigests | undefined;
    for (const candidate of this.users) {
      // Every name is compared, and none stops the loop early.
      if (timingSafeEqual(candidate.nameDigest, nameDigest)) found = candidate;
    }
    const expected = found?.passwordDigest ?? NO_PASSWORD_DIGEST;
    const equal = timingSafeEqual(expected, passwordDigest);
    return found?.passwordDigest !== undefined && equal;
  }

  has(user: string): boolean {
    return this.entries.some((entry) => entry.user === user);
  }

  /**
   * The hex SHA-256 of the user's password as the file stores it, for a protocol that proves
   * knowledge of it (lib/server's lookupPasswordDigest); undefined for no such user, or no password.
   */
  passwordDigestHex(user: string): string | undefined {
    const entry = this.entries.find((candidate) => candidate.user === user);
    return entry === undefined || entry.passwordSha256Hex === '' ? undefined : entry.passwordSha256Hex;
  }
}

export function passwordFilePath(home: string): string {
  return join(home, 'conf', 'password');
}

/** Reads `<home>/conf/password`; a missing file is CONFIG_INVALID (the node creates it first). */
export function readPasswordTable(fileSystem: FileSystem, home: string): PasswordTable {
  return new PasswordTable(readPasswordEntries(fileSystem, home));
}

function readPasswordEntries(fileSystem: FileSystem, home: string): PasswordEntry[] {
  const path = passwordFilePath(home);
  const text = readConfigText(fileSystem, path);
  if (text === undefined) {
    throw new StorageError('CONFIG_INVALID', `${path} does not exist: no user could log in`);
  }
  return parsePasswordFile(text, path);
}

/** gs_adduser: adds an administrator user (`gs#...`). */
export async function addUser(fileSystem: FileSystem, home: string,
  credentials: { user: string; password: string }): Promise<void> {
  const entries = readPasswordEntries(fileSystem, home);
  const next = passwordEntriesWithUser(entries, credentials.user, credentials.password);
  await replaceConfigFile(fileSystem, passwordFilePath(home), formatPasswordFile(next));
  await setScramVerifier(fileSystem, home, credentials.user, credentials.password);
}

/** gs_passwd: sets a user's password. */
export async function changePassword(fileSystem: FileSystem, home: string,
  credentials: { user: string; password: string }): Promise<void> {
  const entries = readPasswordEntries(fileSystem, home);
  const next = passwordEntriesWithPassword(entries, credentials.user, credentials.password);
  await replaceConfigFile(fileSystem, passwordFilePath(home), formatPasswordFile(next));
  await setScramVerifier(fileSystem, home, credentials.user, credentials.password);
}

/** gs_deluser: removes an administrator user; the built-in ones stay. */
export async function removeUser(fileSystem: FileSystem, home: string, user: string):
  Promise<void> {
  const entries = readPasswordEntries(fileSystem, home);
  const next = passwordEntriesWithoutUser(entries, user);
  await replaceConfigFile(fileSystem, passwordFilePath(home), formatPasswordFile(next));
  await setScramVerifier(fileSystem, home, user, undefined);
}

/**
 * The password file as a running node sees it. GridDB's gs_adduser, gs_passwd and gs_deluser edit
 * the file without asking the node, so the node reads it again whenever it authenticates someone
 * (a client login, a system-service request): the file is at most DEFINITION_FILE_BYTES_MAX and
 * is parsed again only when its text changed. The commands replace it by rename, so a read sees
 * the old file or the new one whole. A file that has become unreadable or malformed does not lock
 * everyone out: the last good table stays in force and `onProblem` is told once per distinct
 * problem (the node writes it to the event log).
 */
export class LivePasswordFile {
  private text: string | undefined;
  private lastProblem: string | undefined;

  constructor(
    private readonly fileSystem: FileSystem,
    private readonly home: string,
    private table: PasswordTable,
    private readonly onProblem: (message: string) => void,
  ) {}

  /** The table of the file as it is now (or as it last was readable). */
  current(): PasswordTable {
    const path = passwordFilePath(this.home);
    try {
      const text = readConfigText(this.fileSystem, path);
      if (text === undefined) {
        throw new StorageError('CONFIG_INVALID', `${path} does not exist`);
      }
      if (text !== this.text) {
        this.table = new PasswordTable(parsePasswordFile(text, path));
        this.text = text;
      }
      this.lastProblem = undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message !== this.lastProblem) {
        this.lastProblem = message;
        this.onProblem(`${message}; the users read before stay in force`);
      }
    }
    return this.table;
  }
}
