// Query messages: a query opens a result on the node, whose rows the client fetches in pages.
// Bodies (wire-refs.ts draws refs, wire-schema.ts columns, wire-rows.ts rows):
//
//   QUERY         request | sessionId varuint | name ref | tql string | fetchSize varuint |
//                         | partialExecution u8 |
//                 reply   | resultSetId varuint | kind u8 | columns | rows |
//   FETCH         request | resultSetId varuint | fetchSize varuint |
//                 reply   | done u8 | rows |
//   RESULT_CLOSE  request | resultSetId varuint |   reply empty
//
// kind: 0 ROWS (rows of the container or a selection), 1 AGGREGATION (one row of one value),
// 2 EXPLAIN (the plan as rows). The rows of a result are encoded with its columns, as a container
// without a row key. resultSetId 0 in a QUERY reply means the first page holds every row; any other
// id stays open on the node (bounded per connection) until a FETCH says done, RESULT_CLOSE, or the
// connection closes. fetchSize bounds the rows of one page (the node also bounds its bytes);
// partialExecution is GridDB's PARTIAL_EXECUTION fetch option, passed to the query handler.

import type { ColumnSchema } from '../schema/container-schema.ts';
import {
  boolRead, boolWrite, emptyRead, emptyWrite, enumRead, enumWrite, type MessageCodec,
} from './message-codec.ts';
import { MessageType } from './message-types.ts';
import { nameRefRead, nameRefWrite, type NameRef } from './wire-refs.ts';
import { RowBatch } from './wire-rows.ts';
import { columnsRead, columnsWrite } from './wire-schema.ts';

export const QUERY_RESULT_KINDS = ['ROWS', 'AGGREGATION', 'EXPLAIN'] as const;
export type QueryResultKind = (typeof QUERY_RESULT_KINDS)[number];
export const RESULT_SET_ID_NONE = 0;

export interface QueryRequest {
  sessionId: number;
  ref: NameRef;
  tql: string;
  fetchSize: number;
  partialExecution: boolean;
}

export interface QueryReply {
  /** RESULT_SET_ID_NONE: `rows` are all of them. */
  resultSetId: number;
  kind: QueryResultKind;
  columns: ColumnSchema[];
  rows: RowBatch;
}

export interface FetchRequest {
  resultSetId: number;
  fetchSize: number;
}

export interface FetchReply {
  /** No rows remain; the node has closed the result. */
  done: boolean;
  rows: RowBatch;
}

export const QUERY: MessageCodec<QueryRequest, QueryReply> = {
  type: MessageType.QUERY,
  writeRequest(writer, request) {
    writer.varuint(request.sessionId);
    nameRefWrite(writer, request.ref);
    writer.string(request.tql);
    writer.varuint(request.fetchSize);
    boolWrite(writer, request.partialExecution);
  },
  readRequest: (reader) => ({
    sessionId: reader.varuint(),
    ref: nameRefRead(reader),
    tql: reader.string(),
    fetchSize: reader.varuint(),
    partialExecution: boolRead(reader),
  }),
  writeReply(writer, reply) {
    writer.varuint(reply.resultSetId);
    enumWrite(writer, QUERY_RESULT_KINDS, reply.kind);
    columnsWrite(writer, reply.columns);
    reply.rows.write(writer);
  },
  readReply: (reader) => ({
    resultSetId: reader.varuint(),
    kind: enumRead(reader, QUERY_RESULT_KINDS, 'query result kind'),
    columns: columnsRead(reader),
    rows: RowBatch.read(reader),
  }),
};

export const FETCH: MessageCodec<FetchRequest, FetchReply> = {
  type: MessageType.FETCH,
  writeRequest(writer, request) {
    writer.varuint(request.resultSetId);
    writer.varuint(request.fetchSize);
  },
  readRequest: (reader) => ({ resultSetId: reader.varuint(), fetchSize: reader.varuint() }),
  writeReply(writer, reply) {
    boolWrite(writer, reply.done);
    reply.rows.write(writer);
  },
  readReply: (reader) => ({ done: boolRead(reader), rows: RowBatch.read(reader) }),
};

export const RESULT_CLOSE: MessageCodec<{ resultSetId: number }, Record<string, never>> = {
  type: MessageType.RESULT_CLOSE,
  writeRequest: (writer, request) => writer.varuint(request.resultSetId),
  readRequest: (reader) => ({ resultSetId: reader.varuint() }),
  writeReply: emptyWrite,
  readReply: emptyRead,
};
