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
  const capacityBytes = Math.min(Math.max(sizeHintBytes, FRAME_HEADER_BYTES), messageBytesMax);
  return encodeFrameInto(frameWriter(messageBytesMax, capacityBytes), header, writeBody);
}

/**
 * A writer for encodeFrameInto: frames it holds may be up to `messageBytesMax` bytes; it starts
 * with `capacityBytes` of memory and grows by doubling.
 */
export function frameWriter(
  messageBytesMax: number,
  capacityBytes = FRAME_CAPACITY_BYTES_INITIAL,
): ByteWriter {
  assert(messageBytesMax >= FRAME_HEADER_BYTES && messageBytesMax <= PROTOCOL_MESSAGE_BYTES_MAX);
  return new ByteWriter(Math.min(capacityBytes, messageBytesMax),
    { capacityBytesMax: messageBytesMax });
}

/**
 * As encodeFrame, into `writer` (made by frameWriter, so its capacity is the message limit), from
 * its start: a sender that encodes one frame after another reuses the writer's memory. The frame
 * returned is a view of that memory, valid until the writer's next use.
 */
export function encodeFrameInto(
  writer: ByteWriter,
  header: FrameHeader,
  writeBody: (writer: ByteWriter) => void,
): Uint8Array {
  assert(header.requestId >= 0 && header.requestId <= REQUEST_ID_MAX);
  writer.reset();
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
      `message would be larger than the limit of ${writer.capacityBytesMax} bytes`,
    { cause: error });
  }
  const bytes = writer.finish();
  writer.dataView.setUint32(0, bytes.byteLength - LENGTH_FIELD_BYTES, true);
  return bytes;
}

/**
 * Cuts a byte stream into frames. `next()` returns the next whole frame, undefined when more bytes
 * are needed, and throws a StorageError (PROTOCOL_ERROR, or LIMIT_EXCEEDED for an oversized frame)
 * when the stream cannot be a conversation in this protocol; after that the reader is spent.
 *
 * A frame costs one object and, when its body lies in one chunk, a plain Uint8Array view of it:
 * the header is read in place, and chunks are consumed by an offset rather than cut (a Buffer's
 * subarray is a FastBuffer, several times dearer to make than a view).
 */
export class FrameReader {
  private readonly chunks: Uint8Array[] = [];
  /** Bytes of chunks[0] already taken. */
  private firstOffsetBytes = 0;
  /** Leading chunks that are copies of the reader's own (keepBuffered made them). */
  private ownedChunkCount = 0;
  private bufferedBytes = 0;
  /** Body bytes of the frame whose header was read; -1 while none is. */
  private pendingBodyBytes = -1;
  private pendingMessageType = 0 as MessageType;
  private pendingStatus: FrameStatus = FrameStatus.REQUEST;
  private pendingRequestId = 0;
  /** A header that arrived in pieces, put together. */
  private readonly headerBytes = new Uint8Array(FRAME_HEADER_BYTES);
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

  /**
   * Adds received bytes. The reader refers to `chunk` (never copies it) until its bytes are taken,
   * and frames taken from it are views of it: a caller that reuses the memory of what it pushed
   * takes the frames first, then calls keepBuffered().
   */
  push(chunk: Uint8Array): void {
    assert(!this.failed);
    if (chunk.byteLength === 0) return;
    this.chunks.push(chunk);
    this.bufferedBytes += chunk.byteLength;
  }

  /**
   * Copies the bytes pushed since the last call and not yet taken (the start of a frame that has
   * not all arrived) into memory of the reader's own, so that the caller may reuse what it pushed.
   * Each byte is copied once, however many reads a large frame takes.
   */
  keepBuffered(): void {
    for (let i = this.ownedChunkCount; i < this.chunks.length; i++) {
      const chunk = this.chunks[i]!;
      const at = i === 0 ? this.firstOffsetBytes : 0;
      // A copy made explicitly: a Buffer's slice() would be a view.
      const copy = new Uint8Array(chunk.byteLength - at);
      copy.set(new Uint8Array(chunk.buffer, chunk.byteOffset + at, copy.byteLength));
      this.chunks[i] = copy;
      if (i === 0) this.firstOffsetBytes = 0;
    }
    this.ownedChunkCount = this.chunks.length;
  }

  /**
   * The message type of the next frame once its header has arrived (its body may not have):
   * a server can decide whether to take a request before it takes it. Throws as next() does on a
   * bad header.
   */
  nextMessageType(): MessageType | undefined {
    assert(!this.failed);
    return this.headerArrived() ? this.pendingMessageType : undefined;
  }

  /** Whether the next frame's header is read (reading it if it has arrived); throws on a bad one. */
  private headerArrived(): boolean {
    if (this.pendingBodyBytes >= 0) return true;
    if (this.bufferedBytes < FRAME_HEADER_BYTES) return false;
    try {
      this.headerRead();
    } catch (error) {
      this.failed = true;
      throw error;
    }
    return true;
  }

  next(): Frame | undefined {
    assert(!this.failed);
    if (!this.headerArrived()) return undefined;
    const bodyBytes = this.pendingBodyBytes;
    if (this.bufferedBytes < bodyBytes) return undefined;
    this.pendingBodyBytes = -1;
    return {
      messageType: this.pendingMessageType, status: this.pendingStatus,
      requestId: this.pendingRequestId, body: this.take(bodyBytes),
    };
  }

  /** Reads and checks the next header (FRAME_HEADER_BYTES are buffered) and consumes it. */
  private headerRead(): void {
    const first = this.chunks[0]!;
    let bytes = first;
    let at = this.firstOffsetBytes;
    if (first.byteLength - at >= FRAME_HEADER_BYTES) {
      this.skip(FRAME_HEADER_BYTES);
    } else {
      bytes = this.headerBytes;
      this.copyTo(bytes, FRAME_HEADER_BYTES);
      at = 0;
    }
    const lengthBytes = u32At(bytes, at);
    const magic = bytes[at + 4]! | (bytes[at + 5]! << 8);
    const version = bytes[at + 6]!;
    const messageType = bytes[at + 7]! as MessageType;
    const status = bytes[at + 8]!;
    const requestId = u32At(bytes, at + 9);
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
    this.pendingMessageType = messageType;
    this.pendingStatus = status;
    this.pendingRequestId = requestId;
    this.pendingBodyBytes = lengthBytes - (FRAME_HEADER_BYTES - LENGTH_FIELD_BYTES);
  }

  /** Removes the next `sizeBytes` buffered bytes: a view when in one chunk, else a copy. */
  private take(sizeBytes: number): Uint8Array {
    assert(sizeBytes <= this.bufferedBytes);
    if (sizeBytes === 0) return EMPTY_BODY;
    const first = this.chunks[0]!;
    const at = this.firstOffsetBytes;
    if (first.byteLength - at >= sizeBytes) {
      this.skip(sizeBytes);
      return new Uint8Array(first.buffer, first.byteOffset + at, sizeBytes);
    }
    const bytes = new Uint8Array(sizeBytes);
    this.copyTo(bytes, sizeBytes);
    return bytes;
  }

  /** Consumes `sizeBytes`, all within the first chunk. */
  private skip(sizeBytes: number): void {
    const first = this.chunks[0]!;
    this.bufferedBytes -= sizeBytes;
    this.firstOffsetBytes += sizeBytes;
    assert(this.firstOffsetBytes <= first.byteLength);
    if (this.firstOffsetBytes === first.byteLength) {
      this.chunks.shift();
      this.firstOffsetBytes = 0;
      if (this.ownedChunkCount > 0) this.ownedChunkCount--;
    }
  }

  /** Consumes the next `sizeBytes` buffered bytes into the start of `target`. */
  private copyTo(target: Uint8Array, sizeBytes: number): void {
    assert(sizeBytes <= this.bufferedBytes);
    let offsetBytes = 0;
    while (offsetBytes < sizeBytes) {
      const chunk = this.chunks[0]!;
      const at = this.firstOffsetBytes;
      const partBytes = Math.min(chunk.byteLength - at, sizeBytes - offsetBytes);
      target.set(chunk.subarray(at, at + partBytes), offsetBytes);
      offsetBytes += partBytes;
      this.skip(partBytes);
    }
  }
}

/** The body of every empty frame: it has no bytes to change. */
const EMPTY_BODY = new Uint8Array(0);

function u32At(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)) +
    bytes[at + 3]! * 0x100_0000;
}

export function protocolError(message: string, cause?: unknown): StorageError {
  return new StorageError('PROTOCOL_ERROR', message, cause === undefined ? undefined : { cause });
}
