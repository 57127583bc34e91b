// The xlog record format. This file owns the bytes of a record and of the FILE_HEADER payload; the
// reader and the writer own the files. Pure functions only: no I/O, no allocation per record except
// where a caller asks for a new array.

import { assert } from '../lib/base/assert.ts';
import type { Generation, Lsn, PartitionId } from '../lib/base/ids.ts';
import { XLOG_RECORD_BYTES_MAX } from '../lib/base/limits.ts';
import { crc32c } from '../lib/encoding/crc32c.ts';
import { readU32, readU64, writeU32, writeU64 } from '../lib/encoding/little-endian.ts';

/**
 * xlog record, little-endian:
 *
 *   byte  0                4            8         16        17
 *         | lengthBytes u32 | crc32c u32 | lsn u64 | type u8 | payload (lengthBytes bytes) |
 *
 * lengthBytes counts the payload only, not the 17-byte header. crc32c (CRC-32C, Castagnoli) covers
 * bytes 8 .. 17 + lengthBytes: lsn, type and payload. The length is not covered on its own, but a
 * wrong length makes the checksum run over the wrong bytes, so it fails like any other damage.
 * LSNs are per partition and +1 per record; FILE_HEADER records consume none.
 *
 * FILE_HEADER payload, the first record of every xlog file (14 bytes):
 *
 *   byte  0                  2                6               10                  14
 *         | formatVersion u16 | partitionId u32 | generation u32 | blockSizeBytes u32 |
 *
 * Its lsn field is the LSN of the last record written before this file, so the file's first record
 * is lsn + 1. To change anything here, bump XLOG_FORMAT_VERSION: readers reject versions they do
 * not know rather than guess.
 */
export const XLOG_FORMAT_VERSION = 1;
export const XLOG_RECORD_HEADER_BYTES = 17;
export const XLOG_FILE_HEADER_PAYLOAD_BYTES = 14;
/** A FILE_HEADER record, header and payload: where the first real record of a file starts. */
export const XLOG_FILE_HEADER_RECORD_BYTES =
  XLOG_RECORD_HEADER_BYTES + XLOG_FILE_HEADER_PAYLOAD_BYTES;
export const XLOG_LSN_MAX = (2n ** 64n - 1n) as Lsn;

const LSN_OFFSET_BYTES = 8;

export const XlogRecordType = {
  FILE_HEADER: 1,
  COMMIT: 2,
  CREATE_CONTAINER: 3,
  DROP_CONTAINER: 4,
  ALTER_CONTAINER: 5,
  CREATE_INDEX: 6,
  DROP_INDEX: 7,
} as const;
export type XlogRecordType = (typeof XlogRecordType)[keyof typeof XlogRecordType];

const RECORD_TYPE_NAMES = new Map<number, string>(
  Object.entries(XlogRecordType).map(([name, type]) => [type, name]),
);

export function isXlogRecordType(type: number): type is XlogRecordType {
  return RECORD_TYPE_NAMES.has(type);
}

/** 'COMMIT', or 'UNKNOWN(9)' for a type this version does not know. */
export function xlogRecordTypeName(type: number): string {
  return RECORD_TYPE_NAMES.get(type) ?? `UNKNOWN(${type})`;
}

export interface XlogRecord {
  lsn: Lsn;
  type: XlogRecordType;
  payload: Uint8Array;
}

/** A header as read from disk: nothing in it is trusted until the checksum matches. */
export interface XlogRecordHeader {
  payloadSizeBytes: number;
  crc32c: number;
  lsn: Lsn;
  /** Raw: may be a type this version does not know. */
  type: number;
}

export interface XlogFileHeader {
  formatVersion: number;
  partitionId: PartitionId;
  generation: Generation;
  blockSizeBytes: number;
}

export function xlogRecordSizeBytes(payloadSizeBytes: number): number {
  return XLOG_RECORD_HEADER_BYTES + payloadSizeBytes;
}

/** Writes the 17-byte header of `record` (checksum included) at `offsetBytes`; not the payload. */
export function encodeXlogRecordHeader(
  into: Uint8Array,
  offsetBytes: number,
  record: XlogRecord,
): void {
  assert(record.payload.length <= XLOG_RECORD_BYTES_MAX);
  assert(record.lsn >= 0n);
  assert(record.lsn <= XLOG_LSN_MAX);
  assert(isXlogRecordType(record.type));
  assert(offsetBytes + XLOG_RECORD_HEADER_BYTES <= into.length);
  writeU32(into, offsetBytes, record.payload.length);
  writeU64(into, offsetBytes + LSN_OFFSET_BYTES, record.lsn);
  into[offsetBytes + 16] = record.type;
  writeU32(into, offsetBytes + 4, xlogRecordCrc32c(into, offsetBytes, record.payload));
}

/** Writes header and payload at `offsetBytes` (the payload's one copy); returns the end offset. */
export function encodeXlogRecord(
  into: Uint8Array,
  offsetBytes: number,
  record: XlogRecord,
): number {
  const endBytes = offsetBytes + xlogRecordSizeBytes(record.payload.length);
  assert(endBytes <= into.length);
  into.set(record.payload, offsetBytes + XLOG_RECORD_HEADER_BYTES);
  encodeXlogRecordHeader(into, offsetBytes, record);
  return endBytes;
}

export function decodeXlogRecordHeader(from: Uint8Array, offsetBytes: number): XlogRecordHeader {
  assert(offsetBytes + XLOG_RECORD_HEADER_BYTES <= from.length);
  return {
    payloadSizeBytes: readU32(from, offsetBytes),
    crc32c: readU32(from, offsetBytes + 4),
    lsn: readU64(from, offsetBytes + LSN_OFFSET_BYTES) as Lsn,
    type: from[offsetBytes + 16]!,
  };
}

/**
 * The checksum a record must carry: CRC-32C of lsn and type (header bytes 8 .. 17 at
 * `headerOffsetBytes` in `header`) followed by the payload, which may live elsewhere.
 */
export function xlogRecordCrc32c(
  header: Uint8Array,
  headerOffsetBytes: number,
  payload: Uint8Array,
): number {
  const lsnAndType = header.subarray(headerOffsetBytes + LSN_OFFSET_BYTES,
    headerOffsetBytes + XLOG_RECORD_HEADER_BYTES);
  assert(lsnAndType.length === XLOG_RECORD_HEADER_BYTES - LSN_OFFSET_BYTES);
  return crc32c(payload, crc32c(lsnAndType));
}

/** The whole FILE_HEADER record of a new file, whose records will start at previousLsn + 1. */
export function encodeXlogFileHeaderRecord(
  fileHeader: XlogFileHeader,
  previousLsn: Lsn,
): Uint8Array {
  assert(fileHeader.formatVersion === XLOG_FORMAT_VERSION);
  assert(fileHeader.generation >= 1);
  assert(fileHeader.blockSizeBytes > 0);
  const payload = new Uint8Array(XLOG_FILE_HEADER_PAYLOAD_BYTES);
  payload[0] = fileHeader.formatVersion & 0xff;
  payload[1] = fileHeader.formatVersion >>> 8;
  writeU32(payload, 2, fileHeader.partitionId);
  writeU32(payload, 6, fileHeader.generation);
  writeU32(payload, 10, fileHeader.blockSizeBytes);
  const record = new Uint8Array(XLOG_FILE_HEADER_RECORD_BYTES);
  encodeXlogRecord(record, 0, { lsn: previousLsn, type: XlogRecordType.FILE_HEADER, payload });
  return record;
}

/** Decodes a FILE_HEADER payload whose size the caller checked; the values are not validated. */
export function decodeXlogFileHeaderPayload(payload: Uint8Array): XlogFileHeader {
  assert(payload.length === XLOG_FILE_HEADER_PAYLOAD_BYTES);
  return {
    formatVersion: payload[0]! | (payload[1]! << 8),
    partitionId: readU32(payload, 2) as PartitionId,
    generation: readU32(payload, 6) as Generation,
    blockSizeBytes: readU32(payload, 10),
  };
}
