// Messages about secondary indexes. Bodies (wire-refs.ts draws refs and statements, wire-schema.ts
// info):
//
//   CREATE_INDEX  request | statement | name ref | definition string (JSON: columnNames, type, name) |
//                 reply   | created u8 | info |
//   DROP_INDEX    request | statement | name ref | selector string (JSON: name, columnNames, type) |
//                 reply   | droppedCount varuint | info |
//
// Both begin like CONTAINER_DROP, so the node routes them by the name ref's partition and a retried
// statement is answered once. The definition travels as JSON for the reason CONTAINER_PUT's does:
// the engine checks it member by member and gives each mistake its own error. An index that exists
// already (created = 0) and a selector that names none (droppedCount = 0) are not errors, as in
// GridDB. The reply carries the container's info after the change, so the client's model of the
// container sees the new index list without asking again (an index does not change schemaVersion:
// rows are encoded the same).

import type { ByteReader } from '../encoding/byte-reader.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import { boolRead, boolWrite, type MessageCodec } from './message-codec.ts';
import { MessageType } from './message-types.ts';
import {
  nameRefRead, nameRefWrite, statementRead, statementWrite, type NameRef, type Statement,
} from './wire-refs.ts';
import { containerInfoRead, containerInfoWrite, type ContainerInfo } from './wire-schema.ts';

export interface IndexRequest {
  statement: Statement;
  ref: NameRef;
  /** createIndex's definition, or dropIndex's selector, as JSON text. */
  json: string;
}

export const CREATE_INDEX: MessageCodec<IndexRequest, { created: boolean; info: ContainerInfo }> = {
  type: MessageType.CREATE_INDEX,
  writeRequest: indexRequestWrite,
  readRequest: indexRequestRead,
  writeReply(writer, reply) {
    boolWrite(writer, reply.created);
    containerInfoWrite(writer, reply.info);
  },
  readReply: (reader) => ({ created: boolRead(reader), info: containerInfoRead(reader) }),
};

export const DROP_INDEX: MessageCodec<IndexRequest, { droppedCount: number; info: ContainerInfo }> = {
  type: MessageType.DROP_INDEX,
  writeRequest: indexRequestWrite,
  readRequest: indexRequestRead,
  writeReply(writer, reply) {
    writer.varuint(reply.droppedCount);
    containerInfoWrite(writer, reply.info);
  },
  readReply: (reader) => ({ droppedCount: reader.varuint(), info: containerInfoRead(reader) }),
};

function indexRequestWrite(writer: ByteWriter, request: IndexRequest): void {
  statementWrite(writer, request.statement);
  nameRefWrite(writer, request.ref);
  writer.string(request.json);
}

function indexRequestRead(reader: ByteReader): IndexRequest {
  return { statement: statementRead(reader), ref: nameRefRead(reader), json: reader.string() };
}
