// TQL in a partition: a query runs against one container entry as its session sees it. Without
// changes of its own the session reads the committed rows straight from the RowStore; with an open
// transaction that changed the container it reads them merged with its write set
// (transactionScan), so a query sees the session's own uncommitted puts and removes, as get and
// scan do (READ_COMMITTED).
//
// Rows come in pages of TQL_SCAN_PAGE_ROW_COUNT, each page a fresh bounded scan from the row key
// after the last page: a LIMIT or a partial execution stops reading early, and a cursor left by
// partial execution goes on from its row key in a later call, reading what is committed by then.
// A keyless collection pages by block, taking each block's rowIds from scanBatches. When the plan
// has a range of a TREE index, rows come through the index instead where it pays (index-source.ts).

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { TQL_SCAN_PAGE_ROW_COUNT } from '../base/limits.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import { normalizeName } from '../schema/names.ts';
import {
  continueTql, executeTql, TqlCursor, type TqlColumnBatch, type TqlExecuteOptions,
  type TqlResult, type TqlRowBatch, type TqlRowPage, type TqlRowSource, type TqlSourceScan,
} from '../query/tql/execute.ts';
import type { PreparedTql } from '../query/tql/prepare.ts';
import { preparedTqlCache } from '../query/tql/prepare-cache.ts';
import { indexLabel, type TqlIndexRange } from '../query/tql/plan-index.ts';
import { checkSamplingApi, type SamplingApi } from '../query/tql/time-series-sampling-api.ts';
import type { ContainerEntry } from './catalog.ts';
import { indexPages } from './index-source.ts';
import { transactionScan, writeSetSize, type Transaction } from './transaction.ts';

export interface TqlQueryOptions extends TqlExecuteOptions {
  /**
   * GridDB's fetch(forUpdate): lock the rows of the result for the session's transaction
   * (Partition.queryForUpdate).
   */
  readonly forUpdate?: boolean;
  /**
   * GridDB's LIMIT fetch option: a SELECT * result has this many rows at most, as if the TQL's
   * LIMIT were the smaller of its own and this. Applied before fetch(forUpdate) locks, so the
   * rows past it are neither returned nor locked. Aggregates and EXPLAIN are not limited.
   */
  readonly rowLimit?: number;
  /**
   * GridDB's sampling call (TimeSeries.query(start, end, columnSet, mode, interval, unit)): the
   * TQL is `SELECT TIME_SAMPLING(*, start, end, interval, unit)` and this its columns and mode,
   * run by the call's own rules (time-series-sampling-api.ts).
   */
  readonly sampling?: SamplingApi;
}

export interface PartitionQueryScope {
  readonly entry: ContainerEntry;
  /** The session's open transaction on the container, if any. */
  readonly txn: Transaction | undefined;
  readonly autoCommit: boolean;
}

export function partitionQuery(
  scope: PartitionQueryScope,
  tql: string,
  options: TqlQueryOptions & { nowMs: number },
): TqlResult {
  const prepared = preparedTqlCache.prepare(tql, scope.entry.schema, { nowMs: options.nowMs });
  const query = withRowLimit(options.sampling === undefined ? prepared
    : withSampling(prepared, options.sampling), options.rowLimit);
  if (options.partialExecution === true && !scope.autoCommit) {
    throw autoCommitNeeded();
  }
  return withIndexUsed(scope, (source) => executeTql(query, source, options));
}

export function partitionQueryContinue(
  scope: PartitionQueryScope,
  cursor: TqlCursor,
  options: Pick<TqlQueryOptions, 'fetchSizeRows'>,
): TqlResult {
  if (!(cursor instanceof TqlCursor)) {
    throw new StorageError('ROW_INVALID', 'queryMore takes the cursor of a query result');
  }
  const { name } = scope.entry.schema;
  if (normalizeName(cursor.query.schema.name) !== normalizeName(name)) {
    throw new StorageError('ROW_INVALID',
      `the cursor is of container "${cursor.query.schema.name}", not "${name}"`);
  }
  if (cursor.state.kind === 'scan') {
    if (cursor.query.schema !== scope.entry.schema) {
      throw new StorageError('SCHEMA_CHANGED', `container "${name}" changed ` +
        'since the query began; run the query again');
    }
    if (!scope.autoCommit) throw autoCommitNeeded();
  }
  return withIndexUsed(scope, (source) => continueTql(cursor, source, options));
}

/** Runs a query over the scope's rows and tells which index, if any, it read through. */
function withIndexUsed(
  scope: PartitionQueryScope,
  run: (source: TqlRowSource) => TqlResult,
): TqlResult {
  const used: { index: TqlIndexRange | undefined } = { index: undefined };
  const result = run(rowSource(scope, used));
  if (used.index === undefined || result.kind === 'explain') return result;
  return { ...result, indexUsed: indexLabel(used.index, scope.entry.schema.columns) };
}

/**
 * The canonical key strings of every row of a result, those its cursor holds back included, for
 * fetch(forUpdate) to lock; undefined for a collection without a row key. Only a result of rows
 * has rows to lock.
 */
export function forUpdateKeyStrings(
  entry: ContainerEntry,
  result: TqlResult,
): string[] | undefined {
  if (result.kind !== 'rows') {
    const what = result.kind === 'aggregate' ? 'an aggregate has' : 'an EXPLAIN result has';
    throw new StorageError('TQL_SEMANTIC', 'fetch(forUpdate) locks the rows of a query ' +
      `result, and ${what} none: select rows (SELECT *)`);
  }
  const keys = entry.keys;
  if (keys === undefined) return undefined;
  const state = result.cursor?.state;
  // Partial execution needs auto-commit, so a cursor here holds the whole result.
  assert(state?.kind !== 'scan');
  const rows = state?.kind === 'buffered' ? state.rows : result.rows;
  return rows.map((row) => keys.keyString(keys.keyOf(row)));
}

function withSampling(query: PreparedTql, sampling: SamplingApi): PreparedTql {
  const selection = query.timeSeries;
  if (selection?.kind !== 'sampling' || selection.columnIndex !== undefined ||
    query.where !== undefined || query.orderBy.length > 0 || query.explain !== undefined ||
    query.limit !== Infinity || query.offset !== 0) {
    throw new StorageError('TQL_SEMANTIC', 'a sampling call runs SELECT TIME_SAMPLING(*, start, ' +
      'end, interval, unit) alone (no column, WHERE, ORDER BY, LIMIT, OFFSET or EXPLAIN)');
  }
  checkSamplingApi(query.schema, sampling);
  return { ...query, timeSeries: { ...selection, api: sampling } };
}

function withRowLimit(query: PreparedTql, rowLimit: number | undefined): PreparedTql {
  if (rowLimit === undefined || query.aggregate !== undefined || query.explain !== undefined ||
    query.timeSeries?.kind === 'timeAvg') {
    return query;
  }
  assert(Number.isSafeInteger(rowLimit) && rowLimit >= 0);
  return rowLimit < query.limit ? { ...query, limit: rowLimit } : query;
}

function autoCommitNeeded(): StorageError {
  return new StorageError('NOT_SUPPORTED',
    'partial execution needs the container in auto-commit mode');
}

function rowSource(
  scope: PartitionQueryScope,
  used: { index: TqlIndexRange | undefined },
): TqlRowSource {
  const scanned = scanSource(scope);
  return {
    ...scanned,
    pages(scan) {
      const index = scan.index;
      const pages = index === undefined ? undefined
        : indexPages(scope.entry, scope.txn, { ...scan, index });
      if (pages === undefined) return scanned.pages(scan);
      used.index = index;
      return pages;
    },
    indexRead: () => used.index,
  };
}

function scanSource(scope: PartitionQueryScope): TqlRowSource {
  const { entry, txn } = scope;
  const changed = txn !== undefined && writeSetSize(txn) > 0 ? txn : undefined;
  if (entry.keys === undefined) {
    return changed === undefined ? keylessSource(entry) : keylessTransactionSource(entry, changed);
  }
  return {
    pages: (scan) => keyedPages(entry, changed, scan),
    count: (scan) => (changed === undefined && scan.after === undefined
      ? entry.rows.rowCountInRange({ from: scan.from, to: scan.to })
      : undefined),
    columnBatches: (scan, columnIndex) => (changed === undefined
      ? columnBatches(entry, scan, columnIndex) : undefined),
    rowBatches: (scan) => (changed === undefined ? rowBatches(entry, scan) : undefined),
  };
}

/** Every column of the committed rows in range, block by block, zero-copy. */
function* rowBatches(
  entry: ContainerEntry,
  scan: TqlSourceScan,
): Generator<TqlRowBatch, undefined, undefined> {
  assert(scan.after === undefined);
  const { from, to, direction } = scan;
  for (const batch of entry.rows.scanBatches({ from, to, direction })) {
    yield { rowCount: batch.rowCount, columns: batch.columns };
  }
}

/** One column of the committed rows in range, block by block, zero-copy. */
function* columnBatches(
  entry: ContainerEntry,
  scan: TqlSourceScan,
  columnIndex: number,
): Generator<TqlColumnBatch, undefined, undefined> {
  assert(scan.after === undefined);
  const { from, to, direction } = scan;
  const columnIndexes = [columnIndex];
  for (const batch of entry.rows.scanBatches({ from, to, direction, columnIndexes })) {
    const column = batch.columns[0]!;
    yield { rowCount: batch.rowCount, values: column.values, nulls: column.nulls };
  }
}

/** Pages of a keyed container: each a bounded scan from the key after the last page. */
function* keyedPages(
  entry: ContainerEntry,
  txn: Transaction | undefined,
  scan: TqlSourceScan,
): Generator<TqlRowPage, undefined, undefined> {
  const keys = entry.keys!;
  const ascending = scan.direction === 'asc';
  let after = scan.after;
  for (;;) {
    let { from, to } = scan;
    // Start at `after` itself (bounds are inclusive) and drop it if it is still there.
    if (after !== undefined && ascending && (from === undefined || keys.compare(after, from) > 0)) {
      from = after;
    }
    if (after !== undefined && !ascending && (to === undefined || keys.compare(after, to) < 0)) {
      to = after;
    }
    if (from !== undefined && to !== undefined && keys.compare(from, to) > 0) return;
    const limit = (scan.pageRowCountMax ?? TQL_SCAN_PAGE_ROW_COUNT) + 1;
    const range = { from, to, direction: scan.direction, limit };
    let rows: Row[] = txn === undefined
      ? entry.rows.scan(range) : transactionScan(entry, txn, range);
    const exhausted = rows.length < limit;
    if (after !== undefined && rows.length > 0 && keys.compare(keys.keyOf(rows[0]!), after) === 0) {
      rows = rows.slice(1);
    }
    if (rows.length > 0) {
      const page = rows;
      yield { rows: page, positionAt: (index) => keys.keyOf(page[index]!) };
      after = keys.keyOf(page[page.length - 1]!);
    }
    if (exhausted) return;
  }
}

/** A keyless collection's committed rows, block by block, with their rowIds as positions. */
function keylessSource(entry: ContainerEntry): TqlRowSource {
  return {
    *pages(scan) {
      // Without a key there are no bounds, and rowId order is the only order a scan gives.
      assert(scan.from === undefined && scan.to === undefined, 'key bounds without a key');
      assert(scan.direction === 'asc', 'a keyless collection scanned backwards');
      const after = scan.after as number | undefined;
      const from = after === undefined ? undefined : after + 1;
      for (const batch of entry.rows.scanBatches({ from, direction: 'asc', columnIndexes: [] })) {
        const count = batch.rowCount;
        const rowIds = batch.rowIds!;
        if (count === 0) continue;
        const block = { from: rowIds[0]!, to: rowIds[count - 1]!, direction: 'asc' as const };
        const rows = entry.rows.scan(block);
        assert(rows.length === count);
        yield { rows, positionAt: (index) => rowIds[index]! };
      }
    },
    count: (scan) => (scan.after === undefined ? entry.rows.count() : undefined),
    columnBatches: (scan, columnIndex) => columnBatches(entry, scan, columnIndex),
    rowBatches: (scan) => rowBatches(entry, scan),
  };
}

/** A keyless collection with the session's own appends: one page, not resumable. */
function keylessTransactionSource(entry: ContainerEntry, txn: Transaction): TqlRowSource {
  return {
    *pages(scan) {
      assert(scan.after === undefined, 'partial execution inside a transaction');
      const rows = transactionScan(entry, txn, { direction: scan.direction });
      if (rows.length > 0) yield { rows, positionAt: (): RowKey | undefined => undefined };
    },
  };
}
