// The commit journal's bytes: its file header and its records. Pure functions only.
//
// Under logWriteMode 0 a partition group copies each small commit record into one journal file
// besides appending it to its partition's xlog, and makes commits durable with one fdatasync of the
// journal per round instead of one per partition xlog (group-commit.ts). The journal holds nothing
// the xlogs will not hold once they are synced; it only bridges the time until they are.
//
// Journal FILE_HEADER, the first 26 bytes of every journal file:
//
//   byte  0         4                  6                     10                  14            18
//         | magic u32 | formatVersion u16 | startPartitionId u32 | partitionCount u32 | sequence u32 |
//
//         18              22           26
//         | reserved u32 0 | crc32c u32 |
//
// magic is 0x4c4e4a53 ('SJNL' in file order); crc32c covers bytes 0 .. 22. The partition range is
// the writing group's; the sequence grows by one per file of that range.
//
// Journal record, after the header, little-endian:
//
//   byte  0                4            8                 12        20        21
//         | lengthBytes u32 | crc32c u32 | partitionId u32 | lsn u64 | type u8 | payload (lengthBytes) |
//
// lsn and type are those of the same record in the partition's xlog (xlog-format.ts). crc32c
// covers bytes 8 .. 21 + lengthBytes. To change anything here, bump JOURNAL_FORMAT_VERSION.

import { assert } from '../lib/base/assert.ts';
import type { Lsn, PartitionId } from '../lib/base/ids.ts';
import { crc32c } from '../lib/encoding/crc32c.ts';
import { readU32, readU64, writeU32, writeU64 } from '../lib/encoding/little-endian.ts';
import { isXlogRecordType, type XlogRecordType } from './xlog-format.ts';

export const JOURNAL_FORMAT_VERSION = 1;
export const JOURNAL_MAGIC = 0x4c4e4a53;
export const JOURNAL_FILE_HEADER_BYTES = 26;
export const JOURNAL_RECORD_HEADER_BYTES = 21;

const HEADER_CRC_OFFSET_BYTES = 22;
const RECORD_COVERED_FROM_BYTES = 8;

export interface JournalFileHeader {
  formatVersion: number;
  startPartitionId: PartitionId;
  partitionCount: number;
  sequence: number;
}

export interface JournalRecord {
  partitionId: PartitionId;
  lsn: Lsn;
  type: XlogRecordType;
  payload: Uint8Array;
}

export function journalRecordSizeBytes(payloadSizeBytes: number): number {
  return JOURNAL_RECORD_HEADER_BYTES + payloadSizeBytes;
}

export function encodeJournalFileHeader(header: JournalFileHeader): Uint8Array {
  assert(header.formatVersion === JOURNAL_FORMAT_VERSION);
  assert(header.partitionCount >= 1);
  const bytes = new Uint8Array(JOURNAL_FILE_HEADER_BYTES);
  writeU32(bytes, 0, JOURNAL_MAGIC);
  bytes[4] = header.formatVersion & 0xff;
  bytes[5] = header.formatVersion >>> 8;
  writeU32(bytes, 6, header.startPartitionId);
  writeU32(bytes, 10, header.partitionCount);
  writeU32(bytes, 14, header.sequence);
  writeU32(bytes, 18, 0);
  writeU32(bytes, HEADER_CRC_OFFSET_BYTES, crc32c(bytes.subarray(0, HEADER_CRC_OFFSET_BYTES)));
  return bytes;
}

/** The header, or a reason it is not one (short, wrong magic, checksum mismatch). */
export function decodeJournalFileHeader(bytes: Uint8Array): JournalFileHeader | string {
  if (bytes.length < JOURNAL_FILE_HEADER_BYTES) {
    return `short header: ${bytes.length} of ${JOURNAL_FILE_HEADER_BYTES} bytes`;
  }
  if (readU32(bytes, 0) !== JOURNAL_MAGIC) return 'not a journal file (wrong magic)';
  const stored = readU32(bytes, HEADER_CRC_OFFSET_BYTES);
  if (crc32c(bytes.subarray(0, HEADER_CRC_OFFSET_BYTES)) !== stored) {
    return 'header checksum mismatch';
  }
  return {
    formatVersion: bytes[4]! | (bytes[5]! << 8),
    startPartitionId: readU32(bytes, 6) as PartitionId,
    partitionCount: readU32(bytes, 10),
    sequence: readU32(bytes, 14),
  };
}

/** Writes header and payload at `offsetBytes`; returns the end offset. */
export function encodeJournalRecord(
  into: Uint8Array,
  offsetBytes: number,
  record: JournalRecord,
): number {
  assert(isXlogRecordType(record.type));
  const endBytes = offsetBytes + journalRecordSizeBytes(record.payload.length);
  assert(endBytes <= into.length);
  writeU32(into, offsetBytes, record.payload.length);
  writeU32(into, offsetBytes + 8, record.partitionId);
  writeU64(into, offsetBytes + 12, record.lsn);
  into[offsetBytes + 20] = record.type;
  into.set(record.payload, offsetBytes + JOURNAL_RECORD_HEADER_BYTES);
  writeU32(into, offsetBytes + 4,
    crc32c(into.subarray(offsetBytes + RECORD_COVERED_FROM_BYTES, endBytes)));
  return endBytes;
}

/** The payload length a record header at `offsetBytes` claims (not yet trusted). */
export function journalRecordPayloadBytes(from: Uint8Array, offsetBytes: number): number {
  return readU32(from, offsetBytes);
}

/**
 * Decodes the whole record at `offsetBytes` (the caller loaded all of it); undefined when its
 * checksum does not match or its type is unknown. The payload is a view into `from`.
 */
export function decodeJournalRecord(
  from: Uint8Array,
  offsetBytes: number,
): JournalRecord | undefined {
  const payloadBytes = readU32(from, offsetBytes);
  const endBytes = offsetBytes + journalRecordSizeBytes(payloadBytes);
  assert(endBytes <= from.length);
  const computed = crc32c(from.subarray(offsetBytes + RECORD_COVERED_FROM_BYTES, endBytes));
  if (computed !== readU32(from, offsetBytes + 4)) return undefined;
  const type = from[offsetBytes + 20]!;
  if (!isXlogRecordType(type)) return undefined;
  return {
    partitionId: readU32(from, offsetBytes + 8) as PartitionId,
    lsn: readU64(from, offsetBytes + 12) as Lsn,
    type,
    payload: from.subarray(offsetBytes + JOURNAL_RECORD_HEADER_BYTES, endBytes),
  };
}
