// A partitioned table as SQL sees it (lib/sql/sql-database.ts): one table whose rows are those of
// its data partitions (table-partitions.ts).
//
//   scan         prunes the data partitions the key range cannot touch (interval kinds: the
//                intervals of the range; hash kinds: the one hash of an equal key), and the expired
//                ones; reads the rest in interval order, merging the hash partitions of one
//                interval by row key, so the rows come in key order, like a plain table's.
//   transaction  each row goes to the data partition of its partitioning key, created on demand;
//                a row already expired is accepted and not stored (§4.9). One transaction per data
//                partition touched, committed one after the other (as GridDB, a statement over
//                several data partitions is atomic per partition only).
//   explain      how many data partitions the scan reads of how many (EXPLAIN's `partitions`).

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { KeyValue, Row, RowKey, Value } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import { rowKeyOps } from '../schema/row-key.ts';
import {
  dataPartitionKeyOf, intervalOf, type DataPartitionKey, type TablePartitioning,
} from '../schema/table-partitioning.ts';
import type { SqlBatch } from '../sql/exec/evaluate.ts';
import type { SqlScanRequest, SqlTable } from '../sql/exec/table-source.ts';
import type { SqlTableTransaction } from '../sql/sql-database.ts';
import type { SqlValue } from '../sql/value.ts';
import type { ContainerHandle } from './session.ts';
import type { Store } from './store.ts';
import {
  dataPartitionEnsure, dataPartitionName, dataPartitionsOf, expiryCutoff, intervalExpired, type DataPartition,
} from './table-partitions.ts';

export interface PartitionedTableOptions {
  /** The table of one data partition (the store's SqlDatabase.table). */
  readonly dataTable: (name: string) => SqlTable;
  readonly nowMs: () => number;
}

export function partitionedSqlTable(store: Store, schema: ContainerSchema, options: PartitionedTableOptions):
  SqlTable & { explain(request: Pick<SqlScanRequest, 'from' | 'to'>): Record<string, unknown> } {
  const partitioning = schema.partitioning;
  assert(partitioning !== undefined);
  return {
    schema,
    scan: (request) => scanPartitions(store, schema, request, options),
    explain(request) {
      const all = dataPartitionsOf(store, schema);
      const read = prunedPartitions(schema, all, request, options.nowMs());
      return { partitions: { type: partitioning.kind, total: all.length, read: read.length } };
    },
  };
}

/** The data partitions a scan of [from, to] must read, in read order. */
export function prunedPartitions(schema: ContainerSchema, all: readonly DataPartition[],
  request: Pick<SqlScanRequest, 'from' | 'to'>, nowMs: number): DataPartition[] {
  const partitioning = schema.partitioning!;
  const cutoff = expiryCutoff(schema, nowMs);
  const low = keyColumnBound(schema, partitioning.columnIndex, request.from);
  const high = keyColumnBound(schema, partitioning.columnIndex, request.to);
  const equal = partitioning.kind !== 'INTERVAL' ? equalHash(schema, partitioning, request) : undefined;
  return all.filter(({ key }) => {
    if (key.interval !== undefined) {
      if (cutoff !== undefined && intervalExpired(partitioning, key.interval, cutoff)) return false;
      if (low !== undefined && key.interval < intervalOf(partitioning, low)) return false;
      if (high !== undefined && key.interval > intervalOf(partitioning, high)) return false;
    }
    return equal === undefined || key.hash === equal;
  });
}

/**
 * A key bound's value of the partitioning column, when the column is the key's first: only then
 * does the bound limit its values (a later column's bound holds only within equal prefixes).
 */
function keyColumnBound(schema: ContainerSchema, columnIndex: number, bound: RowKey | undefined):
  Value | undefined {
  if (bound === undefined || columnIndex !== 0 || schema.rowKeyColumnCount === 0) return undefined;
  return Array.isArray(bound) ? bound[0] : bound as Value;
}

/** The one hash number every row of the range has: the hashed column is fixed by an equal key prefix. */
function equalHash(schema: ContainerSchema, partitioning: TablePartitioning,
  request: Pick<SqlScanRequest, 'from' | 'to'>): number | undefined {
  const hashed = partitioning.kind === 'HASH' ? partitioning.columnIndex : partitioning.subColumnIndex!;
  if (hashed >= schema.rowKeyColumnCount || request.from === undefined || request.to === undefined) return undefined;
  const from = Array.isArray(request.from) ? request.from : [request.from as KeyValue];
  const to = Array.isArray(request.to) ? request.to : [request.to as KeyValue];
  for (let i = 0; i <= hashed; i++) {
    if (from[i] === undefined || to[i] === undefined || from[i] !== to[i]) return undefined;
  }
  const row: Value[] = [];
  row[hashed] = from[hashed]!;
  if (partitioning.kind === 'INTERVAL_HASH') row[partitioning.columnIndex] = 0;
  return dataPartitionKeyOf(partitioning, row).hash;
}

async function* scanPartitions(store: Store, schema: ContainerSchema, request: SqlScanRequest,
  options: PartitionedTableOptions): AsyncGenerator<SqlBatch> {
  const cutoff = expiryCutoff(schema, options.nowMs());
  const expiryBound = cutoff === undefined ? undefined : cutoffKeyValue(schema, cutoff);
  // Expired rows are invisible at once: the scan starts at the cutoff (expiry needs the key's first column).
  const from = expiryBound === undefined ? request.from : laterBound(schema, request.from, expiryBound);
  const parts = prunedPartitions(schema, dataPartitionsOf(store, schema), { from, to: request.to }, options.nowMs());
  const groups = intervalGroups(parts);
  if (request.descending === true) groups.reverse();
  let left = request.rowCountMax;
  for (const group of groups) {
    const sub: SqlScanRequest = { ...request, from, rowCountMax: left };
    const batches = group.length === 1 || schema.rowKeyColumnCount === 0
      ? concatenated(group.map((p) => options.dataTable(p.schema.name)), sub)
      : merged(schema, group.map((p) => options.dataTable(p.schema.name)), sub);
    for await (const batch of batches) {
      if (batch.rowCount === 0) continue;
      left -= batch.rowCount;
      yield batch;
      if (left <= 0) return;
    }
  }
}

function cutoffKeyValue(schema: ContainerSchema, cutoff: bigint): KeyValue {
  const column = schema.columns[0]!;
  const big = column.type === 'LONG' || (column.type === 'TIMESTAMP' && (column.timePrecision ?? 'MILLISECOND') !== 'MILLISECOND');
  return big ? cutoff : Number(cutoff);
}

/** The later of a scan's lower bound and the expiry cutoff (a value of the key's first column). */
function laterBound(schema: ContainerSchema, from: RowKey | undefined, cutoff: KeyValue): RowKey {
  const composite = schema.rowKeyColumnCount > 1;
  const first = from === undefined ? undefined : Array.isArray(from) ? from[0] : from as KeyValue;
  if (first !== undefined && first >= cutoff) return from!;
  return composite ? [cutoff] as RowKey : cutoff as RowKey;
}

/** Data partitions grouped by interval (one group for HASH), in order. */
function intervalGroups(parts: readonly DataPartition[]): DataPartition[][] {
  const groups: DataPartition[][] = [];
  let last: DataPartitionKey | undefined;
  for (const part of parts) {
    if (last === undefined || part.key.interval !== last.interval) groups.push([]);
    groups.at(-1)!.push(part);
    last = part.key;
  }
  return groups;
}

async function* concatenated(tables: readonly SqlTable[], request: SqlScanRequest): AsyncGenerator<SqlBatch> {
  let left = request.rowCountMax;
  for (const table of tables) {
    for await (const batch of table.scan({ ...request, rowCountMax: left })) {
      left -= batch.rowCount;
      yield batch;
      if (left <= 0) return;
    }
  }
}

/** Rows of several data partitions merged by row key (ascending or descending, as the request). */
async function* merged(schema: ContainerSchema, tables: readonly SqlTable[], request: SqlScanRequest):
  AsyncGenerator<SqlBatch> {
  const keyCount = schema.rowKeyColumnCount;
  const columnIndexes = [...request.columnIndexes];
  const keyPositions = Array.from({ length: keyCount }, (_v, key) => {
    const at = columnIndexes.indexOf(key);
    if (at >= 0) return at;
    columnIndexes.push(key);
    return columnIndexes.length - 1;
  });
  const compare = rowKeyOps(schema).compare;
  const sign = request.descending === true ? -1 : 1;
  const sources = tables.map((table) => rowSource(table.scan({ ...request, columnIndexes })));
  const keyOf = (row: readonly SqlValue[]): RowKey => (keyCount === 1 ? row[keyPositions[0]!] as RowKey
    : keyPositions.map((p) => row[p]) as RowKey);
  const heads = await Promise.all(sources.map((source) => source.next()));
  const width = request.columnIndexes.length;
  let out: SqlValue[][] = Array.from({ length: width }, () => []);
  let outCount = 0;
  let left = request.rowCountMax;
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i]!;
      if (head.done === true) continue;
      if (best < 0 || sign * compare(keyOf(head.value), keyOf((heads[best]!.value) as SqlValue[])) < 0) best = i;
    }
    if (best < 0) break;
    const row = heads[best]!.value as SqlValue[];
    for (let c = 0; c < width; c++) out[c]!.push(row[c]!);
    outCount++;
    left--;
    if (outCount >= SQL_MERGE_BATCH_ROW_COUNT || left <= 0) {
      yield { rowCount: outCount, columns: out };
      out = Array.from({ length: width }, () => []);
      outCount = 0;
      if (left <= 0) return;
    }
    heads[best] = await sources[best]!.next();
  }
  if (outCount > 0) yield { rowCount: outCount, columns: out };
}

/** Rows merged into one output batch before it is handed on. */
const SQL_MERGE_BATCH_ROW_COUNT = 256;

async function* rowSource(batches: AsyncIterable<SqlBatch>): AsyncGenerator<SqlValue[]> {
  for await (const batch of batches) {
    for (let r = 0; r < batch.rowCount; r++) yield batch.columns.map((column) => column[r]!);
  }
}

/**
 * Changes of one statement on a partitioned table: each row to its data partition (made when its
 * first row comes), one transaction per data partition touched.
 */
export function partitionedTransaction(store: Store, schema: ContainerSchema, nowMs: number,
  session: ReturnType<Store['session']>, options: { autoCommit: boolean } = { autoCommit: false }):
  SqlTableTransaction & { handles: Map<string, ContainerHandle> } {
  const partitioning = schema.partitioning!;
  const handles = new Map<string, ContainerHandle>();
  const cutoff = expiryCutoff(schema, nowMs);
  let partitionCount: number | undefined;
  const handleOf = async (key: DataPartitionKey, create: boolean): Promise<ContainerHandle | undefined> => {
    let made = false;
    const name = create
      ? await dataPartitionEnsure(store, schema, key, () => {
        made = true;
        return (partitionCount ??= dataPartitionsOf(store, schema).length);
      })
      : dataPartitionName(store, schema.name, key);
    if (!create && store.partitionFor(name).catalog.lookup(name) === undefined) return undefined;
    if (made && partitionCount !== undefined) partitionCount++; // counted before it was made
    let handle = handles.get(name);
    if (handle === undefined) {
      handle = session.container(name);
      await handle.setAutoCommit(options.autoCommit);
      handles.set(name, handle);
    }
    return handle;
  };
  const keyRow = (key: RowKey): Value[] => (schema.rowKeyColumnCount === 1 ? [key as Value] : [...key as Value[]]);
  // Whether a row key names its data partition: the partitioning columns are key columns
  // (always, unless /sql/partitioningRowkeyConstraint is off); else every data partition is looked in.
  const keyLocates = [partitioning.columnIndex, partitioning.subColumnIndex ?? 0]
    .every((index) => index < schema.rowKeyColumnCount);
  const handlesOfKey = async (key: RowKey): Promise<ContainerHandle[]> => {
    if (keyLocates) {
      const handle = await handleOf(dataPartitionKeyOf(partitioning, keyRow(key)), false);
      return handle === undefined ? [] : [handle];
    }
    const found: ContainerHandle[] = [];
    for (const part of dataPartitionsOf(store, schema)) {
      const handle = await handleOf(part.key, false);
      if (handle !== undefined) found.push(handle);
    }
    return found;
  };
  const expired = (row: readonly Value[]): boolean => cutoff !== undefined &&
    BigInt(row[partitioning.columnIndex] as number | bigint) < cutoff;
  return {
    handles,
    async get(key) {
      for (const handle of await handlesOfKey(key)) {
        const row = await handle.get(key);
        if (row !== undefined) return expired(row) ? undefined : row;
      }
      return undefined;
    },
    async put(rows: readonly Row[]) {
      const byPart = new Map<string, { key: DataPartitionKey; rows: Row[] }>();
      for (const row of rows) {
        for (const index of [partitioning.columnIndex, partitioning.subColumnIndex]) {
          if (index !== undefined && (row[index] === null || row[index] === undefined)) {
            throw new StorageError('NULL_NOT_ALLOWED', `the partitioning column ${schema.columns[index]!.name} ` +
              `of table ${schema.name} cannot be NULL`);
          }
        }
        if (expired(row)) continue; // accepted, not stored (§4.9)
        const key = dataPartitionKeyOf(partitioning, row);
        const id = `${key.interval ?? ''}/${key.hash ?? ''}`;
        let part = byPart.get(id);
        if (part === undefined) byPart.set(id, part = { key, rows: [] });
        part.rows.push(row);
      }
      for (const part of byPart.values()) await (await handleOf(part.key, true))!.multiPut(part.rows);
    },
    async remove(key) {
      let removed = false;
      for (const handle of await handlesOfKey(key)) {
        const row = await handle.get(key);
        if (row !== undefined && !expired(row)) removed = (await handle.remove(key)) || removed;
      }
      return removed;
    },
  };
}
