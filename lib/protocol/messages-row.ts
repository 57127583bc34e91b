// Messages about rows. Bodies (wire-refs.ts draws refs and statements, wire-rows.ts rows and keys):
//
//   ROW_PUT     request | statement | schema ref | rows |                  reply empty
//   ROW_GET     request | sessionId varuint | schema ref | keys (one) |    reply | rows (0 or 1) |
//   ROW_GET_FOR_UPDATE  as ROW_GET; the key stays locked for the session's transaction
//   ROW_REMOVE  request | statement | schema ref | keys (one) |           reply | removed u8 |
//   ROW_PUT_EXISTED  request | statement | schema ref | rows (one) |   reply | existed u8 |
//   MULTI_PUT   request | statement | count varuint | (schema ref | rows)… |   reply empty
//   MULTI_GET   request | sessionId varuint | count varuint | (schema ref | predicate)… |
//               reply   | count varuint | rows… (one batch per container, in request order) |
//   predicate   | 0 u8 | keys |  the rows of these keys
//               | 1 u8 | start keys (0 or 1) | finish keys (0 or 1) | limit varuint |
//                 the rows with start ≤ key ≤ finish in key order, at most limit (0: no limit)
//
// put is a multiPut of one row. ROW_PUT_EXISTED is a put of one row that also answers whether a
// row of its key existed, decided with the put after any lock wait (GridDB's PUT_ROW answers it). A multi-container put applies each container's rows as its own
// auto-commit statement, in request order, and stops at the first failure (GridDB's multiPut is
// not atomic across containers either); a retry with the same statement id applies none again.

import type { ByteReader } from '../encoding/byte-reader.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import { protocolError } from './frame.ts';
import {
  boolRead, boolWrite, emptyRead, emptyWrite, listRead, listWrite, type MessageCodec,
} from './message-codec.ts';
import { MessageType } from './message-types.ts';
import {
  schemaRefRead, schemaRefWrite, statementRead, statementWrite, type SchemaRef, type Statement,
} from './wire-refs.ts';
import { KeyBatch, RowBatch } from './wire-rows.ts';

export interface RowPutRequest {
  statement: Statement;
  ref: SchemaRef;
  rows: RowBatch;
}

export interface RowGetRequest {
  sessionId: number;
  ref: SchemaRef;
  keys: KeyBatch;
}

export interface RowRemoveRequest {
  statement: Statement;
  ref: SchemaRef;
  keys: KeyBatch;
}

export interface MultiPutRequest {
  statement: Statement;
  entries: Array<{ ref: SchemaRef; rows: RowBatch }>;
}

export type RowPredicate =
  | { kind: 'keys'; keys: KeyBatch }
  | { kind: 'range'; start: KeyBatch; finish: KeyBatch; limit: number };

export interface MultiGetRequest {
  sessionId: number;
  entries: Array<{ ref: SchemaRef; predicate: RowPredicate }>;
}

export const ROW_PUT: MessageCodec<RowPutRequest, Record<string, never>> = {
  type: MessageType.ROW_PUT,
  writeRequest(writer, request) {
    statementWrite(writer, request.statement);
    schemaRefWrite(writer, request.ref);
    request.rows.write(writer);
  },
  readRequest: (reader) => ({
    statement: statementRead(reader), ref: schemaRefRead(reader), rows: RowBatch.read(reader),
  }),
  writeReply: emptyWrite,
  readReply: emptyRead,
};

export const ROW_PUT_EXISTED: MessageCodec<RowPutRequest, boolean> = {
  type: MessageType.ROW_PUT_EXISTED,
  writeRequest: ROW_PUT.writeRequest,
  readRequest(reader) {
    const request = ROW_PUT.readRequest(reader);
    if (request.rows.count !== 1) {
      throw protocolError(`${request.rows.count} rows where one was expected`);
    }
    return request;
  },
  writeReply: boolWrite,
  readReply: boolRead,
};

export const ROW_GET: MessageCodec<RowGetRequest, RowBatch> = {
  type: MessageType.ROW_GET,
  writeRequest(writer, request) {
    writer.varuint(request.sessionId);
    schemaRefWrite(writer, request.ref);
    request.keys.write(writer);
  },
  readRequest: (reader) => ({
    sessionId: reader.varuint(), ref: schemaRefRead(reader), keys: oneKeyRead(reader),
  }),
  writeReply: (writer, rows) => rows.write(writer),
  readReply: (reader) => RowBatch.read(reader),
};

export const ROW_GET_FOR_UPDATE: MessageCodec<RowGetRequest, RowBatch> = {
  ...ROW_GET,
  type: MessageType.ROW_GET_FOR_UPDATE,
};

export const ROW_REMOVE: MessageCodec<RowRemoveRequest, boolean> = {
  type: MessageType.ROW_REMOVE,
  writeRequest(writer, request) {
    statementWrite(writer, request.statement);
    schemaRefWrite(writer, request.ref);
    request.keys.write(writer);
  },
  readRequest: (reader) => ({
    statement: statementRead(reader), ref: schemaRefRead(reader), keys: oneKeyRead(reader),
  }),
  writeReply: boolWrite,
  readReply: boolRead,
};

export const MULTI_PUT: MessageCodec<MultiPutRequest, Record<string, never>> = {
  type: MessageType.MULTI_PUT,
  writeRequest(writer, request) {
    statementWrite(writer, request.statement);
    listWrite(writer, request.entries, (entry) => {
      schemaRefWrite(writer, entry.ref);
      entry.rows.write(writer);
    });
  },
  readRequest: (reader) => ({
    statement: statementRead(reader),
    entries: listRead(reader, 8, 'containers', () => ({
      ref: schemaRefRead(reader), rows: RowBatch.read(reader),
    })),
  }),
  writeReply: emptyWrite,
  readReply: emptyRead,
};

export const MULTI_GET: MessageCodec<MultiGetRequest, RowBatch[]> = {
  type: MessageType.MULTI_GET,
  writeRequest(writer, request) {
    writer.varuint(request.sessionId);
    listWrite(writer, request.entries, (entry) => {
      schemaRefWrite(writer, entry.ref);
      predicateWrite(writer, entry.predicate);
    });
  },
  readRequest: (reader) => ({
    sessionId: reader.varuint(),
    entries: listRead(reader, 8, 'containers', () => ({
      ref: schemaRefRead(reader), predicate: predicateRead(reader),
    })),
  }),
  writeReply: (writer, batches) => listWrite(writer, batches, (rows) => rows.write(writer)),
  readReply: (reader) => listRead(reader, 5, 'row batches', () => RowBatch.read(reader)),
};

function predicateWrite(writer: ByteWriter, predicate: RowPredicate): void {
  if (predicate.kind === 'keys') {
    writer.u8(0);
    predicate.keys.write(writer);
    return;
  }
  writer.u8(1);
  predicate.start.write(writer);
  predicate.finish.write(writer);
  writer.varuint(predicate.limit);
}

function predicateRead(reader: ByteReader): RowPredicate {
  const kind = reader.u8();
  if (kind === 0) return { kind: 'keys', keys: KeyBatch.read(reader) };
  if (kind !== 1) throw protocolError(`row predicate kind ${kind} does not exist`);
  const start = KeyBatch.read(reader);
  const finish = KeyBatch.read(reader);
  if (start.count > 1 || finish.count > 1) throw protocolError('a range bound of several keys');
  return { kind: 'range', start, finish, limit: reader.varuint() };
}

function oneKeyRead(reader: ByteReader): KeyBatch {
  const keys = KeyBatch.read(reader);
  if (keys.count !== 1) throw protocolError(`${keys.count} keys where one was expected`);
  return keys;
}
