// Container requests: put (create, or with `modifiable` extend), info, drop, list. The engine
// checks every definition (createContainer); this file adds what the protocol asks: the partition
// the client computed, statement ids for the changes, paging of the name list.

import { StorageError, isStorageError } from '../base/errors.ts';
import { blockSizeLimits } from '../base/limits.ts';
import type { ContainerDefinition } from '../schema/container-schema.ts';
import {
  DATABASE_ID_PUBLIC, containerBaseName, containerDatabaseId, containerKey,
  isQualifiedContainerKey, type DatabaseId,
} from '../schema/database-names.ts';
import { normalizeName } from '../schema/names.ts';
import { validateContainerDefinition } from '../schema/schema-validate.ts';
import type { ContainerInfo as EngineContainerInfo } from '../engine/catalog.ts';
import type { Store } from '../engine/store.ts';
import { protocolError } from '../protocol/frame.ts';
import {
  CONTAINER_DROP, CONTAINER_INFO, CONTAINER_LIST, CONTAINER_PUT,
} from '../protocol/messages-container.ts';
import type { ContainerInfo } from '../protocol/wire-schema.ts';
import { containerFind } from './container-lookup.ts';
import { handler, statementKey, type DispatchEntry } from './request-handler.ts';

export const CONTAINER_HANDLERS: readonly DispatchEntry[] = [
  handler(CONTAINER_PUT, (request, context) => context.statements.once(
    statementKey(context, CONTAINER_PUT.type, request.statement),
    async () => {
      const definition = definitionParse(request.definitionJson);
      const name = (definition as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && name.length > 0) {
        containerFind(context, { partitionId: request.partitionId, name });
        // The engine creates it under its key, in the connection's database.
        definition.name = containerKey(context.databaseId, name);
      }
      try {
        return wireInfo(await context.store.createContainer(definition));
      } catch (error) {
        if (!request.modifiable || !isStorageError(error, 'CONTAINER_EXISTS')) throw error;
        return wireInfo(await containerExtend(context.store, definition));
      }
    })),

  handler(CONTAINER_INFO, async (ref, context) => {
    const entry = containerFind(context, ref);
    const info = entry === undefined
      ? undefined : context.store.getContainerInfo(entry.schema.name);
    return info === undefined ? undefined : wireInfo(info);
  }),

  handler(CONTAINER_DROP, (request, context) => context.statements.once(
    statementKey(context, CONTAINER_DROP.type, request.statement),
    async () => {
      const entry = containerFind(context, request.ref);
      // The wait for open transactions is bounded by this connection's transaction timeout.
      return entry === undefined ? false : context.store.dropContainer(entry.schema.name,
        context.sessions.autoCommit.transactionTimeoutMs);
    })),

  handler(CONTAINER_LIST, async (request, context) => {
    const names = databaseContainerNames(context.store.listContainers(), context.databaseId);
    const end = request.limit === 0 ? names.length : request.offset + request.limit;
    return { total: names.length, names: names.slice(request.offset, end) };
  }),
];

/**
 * The engine's info as the protocol sends it (the same members, without the brands), named as
 * its database's users name it.
 */
export function wireInfo(info: EngineContainerInfo): ContainerInfo {
  return { ...info, name: containerBaseName(info.name) };
}

/** The names of `databaseId`'s containers among the engine's keys, in the keys' order. */
export function databaseContainerNames(keys: readonly string[], databaseId: DatabaseId): string[] {
  if (databaseId === DATABASE_ID_PUBLIC) return keys.filter((key) => !isQualifiedContainerKey(key));
  return keys.filter((key) => containerDatabaseId(key) === databaseId).map(containerBaseName);
}

function definitionParse(json: string): ContainerDefinition {
  try {
    const definition = JSON.parse(json) as ContainerDefinition;
    // Partitioning is SQL's (CREATE TABLE … PARTITION BY): a client cannot make or fake a data partition.
    if (definition !== null && typeof definition === 'object' &&
      (Object.hasOwn(definition, 'partitioning') || Object.hasOwn(definition, 'partitionOf'))) {
      throw new StorageError('INVALID_SCHEMA', 'a container definition cannot give partitioning; ' +
        'create a partitioned table with SQL CREATE TABLE … PARTITION BY');
    }
    return definition;
  } catch (error) {
    if (isStorageError(error)) throw error;
    throw protocolError('a container definition that is not JSON', error);
  }
}

/**
 * putContainer with modifiable: the container exists, and the definition may add columns at its
 * end. Anything else that differs is CONTAINER_EXISTS, as without modifiable.
 */
async function containerExtend(store: Store, definition: ContainerDefinition) {
  const wanted = validateContainerDefinition(definition,
    blockSizeLimits(store.options.storeBlockSizeBytes));
  const existing = store.getContainerInfo(wanted.name);
  if (existing === undefined) return store.createContainer(definition);
  const columnsKept = existing.columns.every((column, i) => {
    const other = wanted.columns[i];
    return other !== undefined && normalizeName(other.name) === normalizeName(column.name) &&
      other.type === column.type && other.array === column.array &&
      other.notNull === column.notNull && other.timePrecision === column.timePrecision;
  });
  const extendable = columnsKept && wanted.type === existing.type &&
    wanted.rowKeyColumnCount === existing.rowKeyColumnCount &&
    wanted.columns.length > existing.columns.length;
  if (!extendable) {
    throw new StorageError('CONTAINER_EXISTS', `container "${containerBaseName(existing.name)}" exists with a ` +
      'different schema; modifiable only adds columns at the end');
  }
  let info = existing;
  for (const column of wanted.columns.slice(existing.columns.length)) {
    info = await store.addColumn(existing.name, column);
  }
  return info;
}
