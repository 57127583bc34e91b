// How the PostgreSQL protocol reaches SQL: through the node's RequestRunner, the same engine side
// the transaction port's clients use (routing to the partition group's thread, result sets paged
// with FETCH, "#sqls" and "#sockets"), as SQL_EXECUTE, FETCH and RESULT_CLOSE requests of a
// connection of its own. Each PostgreSQL connection is one runner connection, with ids from
// PG_CONNECTION_ID_BASE up so that they never meet the transaction server's (which count from 1).

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { ByteWriter } from '../encoding/byte-writer.ts';
import { FRAME_HEADER_BYTES, FrameStatus } from '../protocol/frame.ts';
import { decodeReply, type MessageCodec } from '../protocol/message-codec.ts';
import { FETCH, RESULT_CLOSE } from '../protocol/messages-query.ts';
import { SQL_CANCEL, SQL_EXECUTE } from '../protocol/messages-sql.ts';
import { CONTAINER_INFO } from '../protocol/messages-container.ts';
import { MULTI_PUT } from '../protocol/messages-row.ts';
import { AUTO_COMMIT_SESSION_ID } from '../protocol/wire-refs.ts';
import { RowBatch } from '../protocol/wire-rows.ts';
import { containerSchemaOf, type ContainerInfo } from '../protocol/wire-schema.ts';
import { blockSizeLimits } from '../base/limits.ts';
import { rowValidator } from '../schema/row-validate.ts';
import { containerPartitionId } from '../schema/partition-hash.ts';
import { errorDecode } from '../protocol/wire-error.ts';
import { resultSchemaOf } from '../protocol/wire-schema.ts';
import type { Row } from '../schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../schema/container-schema.ts';
import type { PgWirePage } from './pg-data-rows-wire.ts';
import type { ConnectionSetup, RequestRunner } from '../server/request-runner.ts';
import type { SqlTypedValue } from '../sql/plan/bind-expression.ts';
import type { SqlType } from '../sql/value.ts';

export const PG_CONNECTION_ID_BASE = 0x4000_0000;

export interface PgColumn {
  name: string;
  type: SqlType;
}

/** A statement's outcome: an update count, or rows read page by page. */
export type PgSqlResult =
  | { kind: 'update'; updateCount: number }
  | { kind: 'rows'; columns: PgColumn[]; rows: PgRowSource };

export interface PgRowSource {
  /** The next page (at most `rowCountMax` rows); done: none remain and the result is closed. */
  next(rowCountMax: number): Promise<{ rows: Row[]; done: boolean }>;
  /**
   * Where the engine's pages can be taken as it encoded them (pg-data-rows-wire.ts): the result's
   * columns as the page's row codec reads them, and the next page of at most `rowCountMax` rows
   * in that form, or undefined when it cannot be given so (rows already decoded are pending, or
   * the engine's page is larger): next() then.
   */
  readonly wire?: {
    columns: readonly ColumnSchema[];
    next(rowCountMax: number): Promise<{ page: PgWirePage; done: boolean } | undefined>;
  };
  close(): Promise<void>;
}

export interface PgSqlBackend {
  open(connectionId: number, setup: ConnectionSetup): void;
  close(connectionId: number): void;
  execute(connectionId: number, request: { sql: string; parameters: SqlTypedValue[];
    fetchSize: number; timeoutMs: number }): Promise<PgSqlResult>;
  /**
   * Cancels the statements the engine runs for the connection now (a CancelRequest): each ends
   * with SQL_CANCELLED after its current slice of work, its first page not yet computed included.
   */
  cancel(connectionId: number): Promise<void>;
  /** A container's schema and refs (COPY FROM); undefined when there is none of that name. */
  containerInfo(connectionId: number, name: string): Promise<ContainerInfo | undefined>;
  /** The engine's own check of a row of the container: canonical values, or a StorageError. */
  rowValidator(info: ContainerInfo): (row: Row) => Row;
  /** Rows into one container as one auto-commit statement (the engine's MULTI_PUT). */
  putRows(connectionId: number, info: ContainerInfo, rows: RowBatch): Promise<void>;
}

/**
 * The backend over a RequestRunner (the node's engine side). A run that rejects means the engine
 * failed (fail-stop, request-runner.ts): `onEngineFailure` is told before the rejection goes on.
 */
export function runnerSqlBackend(runner: RequestRunner, onEngineFailure: (error: unknown) => void):
  PgSqlBackend {
  let requestId = 0;
  /** MULTI_PUT's statement ids: unique per runner client (each PostgreSQL connection is one). */
  let statementId = 0;
  async function exchange<Req, Reply>(connectionId: number, codec: MessageCodec<Req, Reply>,
    request: Req): Promise<Reply> {
    const writer = new ByteWriter(256);
    codec.writeRequest(writer, request);
    requestId = requestId === 0xffff_fffe ? 1 : requestId + 1;
    let outcome;
    try {
      outcome = await runner.run(connectionId, { messageType: codec.type, requestId, body: writer.finish() });
    } catch (error) {
      onEngineFailure(error);
      throw error;
    }
    const bytes = outcome.bytes;
    assert(bytes.byteLength >= FRAME_HEADER_BYTES);
    const status = bytes[8]!;
    const body = bytes.subarray(FRAME_HEADER_BYTES);
    if (status === FrameStatus.ERROR) throw errorDecode(body);
    return decodeReply(codec, body, codec.type);
  }
  return {
    open: (connectionId, setup) => runner.connectionOpened(connectionId, setup),
    close: (connectionId) => runner.connectionClosed(connectionId),
    containerInfo: (connectionId, name) => exchange(connectionId, CONTAINER_INFO,
      { partitionId: containerPartitionId(name, runner.info.partitionNum), name }),
    rowValidator: (info) => rowValidator(containerSchemaOf(info), blockSizeLimits(runner.info.storeBlockSizeBytes)),
    async putRows(connectionId, info, rows) {
      statementId = statementId >= Number.MAX_SAFE_INTEGER ? 1 : statementId + 1;
      await exchange(connectionId, MULTI_PUT, {
        statement: { sessionId: AUTO_COMMIT_SESSION_ID, statementId },
        entries: [{
          ref: { partitionId: info.partitionId, name: info.name, containerId: info.containerId,
            schemaVersion: info.schemaVersion },
          rows,
        }],
      });
    },
    async cancel(connectionId) {
      // The empty query id: this connection's statements (handlers-sql.ts).
      await exchange(connectionId, SQL_CANCEL, { queryId: '' });
    },
    async execute(connectionId, request) {
      const reply = await exchange(connectionId, SQL_EXECUTE, request);
      if (reply.updateCount !== undefined) return { kind: 'update', updateCount: reply.updateCount };
      const schema: ContainerSchema = resultSchemaOf(reply.columns);
      const columns = reply.columns.map((column, i) => ({ name: column.name, type: reply.sqlTypes[i]! }));
      /** The first page, as the reply carried it, until it is taken. */
      let page: RowBatch | undefined = reply.rows;
      let open = reply.resultSetId !== 0;
      let buffered: Row[] = [];
      const rows: PgRowSource = {
        wire: {
          columns: schema.columns,
          async next(rowCountMax) {
            if (buffered.length > 0) return undefined;
            let batch = page;
            if (batch === undefined) {
              if (!open) return { page: { count: 0, bytes: new Uint8Array(0) }, done: true };
              const more = await exchange(connectionId, FETCH, { resultSetId: reply.resultSetId, fetchSize: rowCountMax });
              if (more.done) open = false;
              batch = more.rows;
            }
            const bytes = batch.encodedBytes;
            if (bytes === undefined || batch.count > rowCountMax) {
              page = batch; // next() decodes it
              return undefined;
            }
            page = undefined;
            return { page: { count: batch.count, bytes }, done: !open };
          },
        },
        async next(rowCountMax) {
          if (page !== undefined) {
            buffered = page.decode(schema);
            page = undefined;
          }
          while (buffered.length < rowCountMax && open) {
            const more = await exchange(connectionId, FETCH, {
              resultSetId: reply.resultSetId, fetchSize: Math.max(1, rowCountMax - buffered.length),
            });
            buffered = buffered.concat(more.rows.decode(schema));
            if (more.done) open = false;
          }
          const taken = buffered.slice(0, rowCountMax);
          buffered = buffered.slice(rowCountMax);
          return { rows: taken, done: !open && buffered.length === 0 };
        },
        async close() {
          if (!open) return;
          open = false;
          await exchange(connectionId, RESULT_CLOSE, { resultSetId: reply.resultSetId })
            .catch((error: unknown) => {
              if (!(error instanceof StorageError)) throw error;
            });
        },
      };
      return { kind: 'rows', columns, rows };
    },
  };
}
