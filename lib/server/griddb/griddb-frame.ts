// Framing of GridDB's NoSQL protocol (v15, IPv4 form; spec/internals.md §4.2, the C client's
// NodeConnection::fillRequestHead and executeStatementDirect). Little-endian, both directions:
//
//   | checkCode i32 | senderAddress 4 | senderPort i32 | headerType i32 | bodyLength i32 |
//   0               4                 8                12               16               20
//   | statementType i32 | partitionId i32 | statementId | statement body ...              |
//   20                  24                28
//
// checkCode is 0x03E02478 (78 24 e0 03 on the wire). bodyLength counts every byte after itself.
// statementId is an i32 in CONNECT and an i64 in every other statement. A client sends address and
// port 0 and headerType -1; the node answers with headerType 0. A reply body is
//
//   | statementType i32 | statementId (i32 for CONNECT, else i64) | result i8 | payload or error |
//
// Clients in IPv6 mode put a 16-byte address in the head; this node reads only the IPv4 form
// (its listener is IPv4), so such a head fails the size checks and closes the connection.
//
// GriddbFrameReader cuts the byte stream into frames and checks each head as soon as its 20
// bytes are there: a wrong check code, or a body length under the 8 bytes every statement has or
// over the limit, is a GriddbFrameError before anything of the body is buffered.

import { Buffer } from 'node:buffer';
import { assert } from '../../base/assert.ts';
import type { ByteReader } from '../../encoding/byte-reader.ts';
import { ByteWriter } from '../../encoding/byte-writer.ts';
import { StorageError } from '../../base/errors.ts';

export const GRIDDB_CHECK_CODE = 0x03e0_2478;
export const GRIDDB_HEAD_BYTES = 20;
const BODY_LENGTH_OFFSET = 16;
/** statementType + partitionId: the least a request body holds. */
const BODY_BYTES_MIN = 8;
const HEADER_TYPE_SERVER = 0;
/** A GridDB string longer than this is malformed here (names, digests, messages). */
export const GRIDDB_STRING_BYTES_MAX = 64 * 1024;

export class GriddbFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GriddbFrameError';
  }
}

export interface GriddbRequest {
  statementType: number;
  partitionId: number;
  /** The rest of the body: the statement id and the statement's own fields. */
  body: Uint8Array;
}

/** Whether the first four bytes a peer sent are GridDB's check code. */
export function isGriddbCheckCode(firstBytes: Uint8Array): boolean {
  assert(firstBytes.byteLength >= 4);
  return Buffer.from(firstBytes.buffer, firstBytes.byteOffset, 4).readInt32LE(0) ===
    GRIDDB_CHECK_CODE;
}

export class GriddbFrameReader {
  private chunks: Buffer[] = [];
  private bufferedBytes = 0;
  /**
   * The frame whose head has been read, head and body, until all of it is buffered: the chunks
   * are joined once, when it is whole. (Joining at every chunk copied a 445 KB frame of 64 KB
   * chunks seven times over, 1.8 MB, and the garbage was a third of the node's GC under a load.)
   */
  private frameBytes: number | undefined;

  /** `bodyBytesMax` may be changed between frames (it grows after the login). */
  constructor(public bodyBytesMax: number) {
    assert(bodyBytesMax >= BODY_BYTES_MIN);
  }

  push(chunk: Uint8Array): void {
    this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.bufferedBytes += chunk.byteLength;
  }

  /** The next whole frame, undefined until one has arrived; a malformed head throws. */
  next(): GriddbRequest | undefined {
    if (this.bufferedBytes < GRIDDB_HEAD_BYTES) return undefined;
    this.frameBytes ??= this.headRead();
    if (this.bufferedBytes < this.frameBytes) return undefined;
    const joined = this.join();
    const body = joined.subarray(GRIDDB_HEAD_BYTES, this.frameBytes);
    const rest = joined.subarray(this.frameBytes);
    this.chunks = rest.byteLength > 0 ? [rest] : [];
    this.bufferedBytes = rest.byteLength;
    this.frameBytes = undefined;
    return {
      statementType: body.readInt32LE(0),
      partitionId: body.readInt32LE(4),
      body: body.subarray(BODY_BYTES_MIN),
    };
  }

  /** Checks the head (buffered) and returns the frame's size. */
  private headRead(): number {
    const head = this.chunks[0]!.byteLength >= GRIDDB_HEAD_BYTES ? this.chunks[0]! : this.join();
    if (head.readInt32LE(0) !== GRIDDB_CHECK_CODE) {
      throw new GriddbFrameError(`check code 0x${(head.readInt32LE(0) >>> 0).toString(16)} ` +
        `is not GridDB's 0x${GRIDDB_CHECK_CODE.toString(16)}`);
    }
    const bodyBytes = head.readInt32LE(BODY_LENGTH_OFFSET);
    if (bodyBytes < BODY_BYTES_MIN || bodyBytes > this.bodyBytesMax) {
      throw new GriddbFrameError(`body length ${bodyBytes} is outside ` +
        `${BODY_BYTES_MIN}..${this.bodyBytesMax} bytes`);
    }
    return GRIDDB_HEAD_BYTES + bodyBytes;
  }

  private join(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    const joined = this.chunks[0];
    assert(joined !== undefined);
    return joined;
  }
}

/**
 * Encodes one reply: head, statement type and id, result byte, then what `writePayload` writes.
 * A reply over `bodyBytesMax` is a LIMIT_EXCEEDED StorageError (ByteWriter's bound).
 */
export function encodeGriddbReply(
  reply: { statementType: number; statementId: bigint; smallStatementId: boolean; result: number },
  writePayload: (writer: ByteWriter) => void,
  bodyBytesMax: number,
): Uint8Array {
  const writer = new ByteWriter(256, { capacityBytesMax: GRIDDB_HEAD_BYTES + bodyBytesMax });
  writer.i32(GRIDDB_CHECK_CODE);
  writer.i32(0);
  writer.i32(0);
  writer.i32(HEADER_TYPE_SERVER);
  writer.i32(0);
  writer.i32(reply.statementType);
  if (reply.smallStatementId) writer.i32(Number(BigInt.asIntN(32, reply.statementId)));
  else writer.i64(reply.statementId);
  writer.i8(reply.result);
  writePayload(writer);
  const bytes = writer.finish();
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .writeInt32LE(bytes.byteLength - GRIDDB_HEAD_BYTES, BODY_LENGTH_OFFSET);
  return bytes;
}

/** GridDB's string: i32 UTF-8 size, then the bytes. */
export function griddbStringWrite(writer: ByteWriter, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  writer.i32(bytes.byteLength);
  writer.bytes(bytes);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Reads a GridDB string; a negative or oversized size or invalid UTF-8 is a GriddbFrameError. */
export function griddbStringRead(reader: ByteReader, what: string): string {
  const sizeBytes = reader.i32();
  if (sizeBytes < 0 || sizeBytes > GRIDDB_STRING_BYTES_MAX || sizeBytes > reader.remainingBytes) {
    throw new GriddbFrameError(`${what}: string size ${sizeBytes} is outside ` +
      `0..${Math.min(GRIDDB_STRING_BYTES_MAX, reader.remainingBytes)} bytes`);
  }
  try {
    return decoder.decode(reader.bytes(sizeBytes));
  } catch {
    throw new GriddbFrameError(`${what}: invalid UTF-8`);
  }
}

/** Runs a decoder, turning the reader's CORRUPTION (a read past the end) into a frame error. */
export function griddbDecode<T>(decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof StorageError) throw new GriddbFrameError(error.message);
    throw error;
  }
}
