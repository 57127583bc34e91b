// Administrator users: authentication against the password file, and the library part of
// gs_adduser, gs_passwd and gs_deluser (each rewrites the file atomically).
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
}

/** gs_passwd: sets a user's password. */
export async function changePassword(fileSystem: FileSystem, home: string,
  credentials: { user: string; password: string }): Promise<void> {
  const entries = readPasswordEntries(fileSystem, home);
  const next = passwordEntriesWithPassword(entries, credentials.user, credentials.password);
  await replaceConfigFile(fileSystem, passwordFilePath(home), formatPasswordFile(next));
}

/** gs_deluser: removes an administrator user; the built-in ones stay. */
export async function removeUser(fileSystem: FileSystem, home: string, user: string):
  Promise<void> {
  const entries = readPasswordEntries(fileSystem, home);
  const next = passwordEntriesWithoutUser(entries, user);
  await replaceConfigFile(fileSystem, passwordFilePath(home), formatPasswordFile(next));
}
