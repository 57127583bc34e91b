// A partitioned table (§4.9): how its rows are split into data partitions, and what each data
// partition is called. The table itself is a container that holds no rows, only this description
// in its schema (`partitioning`); each data partition is a container of the same columns whose
// schema names its table (`partitionOf`), created when its first row comes.
//
//   HASH           part `h<k>`, k = crc32(key value) mod divisionCount; all created with the table
//   INTERVAL       part `i<n>`, n = floor(value / interval) (a TIMESTAMP's value in ms)
//   INTERVAL_HASH  part `i<n>h<k>`: the interval, then the hash of the sub-key within it
//
//   data container name  `<table>/<part>@<partition number>`: the number after '@' places it
//   (partition-hash.ts); the engine picks it among the partitions of the table's own group, so a
//   statement on the table runs in one engine thread (docs/sql.md "Partitioned tables").

import { crc32 } from 'node:zlib';
import { assert } from '../base/assert.ts';
import type { Value } from './column-type.ts';
import type { ColumnSchema, ContainerSchema } from './container-schema.ts';

export type TablePartitioningKind = 'HASH' | 'INTERVAL' | 'INTERVAL_HASH';

/** Expiry release (§4.9): an interval partition expires whole `timeMs` after its end. */
export interface TableExpiration {
  /** As given: expiration_time in expiration_time_unit. */
  readonly time: number;
  readonly unit: 'DAY' | 'HOUR' | 'MINUTE' | 'SECOND' | 'MILLISECOND';
  readonly timeMs: number;
  readonly divisionCount: number;
}

export interface TablePartitioning {
  readonly kind: TablePartitioningKind;
  /** The partitioning key's column position. */
  readonly columnIndex: number;
  /** INTERVAL, INTERVAL_HASH: width of one interval, decimal (ms for TIMESTAMP). */
  readonly interval?: string;
  /** As given with EVERY (TIMESTAMP keys). */
  readonly intervalUnit?: 'DAY' | 'HOUR';
  /** HASH: partition count; INTERVAL_HASH: sub-partitions per interval. */
  readonly divisionCount?: number;
  /** INTERVAL_HASH: the hash sub-key's column position. */
  readonly subColumnIndex?: number;
  readonly expiration?: TableExpiration;
  /**
   * Interval numbers (decimal) DROP PARTITION FOR removed: no data partition is made for them
   * again (GridDB's DROP status; at most TABLE_DATA_PARTITION_COUNT_MAX).
   */
  readonly droppedIntervals?: readonly string[];
}

/** Data partitions one table may have (GridDB's limit; reaching it is an error). */
export const TABLE_DATA_PARTITION_COUNT_MAX = 10_000;
export const TABLE_HASH_PARTITION_COUNT_MAX = 1024;

export const EXPIRATION_UNIT_MS: Readonly<Record<TableExpiration['unit'], number>> = {
  DAY: 86_400_000, HOUR: 3_600_000, MINUTE: 60_000, SECOND: 1000, MILLISECOND: 1,
};

/** Where one row goes: its interval number (interval kinds) and hash number (hash kinds). */
export interface DataPartitionKey {
  readonly interval?: bigint;
  readonly hash?: number;
}

export function dataPartitionKeyOf(partitioning: TablePartitioning, row: readonly Value[]): DataPartitionKey {
  switch (partitioning.kind) {
    case 'HASH':
      return { hash: hashOf(row[partitioning.columnIndex], partitioning.divisionCount!) };
    case 'INTERVAL':
      return { interval: intervalOf(partitioning, row[partitioning.columnIndex]) };
    case 'INTERVAL_HASH':
      return {
        interval: intervalOf(partitioning, row[partitioning.columnIndex]),
        hash: hashOf(row[partitioning.subColumnIndex!], partitioning.divisionCount!),
      };
  }
}

/** The interval a key value falls in (floor division: negative values go below 0). */
export function intervalOf(partitioning: TablePartitioning, value: Value | undefined): bigint {
  assert(partitioning.interval !== undefined);
  assert(typeof value === 'number' || typeof value === 'bigint', 'an interval key is an integer or a time');
  const interval = BigInt(partitioning.interval);
  const v = BigInt(value);
  const q = v / interval;
  return v < 0n && q * interval !== v ? q - 1n : q;
}

/** First key value of an interval, in the key column's own terms (number or bigint as the column). */
export function intervalStart(partitioning: TablePartitioning, interval: bigint): bigint {
  return interval * BigInt(partitioning.interval!);
}

function hashOf(value: Value | undefined, divisionCount: number): number {
  assert(Number.isInteger(divisionCount) && divisionCount >= 1);
  return crc32(valueText(value)) % divisionCount;
}

/** A stable text of a key value to hash (the same value always gives the same text). */
function valueText(value: Value | undefined): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Key values of a TIMESTAMP column per millisecond (1 for ms, 1000 for µs, 10^6 for ns). */
export function keyUnitsPerMs(column: ColumnSchema): bigint {
  if (column.type !== 'TIMESTAMP') return 1n;
  return column.timePrecision === 'MICROSECOND' ? 1000n : column.timePrecision === 'NANOSECOND' ? 1_000_000n : 1n;
}

/** Whether DROP PARTITION FOR removed the interval (no data partition is made for it again). */
export function intervalDropped(partitioning: TablePartitioning, interval: bigint): boolean {
  return partitioning.droppedIntervals?.includes(String(interval)) ?? false;
}

export function dataPartitionPart(key: DataPartitionKey): string {
  return (key.interval === undefined ? '' : `i${key.interval}`) + (key.hash === undefined ? '' : `h${key.hash}`);
}

export function dataPartitionKeyOfPart(part: string): DataPartitionKey | undefined {
  const match = /^(?:i(-?\d+))?(?:h(\d+))?$/.exec(part);
  if (match === null || part.length === 0) return undefined;
  return {
    ...(match[1] === undefined ? {} : { interval: BigInt(match[1]) }),
    ...(match[2] === undefined ? {} : { hash: Number(match[2]) }),
  };
}

/** A data container's name: the table's, its part, and the partition number it lives in. */
export function dataContainerName(table: string, part: string, partitionId: number): string {
  return `${table}/${part}@${partitionId}`;
}

/** The part of a data container's name (between '/' and '@'). */
export function dataContainerPart(schema: ContainerSchema): string {
  const slash = schema.name.lastIndexOf('/');
  const at = schema.name.lastIndexOf('@');
  assert(schema.partitionOf !== undefined && slash > 0 && at > slash);
  return schema.name.slice(slash + 1, at);
}

/** The data partition's boundary value, as "#table_partitions" shows it. */
export function partitionBoundaryText(schema: ContainerSchema, key: DataPartitionKey,
  partitioning: TablePartitioning): string {
  if (key.interval === undefined) return String(key.hash);
  const start = intervalStart(partitioning, key.interval);
  const column = schema.columns[partitioning.columnIndex]!;
  const text = column.type === 'TIMESTAMP' ? new Date(Number(start / keyUnitsPerMs(column))).toISOString()
    : String(start);
  return key.hash === undefined ? text : `${text}/${key.hash}`;
}
