// Client stores of the web API, one per (cluster, database, user, password), kept between
// requests: GridDB's web API opens a connection per request, which here would cost a TCP
// connection and an authentication each time. At most WEBAPI_STORE_POOL_SIZE_MAX are open; the
// least recently used is let go to make room. A store whose credentials the node refused, or
// whose node could not be reached, is let go at once, so a later request tries afresh. A store let
// go is closed when the last request using it is done: a request never sees its store closed
// under it.
//
// In the node's own process (lib/node/node-webapi.ts) the stores of the node's cluster reach it
// through in-process sockets (LocalCluster), under the node's checks as a TCP client's are. There
// the pool also sees the node's access catalog (users, passwords, privileges, databases): a store
// made before the catalog last changed is let go at its next request, so a password changed or a
// user dropped refuses the very next request made with the old credentials (a new store logs in
// afresh), as GridDB's web API, which logs in with every request, does. A node in another process
// (store-webapi) is not watched: there a change is noticed by the next connection the store
// opens, not before.
//
// The password is part of the key only as its SHA-256, so two callers with different passwords
// for one user never share a store.
//
// `verify` is what every request does before its body is read: a store whose credentials the
// node has accepted once is verified and costs nothing more; a new one costs one round trip.
// A node that cannot be reached is a 500 that names the cluster and its address (GridDB's status
// for a node failure), never a 401. Every request to the node is bounded by the transaction
// timeout plus WEBAPI_NODE_ANSWER_MARGIN_MS.

import { createHash } from 'node:crypto';
import { isStorageError, StorageError } from '../../base/errors.ts';
import {
  WEBAPI_NODE_ANSWER_MARGIN_MS, WEBAPI_STORE_POOL_SIZE_MAX,
} from '../../base/limits.ts';
import { ClientStore } from '../../client/client-store.ts';
import type { ClientTransport } from '../../client/client-transport.ts';
import type { StoreProperties } from '../../client/store-factory.ts';
import { clusterLocator, type RepositoryCluster } from '../config/repository.ts';
import type { WebApiSettings } from '../config/webapi-settings.ts';
import { WebApiError } from '../errors/webapi-error.ts';
import type { Credentials } from './basic-auth.ts';

export interface StoreTarget {
  cluster: RepositoryCluster;
  database: string;
  credentials: Credentials;
}

/**
 * The cluster served by the process the web API runs in (lib/node/node-webapi.ts): its stores
 * reach the node through `transport`, not TCP; the node checks them as it checks any client.
 */
export interface LocalCluster {
  name: string;
  transport: ClientTransport;
  /**
   * The node's access catalog now: another value once users, passwords, privileges or databases
   * changed (compared by identity). The change is in force before its statement is answered.
   */
  accessCatalog(): unknown;
}

/** Errors after which a store is not kept: its credentials or its route are wrong. */
const EVICTING_CODES = new Set(['AUTHENTICATION_FAILED', 'CLUSTER_NAME_INVALID',
  'CONNECTION_FAILED', 'DATABASE_NOT_FOUND', 'USER_NOT_FOUND', 'USER_INVALID']);

interface PooledStore {
  readonly store: ClientStore;
  /** Requests using it now. */
  users: number;
  /** Out of the pool: closed when its last user is done. */
  released: boolean;
  /** The node has accepted its credentials. */
  verified: boolean;
  /** LocalCluster.accessCatalog() when the store was made; undefined for another cluster. */
  readonly accessCatalog: unknown;
}

export class StorePool {
  /** Insertion order is use order: the first entry is the least recently used. */
  private readonly stores = new Map<string, PooledStore>();
  private closed = false;

  constructor(
    private readonly settings: WebApiSettings,
    private readonly sizeMax = WEBAPI_STORE_POOL_SIZE_MAX,
    private readonly local?: LocalCluster,
  ) {}

  get size(): number {
    return this.stores.size;
  }

  /** Runs `body` with the target's store; drops the store when the node refused it. */
  async use<T>(target: StoreTarget, body: (store: ClientStore) => Promise<T>): Promise<T> {
    const key = keyOf(target);
    const entry = this.acquire(key, target);
    entry.users++;
    try {
      return await body(entry.store);
    } catch (error) {
      if (isStorageError(error) && EVICTING_CODES.has(error.code)) this.release(key, entry);
      throw nodeErrorOf(target, error, target.cluster.name === this.local?.name);
    } finally {
      entry.users--;
      if (entry.released && entry.users === 0) await entry.store.close();
    }
  }

  /** Checks the target's credentials with the node, once per pooled store. */
  async verify(target: StoreTarget): Promise<void> {
    await this.use(target, async (store) => {
      const entry = this.stores.get(keyOf(target));
      if (entry?.store === store && entry.verified) return;
      await store.connect();
      if (entry?.store === store) entry.verified = true;
    });
  }

  /** Lets every store go; the server has finished its requests before this. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.stores.entries()];
    for (const [key, entry] of entries) this.release(key, entry);
    for (const [, entry] of entries) if (entry.users === 0) await entry.store.close();
  }

  private acquire(key: string, target: StoreTarget): PooledStore {
    if (this.closed) throw new StorageError('CLOSED', 'the web API is stopping');
    const local = target.cluster.name === this.local?.name ? this.local : undefined;
    const existing = this.stores.get(key);
    if (existing !== undefined) {
      if (local !== undefined && existing.accessCatalog !== local.accessCatalog()) {
        // Its login was checked against an older catalog: a new store logs in again.
        this.release(key, existing);
        if (existing.users === 0) void existing.store.close();
      } else {
        this.stores.delete(key);
        this.stores.set(key, existing);
        return existing;
      }
    }
    if (target.credentials.user === '') {
      throw new StorageError('AUTHENTICATION_FAILED', 'authentication failed (empty user name)');
    }
    if (target.cluster.mode === 'MULTICAST') {
      throw new WebApiError(500, `Cluster "${target.cluster.name}" is a MULTICAST cluster: ` +
        'multicast discovery is not supported; list it as FIXED_LIST or PROVIDER in ' +
        'repository.json');
    }
    const entry: PooledStore = {
      store: new ClientStore(this.propertiesOf(target), local?.transport),
      users: 0, released: false, verified: false, accessCatalog: local?.accessCatalog(),
    };
    while (this.stores.size >= this.sizeMax) {
      const [oldestKey, oldest] = this.stores.entries().next().value!;
      this.release(oldestKey, oldest);
      if (oldest.users === 0) void oldest.store.close();
    }
    this.stores.set(key, entry);
    return entry;
  }

  /** Takes a store out of the pool; whoever uses it last closes it. */
  private release(key: string, entry: PooledStore): void {
    if (this.stores.get(key) === entry) this.stores.delete(key);
    entry.released = true;
  }

  private propertiesOf(target: StoreTarget): StoreProperties {
    const { settings } = this;
    return {
      ...clusterLocator(target.cluster),
      clusterName: target.cluster.name,
      database: target.database,
      username: target.credentials.user,
      password: target.credentials.password,
      applicationName: settings.applicationName,
      failoverTimeout: settings.failoverTimeoutS,
      ...(settings.transactionTimeoutS > 0 ? {
        transactionTimeout: settings.transactionTimeoutS,
        requestTimeoutMs: settings.transactionTimeoutS * 1000 + WEBAPI_NODE_ANSWER_MARGIN_MS,
      } : {}),
    };
  }
}

/** A node that could not be reached: 500, saying so and where (the client's error as cause). */
function nodeErrorOf(target: StoreTarget, error: unknown, inProcess: boolean): unknown {
  if (!isStorageError(error) || error.code !== 'CONNECTION_FAILED') return error;
  const locator = clusterLocator(target.cluster);
  const where = inProcess ? 'in this process (it is stopping)'
    : `at ${String(locator.notificationMember ?? locator.notificationProvider ?? 'no address')}`;
  return new WebApiError(500, `Failed to connect to cluster "${target.cluster.name}": the node ` +
    `could not be reached ${where} [${error.errorNumber}:CONNECTION_FAILED] ` +
    error.message, error.errorNumber, { cause: error });
}

/** Keys made, per target: a request's target is keyed by verify and by each use. */
const keys = new WeakMap<StoreTarget, string>();
/** Each password's SHA-256 once per credentials (basic-auth.ts gives a caller the same object). */
const passwordHashes = new WeakMap<Credentials, string>();

function keyOf(target: StoreTarget): string {
  let key = keys.get(target);
  if (key === undefined) {
    key = keyText(target);
    keys.set(target, key);
  }
  return key;
}

function keyText(target: StoreTarget): string {
  const { credentials } = target;
  let passwordHash = passwordHashes.get(credentials);
  if (passwordHash === undefined) {
    passwordHash = createHash('sha256').update(credentials.password).digest('hex');
    passwordHashes.set(credentials, passwordHash);
  }
  return JSON.stringify([target.cluster.name, target.database, credentials.user, passwordHash]);
}
