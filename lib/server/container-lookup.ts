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
import type { NameRef, SchemaRef } from '../protocol/wire-refs.ts';

/** The container `ref` names, or undefined when there is none by that name. */
export function containerFind(store: Store, ref: NameRef): ContainerEntry | undefined {
  const partition = store.partitionFor(ref.name);
  if (partition.id !== ref.partitionId) {
    throw new StorageError('PARTITION_MISMATCH', `container ${JSON.stringify(ref.name)} lives ` +
      `in partition ${partition.id}, not ${ref.partitionId}: the client's partition count ` +
      `differs from the node's (${store.options.partitionNum})`);
  }
  return partition.catalog.lookup(ref.name);
}

export function containerGet(store: Store, ref: NameRef): ContainerEntry {
  const entry = containerFind(store, ref);
  if (entry === undefined) {
    throw new StorageError('CONTAINER_NOT_FOUND',
      `container ${JSON.stringify(ref.name)} does not exist`);
  }
  return entry;
}

/** The container, when the request's rows or keys were encoded with its current schema. */
export function containerWithSchema(store: Store, ref: SchemaRef): ContainerEntry {
  const entry = containerGet(store, ref);
  if (entry.id !== ref.containerId) {
    throw new StorageError('SCHEMA_CHANGED', `container ${JSON.stringify(entry.schema.name)} ` +
      'was dropped and created again since the client read its schema; read it again');
  }
  if (entry.schema.schemaVersion !== ref.schemaVersion) {
    throw new StorageError('SCHEMA_CHANGED', `the schema of ${JSON.stringify(entry.schema.name)} ` +
      `is at version ${entry.schema.schemaVersion}, the request was encoded with version ` +
      `${ref.schemaVersion}; read the schema again`);
  }
  return entry;
}

/** A container with a row key, for requests by key (a keyless one has none to look rows up by). */
export function containerKeyed(entry: ContainerEntry): ContainerEntry {
  if (entry.schema.rowKeyColumnCount === 0) {
    throw new StorageError('KEY_REQUIRED',
      `container ${JSON.stringify(entry.schema.name)} has no row key`);
  }
  return entry;
}
