// The store as SQL sees it (lib/sql/sql-database.ts): every container is a table. A scan reads the
// committed rows in pages (RowStore.scanBatches, only the columns asked for, each once), copying
// the values out before it hands a page on, then waits one event-loop turn and goes on from the
// row key after the page's last (before it, for a descending scan), as the TQL pages do
// (partition-query.ts): commits run between pages, and a page never sees a block change under it.
// Pages start at SQL_SCAN_FIRST_PAGE_ROW_COUNT rows and double up to SQL_BATCH_ROW_COUNT, since a
// LIMIT above may need only a few. A scan with an index range reads the rows the index names
// instead (sql-index-scan.ts). A statement's changes go through one session's transaction on the
// table, committed together or aborted.

import { assert } from '../base/assert.ts';
import { isStorageError } from '../base/errors.ts';
import { SQL_BATCH_ROW_COUNT, SQL_SCAN_FIRST_PAGE_ROW_COUNT } from '../base/limits.ts';
import type { KeyValue, RowKey } from '../schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../schema/container-schema.ts';
import { compareKeyValues } from '../schema/row-key.ts';
import {
  sqlDatabasesRows, sqlIndexInfoRows, sqlSocketsRows, sqlSqlsRows, sqlTablesRows, type SqlNodeActivity,
} from '../sql/meta/metatables.ts';
import type { SqlBatch } from '../sql/exec/evaluate.ts';
import { sqlTypeOfColumn, type SqlScanRequest, type SqlTable } from '../sql/exec/table-source.ts';
import type { SqlDatabase, SqlTableTransaction } from '../sql/sql-database.ts';
import type { SqlValue } from '../sql/value.ts';
import type { ContainerEntry } from './catalog.ts';
import { indexCandidates, indexPages } from './sql-index-scan.ts';
import type { Store } from './store.ts';

export interface StoreSqlDatabaseOptions {
  /**
   * Waits one event-loop turn (setImmediate) between pages, and the executor after each slice of
   * work, so commits and cancels are not held up.
   */
  readonly yieldTurn: () => Promise<void>;
  /** Running statements and connections for "#sqls" and "#sockets"; both empty when absent. */
  readonly activity?: SqlNodeActivity;
}

export function storeSqlDatabase(store: Store, options: StoreSqlDatabaseOptions): SqlDatabase {
  const entryOf = (name: string): ContainerEntry => store.partitionFor(name).lookupOrThrow(name);
  // Containers of the partitions this store serves, in name order.
  const schemas = (): ContainerSchema[] => store.listContainers().flatMap((name) => {
    const schema = self.tableSchema(name);
    return schema === undefined ? [] : [schema];
  });
  const self: SqlDatabase = {
    tableSchema(name) {
      try {
        return entryOf(name).schema;
      } catch (error) {
        // No such container here: none by that name, or its partition is another group's.
        if (isStorageError(error, 'CONTAINER_NOT_FOUND') || isStorageError(error, 'PARTITION_NOT_OWNED')) {
          return undefined;
        }
        throw error;
      }
    },
    tableRowCount(name) {
      return self.tableSchema(name) === undefined ? undefined : entryOf(name).rows.count();
    },
    table(name): SqlTable {
      const entry = entryOf(name);
      return { schema: entry.schema, scan: (request) => scan(name, entryOf, request, options) };
    },
    metatableRows(name) {
      switch (name) {
        case '#tables': return sqlTablesRows(schemas());
        case '#index_info': return sqlIndexInfoRows(schemas());
        case '#databases': return sqlDatabasesRows();
        case '#sqls': return sqlSqlsRows(options.activity?.runningStatements() ?? []);
        case '#sockets': return sqlSocketsRows(options.activity?.sockets() ?? []);
      }
    },
    yieldTurn: () => options.yieldTurn(),
    async createTable(definition) { await store.createContainer(definition); },
    dropTable: (name) => store.dropContainer(name),
    createIndex: (table, index) => store.createIndex(table, index),
    dropIndex: (table, selector) => store.dropIndex(table, selector),
    async addColumn(table, column) { await store.addColumn(table, column); },
    async renameColumn(table, columns) { await store.renameColumn(table, columns); },
    async transaction(table, change) {
      const session = store.session();
      try {
        const handle = session.container(table);
        await handle.setAutoCommit(false);
        const txn: SqlTableTransaction = {
          get: (key) => handle.get(key),
          put: (rows) => handle.multiPut(rows),
          remove: (key) => handle.remove(key),
        };
        let result;
        try {
          result = await change(txn);
        } catch (error) {
          await handle.abort();
          throw error;
        }
        await handle.commit();
        return result;
      } finally {
        session.close();
      }
    },
  };
  return self;
}

/** One page of a table's committed rows after `after`, and where the next starts (undefined: no more). */
export interface SqlScanPage {
  readonly batch: SqlBatch;
  readonly last: RowKey | undefined;
}

/**
 * One page of a whole-table scan, for a statement in another engine thread (lib/server/sql-peers.ts):
 * the same pages scanPages reads, asked for one at a time.
 */
export function storeSqlScanPage(store: Store, call: { table: string; columnIndexes: readonly number[];
  from: RowKey | undefined; to: RowKey | undefined; after: RowKey | undefined; rowCountMax: number }):
  SqlScanPage {
  const entry = store.partitionFor(call.table).lookupOrThrow(call.table);
  const request: SqlScanRequest = {
    columnIndexes: call.columnIndexes, from: call.from, to: call.to, rowCountMax: call.rowCountMax,
  };
  return readPage(entry, request, call.after, Math.min(call.rowCountMax, SQL_BATCH_ROW_COUNT));
}

/** Through the index when the request names one and the index pays (sql-index-scan.ts), else pages of a scan. */
function scan(name: string, entryOf: (name: string) => ContainerEntry, request: SqlScanRequest,
  options: StoreSqlDatabaseOptions): AsyncIterable<SqlBatch> {
  if (request.descending === true) {
    assert(request.index === undefined && entryOf(name).keys !== undefined);
    return scanPagesDescending(name, entryOf, request, options);
  }
  const index = request.index;
  const candidates = index === undefined ? undefined : indexCandidates(entryOf(name), { ...request, index });
  if (candidates === undefined) return scanPages(name, entryOf, request, options);
  return indexPages(() => entryOf(name), request, candidates, options.yieldTurn);
}

async function* scanPages(
  name: string,
  entryOf: (name: string) => ContainerEntry,
  request: SqlScanRequest,
  options: StoreSqlDatabaseOptions,
): AsyncGenerator<SqlBatch> {
  let after: RowKey | undefined;
  let left = request.rowCountMax;
  let pageRowCount = SQL_SCAN_FIRST_PAGE_ROW_COUNT;
  for (;;) {
    const entry = entryOf(name);
    const page = readPage(entry, request, after, Math.min(left, pageRowCount));
    if (page.batch.rowCount > 0) {
      left -= page.batch.rowCount;
      yield page.batch;
    }
    if (page.last === undefined || left <= 0) return;
    after = page.last;
    pageRowCount = Math.min(2 * pageRowCount, SQL_BATCH_ROW_COUNT);
    await options.yieldTurn();
  }
}

/** As scanPages, from the last key in range backwards; each page goes on before the last's key. */
async function* scanPagesDescending(
  name: string,
  entryOf: (name: string) => ContainerEntry,
  request: SqlScanRequest,
  options: StoreSqlDatabaseOptions,
): AsyncGenerator<SqlBatch> {
  let before: RowKey | undefined;
  let left = request.rowCountMax;
  let pageRowCount = SQL_SCAN_FIRST_PAGE_ROW_COUNT;
  for (;;) {
    const page = readPageDescending(entryOf(name), request, before, Math.min(left, pageRowCount));
    if (page.batch.rowCount > 0) {
      left -= page.batch.rowCount;
      yield page.batch;
    }
    if (page.last === undefined || left <= 0) return;
    before = page.last;
    pageRowCount = Math.min(2 * pageRowCount, SQL_BATCH_ROW_COUNT);
    await options.yieldTurn();
  }
}

function readPageDescending(entry: ContainerEntry, request: SqlScanRequest, before: RowKey | undefined,
  rowCountMin: number): { batch: SqlBatch; last: RowKey | undefined } {
  const schema = entry.schema;
  const keyCount = schema.rowKeyColumnCount;
  const keys = entry.keys!;
  const { columnIndexes, keyPositions } = readColumns(request, keyCount);
  const out: SqlValue[][] = request.columnIndexes.map(() => []);
  const bounds = storeBounds(schema, request);
  assert(bounds.stop === undefined, 'a descending SQL scan needs a whole upper key');
  let rowCount = 0;
  let last: RowKey | undefined;
  // One row more than the page: the first may be `before` itself, read again and dropped.
  for (const batch of entry.rows.scanBatches({
    from: bounds.from, to: before ?? bounds.to, direction: 'desc', columnIndexes, limit: rowCountMin + 1,
  })) {
    // Rows of a batch are ascending: read it from its end.
    let end = batch.rowCount;
    if (before !== undefined && end > 0 && keys.compare(keyAt(batch.columns, keyPositions, end - 1), before) === 0) {
      end--;
    }
    const start = Math.max(0, end - (rowCountMin - rowCount));
    request.columnIndexes.forEach((index, c) => {
      appendColumnDescending(out[c]!, batch.columns[c]!, schema.columns[index]!, start, end);
    });
    rowCount += end - start;
    if (end > start) last = keyAt(batch.columns, keyPositions, start);
    if (rowCount >= rowCountMin) return { batch: { rowCount, columns: out }, last };
  }
  return { batch: { rowCount, columns: out }, last: undefined };
}

function appendColumnDescending(out: SqlValue[],
  vector: { values: ArrayLike<unknown>; nulls: Uint8Array | undefined }, column: ColumnSchema,
  start: number, end: number): void {
  const ascending: SqlValue[] = [];
  appendColumn(ascending, vector, column, start, end);
  for (let r = ascending.length - 1; r >= 0; r--) out.push(ascending[r]!);
}

/** Rows from `after` (exclusive), `rowCountMin` of them; last: where to go on, or none when no more. */
function readPage(entry: ContainerEntry, request: SqlScanRequest, after: RowKey | undefined,
  rowCountMin: number): { batch: SqlBatch; last: RowKey | undefined } {
  const schema = entry.schema;
  const keyCount = schema.rowKeyColumnCount;
  const { columnIndexes, keyPositions } = readColumns(request, keyCount);
  const out: SqlValue[][] = request.columnIndexes.map(() => []);
  const keyed = entry.keys !== undefined;
  const bounds = storeBounds(schema, request);
  let from = bounds.from;
  if (after !== undefined) from = keyed ? after : (after as number) + 1;
  let rowCount = 0;
  let last: RowKey | undefined;
  let exhausted = true;
  // The store copies only the page's rows of a block (STRING columns are copied, not viewed),
  // plus one: the first may be `after` itself, read again and dropped.
  for (const batch of entry.rows.scanBatches({
    from, to: bounds.to, direction: 'asc', columnIndexes, limit: rowCountMin + 1,
  })) {
    let start = 0;
    if (keyed && after !== undefined && batch.rowCount > 0 && entry.keys!.compare(keyAt(batch.columns, keyPositions, 0), after) === 0) {
      start = 1;
    }
    // A page ends inside a block when the block holds more than the page: the work between two
    // turns of the event loop stays about one page's.
    let end = Math.min(batch.rowCount, start + Math.max(0, rowCountMin - rowCount));
    const stop = bounds.stop;
    if (stop !== undefined) {
      // Keys past a prefix bound the store could not be given (see storeBounds): the range ends.
      const past = Array.from({ length: end - start }, (_v, i) => start + i).find((r) =>
        keyPrefixAbove(keyAt(batch.columns, keyPositions, r) as KeyValue[], stop));
      if (past !== undefined) {
        end = past;
        appendRows(out, request, batch, schema, start, end);
        rowCount += end - start;
        return { batch: { rowCount, columns: out }, last: undefined };
      }
    }
    appendRows(out, request, batch, schema, start, end);
    rowCount += end - start;
    if (end > 0) {
      last = keyed ? keyAt(batch.columns, keyPositions, end - 1)
        : batch.rowIds![end - 1]!;
    }
    if (rowCount >= rowCountMin) {
      exhausted = false;
      break;
    }
  }
  return { batch: { rowCount, columns: out }, last: exhausted ? undefined : last };
}

function appendRows(out: SqlValue[][], request: SqlScanRequest,
  batch: { columns: readonly { values: ArrayLike<unknown>; nulls: Uint8Array | undefined }[] },
  schema: ContainerSchema, start: number, end: number): void {
  request.columnIndexes.forEach((index, c) => {
    appendColumn(out[c]!, batch.columns[c]!, schema.columns[index]!, start, end);
  });
}

/**
 * The request's key bounds as the row store takes them. A composite key's bounds may be prefixes
 * (`hostname = 'h1' AND ts >= 10` gives from ['h1', 10], to ['h1']); the store wants whole keys,
 * so a prefix is padded with each remaining column's least value (from) or greatest (to). A STRING
 * has no greatest value: the store then gets no upper bound and `stop` says where the range ends.
 */
function storeBounds(schema: ContainerSchema, request: SqlScanRequest):
  { from: RowKey | undefined; to: RowKey | undefined; stop: KeyValue[] | undefined } {
  const count = schema.rowKeyColumnCount;
  const { from, to } = request;
  if (count < 2) return { from, to, stop: undefined };
  const pad = (bound: RowKey, side: 'least' | 'greatest'): KeyValue[] | undefined => {
    const key = [...bound as KeyValue[]];
    for (let i = key.length; i < count; i++) {
      const value = KEY_PAD[side](schema.columns[i]!);
      if (value === undefined) return undefined;
      key.push(value);
    }
    return key;
  };
  const paddedTo = to === undefined ? undefined : pad(to, 'greatest');
  return {
    from: from === undefined ? undefined : pad(from, 'least'),
    to: paddedTo,
    stop: to !== undefined && paddedTo === undefined ? to as KeyValue[] : undefined,
  };
}

/** Least and greatest values of key columns (row-key.ts allows out-of-domain integers as bounds). */
const KEY_PAD: Record<'least' | 'greatest', (column: ColumnSchema) => KeyValue | undefined> = {
  least: (column) => column.type === 'STRING' ? '' : isBigintKey(column) ? -(2n ** 64n) : Number.MIN_SAFE_INTEGER,
  greatest: (column) => column.type === 'STRING' ? undefined : isBigintKey(column) ? 2n ** 64n : Number.MAX_SAFE_INTEGER,
};

function isBigintKey(column: ColumnSchema): boolean {
  return column.type === 'LONG' || (column.type === 'TIMESTAMP' && (column.timePrecision ?? 'MILLISECOND') !== 'MILLISECOND');
}

/** Whether a key's leading values come after a prefix bound. */
function keyPrefixAbove(key: readonly KeyValue[], prefix: readonly KeyValue[]): boolean {
  for (let i = 0; i < prefix.length; i++) {
    const order = compareKeyValues(key[i]!, prefix[i]!);
    if (order !== 0) return order > 0;
  }
  return false;
}

function keyAt(columns: readonly { values: ArrayLike<unknown> }[], keyPositions: readonly number[],
  row: number): RowKey {
  if (keyPositions.length === 1) return columns[keyPositions[0]!]!.values[row] as RowKey;
  return keyPositions.map((position) => columns[position]!.values[row]) as RowKey;
}

/**
 * The columns a page reads: the request's, then the key columns it lacks (a page goes on from
 * its last key); keyPositions: where each key column is among them. A column is read once.
 */
function readColumns(request: SqlScanRequest, keyCount: number):
  { columnIndexes: number[]; keyPositions: number[] } {
  const columnIndexes = [...request.columnIndexes];
  const keyPositions = Array.from({ length: keyCount }, (_v, key) => {
    const position = columnIndexes.indexOf(key);
    if (position >= 0) return position;
    columnIndexes.push(key);
    return columnIndexes.length - 1;
  });
  return { columnIndexes, keyPositions };
}

function appendColumn(out: SqlValue[], vector: { values: ArrayLike<unknown>; nulls: Uint8Array | undefined },
  column: ColumnSchema, start: number, end: number): void {
  if (sqlTypeOfColumn(column) === 'UNKNOWN') {
    for (let r = start; r < end; r++) out.push(null);
    return;
  }
  const { values, nulls } = vector;
  const bool = column.type === 'BOOL';
  for (let r = start; r < end; r++) {
    if (nulls !== undefined && nulls[r] === 1) out.push(null);
    else out.push(bool ? values[r] !== 0 && values[r] !== false : values[r] as SqlValue);
  }
}

