// The whole configuration a node reads at start: the storage options the engine opens with, the
// cluster definition and the node definition. Every member of both files is validated in one pass
// and every problem is reported at once (CONFIG_INVALID, naming the file, the member and what is
// allowed); members nobody reads are returned as warnings, since GridDB ignores them too.
//
//   const { config, warnings } = loadConfig(fileSystem, home);
//   config.node.services.transaction.port   // 10001
//   config.storage.checkpointIntervalMs     // 300000

import { join } from 'node:path';
import { StorageError } from '../base/errors.ts';
import { OptionReader, type DefinitionFiles } from '../base/option-reader.ts';
import { readStorageMembers, type StorageOptions } from '../base/options.ts';
import type { FileSystem } from '../io/file-system.ts';
import { readClusterConfig, type ClusterConfig } from './cluster-config.ts';
import { readDefinitionFiles } from './definition-file.ts';
import { readNodeConfig, type NodeConfig } from './node-config.ts';
import { nodeAddressSet } from './node-services.ts';

export interface Config {
  /** What the engine opens with (lib/engine Store.open). */
  storage: StorageOptions;
  cluster: ClusterConfig;
  node: NodeConfig;
}

export interface ConfigReading {
  config: Config;
  /** Empty means valid. Each names the file and the member. */
  problems: string[];
  /** Members present but ignored: unknown, removed, or placed in the other file. */
  warnings: string[];
}

/** Reads and validates both files; never throws for bad members, it lists them. */
export function readConfig(files: DefinitionFiles): ConfigReading {
  const read = new OptionReader(files);
  const storage = readStorageMembers(read);
  const cluster = readClusterConfig(read);
  const node = readNodeConfig(read);
  if (cluster.notification.mode === 'FIXED_LIST' && cluster.notification.members.length === 0) {
    // No notification setting at all: a cluster of this node alone, at its own addresses.
    cluster.notification.members.push(nodeAddressSet(node.services));
  }
  read.warnUnknownMembers();
  return { config: { storage, cluster, node }, problems: read.problems, warnings: read.warnings };
}

/** Like readConfig, but any problem is a CONFIG_INVALID error naming every bad member. */
export function parseConfig(files: DefinitionFiles, where = 'configuration'):
  { config: Config; warnings: string[] } {
  const { config, problems, warnings } = readConfig(files);
  if (problems.length > 0) {
    throw new StorageError('CONFIG_INVALID', `invalid ${where}: ${problems.join('; ')}`);
  }
  return { config, warnings };
}

/** Reads `<home>/conf/gs_cluster.json` and `<home>/conf/gs_node.json`; a missing file means defaults. */
export function loadConfig(fileSystem: FileSystem, home: string):
  { config: Config; warnings: string[] } {
  return parseConfig(readDefinitionFiles(fileSystem, home),
    `configuration in ${join(home, 'conf')}`);
}
