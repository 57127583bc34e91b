// The store as SQL sees it (lib/sql/sql-database.ts): every container is a table. A scan reads the
// committed rows in pages (RowStore.scanBatches, only the columns asked for, each once), copying
// the values out before it hands a page on (ScanPage: DOUBLE and TIMESTAMP columns without NULLs
// into one Float64Array buffer, the rest into arrays of SQL values), then waits one event-loop
// turn and goes on from the row key after the page's last (before it, for a descending scan), as
// the TQL pages do (partition-query.ts): commits run between pages, and a page never sees a block
// change under it.
// Pages start at SQL_SCAN_FIRST_PAGE_ROW_COUNT rows and double up to SQL_BATCH_ROW_COUNT, since a
// LIMIT above may need only a few. A scan with an index range reads the rows the index names
// instead (sql-index-scan.ts). A GROUP BY computed in the scan (SqlTable.visit) takes the same
// rows piece by piece inside the turn they are read in, its typed columns as views of the blocks. A statement's changes go through one session's transaction on the
// table, committed together or aborted.

import { assert } from '../base/assert.ts';
import { StorageError, isStorageError } from '../base/errors.ts';
import {
  SQL_BATCH_ROW_COUNT, SQL_SCAN_AGGREGATE_ROW_COUNT, SQL_SCAN_FIRST_PAGE_ROW_COUNT,
} from '../base/limits.ts';
import type { KeyValue, RowKey } from '../schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../schema/container-schema.ts';
import { compareKeyValues } from '../schema/row-key.ts';
import {
  sqlDatabasesRows, sqlIndexInfoRows, sqlSocketsRows, sqlSqlsRows, sqlTablePartitionRow, sqlTablesRows, sqlViewsRows,
  type SqlNodeActivity,
} from '../sql/meta/metatables.ts';
import type { SqlBatch, SqlColumn } from '../sql/exec/evaluate.ts';
import { sqlTypeOfColumn, type SqlScanRequest, type SqlTable } from '../sql/exec/table-source.ts';
import type { SqlDatabase, SqlTableTransaction } from '../sql/sql-database.ts';
import type { SqlValue } from '../sql/value.ts';
import type { ContainerEntry } from './catalog.ts';
import { indexCandidates, indexPage, indexPages } from './sql-index-scan.ts';
import { lookUpRanges } from './sql-look-up-ranges.ts';
import type { SqlIndexRange } from '../sql/plan/logical-plan.ts';
import { partitionedSqlTable, partitionedTransaction } from './sql-partitioned-table.ts';
import { dataPartitionEnsure, dataPartitionsDrop, dataPartitionsOf } from './table-partitions.ts';
import { TABLE_DATA_PARTITION_COUNT_MAX, intervalOf } from '../schema/table-partitioning.ts';
import type { Store } from './store.ts';
import {
  DATABASE_ID_PUBLIC, containerDatabaseId, containerKeyIn, schemaShownAs, type DatabaseId,
} from '../schema/database-names.ts';

export interface StoreSqlDatabaseOptions {
  /**
   * Waits one event-loop turn (setImmediate) between pages, and the executor after each slice of
   * work, so commits and cancels are not held up.
   */
  readonly yieldTurn: () => Promise<void>;
  /** Running statements and connections for "#sqls" and "#sockets"; both empty when absent. */
  readonly activity?: SqlNodeActivity;
  /**
   * The database the statement runs in (lib/schema/database-names.ts): its tables are the
   * containers of this database only, and are shown by their names. Public when absent.
   */
  readonly databaseId?: DatabaseId;
}

export function storeSqlDatabase(store: Store, options: StoreSqlDatabaseOptions): SqlDatabase {
  const databaseId = options.databaseId ?? DATABASE_ID_PUBLIC;
  // Every name a statement gives is looked up as a key of its database; keys the engine handed
  // out (data partitions) pass as they are.
  const keyOf = (name: string): string => containerKeyIn(databaseId, name);
  const entryOf = (name: string): ContainerEntry => {
    const key = keyOf(name);
    return store.partitionFor(key).lookupOrThrow(key);
  };
  // Tables of the partitions this store serves, in name order (data partitions are their table's),
  // named by their keys.
  const keyedSchemas = (): ContainerSchema[] => store.listContainers().flatMap((key) => {
    if (containerDatabaseId(key) !== databaseId) return [];
    const schema = entryOf(key).schema;
    return schema.partitionOf !== undefined ? [] : [schema];
  });
  const schemas = (): ContainerSchema[] => keyedSchemas().map(schemaShownAs);
  const nowMs = () => store.clock.nowMs();
  const plainTable = (name: string): SqlTable => {
    const entry = entryOf(name);
    return {
      schema: entry.schema, scan: (request) => scan(name, entryOf, request, options),
      lookUp: (request) => lookUpPages(name, entryOf, request),
      lookUpRanges: (request, visit) => lookUpRanges(entryOf(name), request, visit),
      visit: (request, visit) => visitPieces(name, entryOf, request, visit, options),
    };
  };
  /** Runs `each` on a partitioned table's data partitions after the table itself. */
  const alsoOnDataPartitions = async (table: string, each: (name: string) => Promise<unknown>) => {
    const schema = entryOf(table).schema;
    if (schema.partitioning === undefined) return;
    for (const part of dataPartitionsOf(store, schema)) await each(part.schema.name);
  };
  const self: SqlDatabase = {
    tableSchema(name) {
      try {
        return schemaShownAs(entryOf(name).schema);
      } catch (error) {
        // No such container here: none by that name, or its partition is another group's.
        if (isStorageError(error, 'CONTAINER_NOT_FOUND') || isStorageError(error, 'PARTITION_NOT_OWNED')) {
          return undefined;
        }
        throw error;
      }
    },
    tableRowCount(name) {
      const schema = self.tableSchema(name);
      if (schema === undefined) return undefined;
      if (schema.partitioning === undefined) return entryOf(name).rows.count();
      return dataPartitionsOf(store, entryOf(name).schema).reduce((sum, part) => sum + entryOf(part.schema.name).rows.count(), 0);
    },
    table(name): SqlTable {
      const entry = entryOf(name);
      const table = entry.schema.partitioning === undefined
        ? plainTable(keyOf(name))
        : partitionedSqlTable(store, entry.schema, { dataTable: plainTable, nowMs });
      const shown = schemaShownAs(table.schema);
      return shown === table.schema ? table : { ...table, schema: shown };
    },
    metatableRows(name) {
      switch (name) {
        case '#tables': return sqlTablesRows(schemas());
        case '#index_info': return sqlIndexInfoRows(schemas());
        case '#databases': return sqlDatabasesRows(store.databases);
        case '#sqls': return sqlSqlsRows(options.activity?.runningStatements() ?? []);
        case '#sockets': return sqlSocketsRows(options.activity?.sockets() ?? []);
        case '#table_partitions': return tablePartitionsRows(store, keyedSchemas());
        case '#views': return sqlViewsRows(store.listViews()
          .filter((view) => containerDatabaseId(view.name) === databaseId).map(schemaShownAs));
      }
    },
    yieldTurn: () => options.yieldTurn(),
    view(name) {
      try {
        const schema = store.view(keyOf(name));
        return schema === undefined ? undefined
          : { name: schemaShownAs(schema).name, definition: schema.view!.definition };
      } catch (error) {
        if (isStorageError(error, 'PARTITION_NOT_OWNED')) return undefined; // another group's name
        throw error;
      }
    },
    createView: (view) => store.createView({ ...view, name: keyOf(view.name) }),
    dropView: (name) => store.dropView(keyOf(name)),
    async createTable(shownDefinition) {
      const definition = { ...shownDefinition, name: keyOf(shownDefinition.name) };
      await store.createContainer(definition);
      const schema = entryOf(definition.name).schema;
      const partitioning = schema.partitioning;
      if (partitioning?.kind !== 'HASH') return;
      // A hash table's data partitions are all made with it (§4.9), none later.
      for (let hash = 0; hash < partitioning.divisionCount!; hash++) {
        await dataPartitionEnsure(store, schema, { hash }, () => hash);
      }
    },
    async dropTable(name) {
      const schema = self.tableSchema(name);
      if (schema?.partitioning !== undefined) {
        await dataPartitionsDrop(store, entryOf(name).schema, () => true);
      }
      return store.dropContainer(keyOf(name));
    },
    async createIndex(table, index) {
      const created = await store.createIndex(keyOf(table), index);
      await alsoOnDataPartitions(table, (name) => store.createIndex(name, index));
      return created;
    },
    async dropIndex(table, selector) {
      const count = await store.dropIndex(keyOf(table), selector);
      await alsoOnDataPartitions(table, (name) => store.dropIndex(name, selector));
      return count;
    },
    async addColumn(table, column) {
      await store.addColumn(keyOf(table), column);
      await alsoOnDataPartitions(table, (name) => store.addColumn(name, column));
    },
    async renameColumn(table, columns) {
      await store.renameColumn(keyOf(table), columns);
      await alsoOnDataPartitions(table, (name) => store.renameColumn(name, columns));
    },
    async dropPartition(table, value) {
      const schema = entryOf(table).schema;
      const partitioning = schema.partitioning;
      assert(partitioning !== undefined && partitioning.kind !== 'HASH');
      const interval = intervalOf(partitioning, value);
      const count = await dataPartitionsDrop(store, schema, (part) => part.key.interval === interval);
      // Then the interval is closed (GridDB refuses its rows from now on). Dropped first: a crash
      // between leaves it open, and DROP PARTITION FOR again closes it.
      const dropped = partitioning.droppedIntervals ?? [];
      if (!dropped.includes(String(interval))) {
        if (dropped.length >= TABLE_DATA_PARTITION_COUNT_MAX) {
          throw new StorageError('LIMIT_EXCEEDED', `table ${schema.name} has ${dropped.length} ` +
            'dropped intervals, the most one table records');
        }
        await store.setPartitioning(schema.name, { ...partitioning, droppedIntervals: [...dropped,
          String(interval)] });
      }
      return count;
    },
    async transaction(table, change) {
      const session = store.session();
      try {
        const schema = entryOf(table).schema;
        if (schema.partitioning !== undefined) {
          const txn = partitionedTransaction(store, schema, nowMs(), session);
          let result;
          try {
            result = await change(txn);
          } catch (error) {
            for (const handle of txn.handles.values()) await handle.abort();
            throw error;
          }
          for (const handle of txn.handles.values()) await handle.commit();
          return result;
        }
        const handle = session.container(keyOf(table));
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

/** "#table_partitions": one row per data partition of every partitioned table. */
function tablePartitionsRows(store: Store, tables: readonly ContainerSchema[]): SqlValue[][] {
  const rows: SqlValue[][] = [];
  for (const table of tables) {
    if (table.partitioning === undefined) continue;
    for (const part of dataPartitionsOf(store, table)) {
      rows.push(sqlTablePartitionRow(schemaShownAs(table), part.key,
        store.partitionIdOf(part.schema.name)));
    }
  }
  return rows;
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
export function storeSqlScanPage(store: Store, call: { table: string; databaseId?: DatabaseId;
  columnIndexes: readonly number[];
  from: RowKey | undefined; to: RowKey | undefined; after: RowKey | undefined; rowCountMax: number;
  index?: SqlIndexRange | undefined; descending?: boolean | undefined }):
  SqlScanPage {
  const key = containerKeyIn(call.databaseId ?? DATABASE_ID_PUBLIC, call.table);
  const entry = store.partitionFor(key).lookupOrThrow(key);
  const request: SqlScanRequest = {
    columnIndexes: call.columnIndexes, from: call.from, to: call.to, rowCountMax: call.rowCountMax,
  };
  const count = Math.min(call.rowCountMax, SQL_BATCH_ROW_COUNT);
  if (call.descending === true) {
    assert(call.index === undefined && entry.keys !== undefined);
    return readPageDescending(entry, request, call.after, count);
  }
  // Through the index when it pays, as scan() does: each page takes the candidates again.
  const candidates = call.index === undefined ? undefined : indexCandidates(entry, { ...request, index: call.index });
  if (candidates !== undefined) return indexPage(entry, request, candidates, call.after, count);
  return readPage(entry, request, call.after, count);
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
  const sliced = request.slicedByCaller === true;
  let pageRowCount = sliced ? SQL_BATCH_ROW_COUNT : SQL_SCAN_FIRST_PAGE_ROW_COUNT;
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
    if (!sliced) await options.yieldTurn();
  }
}

/**
 * A look-up's pages (an index nested-loop join by row key): scanPages' whole pages without a
 * promise between them. Each page is read afresh from the key after the last one's, so what
 * commits between two pages do is seen as scanPages sees it.
 */
function* lookUpPages(name: string, entryOf: (name: string) => ContainerEntry, request: SqlScanRequest):
  Generator<SqlBatch> {
  assert(request.index === undefined && request.descending !== true);
  let after: RowKey | undefined;
  let left = request.rowCountMax;
  for (;;) {
    const page = readPage(entryOf(name), request, after, Math.min(left, SQL_BATCH_ROW_COUNT));
    if (page.batch.rowCount > 0) {
      left -= page.batch.rowCount;
      yield page.batch;
    }
    if (page.last === undefined || left <= 0) return;
    after = page.last;
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
  const page = new ScanPage(request.columnIndexes.map((index) => entry.schema.columns[index]!));
  const last = readRows(entry, request, { after, rowCountMin }, page);
  return { batch: page.batch(), last };
}

/** Where readRows puts the pieces of the blocks it reads (a page, or a GROUP BY in the scan). */
interface RowSink {
  readonly rowCount: number;
  add(columns: readonly ScanVector[], start: number, end: number): void;
}

/** readPage's rows into `sink`; answers where to go on, or undefined when no more. */
function readRows(entry: ContainerEntry, request: SqlScanRequest,
  { after, rowCountMin }: { after: RowKey | undefined; rowCountMin: number }, page: RowSink): RowKey | undefined {
  const schema = entry.schema;
  const keyed = entry.keys !== undefined;
  const bounds = storeBounds(schema, request);
  let from = bounds.from;
  if (after !== undefined) from = keyed ? after : (after as number) + 1;
  let last: RowKey | undefined;
  let exhausted = true;
  // The store copies only the page's rows of a block (STRING columns are copied, not viewed),
  // plus one: the first may be `after` itself, read again and dropped. Key columns the request
  // lacks are not read: the page's last key comes from the block (RowBatch.keyAt).
  for (const batch of entry.rows.scanBatches({
    from, to: bounds.to, direction: 'asc', columnIndexes: request.columnIndexes, limit: rowCountMin + 1,
  })) {
    let start = 0;
    if (keyed && after !== undefined && batch.rowCount > 0 && entry.keys!.compare(batch.keyAt(0), after) === 0) {
      start = 1;
    }
    // A page ends inside a block when the block holds more than the page: the work between two
    // turns of the event loop stays about one page's.
    let end = Math.min(batch.rowCount, start + Math.max(0, rowCountMin - page.rowCount));
    const stop = bounds.stop;
    if (stop !== undefined && end > start && keyPrefixAbove(batch.keyAt(end - 1) as KeyValue[], stop)) {
      // Keys past a prefix bound the store could not be given (see storeBounds): the range ends
      // at the first of them, found by halving (keys ascend inside a batch).
      let past = end - 1;
      let low = start;
      while (low < past) {
        const middle = (low + past) >>> 1;
        if (keyPrefixAbove(batch.keyAt(middle) as KeyValue[], stop)) past = middle;
        else low = middle + 1;
      }
      page.add(batch.columns, start, past);
      return undefined;
    }
    page.add(batch.columns, start, end);
    if (end > 0) last = batch.keyAt(end - 1);
    if (page.rowCount >= rowCountMin) {
      exhausted = false;
      break;
    }
  }
  return exhausted ? undefined : last;
}

type ScanVector = { kind: 'fixed' | 'var'; values: ArrayLike<unknown>; nulls: Uint8Array | undefined };

/**
 * The columns of one page, gathered from the row store's batches (one per block) and copied out
 * when the page is complete: a DOUBLE or TIMESTAMP (ms) column without NULLs in the page becomes
 * a Float64Array (one buffer for all such columns of the page: a few memcpys, nothing for the
 * collector to trace), the rest arrays of SQL values. Never a view of a block: the page outlives
 * the event-loop turn it was read in, and commits may change the block meanwhile.
 */
class ScanPage {
  rowCount = 0;
  private readonly pieces: { columns: readonly ScanVector[]; start: number; end: number }[] = [];

  constructor(private readonly columns: readonly ColumnSchema[]) {}

  add(columns: readonly ScanVector[], start: number, end: number): void {
    assert(start >= 0 && start <= end);
    assert(columns.length === this.columns.length);
    if (end === start) return;
    this.pieces.push({ columns, start, end });
    this.rowCount += end - start;
  }

  batch(): SqlBatch {
    const typed = this.columns.map((column, c) => this.typedColumn(column, c));
    const typedCount = typed.filter(Boolean).length;
    const buffer = typedCount === 0 ? undefined : new Float64Array(typedCount * this.rowCount);
    let typedIndex = 0;
    const columns = this.columns.map((column, c): SqlColumn => {
      if (typed[c]) {
        const out = buffer!.subarray(typedIndex * this.rowCount, (typedIndex + 1) * this.rowCount);
        typedIndex++;
        let at = 0;
        for (const { columns: vectors, start, end } of this.pieces) {
          out.set((vectors[c]!.values as Float64Array).subarray(start, end), at);
          at += end - start;
        }
        assert(at === this.rowCount);
        return out;
      }
      const only = this.pieces.length === 1 ? this.pieces[0]! : undefined;
      if (only !== undefined && only.start === 0 && only.end === only.columns[c]!.values.length &&
        only.columns[c]!.kind === 'var' && sqlTypeOfColumn(column) !== 'UNKNOWN') {
        // The row store's copy of a STRING (or TIMESTAMP(ns)) column, NULL slots already null
        // (row-block-column.ts), and all of it in the page: the page takes it as it is.
        return only.columns[c]!.values as readonly SqlValue[];
      }
      const out: SqlValue[] = [];
      for (const { columns: vectors, start, end } of this.pieces) appendColumn(out, vectors[c]!, column, start, end);
      return out;
    });
    return { rowCount: this.rowCount, columns };
  }

  /** Whether column c of the page goes out as a Float64Array: float64 storage, no NULL in range. */
  private typedColumn(column: ColumnSchema, c: number): boolean {
    return this.pieces.every(({ columns: vectors, start, end }) => isTypedRange(column, vectors[c]!, start, end));
  }
}

/** Whether rows start..end of a block's column read as a Float64Array: float64 storage, no NULL. */
function isTypedRange(column: ColumnSchema, vector: ScanVector, start: number, end: number): boolean {
  if (column.array || (column.type !== 'DOUBLE' && column.type !== 'TIMESTAMP')) return false;
  const { values, nulls } = vector;
  if (!(values instanceof Float64Array)) return false;
  if (nulls !== undefined) {
    for (let r = start; r < end; r++) if (nulls[r] === 1) return false;
  }
  return true;
}

/**
 * A RowSink that hands each piece on at once as a batch (SqlTable.visit): typed columns are views
 * of the block (subarray), the rest as ScanPage gives them. Nothing of it outlives the call.
 */
class VisitSink implements RowSink {
  rowCount = 0;

  constructor(private readonly columns: readonly ColumnSchema[], private readonly visit: (batch: SqlBatch) => void) {}

  add(vectors: readonly ScanVector[], start: number, end: number): void {
    assert(start >= 0 && start <= end);
    assert(vectors.length === this.columns.length);
    if (end === start) return;
    const columns = this.columns.map((column, c): SqlColumn => {
      const vector = vectors[c]!;
      if (isTypedRange(column, vector, start, end)) return (vector.values as Float64Array).subarray(start, end);
      if (start === 0 && end === vector.values.length && vector.kind === 'var' && sqlTypeOfColumn(column) !== 'UNKNOWN') {
        return vector.values as readonly SqlValue[];
      }
      const out: SqlValue[] = [];
      appendColumn(out, vector, column, start, end);
      return out;
    });
    this.rowCount += end - start;
    this.visit({ rowCount: end - start, columns });
  }
}

/**
 * SqlTable.visit: the rows scanPages would give, SQL_SCAN_AGGREGATE_ROW_COUNT per turn, each
 * piece of a block handed to `visit` as it is read (readRows, as a page reads them).
 */
async function visitPieces(name: string, entryOf: (name: string) => ContainerEntry, request: SqlScanRequest,
  visit: (batch: SqlBatch) => void, options: StoreSqlDatabaseOptions): Promise<void> {
  assert(request.index === undefined && request.descending !== true);
  let after: RowKey | undefined;
  let left = request.rowCountMax;
  while (left > 0) {
    const entry = entryOf(name);
    const sink = new VisitSink(request.columnIndexes.map((index) => entry.schema.columns[index]!), visit);
    const last = readRows(entry, request, { after, rowCountMin: Math.min(left, SQL_SCAN_AGGREGATE_ROW_COUNT) }, sink);
    left -= sink.rowCount;
    if (last === undefined) return;
    after = last;
    await options.yieldTurn();
  }
}

/**
 * The request's key bounds as the row store takes them. A composite key's bounds may be prefixes
 * (`hostname = 'h1' AND ts >= 10` gives from ['h1', 10], to ['h1']); the store wants whole keys,
 * so a prefix is padded with each remaining column's least value (from) or greatest (to). A STRING
 * has no greatest value: the store then gets no upper bound and `stop` says where the range ends.
 */
export function storeBounds(schema: ContainerSchema, request: Pick<SqlScanRequest, 'from' | 'to'>):
  { from: RowKey | undefined; to: RowKey | undefined; stop: KeyValue[] | undefined } {
  const count = schema.rowKeyColumnCount;
  const { from, to } = request;
  if (count < 2) return { from, to, stop: undefined };
  const paddedTo = to === undefined ? undefined : padKey(schema, to, 'greatest');
  return {
    from: from === undefined ? undefined : padKey(schema, from, 'least'),
    to: paddedTo,
    stop: to !== undefined && paddedTo === undefined ? to as KeyValue[] : undefined,
  };
}

/**
 * A key prefix padded to the row key's length with the side's extreme values; undefined when a
 * column has no greatest value (STRING). A module function, not a closure: a look-up join calls
 * storeBounds once a look-up, and tsx names every closure it creates (Object.defineProperty).
 */
function padKey(schema: ContainerSchema, bound: RowKey, side: 'least' | 'greatest'): KeyValue[] | undefined {
  const count = schema.rowKeyColumnCount;
  const key = [...bound as KeyValue[]];
  for (let i = key.length; i < count; i++) {
    const value = KEY_PAD[side](schema.columns[i]!);
    if (value === undefined) return undefined;
    key.push(value);
  }
  return key;
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
export function keyPrefixAbove(key: readonly KeyValue[], prefix: readonly KeyValue[]): boolean {
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

export function appendColumn(out: SqlValue[], vector: { values: ArrayLike<unknown>; nulls: Uint8Array | undefined },
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

