// The data partitions of a partitioned table (lib/schema/table-partitioning.ts) in a Store: which
// exist, where a new one goes, creating one when its first row comes, and dropping them (DROP
// PARTITION FOR, expiry, DROP TABLE). A data partition is an ordinary container: dropping one frees
// its blocks like every dropped container (the next checkpoint frees and punches their slots) and
// touches no other data.
//
// Placement: the partition number after '@' is taken among the partitions of the table's own
// partition group, spread by the part's hash, so every data partition is served by the engine
// thread that serves the table (one statement, one thread; see docs/sql.md).

import { crc32 } from 'node:zlib';
import { assert } from '../base/assert.ts';
import { StorageError, isStorageError } from '../base/errors.ts';
import type { ContainerDefinition, ContainerSchema } from '../schema/container-schema.ts';
import { normalizeName } from '../schema/names.ts';
import { partitionGroupOf, partitionGroupRange } from '../schema/partition-hash.ts';
import {
  keyUnitsPerMs as columnKeyUnitsPerMs,
  TABLE_DATA_PARTITION_COUNT_MAX, dataContainerName, dataContainerPart,
  dataPartitionKeyOfPart, dataPartitionPart, intervalDropped, type DataPartitionKey, type TablePartitioning,
} from '../schema/table-partitioning.ts';
import type { Store } from './store.ts';

export interface DataPartition {
  readonly schema: ContainerSchema;
  readonly key: DataPartitionKey;
}

/** The table's data partitions, by interval then hash number (the order a scan reads them in). */
export function dataPartitionsOf(store: Store, table: ContainerSchema): DataPartition[] {
  assert(table.partitioning !== undefined);
  const prefix = `${normalizeName(table.name)}/`;
  const found: DataPartition[] = [];
  for (const name of store.listContainers()) {
    if (!normalizeName(name).startsWith(prefix)) continue;
    const schema = store.partitionFor(name).catalog.lookup(name)?.schema;
    if (schema?.partitionOf === undefined || normalizeName(schema.partitionOf) !== normalizeName(table.name)) continue;
    const key = dataPartitionKeyOfPart(dataContainerPart(schema));
    if (key === undefined) {
      throw new StorageError('CORRUPTION', `data partition "${name}" has a name no partitioning gives`);
    }
    found.push({ schema, key });
  }
  return found.sort((a, b) => compareKeys(a.key, b.key));
}

function compareKeys(a: DataPartitionKey, b: DataPartitionKey): number {
  const ai = a.interval ?? 0n;
  const bi = b.interval ?? 0n;
  if (ai !== bi) return ai < bi ? -1 : 1;
  return (a.hash ?? 0) - (b.hash ?? 0);
}

/** The name of the data partition `key` of `table` (whether it exists or not). */
export function dataPartitionName(store: Store, table: string, key: DataPartitionKey): string {
  const part = dataPartitionPart(key);
  const options = store.options;
  const group = partitionGroupOf(store.partitionIdOf(table), options);
  const { startPartitionId, partitionCount } = partitionGroupRange(group, options);
  assert(partitionCount >= 1);
  const partitionId = startPartitionId + crc32(`${normalizeName(table)}/${part}`) % partitionCount;
  return dataContainerName(table, part, partitionId);
}

/**
 * The data partition `key` of `table`, created now if it is not there yet (with the table's
 * columns, key and indexes); LIMIT_EXCEEDED past TABLE_DATA_PARTITION_COUNT_MAX.
 */
export async function dataPartitionEnsure(store: Store, table: ContainerSchema, key: DataPartitionKey,
  existingCount: () => number): Promise<string> {
  const name = dataPartitionName(store, table.name, key);
  if (store.partitionFor(name).catalog.lookup(name) !== undefined) return name;
  if (key.interval !== undefined && intervalDropped(table.partitioning!, key.interval)) {
    throw new StorageError('SQL_TABLE_PARTITION_ALREADY_REMOVED', `Target partition is already ` +
      `removed, name=${table.name}: ALTER TABLE … DROP PARTITION FOR dropped the interval of this row`);
  }
  if (existingCount() >= TABLE_DATA_PARTITION_COUNT_MAX) {
    throw new StorageError('LIMIT_EXCEEDED', `table ${table.name} has ${TABLE_DATA_PARTITION_COUNT_MAX} ` +
      'data partitions, the most one table may have');
  }
  await store.createContainer(dataPartitionDefinition(table, name));
  return name;
}

export function dataPartitionDefinition(table: ContainerSchema, name: string): ContainerDefinition {
  return {
    name, type: table.type, partitionOf: table.name, rowKey: table.rowKeyColumnCount,
    columns: table.columns.map((column) => ({
      name: column.name, type: column.type, array: column.array, notNull: column.notNull,
      ...(column.timePrecision === undefined ? {} : { timePrecision: column.timePrecision }),
    })),
    indexes: table.indexes.map((index) => ({
      name: index.name, type: index.type, columnNames: index.columnIndexes.map((i) => table.columns[i]!.name),
    })),
    ...(table.dataAffinity === undefined ? {} : { dataAffinity: table.dataAffinity }),
  };
}

/** Drops the data partitions `which` picks; how many went. */
export async function dataPartitionsDrop(store: Store, table: ContainerSchema,
  which: (partition: DataPartition) => boolean): Promise<number> {
  let count = 0;
  for (const partition of dataPartitionsOf(store, table)) {
    if (!which(partition)) continue;
    try {
      if (await store.dropContainer(partition.schema.name)) count++;
    } catch (error) {
      if (!isStorageError(error, 'CONTAINER_NOT_FOUND')) throw error;
    }
  }
  return count;
}

/** Key values of a TIMESTAMP column per millisecond (1 for ms, 1000 for µs, 10^6 for ns). */
export function keyUnitsPerMs(table: ContainerSchema, partitioning: TablePartitioning): bigint {
  return columnKeyUnitsPerMs(table.columns[partitioning.columnIndex]!);
}

/**
 * The least key value still visible under expiry at `nowMs` (rows below it are expired), or
 * undefined when the table does not expire.
 */
export function expiryCutoff(table: ContainerSchema, nowMs: number): bigint | undefined {
  const partitioning = table.partitioning;
  const expiration = partitioning?.expiration;
  if (partitioning === undefined || expiration === undefined) return undefined;
  return BigInt(nowMs - expiration.timeMs) * keyUnitsPerMs(table, partitioning);
}

/** Whether a whole interval partition is expired at the cutoff: its last key is below it. */
export function intervalExpired(partitioning: TablePartitioning, interval: bigint, cutoff: bigint): boolean {
  const end = (interval + 1n) * BigInt(partitioning.interval!); // first key of the next interval
  return end <= cutoff;
}
