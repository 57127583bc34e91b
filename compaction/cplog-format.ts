// The cplog record format: the block map of one checkpoint generation. This file owns the bytes of
// a record; cplog-writer.ts and cplog-reader.ts own the files. Pure functions, no I/O.

import { assert } from '../lib/base/assert.ts';
import type { BlockId, Generation, Lsn, PartitionId } from '../lib/base/ids.ts';
import { DATA_SLOT_COUNT_MAX } from '../lib/base/limits.ts';
import { crc32c } from '../lib/encoding/crc32c.ts';

/**
 * cplog file: one HEADER, then BLOCK and FREE records in the order they were appended, then one
 * END. Nothing follows END. A file without END, or with any record that fails its checks, is the
 * checkpoint a crash interrupted: readers ignore it (and say why), they never fail on it.
 *
 * Record, little-endian:
 *
 *   byte  0            4                 8         9
 *         | crc32c u32 | lengthBytes u32 | type u8 | payload (lengthBytes bytes) |
 *
 * crc32c (CRC-32C) covers bytes 4 .. 9 + lengthBytes: length, type and payload, in one range.
 * Each type has one payload size; any other length is a bad record.
 *
 *   HEADER (1), 22 bytes: | formatVersion u16 | partitionId u32 | generation u32 |
 *                         | blockSizeBytes u32 | checkpointLsn u64 |
 *     checkpointLsn: every xlog record with lsn ≤ it is reflected in the blocks this generation's
 *     map (with the generations before it) describes.
 *   BLOCK (2), 22 bytes:  | blockId u32 | slot u64 | storedSizeBytes u32 | codec u8 | kind u8 |
 *                         | checksum u32 |
 *     The block's image is in data slot `slot`, stored as `storedSizeBytes` bytes in `codec`
 *     (0 raw: the whole image, 1 snappy); checksum is the CRC-32C of those stored bytes. kind is
 *     the block's kind byte (lib/block/physical-block.ts: 1 row block, 2 large value, 3 shared
 *     page), copied for tools.
 *   FREE (3), 4 bytes:    | blockId u32 |
 *     The block was removed in this generation: older generations' entries for it are dead.
 *   END (4), 8 bytes:     | entryCount u32 | fileCrc32c u32 |
 *     entryCount counts BLOCK and FREE records; fileCrc32c is the CRC-32C of every byte of the
 *     file before the END record, so an END that reached the disk while an earlier page did not
 *     (one fdatasync orders nothing inside a file) still fails.
 *
 * Within one file a later entry for a block replaces an earlier one, as across files. To change
 * anything here, bump CPLOG_FORMAT_VERSION: readers refuse versions they do not know.
 */
export const CPLOG_FORMAT_VERSION = 1;
export const CPLOG_RECORD_HEADER_BYTES = 9;

export const CplogRecordType = { HEADER: 1, BLOCK: 2, FREE: 3, END: 4 } as const;
export type CplogRecordType = (typeof CplogRecordType)[keyof typeof CplogRecordType];

/** Payload size of each record type, indexed by type. */
export const CPLOG_PAYLOAD_BYTES: Readonly<Record<CplogRecordType, number>> = {
  [CplogRecordType.HEADER]: 22,
  [CplogRecordType.BLOCK]: 22,
  [CplogRecordType.FREE]: 4,
  [CplogRecordType.END]: 8,
};
export const CPLOG_RECORD_BYTES_MAX = CPLOG_RECORD_HEADER_BYTES + 22;
export const CPLOG_END_RECORD_BYTES = CPLOG_RECORD_HEADER_BYTES + 8;

/** How a slot's bytes are stored. */
export const BlockCodec = { RAW: 0, SNAPPY: 1 } as const;
export type BlockCodec = (typeof BlockCodec)[keyof typeof BlockCodec];

export function isBlockCodec(codec: number): codec is BlockCodec {
  return codec === BlockCodec.RAW || codec === BlockCodec.SNAPPY;
}

export function isCplogRecordType(type: number): type is CplogRecordType {
  return type >= CplogRecordType.HEADER && type <= CplogRecordType.END;
}

export interface CplogHeader {
  formatVersion: number;
  partitionId: PartitionId;
  generation: Generation;
  blockSizeBytes: number;
  checkpointLsn: Lsn;
}

/** Where a block's image is and how to check it. */
export interface CplogBlockEntry {
  type: 'BLOCK';
  blockId: BlockId;
  slot: number;
  storedSizeBytes: number;
  codec: BlockCodec;
  checksum: number;
  kind: number;
}

export interface CplogFreeEntry {
  type: 'FREE';
  blockId: BlockId;
}

export type CplogEntry = CplogBlockEntry | CplogFreeEntry;

export interface CplogEnd {
  entryCount: number;
  fileCrc32c: number;
}

/** One decoded record; `bad` says why it is not one (checksum, length, type, values). */
export type CplogRecord =
  | { type: typeof CplogRecordType.HEADER; header: CplogHeader }
  | { type: typeof CplogRecordType.BLOCK; entry: CplogBlockEntry }
  | { type: typeof CplogRecordType.FREE; entry: CplogFreeEntry }
  | { type: typeof CplogRecordType.END; end: CplogEnd }
  | { type: 'bad'; reason: string };

export function encodeCplogHeader(
  into: DataView,
  offsetBytes: number,
  header: CplogHeader,
): number {
  assert(header.formatVersion === CPLOG_FORMAT_VERSION);
  assert(header.generation >= 1 && header.generation <= 0xffff_ffff);
  assert(header.blockSizeBytes > 0);
  assert(header.checkpointLsn >= 0n && header.checkpointLsn < 2n ** 64n);
  const at = offsetBytes + CPLOG_RECORD_HEADER_BYTES;
  into.setUint16(at, header.formatVersion, true);
  into.setUint32(at + 2, header.partitionId, true);
  into.setUint32(at + 6, header.generation, true);
  into.setUint32(at + 10, header.blockSizeBytes, true);
  into.setBigUint64(at + 14, header.checkpointLsn, true);
  return sealRecord(into, offsetBytes, CplogRecordType.HEADER);
}

/** `blockSizeBytes` is the file's: what the entry may claim is checked against it. */
export function encodeCplogEntry(
  into: DataView,
  offsetBytes: number,
  entry: CplogEntry,
  blockSizeBytes: number,
): number {
  const at = offsetBytes + CPLOG_RECORD_HEADER_BYTES;
  assert(Number.isInteger(entry.blockId) && entry.blockId >= 0 && entry.blockId <= 0xffff_ffff);
  into.setUint32(at, entry.blockId, true);
  if (entry.type === 'FREE') return sealRecord(into, offsetBytes, CplogRecordType.FREE);
  const problem = cplogBlockEntryProblem(entry, blockSizeBytes);
  assert(problem === undefined, problem);
  into.setUint32(at + 4, entry.slot % 2 ** 32, true);
  into.setUint32(at + 8, Math.floor(entry.slot / 2 ** 32), true);
  into.setUint32(at + 12, entry.storedSizeBytes, true);
  into.setUint8(at + 16, entry.codec);
  into.setUint8(at + 17, entry.kind);
  into.setUint32(at + 18, entry.checksum, true);
  return sealRecord(into, offsetBytes, CplogRecordType.BLOCK);
}

export function encodeCplogEnd(into: DataView, offsetBytes: number, end: CplogEnd): number {
  assert(Number.isInteger(end.entryCount) && end.entryCount >= 0);
  assert(end.entryCount <= 0xffff_ffff);
  into.setUint32(offsetBytes + CPLOG_RECORD_HEADER_BYTES, end.entryCount, true);
  into.setUint32(offsetBytes + CPLOG_RECORD_HEADER_BYTES + 4, end.fileCrc32c >>> 0, true);
  return sealRecord(into, offsetBytes, CplogRecordType.END);
}

/**
 * What is wrong with a BLOCK entry for a file of `blockSizeBytes`, or undefined. The writer
 * asserts on it (a bad entry is our bug); the reader calls the record bad (the disk's fault).
 */
export function cplogBlockEntryProblem(
  entry: CplogBlockEntry,
  blockSizeBytes: number,
): string | undefined {
  if (!Number.isSafeInteger(entry.slot) || entry.slot < 0 || entry.slot >= DATA_SLOT_COUNT_MAX) {
    return `slot ${entry.slot} is out of range`;
  }
  if (!isBlockCodec(entry.codec)) return `unknown codec ${entry.codec}`;
  const sizeOk = entry.codec === BlockCodec.RAW
    ? entry.storedSizeBytes === blockSizeBytes
    : entry.storedSizeBytes > 0 && entry.storedSizeBytes < blockSizeBytes;
  if (!Number.isInteger(entry.storedSizeBytes) || !sizeOk) {
    return `stored size ${entry.storedSizeBytes} does not fit codec ${entry.codec} and block ` +
      `size ${blockSizeBytes}`;
  }
  if (!Number.isInteger(entry.kind) || entry.kind < 0 || entry.kind > 0xff) {
    return `kind ${entry.kind} is not a byte`;
  }
  if (!Number.isInteger(entry.checksum) || entry.checksum < 0 || entry.checksum > 0xffff_ffff) {
    return `checksum ${entry.checksum} is not a u32`;
  }
  return undefined;
}

/** Payload length of the record at `offsetBytes`, unchecked: the reader's next step. */
export function cplogRecordPayloadBytes(from: DataView, offsetBytes: number): number {
  return from.getUint32(offsetBytes + 4, true);
}

/**
 * Decodes the whole record at `offsetBytes` (header and payload must be in `from`). Checks the
 * checksum, type and length and the entry's values; not the HEADER's against the file's name.
 */
export function decodeCplogRecord(
  from: DataView,
  offsetBytes: number,
  blockSizeBytes: number,
): CplogRecord {
  const payloadBytes = cplogRecordPayloadBytes(from, offsetBytes);
  assert(offsetBytes + CPLOG_RECORD_HEADER_BYTES + payloadBytes <= from.byteLength);
  const covered = new Uint8Array(from.buffer, from.byteOffset + offsetBytes + 4,
    CPLOG_RECORD_HEADER_BYTES - 4 + payloadBytes);
  if (crc32c(covered) !== from.getUint32(offsetBytes, true)) {
    return { type: 'bad', reason: 'checksum mismatch' };
  }
  const type = from.getUint8(offsetBytes + 8);
  if (!isCplogRecordType(type)) return { type: 'bad', reason: `unknown record type ${type}` };
  if (payloadBytes !== CPLOG_PAYLOAD_BYTES[type]) {
    return { type: 'bad', reason: `record type ${type} with a ${payloadBytes}-byte payload` };
  }
  const at = offsetBytes + CPLOG_RECORD_HEADER_BYTES;
  switch (type) {
    case CplogRecordType.HEADER: return { type, header: decodeHeader(from, at) };
    case CplogRecordType.FREE: {
      return { type, entry: { type: 'FREE', blockId: from.getUint32(at, true) as BlockId } };
    }
    case CplogRecordType.END: {
      return {
        type,
        end: { entryCount: from.getUint32(at, true), fileCrc32c: from.getUint32(at + 4, true) },
      };
    }
    case CplogRecordType.BLOCK: {
      const entry = decodeBlockEntry(from, at);
      const problem = cplogBlockEntryProblem(entry, blockSizeBytes);
      if (problem === undefined) return { type, entry };
      return { type: 'bad', reason: `block ${entry.blockId}: ${problem}` };
    }
  }
}

function decodeHeader(from: DataView, at: number): CplogHeader {
  return {
    formatVersion: from.getUint16(at, true),
    partitionId: from.getUint32(at + 2, true) as PartitionId,
    generation: from.getUint32(at + 6, true) as Generation,
    blockSizeBytes: from.getUint32(at + 10, true),
    checkpointLsn: from.getBigUint64(at + 14, true) as Lsn,
  };
}

function decodeBlockEntry(from: DataView, at: number): CplogBlockEntry {
  return {
    type: 'BLOCK',
    blockId: from.getUint32(at, true) as BlockId,
    slot: from.getUint32(at + 4, true) + from.getUint32(at + 8, true) * 2 ** 32,
    storedSizeBytes: from.getUint32(at + 12, true),
    codec: from.getUint8(at + 16) as BlockCodec,
    kind: from.getUint8(at + 17),
    checksum: from.getUint32(at + 18, true),
  };
}

/** Writes length and type of a record whose payload is in place, then its checksum. */
function sealRecord(into: DataView, offsetBytes: number, type: CplogRecordType): number {
  const payloadBytes = CPLOG_PAYLOAD_BYTES[type];
  const endBytes = offsetBytes + CPLOG_RECORD_HEADER_BYTES + payloadBytes;
  assert(endBytes <= into.byteLength);
  into.setUint32(offsetBytes + 4, payloadBytes, true);
  into.setUint8(offsetBytes + 8, type);
  const covered = new Uint8Array(into.buffer, into.byteOffset + offsetBytes + 4,
    CPLOG_RECORD_HEADER_BYTES - 4 + payloadBytes);
  into.setUint32(offsetBytes, crc32c(covered), true);
  return endBytes;
}
