// Reads a commit journal file (journal-format.ts) for recovery.
//
// A journal file is written front to back and synced as a whole, so every record a commit was
// acknowledged on lies before the first record that fails to read: the scan stops there, and what
// follows (a torn write, or pages of an unsynced tail that reached the disk out of order) is
// ignored. A file whose header does not read was never used: its creation is synced before the
// first record is appended, so it holds nothing a commit waited for. The writer zero-fills the file
// ahead of its records: the zeros after the last record are not damage and are not counted.

import type { PartitionId } from '../lib/base/ids.ts';
import { JOURNAL_RECORD_PAYLOAD_BYTES_MAX, XLOG_READ_BUFFER_BYTES } from '../lib/base/limits.ts';
import { StorageError } from '../lib/base/errors.ts';
import type { FileHandle, FileSystem } from '../lib/io/file-system.ts';
import {
  decodeJournalFileHeader, decodeJournalRecord, JOURNAL_FILE_HEADER_BYTES,
  JOURNAL_FORMAT_VERSION, JOURNAL_RECORD_HEADER_BYTES, journalRecordPayloadBytes,
  type JournalFileHeader, type JournalRecord,
} from './journal-format.ts';
import { XlogReadWindow } from './xlog-read-window.ts';

export interface JournalScan {
  /** Undefined when the header did not read (the file holds nothing). */
  header: JournalFileHeader | undefined;
  recordCount: number;
  /** Bytes after the last good record up to the last non-zero byte (a torn or unsynced tail). */
  ignoredBytes: number;
}

/**
 * Hands every good record of the file at `path` whose partition `wanted` accepts to `onRecord`, in
 * file order; the payload is a view valid only during the call. Throws NOT_SUPPORTED for a newer
 * format version, IO for read failures.
 */
export function scanJournalFile(
  fileSystem: FileSystem,
  path: string,
  wanted: (partitionId: PartitionId) => boolean,
  onRecord: (record: JournalRecord) => void,
): JournalScan {
  const handle = fileSystem.open(path, 'read');
  try {
    const sizeBytes = handle.sizeBytes();
    const window = new XlogReadWindow(XLOG_READ_BUFFER_BYTES);
    window.reset(handle);
    if (sizeBytes < JOURNAL_FILE_HEADER_BYTES) {
      return { header: undefined, recordCount: 0, ignoredBytes: sizeBytes };
    }
    const headerAt = window.load(0, JOURNAL_FILE_HEADER_BYTES);
    const header = decodeJournalFileHeader(
      window.bytes.subarray(headerAt, headerAt + JOURNAL_FILE_HEADER_BYTES));
    if (typeof header === 'string') return { header: undefined, recordCount: 0, ignoredBytes: sizeBytes };
    if (header.formatVersion !== JOURNAL_FORMAT_VERSION) {
      throw new StorageError('NOT_SUPPORTED', `${path}: journal format version ` +
        `${header.formatVersion} is not the one this version reads (${JOURNAL_FORMAT_VERSION})`);
    }
    let offsetBytes = JOURNAL_FILE_HEADER_BYTES;
    let recordCount = 0;
    while (sizeBytes - offsetBytes >= JOURNAL_RECORD_HEADER_BYTES) {
      const at = window.load(offsetBytes, JOURNAL_RECORD_HEADER_BYTES);
      const payloadBytes = journalRecordPayloadBytes(window.bytes, at);
      if (payloadBytes > JOURNAL_RECORD_PAYLOAD_BYTES_MAX) break;
      const recordBytes = JOURNAL_RECORD_HEADER_BYTES + payloadBytes;
      if (recordBytes > sizeBytes - offsetBytes) break;
      const recordAt = window.load(offsetBytes, recordBytes);
      const record = decodeJournalRecord(window.bytes.subarray(0, recordAt + recordBytes), recordAt);
      if (record === undefined) break;
      if (wanted(record.partitionId)) onRecord(record);
      recordCount++;
      offsetBytes += recordBytes;
    }
    return { header, recordCount, ignoredBytes: nonZeroBytesFrom(handle, offsetBytes, sizeBytes) };
  } finally {
    handle.close();
  }
}

/** How far past `fromBytes` the file has non-zero bytes: the extent of what the scan ignored. */
function nonZeroBytesFrom(handle: FileHandle, fromBytes: number, sizeBytes: number): number {
  const chunk = new Uint8Array(64 * 1024);
  let lastNonZeroEnd = fromBytes;
  for (let at = fromBytes; at < sizeBytes; at += chunk.length) {
    const readBytes = handle.read(chunk, at);
    for (let i = readBytes - 1; i >= 0; i--) {
      if (chunk[i] !== 0) {
        lastNonZeroEnd = at + i + 1;
        break;
      }
    }
    if (readBytes < chunk.length) break;
  }
  return lastNonZeroEnd - fromBytes;
}
