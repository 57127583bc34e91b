// The store as SQL sees it (lib/sql/sql-database.ts): every container is a table. A scan reads the
// committed rows in pages of SQL_BATCH_ROW_COUNT rows (RowStore.scanBatches, only the columns asked for),
// copying the values out before it hands a page on, then waits one event-loop turn and goes on
// from the row key after the page's last, as the TQL pages do (partition-query.ts): commits run
// between pages, and a page never sees a block change under it. A scan with an index range reads
// the rows the index names instead (sql-index-scan.ts). A statement's changes go through
// one session's transaction on the table, committed together or aborted.

import { isStorageError } from '../base/errors.ts';
import { SQL_BATCH_ROW_COUNT } from '../base/limits.ts';
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
  /** Waits one event-loop turn between pages (setImmediate), so commits are not held up. */
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

/** Through the index when the request names one and the index pays (sql-index-scan.ts), else pages of a scan. */
function scan(name: string, entryOf: (name: string) => ContainerEntry, request: SqlScanRequest,
  options: StoreSqlDatabaseOptions): AsyncIterable<SqlBatch> {
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
  for (;;) {
    const entry = entryOf(name);
    const page = readPage(entry, request, after, Math.min(left, SQL_BATCH_ROW_COUNT));
    if (page.batch.rowCount > 0) {
      left -= page.batch.rowCount;
      yield page.batch;
    }
    if (page.last === undefined || left <= 0) return;
    after = page.last;
    await options.yieldTurn();
  }
}

/** Rows from `after` (exclusive), `rowCountMin` of them; last: where to go on, or none when no more. */
function readPage(entry: ContainerEntry, request: SqlScanRequest, after: RowKey | undefined,
  rowCountMin: number): { batch: SqlBatch; last: RowKey | undefined } {
  const schema = entry.schema;
  const keyCount = schema.rowKeyColumnCount;
  const keyColumns = Array.from({ length: keyCount }, (_v, i) => i);
  const columnIndexes = [...request.columnIndexes, ...keyColumns];
  const out: SqlValue[][] = request.columnIndexes.map(() => []);
  const keyed = entry.keys !== undefined;
  const bounds = storeBounds(schema, request);
  let from = bounds.from;
  if (after !== undefined) from = keyed ? after : (after as number) + 1;
  let rowCount = 0;
  let last: RowKey | undefined;
  let exhausted = true;
  for (const batch of entry.rows.scanBatches({ from, to: bounds.to, direction: 'asc', columnIndexes })) {
    let start = 0;
    if (keyed && after !== undefined && batch.rowCount > 0 && entry.keys!.compare(keyAt(batch.columns,
      request.columnIndexes.length, keyCount, 0), after) === 0) {
      start = 1;
    }
    // A page ends inside a block when the block holds more than the page: the work between two
    // turns of the event loop stays about one page's.
    let end = Math.min(batch.rowCount, start + Math.max(0, rowCountMin - rowCount));
    const stop = bounds.stop;
    if (stop !== undefined) {
      // Keys past a prefix bound the store could not be given (see storeBounds): the range ends.
      const past = Array.from({ length: end - start }, (_v, i) => start + i).find((r) =>
        keyPrefixAbove(keyAt(batch.columns, request.columnIndexes.length, keyCount, r) as KeyValue[], stop));
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
      last = keyed ? keyAt(batch.columns, request.columnIndexes.length, keyCount, end - 1)
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

function keyAt(columns: readonly { values: ArrayLike<unknown> }[], first: number, count: number,
  row: number): RowKey {
  if (count === 1) return columns[first]!.values[row] as RowKey;
  return Array.from({ length: count }, (_v, i) => columns[first + i]!.values[row]) as RowKey;
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

