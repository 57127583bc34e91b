// Where queries plug into the transaction server. The server owns the protocol side of a query (its
// request, the result set kept open between fetches, paging by rows and bytes); a QueryHandler
// turns (session, container, tql, fetch size, partial execution, for update, row limit) into a
// QueryResult the server pages through. The node's is TQL on the engine (tql-query-handler.ts);
// tests and nodes without TQL plug in others.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { EncodedRows } from '../encoding/encoded-rows.ts';
import type { ContainerHandle, Session } from '../engine/session.ts';
import type { Row } from '../schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../schema/container-schema.ts';
import type { QueryResultKind } from '../protocol/messages-query.ts';
import type { SamplingApi } from '../query/tql/time-series-sampling-api.ts';

export interface QueryRequest {
  /** The session the query runs in: its open transaction on the container, if any, is seen. */
  session: Session;
  /** The container, by the name it was created with. */
  containerName: string;
  /** Its schema when the query arrived. */
  schema: ContainerSchema;
  container: ContainerHandle;
  tql: string;
  /** Rows the client takes per page: a handler may produce rows in batches of about this. */
  fetchSize: number;
  /** GridDB's PARTIAL_EXECUTION fetch option: run the query over the data in parts. */
  partialExecution: boolean;
  /** GridDB's fetch(forUpdate): lock the result's rows for the session's transaction. */
  forUpdate: boolean;
  /** GridDB's LIMIT fetch option: rows of a SELECT * result at most (before forUpdate locks). */
  rowLimit: number | undefined;
  /** GridDB's sampling call: the TQL is TIME_SAMPLING(*, …), run with this mode and columns. */
  sampling?: SamplingApi | undefined;
}

export interface QueryResultPage {
  rows: Row[];
  /** No rows remain after these. */
  done: boolean;
}

/**
 * The result of one query. Rows must be canonical for `columns` (as the engine returns rows:
 * bigint for LONG, integer ms for TIMESTAMP, …); `next` is not called again after `done`, and
 * `close` is always called once, also when the client stops early.
 */
export interface QueryResult {
  kind: QueryResultKind;
  columns: ColumnSchema[];
  /**
   * Every row, already encoded for `columns` (lib/encoding/encoded-rows.ts): the server pages
   * through these bytes and never calls `next`.
   */
  encoded?: EncodedRows;
  next(rowCountMax: number): Promise<QueryResultPage>;
  close(): void;
}

export type QueryHandler = (request: QueryRequest) => Promise<QueryResult>;

/** A handler for a node without queries. */
export const queriesNotSupported: QueryHandler = () => {
  throw new StorageError('NOT_SUPPORTED', 'TQL queries are not available on this node yet');
};

/** A QueryResult over rows already encoded (a handler's helper). */
export function queryResultOfEncodedRows(
  kind: QueryResultKind,
  columns: ColumnSchema[],
  encoded: EncodedRows,
): QueryResult {
  return {
    kind,
    columns,
    encoded,
    next() {
      assert(false, 'next() of an encoded query result');
    },
    close() {
      encoded.release();
    },
  };
}

/** A QueryResult over rows already computed (a handler's helper). */
export function queryResultOfRows(
  kind: QueryResultKind,
  columns: ColumnSchema[],
  rows: readonly Row[],
): QueryResult {
  let offset = 0;
  return {
    kind,
    columns,
    next(rowCountMax) {
      const page = rows.slice(offset, offset + rowCountMax);
      offset += page.length;
      return Promise.resolve({ rows: page, done: offset >= rows.length });
    },
    close() {
      offset = rows.length;
    },
  };
}
