// Framing of the client protocol on the transaction port: every message, in either direction, is
// one frame, little-endian:
//
//   | lengthBytes u32 | magic u16 | version u8 | messageType u8 | status u8 | requestId u32 |
//   0                 4           6            7                8           9                13
//   | body |
//
// lengthBytes counts every byte after itself (the 9 header bytes and the body), so a frame takes
// 4 + lengthBytes bytes. magic is 0x5453 ("ST" on the wire): a peer that speaks something else
// (HTTP, TLS) is told apart at once. version is PROTOCOL_VERSION; a node answers a frame of
// another version with an error and closes. status says what the frame is: a request, its reply,
// or an error reply whose body is an error (wire-error.ts). requestId is chosen by the client
// and echoed in the reply; 0 is reserved for errors that answer no request (a frame that could
// not be read, a connection over the limit). Bump PROTOCOL_VERSION to change anything here or in
// a message body.
//
// FrameReader cuts a byte stream into frames. It checks the header as soon as the 13 bytes are
// there, before waiting for the body, so an oversized or foreign frame is refused without being
// buffered; it never holds more than one frame plus what the socket delivered beyond it.

import { assert } from '../base/assert.ts';
import { StorageError, isStorageError } from '../base/errors.ts';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../base/limits.ts';
import { ByteWriter } from '../encoding/byte-writer.ts';
import { MESSAGE_TYPE_NAMES, type MessageType } from './message-types.ts';

export const PROTOCOL_VERSION = 1;
export const FRAME_MAGIC = 0x5453;
/** Bytes before the body: the length field and the header it counts. */
export const FRAME_HEADER_BYTES = 13;
const LENGTH_FIELD_BYTES = 4;
/** The request id of an error that answers no request. */
export const REQUEST_ID_NONE = 0;
export const REQUEST_ID_MAX = 0xffff_ffff;
/** A frame starts this small and grows by doubling while its body is written. */
const FRAME_CAPACITY_BYTES_INITIAL = 256;

export const FrameStatus = { REQUEST: 0, REPLY: 1, ERROR: 2 } as const;
export type FrameStatus = (typeof FrameStatus)[keyof typeof FrameStatus];

export interface FrameHeader {
  messageType: MessageType;
  status: FrameStatus;
  requestId: number;
}

export interface Frame extends FrameHeader {
  /** A view of the received bytes; valid for as long as the frame is referenced. */
  body: Uint8Array;
}

/**
 * Encodes one frame: the header, then whatever `writeBody` writes. A frame larger than
 * `messageBytesMax` is a LIMIT_EXCEEDED StorageError (nothing is sent).
 */
export function encodeFrame(
  header: FrameHeader,
  writeBody: (writer: ByteWriter) => void,
  messageBytesMax: number,
  sizeHintBytes = FRAME_CAPACITY_BYTES_INITIAL,
): Uint8Array {
  assert(messageBytesMax >= FRAME_HEADER_BYTES && messageBytesMax <= PROTOCOL_MESSAGE_BYTES_MAX);
  assert(header.requestId >= 0 && header.requestId <= REQUEST_ID_MAX);
  const capacityBytes = Math.min(Math.max(sizeHintBytes, FRAME_HEADER_BYTES), messageBytesMax);
  const writer = new ByteWriter(capacityBytes, { capacityBytesMax: messageBytesMax });
  writer.u32(0); // lengthBytes, set below
  writer.u16(FRAME_MAGIC);
  writer.u8(PROTOCOL_VERSION);
  writer.u8(header.messageType);
  writer.u8(header.status);
  writer.u32(header.requestId);
  try {
    writeBody(writer);
  } catch (error) {
    if (!isStorageError(error, 'LIMIT_EXCEEDED')) throw error;
    throw new StorageError('LIMIT_EXCEEDED', `a ${MESSAGE_TYPE_NAMES[header.messageType]} ` +
      `message would be larger than the limit of ${messageBytesMax} bytes`, { cause: error });
  }
  const bytes = writer.finish();
  writer.dataView.setUint32(0, bytes.byteLength - LENGTH_FIELD_BYTES, true);
  return bytes;
}

/**
 * Cuts a byte stream into frames. `next()` returns the next whole frame, undefined when more bytes
 * are needed, and throws a StorageError (PROTOCOL_ERROR, or LIMIT_EXCEEDED for an oversized frame)
 * when the stream cannot be a conversation in this protocol; after that the reader is spent.
 */
export class FrameReader {
  private readonly chunks: Uint8Array[] = [];
  private bufferedBytes = 0;
  /** The header of the frame whose body is awaited. */
  private pending: (FrameHeader & { bodyBytes: number }) | undefined;
  private failed = false;

  constructor(private messageBytesMax: number) {
    this.limitSet(messageBytesMax);
  }

  /** Frames after this may be up to `messageBytesMax` (larger once a peer has authenticated). */
  limitSet(messageBytesMax: number): void {
    assert(messageBytesMax > FRAME_HEADER_BYTES);
    assert(messageBytesMax <= PROTOCOL_MESSAGE_BYTES_MAX);
    this.messageBytesMax = messageBytesMax;
  }

  get bufferedByteCount(): number {
    return this.bufferedBytes;
  }

  push(chunk: Uint8Array): void {
    assert(!this.failed);
    if (chunk.byteLength === 0) return;
    this.chunks.push(chunk);
    this.bufferedBytes += chunk.byteLength;
  }

  next(): Frame | undefined {
    assert(!this.failed);
    if (this.pending === undefined) {
      if (this.bufferedBytes < FRAME_HEADER_BYTES) return undefined;
      try {
        this.pending = this.headerRead(this.take(FRAME_HEADER_BYTES));
      } catch (error) {
        this.failed = true;
        throw error;
      }
    }
    const { bodyBytes } = this.pending;
    if (this.bufferedBytes < bodyBytes) return undefined;
    const { messageType, status, requestId } = this.pending;
    this.pending = undefined;
    return { messageType, status, requestId, body: this.take(bodyBytes) };
  }

  private headerRead(bytes: Uint8Array): FrameHeader & { bodyBytes: number } {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const lengthBytes = view.getUint32(0, true);
    const magic = view.getUint16(4, true);
    const version = view.getUint8(6);
    const messageType = view.getUint8(7) as MessageType;
    const status = view.getUint8(8);
    const requestId = view.getUint32(9, true);
    if (magic !== FRAME_MAGIC) {
      throw protocolError(`not a frame of this protocol (magic 0x${magic.toString(16)})`);
    }
    if (version !== PROTOCOL_VERSION) {
      throw protocolError(`protocol version ${version} is not supported; this side speaks ` +
        `version ${PROTOCOL_VERSION}`);
    }
    if (lengthBytes < FRAME_HEADER_BYTES - LENGTH_FIELD_BYTES) {
      throw protocolError(`a frame length of ${lengthBytes} bytes is shorter than its header`);
    }
    if (lengthBytes + LENGTH_FIELD_BYTES > this.messageBytesMax) {
      throw new StorageError('LIMIT_EXCEEDED', `a message of ${lengthBytes + LENGTH_FIELD_BYTES} ` +
        `bytes is larger than the limit of ${this.messageBytesMax} bytes`);
    }
    if (status !== FrameStatus.REQUEST && status !== FrameStatus.REPLY &&
      status !== FrameStatus.ERROR) {
      throw protocolError(`frame status ${status} does not exist`);
    }
    const bodyBytes = lengthBytes - (FRAME_HEADER_BYTES - LENGTH_FIELD_BYTES);
    return { messageType, status, requestId, bodyBytes };
  }

  /** Removes the next `sizeBytes` buffered bytes: a view when in one chunk, else a copy. */
  private take(sizeBytes: number): Uint8Array {
    assert(sizeBytes <= this.bufferedBytes);
    this.bufferedBytes -= sizeBytes;
    const first = this.chunks[0];
    if (sizeBytes === 0) return new Uint8Array(0);
    assert(first !== undefined);
    if (first.byteLength >= sizeBytes) {
      if (first.byteLength === sizeBytes) this.chunks.shift();
      else this.chunks[0] = first.subarray(sizeBytes);
      return first.subarray(0, sizeBytes);
    }
    const bytes = new Uint8Array(sizeBytes);
    let offsetBytes = 0;
    while (offsetBytes < sizeBytes) {
      const chunk = this.chunks[0]!;
      const partBytes = Math.min(chunk.byteLength, sizeBytes - offsetBytes);
      bytes.set(chunk.subarray(0, partBytes), offsetBytes);
      offsetBytes += partBytes;
      if (partBytes === chunk.byteLength) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(partBytes);
    }
    return bytes;
  }
}

export function protocolError(message: string, cause?: unknown): StorageError {
  return new StorageError('PROTOCOL_ERROR', message, cause === undefined ? undefined : { cause });
}
