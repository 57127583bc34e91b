// Framing of PostgreSQL's frontend/backend protocol, version 3 (big-endian):
//
//   startup phase   | lengthBytes i32 | code i32 | payload |   lengthBytes counts itself
//                   code 196608 (3.0) StartupMessage, 80877103 SSLRequest, 80877102 CancelRequest
//   afterwards      | type u8 | lengthBytes i32 | payload |     lengthBytes counts itself, not type
//
// PgFrameReader cuts the byte stream into messages and checks each length as soon as its header
// is there, before buffering the body: a length below 4 or above the limit ends the connection
// without the body being read, so a peer can make the node hold at most one message of the limit.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';

export const PG_PROTOCOL_3_0 = 196_608;
export const PG_SSL_REQUEST_CODE = 80_877_103;
export const PG_CANCEL_REQUEST_CODE = 80_877_102;
export const PG_GSSENC_REQUEST_CODE = 80_877_104;

export interface PgMessage {
  /** The type byte; 0 for a startup-phase message (its code is the first 4 bytes of `body`). */
  type: number;
  body: Buffer;
}

export class PgFrameReader {
  private chunks: Buffer[] = [];
  private bufferedBytes = 0;
  /** True until the startup packet (and any SSLRequest before it) has been read. */
  startup = true;

  constructor(public messageBytesMax: number) {
    assert(messageBytesMax >= 8);
  }

  get bufferedByteCount(): number {
    return this.bufferedBytes;
  }

  push(chunk: Buffer): void {
    if (chunk.byteLength === 0) return;
    this.chunks.push(chunk);
    this.bufferedBytes += chunk.byteLength;
  }

  /** The next whole message, undefined when more bytes are needed; throws PROTOCOL_ERROR or LIMIT_EXCEEDED. */
  next(): PgMessage | undefined {
    const headerBytes = this.startup ? 4 : 5;
    if (this.bufferedBytes < headerBytes) return undefined;
    const header = this.peek(headerBytes);
    const type = this.startup ? 0 : header[0]!;
    const lengthBytes = header.readInt32BE(this.startup ? 0 : 1);
    const lengthMin = this.startup ? 8 : 4;
    if (lengthBytes < lengthMin) {
      throw new StorageError('PROTOCOL_ERROR', `invalid message length ${lengthBytes}`);
    }
    if (lengthBytes > this.messageBytesMax) {
      throw new StorageError('LIMIT_EXCEEDED', `a message of ${lengthBytes} bytes is more than ` +
        `the ${this.messageBytesMax} allowed (/sql/pgMessageSizeLimit)`);
    }
    const totalBytes = lengthBytes + (this.startup ? 0 : 1);
    if (this.bufferedBytes < totalBytes) return undefined;
    const whole = this.take(totalBytes);
    return { type, body: whole.subarray(this.startup ? 4 : 5) };
  }

  private peek(byteCount: number): Buffer {
    if (this.chunks[0]!.byteLength >= byteCount) return this.chunks[0]!;
    this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!;
  }

  private take(byteCount: number): Buffer {
    const first = this.peek(byteCount);
    const taken = first.subarray(0, byteCount);
    if (first.byteLength === byteCount) this.chunks.shift();
    else this.chunks[0] = first.subarray(byteCount);
    this.bufferedBytes -= byteCount;
    return taken;
  }
}

/** Reads a message body; running past its end is a PROTOCOL_ERROR. */
export class PgBodyReader {
  private offset = 0;
  constructor(private readonly body: Buffer) {}

  private need(byteCount: number): void {
    if (byteCount < 0 || this.offset + byteCount > this.body.byteLength) {
      throw new StorageError('PROTOCOL_ERROR', 'a message is shorter than its contents');
    }
  }

  int16(): number {
    this.need(2);
    const value = this.body.readInt16BE(this.offset);
    this.offset += 2;
    return value;
  }

  int32(): number {
    this.need(4);
    const value = this.body.readInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  byte(): number {
    this.need(1);
    return this.body[this.offset++]!;
  }

  cstring(): string {
    const end = this.body.indexOf(0, this.offset);
    if (end < 0) throw new StorageError('PROTOCOL_ERROR', 'a string is not terminated');
    const text = this.body.toString('utf8', this.offset, end);
    this.offset = end + 1;
    return text;
  }

  bytes(byteCount: number): Buffer {
    this.need(byteCount);
    const bytes = this.body.subarray(this.offset, this.offset + byteCount);
    this.offset += byteCount;
    return bytes;
  }

  get atEnd(): boolean {
    return this.offset === this.body.byteLength;
  }

  expectEnd(): void {
    if (!this.atEnd) throw new StorageError('PROTOCOL_ERROR', 'a message is longer than its contents');
  }
}

/** Builds backend messages into one growing buffer, sent with take(). */
export class PgBackendWriter {
  private buffer = Buffer.allocUnsafe(16 * 1024);
  private offset = 0;
  private start = -1;

  get byteCount(): number {
    return this.offset;
  }

  private ensure(byteCount: number): void {
    if (this.offset + byteCount <= this.buffer.byteLength) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.byteLength * 2, this.offset + byteCount));
    this.buffer.copy(grown, 0, 0, this.offset);
    this.buffer = grown;
  }

  begin(type: string): this {
    assert(this.start < 0);
    this.ensure(5);
    this.start = this.offset;
    this.buffer[this.offset] = type.charCodeAt(0);
    this.offset += 5;
    return this;
  }

  end(): void {
    assert(this.start >= 0);
    this.buffer.writeInt32BE(this.offset - this.start - 1, this.start + 1);
    this.start = -1;
  }

  int16(value: number): this {
    this.ensure(2);
    this.buffer.writeInt16BE(value, this.offset);
    this.offset += 2;
    return this;
  }

  int32(value: number): this {
    this.ensure(4);
    this.buffer.writeInt32BE(value, this.offset);
    this.offset += 4;
    return this;
  }

  byte(value: number): this {
    this.ensure(1);
    this.buffer[this.offset++] = value;
    return this;
  }

  cstring(text: string): this {
    const byteCount = Buffer.byteLength(text, 'utf8');
    this.ensure(byteCount + 1);
    this.buffer.write(text, this.offset, 'utf8');
    this.offset += byteCount;
    this.buffer[this.offset++] = 0;
    return this;
  }

  /** UTF-8 text with no terminator (a CopyData line), written in place: no Buffer of its own. */
  text(text: string): this {
    const byteCount = Buffer.byteLength(text, 'utf8');
    this.ensure(byteCount);
    this.buffer.write(text, this.offset, 'utf8');
    this.offset += byteCount;
    return this;
  }

  /** A DataRow cell: int32 byte length and the UTF-8 text, written in place (no Buffer per cell). */
  lengthText(text: string): this {
    this.ensure(4 + text.length * 3); // a UTF-16 unit is at most 3 UTF-8 bytes
    const byteCount = this.buffer.write(text, this.offset + 4, 'utf8');
    this.buffer.writeInt32BE(byteCount, this.offset);
    this.offset += 4 + byteCount;
    return this;
  }

  /**
   * A DataRow cell whose text is ASCII by construction (a number's, a time's, hex): copied by
   * charCode in JavaScript, cheaper than a native UTF-8 write for a few bytes.
   */
  lengthAscii(text: string): this {
    const length = text.length;
    this.ensure(4 + length);
    const buffer = this.buffer;
    let at = this.offset;
    buffer.writeInt32BE(length, at);
    at += 4;
    for (let i = 0; i < length; i++) buffer[at + i] = text.charCodeAt(i);
    this.offset = at + length;
    return this;
  }

  /** A DataRow cell of bytes[from, to) (text formatted elsewhere), with its int32 length. */
  lengthSlice(bytes: Uint8Array, from: number, to: number): this {
    const length = to - from;
    this.ensure(4 + length);
    const buffer = this.buffer;
    let at = this.offset;
    buffer.writeInt32BE(length, at);
    at += 4;
    for (let i = 0; i < length; i++) buffer[at + i] = bytes[from + i]!;
    this.offset = at + length;
    return this;
  }

  bytes(bytes: Uint8Array): this {
    this.ensure(bytes.byteLength);
    this.buffer.set(bytes, this.offset);
    this.offset += bytes.byteLength;
    return this;
  }

  /** A whole message with no payload, or one made by `write`. */
  message(type: string, write?: (writer: this) => void): void {
    this.begin(type);
    write?.(this);
    this.end();
  }

  /** What was written so far, copied out; the writer is empty after. */
  take(): Buffer {
    assert(this.start < 0);
    const out = Buffer.from(this.buffer.subarray(0, this.offset));
    this.offset = 0;
    return out;
  }
}
