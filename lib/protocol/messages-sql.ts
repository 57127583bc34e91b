// The SQL message: one statement with its typed `?` parameters, run on the node in auto-commit
// (docs/sql.md). A SELECT answers its first page and, when rows remain, a result id the client
// pages on with FETCH and lets go with RESULT_CLOSE, as a TQL query's (messages-query.ts); DML
// and DDL answer an update count.
//
//   SQL_EXECUTE  request | sql string | fetchSize varuint | timeoutMs varuint (0: the node's) |
//                        | parameterCount varuint | parameter… |
//                reply   | resultSetId varuint | kind u8 |
//                        | ROWS:   sqlTypeCount varuint | sqlType u8… | columns | rows |
//                        | UPDATE: updateCount varuint |
//
//   parameter  | sqlType u8 | null u8 (1: NULL, no value follows) | value |
//   value by type: BOOL u8, BYTE i8, SHORT i16, INTEGER i32, LONG i64, FLOAT f32, DOUBLE f64,
//   TIMESTAMP[(6|9)] i64 (ms, µs or ns since the epoch), STRING string, BLOB varuint + bytes.
//
//   SQL_CANCEL   request | queryId string |
//                reply   | cancelled u8 (1: a statement of that id was running and is cancelled) |
//
// SQL_CANCEL reaches every engine thread of the node; the statement ends with SQL_CANCELLED
// (200007) after its current slice of work, answered to the connection that runs it. An empty
// queryId (never a statement's) cancels the statements of the connection that sends it: the
// PostgreSQL CancelRequest's way in.
//
// sqlType is the index in SQL_WIRE_TYPES. The result's columns (wire-schema.ts) carry each
// column's storable type and TIMESTAMP precision for the rows' encoding; a column of SQL type
// UNKNOWN (a bare NULL, GEOMETRY, arrays) travels as a nullable STRING column of NULLs.

import type { ByteReader } from '../encoding/byte-reader.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import type { SqlTypedValue } from '../sql/plan/bind-expression.ts';
import { SQL_COLUMN_TYPES } from '../sql/sql-types.ts';
import type { SqlType, SqlValue } from '../sql/value.ts';
import { countRead, enumRead, enumWrite, listRead, type MessageCodec } from './message-codec.ts';
import { protocolError } from './frame.ts';
import { MessageType } from './message-types.ts';
import type { QueryReply } from './messages-query.ts';
import { RowBatch } from './wire-rows.ts';
import { columnsRead, columnsWrite } from './wire-schema.ts';

export const SQL_WIRE_TYPES: readonly SqlType[] = ['UNKNOWN', ...SQL_COLUMN_TYPES];

export interface SqlExecuteRequest {
  sql: string;
  fetchSize: number;
  /** 0: the node's default. */
  timeoutMs: number;
  parameters: SqlTypedValue[];
}

export type SqlExecuteReply =
  | (QueryReply & { readonly sqlTypes: SqlType[]; readonly updateCount?: undefined })
  | { readonly resultSetId: 0; readonly updateCount: number };

const REPLY_ROWS = 0;
const REPLY_UPDATE = 1;

export const SQL_EXECUTE: MessageCodec<SqlExecuteRequest, SqlExecuteReply> = {
  type: MessageType.SQL_EXECUTE,
  writeRequest(writer, request) {
    writer.string(request.sql);
    writer.varuint(request.fetchSize);
    writer.varuint(request.timeoutMs);
    writer.varuint(request.parameters.length);
    for (const parameter of request.parameters) parameterWrite(writer, parameter);
  },
  readRequest(reader) {
    const sql = reader.string();
    const fetchSize = reader.varuint();
    const timeoutMs = reader.varuint();
    const parameters = listRead(reader, 2, 'SQL parameters', () => parameterRead(reader));
    return { sql, fetchSize, timeoutMs, parameters };
  },
  writeReply(writer, reply) {
    writer.varuint(reply.resultSetId);
    if (reply.updateCount !== undefined) {
      writer.u8(REPLY_UPDATE);
      writer.varuint(reply.updateCount);
      return;
    }
    writer.u8(REPLY_ROWS);
    writer.varuint(reply.sqlTypes.length);
    for (const type of reply.sqlTypes) enumWrite(writer, SQL_WIRE_TYPES, type);
    columnsWrite(writer, reply.columns);
    reply.rows.write(writer);
  },
  readReply(reader) {
    const resultSetId = reader.varuint();
    const kind = reader.u8();
    if (kind === REPLY_UPDATE) {
      if (resultSetId !== 0) throw protocolError('an update count with a result id');
      return { resultSetId: 0, updateCount: reader.varuint() };
    }
    if (kind !== REPLY_ROWS) throw protocolError(`SQL reply kind ${kind} does not exist`);
    const count = countRead(reader, 1, 'SQL column types');
    const sqlTypes: SqlType[] = [];
    for (let i = 0; i < count; i++) sqlTypes.push(enumRead(reader, SQL_WIRE_TYPES, 'SQL type'));
    const columns: ColumnSchema[] = columnsRead(reader);
    return { resultSetId, kind: 'ROWS', sqlTypes, columns, rows: RowBatch.read(reader) };
  },
};

export interface SqlCancelRequest {
  queryId: string;
}

export interface SqlCancelReply {
  cancelled: boolean;
}

export const SQL_CANCEL: MessageCodec<SqlCancelRequest, SqlCancelReply> = {
  type: MessageType.SQL_CANCEL,
  writeRequest(writer, request) {
    writer.string(request.queryId);
  },
  readRequest(reader) {
    return { queryId: reader.string() };
  },
  writeReply(writer, reply) {
    writer.u8(reply.cancelled ? 1 : 0);
  },
  readReply(reader) {
    const cancelled = reader.u8();
    if (cancelled > 1) throw protocolError(`SQL_CANCEL's cancelled byte is ${cancelled}`);
    return { cancelled: cancelled === 1 };
  },
};

function parameterWrite(writer: ByteWriter, { type, value }: SqlTypedValue): void {
  enumWrite(writer, SQL_WIRE_TYPES, type);
  writer.u8(value === null ? 1 : 0);
  if (value === null) return;
  switch (type) {
    case 'BOOL': writer.u8(value === true ? 1 : 0); break;
    case 'BYTE': writer.i8(value as number); break;
    case 'SHORT': writer.i16(value as number); break;
    case 'INTEGER': writer.i32(value as number); break;
    case 'FLOAT': writer.f32(value as number); break;
    case 'DOUBLE': writer.f64(value as number); break;
    case 'LONG': case 'TIMESTAMP': case 'TIMESTAMP(6)': case 'TIMESTAMP(9)':
      writer.i64(BigInt(value as number | bigint)); break;
    case 'STRING': writer.string(value as string); break;
    case 'BLOB':
      writer.varuint((value as Uint8Array).byteLength);
      writer.bytes(value as Uint8Array);
      break;
    case 'UNKNOWN': throw protocolError('a parameter of type UNKNOWN must be NULL');
  }
}

function parameterRead(reader: ByteReader): SqlTypedValue {
  const type = enumRead(reader, SQL_WIRE_TYPES, 'SQL parameter type');
  const isNull = reader.u8();
  if (isNull > 1) throw protocolError(`a parameter's null byte is ${isNull}`);
  if (isNull === 1) return { type, value: null };
  let value: SqlValue;
  switch (type) {
    case 'BOOL': value = reader.u8() !== 0; break;
    case 'BYTE': value = reader.i8(); break;
    case 'SHORT': value = reader.i16(); break;
    case 'INTEGER': value = reader.i32(); break;
    case 'FLOAT': value = reader.f32(); break;
    case 'DOUBLE': value = reader.f64(); break;
    case 'LONG': case 'TIMESTAMP(6)': case 'TIMESTAMP(9)': value = reader.i64(); break;
    case 'TIMESTAMP': value = Number(reader.i64()); break;
    case 'STRING': value = reader.string(); break;
    case 'BLOB': value = reader.bytes(countRead(reader, 1, 'BLOB bytes')); break;
    case 'UNKNOWN': throw protocolError('a parameter of type UNKNOWN must be NULL');
  }
  return { type, value };
}
