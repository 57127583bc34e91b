// GridDB's row statements: PUT_ROW (124), GET_ROW (120), DELETE_ROW (127), PUT_MULTIPLE_ROWS
// (125) and APPEND_TIME_SERIES_ROW (129), each run as one of store's own row requests
// (ROW_PUT_EXISTED, ROW_GET, ROW_REMOVE, ROW_PUT) through griddb-engine.ts, in auto-commit or in
// a session's transaction (griddb-sessions.ts).
// Bodies after the statement id (the C client's GSContainerTag::putTransactionInfo; rows and
// keys in griddb-rows.ts):
//
//   | containerId i64 | sessionId i64 | sessionUUID 16 | schemaVersion i32 | sessionMode i8 |
//   | transactionMode i8 | optional request | statement part |
//   PUT_ROW     part: one row;                reply | existed i8 |
//   GET_ROW     part: the key (FOR_UPDATE in the optional request: gsGetRowForUpdate, the key
//               stays locked for the transaction: ROW_GET_FOR_UPDATE);
//                                             reply | found i8 | the row, if found (with a
//                                             row id i64 = 0 first, for a collection) |
//   DELETE_ROW  part: the key;                reply | existed i8 |
//   PUT_MULTIPLE_ROWS part: | rowCount i64 | rows |   reply | 0 i8 |  (one store put: all or none)
//   APPEND_TIME_SERIES_ROW (129, gsAppendTimeSeriesRow) part: one row whose key is a placeholder
//               (the client sends 0); the node sets it to its clock (ServerOptions.clock) and
//               runs PUT_ROW's ROW_PUT_EXISTED;        reply | existed i8 |
//
// A key of one column is that column's field; a composite key is a row of the key columns
// (one row of griddb-rows.ts's encoding).
//
// A row statement names its container by id (in its frame's partition) only, so the node keeps
// the names of the containers GridDB clients have been told about (GriddbContainerNames; an id
// unknown since the node started is looked up: griddb-container-ids.ts); the
// schema version must be the container's (else TXN_CONTAINER_SCHEMA_UNMATCH, as GridDB). PUT_ROW's "existed" is decided by
// the engine with the put, after any lock wait (ROW_PUT_EXISTED).

import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { STORE_BLOCK_SIZES_BYTES, blockSizeLimits } from '../../base/limits.ts';
import {
  ROW_GET, ROW_GET_FOR_UPDATE, ROW_PUT, ROW_PUT_EXISTED, ROW_REMOVE,
} from '../../protocol/messages-row.ts';
import { CONTAINER_INFO } from '../../protocol/messages-container.ts';
import { KeyBatch, RowBatch } from '../../protocol/wire-rows.ts';
import type { ContainerInfo } from '../../protocol/wire-schema.ts';
import type { ContainerSchema } from '../../schema/container-schema.ts';
import type { GriddbContainerCache, GriddbContainerFound } from './griddb-container-cache.ts';
import type { Row, RowKey } from '../../schema/column-type.ts';
import { assert } from '../../base/assert.ts';
import { keyValidator, validateRow } from '../../schema/row-validate.ts';
import { griddbErrorOf, type GriddbEngine } from './griddb-engine.ts';
import { isStorageError } from '../../base/errors.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError, griddbDecode } from './griddb-frame.ts';
import { griddbOptionalRequestRead } from './griddb-optional-request.ts';
import { griddbKeyRead, griddbRowsRead, griddbRowsWrite } from './griddb-rows.ts';
import { type GriddbRowsScratch, griddbRowsTranscode } from './griddb-rows-transcode.ts';
import { griddbContainerNameOf } from './griddb-container-ids.ts';
import {
  GRIDDB_UUID_BYTES, type GriddbSessionRef, type GriddbSessions,
} from './griddb-sessions.ts';
import { GriddbStatement } from './griddb-statements.ts';

/** Values are checked against the largest block's limits here; the engine checks its own. */
export const VALUE_LIMITS =
  blockSizeLimits(STORE_BLOCK_SIZES_BYTES[STORE_BLOCK_SIZES_BYTES.length - 1]!);
/** Container names kept for row statements; the oldest is forgotten beyond this. */
export const GRIDDB_CONTAINER_NAMES_MAX = 100_000;

/**
 * (partition, container id) → name of the containers GridDB clients have learnt of, oldest
 * first. Store numbers containers per partition, as GridDB does, so an id alone names one
 * container in each partition: a statement's partition (its frame's) goes with it.
 */
export class GriddbContainerNames {
  private readonly names = new Map<string, string>();
  /** Partitions whose containers were all looked up since (griddb-container-ids.ts). */
  private readonly scanned = new Set<number>();

  /** `partitionNum`: the node's, by which a name's partition is found. */
  constructor(readonly partitionNum: number) {}

  remember(partitionId: number, containerId: number, name: string): void {
    const key = `${partitionId}/${containerId}`;
    this.names.delete(key);
    this.names.set(key, name);
    if (this.names.size > GRIDDB_CONTAINER_NAMES_MAX) {
      const oldest = this.names.keys().next().value!;
      this.names.delete(oldest);
      // An id of that partition is unknown again: a look-up must find it.
      this.scanned.delete(Number(oldest.slice(0, oldest.indexOf('/'))));
    }
  }

  isScanned(partitionId: number): boolean {
    return this.scanned.has(partitionId);
  }

  markScanned(partitionId: number): void {
    this.scanned.add(partitionId);
  }

  nameOf(partitionId: number, containerId: number): string | undefined {
    return this.names.get(`${partitionId}/${containerId}`);
  }
}

export interface RowStatementHead {
  containerId: number;
  session: GriddbSessionRef;
  schemaVersion: number;
  transactionMode: number;
  /** GET_ROW of gsGetRowForUpdate: the key stays locked for the transaction. */
  forUpdate: boolean;
  part: Uint8Array;
}

export function griddbRowHeadDecode(statementId: bigint, body: Uint8Array): RowStatementHead {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    const head = griddbRowHeadRead(reader, statementId);
    return { ...head, part: body.subarray(reader.offsetBytes) };
  });
}

/**
 * Reads a row statement head up to its statement part; with `uuid` (EXECUTE_MULTIPLE_QUERIES
 * sends the session UUID once, before its queries) the head has none of its own.
 */
export function griddbRowHeadRead(reader: ByteReader, statementId: bigint,
  uuid?: Uint8Array): Omit<RowStatementHead, 'part'> {
  const containerId = griddbContainerIdRead(reader);
  const sessionId = reader.i64();
  const sessionUuid = uuid ?? reader.bytes(GRIDDB_UUID_BYTES);
  const schemaVersion = reader.i32();
  reader.i8(); // session mode: a session is this node's when its transaction begins
  const transactionMode = reader.i8();
  const { forUpdate } = griddbOptionalRequestRead(reader);
  return { containerId, session: { sessionId, uuid: sessionUuid, statementId }, schemaVersion,
    transactionMode, forUpdate };
}

/** A container id (i64) as the node numbers containers. */
export function griddbContainerIdRead(reader: ByteReader): number {
  const containerId = reader.i64();
  if (containerId < 0n || containerId > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new GriddbFrameError(`container id ${containerId} is out of range`);
  }
  return Number(containerId);
}

export interface RowStatementContext {
  engine: GriddbEngine;
  names: GriddbContainerNames;
  /** The partition the statement's frame names (its containers' ids are that partition's). */
  partitionId: number;
  partitionOf(name: string): number;
  sessions: GriddbSessions;
  /** The connection's container look-ups of row statements (griddb-container-cache.ts). */
  containers?: GriddbContainerCache;
  /** The connection's room for transcoded rows (griddb-rows-transcode.ts). */
  rowsScratch?: GriddbRowsScratch;
  /** The node's wall clock (lib/io/clock.ts), for APPEND_TIME_SERIES_ROW's key. */
  nowMs?: () => number;
}

export async function containerOf(context: Omit<RowStatementContext, 'sessions'>,
  head: { containerId: number; schemaVersion?: number }):
  Promise<{ info: ContainerInfo; schema: ContainerSchema; ref: {
    partitionId: number; name: string; containerId: number; schemaVersion: number; }; }> {
  const name = await griddbContainerNameOf(context, head.containerId);
  const info = name === undefined ? undefined : await context.engine.call(CONTAINER_INFO,
    { partitionId: context.partitionOf(name), name });
  if (info === undefined || info.containerId !== head.containerId) {
    throw new GriddbError(GriddbErrorCode.TXN_CONTAINER_NOT_FOUND,
      `container id ${head.containerId} does not exist`);
  }
  if (head.schemaVersion !== undefined && info.schemaVersion !== head.schemaVersion) {
    throw new GriddbError(GriddbErrorCode.TXN_CONTAINER_SCHEMA_UNMATCH,
      `container "${info.name}" has schema version ${info.schemaVersion}, not ` +
      `${head.schemaVersion}`);
  }
  const schema: ContainerSchema = { name: info.name, type: info.type, columns: info.columns,
    rowKeyColumnCount: info.rowKeyColumnCount, indexes: info.indexes,
    schemaVersion: info.schemaVersion };
  return { info, schema, ref: { partitionId: info.partitionId, name: info.name,
    containerId: info.containerId, schemaVersion: info.schemaVersion } };
}

/** Store's checks of a value (validateRow, keyValidator), their refusal as GridDB's error. */
export function checked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (isStorageError(error)) throw griddbErrorOf(error);
    throw error;
  }
}

export function griddbKeyOf(schema: ContainerSchema, part: Uint8Array): RowKey {
  if (schema.rowKeyColumnCount === 0) {
    throw new GriddbError(GriddbErrorCode.TXN_STATEMENT_TYPE_UNKNOWN,
      `container "${schema.name}" has no row key`);
  }
  const key = griddbDecode((): unknown => {
    if (schema.rowKeyColumnCount > 1) {
      const [row] = griddbRowsRead(part, schema.columns.slice(0, schema.rowKeyColumnCount), 1);
      return row!;
    }
    const reader = new ByteReader(part);
    const value = griddbKeyRead(reader, schema.columns[0]!);
    if (reader.remainingBytes !== 0) {
      throw new GriddbFrameError(`${reader.remainingBytes} bytes after the row key`);
    }
    return value;
  });
  return checked(() => keyValidator(schema)(key));
}

/**
 * `count` GridDB rows of a put as the engine's batch: transcoded byte to byte when
 * griddb-rows-transcode.ts takes them, else decoded and validated (every refusal's own error).
 * With `scratch` the batch is valid until the scratch's next use: hand it to the engine at once.
 */
export function griddbRowBatchOf(schema: ContainerSchema, bytes: Uint8Array, count: number,
  scratch?: GriddbRowsScratch): RowBatch {
  const transcoded = griddbRowsTranscode(bytes, schema, count, scratch);
  if (transcoded !== undefined) return RowBatch.encoded(count, transcoded);
  const decoded = griddbDecode(() => griddbRowsRead(bytes, schema.columns, count));
  return RowBatch.of(schema,
    decoded.map((row) => checked(() => validateRow(schema, row, VALUE_LIMITS))));
}

/**
 * APPEND_TIME_SERIES_ROW's row: the one the client sent (its key a placeholder, 0) with the key
 * set to the node's clock, in the key column's precision (ms × 1000 for µs, × 10^6 for ns).
 */
export function appendedRow(schema: ContainerSchema, part: Uint8Array,
  nowMs: (() => number) | undefined): Row {
  if (schema.type !== 'TIME_SERIES') {
    throw new GriddbError(GriddbErrorCode.TXN_CONTAINER_TYPE_INVALID,
      `gsAppendTimeSeriesRow on collection "${schema.name}": only a time series takes it`);
  }
  assert(nowMs !== undefined, 'a row statement context without a clock');
  const [row] = griddbDecode(() => griddbRowsRead(part, schema.columns, 1));
  const key = schema.columns[0]!;
  assert(key.type === 'TIMESTAMP');
  const ms = nowMs();
  row![0] = key.timePrecision === 'MICROSECOND' ? BigInt(ms) * 1000n
    : key.timePrecision === 'NANOSECOND' ? BigInt(ms) * 1_000_000n : ms;
  return checked(() => validateRow(schema, row!, VALUE_LIMITS));
}

/** Runs one row statement; returns the reply's payload writer. */
export async function rowStatementRun(context: RowStatementContext, type: number,
  statementId: bigint, body: Uint8Array): Promise<(writer: ByteWriter) => void> {
  const head = griddbRowHeadDecode(statementId, body);
  const cache = context.containers;
  const cached = cache?.get(context.partitionId, head.containerId, head.schemaVersion);
  if (cached === undefined) {
    const found = await containerOf(context, head);
    cache?.set(context.partitionId, head.containerId, found);
    return rowStatementOn(context, type, head, found);
  }
  try {
    return await rowStatementOn(context, type, head, cached);
  } catch (error) {
    if (error instanceof GriddbError && (error.error === GriddbErrorCode.TXN_CONTAINER_NOT_FOUND ||
      error.error === GriddbErrorCode.TXN_CONTAINER_SCHEMA_UNMATCH)) {
      // The engine refused the entry's schema ref: the container changed since it was cached.
      // Nothing was applied; answer what the container is now (the statement is not run again).
      cache?.delete(context.partitionId, head.containerId);
      await containerOf(context, head);
    }
    throw error;
  }
}

async function rowStatementOn(context: RowStatementContext, type: number,
  head: ReturnType<typeof griddbRowHeadDecode>, { schema, ref }: GriddbContainerFound):
  Promise<(writer: ByteWriter) => void> {
  const sessionId = await context.sessions.sessionFor(head.session, head.transactionMode,
    { partitionId: ref.partitionId, name: ref.name });
  const statement = () => context.sessions.statement(head.session, sessionId);
  switch (type) {
    case GriddbStatement.PUT_ROW: {
      const existed = await context.engine.call(ROW_PUT_EXISTED,
        { statement: statement(), ref, rows: griddbRowBatchOf(schema, head.part, 1, context.rowsScratch) });
      return (writer) => writer.i8(existed ? 1 : 0);
    }
    case GriddbStatement.APPEND_TIME_SERIES_ROW: {
      const row = appendedRow(schema, head.part, context.nowMs);
      const existed = await context.engine.call(ROW_PUT_EXISTED,
        { statement: statement(), ref, rows: RowBatch.of(schema, [row]) });
      return (writer) => writer.i8(existed ? 1 : 0);
    }
    case GriddbStatement.PUT_MULTIPLE_ROWS: {
      const { count, rowBytes } = griddbDecode(() => {
        const reader = new ByteReader(head.part);
        const rowCount = reader.i64();
        if (rowCount < 1n || rowCount > BigInt(head.part.byteLength)) {
          throw new GriddbFrameError(`row count ${rowCount} is outside 1..${head.part.byteLength}`);
        }
        return { count: Number(rowCount), rowBytes: head.part.subarray(reader.offsetBytes) };
      });
      await context.engine.call(ROW_PUT,
        { statement: statement(), ref,
          rows: griddbRowBatchOf(schema, rowBytes, count, context.rowsScratch) });
      return (writer) => writer.i8(0);
    }
    case GriddbStatement.GET_ROW: {
      const key = griddbKeyOf(schema, head.part);
      const found = await context.engine.call(head.forUpdate ? ROW_GET_FOR_UPDATE : ROW_GET,
        { sessionId, ref, keys: KeyBatch.of(schema, [key]) });
      const rows = found.decode(schema);
      return (writer) => {
        writer.i8(rows.length > 0 ? 1 : 0);
        if (rows.length > 0) {
          griddbRowsWrite(writer, schema.columns, rows,
            schema.type === 'COLLECTION' ? [0n] : undefined);
        }
      };
    }
    case GriddbStatement.DELETE_ROW: {
      const key = griddbKeyOf(schema, head.part);
      const removed = await context.engine.call(ROW_REMOVE,
        { statement: statement(), ref, keys: KeyBatch.of(schema, [key]) });
      return (writer) => writer.i8(removed ? 1 : 0);
    }
    default:
      throw new GriddbError(GriddbErrorCode.TXN_STATEMENT_TYPE_UNKNOWN,
        `statement ${type} is not a row statement`);
  }
}
