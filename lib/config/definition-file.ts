// Reading the node's small text files safely: gs_cluster.json, gs_node.json, the password file and
// a checkout's package.json. A file is read whole, only if it is no larger than
// DEFINITION_FILE_BYTES_MAX, and only if it is UTF-8; anything else is CONFIG_INVALID naming the
// file. A missing file is undefined: the caller decides whether that means the defaults.

import { join } from 'node:path';
import { StorageError } from '../base/errors.ts';
import { DEFINITION_FILE_BYTES_MAX } from '../base/limits.ts';
import type { DefinitionFiles } from '../base/option-reader.ts';
import { writeFileDurable, type FileSystem } from '../io/file-system.ts';

/** Text of a file, or undefined when it does not exist. */
export function readConfigText(fileSystem: FileSystem, path: string): string | undefined {
  if (!fileSystem.exists(path)) return undefined;
  const file = fileSystem.open(path, 'read');
  try {
    const sizeBytes = file.sizeBytes();
    if (sizeBytes > DEFINITION_FILE_BYTES_MAX) {
      throw new StorageError('CONFIG_INVALID', `${path}: ${sizeBytes} bytes, more than the ` +
        `${DEFINITION_FILE_BYTES_MAX} a definition file may have`);
    }
    const bytes = new Uint8Array(sizeBytes);
    const readBytes = file.read(bytes, 0);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, readBytes));
  } catch (cause) {
    if (cause instanceof StorageError) throw cause;
    throw new StorageError('CONFIG_INVALID', `${path} is not UTF-8 text`, { cause });
  } finally {
    file.close();
  }
}

/** A JSON definition file as an object, or undefined when it does not exist. */
export function readDefinitionFile(fileSystem: FileSystem, path: string):
  Record<string, unknown> | undefined {
  const text = readConfigText(fileSystem, path);
  if (text === undefined) return undefined;
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

/** `<home>/conf/gs_cluster.json` and `<home>/conf/gs_node.json`. */
export function readDefinitionFiles(fileSystem: FileSystem, home: string): DefinitionFiles {
  return {
    cluster: readDefinitionFile(fileSystem, join(home, 'conf', 'gs_cluster.json')),
    node: readDefinitionFile(fileSystem, join(home, 'conf', 'gs_node.json')),
  };
}

/**
 * Replaces (or creates) a small file durably and atomically: the text goes to `<path>.tmp`, is
 * synced, and is renamed over the file, and the directory is synced. A crash leaves either the old
 * file or the new one, never a part of either.
 */
export async function replaceConfigFile(fileSystem: FileSystem, path: string, text: string):
  Promise<void> {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > DEFINITION_FILE_BYTES_MAX) {
    throw new StorageError('LIMIT_EXCEEDED', `${path}: ${bytes.length} bytes, more than the ` +
      `${DEFINITION_FILE_BYTES_MAX} a definition file may have`);
  }
  await writeFileDurable(fileSystem, path, bytes, { atomic: true });
}
