// Client stores of the web API, one per (cluster, database, user, password), kept between
// requests: GridDB's web API opens a connection per request, which here would cost a TCP
// connection and an authentication each time. At most WEBAPI_STORE_POOL_SIZE_MAX are open; the
// least recently used is closed to make room. A store whose credentials the node refused, or
// whose node could not be reached, is closed at once, so a later request tries afresh (and a
// changed password is noticed by the next connection the store opens, not before).
//
// The password is part of the key only as its SHA-256, so two callers with different passwords
// for one user never share a store.

import { createHash } from 'node:crypto';
import { isStorageError, StorageError } from '../../base/errors.ts';
import { WEBAPI_STORE_POOL_SIZE_MAX } from '../../base/limits.ts';
import { getStore, type ClientStore, type StoreProperties } from '../../client/store-factory.ts';
import { clusterLocator, type RepositoryCluster } from '../config/repository.ts';
import type { WebApiSettings } from '../config/webapi-settings.ts';
import { WebApiError } from '../errors/webapi-error.ts';
import type { Credentials } from './basic-auth.ts';

export interface StoreTarget {
  cluster: RepositoryCluster;
  database: string;
  credentials: Credentials;
}

/** Errors after which a store is not kept: its credentials or its route are wrong. */
const EVICTING_CODES = new Set(['AUTHENTICATION_FAILED', 'CLUSTER_NAME_INVALID',
  'CONNECTION_FAILED', 'DATABASE_NOT_FOUND', 'USER_NOT_FOUND', 'USER_INVALID']);

export class StorePool {
  /** Insertion order is use order: the first entry is the least recently used. */
  private readonly stores = new Map<string, ClientStore>();
  private closed = false;

  constructor(
    private readonly settings: WebApiSettings,
    private readonly sizeMax = WEBAPI_STORE_POOL_SIZE_MAX,
  ) {}

  get size(): number {
    return this.stores.size;
  }

  /** Runs `body` with the target's store; drops the store when the node refused it. */
  async use<T>(target: StoreTarget, body: (store: ClientStore) => Promise<T>): Promise<T> {
    const key = keyOf(target);
    const store = this.acquire(key, target);
    try {
      return await body(store);
    } catch (error) {
      if (isStorageError(error) && EVICTING_CODES.has(error.code)) await this.evict(key, store);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const stores = [...this.stores.values()];
    this.stores.clear();
    for (const store of stores) await store.close();
  }

  private acquire(key: string, target: StoreTarget): ClientStore {
    if (this.closed) throw new StorageError('CLOSED', 'the web API is stopping');
    const existing = this.stores.get(key);
    if (existing !== undefined) {
      this.stores.delete(key);
      this.stores.set(key, existing);
      return existing;
    }
    if (target.credentials.user === '') {
      throw new StorageError('AUTHENTICATION_FAILED', 'authentication failed (empty user name)');
    }
    if (target.cluster.mode === 'MULTICAST') {
      throw new WebApiError(500, `Cluster "${target.cluster.name}" is a MULTICAST cluster: ` +
        'multicast discovery is not supported; list it as FIXED_LIST or PROVIDER in ' +
        'repository.json');
    }
    const store = getStore(this.propertiesOf(target));
    while (this.stores.size >= this.sizeMax) {
      const [oldestKey, oldest] = this.stores.entries().next().value!;
      this.stores.delete(oldestKey);
      // Requests still using it finish or fail on their own; it is not handed out again.
      void oldest.close();
    }
    this.stores.set(key, store);
    return store;
  }

  private async evict(key: string, store: ClientStore): Promise<void> {
    if (this.stores.get(key) === store) this.stores.delete(key);
    await store.close();
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
      ...(settings.transactionTimeoutS > 0
        ? { transactionTimeout: settings.transactionTimeoutS } : {}),
    };
  }
}

function keyOf(target: StoreTarget): string {
  const passwordHash = createHash('sha256').update(target.credentials.password).digest('hex');
  return JSON.stringify([target.cluster.name, target.database, target.credentials.user,
    passwordHash]);
}
