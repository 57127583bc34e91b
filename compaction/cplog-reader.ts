// Reads cplog files. A file is complete when it is exactly what CplogWriter.finish() leaves: a
// good HEADER matching the file's name, good BLOCK/FREE records, and a good END whose entry count
// and whole-file checksum match, with nothing after it. Anything else is a checkpoint a crash
// interrupted (or damage that looks like one): the result says incomplete and why, and readers
// go on with older generations. Never an error, except a format version this code does not know
// (NOT_SUPPORTED: a newer server's files must not be read as if they were torn) and I/O failures.
//
// The scan streams through one bounded buffer (records are at most CPLOG_RECORD_BYTES_MAX bytes),
// so checking a file costs the same memory whatever its size.

import { posix } from 'node:path';
import { assert } from '../lib/base/assert.ts';
import { StorageError } from '../lib/base/errors.ts';
import { CPLOG_READ_BUFFER_BYTES } from '../lib/base/limits.ts';
import { crc32c } from '../lib/encoding/crc32c.ts';
import type { FileHandle, FileSystem } from '../lib/io/file-system.ts';
import { parseCplogFileName } from './cplog-files.ts';
import {
  CPLOG_FORMAT_VERSION, CPLOG_PAYLOAD_BYTES, CPLOG_RECORD_BYTES_MAX, CPLOG_RECORD_HEADER_BYTES,
  cplogRecordPayloadBytes, CplogRecordType, decodeCplogRecord, type CplogEntry, type CplogHeader,
} from './cplog-format.ts';

export { listCplogGenerations } from './cplog-files.ts';

export interface CplogScanResult {
  path: string;
  /** The HEADER, if its record was good (even in an incomplete file). */
  header: CplogHeader | undefined;
  /** Good BLOCK and FREE records read (all of them when complete). */
  entryCount: number;
  complete: boolean;
  /** Why the file is incomplete, with the byte offset; undefined when complete. */
  incompleteReason: string | undefined;
  sizeBytes: number;
}

export interface CplogReadResult extends CplogScanResult {
  /** In file order. Of an incomplete file: the good entries before the damage, for tools. */
  entries: CplogEntry[];
}

export interface CplogScanOptions {
  /** Called for each good entry in file order, before completeness is known. */
  onEntry?: (entry: CplogEntry) => void;
  /** Bytes read per call; defaults to CPLOG_READ_BUFFER_BYTES. Tests pass tiny sizes. */
  readBufferBytes?: number;
}

/** Reads a whole cplog into memory. See scanCplog for what counts as complete. */
export function readCplog(fileSystem: FileSystem, path: string): CplogReadResult {
  const entries: CplogEntry[] = [];
  const result = scanCplog(fileSystem, path, { onEntry: (entry) => entries.push(entry) });
  return { ...result, entries };
}

/**
 * Checks a cplog record by record, handing each good entry to onEntry. Its name, if it is a cplog
 * name, must agree with its HEADER. Throws NOT_SUPPORTED for an unknown format version and IO
 * when the file cannot be read; everything else is reported in the result.
 */
export function scanCplog(
  fileSystem: FileSystem,
  path: string,
  options: CplogScanOptions = {},
): CplogScanResult {
  const handle = fileSystem.open(path, 'read');
  try {
    const scanner = new CplogScanner(handle, options.readBufferBytes ?? CPLOG_READ_BUFFER_BYTES);
    return scanner.run(parseCplogFileName(posix.basename(path)), options.onEntry);
  } finally {
    handle.close();
  }
}

class CplogScanner {
  private readonly buffer: Uint8Array;
  private readonly view: DataView;
  private readonly sizeBytes: number;
  /** File offset of buffer[0]. */
  private baseBytes = 0;
  /** Unread bytes are buffer[start, end). */
  private start = 0;
  private end = 0;
  /** CRC-32C of file bytes [0, crcUpToBytes). */
  private crc32c = 0;
  private crcUpToBytes = 0;

  constructor(private readonly handle: FileHandle, readBufferBytes: number) {
    assert(readBufferBytes >= CPLOG_RECORD_BYTES_MAX);
    assert(readBufferBytes <= CPLOG_READ_BUFFER_BYTES);
    this.buffer = new Uint8Array(readBufferBytes);
    this.view = new DataView(this.buffer.buffer);
    this.sizeBytes = handle.sizeBytes();
  }

  run(
    named: Pick<CplogHeader, 'partitionId' | 'generation'> | undefined,
    onEntry: ((entry: CplogEntry) => void) | undefined,
  ): CplogScanResult {
    const result: CplogScanResult = {
      path: this.handle.path, header: undefined, entryCount: 0, complete: false,
      incompleteReason: undefined, sizeBytes: this.sizeBytes,
    };
    const incomplete = (offsetBytes: number, reason: string): CplogScanResult => {
      result.incompleteReason = `at byte ${offsetBytes}: ${reason}`;
      return result;
    };
    for (;;) {
      const offsetBytes = this.baseBytes + this.start;
      const record = this.nextRecord(result.header?.blockSizeBytes ?? 0);
      if (record.type === 'bad') return incomplete(offsetBytes, record.reason);
      if ((record.type === CplogRecordType.HEADER) !== (offsetBytes === 0)) {
        return incomplete(offsetBytes, `record type ${record.type} where ` +
          (offsetBytes === 0 ? 'the HEADER belongs' : 'a HEADER does not belong'));
      }
      switch (record.type) {
        case CplogRecordType.HEADER: {
          if (record.header.formatVersion !== CPLOG_FORMAT_VERSION) {
            throw unknownVersion(this.handle.path, record.header.formatVersion);
          }
          const problem = headerProblem(record.header, named);
          if (problem !== undefined) return incomplete(offsetBytes, problem);
          result.header = record.header;
          break;
        }
        case CplogRecordType.BLOCK:
        case CplogRecordType.FREE:
          result.entryCount += 1;
          onEntry?.(record.entry);
          break;
        case CplogRecordType.END: {
          const problem = this.endProblem(record.end, offsetBytes, result.entryCount);
          if (problem !== undefined) return incomplete(offsetBytes, problem);
          result.complete = true;
          return result;
        }
      }
    }
  }

  /** The next record, decoded, with the read position moved past it. */
  private nextRecord(blockSizeBytes: number): ReturnType<typeof decodeCplogRecord> {
    if (!this.fill(CPLOG_RECORD_HEADER_BYTES)) {
      const leftBytes = this.end - this.start;
      return { type: 'bad', reason: leftBytes === 0 ? 'no END record' : 'torn record header' };
    }
    const payloadBytes = cplogRecordPayloadBytes(this.view, this.start);
    if (payloadBytes > CPLOG_RECORD_BYTES_MAX - CPLOG_RECORD_HEADER_BYTES) {
      return { type: 'bad', reason: `record length ${payloadBytes} is larger than any record` };
    }
    if (!this.fill(CPLOG_RECORD_HEADER_BYTES + payloadBytes)) {
      return { type: 'bad', reason: 'torn record' };
    }
    const record = decodeCplogRecord(this.view, this.start, blockSizeBytes);
    this.start += CPLOG_RECORD_HEADER_BYTES + payloadBytes;
    return record;
  }

  /** What is wrong with the END record at `offsetBytes`, or undefined. */
  private endProblem(
    end: { entryCount: number; fileCrc32c: number },
    offsetBytes: number,
    entryCount: number,
  ): string | undefined {
    if (end.entryCount !== entryCount) {
      return `END counts ${end.entryCount} entries, the file has ${entryCount}`;
    }
    if (this.fileCrc32cUpTo(offsetBytes) !== end.fileCrc32c) return 'whole-file checksum mismatch';
    const afterBytes = this.sizeBytes - (offsetBytes + CPLOG_RECORD_HEADER_BYTES +
      CPLOG_PAYLOAD_BYTES[CplogRecordType.END]);
    if (afterBytes !== 0) return `${afterBytes} bytes after the END record`;
    return undefined;
  }

  /** CRC-32C of file bytes [0, offsetBytes), which must still be in the buffer or folded. */
  private fileCrc32cUpTo(offsetBytes: number): number {
    assert(offsetBytes >= this.crcUpToBytes);
    assert(offsetBytes <= this.baseBytes + this.end);
    this.fold(offsetBytes);
    return this.crc32c;
  }

  private fold(toBytes: number): void {
    const from = this.crcUpToBytes - this.baseBytes;
    assert(from >= 0);
    this.crc32c = crc32c(this.buffer.subarray(from, toBytes - this.baseBytes), this.crc32c);
    this.crcUpToBytes = toBytes;
  }

  /** Makes `needBytes` unread bytes available; false at end of file before that. */
  private fill(needBytes: number): boolean {
    assert(needBytes <= this.buffer.length);
    while (this.end - this.start < needBytes) {
      if (this.start + needBytes > this.buffer.length) this.compact();
      const fileOffsetBytes = this.baseBytes + this.end;
      if (fileOffsetBytes >= this.sizeBytes) return false;
      const into = this.buffer.subarray(this.end,
        Math.min(this.buffer.length, this.end + this.sizeBytes - fileOffsetBytes));
      const readBytes = this.handle.read(into, fileOffsetBytes);
      if (readBytes === 0) return false; // the file shrank under us: as if it ended here
      this.end += readBytes;
    }
    return true;
  }

  /** Moves the unread bytes to the front, folding what is dropped into the file checksum. */
  private compact(): void {
    this.fold(this.baseBytes + this.start);
    this.buffer.copyWithin(0, this.start, this.end);
    this.baseBytes += this.start;
    this.end -= this.start;
    this.start = 0;
  }
}

function headerProblem(
  header: CplogHeader,
  named: Pick<CplogHeader, 'partitionId' | 'generation'> | undefined,
): string | undefined {
  if (header.generation === 0) return 'HEADER names generation 0';
  if (header.blockSizeBytes === 0) return 'HEADER names block size 0';
  if (named === undefined) return undefined;
  if (header.partitionId !== named.partitionId || header.generation !== named.generation) {
    return `HEADER of partition ${header.partitionId} generation ${header.generation} in the ` +
      `file of partition ${named.partitionId} generation ${named.generation}`;
  }
  return undefined;
}

function unknownVersion(path: string, formatVersion: number): StorageError {
  return new StorageError('NOT_SUPPORTED', `${path}: cplog format version ${formatVersion} is ` +
    `not ${CPLOG_FORMAT_VERSION}, the one this version reads`);
}
