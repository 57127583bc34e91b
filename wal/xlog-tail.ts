// The torn-tail rule of the xlog scan (as LevelDB's and RocksDB's tolerated tail): damage in the
// last file (a short header, a length over the maximum or past the end of the file, a checksum
// mismatch) is a torn write only if no valid record follows it. So from the byte after the damage
// to the end of the file, every offset is tried as the start of a record: a known type other than
// FILE_HEADER, an LSN after the last good one, a length that fits, and a matching checksum. One
// found means records the writer made durable lie beyond the damage: that is CORRUPTION, never cut.
//
// A later LSN, not only the next one: damage that swallowed a whole record is followed by the one
// after it. Random bytes pass the checks above with odds of about 2^-32 per offset (the checksum),
// so a torn tail is not mistaken for a record in practice.
//
// The search reads the rest of the file in chunks of XLOG_TAIL_SEARCH_CHUNK_BYTES into one buffer;
// a candidate's payload (at most XLOG_RECORD_BYTES_MAX) is read on its own to check its checksum.

import { StorageError } from '../lib/base/errors.ts';
import type { Lsn } from '../lib/base/ids.ts';
import { XLOG_READ_BUFFER_BYTES, XLOG_RECORD_BYTES_MAX } from '../lib/base/limits.ts';
import type { FileHandle } from '../lib/io/file-system.ts';
import {
  decodeXlogRecordHeader, isXlogRecordType, XLOG_RECORD_HEADER_BYTES, xlogRecordCrc32c,
  XlogRecordType,
} from './xlog-format.ts';
import { xlogCorruption, type XlogScanFile } from './xlog-reader-checks.ts';

/** Offsets tried per read while searching past damage. */
export const XLOG_TAIL_SEARCH_CHUNK_BYTES = XLOG_READ_BUFFER_BYTES;

/**
 * Damage at `offsetBytes` (why: `reason`): returns where the log ends (offsetBytes) if it is a torn
 * tail; throws CORRUPTION naming the file and offset if it is not (an earlier file, or a valid
 * record after it).
 */
export function xlogTornTailAt(
  file: XlogScanFile,
  offsetBytes: number,
  reason: string,
  previousLsn: Lsn,
): number {
  if (!file.isLast) {
    throw xlogCorruption(file, offsetBytes, `${reason} in a file that is not the last`);
  }
  const recordAtBytes = findXlogRecordAfter(file, offsetBytes + 1, previousLsn);
  if (recordAtBytes !== undefined) {
    throw xlogCorruption(file, offsetBytes, `${reason}, and a valid record follows at offset ` +
      `${recordAtBytes}: damage inside the log, not a torn tail (see "repairing a corrupt log" ` +
      'in docs/durability.md)');
  }
  return offsetBytes;
}

/** The offset of the first valid record at or after `fromOffsetBytes`; undefined if none. */
export function findXlogRecordAfter(
  file: XlogScanFile,
  fromOffsetBytes: number,
  previousLsn: Lsn,
): number | undefined {
  // Each chunk overlaps the next by a header, so a header across the boundary is seen whole.
  const chunk = new Uint8Array(XLOG_TAIL_SEARCH_CHUNK_BYTES + XLOG_RECORD_HEADER_BYTES);
  for (let startBytes = fromOffsetBytes; startBytes + XLOG_RECORD_HEADER_BYTES <= file.sizeBytes;
    startBytes += XLOG_TAIL_SEARCH_CHUNK_BYTES) {
    const loadedBytes = Math.min(chunk.length, file.sizeBytes - startBytes);
    readFully(file.handle, chunk.subarray(0, loadedBytes), startBytes);
    const candidateCount = Math.min(XLOG_TAIL_SEARCH_CHUNK_BYTES,
      loadedBytes - XLOG_RECORD_HEADER_BYTES + 1);
    for (let index = 0; index < candidateCount; index++) {
      if (isXlogRecordAt(file, { chunk, index, offsetBytes: startBytes + index }, previousLsn)) {
        return startBytes + index;
      }
    }
  }
  return undefined;
}

function isXlogRecordAt(
  file: XlogScanFile,
  at: { chunk: Uint8Array; index: number; offsetBytes: number },
  previousLsn: Lsn,
): boolean {
  const header = decodeXlogRecordHeader(at.chunk, at.index);
  if (header.lsn <= previousLsn) return false;
  if (!isXlogRecordType(header.type) || header.type === XlogRecordType.FILE_HEADER) return false;
  if (header.payloadSizeBytes > XLOG_RECORD_BYTES_MAX) return false;
  const endBytes = at.offsetBytes + XLOG_RECORD_HEADER_BYTES + header.payloadSizeBytes;
  if (endBytes > file.sizeBytes) return false;
  const payload = new Uint8Array(header.payloadSizeBytes);
  readFully(file.handle, payload, at.offsetBytes + XLOG_RECORD_HEADER_BYTES);
  return xlogRecordCrc32c(at.chunk, at.index, payload) === header.crc32c;
}

function readFully(handle: FileHandle, into: Uint8Array, offsetBytes: number): void {
  let filledBytes = 0;
  while (filledBytes < into.length) {
    const readBytes = handle.read(into.subarray(filledBytes), offsetBytes + filledBytes);
    if (readBytes === 0) {
      throw new StorageError('IO', `${handle.path}: file ended at ${offsetBytes + filledBytes} ` +
        `while reading to ${offsetBytes + into.length}; did it shrink?`);
    }
    filledBytes += readBytes;
  }
}
