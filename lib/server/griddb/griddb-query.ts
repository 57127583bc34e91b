// GridDB's query statements: QUERY_TQL (121), FETCH_ROW_SET (151), CLOSE_ROW_SET (150), and the
// statements by row id of a row set's rows, UPDATE_ROW_BY_ID (126) and DELETE_ROW_BY_ID (128)
// (gsUpdateCurrentRow / gsDeleteCurrentRow on a collection). Store's own TQL engine answers: the
// query runs as store's QUERY, its pages read with FETCH (griddb-engine.ts), held as a row set
// (griddb-row-sets.ts) while the client fetches. Bodies after the statement id (the C client's
// GSContainerTag::queryAndFetch, fetchRowSet, closeRowSet, updateRow, removeRow):
//
//   QUERY_TQL        | row statement head (griddb-row-statements.ts; FOR_UPDATE: forUpdate) |
//                    | fetchLimit i64 | fetchSize i64 | partial execution: | enabled i8 |
//                    |   count i32 | (type i8 | size i32 | bytes)… | | tql string |
//   reply            | entryCount i32 | (type i8 | size i32 | entry)… |
//     0 ROW_SET      | rowCount i64 | rows (griddb-rows.ts; a collection's with row ids) |
//     1 AGGREGATION  | rowCount i64 (0: no value) | type i8 | value, fixed size |
//     2 ANALYSIS     | rowCount i64 | rows of ID, DEPTH, TYPE, VALUE_TYPE, VALUE, STATEMENT |
//     3 PARTIAL_FETCH_STATE      | totalRowCount i64 | rowSetId i64 |
//     4 PARTIAL_EXECUTION_STATE  | enabled i8 | count i32 | entries |
//   FETCH_ROW_SET    | row statement head | rowSetId i64 | startPosition i64 | fetchSize i64 |
//   reply            | closed i8 | varDataBaseOffset i64 | rowCount i64 | rows |
//   CLOSE_ROW_SET    | containerId i64 | optional request | rowSetId i64 |   reply empty
//   UPDATE_ROW_BY_ID | row statement head | rowId i64 | row |                reply empty
//   DELETE_ROW_BY_ID | row statement head | rowId i64 |                      reply empty
//
// fetchLimit (GS_FETCH_LIMIT, else INT64_MAX) is store's rowLimit. A fetchSize (GS_FETCH_SIZE)
// below the result's row count makes a partial fetch: the first fetchSize rows, the total and a
// row set id; FETCH_ROW_SET sends the rows from startPosition on and says closed with the last.
// A result of more than GRIDDB_PART_BYTES_TARGET is sent in parts the same way, fetch size or
// not (FETCH_ROW_SET may send fewer rows than asked: the client reads on). A query for update is
// never partial: the client fetches a part's successor when it reads the part's last row, which
// leaves that row without its id (gsUpdateCurrentRow would send -1); a longer one is refused.
// Partial execution (GS_FETCH_PARTIAL_EXECUTION) is answered part by part, one store page
// (FETCH_ROW_COUNT_MAX rows, FETCH_REPLY_BYTES_TARGET bytes) each, from store's own streamed
// partial execution; the execution state carries the continuation the client sends back
// (griddb-partial-executions.ts draws it). A result of one page, or one store cannot stream (ORDER
// BY another column than the row key, aggregations), comes at once with a state not enabled.

import { assert } from '../../base/assert.ts';
import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { FETCH, QUERY, RESULT_CLOSE, RESULT_SET_ID_NONE } from '../../protocol/messages-query.ts';
import type { QueryResultKind } from '../../protocol/messages-query.ts';
import { ROW_PUT, ROW_REMOVE } from '../../protocol/messages-row.ts';
import { KeyBatch, RowBatch } from '../../protocol/wire-rows.ts';
import { resultSchemaOf } from '../../protocol/wire-schema.ts';
import { FETCH_REPLY_BYTES_TARGET, FETCH_ROW_COUNT_MAX } from '../../base/limits.ts';
import type { Row } from '../../schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../schema/container-schema.ts';
import { samplingTql, timeRangeTql } from '../../client/client-time-series.ts';
import type { SamplingApi } from '../../query/tql/time-series-sampling-api.ts';
import { keyValidator, validateRow } from '../../schema/row-validate.ts';
import { GriddbEngineFailure } from './griddb-engine.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError, griddbDecode, griddbStringRead } from './griddb-frame.ts';
import { griddbColumnTypeCode } from './griddb-container-properties.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';
import {
  VALUE_LIMITS, checked, containerOf, griddbContainerIdRead, griddbRowHeadDecode,
  type RowStatementContext, type RowStatementHead,
} from './griddb-row-statements.ts';
import { griddbFixedFieldWrite, griddbRowsRead, griddbRowsWrite } from './griddb-rows.ts';
import type { GriddbRowSet, GriddbRowSets } from './griddb-row-sets.ts';
import { GriddbStatement } from './griddb-statements.ts';
import {
  griddbPartialContinuationOf, griddbPartialStateWrite, type GriddbPartialContinuation,
} from './griddb-partial-executions.ts';

const INT64_MAX = 2n ** 63n - 1n;
/** Query result entry types (the C client's QueryResultType). */
const RESULT_ROW_SET = 0;
const RESULT_AGGREGATION = 1;
const RESULT_QUERY_ANALYSIS = 2;
const RESULT_PARTIAL_FETCH_STATE = 3;
const RESULT_PARTIAL_EXECUTION_STATE = 4;
/**
 * A reply carries rows up to about this many bytes (store's encoding, by the result's mean row):
 * a longer result is sent in parts, as a partial fetch, whatever the fetch size.
 */
export const GRIDDB_PART_BYTES_TARGET = FETCH_REPLY_BYTES_TARGET;
/** Columns a sampling query may name (a container has fewer). */
const SAMPLING_COLUMNS_MAX = 1024;
/** A timestamp in ms beyond this is no date (Date's own range). */
const MS_MAX = 8_640_000_000_000_000n;
/** GridDB's TimeUnit codes (server/data_store_common.h TIME_UNIT_YEAR = 0 … MILLISECOND 6). */
const SAMPLING_UNIT_CODE_NAMES = ['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND',
  'MILLISECOND'] as const;
/** The same codes as TIME_SAMPLING's units; YEAR and MONTH have none (GridDB refuses them). */
const SAMPLING_UNIT_NAMES = [undefined, undefined, 'DAY', 'HOUR', 'MINUTE', 'SECOND',
  'MILLISECOND'] as const;
/** Partial execution entries a request may carry (the client sends back what it was given). */
const PARTIAL_EXECUTION_ENTRIES_MAX = 64;

export interface QueryStatementContext extends RowStatementContext {
  rowSets: GriddbRowSets;
}

export interface QueryTqlRequest {
  fetchLimit: bigint;
  fetchSize: bigint;
  partialExecution: boolean;
  /** The part a partial execution's continuation asks for; undefined: a query's first part. */
  continuation: GriddbPartialContinuation | undefined;
  tql: string;
}

/** What a query statement asks: TQL text, or a time-series range or sampling (its TQL). */
export interface GriddbQueryRequest extends Omit<QueryTqlRequest, 'tql'> {
  query: QueryText;
}

export type QueryText =
  | { kind: 'tql'; tql: string }
  | { kind: 'range'; start: number | undefined; end: number | undefined; descending: boolean }
  | { kind: 'sampling'; start: number; end: number; columnIds: number[]; interval: number;
    unit: number; mode: number };

export function queryTqlDecode(part: Uint8Array): QueryTqlRequest {
  return griddbDecode(() => {
    const reader = new ByteReader(part);
    const request = queryTqlRead(reader);
    reader.expectEnd();
    return request;
  });
}

/** Reads a QUERY_TQL part (inside griddbDecode); EXECUTE_MULTIPLE_QUERIES sends them in a row. */
export function queryTqlRead(reader: ByteReader): QueryTqlRequest {
  const fixed = queryFixedRead(reader);
  return { ...fixed, tql: griddbStringRead(reader, 'TQL') };
}

/** Reads the part of QUERY_TQL, QUERY_TIME_SERIES_RANGE or QUERY_TIME_SERIES_SAMPLING. */
export function queryRead(reader: ByteReader, statementType: number): GriddbQueryRequest {
  if (statementType === GriddbStatement.QUERY_TQL) {
    const { tql, ...fixed } = queryTqlRead(reader);
    return { ...fixed, query: { kind: 'tql', tql } };
  }
  const fixed = queryFixedRead(reader);
  if (statementType === GriddbStatement.QUERY_TIME_SERIES_RANGE) {
    const time = () => {
      const value = reader.i64();
      return value === INT64_MAX ? undefined : timestampOf(value);
    };
    const start = time();
    const end = time();
    const order = reader.i8();
    if (order !== 0 && order !== 1) throw new GriddbFrameError(`query order ${order} is not 0 or 1`);
    return { ...fixed, query: { kind: 'range', start, end, descending: order === 1 } };
  }
  if (statementType !== GriddbStatement.QUERY_TIME_SERIES_SAMPLING) {
    throw new GriddbFrameError(`statement ${statementType} is not a query`);
  }
  const start = timestampOf(reader.i64());
  const end = timestampOf(reader.i64());
  const count = reader.i32();
  if (count < 0 || count > SAMPLING_COLUMNS_MAX) {
    throw new GriddbFrameError(`sampling column count ${count} is outside 0..${SAMPLING_COLUMNS_MAX}`);
  }
  const columnIds: number[] = [];
  for (let i = 0; i < count; i++) columnIds.push(reader.i32());
  const interval = reader.i32();
  const unit = reader.i8();
  const mode = reader.i8();
  return { ...fixed, query: { kind: 'sampling', start, end, columnIds, interval, unit, mode } };
}

function timestampOf(value: bigint): number {
  if (value < -MS_MAX || value > MS_MAX) {
    throw new GriddbFrameError(`timestamp ${value} is outside ±${MS_MAX} ms`);
  }
  return Number(value);
}

function queryFixedRead(reader: ByteReader): Omit<QueryTqlRequest, 'tql'> {
  const fetchLimit = reader.i64();
  const fetchSize = reader.i64();
  const partialExecution = reader.i8() !== 0;
  const count = reader.i32();
  if (count < 0 || count > PARTIAL_EXECUTION_ENTRIES_MAX) {
    throw new GriddbFrameError(`partial execution entry count ${count} is outside ` +
      `0..${PARTIAL_EXECUTION_ENTRIES_MAX}`);
  }
  const entries: { type: number; bytes: Uint8Array }[] = [];
  for (let i = 0; i < count; i++) {
    const type = reader.i8();
    const size = reader.i32();
    if (size < 0 || size > reader.remainingBytes) {
      throw new GriddbFrameError(`partial execution entry of ${size} bytes runs past the body`);
    }
    entries.push({ type, bytes: reader.bytes(size) });
  }
  const continuation = griddbPartialContinuationOf(entries);
  if (continuation !== undefined && !partialExecution) {
    throw new GriddbFrameError('partial execution entries in a query without partial execution');
  }
  return { fetchLimit, fetchSize, partialExecution, continuation };
}

/** The rows of a result, read to the end from store (bounded by the connection's row sets). */
interface WholeResult {
  kind: QueryResultKind;
  columns: ColumnSchema[];
  rows: Row[];
  bytes: number;
}

export async function wholeResult(context: QueryStatementContext, request: Parameters<
  typeof QUERY.writeRequest>[1]): Promise<WholeResult> {
  const first = await context.engine.call(QUERY, request);
  const schema = resultSchemaOf(first.columns);
  let bytes = first.rows.encodedBytes?.byteLength ?? 0;
  const rows = first.rows.decode(schema);
  let done = first.resultSetId === RESULT_SET_ID_NONE;
  try {
    while (!done) {
      context.rowSets.checkBytes(bytes);
      const page = await context.engine.call(FETCH,
        { resultSetId: first.resultSetId, fetchSize: FETCH_ROW_COUNT_MAX });
      bytes += page.rows.encodedBytes?.byteLength ?? 0;
      for (const row of page.rows.decode(schema)) rows.push(row);
      done = page.done;
    }
    context.rowSets.checkBytes(bytes);
  } catch (error) {
    if (!done && !(error instanceof GriddbEngineFailure)) {
      await resultClose(context, first.resultSetId);
    }
    throw error;
  }
  return { kind: first.kind, columns: first.columns, rows, bytes };
}

function entryWrite(writer: ByteWriter, type: number, write: (writer: ByteWriter) => void): void {
  writer.i8(type);
  const sizeAt = writer.claim(4);
  writer.advanceTo(sizeAt + 4);
  write(writer);
  writer.dataView.setInt32(sizeAt, writer.lengthBytes - sizeAt - 4, true);
}

/** QUERY_TQL. */
export async function queryTqlRun(context: QueryStatementContext, statementId: bigint,
  body: Uint8Array): Promise<(writer: ByteWriter) => void> {
  const head = griddbRowHeadDecode(statementId, body);
  const { tql, ...fixed } = queryTqlDecode(head.part);
  return queryRun(context, head, { ...fixed, query: { kind: 'tql', tql } });
}

/** QUERY_TIME_SERIES_RANGE and QUERY_TIME_SERIES_SAMPLING (gsQueryByTimeSeriesRange, …Sampling). */
export async function timeSeriesQueryRun(context: QueryStatementContext, type: number,
  statementId: bigint, body: Uint8Array): Promise<(writer: ByteWriter) => void> {
  const head = griddbRowHeadDecode(statementId, body);
  const request = griddbDecode(() => {
    const reader = new ByteReader(head.part);
    const read = queryRead(reader, type);
    reader.expectEnd();
    return read;
  });
  return queryRun(context, head, request);
}

/** The TQL (and sampling) of a query statement, for `schema`. */
function tqlOf(schema: ContainerSchema, query: QueryText):
  { tql: string; sampling?: SamplingApi } {
  switch (query.kind) {
    case 'tql':
      return { tql: query.tql };
    case 'range':
      return { tql: checked(() => timeRangeTql(schema, query,
        query.descending ? 'DESCENDING' : 'ASCENDING')) };
    case 'sampling': {
      const unit = SAMPLING_UNIT_NAMES[query.unit];
      // GridDB's TimeSeries::sample refuses YEAR and MONTH (and any unit outside DAY to
      // MILLISECOND) with this code: a month or a year is no fixed number of milliseconds.
      if (unit === undefined && query.interval !== 0) {
        throw new GriddbError(GriddbErrorCode.DS_TIM_SAMPLING_TIME_UNIT_INVALID, `sampling by ` +
          `time unit ${query.unit} (${SAMPLING_UNIT_CODE_NAMES[query.unit] ?? 'unknown'}): ` +
          'the units are DAY to MILLISECOND');
      }
      if (unit === undefined || (query.mode !== 0 && query.mode !== 1)) {
        throw new GriddbError(GriddbErrorCode.TXN_STATEMENT_TYPE_UNKNOWN, `sampling by time unit ` +
          `${query.unit} and interpolation mode ${query.mode} is not supported (units DAY to ` +
          'MILLISECOND, modes LINEAR_OR_PREVIOUS and EMPTY)');
      }
      const columns = query.columnIds.map((id) => {
        const column = schema.columns[id];
        if (column === undefined) throw new GriddbFrameError(`column ${id} does not exist`);
        return column.name;
      });
      const { tql, api } = checked(() => samplingTql(schema, query, { columns,
        mode: query.mode === 1 ? 'EMPTY' : 'LINEAR_OR_PREVIOUS', interval: query.interval, unit }));
      return { tql, sampling: api };
    }
  }
}

/** One query (of QUERY_TQL or EXECUTE_MULTIPLE_QUERIES); returns its reply's writer. */
export async function queryRun(context: QueryStatementContext,
  head: Omit<RowStatementHead, 'part'>, request: GriddbQueryRequest):
  Promise<(writer: ByteWriter) => void> {
  const { schema, ref } = await containerOf(context, head);
  if (request.continuation !== undefined) {
    return partialExecutionNext(context, ref.containerId, schema, request.continuation);
  }
  const { tql, sampling } = tqlOf(schema, request.query);
  const sessionId = await context.sessions.sessionFor(head.session, head.transactionMode,
    { partitionId: ref.partitionId, name: ref.name });
  const storeRequest = {
    sessionId, ref: { partitionId: ref.partitionId, name: ref.name }, tql,
    ...(sampling === undefined ? {} : { sampling }),
    fetchSize: FETCH_ROW_COUNT_MAX, partialExecution: false, forUpdate: head.forUpdate,
    ...(request.fetchLimit >= 0n && request.fetchLimit < INT64_MAX
      ? { rowLimit: Number(request.fetchLimit > BigInt(Number.MAX_SAFE_INTEGER)
        ? BigInt(Number.MAX_SAFE_INTEGER) : request.fetchLimit) } : {}),
  };
  let result: WholeResult;
  if (request.partialExecution && !head.forUpdate) {
    const first = await partialExecutionFirst(context, ref.containerId, schema, storeRequest);
    if (typeof first === 'function') return first;
    result = first ?? await wholeResult(context, storeRequest);
  } else {
    result = await wholeResult(context, storeRequest);
  }
  const executionState = (writer: ByteWriter): void => {
    if (!request.partialExecution) return;
    entryWrite(writer, RESULT_PARTIAL_EXECUTION_STATE,
      (entry) => griddbPartialStateWrite(entry, undefined));
  };
  if (result.kind === 'AGGREGATION') {
    const column = result.columns[0]!;
    const value = result.rows[0]?.[0] ?? null;
    return (writer) => {
      writer.i32(request.partialExecution ? 2 : 1);
      entryWrite(writer, RESULT_AGGREGATION, (entry) => {
        entry.i64(value === null ? 0n : 1n);
        if (value === null) return;
        entry.i8(griddbColumnTypeCode(column));
        griddbFixedFieldWrite(entry, column, value);
      });
      executionState(writer);
    };
  }
  if (result.kind === 'EXPLAIN') {
    return (writer) => {
      writer.i32(request.partialExecution ? 2 : 1);
      entryWrite(writer, RESULT_QUERY_ANALYSIS, (entry) => {
        entry.i64(BigInt(result.rows.length));
        griddbRowsWrite(entry, result.columns, result.rows);
      });
      executionState(writer);
    };
  }
  const rowSet: GriddbRowSet = {
    containerId: ref.containerId, columns: schema.columns, rows: result.rows,
    firstRowId: schema.type === 'COLLECTION'
      ? context.rowSets.takeRowIds(result.rows.length) : undefined,
    keyColumnCount: schema.rowKeyColumnCount, bytes: result.bytes,
  };
  const total = result.rows.length;
  const partRows = partRowsOf(rowSet);
  // A row set fetched for update comes whole: the client reads the next part as soon as it
  // reads a part's last row, and then has no row id for gsUpdateCurrentRow of that row.
  if (head.forUpdate && total > partRows) {
    throw new GriddbError(GriddbErrorCode.LIMIT_EXCEEDED, `a query for update answers at most ` +
      `${GRIDDB_PART_BYTES_TARGET} bytes of rows at once (this one has ${result.bytes}): set a ` +
      'LIMIT or a narrower condition');
  }
  const firstCount = head.forUpdate ? total : Math.min(total, partRows,
    request.fetchSize > 0n && request.fetchSize < BigInt(total) ? Number(request.fetchSize)
      : total);
  const partial = firstCount < total;
  const rowSetId = partial ? context.rowSets.keep(rowSet) : 0n;
  const ids = context.rowSets.sent(rowSet, 0, firstCount);
  return (writer) => {
    writer.i32(1 + (partial ? 1 : 0) + (request.partialExecution ? 1 : 0));
    if (partial) {
      entryWrite(writer, RESULT_PARTIAL_FETCH_STATE, (entry) => {
        entry.i64(BigInt(total));
        entry.i64(rowSetId);
      });
    }
    entryWrite(writer, RESULT_ROW_SET, (entry) => {
      entry.i64(BigInt(firstCount));
      griddbRowsWrite(entry, rowSet.columns, rowSet.rows.slice(0, firstCount), ids);
    });
    executionState(writer);
  };
}

/**
 * The first part of a partial execution: store's QUERY with its own partial execution, one page
 * (FETCH_ROW_COUNT_MAX rows, FETCH_REPLY_BYTES_TARGET bytes at most). A result that fits its first
 * page comes back whole (the caller answers it like every other, with the state not enabled, as
 * GridDB does when nothing is left); one store cannot stream (ORDER BY another column than the
 * row key) gives undefined: the caller reads it whole, as without partial execution.
 * Otherwise the part's reply writer, with the continuation in its state.
 */
async function partialExecutionFirst(context: QueryStatementContext, containerId: number,
  schema: ContainerSchema, storeRequest: Parameters<typeof QUERY.writeRequest>[1]):
  Promise<WholeResult | undefined | ((writer: ByteWriter) => void)> {
  let first;
  try {
    first = await context.engine.call(QUERY, { ...storeRequest, partialExecution: true });
  } catch (error) {
    if (error instanceof GriddbError && error.error.name === 'NOT_SUPPORTED') return undefined;
    throw error;
  }
  const rows = first.rows.decode(resultSchemaOf(first.columns));
  const bytes = first.rows.encodedBytes?.byteLength ?? 0;
  if (first.resultSetId === RESULT_SET_ID_NONE) {
    return { kind: first.kind, columns: first.columns, rows, bytes };
  }
  assert(first.kind === 'ROWS');
  const { executionId, dropped } = context.rowSets.partials.start({
    containerId, resultSetId: first.resultSetId, columns: first.columns, partIndex: 1n });
  if (dropped !== undefined) await resultClose(context, dropped);
  return partWriter(context, containerId, schema, first.columns, rows, { executionId,
    partIndex: 1n });
}

/** A continuation's part: the next page of the execution's store result set. */
async function partialExecutionNext(context: QueryStatementContext, containerId: number,
  schema: ContainerSchema, continuation: GriddbPartialContinuation):
  Promise<(writer: ByteWriter) => void> {
  const execution = context.rowSets.partials.get(continuation, containerId);
  let page;
  try {
    page = await context.engine.call(FETCH,
      { resultSetId: execution.resultSetId, fetchSize: FETCH_ROW_COUNT_MAX });
  } catch (error) {
    context.rowSets.partials.end(continuation.executionId);
    throw error;
  }
  const rows = page.rows.decode(resultSchemaOf(execution.columns));
  execution.partIndex += 1n;
  if (page.done) context.rowSets.partials.end(continuation.executionId);
  return partWriter(context, containerId, schema, execution.columns, rows, page.done ? undefined
    : { executionId: continuation.executionId, partIndex: execution.partIndex });
}

/** A part's reply: its rows (with row ids for a collection's) and the execution state. */
function partWriter(context: QueryStatementContext, containerId: number, schema: ContainerSchema,
  columns: readonly ColumnSchema[], rows: Row[], next: GriddbPartialContinuation | undefined):
  (writer: ByteWriter) => void {
  const rowSet: GriddbRowSet = {
    containerId, columns, rows, keyColumnCount: schema.rowKeyColumnCount, bytes: 0,
    firstRowId: schema.type === 'COLLECTION' ? context.rowSets.takeRowIds(rows.length) : undefined,
  };
  const ids = context.rowSets.sent(rowSet, 0, rows.length);
  return (writer) => {
    writer.i32(2);
    entryWrite(writer, RESULT_ROW_SET, (entry) => {
      entry.i64(BigInt(rows.length));
      griddbRowsWrite(entry, columns, rows, ids);
    });
    entryWrite(writer, RESULT_PARTIAL_EXECUTION_STATE,
      (entry) => griddbPartialStateWrite(entry, next));
  };
}

/** Lets go of a store result set the client will not read on; only a broken engine throws. */
async function resultClose(context: QueryStatementContext, resultSetId: number): Promise<void> {
  await context.engine.call(RESULT_CLOSE, { resultSetId }).catch((error: unknown) => {
    if (error instanceof GriddbEngineFailure) throw error;
  });
}

/** FETCH_ROW_SET. */
export function fetchRowSetRun(context: QueryStatementContext, statementId: bigint,
  body: Uint8Array): (writer: ByteWriter) => void {
  const head = griddbRowHeadDecode(statementId, body);
  const { rowSetId, start, fetchSize } = griddbDecode(() => {
    const reader = new ByteReader(head.part);
    const fields = { rowSetId: reader.i64(), start: reader.i64(), fetchSize: reader.i64() };
    reader.expectEnd();
    return fields;
  });
  const rowSet = context.rowSets.get(rowSetId);
  if (rowSet.containerId !== head.containerId) {
    throw new GriddbError(GriddbErrorCode.DS_DS_RESULT_ID_INVALID,
      `row set ${rowSetId} is not one of container id ${head.containerId}`);
  }
  const total = rowSet.rows.length;
  if (start < 0n || start > BigInt(total) || fetchSize < 1n) {
    throw new GriddbFrameError(`fetch of ${fetchSize} rows from ${start} of a row set of ${total}`);
  }
  const from = Number(start);
  const to = Math.min(total, from + partRowsOf(rowSet),
    from + Number(fetchSize > BigInt(total) ? BigInt(total) : fetchSize));
  const closed = to === total;
  const ids = context.rowSets.sent(rowSet, from, to);
  if (closed) context.rowSets.close(rowSetId);
  return (writer) => {
    writer.i8(closed ? 1 : 0);
    writer.i64(0n); // var offsets count from this fetch's own variable area
    writer.i64(BigInt(to - from));
    griddbRowsWrite(writer, rowSet.columns, rowSet.rows.slice(from, to), ids);
  };
}

/** Rows of a row set one reply takes: GRIDDB_PART_BYTES_TARGET by its mean row, 1 at least. */
function partRowsOf(rowSet: GriddbRowSet): number {
  if (rowSet.rows.length === 0 || rowSet.bytes <= GRIDDB_PART_BYTES_TARGET) {
    return Math.max(1, rowSet.rows.length);
  }
  return Math.max(1, Math.floor(GRIDDB_PART_BYTES_TARGET / (rowSet.bytes / rowSet.rows.length)));
}

/** CLOSE_ROW_SET: a row set the node does not hold (any more) is closed already. */
export function closeRowSetRun(context: QueryStatementContext, body: Uint8Array): void {
  const rowSetId = griddbDecode(() => {
    const reader = new ByteReader(body);
    griddbContainerIdRead(reader);
    griddbOptionalRequestSkip(reader);
    const id = reader.i64();
    reader.expectEnd();
    return id;
  });
  context.rowSets.close(rowSetId);
}

/** UPDATE_ROW_BY_ID and DELETE_ROW_BY_ID: the row id's key, then store's put or remove. */
export async function rowByIdRun(context: QueryStatementContext, type: number,
  statementId: bigint, body: Uint8Array): Promise<void> {
  const head = griddbRowHeadDecode(statementId, body);
  const { schema, ref } = await containerOf(context, head);
  const { rowId, rest } = griddbDecode(() => {
    const reader = new ByteReader(head.part);
    return { rowId: reader.i64(), rest: head.part.subarray(reader.offsetBytes) };
  });
  if (schema.rowKeyColumnCount === 0) {
    throw new GriddbError(GriddbErrorCode.TXN_STATEMENT_TYPE_UNKNOWN, `container ` +
      `"${schema.name}" has no row key: store has no row ids to update or delete its rows by`);
  }
  const { key: sentKey } = context.rowSets.rowOf(rowId, ref.containerId);
  const key = checked(() => keyValidator(schema)(sentKey));
  const sessionId = await context.sessions.sessionFor(head.session, head.transactionMode,
    { partitionId: ref.partitionId, name: ref.name });
  const statement = context.sessions.statement(head.session, sessionId);
  if (type === GriddbStatement.DELETE_ROW_BY_ID) {
    griddbDecode(() => new ByteReader(rest).expectEnd());
    await context.engine.call(ROW_REMOVE, { statement, ref, keys: KeyBatch.of(schema, [key]) });
    return;
  }
  const [decoded] = griddbDecode(() => griddbRowsRead(rest, schema.columns, 1));
  const row = checked(() => validateRow(schema, decoded, VALUE_LIMITS));
  const rowKey = checked(() => keyValidator(schema)(schema.rowKeyColumnCount === 1 ? row[0]
    : row.slice(0, schema.rowKeyColumnCount)));
  if (JSON.stringify(rowKey, keyText) !== JSON.stringify(key, keyText)) {
    throw new GriddbError(GriddbErrorCode.DS_DS_SCHEMA_INVALID, `row id ${rowId} is the row ` +
      `of key ${JSON.stringify(key, keyText)}: its row key cannot change to ` +
      JSON.stringify(rowKey, keyText));
  }
  await context.engine.call(ROW_PUT, { statement, ref, rows: RowBatch.of(schema, [row]) });
}

function keyText(_name: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}
