// A growable little-endian byte buffer for encoding records and rows. One ArrayBuffer and one
// DataView, reused across reset(): encoding a record allocates nothing once the buffer has grown
// to the largest record seen. Capacity doubles up to capacityBytesMax, beyond which writing is a
// LIMIT_EXCEEDED StorageError (a user can send a row that large), never an unbounded buffer.
//
// Encodings shared with ByteReader:
//   u8 u16 u32 i8 i16 i32 f32 f64 u64 i64   fixed width, little-endian
//   u64Number                                a u64 holding a safe integer (≤ 2^53 − 1), exact
//   varuint                                  LEB128: 7 bits a byte, low first, high bit = more;
//                                            at most 8 bytes (56 bits ≥ 53), shortest form only
//   string                                   varuint UTF-8 size in bytes, then the UTF-8 bytes
//                                            (a lone surrogate is written as U+FFFD: validate
//                                            user text first, as row-validate.ts does)
//   bytes                                    the raw bytes (the caller writes any length first)

import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { BYTE_WRITER_CAPACITY_BYTES_MAX } from '../base/limits.ts';

const TWO_POW_32 = 2 ** 32;
/** Strings this short take < 128 bytes UTF-8 (3 bytes a unit at most): a one-byte size prefix. */
const STRING_SHORT_LENGTH_MAX = 42;
const encoder = new TextEncoder();

export interface ByteWriterOptions {
  /** Growing beyond this is LIMIT_EXCEEDED. Default BYTE_WRITER_CAPACITY_BYTES_MAX. */
  capacityBytesMax?: number;
}

export class ByteWriter {
  private buffer: Uint8Array;
  private view: DataView;
  private offsetBytes = 0;
  /** Growing beyond this is LIMIT_EXCEEDED. */
  readonly capacityBytesMax: number;

  constructor(capacityBytes: number, options: ByteWriterOptions = {}) {
    this.capacityBytesMax = options.capacityBytesMax ?? BYTE_WRITER_CAPACITY_BYTES_MAX;
    assert(Number.isSafeInteger(capacityBytes) && capacityBytes > 0);
    assert(capacityBytes <= this.capacityBytesMax);
    assert(this.capacityBytesMax <= BYTE_WRITER_CAPACITY_BYTES_MAX);
    this.buffer = new Uint8Array(capacityBytes);
    this.view = new DataView(this.buffer.buffer);
  }

  /** Bytes written since the last reset. */
  get lengthBytes(): number {
    return this.offsetBytes;
  }

  /** Bytes of memory held now (grows by doubling, up to capacityBytesMax). */
  get capacityBytes(): number {
    return this.buffer.byteLength;
  }

  /** The bytes written: a view of the writer's memory, valid until the next write or reset. */
  finish(): Uint8Array {
    return this.buffer.subarray(0, this.offsetBytes);
  }

  /** Starts over, keeping the memory. */
  reset(): void {
    this.offsetBytes = 0;
  }

  u8(value: number): void {
    assert(value >= 0 && value <= 0xff);
    if (this.offsetBytes + 1 > this.buffer.byteLength) this.grow(1);
    this.buffer[this.offsetBytes++] = value;
  }

  u16(value: number): void {
    assert(value >= 0 && value <= 0xffff);
    if (this.offsetBytes + 2 > this.buffer.byteLength) this.grow(2);
    this.view.setUint16(this.offsetBytes, value, true);
    this.offsetBytes += 2;
  }

  u32(value: number): void {
    assert(value >= 0 && value <= 0xffff_ffff);
    if (this.offsetBytes + 4 > this.buffer.byteLength) this.grow(4);
    this.view.setUint32(this.offsetBytes, value, true);
    this.offsetBytes += 4;
  }

  i8(value: number): void {
    assert(value >= -0x80 && value <= 0x7f);
    if (this.offsetBytes + 1 > this.buffer.byteLength) this.grow(1);
    this.view.setInt8(this.offsetBytes, value);
    this.offsetBytes += 1;
  }

  i16(value: number): void {
    assert(value >= -0x8000 && value <= 0x7fff);
    if (this.offsetBytes + 2 > this.buffer.byteLength) this.grow(2);
    this.view.setInt16(this.offsetBytes, value, true);
    this.offsetBytes += 2;
  }

  i32(value: number): void {
    assert(value >= -0x8000_0000 && value <= 0x7fff_ffff);
    if (this.offsetBytes + 4 > this.buffer.byteLength) this.grow(4);
    this.view.setInt32(this.offsetBytes, value, true);
    this.offsetBytes += 4;
  }

  f32(value: number): void {
    if (this.offsetBytes + 4 > this.buffer.byteLength) this.grow(4);
    this.view.setFloat32(this.offsetBytes, value, true);
    this.offsetBytes += 4;
  }

  f64(value: number): void {
    if (this.offsetBytes + 8 > this.buffer.byteLength) this.grow(8);
    this.view.setFloat64(this.offsetBytes, value, true);
    this.offsetBytes += 8;
  }

  u64(value: bigint): void {
    assert(value >= 0n && value < 2n ** 64n);
    if (this.offsetBytes + 8 > this.buffer.byteLength) this.grow(8);
    this.view.setBigUint64(this.offsetBytes, value, true);
    this.offsetBytes += 8;
  }

  i64(value: bigint): void {
    assert(value >= -(2n ** 63n) && value < 2n ** 63n);
    if (this.offsetBytes + 8 > this.buffer.byteLength) this.grow(8);
    this.view.setBigInt64(this.offsetBytes, value, true);
    this.offsetBytes += 8;
  }

  /** A u64 from a non-negative safe integer, without a bigint: exact, and ByteReader.u64Number. */
  u64Number(value: number): void {
    assert(Number.isSafeInteger(value) && value >= 0);
    if (this.offsetBytes + 8 > this.buffer.byteLength) this.grow(8);
    const low = value % TWO_POW_32;
    this.view.setUint32(this.offsetBytes, low, true);
    this.view.setUint32(this.offsetBytes + 4, (value - low) / TWO_POW_32, true);
    this.offsetBytes += 8;
  }

  varuint(value: number): void {
    assert(Number.isSafeInteger(value) && value >= 0);
    if (this.offsetBytes + 8 > this.buffer.byteLength) this.grow(8);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.offsetBytes++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.offsetBytes++] = rest;
  }

  /**
   * For bulk encoders (row-codec's fixed-width rows): makes room for `sizeBytes` more bytes and
   * returns the offset to write at. Write through `dataView` / `bytesView`, then `advanceTo` the end.
   * The views are valid until the next claim or write that may grow the buffer.
   */
  claim(sizeBytes: number): number {
    assert(Number.isSafeInteger(sizeBytes) && sizeBytes >= 0);
    this.ensure(sizeBytes);
    return this.offsetBytes;
  }

  get dataView(): DataView {
    return this.view;
  }

  get bytesView(): Uint8Array {
    return this.buffer;
  }

  /** Ends a bulk write begun with claim(); `offsetBytes` is the end of what was written. */
  advanceTo(offsetBytes: number): void {
    assert(offsetBytes >= this.offsetBytes);
    assert(offsetBytes <= this.buffer.byteLength);
    this.offsetBytes = offsetBytes;
  }

  /** The bytes as they are; the caller writes their size first if the reader needs it. */
  bytes(value: Uint8Array): void {
    this.ensure(value.byteLength);
    this.buffer.set(value, this.offsetBytes);
    this.offsetBytes += value.byteLength;
  }

  /** varuint UTF-8 size, then the UTF-8 bytes, encoded straight into the buffer. */
  string(text: string): void {
    if (text.length <= STRING_SHORT_LENGTH_MAX) {
      this.stringShort(text);
      return;
    }
    const sizeBytes = Buffer.byteLength(text, 'utf8');
    this.varuint(sizeBytes);
    this.ensure(sizeBytes);
    const target = this.buffer.subarray(this.offsetBytes, this.offsetBytes + sizeBytes);
    const { written } = encoder.encodeInto(text, target);
    assert(written === sizeBytes);
    this.offsetBytes += sizeBytes;
  }

  private stringShort(text: string): void {
    const length = text.length;
    this.ensure(1 + length * 3);
    const buffer = this.buffer;
    const start = this.offsetBytes + 1;
    let sizeBytes = 0;
    // ASCII is copied unit by unit; the first other character hands the whole string to encodeInto.
    for (; sizeBytes < length; sizeBytes++) {
      const code = text.charCodeAt(sizeBytes);
      if (code >= 0x80) break;
      buffer[start + sizeBytes] = code;
    }
    if (sizeBytes < length) {
      sizeBytes = encoder.encodeInto(text, buffer.subarray(start, start + length * 3)).written;
    }
    assert(sizeBytes < 0x80);
    buffer[start - 1] = sizeBytes;
    this.offsetBytes = start + sizeBytes;
  }

  /**
   * Makes room for `sizeBytes` more bytes. The fixed-width writes spell this check out: V8 stops
   * inlining small helpers once a hot caller has inlined enough, and this one runs per value.
   */
  private ensure(sizeBytes: number): void {
    if (this.offsetBytes + sizeBytes > this.buffer.byteLength) this.grow(sizeBytes);
  }

  /** Doubles the memory as often as needed for `sizeBytes` more bytes. */
  private grow(sizeBytes: number): void {
    const needBytes = this.offsetBytes + sizeBytes;
    if (needBytes > this.capacityBytesMax) {
      throw new StorageError('LIMIT_EXCEEDED',
        `encoding needs ${needBytes} bytes, more than ${this.capacityBytesMax}`);
    }
    let capacityBytes = this.buffer.byteLength * 2;
    while (capacityBytes < needBytes) capacityBytes *= 2;
    const buffer = new Uint8Array(Math.min(capacityBytes, this.capacityBytesMax));
    buffer.set(this.buffer.subarray(0, this.offsetBytes));
    this.buffer = buffer;
    this.view = new DataView(buffer.buffer);
  }
}
