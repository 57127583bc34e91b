// The connection properties of the client, GridDB's names and rules (the seed's "Client connection
// properties"), checked all at once: every problem is named in one CONFIG_INVALID.
//
// How to find the cluster: exactly one of
//   notificationMember    "host:port[,host:port…]": the transaction services (FIXED_LIST)
//   notificationProvider  the URL of an address provider (PROVIDER clusters): a JSON array of
//                         nodes, each with `transaction: {address, port}` (and
//                         `transactionPublic`)
//   host + port           one node, directly
//   notificationAddress   a MULTICAST cluster: not supported yet (NOT_SUPPORTED)
// connectionRoute "PUBLIC" takes a provider's `transactionPublic` addresses.
//
// Times follow GridDB: transactionTimeout and failoverTimeout in seconds. The rest are ours and say
// their unit.

import { StorageError } from '../base/errors.ts';
import { CLIENT_CONNECTION_POOL_SIZE_MAX } from '../base/limits.ts';
import type { ClientTransport } from './client-transport.ts';

export interface StoreProperties {
  notificationMember?: string;
  notificationProvider?: string;
  notificationAddress?: string;
  notificationPort?: number | string;
  host?: string;
  port?: number | string;
  clusterName?: string;
  /** GridDB's `user`; either spelling. */
  username?: string;
  user?: string;
  password?: string;
  /** Only `public` exists. */
  database?: string;
  applicationName?: string;
  /** `PUBLIC` selects the external route; absent, the internal one. */
  connectionRoute?: string;
  /** Seconds a transaction or a lock wait may last (capped by the node's limit). */
  transactionTimeout?: number | string;
  /** Seconds the client keeps trying to reach a node, and to retry after a broken connection. */
  failoverTimeout?: number | string;
  /** Milliseconds to wait for the answer to one request. */
  requestTimeoutMs?: number | string;
  /** Connections kept to a node; requests are spread over them. */
  connectionPoolSize?: number | string;
}

export interface NodeAddress {
  host: string;
  port: number;
}

export type ClusterLocator =
  | { kind: 'members'; members: NodeAddress[] }
  | { kind: 'provider'; url: URL };

export interface ClientOptions {
  locator: ClusterLocator;
  connectionRoute: 'PUBLIC' | 'INTERNAL';
  clusterName: string;
  user: string;
  password: string;
  database: string;
  applicationName: string;
  /** 0: the node's transactionTimeoutLimit. */
  transactionTimeoutMs: number;
  failoverTimeoutMs: number;
  requestTimeoutMs: number;
  connectionPoolSize: number;
  /** Not TCP: how to reach the node (client-transport.ts); never from StoreProperties. */
  transport?: ClientTransport;
}

export const DATABASE_DEFAULT = 'public';
export const FAILOVER_TIMEOUT_MS_DEFAULT = 60_000;
/** Longer than the default transactionTimeoutLimit (300 s): a lock wait is a legitimate wait. */
export const REQUEST_TIMEOUT_MS_DEFAULT = 330_000;
export const CONNECTION_POOL_SIZE_DEFAULT = 4;

const KNOWN_PROPERTIES = new Set([
  'notificationMember', 'notificationProvider', 'notificationAddress', 'notificationPort', 'host',
  'port', 'clusterName', 'username', 'user', 'password', 'database', 'applicationName',
  'connectionRoute', 'transactionTimeout', 'failoverTimeout', 'requestTimeoutMs',
  'connectionPoolSize',
]);

export function resolveClientOptions(properties: StoreProperties): ClientOptions {
  if (typeof properties !== 'object' || properties === null) {
    throw new StorageError('CONFIG_INVALID', 'store properties must be an object');
  }
  const problems: string[] = [];
  for (const key of Object.keys(properties)) {
    if (!KNOWN_PROPERTIES.has(key)) problems.push(`unknown property ${JSON.stringify(key)}`);
  }
  const locator = locatorOf(properties, problems);
  const text = (name: keyof StoreProperties, fallback?: string): string => {
    const value = properties[name] ?? fallback;
    if (typeof value === 'string' && value.length > 0) return value;
    problems.push(`${name} must be a non-empty string`);
    return '';
  };
  const bothUserNames = properties.username !== undefined && properties.user !== undefined;
  if (bothUserNames && properties.username !== properties.user) {
    problems.push('username and user differ; give one');
  }
  const user = text(properties.username === undefined && properties.user !== undefined
    ? 'user' : 'username');
  const route = properties.connectionRoute ?? 'INTERNAL';
  if (route !== 'PUBLIC' && route !== 'INTERNAL') {
    problems.push(`connectionRoute must be PUBLIC (or absent), not ${JSON.stringify(route)}`);
  }
  const options: ClientOptions = {
    locator: locator ?? { kind: 'members', members: [] },
    connectionRoute: route === 'PUBLIC' ? 'PUBLIC' : 'INTERNAL',
    clusterName: text('clusterName'),
    user,
    password: typeof properties.password === 'string' ? properties.password
      : (problems.push('password must be a string'), ''),
    database: text('database', DATABASE_DEFAULT),
    applicationName: properties.applicationName === undefined ? '' : text('applicationName'),
    transactionTimeoutMs: wholeNumber(properties.transactionTimeout, 'transactionTimeout', 0,
      problems, { min: 1, max: 2 ** 31 / 1000, scale: 1000 }),
    failoverTimeoutMs: wholeNumber(properties.failoverTimeout, 'failoverTimeout',
      FAILOVER_TIMEOUT_MS_DEFAULT, problems, { min: 0, max: 2 ** 31 / 1000, scale: 1000 }),
    requestTimeoutMs: wholeNumber(properties.requestTimeoutMs, 'requestTimeoutMs',
      REQUEST_TIMEOUT_MS_DEFAULT, problems, { min: 1, max: 2 ** 31 - 1, scale: 1 }),
    connectionPoolSize: wholeNumber(properties.connectionPoolSize, 'connectionPoolSize',
      CONNECTION_POOL_SIZE_DEFAULT, problems,
      { min: 1, max: CLIENT_CONNECTION_POOL_SIZE_MAX, scale: 1 }),
  };
  if (problems.length > 0) {
    throw new StorageError('CONFIG_INVALID', `store properties: ${problems.join('; ')}`);
  }
  return options;
}

function locatorOf(properties: StoreProperties, problems: string[]): ClusterLocator | undefined {
  const given = (['notificationMember', 'notificationProvider', 'notificationAddress'] as const)
    .filter((name) => properties[name] !== undefined);
  const direct = properties.host !== undefined || properties.port !== undefined;
  if (given.length + (direct ? 1 : 0) > 1) {
    const named = [...given, ...(direct ? ['host/port'] : [])].join(' and ');
    problems.push(`only one of notificationMember, notificationProvider, notificationAddress ` +
      `and host/port may be given, not ${named}`);
    return undefined;
  }
  if (properties.notificationAddress !== undefined) {
    throw new StorageError('NOT_SUPPORTED', 'multicast discovery (notificationAddress) is not ' +
      'supported; use notificationMember or notificationProvider');
  }
  if (properties.notificationMember !== undefined) {
    return { kind: 'members', members: membersParse(properties.notificationMember, problems) };
  }
  if (properties.notificationProvider !== undefined) {
    try {
      return { kind: 'provider', url: new URL(properties.notificationProvider) };
    } catch {
      problems.push(`notificationProvider ${JSON.stringify(properties.notificationProvider)} ` +
        'is not a URL');
      return undefined;
    }
  }
  if (!direct) {
    problems.push('give notificationMember, notificationProvider, or host and port');
    return undefined;
  }
  const port = wholeNumber(properties.port, 'port', -1, problems,
    { min: 1, max: 65_535, scale: 1 });
  if (typeof properties.host !== 'string' || properties.host.length === 0) {
    problems.push('host must be a non-empty string');
    return undefined;
  }
  return { kind: 'members', members: [{ host: properties.host, port }] };
}

/** "host:port,host:port" → addresses; an IPv6 host is written in brackets ("[::1]:10001"). */
export function membersParse(text: unknown, problems: string[]): NodeAddress[] {
  if (typeof text !== 'string' || text.trim().length === 0) {
    problems.push('notificationMember must be "host:port[,host:port...]"');
    return [];
  }
  return text.split(',').flatMap((item) => {
    const match = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(item);
    const port = match === null ? NaN : Number(match[2]);
    if (match === null || port < 1 || port > 65_535) {
      problems.push(`notificationMember entry ${JSON.stringify(item)} is not host:port`);
      return [];
    }
    return [{ host: match[1]!.replace(/^\[|\]$/g, ''), port }];
  });
}

/** A whole number (or its decimal text) in [min, max], times `scale`; `fallback` when absent. */
function wholeNumber(
  value: unknown,
  name: string,
  fallback: number,
  problems: string[],
  range: { min: number; max: number; scale: number },
): number {
  if (value === undefined) return fallback;
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < range.min ||
    number > range.max) {
    problems.push(`${name} must be a whole number from ${range.min} to ${range.max}, ` +
      `not ${JSON.stringify(value)}`);
    return fallback;
  }
  return number * range.scale;
}
