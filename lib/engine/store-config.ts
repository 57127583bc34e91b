// Reading the storage settings of a home directory: `<home>/conf/gs_cluster.json` and
// `<home>/conf/gs_node.json`, as GridDB keeps them. A missing file means its defaults; a file that is
// not a JSON object, or has a bad storage member, is a CONFIG_INVALID error naming the file and
// every bad member, and nothing is opened. The engine validates only the storage members; the node
// validates the rest of both files (lib/config) before it opens the engine.

import { DEFINITION_FILE_BYTES_MAX } from '../base/limits.ts';
import { parseStorageOptions, type StorageOptions } from '../base/options.ts';
import { readDefinitionFiles } from '../config/definition-file.ts';
import type { FileSystem } from '../io/file-system.ts';

/** A definition file larger than this is refused rather than read into memory. */
export const CONFIG_FILE_BYTES_MAX = DEFINITION_FILE_BYTES_MAX;

export function readStorageConfig(fileSystem: FileSystem, home: string): StorageOptions {
  return parseStorageOptions(readDefinitionFiles(fileSystem, home));
}
