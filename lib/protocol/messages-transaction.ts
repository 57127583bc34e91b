// Messages of manual transactions. Bodies (wire-refs.ts draws refs and statements):
//
//   SET_AUTO_COMMIT  request | statement | name ref | enabled u8 |   reply empty
//   COMMIT           request | statement | name ref |                reply empty
//   ABORT            request | statement | name ref |                reply empty
//   LOG_SYNC         request | name ref |                            reply empty
//
// A transaction belongs to one session and one container (ACID per container, as GridDB); the
// session is the statement's. Turning auto-commit back on commits what is pending. The connection's
// auto-commit session (id 0) has no transactions: these requests name a session from SESSION_OPEN.
// LOG_SYNC answers once the xlog of the named container's partition is synced up to its last
// record, whatever logWriteMode says; it writes nothing, so a retry needs no statement id.

import { boolRead, boolWrite, emptyRead, emptyWrite, type MessageCodec } from './message-codec.ts';
import { MessageType } from './message-types.ts';
import {
  nameRefRead, nameRefWrite, statementRead, statementWrite, type NameRef, type Statement,
} from './wire-refs.ts';

export interface TransactionRequest {
  statement: Statement;
  ref: NameRef;
}

export interface SetAutoCommitRequest extends TransactionRequest {
  enabled: boolean;
}

export const SET_AUTO_COMMIT: MessageCodec<SetAutoCommitRequest, Record<string, never>> = {
  type: MessageType.SET_AUTO_COMMIT,
  writeRequest(writer, request) {
    statementWrite(writer, request.statement);
    nameRefWrite(writer, request.ref);
    boolWrite(writer, request.enabled);
  },
  readRequest: (reader) => ({
    statement: statementRead(reader), ref: nameRefRead(reader), enabled: boolRead(reader),
  }),
  writeReply: emptyWrite,
  readReply: emptyRead,
};

function transactionCodec(
  type: typeof MessageType.COMMIT | typeof MessageType.ABORT,
): MessageCodec<TransactionRequest, Record<string, never>> {
  return {
    type,
    writeRequest(writer, request) {
      statementWrite(writer, request.statement);
      nameRefWrite(writer, request.ref);
    },
    readRequest: (reader) => ({ statement: statementRead(reader), ref: nameRefRead(reader) }),
    writeReply: emptyWrite,
    readReply: emptyRead,
  };
}

export const COMMIT = transactionCodec(MessageType.COMMIT);
export const ABORT = transactionCodec(MessageType.ABORT);

export const LOG_SYNC: MessageCodec<NameRef, Record<string, never>> = {
  type: MessageType.LOG_SYNC,
  writeRequest: nameRefWrite,
  readRequest: nameRefRead,
  writeReply: emptyWrite,
  readReply: emptyRead,
};
