// The settings a database is created with and can never change: partitionNum and storeBlockSize
// (GridDB's "Disallowed" class). They are written once, at first open, to `<dbPath>/store.json`, and
// every later open checks them: a changed partitionNum would silently route containers to the wrong
// partitions, so it is refused with a clear error instead.
//
//   store.json: {"format":"store","formatVersion":1,"partitionNum":128,"storeBlockSizeBytes":65536}

import { join } from 'node:path';
import { StorageError } from '../base/errors.ts';
import type { StorageOptions } from '../base/options.ts';
import { makeDirectoryDurable, writeFileDurable, type FileSystem } from '../io/file-system.ts';

export const STORE_FORMAT_VERSION = 1;
const IDENTITY_FILE_NAME = 'store.json';
const IDENTITY_BYTES_MAX = 4096;

interface Identity {
  format: 'store';
  formatVersion: number;
  partitionNum: number;
  storeBlockSizeBytes: number;
}

export async function checkStoreIdentity(
  fileSystem: FileSystem,
  dataRoot: string,
  options: StorageOptions,
): Promise<void> {
  const path = join(dataRoot, IDENTITY_FILE_NAME);
  if (!fileSystem.exists(path)) {
    await writeIdentity(fileSystem, dataRoot, options);
    return;
  }
  const identity = readIdentity(fileSystem, path);
  const problems: string[] = [];
  if (identity.partitionNum !== options.partitionNum) {
    problems.push(`/dataStore/partitionNum is ${options.partitionNum}, ` +
      `but the database was created with ${identity.partitionNum}`);
  }
  if (identity.storeBlockSizeBytes !== options.storeBlockSizeBytes) {
    problems.push(`/dataStore/storeBlockSize is ${options.storeBlockSizeBytes} bytes, ` +
      `but the database was created with ${identity.storeBlockSizeBytes}`);
  }
  if (problems.length > 0) {
    throw new StorageError('CONFIG_INVALID',
      `${problems.join('; ')}; these settings cannot change after the first start`);
  }
}

function readIdentity(fileSystem: FileSystem, path: string): Identity {
  const file = fileSystem.open(path, 'read');
  try {
    const bytes = new Uint8Array(Math.min(file.sizeBytes(), IDENTITY_BYTES_MAX));
    file.read(bytes, 0);
    const identity = JSON.parse(new TextDecoder().decode(bytes)) as Identity;
    const valid = identity.format === 'store' && Number.isInteger(identity.partitionNum) &&
      Number.isInteger(identity.storeBlockSizeBytes);
    if (!valid) throw new Error('missing members');
    if (identity.formatVersion > STORE_FORMAT_VERSION) {
      throw new StorageError('NOT_SUPPORTED',
        `${path}: database format ${identity.formatVersion} is newer than this server ` +
          `(${STORE_FORMAT_VERSION})`);
    }
    return identity;
  } catch (cause) {
    if (cause instanceof StorageError) throw cause;
    throw new StorageError('CORRUPTION', `${path} is not a valid database identity file`, { cause });
  } finally {
    file.close();
  }
}

async function writeIdentity(fileSystem: FileSystem, dataRoot: string, options: StorageOptions) {
  await makeDirectoryDurable(fileSystem, dataRoot);
  const identity: Identity = {
    format: 'store',
    formatVersion: STORE_FORMAT_VERSION,
    partitionNum: options.partitionNum,
    storeBlockSizeBytes: options.storeBlockSizeBytes,
  };
  // Atomic: a crash leaves either no file or a whole one.
  const bytes = new TextEncoder().encode(`${JSON.stringify(identity)}\n`);
  await writeFileDurable(fileSystem, join(dataRoot, IDENTITY_FILE_NAME), bytes, { atomic: true });
}
