// The definition files a node writes into `<GS_HOME>/conf` at its first start, when they are
// absent: laid out as GridDB's package ships them, with our defaults. gs_cluster.json is a
// FIXED_LIST cluster `myCluster` of this node alone; gs_node.json is GridDB's node file; password
// holds admin/admin and system/manager. An existing file is never touched.

import { join } from 'node:path';
import { makeDirectoryDurable, type FileSystem } from '../io/file-system.ts';
import { STORAGE_OPTION_DEFAULTS as STORAGE } from '../base/options.ts';
import { formatSize } from '../base/units.ts';
import { CLUSTER_NAME_DEFAULT } from './cluster-config.ts';
import { replaceConfigFile } from './definition-file.ts';
import { SERVICE_ADDRESS_DEFAULT, SERVICE_PORTS_DEFAULT } from './node-services.ts';
import { defaultScramFile } from './scram-verifiers.ts';
import { DEFAULT_PASSWORD_ENTRIES, formatPasswordFile } from './password-file.ts';
import { TRACE_CATEGORY_LEVELS_DEFAULT } from './trace-config.ts';

const seconds = (ms: number) => `${ms / 1000}s`;

function endpoint(port: number) {
  return { address: SERVICE_ADDRESS_DEFAULT, port };
}

export function defaultClusterFile(): Record<string, unknown> {
  const ports = SERVICE_PORTS_DEFAULT;
  return {
    dataStore: {
      partitionNum: STORAGE.partitionNum,
      storeBlockSize: formatSize(STORAGE.storeBlockSizeBytes),
    },
    cluster: {
      clusterName: CLUSTER_NAME_DEFAULT,
      replicationNum: 2,
      heartbeatInterval: '5s',
      loadbalanceCheckInterval: '180s',
      notificationMember: [{
        cluster: endpoint(ports.cluster),
        sync: endpoint(ports.sync),
        system: endpoint(ports.system),
        transaction: endpoint(ports.transaction),
        sql: endpoint(ports.sql),
      }],
    },
    sync: { timeoutInterval: '30s' },
    transaction: { replicationMode: 0, replicationTimeoutInterval: '10s' },
    sql: {},
  };
}

export function defaultNodeFile(): Record<string, unknown> {
  const ports = SERVICE_PORTS_DEFAULT;
  return {
    serviceAddress: SERVICE_ADDRESS_DEFAULT,
    dataStore: {
      dbPath: STORAGE.dbPath,
      transactionLogPath: STORAGE.transactionLogPath,
      backupPath: 'backup',
      syncTempPath: 'sync',
      storeMemoryLimit: formatSize(STORAGE.storeMemoryLimitBytes),
      storeCompressionMode: STORAGE.storeCompressionMode,
      concurrency: STORAGE.concurrency,
      logWriteMode: STORAGE.logWriteMode,
      persistencyMode: 'NORMAL',
      affinityGroupSize: 4,
    },
    checkpoint: {
      checkpointInterval: seconds(STORAGE.checkpointIntervalMs),
      partialCheckpointInterval: STORAGE.partialCheckpointInterval,
    },
    cluster: { servicePort: ports.cluster },
    sync: { servicePort: ports.sync },
    system: { servicePort: ports.system, eventLogPath: 'log' },
    transaction: { servicePort: ports.transaction, connectionLimit: 5000 },
    sql: {
      servicePort: ports.sql, storeSwapFilePath: 'swap', storeSwapSyncSize: '1024MB',
      storeMemoryLimit: '1024MB', workMemoryLimit: '32MB', workCacheMemory: '128MB',
      connectionLimit: 5000, concurrency: 4,
    },
    trace: { ...TRACE_CATEGORY_LEVELS_DEFAULT },
  };
}

export function defaultPasswordFile(): string {
  return formatPasswordFile(DEFAULT_PASSWORD_ENTRIES);
}

/**
 * Creates `<home>/conf` and whichever of gs_cluster.json, gs_node.json and password is missing;
 * returns the paths it created (empty when everything was there).
 */
export async function createDefaultFiles(fileSystem: FileSystem, home: string): Promise<string[]> {
  const conf = join(home, 'conf');
  await makeDirectoryDurable(fileSystem, conf);
  const files: [string, () => string][] = [
    ['gs_cluster.json', () => `${JSON.stringify(defaultClusterFile(), null, 4)}\n`],
    ['gs_node.json', () => `${JSON.stringify(defaultNodeFile(), null, 4)}\n`],
    ['password', defaultPasswordFile],
    // The PostgreSQL protocol's SCRAM verifiers of the default passwords (scram-verifiers.ts).
    ['password.scram', () => defaultScramFile([{ user: 'admin', password: 'admin' },
      { user: 'system', password: 'manager' }])],
  ];
  const created: string[] = [];
  for (const [name, text] of files) {
    const path = join(conf, name);
    if (fileSystem.exists(path)) continue;
    await replaceConfigFile(fileSystem, path, text());
    created.push(path);
  }
  return created;
}
