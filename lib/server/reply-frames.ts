// Reply frames both sides of the transaction server build: the header that answers a request,
// and an error frame (wire-error.ts draws its body).

import { isStorageError, type StorageError } from '../base/errors.ts';
import { PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX } from '../base/limits.ts';
import {
  FrameStatus, REQUEST_ID_NONE, encodeFrame, protocolError, type Frame, type FrameHeader,
} from '../protocol/frame.ts';
import type { MessageType } from '../protocol/message-types.ts';
import { errorWrite } from '../protocol/wire-error.ts';

/** A request as the engine side takes it: the frame without its status (always REQUEST). */
export type RequestFrame = Pick<Frame, 'messageType' | 'requestId' | 'body'>;

export function replyHeader(frame: Pick<Frame, 'messageType' | 'requestId'>): FrameHeader {
  return { messageType: frame.messageType, status: FrameStatus.REPLY, requestId: frame.requestId };
}

/** An error frame, answering `frame` when there is one (else request id 0). */
export function errorFrame(
  frame: Pick<Frame, 'messageType' | 'requestId'> | undefined,
  error: StorageError,
): Uint8Array {
  return encodeFrame({
    messageType: frame?.messageType ?? 0 as MessageType,
    status: FrameStatus.ERROR,
    requestId: frame?.requestId ?? REQUEST_ID_NONE,
  }, (writer) => errorWrite(writer, error), PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX);
}

/** What breaks the protocol, as the client is told it: a StorageError as it is, else PROTOCOL_ERROR. */
export function protocolFailure(error: unknown): StorageError {
  return isStorageError(error)
    ? error : protocolError(error instanceof Error ? error.message : String(error), error);
}
