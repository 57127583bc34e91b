// Reads a partition's xlog: every file in generation order, as one stream of records whose LSNs go
// up by one. The scan is synchronous and streaming: it reads chunks into one bounded buffer
// (XLOG_READ_BUFFER_BYTES, grown only to fit a record larger than that, never past one maximal
// record) and hands each record to a callback, so a log of any length costs the same memory.
//
// What is damage and what is a torn write: only the last file can end in the middle of a record,
// because a writer appends to the last file alone and every earlier file was synced before the next
// one began. So in the last file a short header, a length over the maximum or past the end of the
// file, or a checksum mismatch, with no valid record after it, is a torn tail where the scan stops
// (xlog-tail.ts); followed by a valid record, or in an earlier file, it is CORRUPTION. A record
// that passes its checksum but breaks the log's rules (an LSN gap, an unknown type, a bad
// FILE_HEADER) was written that way and is CORRUPTION wherever it is.

import type { Generation, Lsn, PartitionId } from '../lib/base/ids.ts';
import { XLOG_READ_BUFFER_BYTES, XLOG_RECORD_BYTES_MAX } from '../lib/base/limits.ts';
import type { FileSystem } from '../lib/io/file-system.ts';
import { listXlogGenerations, xlogFilePath } from './xlog-files.ts';
import {
  decodeXlogRecordHeader, XLOG_RECORD_HEADER_BYTES, xlogRecordCrc32c, type XlogRecordHeader,
  type XlogRecordType,
} from './xlog-format.ts';
import { XlogReadWindow } from './xlog-read-window.ts';
import { checkXlogFileHeader, checkXlogRecord, type XlogScanFile } from './xlog-reader-checks.ts';
import { xlogTornTailAt } from './xlog-tail.ts';

/** One record as the scan hands it over. */
export interface XlogRecordView {
  lsn: Lsn;
  /** Checked by the scan: a known type, never FILE_HEADER. */
  type: XlogRecordType;
  /**
   * A view into the scan's read buffer, valid only during the onRecord call: the next chunk read
   * overwrites it. Copy it (payload.slice()) to keep it.
   */
  payload: Uint8Array;
  generation: Generation;
  /** Where the record starts in its file. */
  offsetBytes: number;
}

export interface XlogScanOptions {
  /** The transaction log directory (`<root>/<pId>/<pId>_<generation>.xlog`). */
  root: string;
  partitionId: PartitionId;
  /** Called for each record in LSN order, FILE_HEADERs excluded. May throw to stop the scan. */
  onRecord?: (record: XlogRecordView) => void;
  /** Bytes read per call; defaults to XLOG_READ_BUFFER_BYTES. Tests pass tiny sizes. */
  readBufferBytes?: number;
}

export interface XlogScanResult {
  partitionId: PartitionId;
  /** LSN in the first file's FILE_HEADER: records start at baseLsn + 1. 0 if no header was read. */
  baseLsn: Lsn;
  /** LSN of the last good record, or of the last header if no record followed it. */
  lastLsn: Lsn;
  /** Generation of the last file; 0 if the partition has no xlog file. */
  lastGeneration: Generation | 0;
  /** Path of the last file; undefined if there is none. */
  lastFilePath: string | undefined;
  /** End of the last good record (or FILE_HEADER) in the last file; 0 if its header is torn. */
  tailOffsetBytes: number;
  /** Size of the last file minus tailOffsetBytes: the torn write to cut off. */
  tornBytes: number;
  /** Why the bytes at tailOffsetBytes are not a record, when tornBytes > 0. */
  tornReason: string | undefined;
  /** Records handed to onRecord. */
  recordCount: number;
}

/**
 * Scans a partition's xlog files in generation order and returns where the good log ends. Throws
 * StorageError CORRUPTION for damage the rules above do not explain as a torn tail, IO for read
 * failures, NOT_SUPPORTED for a newer format version.
 */
export function scanXlog(fileSystem: FileSystem, options: XlogScanOptions): XlogScanResult {
  const generations = listXlogGenerations(fileSystem, options.root, options.partitionId);
  const window = new XlogReadWindow(options.readBufferBytes ?? XLOG_READ_BUFFER_BYTES);
  const result: XlogScanResult = {
    partitionId: options.partitionId, baseLsn: 0n as Lsn, lastLsn: 0n as Lsn, lastGeneration: 0,
    lastFilePath: undefined, tailOffsetBytes: 0, tornBytes: 0, tornReason: undefined,
    recordCount: 0,
  };
  for (const [index, generation] of generations.entries()) {
    const path = xlogFilePath(options.root, options.partitionId, generation);
    const handle = fileSystem.open(path, 'read');
    try {
      const file: XlogScanFile = {
        partitionId: options.partitionId, generation, path, handle, sizeBytes: handle.sizeBytes(),
        isLast: index === generations.length - 1, isFirst: index === 0,
      };
      window.reset(handle);
      const tail = scanXlogFile(file, window, result, options.onRecord);
      result.lastGeneration = generation;
      result.lastFilePath = path;
      result.tailOffsetBytes = tail.offsetBytes;
      result.tornBytes = file.sizeBytes - tail.offsetBytes;
      result.tornReason = tail.reason;
    } finally {
      handle.close();
    }
  }
  return result;
}

/**
 * Reads one file's records into `result`; returns the offset where its good records end, and why
 * the bytes there (if any) are no record.
 */
function scanXlogFile(
  file: XlogScanFile,
  window: XlogReadWindow,
  result: XlogScanResult,
  onRecord: ((record: XlogRecordView) => void) | undefined,
): { offsetBytes: number; reason: string | undefined } {
  const header = readXlogFrame(file, window, 0);
  if (typeof header === 'string') {
    return { offsetBytes: xlogTornTailAt(file, 0, header, result.lastLsn), reason: header };
  }
  const headerLsn = checkXlogFileHeader(file, header.header, header.payload, result.lastLsn);
  if (file.isFirst) result.baseLsn = headerLsn;
  result.lastLsn = headerLsn;
  let offsetBytes = XLOG_RECORD_HEADER_BYTES + header.payload.length;
  while (offsetBytes < file.sizeBytes) {
    const frame = readXlogFrame(file, window, offsetBytes);
    if (typeof frame === 'string') {
      return { offsetBytes: xlogTornTailAt(file, offsetBytes, frame, result.lastLsn), reason: frame };
    }
    checkXlogRecord(file, offsetBytes, frame.header, result.lastLsn);
    onRecord?.({
      lsn: frame.header.lsn, type: frame.header.type as XlogRecordType, payload: frame.payload,
      generation: file.generation, offsetBytes,
    });
    result.lastLsn = frame.header.lsn;
    result.recordCount += 1;
    offsetBytes += XLOG_RECORD_HEADER_BYTES + frame.payload.length;
  }
  return { offsetBytes, reason: undefined };
}

/**
 * Reads the record at `offsetBytes` and checks its frame (length and checksum). Returns a reason
 * string if the frame is damaged in a way a torn write explains.
 */
function readXlogFrame(
  file: XlogScanFile,
  window: XlogReadWindow,
  offsetBytes: number,
): { header: XlogRecordHeader; payload: Uint8Array } | string {
  const remainingBytes = file.sizeBytes - offsetBytes;
  if (remainingBytes < XLOG_RECORD_HEADER_BYTES) {
    return `short record header: ${remainingBytes} of ${XLOG_RECORD_HEADER_BYTES} bytes`;
  }
  const headerAt = window.load(offsetBytes, XLOG_RECORD_HEADER_BYTES);
  const header = decodeXlogRecordHeader(window.bytes, headerAt);
  // Checked before reading the payload: it is what bounds the read buffer.
  if (header.payloadSizeBytes > XLOG_RECORD_BYTES_MAX) {
    return `record length ${header.payloadSizeBytes} is over the maximum ${XLOG_RECORD_BYTES_MAX}`;
  }
  const recordSizeBytes = XLOG_RECORD_HEADER_BYTES + header.payloadSizeBytes;
  if (recordSizeBytes > remainingBytes) {
    return `record of ${recordSizeBytes} bytes runs past the end of the file ` +
      `(${remainingBytes} left)`;
  }
  const recordAt = window.load(offsetBytes, recordSizeBytes);
  const payloadAt = recordAt + XLOG_RECORD_HEADER_BYTES;
  const payload = window.bytes.subarray(payloadAt, recordAt + recordSizeBytes);
  const expectedCrc32c = xlogRecordCrc32c(window.bytes, recordAt, payload);
  if (expectedCrc32c !== header.crc32c) {
    return `checksum mismatch: stored ${hex32(header.crc32c)}, computed ${hex32(expectedCrc32c)}`;
  }
  return { header, payload };
}

function hex32(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`;
}

/**
 * Cuts the last file of a scan at its tail, dropping the torn write, and makes the cut durable.
 * Returns false (and touches nothing) when there was nothing torn.
 */
export async function truncateXlogTornTail(
  fileSystem: FileSystem,
  scan: XlogScanResult,
): Promise<boolean> {
  if (scan.tornBytes === 0) return false;
  if (scan.lastFilePath === undefined) return false;
  const handle = fileSystem.open(scan.lastFilePath, 'readWrite');
  try {
    if (handle.sizeBytes() <= scan.tailOffsetBytes) return false;
    handle.truncate(scan.tailOffsetBytes);
    await handle.datasync();
  } finally {
    handle.close();
  }
  return true;
}
