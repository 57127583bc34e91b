// The partial executions a GridDB connection has in progress (GS_FETCH_PARTIAL_EXECUTION). GridDB
// answers such a query part by part: each QUERY_TQL reply carries the rows of one part and a
// PARTIAL_EXECUTION_STATE entry; while that state says enabled, the client sends the same
// QUERY_TQL again with the state's entries, unread, for the next part, and requires the entries
// to change from part to part (client.cpp PartialExecutionStatus::inherit). GridDB's entries
// hold a row id range and scan counts (server/result_set.h, ResultSetOption); store has no row
// ids, so its one entry names the engine's result set of the query, streamed by store's own
// partial execution (lib/query/tql/execute.ts: a cursor on the row key, one page in memory):
//
//   entry   | type i8 = 0 (GridDB's ROW_ID) | size i32 = 16 | executionId i64 | partIndex i64 |
//
// executionId is this connection's; partIndex counts the parts sent (1 after the first), so the
// entry changes with every part and a stale or repeated continuation is refused. At most
// GRIDDB_PARTIAL_EXECUTIONS_MAX are held: the client sends nothing when an application closes
// such a row set early, so the oldest is dropped (its engine result set closed by the caller) and
// a continuation of it gets DS_DS_RESULT_ID_INVALID, as a lost row set does.

import { assert } from '../../base/assert.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError } from './griddb-frame.ts';

/** Partial executions one connection keeps going; a new one drops the oldest. */
export const GRIDDB_PARTIAL_EXECUTIONS_MAX = 16;
/** The entry type store's continuation travels under (GridDB's ROW_ID entry). */
export const PARTIAL_ENTRY_TYPE = 0;
const PARTIAL_ENTRY_BYTES = 16;

/** Where a continuation asks to go on. */
export interface GriddbPartialContinuation {
  executionId: bigint;
  partIndex: bigint;
}

export interface GriddbPartialExecution {
  readonly containerId: number;
  /** The engine's result set (store's QUERY reply) the parts are fetched from. */
  readonly resultSetId: number;
  readonly columns: ColumnSchema[];
  /** The part the next continuation must name. */
  partIndex: bigint;
}

export class GriddbPartialExecutions {
  private readonly open = new Map<bigint, GriddbPartialExecution>();
  private nextId = 1n;

  get openCount(): number {
    return this.open.size;
  }

  /**
   * Keeps an execution whose first part was sent; returns its id, and the engine result set of
   * the execution dropped to make room (the caller closes it), if one was.
   */
  start(execution: GriddbPartialExecution): { executionId: bigint; dropped: number | undefined } {
    assert(execution.partIndex === 1n);
    let dropped: number | undefined;
    if (this.open.size >= GRIDDB_PARTIAL_EXECUTIONS_MAX) {
      const [oldestId, oldest] = this.open.entries().next().value!;
      this.open.delete(oldestId);
      dropped = oldest.resultSetId;
    }
    const executionId = this.nextId++;
    this.open.set(executionId, execution);
    assert(this.open.size <= GRIDDB_PARTIAL_EXECUTIONS_MAX);
    return { executionId, dropped };
  }

  /** The execution a continuation names, at the part it names. */
  get(continuation: GriddbPartialContinuation, containerId: number): GriddbPartialExecution {
    const execution = this.open.get(continuation.executionId);
    if (execution === undefined || execution.containerId !== containerId ||
      execution.partIndex !== continuation.partIndex) {
      throw new GriddbError(GriddbErrorCode.DS_DS_RESULT_ID_INVALID, `partial execution ` +
        `${continuation.executionId} part ${continuation.partIndex} of container id ` +
        `${containerId} is not one this connection has in progress (finished, dropped after ` +
        `${GRIDDB_PARTIAL_EXECUTIONS_MAX} newer ones, or sent on another connection)`);
    }
    return execution;
  }

  end(executionId: bigint): void {
    this.open.delete(executionId);
  }
}

/** The continuation of a request's entries (type, bytes), or undefined for a first part. */
export function griddbPartialContinuationOf(
  entries: readonly { type: number; bytes: Uint8Array }[],
): GriddbPartialContinuation | undefined {
  if (entries.length === 0) return undefined;
  const entry = entries.find((candidate) => candidate.type === PARTIAL_ENTRY_TYPE);
  if (entries.length !== 1 || entry === undefined || entry.bytes.byteLength !== PARTIAL_ENTRY_BYTES) {
    throw new GriddbFrameError(`partial execution entries are not the one ${PARTIAL_ENTRY_BYTES}-` +
      `byte entry of type ${PARTIAL_ENTRY_TYPE} this node sends`);
  }
  const view = new DataView(entry.bytes.buffer, entry.bytes.byteOffset, PARTIAL_ENTRY_BYTES);
  return { executionId: view.getBigInt64(0, true), partIndex: view.getBigInt64(8, true) };
}

/** The body of a PARTIAL_EXECUTION_STATE entry: enabled with a continuation, or not enabled. */
export function griddbPartialStateWrite(writer: ByteWriter,
  continuation: GriddbPartialContinuation | undefined): void {
  if (continuation === undefined) {
    writer.i8(0);
    writer.i32(0);
    return;
  }
  writer.i8(1);
  writer.i32(1);
  writer.i8(PARTIAL_ENTRY_TYPE);
  writer.i32(PARTIAL_ENTRY_BYTES);
  writer.i64(continuation.executionId);
  writer.i64(continuation.partIndex);
}
