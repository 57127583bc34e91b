// Messages about containers. Bodies (wire-refs.ts draws refs and statements, wire-schema.ts info):
//
//   CONTAINER_PUT   request | statement | partitionId u32 | definition string (JSON) |
//                           | modifiable u8 |
//                   reply   | info |
//   CONTAINER_INFO  request | name ref |   reply | exists u8 | info, if exists |
//   CONTAINER_DROP  request | statement | name ref |   reply | dropped u8 |
//   CONTAINER_LIST  request | offset varuint | limit varuint |
//                   reply   | total varuint | count varuint | name string… |
//
// The definition travels as JSON text because the node checks it member by member, exactly as the
// engine's createContainer does for any caller (unknown members, the options GridDB 5.0 removed and
// wrong types each get their own error); rows never travel as JSON. modifiable is GridDB's
// putContainer flag: an existing container may gain the columns the definition adds at its end.
// A missing container is not an error for CONTAINER_INFO (exists = 0) nor for CONTAINER_DROP
// (dropped = 0), as in GridDB.

import { boolRead, boolWrite, listRead, listWrite, type MessageCodec } from './message-codec.ts';
import { MessageType } from './message-types.ts';
import {
  nameRefRead, nameRefWrite, statementRead, statementWrite, type NameRef, type Statement,
} from './wire-refs.ts';
import { containerInfoRead, containerInfoWrite, type ContainerInfo } from './wire-schema.ts';

export interface ContainerPutRequest {
  statement: Statement;
  partitionId: number;
  definitionJson: string;
  modifiable: boolean;
}

export interface ContainerListRequest {
  offset: number;
  limit: number;
}

export interface ContainerListReply {
  /** Containers in the whole list, of which `names` is the page asked for. */
  total: number;
  names: string[];
}

export const CONTAINER_PUT: MessageCodec<ContainerPutRequest, ContainerInfo> = {
  type: MessageType.CONTAINER_PUT,
  writeRequest(writer, request) {
    statementWrite(writer, request.statement);
    writer.u32(request.partitionId);
    writer.string(request.definitionJson);
    boolWrite(writer, request.modifiable);
  },
  readRequest: (reader) => ({
    statement: statementRead(reader),
    partitionId: reader.u32(),
    definitionJson: reader.string(),
    modifiable: boolRead(reader),
  }),
  writeReply: containerInfoWrite,
  readReply: containerInfoRead,
};

export const CONTAINER_INFO: MessageCodec<NameRef, ContainerInfo | undefined> = {
  type: MessageType.CONTAINER_INFO,
  writeRequest: nameRefWrite,
  readRequest: nameRefRead,
  writeReply(writer, info) {
    boolWrite(writer, info !== undefined);
    if (info !== undefined) containerInfoWrite(writer, info);
  },
  readReply: (reader) => (boolRead(reader) ? containerInfoRead(reader) : undefined),
};

export const CONTAINER_DROP: MessageCodec<{ statement: Statement; ref: NameRef }, boolean> = {
  type: MessageType.CONTAINER_DROP,
  writeRequest(writer, request) {
    statementWrite(writer, request.statement);
    nameRefWrite(writer, request.ref);
  },
  readRequest: (reader) => ({ statement: statementRead(reader), ref: nameRefRead(reader) }),
  writeReply: boolWrite,
  readReply: boolRead,
};

export const CONTAINER_LIST: MessageCodec<ContainerListRequest, ContainerListReply> = {
  type: MessageType.CONTAINER_LIST,
  writeRequest(writer, request) {
    writer.varuint(request.offset);
    writer.varuint(request.limit);
  },
  readRequest: (reader) => ({ offset: reader.varuint(), limit: reader.varuint() }),
  writeReply(writer, reply) {
    writer.varuint(reply.total);
    listWrite(writer, reply.names, (name) => writer.string(name));
  },
  readReply: (reader) => ({
    total: reader.varuint(),
    names: listRead(reader, 1, 'container names', () => reader.string()),
  }),
};
