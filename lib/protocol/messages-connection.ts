// Messages that open and run a connection (message-types.ts numbers them). Bodies:
//
//   HELLO         request | clientVersion string |
//                 reply   | nonce 32 bytes | serverVersion string |
//   AUTH          request | user string | clusterName string | database string |
//                         | applicationName string | clientId 16 bytes |
//                         | transactionTimeoutMs varuint (0: the node's limit) | proof 32 bytes |
//                 reply   | partitionNum varuint | storeBlockSizeBytes varuint |
//                         | messageBytesMax varuint | transactionTimeoutMs varuint |
//   PING          request and reply empty
//   SESSION_OPEN  request | transactionTimeoutMs varuint (0: the connection's) |
//                 reply   | sessionId varuint |
//   SESSION_CLOSE request | sessionId varuint |   reply empty
//
// A connection is HELLO, then AUTH (auth-proof.ts says what proof is), then anything else. The AUTH
// reply tells the client what it needs to route and encode: the partition count (to compute a
// container's partition), the block size (for the value limits it checks before sending) and the
// largest message the node accepts.

import { AUTH_NONCE_BYTES, AUTH_PROOF_BYTES, CLIENT_ID_BYTES } from './auth-proof.ts';
import { emptyRead, emptyWrite, type MessageCodec } from './message-codec.ts';
import { MessageType } from './message-types.ts';

export interface HelloRequest {
  clientVersion: string;
}

export interface HelloReply {
  nonce: Uint8Array;
  serverVersion: string;
}

export interface AuthRequest {
  user: string;
  clusterName: string;
  database: string;
  applicationName: string;
  clientId: Uint8Array;
  /** 0: the node's transactionTimeoutLimit. */
  transactionTimeoutMs: number;
  proof: Uint8Array;
}

export interface AuthReply {
  partitionNum: number;
  storeBlockSizeBytes: number;
  messageBytesMax: number;
  /** The auto-commit session's timeout: the one asked for, capped by the node's limit. */
  transactionTimeoutMs: number;
}

export interface SessionOpenRequest {
  /** 0: the connection's timeout. */
  transactionTimeoutMs: number;
}

export const HELLO: MessageCodec<HelloRequest, HelloReply> = {
  type: MessageType.HELLO,
  writeRequest: (writer, request) => writer.string(request.clientVersion),
  readRequest: (reader) => ({ clientVersion: reader.string() }),
  writeReply(writer, reply) {
    writer.bytes(reply.nonce);
    writer.string(reply.serverVersion);
  },
  readReply: (reader) => ({
    nonce: reader.bytes(AUTH_NONCE_BYTES), serverVersion: reader.string(),
  }),
};

export const AUTH: MessageCodec<AuthRequest, AuthReply> = {
  type: MessageType.AUTH,
  writeRequest(writer, request) {
    writer.string(request.user);
    writer.string(request.clusterName);
    writer.string(request.database);
    writer.string(request.applicationName);
    writer.bytes(request.clientId);
    writer.varuint(request.transactionTimeoutMs);
    writer.bytes(request.proof);
  },
  readRequest: (reader) => ({
    user: reader.string(),
    clusterName: reader.string(),
    database: reader.string(),
    applicationName: reader.string(),
    clientId: reader.bytes(CLIENT_ID_BYTES),
    transactionTimeoutMs: reader.varuint(),
    proof: reader.bytes(AUTH_PROOF_BYTES),
  }),
  writeReply(writer, reply) {
    writer.varuint(reply.partitionNum);
    writer.varuint(reply.storeBlockSizeBytes);
    writer.varuint(reply.messageBytesMax);
    writer.varuint(reply.transactionTimeoutMs);
  },
  readReply: (reader) => ({
    partitionNum: reader.varuint(),
    storeBlockSizeBytes: reader.varuint(),
    messageBytesMax: reader.varuint(),
    transactionTimeoutMs: reader.varuint(),
  }),
};

export const PING: MessageCodec<Record<string, never>, Record<string, never>> = {
  type: MessageType.PING,
  writeRequest: emptyWrite,
  readRequest: emptyRead,
  writeReply: emptyWrite,
  readReply: emptyRead,
};

export const SESSION_OPEN: MessageCodec<SessionOpenRequest, { sessionId: number }> = {
  type: MessageType.SESSION_OPEN,
  writeRequest: (writer, request) => writer.varuint(request.transactionTimeoutMs),
  readRequest: (reader) => ({ transactionTimeoutMs: reader.varuint() }),
  writeReply: (writer, reply) => writer.varuint(reply.sessionId),
  readReply: (reader) => ({ sessionId: reader.varuint() }),
};

export const SESSION_CLOSE: MessageCodec<{ sessionId: number }, Record<string, never>> = {
  type: MessageType.SESSION_CLOSE,
  writeRequest: (writer, request) => writer.varuint(request.sessionId),
  readRequest: (reader) => ({ sessionId: reader.varuint() }),
  writeReply: emptyWrite,
  readReply: emptyRead,
};
