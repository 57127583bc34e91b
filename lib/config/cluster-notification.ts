// How the nodes of a cluster find each other (gs_cluster.json `/cluster/notification*`): a fixed
// list of node addresses (FIXED_LIST, the default), multicast (MULTICAST) or an address provider
// polled over HTTP (PROVIDER). Exactly one may be set; setting two is an error, since a node and
// its clients would not agree on which one the cluster uses.
//
// The transaction and sql services have multicast groups of their own, for client discovery in
// MULTICAST mode; they are read here too. Every multicast address falls back to the root
// `/notificationAddress`, then to 239.0.0.1.

import { CLUSTER_NAME_LENGTH_MAX, NOTIFICATION_MEMBER_COUNT_MAX } from '../base/limits.ts';
import { isAddress, type OptionReader } from '../base/option-reader.ts';

export interface Endpoint {
  address: string;
  port: number;
}

/** The addresses of one node: a FIXED_LIST entry, or one element of a provider's answer. */
export interface NodeAddressSet {
  cluster: Endpoint;
  sync: Endpoint;
  system: Endpoint;
  transaction: Endpoint;
  sql?: Endpoint;
  /** Where clients that ask for `connectionRoute=PUBLIC` connect instead (since 5.1). */
  transactionPublic?: Endpoint;
  sqlPublic?: Endpoint;
}

export interface MulticastGroup {
  address: string;
  port: number;
  intervalMs: number;
}

export type ClusterNotification =
  /** `members` empty means the default: this node alone, at its own service addresses. */
  | { mode: 'FIXED_LIST'; members: NodeAddressSet[] }
  | { mode: 'MULTICAST'; group: MulticastGroup }
  | { mode: 'PROVIDER'; url: string; updateIntervalMs: number };

export type NotificationMode = ClusterNotification['mode'];

export const MULTICAST_ADDRESS_DEFAULT = '239.0.0.1';
export const MULTICAST_PORTS_DEFAULT = { cluster: 20_000, transaction: 31_999, sql: 41_999 } as const;
export const NOTIFICATION_INTERVAL_MS_DEFAULT = 5_000;
/** Notification and provider intervals: from 1 s to below 2^31 s (GridDB's range). */
export const NOTIFICATION_INTERVAL_RANGE = { minMs: 1_000, maxMs: (2 ** 31 - 1) * 1_000 };

const REQUIRED_SERVICES = ['cluster', 'sync', 'system', 'transaction'] as const;
const OPTIONAL_SERVICES = ['sql', 'transactionPublic', 'sqlPublic'] as const;

/** Cluster names: ASCII letters, digits, `_ - . / =`, 1 to 64 characters (surface.md §4.6). */
export const CLUSTER_NAME_PATTERN =
  new RegExp(`^[A-Za-z0-9_\\-./=]{1,${CLUSTER_NAME_LENGTH_MAX}}$`);

/** The multicast groups of the cluster, transaction and sql services. */
export function readMulticastGroups(read: OptionReader):
  Record<keyof typeof MULTICAST_PORTS_DEFAULT, MulticastGroup> {
  const rootAddress = read.multicastAddress('cluster', '/notificationAddress',
    MULTICAST_ADDRESS_DEFAULT);
  const group = (service: keyof typeof MULTICAST_PORTS_DEFAULT): MulticastGroup => ({
    address: read.multicastAddress('cluster', `/${service}/notificationAddress`, rootAddress),
    port: read.port('cluster', `/${service}/notificationPort`, MULTICAST_PORTS_DEFAULT[service]),
    intervalMs: read.duration('cluster', `/${service}/notificationInterval`,
      NOTIFICATION_INTERVAL_MS_DEFAULT, NOTIFICATION_INTERVAL_RANGE),
  });
  return { cluster: group('cluster'), transaction: group('transaction'), sql: group('sql') };
}

export function readClusterNotification(read: OptionReader, group: MulticastGroup):
  ClusterNotification {
  const hasAddress = read.has('cluster', '/cluster/notificationAddress');
  const hasMember = read.has('cluster', '/cluster/notificationMember');
  const hasProvider = read.has('cluster', '/cluster/notificationProvider');
  const provider = readProvider(read);
  const members = readMembers(read);
  if (Number(hasAddress) + Number(hasMember) + Number(hasProvider) > 1) {
    const set = [hasAddress && 'notificationAddress', hasMember && 'notificationMember',
      hasProvider && 'notificationProvider'].filter(Boolean).join(', ');
    read.problems.push(`gs_cluster.json /cluster: ${set} are set together; set only one of ` +
      'notificationAddress (MULTICAST), notificationMember (FIXED_LIST) and ' +
      'notificationProvider (PROVIDER)');
  }
  if (hasProvider) return { mode: 'PROVIDER', ...provider };
  if (hasMember) return { mode: 'FIXED_LIST', members };
  // The root address alone also chooses multicast, as in GridDB's source-tree file.
  if (hasAddress || read.has('cluster', '/notificationAddress')) return { mode: 'MULTICAST', group };
  return { mode: 'FIXED_LIST', members: [] };
}

function readProvider(read: OptionReader): { url: string; updateIntervalMs: number } {
  const path = '/cluster/notificationProvider';
  const value = read.member('cluster', path);
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (value !== undefined && !isObject) {
    read.reject('cluster', path, value, 'an object with url and updateInterval');
  }
  const url = read.member('cluster', `${path}/url`);
  if (isObject && !isHttpUrl(url)) {
    read.reject('cluster', `${path}/url`, url, 'an http:// or https:// URL');
  }
  return {
    url: isHttpUrl(url) ? url : '',
    updateIntervalMs: read.duration('cluster', `${path}/updateInterval`,
      NOTIFICATION_INTERVAL_MS_DEFAULT, NOTIFICATION_INTERVAL_RANGE),
  };
}

function readMembers(read: OptionReader): NodeAddressSet[] {
  const path = '/cluster/notificationMember';
  const value = read.member('cluster', path);
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length === 0 || value.length > NOTIFICATION_MEMBER_COUNT_MAX) {
    read.reject('cluster', path, value,
      `a list of 1 to ${NOTIFICATION_MEMBER_COUNT_MAX} node address objects`);
    return [];
  }
  const members: NodeAddressSet[] = [];
  const seen = new Set<string>();
  value.forEach((item: unknown, index) => {
    const member = readMember(read, `${path}/${index}`, item);
    if (member === undefined) return;
    const key = `${member.cluster.address}:${member.cluster.port}`;
    if (seen.has(key)) {
      read.reject('cluster', `${path}/${index}/cluster`, member.cluster,
        `a node address not listed before (${key} is listed twice)`);
    }
    seen.add(key);
    members.push(member);
  });
  return members;
}

function readMember(read: OptionReader, path: string, item: unknown): NodeAddressSet | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    read.reject('cluster', path, item, `an object with ${REQUIRED_SERVICES.join(', ')} addresses`);
    return undefined;
  }
  const object = item as Record<string, unknown>;
  const endpoints: Partial<Record<string, Endpoint>> = {};
  let ok = true;
  for (const service of [...REQUIRED_SERVICES, ...OPTIONAL_SERVICES]) {
    const value = object[service];
    if (value === undefined && (OPTIONAL_SERVICES as readonly string[]).includes(service)) continue;
    const endpoint = readEndpoint(read, `${path}/${service}`, value);
    if (endpoint === undefined) ok = false;
    else endpoints[service] = endpoint;
  }
  if (!ok) return undefined;
  return endpoints as unknown as NodeAddressSet;
}

function readEndpoint(read: OptionReader, path: string, value: unknown): Endpoint | undefined {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown> : undefined;
  const { address, port } = object ?? {};
  const portOk = typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65_535;
  if (object === undefined || !isAddress(address) || !portOk) {
    read.reject('cluster', path, value,
      'an object {"address": an IP address or host name, "port": 1 to 65535}');
    return undefined;
  }
  return { address, port };
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
