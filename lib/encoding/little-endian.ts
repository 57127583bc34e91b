// Little-endian integers at an offset of a byte array, for the fixed headers of the on-disk formats
// (xlog, journal). ByteWriter/ByteReader are for streams; these are for fields at known offsets.

import { assert } from '../base/assert.ts';

export function writeU32(into: Uint8Array, offsetBytes: number, value: number): void {
  assert(Number.isInteger(value));
  assert(value >= 0 && value <= 0xffff_ffff);
  into[offsetBytes] = value & 0xff;
  into[offsetBytes + 1] = (value >>> 8) & 0xff;
  into[offsetBytes + 2] = (value >>> 16) & 0xff;
  into[offsetBytes + 3] = value >>> 24;
}

export function readU32(from: Uint8Array, offsetBytes: number): number {
  return (
    (from[offsetBytes]! | (from[offsetBytes + 1]! << 8) | (from[offsetBytes + 2]! << 16)) +
    from[offsetBytes + 3]! * 0x100_0000
  );
}

export function writeU64(into: Uint8Array, offsetBytes: number, value: bigint): void {
  writeU32(into, offsetBytes, Number(value & 0xffff_ffffn));
  writeU32(into, offsetBytes + 4, Number(value >> 32n));
}

export function readU64(from: Uint8Array, offsetBytes: number): bigint {
  return BigInt(readU32(from, offsetBytes)) | (BigInt(readU32(from, offsetBytes + 4)) << 32n);
}
