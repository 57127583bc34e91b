// GridDB's EXECUTE_MULTIPLE_QUERIES (147: gsFetchAll, the queries of one partition in one
// statement) and CREATE_MULTIPLE_SESSIONS (145: the sessions gsFetchAll opens first for the
// queries fetched for update). Bodies after the statement id (the C client's
// GSGridStoreTag::MultiQueryStatement):
//
//   EXECUTE_MULTIPLE_QUERIES  | sessionUUID 16 | optional request | count i32 |
//                             | (statementType i32 | statementId i64 | query)… |
//     query                   | the query's body without its session UUID (griddb-query.ts) |
//   reply                     | count i32 | (size i64 | QUERY_TQL's reply)… |
//   CREATE_MULTIPLE_SESSIONS  | sessionUUID 16 | optional request | withId i8 | count i32 |
//                             | (containerId i64 | sessionId i64)…, withId 1 (gsFetchAll) |
//                             | (optional request | key | sessionId i64)…, withId 0 (multi-put) |
//   reply                     | count i32 | containerId i64 × count, withId 0 |
//
// The queries run one after the other as QUERY_TQL does (a partial one keeps its row set on
// this connection, which the client fetches on); the first that fails fails the statement, as
// GridDB's: TQL, time-range and sampling queries (griddb-query.ts). A session of this node begins with its
// transaction (griddb-sessions.ts), so CREATE_MULTIPLE_SESSIONS checks the containers and
// answers the count (and, asked by name, their ids).

import { ByteReader } from '../../encoding/byte-reader.ts';
import { ByteWriter } from '../../encoding/byte-writer.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError, griddbDecode } from './griddb-frame.ts';
import { griddbOptionalRequestSkip } from './griddb-optional-request.ts';
import {
  queryRead, queryRun, type GriddbQueryRequest, type QueryStatementContext,
} from './griddb-query.ts';
import {
  containerOf, griddbContainerIdRead, griddbRowHeadRead, type RowStatementHead,
} from './griddb-row-statements.ts';
import { GRIDDB_UUID_BYTES } from './griddb-sessions.ts';
import { griddbContainerKeyRead } from './griddb-container-key.ts';
import { CONTAINER_INFO } from '../../protocol/messages-container.ts';
import { GriddbStatement } from './griddb-statements.ts';

/** Queries in one EXECUTE_MULTIPLE_QUERIES, sessions in one CREATE_MULTIPLE_SESSIONS. */
export const GRIDDB_MULTI_ENTRIES_MAX = 4096;

interface MultiQuery {
  statementType: number;
  head: Omit<RowStatementHead, 'part'>;
  request: GriddbQueryRequest | undefined;
}

const QUERY_STATEMENTS = new Set<number>([GriddbStatement.QUERY_TQL,
  GriddbStatement.QUERY_TIME_SERIES_RANGE, GriddbStatement.QUERY_TIME_SERIES_SAMPLING]);

export function multiQueriesDecode(body: Uint8Array): MultiQuery[] {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    const uuid = reader.bytes(GRIDDB_UUID_BYTES);
    griddbOptionalRequestSkip(reader);
    const count = countRead(reader, 'query');
    const queries: MultiQuery[] = [];
    for (let i = 0; i < count; i++) {
      const statementType = reader.i32();
      const statementId = reader.i64();
      const head = griddbRowHeadRead(reader, statementId, uuid);
      if (!QUERY_STATEMENTS.has(statementType)) {
        // Its part cannot be told apart from what follows: nothing after it is read.
        queries.push({ statementType, head, request: undefined });
        return queries;
      }
      queries.push({ statementType, head, request: queryRead(reader, statementType) });
    }
    reader.expectEnd();
    return queries;
  });
}

function countRead(reader: ByteReader, what: string): number {
  const count = reader.i32();
  if (count < 0 || count > GRIDDB_MULTI_ENTRIES_MAX) {
    throw new GriddbFrameError(`${what} count ${count} is outside 0..${GRIDDB_MULTI_ENTRIES_MAX}`);
  }
  return count;
}

/** EXECUTE_MULTIPLE_QUERIES. */
export async function multiQueriesRun(context: QueryStatementContext, body: Uint8Array):
  Promise<(writer: ByteWriter) => void> {
  const queries = multiQueriesDecode(body);
  const replies: Uint8Array[] = [];
  for (const query of queries) {
    if (query.request === undefined) {
      throw new GriddbError(GriddbErrorCode.TXN_STATEMENT_TYPE_UNKNOWN, `statement ` +
        `${query.statementType} in EXECUTE_MULTIPLE_QUERIES is not supported by this node yet ` +
        '(TQL, time range and sampling queries only)');
    }
    const write = await queryRun(context, query.head, query.request);
    const writer = new ByteWriter(256);
    write(writer);
    replies.push(writer.finish());
  }
  return (writer) => {
    writer.i32(replies.length);
    for (const reply of replies) {
      writer.i64(BigInt(reply.byteLength));
      writer.bytes(reply);
    }
  };
}

/**
 * CREATE_MULTIPLE_SESSIONS: the containers must exist. By id (gsFetchAll) the reply is their
 * count; by name (gsPutMultipleContainerRows) the count and each container's id, which the
 * following PUT_MULTIPLE_CONTAINER_ROWS names them by.
 */
export async function createMultipleSessionsRun(context: QueryStatementContext,
  body: Uint8Array): Promise<(writer: ByteWriter) => void> {
  const containers = griddbDecode(() => {
    const reader = new ByteReader(body);
    reader.bytes(GRIDDB_UUID_BYTES);
    griddbOptionalRequestSkip(reader);
    const withId = reader.i8() !== 0;
    const count = countRead(reader, 'session');
    const entries: Array<number | string> = [];
    for (let i = 0; i < count; i++) {
      if (withId) {
        entries.push(griddbContainerIdRead(reader));
      } else {
        griddbOptionalRequestSkip(reader);
        entries.push(griddbContainerKeyRead(reader));
      }
      if (reader.i64() === 0n) throw new GriddbFrameError('CREATE_MULTIPLE_SESSIONS of session 0');
    }
    reader.expectEnd();
    return { withId, entries };
  });
  const ids: number[] = [];
  for (const entry of containers.entries) {
    if (typeof entry === 'number') {
      await containerOf(context, { containerId: entry });
      continue;
    }
    const info = await context.engine.call(CONTAINER_INFO,
      { partitionId: context.partitionOf(entry), name: entry });
    if (info === undefined) {
      throw new GriddbError(GriddbErrorCode.TXN_CONTAINER_NOT_FOUND,
        `container "${entry}" does not exist`);
    }
    context.names.remember(info.partitionId, info.containerId, info.name);
    ids.push(info.containerId);
  }
  return (writer) => {
    writer.i32(containers.entries.length);
    for (const id of ids) writer.i64(BigInt(id));
  };
}
