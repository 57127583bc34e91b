// gs_sh's connection to a node (spec/surface.md §6.2 connect/disconnect): a client store
// (lib/client) on the cluster definition's transaction services, as the setuser credentials.
// The defaults come from GS_HOME, as for the other commands: `$cluster0` is the running node of
// GS_HOME (its conf/store.endpoints.json, else conf/gs_node.json's transaction service, else
// 127.0.0.1:10001) with the cluster name of conf/gs_cluster.json, and `$node0` its system service.
// Ctrl-C drops the store (its connections close, so a request in flight is given up and its result
// set on the node is freed); the next sub-command that needs the node connects again.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getStore, type ClientStore } from '../../lib/client/store-factory.ts';
import { SERVICE_PORTS_DEFAULT } from '../../lib/config/node-services.ts';
import { readNodeEndpoints } from '../store-node-process.ts';
import { MESSAGES, ShellError } from './shell-messages.ts';
import type { ClusterDefinition, NodeDefinition } from './shell-variables.ts';

export const DATABASE_PUBLIC = 'public';
const CLUSTER_NAME_DEFAULT = 'myCluster';
/** Seconds the client keeps trying to reach the node before connect fails. */
const CONNECT_TIMEOUT_S = 5;

export interface Credentials {
  user: string;
  password: string;
}

/** `$cluster0` and `$node0`: the node of GS_HOME. */
export function homeDefinitions(home: string | undefined): { cluster: ClusterDefinition; node: NodeDefinition } {
  let transaction = `127.0.0.1:${SERVICE_PORTS_DEFAULT.transaction}`;
  let system = { host: '127.0.0.1', systemPort: SERVICE_PORTS_DEFAULT.system as number };
  let clusterName = CLUSTER_NAME_DEFAULT;
  if (home !== undefined && home !== '') {
    const nodeJson = readJson(join(home, 'conf', 'gs_node.json')) as {
      serviceAddress?: unknown;
      transaction?: { serviceAddress?: unknown; servicePort?: unknown };
      system?: { serviceAddress?: unknown; servicePort?: unknown };
    } | undefined;
    const root = typeof nodeJson?.serviceAddress === 'string' ? nodeJson.serviceAddress : '127.0.0.1';
    const address = (service: { serviceAddress?: unknown; servicePort?: unknown } | undefined,
      port: number) => ({
      host: typeof service?.serviceAddress === 'string' ? service.serviceAddress : root,
      port: typeof service?.servicePort === 'number' && service.servicePort > 0 ? service.servicePort : port,
    });
    const t = address(nodeJson?.transaction, SERVICE_PORTS_DEFAULT.transaction);
    const s = address(nodeJson?.system, SERVICE_PORTS_DEFAULT.system);
    transaction = `${t.host}:${t.port}`;
    system = { host: s.host, systemPort: s.port };
    // A running node says where it listens (its ports may have been port 0's).
    const running = readNodeEndpoints(home);
    if (running !== undefined) {
      transaction = running.transaction;
      const colon = running.system.lastIndexOf(':');
      system = { host: running.system.slice(0, colon), systemPort: Number(running.system.slice(colon + 1)) };
    }
    const clusterJson = readJson(join(home, 'conf', 'gs_cluster.json')) as
      { cluster?: { clusterName?: unknown } } | undefined;
    const name = clusterJson?.cluster?.clusterName;
    if (typeof name === 'string' && name !== '') clusterName = name;
  }
  return {
    cluster: { kind: 'cluster', clusterName, members: transaction, nodes: ['node0'] },
    node: { kind: 'node', ...system },
  };
}

function readJson(path: string): unknown {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export interface ConnectionTarget {
  clusterVariable: string;
  cluster: ClusterDefinition;
  credentials: Credentials;
  database: string;
  sinceMs: number;
}

export class ShellConnection {
  private target: ConnectionTarget | undefined;
  private store: ClientStore | undefined;

  get current(): ConnectionTarget | undefined {
    return this.target;
  }

  async connect(target: Omit<ConnectionTarget, 'sinceMs'>): Promise<void> {
    await this.disconnect();
    const store = openStore(target.cluster, target.credentials, target.database);
    try {
      await store.connect();
      // A login is checked at the first request: list the containers to find a wrong password now.
      await store.getContainerNames();
    } catch (error) {
      await store.close().catch(() => undefined);
      throw new ShellError(`D20300: The connection attempt failed (${target.cluster.members}): ` +
        `${(error as Error).message}`);
    }
    this.store = store;
    this.target = { ...target, sinceMs: Date.now() };
  }

  /** The store of the connection, opened again after a Ctrl-C dropped it. */
  async require(): Promise<ClientStore> {
    if (this.target === undefined) throw new ShellError(MESSAGES.connectionClosed);
    if (this.store === undefined) {
      const store = openStore(this.target.cluster, this.target.credentials, this.target.database);
      await store.connect();
      this.store = store;
    }
    return this.store;
  }

  /** The password the connection logs in with from now on (setpassword of oneself). */
  passwordChanged(password: string): void {
    if (this.target !== undefined) this.target = { ...this.target, credentials: { ...this.target.credentials, password } };
  }

  /** Ctrl-C: closes the store's connections; the target stays, so the next use connects again. */
  async drop(): Promise<void> {
    const store = this.store;
    this.store = undefined;
    await store?.close().catch(() => undefined);
  }

  async disconnect(): Promise<boolean> {
    const was = this.target !== undefined;
    await this.drop();
    this.target = undefined;
    return was;
  }
}

function openStore(cluster: ClusterDefinition, credentials: Credentials, database: string): ClientStore {
  return getStore({
    database,
    notificationMember: cluster.members, clusterName: cluster.clusterName,
    username: credentials.user, password: credentials.password,
    applicationName: 'gs_sh', failoverTimeout: CONNECT_TIMEOUT_S,
  });
}
