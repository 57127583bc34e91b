// GridDB's binary container key (server/container_key.cpp FullContainerKey, shared by the C
// client's ContainerKeyConverter): how a v15 client names a container in every container and row
// statement, and how a node names it back (the ID property). On the wire:
//
//   | keySize varsize | flags u8 | databaseId i64, if flags & 0x01 |
//   | baseNameSize varsize | lower-cased base name |
//   | largeContainerId varlong, if flags & 0x02 |
//   | affinityNumber varlong, if flags & 0x04 | or | affinitySize varsize | affinity, if & 0x08 |
//   | systemPartId varlong, if flags & 0x10 | or | systemPartSize varsize | part, if & 0x20 |
//   | upperCaseBits: one bit per byte of the three strings, LSB first, ceil(bytes / 8) bytes |
//
// varsize is GridDB's size prefix (griddbVarSizeRead below): one byte `size << 1 | 1` under 128,
// four bytes `size << 2` under 2^30, eight bytes `size << 2 | 2` beyond. Names are lower-cased
// ASCII on the wire; a set bit restores the byte's upper case. The name store uses is GridDB's
// text form: base name, then `@affinity` (a string or a number). Store has one database
// (`public`, id 0), no large (table-partitioned) containers and no system parts: a key with any of
// those is refused with GridDB's DS_DS_CONTAINER_NAME_INVALID (GriddbError).

import { Buffer } from 'node:buffer';
import type { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError } from './griddb-frame.ts';

const FLAG_DATABASE_ID = 0x01;
const FLAG_LARGE_CONTAINER_ID = 0x02;
const FLAG_AFFINITY_NUMBER = 0x04;
const FLAG_AFFINITY_STRING = 0x08;
const FLAG_SYSTEM_PART_NUMBER = 0x10;
const FLAG_SYSTEM_PART_STRING = 0x20;
const FLAGS_KNOWN = 0x3f;
const VAR_SIZE_1_BYTE_LIMIT = 128;
const VAR_SIZE_4_BYTE_LIMIT = 2 ** 30;
/** Longer keys are malformed here: a name is at most 16 KiB in GridDB (and far less in store). */
export const GRIDDB_CONTAINER_KEY_BYTES_MAX = 64 * 1024;
const CHAR_a = 0x61;
const CHAR_z = 0x7a;
const CASE_OFFSET = 0x20;

/** Reads GridDB's 1/4/8-byte size prefix; a size over `max` is a GriddbFrameError. */
export function griddbVarSizeRead(reader: ByteReader, what: string, max: number): number {
  const first = reader.u8();
  let size: number;
  if ((first & 0x01) === 0x01) {
    size = first >>> 1;
  } else if ((first & 0x03) === 0x00) {
    size = (first | (reader.u8() << 8) | (reader.u8() << 16) | (reader.u8() << 24)) >>> 2;
  } else {
    const low = BigInt(first) | (BigInt(reader.u8()) << 8n) | (BigInt(reader.u16()) << 16n) |
      (BigInt(reader.u32()) << 32n);
    const value = low >> 2n;
    if (value > BigInt(max)) {
      throw new GriddbFrameError(`${what}: size ${value} is over ${max}`);
    }
    size = Number(value);
  }
  if (size > max) throw new GriddbFrameError(`${what}: size ${size} is over ${max}`);
  return size;
}

/** Writes GridDB's size prefix (the shortest form, as the client does). */
export function griddbVarSizeWrite(writer: ByteWriter, size: number): void {
  if (size < VAR_SIZE_1_BYTE_LIMIT) {
    writer.u8((size << 1) | 1);
  } else if (size < VAR_SIZE_4_BYTE_LIMIT) {
    writer.u32(size * 4);
  } else {
    writer.u64((BigInt(size) << 2n) | 2n);
  }
}

/** A varlong as GridDB's key carries it: the varsize form, up to 2^62. */
function varLongRead(reader: ByteReader, what: string): number {
  return griddbVarSizeRead(reader, what, Number.MAX_SAFE_INTEGER);
}

/** Reads one container key (with its size prefix) and returns the container's name. */
export function griddbContainerKeyRead(reader: ByteReader): string {
  const keyBytes = griddbVarSizeRead(reader, 'container key', GRIDDB_CONTAINER_KEY_BYTES_MAX);
  if (keyBytes < 1 || keyBytes > reader.remainingBytes) {
    throw new GriddbFrameError(`container key of ${keyBytes} bytes is outside ` +
      `1..${reader.remainingBytes} bytes`);
  }
  const end = reader.offsetBytes + keyBytes;
  const flags = reader.u8();
  if ((flags & ~FLAGS_KNOWN) !== 0) {
    throw new GriddbFrameError(`container key flags 0x${flags.toString(16)} are not GridDB's`);
  }
  if ((flags & FLAG_DATABASE_ID) !== 0) {
    const databaseId = reader.i64();
    if (databaseId !== 0n) {
      throw new GriddbError(GriddbErrorCode.TXN_AUTH_FAILED,
        `database id ${databaseId}: store has only the database "public"`);
    }
  }
  const parts: Uint8Array[] = [];
  const stringRead = (what: string): Uint8Array => {
    const size = griddbVarSizeRead(reader, what, keyBytes);
    if (reader.offsetBytes + size > end) {
      throw new GriddbFrameError(`${what} of ${size} bytes runs past its container key`);
    }
    const bytes = reader.bytes(size);
    parts.push(bytes);
    return bytes;
  };
  const base = stringRead('container name');
  let affinity: string | undefined;
  if ((flags & FLAG_LARGE_CONTAINER_ID) !== 0) {
    varLongRead(reader, 'large container id');
    throw new GriddbError(GriddbErrorCode.DS_DS_CONTAINER_NAME_INVALID,
      'a sub-container of a table-partitioned container is not supported by store');
  }
  if ((flags & FLAG_AFFINITY_NUMBER) !== 0) {
    affinity = String(varLongRead(reader, 'node affinity'));
  } else if ((flags & FLAG_AFFINITY_STRING) !== 0) {
    stringRead('node affinity');
  }
  if ((flags & (FLAG_SYSTEM_PART_NUMBER | FLAG_SYSTEM_PART_STRING)) !== 0) {
    throw new GriddbError(GriddbErrorCode.DS_DS_CONTAINER_NAME_INVALID,
      'a system container name part is not supported by store');
  }
  const textBytes = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const bitBytes = Math.ceil(textBytes / 8);
  if (end - reader.offsetBytes !== bitBytes) {
    throw new GriddbFrameError(`container key has ${end - reader.offsetBytes} bytes of ` +
      `upper-case bits for ${textBytes} name bytes (expected ${bitBytes})`);
  }
  const bits = reader.bytes(bitBytes);
  const texts: string[] = [];
  let index = 0;
  for (const part of parts) {
    const restored = Buffer.from(part);
    for (let i = 0; i < restored.byteLength; i++, index++) {
      if ((bits[index >>> 3]! & (1 << (index & 7))) === 0) continue;
      const byte = restored[i]!;
      if (byte < CHAR_a || byte > CHAR_z) {
        throw new GriddbFrameError(`container key marks byte ${index} upper case, but it is ` +
          `not a lower-case letter`);
      }
      restored[i] = byte - CASE_OFFSET;
    }
    texts.push(utf8Decode(restored));
  }
  const name = texts[0]!;
  if (base.byteLength === 0) {
    throw new GriddbError(GriddbErrorCode.DS_DS_CONTAINER_NAME_INVALID, 'container name is empty');
  }
  if (affinity === undefined && texts.length > 1) affinity = texts[1];
  return affinity === undefined ? name : `${name}@${affinity}`;
}

/** Writes `name` as a container key of the public database (with its size prefix). */
export function griddbContainerKeyWrite(writer: ByteWriter, name: string): void {
  const at = name.indexOf('@');
  const base = Buffer.from(at < 0 ? name : name.slice(0, at), 'utf8');
  const affinity = at < 0 ? undefined : Buffer.from(name.slice(at + 1), 'utf8');
  const texts = affinity === undefined ? [base] : [base, affinity];
  const textBytes = texts.reduce((sum, part) => sum + part.byteLength, 0);
  const bits = new Uint8Array(Math.ceil(textBytes / 8));
  const lowered: Buffer[] = [];
  let index = 0;
  for (const text of texts) {
    const copy = Buffer.from(text);
    for (let i = 0; i < copy.byteLength; i++, index++) {
      const byte = copy[i]!;
      if (byte >= CHAR_a - CASE_OFFSET && byte <= CHAR_z - CASE_OFFSET) {
        copy[i] = byte + CASE_OFFSET;
        bits[index >>> 3]! |= 1 << (index & 7);
      }
    }
    lowered.push(copy);
  }
  const sizePrefix = (size: number): number => (size < VAR_SIZE_1_BYTE_LIMIT ? 1 : 4);
  let keyBytes = 1 + bits.byteLength;
  for (const text of lowered) keyBytes += sizePrefix(text.byteLength) + text.byteLength;
  griddbVarSizeWrite(writer, keyBytes);
  writer.u8(affinity === undefined ? 0 : FLAG_AFFINITY_STRING);
  for (const text of lowered) {
    griddbVarSizeWrite(writer, text.byteLength);
    writer.bytes(text);
  }
  writer.bytes(bits);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function utf8Decode(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new GriddbFrameError('container key: invalid UTF-8');
  }
}
