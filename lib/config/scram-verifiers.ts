// SCRAM-SHA-256 verifiers of the administrator users, `<GS_HOME>/conf/password.scram`, for the
// PostgreSQL protocol on the SQL port (lib/pgwire/pg-scram.ts). The password file keeps GridDB's
// SHA-256 of each password, from which no SCRAM verifier can be made (SCRAM needs PBKDF2 of the
// password itself), so gs_adduser and gs_passwd, which see the password, write a verifier here
// beside it; the default `admin` gets one with the default file. One user a line:
//
//   <user>,<SHA-256 hex of the password>,SCRAM-SHA-256$<iterations>:<salt b64>$<StoredKey b64>:<ServerKey b64>
//
// The verifier part is PostgreSQL's own rolpassword format. A verifier counts only while its
// SHA-256 is the one the password file holds for the user: a password changed by a tool that does
// not know this file (GridDB's own gs_passwd, an edited file) leaves a stale verifier that is
// ignored, never a second valid password. Without a valid verifier a user can log in over the
// PostgreSQL protocol only with a cleartext password over TLS (checked against the SHA-256).

import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { PG_SCRAM_ITERATIONS } from '../base/limits.ts';
import type { FileSystem } from '../io/file-system.ts';
import { readConfigText, replaceConfigFile } from './definition-file.ts';
import { sha256Hex } from './password-file.ts';

export interface ScramVerifier {
  iterations: number;
  saltBase64: string;
  storedKey: Buffer;
  serverKey: Buffer;
}

const SCRAM_SALT_BYTES = 16;
const VERIFIER_PATTERN = /^SCRAM-SHA-256\$(\d{1,7}):([A-Za-z0-9+/=]{4,64})\$([A-Za-z0-9+/=]{44}):([A-Za-z0-9+/=]{44})$/;

export function scramFilePath(home: string): string {
  return join(home, 'conf', 'password.scram');
}

/** PostgreSQL's verifier of a password (SASLprep is left out: ASCII passwords are unchanged by it). */
export function scramVerifierText(password: string, salt: Uint8Array = randomBytes(SCRAM_SALT_BYTES)):
  string {
  const salted = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, PG_SCRAM_ITERATIONS, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${PG_SCRAM_ITERATIONS}:${Buffer.from(salt).toString('base64')}$` +
    `${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** A verifier's text (PostgreSQL's rolpassword form) read; undefined when malformed. */
export function parseScramVerifier(text: string): ScramVerifier | undefined {
  const match = VERIFIER_PATTERN.exec(text);
  if (match === null) return undefined;
  return {
    iterations: Number(match[1]), saltBase64: match[2]!,
    storedKey: Buffer.from(match[3]!, 'base64'), serverKey: Buffer.from(match[4]!, 'base64'),
  };
}

/** The file's lines by user; a malformed line is skipped (it only loses that user's SCRAM login). */
function readLines(fileSystem: FileSystem, home: string): Map<string, { sha256: string; verifier: string }> {
  const text = readConfigText(fileSystem, scramFilePath(home)) ?? '';
  const lines = new Map<string, { sha256: string; verifier: string }>();
  for (const line of text.split('\n')) {
    const [user, sha256, verifier, ...rest] = line.trim().split(',');
    if (user === undefined || sha256 === undefined || verifier === undefined || rest.length > 0) continue;
    lines.set(user, { sha256: sha256.toLowerCase(), verifier });
  }
  return lines;
}

/**
 * The user's verifier when the file has one that matches `passwordSha256Hex` (the password
 * file's digest now); undefined otherwise.
 */
export function scramVerifierOf(fileSystem: FileSystem, home: string, user: string,
  passwordSha256Hex: string | undefined): ScramVerifier | undefined {
  if (passwordSha256Hex === undefined) return undefined;
  const line = readLines(fileSystem, home).get(user);
  if (line === undefined || line.sha256 !== passwordSha256Hex.toLowerCase()) return undefined;
  return parseScramVerifier(line.verifier);
}

/** The file's text with `user`'s line set (a password) or removed (undefined). */
export function scramFileText(lines: Map<string, { sha256: string; verifier: string }>): string {
  return [...lines].map(([user, line]) => `${user},${line.sha256},${line.verifier}\n`).join('');
}

/** gs_adduser and gs_passwd: the user's verifier for `password`; undefined removes it (gs_deluser). */
export async function setScramVerifier(fileSystem: FileSystem, home: string, user: string,
  password: string | undefined): Promise<void> {
  const lines = readLines(fileSystem, home);
  if (password === undefined) lines.delete(user);
  else lines.set(user, { sha256: sha256Hex(password), verifier: scramVerifierText(password) });
  await replaceConfigFile(fileSystem, scramFilePath(home), scramFileText(lines));
}

/** The default file: a verifier of each default user whose password is known. */
export function defaultScramFile(passwords: ReadonlyArray<{ user: string; password: string }>): string {
  return scramFileText(new Map(passwords.map(({ user, password }) =>
    [user, { sha256: sha256Hex(password), verifier: scramVerifierText(password) }])));
}
