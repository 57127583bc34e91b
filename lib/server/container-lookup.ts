// Finding the container a request names, and checking what the request assumed about it: that it
// lives in the partition the client computed (PARTITION_MISMATCH otherwise: the client and the
// node disagree about partitionNum), and, for requests carrying rows or keys, that they were
// encoded with the container's current schema (SCHEMA_CHANGED otherwise: the client reads the
// info again).
//
// The catalog entry's schema is the engine's own object, so the row codec built for it is reused
// by every request (rowCodec caches by schema object).

import { StorageError } from '../base/errors.ts';
import type { ContainerEntry } from '../engine/catalog.ts';
import type { Store } from '../engine/store.ts';
import { containerBaseName, containerKey, type DatabaseId } from '../schema/database-names.ts';
import type { NameRef, SchemaRef } from '../protocol/wire-refs.ts';

/**
 * The container `ref` names in the connection's database, or undefined when there is none by
 * that name. The entry's schema name is its container key: pass that on to the engine.
 */
export function containerFind(scope: ContainerScope, ref: NameRef): ContainerEntry | undefined {
  const { store } = scope;
  const key = containerKey(scope.databaseId, ref.name);
  const partition = store.partitionFor(key);
  if (partition.id !== ref.partitionId) {
    throw new StorageError('PARTITION_MISMATCH', `container ${JSON.stringify(ref.name)} lives ` +
      `in partition ${partition.id}, not ${ref.partitionId}: the client's partition count ` +
      `differs from the node's (${store.options.partitionNum})`);
  }
  return partition.catalog.lookup(key);
}

/** Where a request's names are looked up: the store, in the connection's database. */
export interface ContainerScope {
  readonly store: Store;
  readonly databaseId: DatabaseId;
}

export function containerGet(scope: ContainerScope, ref: NameRef): ContainerEntry {
  const entry = containerFind(scope, ref);
  if (entry === undefined) {
    throw new StorageError('CONTAINER_NOT_FOUND',
      `container ${JSON.stringify(ref.name)} does not exist`);
  }
  return entry;
}

/** The container, when the request's rows or keys were encoded with its current schema. */
export function containerWithSchema(scope: ContainerScope, ref: SchemaRef): ContainerEntry {
  const entry = containerGet(scope, ref);
  if (entry.id !== ref.containerId) {
    throw new StorageError('SCHEMA_CHANGED', `container ${JSON.stringify(ref.name)} ` +
      'was dropped and created again since the client read its schema; read it again');
  }
  if (entry.schema.schemaVersion !== ref.schemaVersion) {
    throw new StorageError('SCHEMA_CHANGED', `the schema of ${JSON.stringify(ref.name)} ` +
      `is at version ${entry.schema.schemaVersion}, the request was encoded with version ` +
      `${ref.schemaVersion}; read the schema again`);
  }
  return entry;
}

/** A container with a row key, for requests by key (a keyless one has none to look rows up by). */
export function containerKeyed(entry: ContainerEntry): ContainerEntry {
  if (entry.schema.rowKeyColumnCount === 0) {
    throw new StorageError('KEY_REQUIRED',
      `container ${JSON.stringify(containerBaseName(entry.schema.name))} has no row key`);
  }
  return entry;
}
