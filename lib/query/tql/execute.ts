// The executor: runs a prepared query (prepare.ts) over a container's rows, as a TqlRowSource
// hands them out page by page in row-key order, and gives rows or an aggregate.
//
// Three shapes of execution, chosen by the plan:
//   aggregate  every selected row goes to one accumulator; LIMIT/OFFSET apply to its one result row
//   streamed   scan order is the result order: rows are filtered, OFFSET skipped, and the scan
//              stops as soon as LIMIT rows are there
//   sorted     selected rows are gathered and sorted (stable: ties keep row-key order); with a
//              LIMIT only the best OFFSET + LIMIT are kept while gathering
//   encoded    a streamed `SELECT *` without WHERE beyond a row-key range, asked with encodeRows
//              (the node's server): rows go from the source's column batches straight into the
//              reply's bytes (EncodedRows), never made into rows. Everything else (a filter, an
//              index, ORDER BY of other columns, the session's own uncommitted changes, partial
//              execution, fetch(forUpdate)) keeps the row path.
//   time series  a time-series function of the select list (time-series-execute.ts): its rows
//              all at once, or TIME_AVG's value
//
// A result has at most `fetchSizeRows` rows; the rest waits in a TqlCursor (continueTql). Without
// partial execution the whole result is computed at once and held by the cursor, and a result (or
// a sort) of more than TQL_RESULT_ROW_COUNT_MAX rows is LIMIT_EXCEEDED. With partial execution
// (GridDB's PARTIAL_EXECUTION fetch option; a streamed `SELECT *` only) each call reads only as far
// as its rows need and the cursor remembers the row key to go on from, so memory stays bounded by
// the fetch size whatever the container holds.
//
// An EXPLAIN statement gives the plan as rows instead (explain.ts); EXPLAIN ANALYZE runs the query
// here first, as a fetch would, and adds what the run measured.

import { assert } from '../../base/assert.ts';
import { StorageError } from '../../base/errors.ts';
import { ENCODED_ROWS_CHUNK_BYTES, TQL_RESULT_ROW_COUNT_MAX } from '../../base/limits.ts';
import type { ColumnType, Row, RowKey, TimePrecision } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import { EncodedRowsBuilder, type EncodedRows } from '../../encoding/encoded-rows.ts';
import { rowCodec, type RowColumn } from '../../encoding/row-codec.ts';
import { columnRangeOf } from '../../encoding/row-codec-column-range.ts';
import { createAccumulator } from './aggregate.ts';
import { explainTql } from './explain.ts';
import type { AggregateFunction } from './functions.ts';
import { rowComparator } from './order.ts';
import type { TqlIndexRange } from './plan-index.ts';
import type { PreparedTql } from './prepare.ts';
import { executeTimeSeries } from './time-series-execute.ts';
import type { TqlValue } from './types.ts';

/** One page of rows from a source, in scan order. */
export interface TqlRowPage {
  readonly rows: readonly Row[];
  /** The row key of rows[index] (the rowId in a keyless collection); undefined: not resumable. */
  positionAt(index: number): RowKey | undefined;
}

export interface TqlSourceScan {
  /** Inclusive bounds. */
  readonly from: RowKey | undefined;
  readonly to: RowKey | undefined;
  /** Start strictly after this key (in scan direction): where a partial execution stopped. */
  readonly after: RowKey | undefined;
  readonly direction: 'asc' | 'desc';
  /**
   * Rows outside this index range are not selected: the source may read only the rows the index
   * names (still in row-key order, within from/to and after), or ignore it and scan.
   */
  readonly index?: TqlIndexRange;
  /**
   * Rows a page holds at most, when the reader needs only the first few (TIME_NEXT and the like):
   * a smaller page reads fewer blocks. Default TQL_SCAN_PAGE_ROW_COUNT.
   */
  readonly pageRowCountMax?: number;
}

/** One column of a run of rows, as RowStore.scanBatches hands it out (zero-copy). */
export interface TqlColumnBatch {
  readonly rowCount: number;
  /** One value per row, in the shape a row holds it; at a NULL, whatever the slot holds. */
  readonly values: ArrayLike<unknown>;
  /** 1 = NULL; undefined: no NULLs. */
  readonly nulls: Uint8Array | undefined;
}

/**
 * Every column of a run of rows, as RowStore.scanBatches hands them out (zero-copy). Rows inside
 * a batch are in ascending key order: a 'desc' scan reads a batch from its end.
 */
export interface TqlRowBatch {
  readonly rowCount: number;
  /** One per column of the container, in column order. */
  readonly columns: readonly RowColumn[];
}

/** A container's rows as a query sees them (its own transaction's changes included). */
export interface TqlRowSource {
  pages(scan: TqlSourceScan): Iterable<TqlRowPage>;
  /** Rows in [from, to] without reading them, when the source can tell; else undefined. */
  count?(scan: TqlSourceScan): number | undefined;
  /** One column of the rows in [from, to], in batches, when the source can; else undefined. */
  columnBatches?(scan: TqlSourceScan, columnIndex: number): Iterable<TqlColumnBatch> | undefined;
  /**
   * Every column of the rows in [from, to], in batches, when the source can (committed rows, no
   * changes of the session's own); else undefined. Batches come in scan order.
   */
  rowBatches?(scan: TqlSourceScan): Iterable<TqlRowBatch> | undefined;
  /** The index the last scan's pages came through; undefined: they came from a scan. */
  indexRead?(): TqlIndexRange | undefined;
}

/** How an aggregate got its values: a row count, columnar batches, or rows one by one. */
export type TqlAggregateInput = 'ROW_COUNT' | 'COLUMN_BATCHES' | 'ROWS';

/** What one run did, for EXPLAIN ANALYZE. */
export interface TqlRunStats {
  /** Rows read from the container (none when a count or the plan answered alone). */
  scannedRowCount: number;
  /** Rows WHERE selected, before OFFSET and LIMIT (a LIMIT may stop the scan first). */
  selectedRowCount: number;
  aggregateInput: TqlAggregateInput | undefined;
}

export interface TqlExecuteOptions {
  /** Rows in this answer at most; the rest wait in the cursor. Default: all of them. */
  readonly fetchSizeRows?: number;
  /** Read only as far as this answer needs (a streamed SELECT * only). */
  readonly partialExecution?: boolean;
  /** A monotonic clock, for the time EXPLAIN ANALYZE reports; without it none is reported. */
  readonly monotonicMs?: () => number;
  /** Filled with what the run did. */
  readonly stats?: TqlRunStats;
  /**
   * A result of rows may come as 'encodedRows' (all of it, no cursor) when its rows can be
   * encoded straight from the source's batches: the caller sends them on the wire as they are.
   */
  readonly encodeRows?: boolean;
}

export interface TqlAggregateType {
  readonly type: ColumnType;
  readonly timePrecision?: TimePrecision;
}

export type TqlResult =
  | {
    readonly kind: 'rows';
    /** The container's columns: every row has one value per column. */
    readonly columns: ColumnSchema[];
    readonly rows: Row[];
    /** More rows remain: pass it to continueTql. */
    readonly cursor: TqlCursor | undefined;
    /** Rows read from the container for this answer. */
    readonly scannedRowCount: number;
    /** The index this answer read through (TqlIndexRange.name or its columns); none: a scan. */
    readonly indexUsed?: string;
  }
  | {
    readonly kind: 'aggregate';
    readonly function: AggregateFunction | 'TIME_AVG';
    readonly type: TqlAggregateType;
    /** A LONG result is a bigint. null: no result row (nothing to aggregate, or LIMIT/OFFSET). */
    readonly value: number | bigint | null;
    readonly scannedRowCount: number;
    readonly indexUsed?: string;
  }
  /** Rows already encoded for the wire (TqlExecuteOptions.encodeRows): the whole result. */
  | {
    readonly kind: 'encodedRows';
    readonly columns: ColumnSchema[];
    readonly rows: EncodedRows;
    readonly scannedRowCount: number;
    /** Never set: an index read needs rows. */
    readonly indexUsed?: string;
  }
  /** EXPLAIN [ANALYZE]: the plan as rows of TQL_EXPLAIN_COLUMNS, all of them (no cursor). */
  | {
    readonly kind: 'explain';
    readonly columns: ColumnSchema[];
    readonly rows: Row[];
    readonly scannedRowCount: number;
    /** ANALYZE tells it in its rows. */
    readonly indexUsed?: undefined;
  };

type CursorState =
  /** Rows computed at once; the next answer starts at `index`. */
  | { readonly kind: 'buffered'; readonly rows: Row[]; readonly index: number }
  /** Partial execution: the scan goes on after row key `after`. */
  | {
    readonly kind: 'scan'; readonly after: RowKey; readonly offsetLeft: number;
    readonly limitLeft: number;
  };

/**
 * What remains of a query's result after an answer; opaque to callers. A cursor never changes:
 * each answer that leaves rows has a new one.
 */
export class TqlCursor {
  constructor(readonly query: PreparedTql, readonly state: CursorState) {}
}

export function executeTql(
  query: PreparedTql,
  source: TqlRowSource,
  options: TqlExecuteOptions = {},
): TqlResult {
  const fetchSizeRows = fetchSize(options);
  if (query.explain !== undefined) return explainTql(query, source, options, executeTql);
  const counter = newCounter(options.stats);
  if (query.aggregate !== undefined) return aggregate(query, source, counter);
  if (query.timeSeries !== undefined) return timeSeries(query, source, fetchSizeRows, counter);
  if (options.partialExecution === true) {
    if (!query.plan.ordered) {
      throw new StorageError('NOT_SUPPORTED', 'partial execution needs SELECT * in row-key ' +
        'order: no ORDER BY of other columns');
    }
    return streamed(query, source, fetchSizeRows, {
      after: undefined, offsetLeft: query.offset, limitLeft: query.limit,
    }, counter);
  }
  const encoded = options.encodeRows === true ? allEncoded(query, source, counter) : undefined;
  if (encoded !== undefined) {
    return {
      kind: 'encodedRows', columns: columnsOf(query), rows: encoded,
      scannedRowCount: counter.scannedRowCount,
    };
  }
  const rows = query.plan.ordered
    ? allStreamed(query, source, counter) : allSorted(query, source, counter);
  const state = { kind: 'buffered' as const, rows, index: 0 };
  return buffered(query, state, fetchSizeRows, counter.scannedRowCount);
}

/** The next answer of a query that left a cursor. */
export function continueTql(
  cursor: TqlCursor,
  source: TqlRowSource,
  options: Pick<TqlExecuteOptions, 'fetchSizeRows'> = {},
): TqlResult {
  const state = cursor.state;
  if (state.kind === 'buffered') return buffered(cursor.query, state, fetchSize(options), 0);
  return streamed(cursor.query, source, fetchSize(options), state, newCounter(undefined));
}

function fetchSize(options: Pick<TqlExecuteOptions, 'fetchSizeRows'>): number {
  const size = options.fetchSizeRows ?? TQL_RESULT_ROW_COUNT_MAX;
  if (!Number.isSafeInteger(size) || size < 1) {
    throw new StorageError('ROW_INVALID',
      `a fetch size must be a positive integer, not ${String(size)}`);
  }
  return size;
}

function columnsOf(query: PreparedTql): ColumnSchema[] {
  return query.schema.columns.map((column) => ({ ...column }));
}

function scanOf(query: PreparedTql, after: RowKey | undefined): TqlSourceScan {
  const { from, to, direction, index } = query.plan;
  return index === undefined ? { from, to, after, direction } : { from, to, after, direction, index };
}

/**
 * Calls `visit` with every row WHERE selects, in scan order, until it returns false. Counts the
 * rows read into `counter`.
 */
function forEachSelected(
  query: PreparedTql,
  source: TqlRowSource,
  after: RowKey | undefined,
  counter: Counter,
  visit: (row: Row, page: TqlRowPage, index: number) => boolean,
): void {
  if (query.plan.empty) return;
  const filter = query.filter;
  for (const page of source.pages(scanOf(query, after))) {
    const rows = page.rows;
    for (let i = 0; i < rows.length; i++) {
      counter.scannedRowCount++;
      const row = rows[i]!;
      if (filter !== undefined && filter(row) !== true) continue;
      counter.selectedRowCount++;
      if (!visit(row, page, i)) return;
    }
  }
}

function aggregate(query: PreparedTql, source: TqlRowSource, counter: Counter): TqlResult {
  const spec = query.aggregate!;
  let value: number | bigint | null;
  const countAll = spec.function === 'COUNT' && spec.columnIndex === undefined &&
    query.filter === undefined;
  const counted = countAll && !query.plan.empty
    ? source.count?.(scanOf(query, undefined)) : undefined;
  if (counted !== undefined) {
    value = BigInt(counted);
    counter.selectedRowCount = counted;
    counter.aggregateInput = 'ROW_COUNT';
  } else if (countAll && query.plan.empty) {
    value = 0n;
    counter.aggregateInput = 'ROW_COUNT';
  } else {
    value = accumulate(query, source, counter);
  }
  // The aggregate is one row; LIMIT and OFFSET apply to it.
  if (query.limit === 0 || query.offset > 0) value = null;
  const { scalar, timePrecision } = spec.resultType;
  assert(scalar !== 'NULL');
  return {
    kind: 'aggregate', function: spec.function,
    type: timePrecision === undefined ? { type: scalar } : { type: scalar, timePrecision },
    value, scannedRowCount: counter.scannedRowCount,
  };
}

/** The time-series functions (time-series-execute.ts): rows, all at once, or TIME_AVG. */
function timeSeries(
  query: PreparedTql,
  source: TqlRowSource,
  fetchSizeRows: number,
  counter: Counter,
): TqlResult {
  const outcome = executeTimeSeries(query, source, counter);
  if (outcome.kind === 'rows') {
    const state = { kind: 'buffered' as const, rows: outcome.rows, index: 0 };
    return buffered(query, state, fetchSizeRows, counter.scannedRowCount);
  }
  return {
    kind: 'aggregate', function: 'TIME_AVG', type: { type: 'DOUBLE' }, value: outcome.value,
    scannedRowCount: counter.scannedRowCount,
  };
}

/**
 * Feeds the aggregate its values: straight from columnar batches when every row in range counts
 * (no WHERE) and the source has them, else row by row.
 */
function accumulate(query: PreparedTql, source: TqlRowSource, counter: Counter) {
  const spec = query.aggregate!;
  const accumulator = createAccumulator(spec);
  const index = spec.columnIndex;
  const batches = index === undefined || query.filter !== undefined || query.plan.empty
    ? undefined : source.columnBatches?.(scanOf(query, undefined), index);
  if (batches !== undefined) {
    counter.aggregateInput = 'COLUMN_BATCHES';
    for (const { rowCount, values, nulls } of batches) {
      counter.scannedRowCount += rowCount;
      counter.selectedRowCount += rowCount;
      for (let i = 0; i < rowCount; i++) {
        accumulator.add(nulls !== undefined && nulls[i] === 1 ? null : values[i] as TqlValue);
      }
    }
    return accumulator.result();
  }
  counter.aggregateInput = 'ROWS';
  forEachSelected(query, source, undefined, counter, (row) => {
    accumulator.add(index === undefined ? null : row[index] as TqlValue);
    return true;
  });
  return accumulator.result();
}

function resultTooLarge(): StorageError {
  return new StorageError('LIMIT_EXCEEDED', `a query result may hold at most ` +
    `${TQL_RESULT_ROW_COUNT_MAX} rows; add a LIMIT, or use partial execution`);
}

/** The stats a run fills: the caller's, or a fresh one. */
type Counter = TqlRunStats;

function newCounter(stats: TqlRunStats | undefined): Counter {
  const counter = stats ?? { scannedRowCount: 0, selectedRowCount: 0, aggregateInput: undefined };
  counter.scannedRowCount = 0;
  counter.selectedRowCount = 0;
  counter.aggregateInput = undefined;
  return counter;
}

function allStreamed(query: PreparedTql, source: TqlRowSource, counter: Counter): Row[] {
  const rows: Row[] = [];
  let offsetLeft = query.offset;
  let limitLeft = query.limit;
  if (limitLeft === 0) return rows;
  forEachSelected(query, source, undefined, counter, (row) => {
    if (offsetLeft > 0) {
      offsetLeft--;
      return true;
    }
    if (rows.length === TQL_RESULT_ROW_COUNT_MAX) throw resultTooLarge();
    rows.push(row);
    return --limitLeft > 0;
  });
  return rows;
}

/**
 * allStreamed's rows, encoded from the source's column batches without making rows; undefined
 * when the query needs rows (a filter, an index, another order) or the source has no batches.
 */
function allEncoded(
  query: PreparedTql,
  source: TqlRowSource,
  counter: Counter,
): EncodedRows | undefined {
  const { plan } = query;
  if (!plan.ordered || query.filter !== undefined || plan.index !== undefined) return undefined;
  const builder = new EncodedRowsBuilder(rowCodec(query.schema, 'wire'), ENCODED_ROWS_CHUNK_BYTES,
    columnRangeOf(query.schema));
  if (plan.empty || query.limit === 0) return builder.finish();
  const batches = source.rowBatches?.(scanOf(query, undefined));
  if (batches === undefined) return undefined;
  let offsetLeft = query.offset;
  let limitLeft = query.limit;
  const ascending = plan.direction === 'asc';
  for (const { rowCount, columns } of batches) {
    // Rows skipped by OFFSET or cut by LIMIT are not read: only counted, as the row path counts.
    const skipped = Math.min(offsetLeft, rowCount);
    offsetLeft -= skipped;
    const taken = Math.min(rowCount - skipped, limitLeft);
    if (builder.rowCount + taken > TQL_RESULT_ROW_COUNT_MAX) throw resultTooLarge();
    if (ascending) {
      builder.addRange(columns, skipped, taken);
    } else {
      for (let n = skipped; n < skipped + taken; n++) builder.add(columns, rowCount - 1 - n);
    }
    counter.scannedRowCount += skipped + taken;
    counter.selectedRowCount += skipped + taken;
    limitLeft -= taken;
    if (limitLeft === 0) break;
  }
  return builder.finish();
}

function allSorted(query: PreparedTql, source: TqlRowSource, counter: Counter): Row[] {
  const compare = rowComparator(query.orderBy);
  const keep = query.offset + query.limit; // Infinity without LIMIT
  if (query.limit === 0) return [];
  // With a LIMIT, the buffer is cut back to the best `keep` rows whenever it doubles.
  const pruneAt = Math.max(2 * keep, 1024);
  let rows: Row[] = [];
  forEachSelected(query, source, undefined, counter, (row) => {
    rows.push(row);
    if (rows.length >= pruneAt) {
      rows.sort(compare);
      rows.length = keep;
    }
    if (rows.length > TQL_RESULT_ROW_COUNT_MAX) throw resultTooLarge();
    return true;
  });
  rows.sort(compare);
  rows = rows.slice(query.offset, keep);
  return rows;
}

function buffered(
  query: PreparedTql,
  state: CursorState & { kind: 'buffered' },
  fetchSizeRows: number,
  scannedRowCount: number,
): TqlResult {
  const start = state.index;
  assert(start <= state.rows.length);
  const end = Math.min(state.rows.length, start + fetchSizeRows);
  const rows = start === 0 && end === state.rows.length ? state.rows : state.rows.slice(start, end);
  const cursor = end < state.rows.length
    ? new TqlCursor(query, { kind: 'buffered', rows: state.rows, index: end }) : undefined;
  return { kind: 'rows', columns: columnsOf(query), rows, cursor, scannedRowCount };
}

/** Partial execution: reads only until `fetchSizeRows` rows are there; remembers where it is. */
function streamed(
  query: PreparedTql,
  source: TqlRowSource,
  fetchSizeRows: number,
  start: { after: RowKey | undefined; offsetLeft: number; limitLeft: number },
  counter: Counter,
): TqlResult {
  assert(fetchSizeRows >= 1);
  assert(start.limitLeft > 0 || start.after === undefined, 'a cursor past its LIMIT');
  const rows: Row[] = [];
  let { offsetLeft, limitLeft } = start;
  let stoppedAt: RowKey | undefined;
  if (limitLeft > 0) {
    forEachSelected(query, source, start.after, counter, (row, page, index) => {
      if (offsetLeft > 0) {
        offsetLeft--;
        return true;
      }
      rows.push(row);
      limitLeft--;
      if (limitLeft === 0 || rows.length < fetchSizeRows) return limitLeft > 0;
      stoppedAt = page.positionAt(index);
      if (stoppedAt === undefined) {
        throw new StorageError('NOT_SUPPORTED',
          'partial execution cannot resume here: commit the transaction first');
      }
      return false;
    });
  }
  const cursor = stoppedAt === undefined ? undefined
    : new TqlCursor(query, { kind: 'scan', after: stoppedAt, offsetLeft, limitLeft });
  const { scannedRowCount } = counter;
  return { kind: 'rows', columns: columnsOf(query), rows, cursor, scannedRowCount };
}
