// The client library's entry point (GridDB's StoreFactory): applications import this file, and
// with it nothing of the engine.
//
//   import { getStore } from 'store/client';   // package.json "exports": dist/lib/client/
//   const store = getStore({ notificationMember: '127.0.0.1:10001', clusterName: 'myCluster',
//     username: 'admin', password: 'admin' });
//   const cpu = await store.putContainer({ name: 'cpu', type: 'TIME_SERIES', columns: [
//     { name: 'ts', type: 'TIMESTAMP' }, { name: 'usage', type: 'DOUBLE' }] });
//   await cpu.put([1_700_000_000_000, 0.5]);
//   const rows = await (await cpu.query('select *').fetch()).toArray();
//   await store.close();

import { ClientStore } from './client-store.ts';
import type { StoreProperties } from './client-properties.ts';

/** A store for these properties; it connects on first use (or at `connect()`). */
export function getStore(properties: StoreProperties): ClientStore {
  return new ClientStore(properties);
}

/** GridDB's shape: `StoreFactory.getInstance().getStore(properties)`. */
export const StoreFactory = {
  getInstance: () => ({ getStore }),
};

export { ClientStore, type RowKeyPredicate } from './client-store.ts';
export { ClientContainer } from './client-container.ts';
export { ClientQuery, RowSet, type FetchOption } from './client-query.ts';
export type { StoreProperties } from './client-properties.ts';
export type { ContainerInfo } from '../protocol/wire-schema.ts';
export type { ContainerDefinition } from '../schema/container-schema.ts';
export type { Row, RowKey, Value } from '../schema/column-type.ts';
export { StorageError, isStorageError, type StorageErrorCode } from '../base/errors.ts';
