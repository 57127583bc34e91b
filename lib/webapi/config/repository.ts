// repository.json: the clusters the web API serves, by the name a URL gives
// (`/store/v2/<name>/dbs/...`). Read at start; a bad file stops the start with one CONFIG_INVALID
// naming the file and every bad member (`clusters[0].port`).
//
//   { "clusters": [
//     { "name": "myCluster", "mode": "FIXED_LIST", "transactionMember": "127.0.0.1:10001",
//       "sqlMember": "127.0.0.1:20001", "providerUrl": null },
//     { "name": "mc", "mode": "MULTICAST", "address": "239.0.0.1", "port": 31999,
//       "jdbcAddress": "239.0.0.1", "jdbcPort": 41999 },
//     { "name": "pv", "mode": "PROVIDER", "providerUrl": "http://provider/nodes.json" } ] }
//
// `mode` defaults to MULTICAST, as GridDB's. GridDB's tool library also writes `header` and
// `nodes`, which the web API ignores; so do we. Other members are reported as warnings.

import { StorageError } from '../../base/errors.ts';
import { WEBAPI_REPOSITORY_CLUSTER_COUNT_MAX } from '../../base/limits.ts';
import { membersParse } from '../../client/client-properties.ts';
import type { StoreProperties } from '../../client/store-factory.ts';

export const REPOSITORY_FILE_NAME = 'repository.json';

export type RepositoryCluster =
  | { name: string; mode: 'FIXED_LIST'; transactionMember: string; sqlMember: string }
  | {
    name: string; mode: 'MULTICAST'; address: string; port: number;
    jdbcAddress: string; jdbcPort: number;
  }
  | { name: string; mode: 'PROVIDER'; providerUrl: string };

export interface Repository {
  clusters: RepositoryCluster[];
}

const MODES = ['MULTICAST', 'FIXED_LIST', 'PROVIDER'] as const;
const CLUSTER_MEMBERS = new Set(['name', 'mode', 'address', 'port', 'jdbcAddress', 'jdbcPort',
  'transactionMember', 'sqlMember', 'providerUrl']);
const IGNORED_TOP_MEMBERS = new Set(['clusters', 'header', 'nodes']);

/** The repository in `value` (parsed JSON); throws CONFIG_INVALID naming every bad member. */
export function readRepository(value: unknown, path: string):
  { repository: Repository; warnings: string[] } {
  const problems: string[] = [];
  const warnings: string[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StorageError('CONFIG_INVALID', `${path} must hold a JSON object with "clusters"`);
  }
  const top = value as Record<string, unknown>;
  for (const key of Object.keys(top)) {
    if (!IGNORED_TOP_MEMBERS.has(key)) warnings.push(`member "${key}" is not known`);
  }
  const list = top['clusters'];
  if (!Array.isArray(list)) {
    throw new StorageError('CONFIG_INVALID', `${path}: "clusters" must be an array of clusters`);
  }
  if (list.length > WEBAPI_REPOSITORY_CLUSTER_COUNT_MAX) {
    throw new StorageError('CONFIG_INVALID', `${path}: ${list.length} clusters, more than ` +
      `${WEBAPI_REPOSITORY_CLUSTER_COUNT_MAX}`);
  }
  const clusters = list.flatMap((entry: unknown, i) => {
    const cluster = readCluster(entry, `clusters[${i}]`, problems, warnings);
    return cluster === undefined ? [] : [cluster];
  });
  const seen = new Set<string>();
  for (const cluster of clusters) {
    if (seen.has(cluster.name)) problems.push(`cluster "${cluster.name}" is listed twice`);
    seen.add(cluster.name);
  }
  if (problems.length > 0) {
    throw new StorageError('CONFIG_INVALID', `${path}: ${problems.join('; ')}`);
  }
  return { repository: { clusters }, warnings: warnings.map((w) => `${path}: ${w}`) };
}

function readCluster(
  entry: unknown,
  where: string,
  problems: string[],
  warnings: string[],
): RepositoryCluster | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problems.push(`${where} must be an object`);
    return undefined;
  }
  const member = entry as Record<string, unknown>;
  for (const key of Object.keys(member)) {
    if (!CLUSTER_MEMBERS.has(key)) warnings.push(`member ${where}.${key} is not known`);
  }
  const text = (key: string, required: boolean): string => {
    const value = member[key];
    if (value === undefined || value === null) {
      if (required) problems.push(`${where}.${key} is required`);
      return '';
    }
    if (typeof value !== 'string') problems.push(`${where}.${key} must be a string`);
    return typeof value === 'string' ? value : '';
  };
  const port = (key: string): number => {
    const value = member[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65_535) {
      problems.push(`${where}.${key} must be a port number (1-65535)`);
      return 0;
    }
    return value;
  };
  const name = text('name', true);
  const mode = member['mode'] ?? 'MULTICAST';
  if (!MODES.includes(mode as (typeof MODES)[number])) {
    problems.push(`${where}.mode must be MULTICAST, FIXED_LIST or PROVIDER`);
    return undefined;
  }
  if (mode === 'FIXED_LIST') {
    const transactionMember = text('transactionMember', true);
    const sqlMember = text('sqlMember', false);
    const memberProblems: string[] = [];
    membersParse(transactionMember, memberProblems);
    if (sqlMember !== '') membersParse(sqlMember, memberProblems);
    problems.push(...memberProblems.map((problem) => `${where}: ${problem}`));
    return { name, mode, transactionMember, sqlMember };
  }
  if (mode === 'PROVIDER') {
    const providerUrl = text('providerUrl', true);
    if (!/^https?:\/\/./.test(providerUrl) || !URL.canParse(providerUrl)) {
      problems.push(`${where}.providerUrl must be an http:// or https:// URL`);
    }
    return { name, mode, providerUrl };
  }
  return {
    name, mode: 'MULTICAST', address: text('address', true), port: port('port'),
    jdbcAddress: text('jdbcAddress', false),
    jdbcPort: member['jdbcPort'] === undefined ? 0 : port('jdbcPort'),
  };
}

/** How the client library reaches this cluster. */
export function clusterLocator(cluster: RepositoryCluster): StoreProperties {
  switch (cluster.mode) {
    case 'FIXED_LIST': return { notificationMember: cluster.transactionMember };
    case 'PROVIDER': return { notificationProvider: cluster.providerUrl };
    case 'MULTICAST':
      return { notificationAddress: cluster.address, notificationPort: cluster.port };
  }
}

/** The default file: a FIXED_LIST entry for the node of this home. */
export function defaultRepository(local: {
  clusterName: string;
  transactionMember: string;
  sqlMember: string;
}): Record<string, unknown> {
  return {
    clusters: [{
      name: local.clusterName, mode: 'FIXED_LIST', transactionMember: local.transactionMember,
      sqlMember: local.sqlMember, providerUrl: null,
    }],
  };
}
