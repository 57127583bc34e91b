// How a GridDB statement reaches the engine: as the store request that does the same work, run by
// the transaction server's RequestRunner like any store connection's (request-runner.ts), so the
// engine thread, ordering, auto-commit, retried statement ids and every check are the ones
// store's own clients get. A GridDB connection is one runner connection, opened at its LOGIN and
// closed with its socket.
//
// The runner answers with a whole store frame (lib/protocol/frame.ts draws it); its body is the
// reply, or an error (wire-error.ts) that becomes GridDB's error here: the store codes that have
// a GridDB counterpart get GridDB's code and name (griddb-error.ts), the others travel with
// store's own number and code, as STATEMENT_ERROR.
//
// A connection keeps its request writer between calls (up to GRIDDB_REQUEST_WRITER_BYTES_KEPT_MAX):
// a TSBS batch of 5,000 rows is a 445 KB request, and a fresh writer doubling up to it made a
// megabyte of garbage a statement. The runner is done with a request's bytes when its run settles
// (it decodes them, copying the rows, before it answers), so the writer is free again then; a call
// made while another is running (a session closed beside a statement) takes a writer of its own.

import type { StorageError } from '../../base/errors.ts';
import { ByteReader } from '../../encoding/byte-reader.ts';
import { ByteWriter } from '../../encoding/byte-writer.ts';
import { FRAME_HEADER_BYTES, FrameStatus, REQUEST_ID_MAX } from '../../protocol/frame.ts';
import type { MessageCodec } from '../../protocol/message-codec.ts';
import { errorDecode } from '../../protocol/wire-error.ts';
import type { RequestRunner, RunOutcome } from '../request-runner.ts';
import { GriddbError, GriddbErrorCode, type GriddbErrorName } from './griddb-error.ts';
import { GriddbFrameError } from './griddb-frame.ts';

/** The request writer a connection keeps between calls; a larger one is let go. */
export const GRIDDB_REQUEST_WRITER_BYTES_KEPT_MAX = 1024 * 1024;
const REQUEST_WRITER_BYTES_MIN = 256;

/** Offset of the status byte in a store frame: | length u32 | magic u16 | version u8 | type u8 | */
const FRAME_STATUS_OFFSET = 8;

/** The engine failed on a bug while running a statement: nothing more may be answered. */
export class GriddbEngineFailure extends Error {
  constructor(readonly failure: unknown) {
    super('the engine failed');
    this.name = 'GriddbEngineFailure';
  }
}

export class GriddbEngine {
  private nextRequestId = 1;
  /** The kept request writer; undefined while a call has it (or after a large one). */
  private keptWriter: ByteWriter | undefined;

  constructor(
    private readonly runner: RequestRunner,
    private readonly connectionId: number,
    private readonly messageBytesMax: number,
  ) {}

  /** Runs one store request; an error reply throws GriddbError, a broken engine rejects as is. */
  async call<Request, Reply>(codec: MessageCodec<Request, Reply>, request: Request):
    Promise<Reply> {
    const writer = this.keptWriter ??
      new ByteWriter(REQUEST_WRITER_BYTES_MIN, { capacityBytesMax: this.messageBytesMax });
    this.keptWriter = undefined;
    writer.reset();
    let outcome: RunOutcome;
    try {
      codec.writeRequest(writer, request);
      const requestId = this.nextRequestId;
      this.nextRequestId = requestId === REQUEST_ID_MAX ? 1 : requestId + 1;
      outcome = await this.runner.run(this.connectionId,
        { messageType: codec.type, requestId, body: writer.finish() })
        .catch((failure: unknown) => { throw new GriddbEngineFailure(failure); });
    } finally {
      if (writer.capacityBytes <= GRIDDB_REQUEST_WRITER_BYTES_KEPT_MAX) this.keptWriter = writer;
    }
    const body = outcome.bytes.subarray(FRAME_HEADER_BYTES);
    if (outcome.closeReason !== undefined) {
      throw new GriddbFrameError(`the engine refused the statement: ${outcome.closeReason}`);
    }
    if (outcome.bytes[FRAME_STATUS_OFFSET] === FrameStatus.ERROR) {
      throw griddbErrorOf(errorDecode(body));
    }
    const reader = new ByteReader(body);
    const reply = codec.readReply(reader);
    reader.expectEnd();
    return reply;
  }
}

/** Store's error as GridDB's, under GridDB's code where there is one. */
export function griddbErrorOf(error: StorageError): GriddbError {
  const code = GRIDDB_CODES_OF_STORE[error.code] ??
    { code: error.errorNumber, name: error.code };
  return new GriddbError(code, error.message);
}

const GRIDDB_CODES_OF_STORE: Partial<Record<StorageError['code'], GriddbErrorName>> = {
  CONTAINER_NOT_FOUND: GriddbErrorCode.TXN_CONTAINER_NOT_FOUND,
  INVALID_NAME: GriddbErrorCode.DS_DS_CONTAINER_NAME_INVALID,
  INVALID_SCHEMA: GriddbErrorCode.DS_DS_SCHEMA_INVALID,
  TOO_MANY_COLUMNS: GriddbErrorCode.DS_DS_SCHEMA_INVALID,
  DUPLICATE_COLUMN_NAME: GriddbErrorCode.DS_DS_SCHEMA_INVALID,
  CONTAINER_EXISTS: GriddbErrorCode.DS_DS_CHANGE_SCHEMA_DISABLE,
  SCHEMA_CHANGED: GriddbErrorCode.TXN_CONTAINER_SCHEMA_UNMATCH,
  LOCK_TIMEOUT: GriddbErrorCode.DS_CON_LOCK_CONFLICT,
  // The session or its transaction is gone (its connection closed, or it timed out).
  TRANSACTION_INVALID: GriddbErrorCode.TM_SESSION_NOT_FOUND,
};
