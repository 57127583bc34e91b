// The xlog scan's rules for records that passed their checksum. Such a record was written exactly
// so, so breaking a rule here is CORRUPTION (or NOT_SUPPORTED for a newer format) in any file, last
// or not: a torn write cannot produce a record with a matching checksum.

import { StorageError } from '../lib/base/errors.ts';
import type { Generation, Lsn, PartitionId } from '../lib/base/ids.ts';
import type { FileHandle } from '../lib/io/file-system.ts';
import {
  decodeXlogFileHeaderPayload, isXlogRecordType, XLOG_FILE_HEADER_PAYLOAD_BYTES,
  XLOG_FORMAT_VERSION, xlogRecordTypeName, XlogRecordType, type XlogRecordHeader,
} from './xlog-format.ts';

/** The file being scanned and what the scan expects of it. */
export interface XlogScanFile {
  partitionId: PartitionId;
  generation: Generation;
  path: string;
  handle: FileHandle;
  /** Size when the scan opened it. */
  sizeBytes: number;
  isFirst: boolean;
  isLast: boolean;
}

/**
 * Checks a file's FILE_HEADER record and returns its LSN. The first file's header sets where the
 * log starts; every later one must carry the LSN the previous file ended at.
 */
export function checkXlogFileHeader(
  file: XlogScanFile,
  header: XlogRecordHeader,
  payload: Uint8Array,
  previousLsn: Lsn,
): Lsn {
  if (header.type !== XlogRecordType.FILE_HEADER) {
    throw xlogCorruption(file, 0, `missing FILE_HEADER: the first record is ` +
      `${xlogRecordTypeName(header.type)}`);
  }
  if (payload.length !== XLOG_FILE_HEADER_PAYLOAD_BYTES) {
    throw xlogCorruption(file, 0, `FILE_HEADER payload is ${payload.length} bytes, not ` +
      `${XLOG_FILE_HEADER_PAYLOAD_BYTES}`);
  }
  const fileHeader = decodeXlogFileHeaderPayload(payload);
  if (fileHeader.formatVersion > XLOG_FORMAT_VERSION) {
    throw new StorageError('NOT_SUPPORTED', `${file.path}: xlog format version ` +
      `${fileHeader.formatVersion} is newer than this version reads (${XLOG_FORMAT_VERSION})`);
  }
  if (fileHeader.formatVersion !== XLOG_FORMAT_VERSION) {
    throw xlogCorruption(file, 0,
      `FILE_HEADER format version ${fileHeader.formatVersion} is invalid`);
  }
  if (fileHeader.partitionId !== file.partitionId) {
    throw xlogCorruption(file, 0, `FILE_HEADER names partition ${fileHeader.partitionId}`);
  }
  if (fileHeader.generation !== file.generation) {
    throw xlogCorruption(file, 0, `FILE_HEADER names generation ${fileHeader.generation}, ` +
      `the file name ${file.generation}`);
  }
  if (!file.isFirst && header.lsn !== previousLsn) {
    throw xlogCorruption(file, 0, `LSN gap: FILE_HEADER continues from LSN ${header.lsn}, ` +
      `the previous file ended at ${previousLsn} (expected ${previousLsn}, found ${header.lsn})`);
  }
  return header.lsn;
}

/** Checks a record after the FILE_HEADER: a known type, and the next LSN. */
export function checkXlogRecord(
  file: XlogScanFile,
  offsetBytes: number,
  header: XlogRecordHeader,
  previousLsn: Lsn,
): void {
  if (header.type === XlogRecordType.FILE_HEADER) {
    throw xlogCorruption(file, offsetBytes, 'FILE_HEADER record in the middle of a file');
  }
  if (!isXlogRecordType(header.type)) {
    throw xlogCorruption(file, offsetBytes, `unknown record type ${header.type}`);
  }
  const expectedLsn = previousLsn + 1n;
  if (header.lsn !== expectedLsn) {
    throw xlogCorruption(file, offsetBytes,
      `LSN gap: expected LSN ${expectedLsn}, found ${header.lsn}`);
  }
}

export function xlogCorruption(
  file: XlogScanFile,
  offsetBytes: number,
  reason: string,
): StorageError {
  return new StorageError('CORRUPTION',
    `xlog of partition ${file.partitionId}, file ${file.path}, offset ${offsetBytes}: ${reason}`);
}
