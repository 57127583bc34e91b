// Reads what ByteWriter wrote (the encodings are drawn in byte-writer.ts). The bytes come from the
// disk or the network, so every read is bounds-checked and anything malformed (a read past the
// end, an over-long or non-shortest varuint, invalid UTF-8, trailing bytes) is a CORRUPTION
// StorageError, never a RangeError or a silently wrong value.

import { Buffer } from 'node:buffer';
import { StorageError } from '../base/errors.ts';

const TWO_POW_32 = 2 ** 32;
/** The high u32 of a u64 that is still a safe integer: 2^53 − 1 = 0x1f_ffff_ffff_ffff. */
const SAFE_HIGH_U32_MAX = 0x1f_ffff;
const VARUINT_SIZE_BYTES_MAX = 8;
/** Short ASCII strings skip the UTF-8 decoder (ASCII needs no validation beyond its range). */
const ASCII_FAST_SIZE_BYTES_MAX = 64;
/** fatal: invalid UTF-8 throws; ignoreBOM: a leading U+FEFF is content, as it was written. */
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class ByteReader {
  private readonly buffer: Uint8Array;
  private readonly view: DataView;
  /** The same memory as a Buffer, for its fast one-byte string decoding; made at first use. */
  private nodeBuffer: Buffer | undefined;
  private readonly end: number;
  private offset = 0;

  constructor(bytes: Uint8Array) {
    // A plain view, so bytes() copies are plain Uint8Arrays even when given a Buffer (whose slice
    // is a view, not a copy); a plain one is used as it is (readers are made per message).
    this.buffer = Object.getPrototypeOf(bytes) === Uint8Array.prototype ? bytes
      : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.end = bytes.byteLength;
  }

  get offsetBytes(): number {
    return this.offset;
  }

  get remainingBytes(): number {
    return this.buffer.byteLength - this.offset;
  }

  /** Throws CORRUPTION unless every byte has been read. */
  expectEnd(): void {
    if (this.offset !== this.buffer.byteLength) {
      throw corruption(`${this.remainingBytes} unexpected bytes after the end at ${this.offset}`);
    }
  }

  u8(): number {
    this.need(1);
    return this.buffer[this.offset++]!;
  }

  u16(): number {
    this.need(2);
    const value = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return value;
  }

  u32(): number {
    this.need(4);
    const value = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return value;
  }

  i8(): number {
    this.need(1);
    return this.view.getInt8(this.offset++);
  }

  i16(): number {
    this.need(2);
    const value = this.view.getInt16(this.offset, true);
    this.offset += 2;
    return value;
  }

  i32(): number {
    this.need(4);
    const value = this.view.getInt32(this.offset, true);
    this.offset += 4;
    return value;
  }

  f32(): number {
    this.need(4);
    const value = this.view.getFloat32(this.offset, true);
    this.offset += 4;
    return value;
  }

  f64(): number {
    this.need(8);
    const value = this.view.getFloat64(this.offset, true);
    this.offset += 8;
    return value;
  }

  u64(): bigint {
    this.need(8);
    const value = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return value;
  }

  i64(): bigint {
    this.need(8);
    const value = this.view.getBigInt64(this.offset, true);
    this.offset += 8;
    return value;
  }

  /** A u64 that must be a safe integer (ByteWriter.u64Number); larger is CORRUPTION. */
  u64Number(): number {
    this.need(8);
    const low = this.view.getUint32(this.offset, true);
    const high = this.view.getUint32(this.offset + 4, true);
    if (high > SAFE_HIGH_U32_MAX) {
      throw corruption(`u64 at ${this.offset} is beyond 2^53 − 1`);
    }
    this.offset += 8;
    return high * TWO_POW_32 + low;
  }

  varuint(): number {
    const start = this.offset;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < VARUINT_SIZE_BYTES_MAX; i++) {
      const byte = this.u8();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        if (byte === 0 && i > 0) throw corruption(`varuint at ${start} is not in shortest form`);
        if (value > Number.MAX_SAFE_INTEGER) throw corruption(`varuint at ${start} is beyond 2^53`);
        return value;
      }
      scale *= 0x80;
    }
    throw corruption(`varuint at ${start} is longer than ${VARUINT_SIZE_BYTES_MAX} bytes`);
  }

  /** A copy of the next `sizeBytes` bytes: it outlives the buffer being read. */
  bytes(sizeBytes: number): Uint8Array {
    this.need(sizeBytes);
    const value = this.buffer.slice(this.offset, this.offset + sizeBytes);
    this.offset += sizeBytes;
    return value;
  }

  /** varuint UTF-8 size, then UTF-8; invalid UTF-8 is CORRUPTION. */
  string(): string {
    const sizeBytes = this.varuint();
    this.need(sizeBytes);
    const start = this.offset;
    const end = start + sizeBytes;
    const buffer = this.buffer;
    this.offset = end;
    if (sizeBytes <= ASCII_FAST_SIZE_BYTES_MAX && asciiIs(buffer, start, end)) {
      this.nodeBuffer ??= Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      return this.nodeBuffer.toString('latin1', start, end);
    }
    try {
      return decoder.decode(buffer.subarray(start, end));
    } catch (error) {
      throw corruption(`string at ${start} is not valid UTF-8`, error);
    }
  }

  // Kept tiny so that it inlines into every read; the throw lives elsewhere.
  private need(sizeBytes: number): void {
    if (sizeBytes > this.end - this.offset) this.passedEnd(sizeBytes);
  }

  private passedEnd(sizeBytes: number): never {
    throw corruption(`read of ${sizeBytes} bytes at ${this.offset} passes the end ` +
      `(${this.end} bytes)`);
  }
}

function asciiIs(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    if (bytes[i]! >= 0x80) return false;
  }
  return true;
}

function corruption(message: string, cause?: unknown): StorageError {
  return new StorageError('CORRUPTION', message, cause === undefined ? undefined : { cause });
}
