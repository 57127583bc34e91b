// Query messages: a query opens a result on the node, whose rows the client fetches in pages.
// Bodies (wire-refs.ts draws refs, wire-schema.ts columns, wire-rows.ts rows):
//
//   QUERY         request | sessionId varuint | name ref | tql string | fetchSize varuint |
//                         | options u8 | [rowLimit varuint, when options has 0x04] |
//                         | [mode u8 | columnCount varuint | columnIndex varuint…, when 0x08] |
//                 reply   | resultSetId varuint | kind u8 | columns | rows |
//   FETCH         request | resultSetId varuint | fetchSize varuint |
//                 reply   | done u8 | rows |
//   RESULT_CLOSE  request | resultSetId varuint |   reply empty
//
// kind: 0 ROWS (rows of the container or a selection), 1 AGGREGATION (one row of one value),
// 2 EXPLAIN (the plan as rows). The rows of a result are encoded with its columns, as a container
// without a row key. resultSetId 0 in a QUERY reply means the first page holds every row; any other
// id stays open on the node (bounded per connection) until a FETCH says done, RESULT_CLOSE, or the
// connection closes. fetchSize bounds the rows of one page (the node also bounds its bytes).
//
// options is a set of bits: 0x01 partialExecution (GridDB's PARTIAL_EXECUTION fetch option), 0x02
// forUpdate (GridDB's fetch(forUpdate): lock the result's rows for the session's transaction),
// 0x04 rowLimit follows (GridDB's LIMIT fetch option, applied by the node so that forUpdate locks
// only the rows returned), 0x08 sampling follows (GridDB's sampling call, TimeSeries.query(start,
// end, columnSet, InterpolationMode, interval, unit), whose TQL is TIME_SAMPLING(*, …): mode 0
// LINEAR_OR_PREVIOUS, 1 EMPTY, and the columns to interpolate by index, as GridDB's
// QUERY_TIME_SERIES_SAMPLING statement sends them); any other bit is malformed. The byte was a boolean (partialExecution)
// before the other bits, so frames of older clients mean what they meant and PROTOCOL_VERSION
// stays; an older node refuses a forUpdate or rowLimit query as malformed instead of running it
// without locks or without its limit.

import {
  SAMPLING_MODES, type SamplingApi,
} from '../query/tql/time-series-sampling-api.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import type { ByteReader } from '../encoding/byte-reader.ts';
import {
  boolRead, boolWrite, countRead, emptyRead, emptyWrite, enumRead, enumWrite, type MessageCodec,
} from './message-codec.ts';
import { protocolError } from './frame.ts';
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
  forUpdate: boolean;
  /** The LIMIT fetch option: rows of a SELECT * result at most; undefined: no such option. */
  rowLimit?: number | undefined;
  /** GridDB's sampling call: its mode and columns (the TQL is TIME_SAMPLING(*, …)). */
  sampling?: SamplingApi | undefined;
}

const QUERY_OPTION_PARTIAL_EXECUTION = 0x01;
const QUERY_OPTION_FOR_UPDATE = 0x02;
const QUERY_OPTION_ROW_LIMIT = 0x04;
const QUERY_OPTION_SAMPLING = 0x08;
const QUERY_OPTIONS_ALL = QUERY_OPTION_PARTIAL_EXECUTION | QUERY_OPTION_FOR_UPDATE |
  QUERY_OPTION_ROW_LIMIT | QUERY_OPTION_SAMPLING;

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
    writer.u8((request.partialExecution ? QUERY_OPTION_PARTIAL_EXECUTION : 0) |
      (request.forUpdate ? QUERY_OPTION_FOR_UPDATE : 0) |
      (request.rowLimit !== undefined ? QUERY_OPTION_ROW_LIMIT : 0) |
      (request.sampling !== undefined ? QUERY_OPTION_SAMPLING : 0));
    if (request.rowLimit !== undefined) writer.varuint(request.rowLimit);
    if (request.sampling !== undefined) {
      enumWrite(writer, SAMPLING_MODES, request.sampling.mode);
      writer.varuint(request.sampling.columnIndexes.length);
      for (const index of request.sampling.columnIndexes) writer.varuint(index);
    }
  },
  readRequest: (reader) => {
    const sessionId = reader.varuint();
    const ref = nameRefRead(reader);
    const tql = reader.string();
    const fetchSize = reader.varuint();
    const options = reader.u8();
    if ((options & ~QUERY_OPTIONS_ALL) !== 0) {
      throw protocolError(`query options 0x${options.toString(16)} name an unknown option`);
    }
    return {
      sessionId, ref, tql, fetchSize,
      partialExecution: (options & QUERY_OPTION_PARTIAL_EXECUTION) !== 0,
      forUpdate: (options & QUERY_OPTION_FOR_UPDATE) !== 0,
      ...((options & QUERY_OPTION_ROW_LIMIT) !== 0 ? { rowLimit: reader.varuint() } : {}),
      ...((options & QUERY_OPTION_SAMPLING) !== 0 ? { sampling: samplingRead(reader) } : {}),
    };
  },
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

function samplingRead(reader: ByteReader): SamplingApi {
  const mode = enumRead(reader, SAMPLING_MODES, 'interpolation mode');
  const count = countRead(reader, 1, 'sampling columns');
  const columnIndexes: number[] = [];
  for (let i = 0; i < count; i++) columnIndexes.push(reader.varuint());
  return { mode, columnIndexes };
}

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
