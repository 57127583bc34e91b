// The access catalog on disk: `<dbPath>/gs_access.json`, beside the partitions' data files and
// not in conf/password (which stays the administrators' file, as in GridDB). Replaced whole and
// atomically (written under a temporary name, synced, renamed, the directory synced) before a
// change is acknowledged, so a crash leaves the old catalog or the new one, never a part.
//
//   { "version": 1, "nextDatabaseId": n,
//     "users":     [[name, sha256Hex, scramVerifier | null], ...],   (null: made from a SHA-256 alone)
//     "databases": [[name, id, [[user, "ALL"|"READ"], ...]], ...] }
//
// Bump ACCESS_FILE_VERSION to change it. Every field is checked on read: a file this node did
// not write whole is CORRUPTION, never a partly read catalog.

import { join } from 'node:path';
import { StorageError } from '../base/errors.ts';
import {
  ACCESS_FILE_BYTES_MAX, DATABASE_COUNT_MAX, GENERAL_USER_COUNT_MAX,
} from '../base/limits.ts';
import { writeFileDurable, type FileSystem } from '../io/file-system.ts';
import {
  AccessCatalog, type DatabaseEntry, type GeneralUser, type Privilege,
} from './access-catalog.ts';

const ACCESS_FILE_VERSION = 1;
const SHA256_HEX = /^[0-9a-f]{64}$/;

export function accessFilePath(dataDirectory: string): string {
  return join(dataDirectory, 'gs_access.json');
}

export function accessFileText(catalog: AccessCatalog): string {
  return `${JSON.stringify({
    version: ACCESS_FILE_VERSION,
    nextDatabaseId: catalog.nextDatabaseId,
    users: catalog.users.map((user) => [user.name, user.passwordSha256Hex, user.scramVerifier ?? null]),
    databases: catalog.databases.map((database) => [database.name, database.id,
      database.grants.map((grant) => [grant.user, grant.privilege])]),
  })}\n`;
}

export async function writeAccessFile(fileSystem: FileSystem, path: string,
  catalog: AccessCatalog): Promise<void> {
  const bytes = new TextEncoder().encode(accessFileText(catalog));
  if (bytes.byteLength > ACCESS_FILE_BYTES_MAX) {
    throw new StorageError('LIMIT_EXCEEDED', `${path}: the access catalog would take ` +
      `${bytes.byteLength} bytes, more than ${ACCESS_FILE_BYTES_MAX}`);
  }
  await writeFileDurable(fileSystem, path, bytes, { atomic: true });
}

/** The catalog in the file; the empty one when there is no file (a node before any CREATE USER). */
export function readAccessFile(fileSystem: FileSystem, path: string): AccessCatalog {
  if (!fileSystem.exists(path)) return AccessCatalog.EMPTY;
  const file = fileSystem.open(path, 'read');
  let text: string;
  try {
    const sizeBytes = file.sizeBytes();
    if (sizeBytes > ACCESS_FILE_BYTES_MAX) {
      throw new StorageError('CORRUPTION', `${path}: ${sizeBytes} bytes, more than ` +
        `${ACCESS_FILE_BYTES_MAX} this node ever writes`);
    }
    const bytes = new Uint8Array(sizeBytes);
    const readBytes = file.read(bytes, 0);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, readBytes));
  } finally {
    file.close();
  }
  try {
    return accessCatalogOf(JSON.parse(text));
  } catch (cause) {
    throw new StorageError('CORRUPTION', `${path} is not an access catalog this node wrote: ` +
      (cause instanceof Error ? cause.message : String(cause)), { cause });
  }
}

function accessCatalogOf(value: unknown): AccessCatalog {
  const file = value as {
    version?: unknown; nextDatabaseId?: unknown; users?: unknown; databases?: unknown;
  };
  if (file.version !== ACCESS_FILE_VERSION) throw new Error(`version ${String(file.version)}`);
  if (!Number.isSafeInteger(file.nextDatabaseId) || (file.nextDatabaseId as number) < 1) {
    throw new Error('nextDatabaseId');
  }
  if (!Array.isArray(file.users) || !Array.isArray(file.databases) ||
    file.users.length > GENERAL_USER_COUNT_MAX || file.databases.length > DATABASE_COUNT_MAX) {
    throw new Error('users or databases');
  }
  const users = file.users.map((entry: unknown): GeneralUser => {
    const [name, passwordSha256Hex, scramVerifier] = tuple(entry, 3);
    if (typeof name !== 'string' || typeof passwordSha256Hex !== 'string' ||
      !SHA256_HEX.test(passwordSha256Hex) || (typeof scramVerifier !== 'string' && scramVerifier !== null)) {
      throw new Error('a user entry');
    }
    return { name, passwordSha256Hex, ...(scramVerifier === null ? {} : { scramVerifier }) };
  });
  const databases = file.databases.map((entry: unknown): DatabaseEntry => {
    const [name, id, grants] = tuple(entry, 3);
    if (typeof name !== 'string' || !Number.isSafeInteger(id) || !Array.isArray(grants)) {
      throw new Error('a database entry');
    }
    return { name, id: id as number, grants: grants.map((grant: unknown) => {
      const [user, privilege] = tuple(grant, 2);
      if (typeof user !== 'string' || (privilege !== 'ALL' && privilege !== 'READ')) {
        throw new Error('a grant');
      }
      return { user, privilege: privilege as Privilege };
    }) };
  });
  return new AccessCatalog(users, databases, file.nextDatabaseId as number);
}

function tuple(value: unknown, length: number): unknown[] {
  if (!Array.isArray(value) || value.length !== length) {
    throw new Error('an entry of the wrong shape');
  }
  return value;
}
