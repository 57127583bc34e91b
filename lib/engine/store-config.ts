// Reading the storage settings of a home directory: `<home>/conf/gs_cluster.json` and
// `<home>/conf/gs_node.json`, as GridDB keeps them. A missing file means its defaults; a file that is
// not a JSON object, or has a bad member, is a CONFIG_INVALID error naming the file and every bad
// member, and nothing is opened.

import { join } from 'node:path';
import { StorageError } from '../base/errors.ts';
import { KiB } from '../base/units.ts';
import { parseStorageOptions, type StorageOptions } from '../base/options.ts';
import type { FileSystem } from '../io/file-system.ts';

/** A definition file larger than this is refused rather than read into memory. */
export const CONFIG_FILE_BYTES_MAX = 1024 * KiB;

export function readStorageConfig(fileSystem: FileSystem, home: string): StorageOptions {
  const cluster = readConfigFile(fileSystem, join(home, 'conf', 'gs_cluster.json'));
  const node = readConfigFile(fileSystem, join(home, 'conf', 'gs_node.json'));
  return parseStorageOptions({ cluster, node });
}

function readConfigFile(fileSystem: FileSystem, path: string): Record<string, unknown> | undefined {
  if (!fileSystem.exists(path)) return undefined;
  const file = fileSystem.open(path, 'read');
  let text: string;
  try {
    const sizeBytes = file.sizeBytes();
    if (sizeBytes > CONFIG_FILE_BYTES_MAX) {
      throw new StorageError('CONFIG_INVALID',
        `${path}: ${sizeBytes} bytes, more than the ${CONFIG_FILE_BYTES_MAX} a definition file may have`);
    }
    const bytes = new Uint8Array(sizeBytes);
    file.read(bytes, 0);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (cause) {
    if (cause instanceof StorageError) throw cause;
    throw new StorageError('CONFIG_INVALID', `${path} is not UTF-8 text`, { cause });
  } finally {
    file.close();
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new StorageError('CONFIG_INVALID', `${path} is not valid JSON: ${detail}`, { cause });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StorageError('CONFIG_INVALID', `${path} must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}
