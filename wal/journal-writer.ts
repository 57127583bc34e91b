// JournalWriter: appends commit records to one journal file (journal-format.ts) of a partition group.
//
// Appends go to a write buffer; sync() writes the buffer with one pwrite and fdatasyncs the file.
// The file is kept zero-filled ahead of the records, JOURNAL_EXTEND_BYTES at a time, so most syncs
// overwrite allocated bytes and change no file size (the reader stops at the first zero header).
// The zero-fill is preallocation, not data: create() writes only the header, so a start never
// spends space on it, and the first fill comes with the first commit, once the node is up. A fill
// that fails (ENOSPC) breaks nothing: the writer says so once (onWarning) and goes on without
// preallocation, each sync then growing the file; only a failed write of records breaks it.
// group-commit.ts calls sync() once per round, one at a time, and counts what each sync covered.
// A failed write or sync breaks the writer for good, as the xlog writer's do: the group's mode-0
// commits then fail until the node restarts and recovers from what is durable.

import { assert } from '../lib/base/assert.ts';
import { partitionId } from '../lib/base/ids.ts';
import {
  JOURNAL_EXTEND_BYTES, JOURNAL_RECORD_PAYLOAD_BYTES_MAX, JOURNAL_WRITE_BUFFER_BYTES,
} from '../lib/base/limits.ts';
import { FailureLatch } from '../lib/io/failure-latch.ts';
import {
  makeDirectoryDurable, syncCreatedFile, type FileHandle, type FileSystem,
} from '../lib/io/file-system.ts';
import { StorageError } from '../lib/base/errors.ts';
import {
  encodeJournalFileHeader, encodeJournalRecord, JOURNAL_FILE_HEADER_BYTES, JOURNAL_FORMAT_VERSION,
  journalRecordSizeBytes, type JournalRecord,
} from './journal-format.ts';
import { journalDirectory, journalFilePath, type PartitionRange } from './journal-files.ts';

export interface JournalWriterOptions {
  fileSystem: FileSystem;
  /** The transaction log directory; files go in its journal/ directory. */
  root: string;
  range: PartitionRange;
  /** Must be above every existing file's of the range. */
  sequence: number;
  /** Told when zero-filling ahead failed and the writer went on without it. */
  onWarning?: ((message: string) => void) | undefined;
}

export class JournalWriter {
  /**
   * Creates the file, writes its header and makes file and directory entry durable, so a record
   * appended after this resolves is in a file recovery will find.
   */
  static async create(options: JournalWriterOptions): Promise<JournalWriter> {
    const { fileSystem, root } = options;
    const directory = journalDirectory(root);
    await makeDirectoryDurable(fileSystem, directory);
    const path = journalFilePath(root, { ...options.range, sequence: options.sequence });
    const handle = fileSystem.open(path, 'create');
    try {
      assert(handle.sizeBytes() === 0, `${path} already has data`);
      handle.write(encodeJournalFileHeader({
        formatVersion: JOURNAL_FORMAT_VERSION, startPartitionId: partitionId(options.range.startPartitionId),
        partitionCount: options.range.partitionCount, sequence: options.sequence,
      }), 0);
    } catch (error) {
      handle.close();
      throw error;
    }
    await syncCreatedFile(fileSystem, handle, directory);
    return new JournalWriter(options, path, handle, JOURNAL_FILE_HEADER_BYTES);
  }

  private readonly buffer = new Uint8Array(JOURNAL_WRITE_BUFFER_BYTES);
  private bufferUsedBytes = 0;
  private writtenSizeBytes = JOURNAL_FILE_HEADER_BYTES;
  private readonly failure: FailureLatch;
  private closed = false;
  /** Off for good once a zero-fill failed. */
  private preallocating = true;

  private constructor(
    readonly options: JournalWriterOptions,
    readonly path: string,
    private readonly handle: FileHandle,
    /** Bytes known to be in the file: the records, then zeros. */
    private allocatedBytes: number,
  ) {
    this.failure = new FailureLatch({
      subject: `commit journal ${path}`, advice: 'restart the node to recover from the logs',
    });
  }

  get sequence(): number {
    return this.options.sequence;
  }

  /** File size, buffered bytes included. */
  get sizeBytes(): number {
    return this.writtenSizeBytes + this.bufferUsedBytes;
  }

  get brokenError(): StorageError | undefined {
    return this.failure.brokenBy;
  }

  /** Encodes the record into the buffer (writing the buffer out first if it is full). */
  append(record: JournalRecord): void {
    this.throwIfUnusable();
    assert(record.payload.length <= JOURNAL_RECORD_PAYLOAD_BYTES_MAX);
    const recordBytes = journalRecordSizeBytes(record.payload.length);
    if (recordBytes > this.buffer.length - this.bufferUsedBytes) this.flushBuffer();
    this.bufferUsedBytes = encodeJournalRecord(this.buffer, this.bufferUsedBytes, record);
  }

  /** Writes the buffer out and fdatasyncs: every record appended before the call is durable after. */
  async sync(): Promise<void> {
    this.throwIfUnusable();
    this.flushBuffer();
    await this.failure.guardAsync(() => this.handle.datasync());
  }

  /** Closes the file without syncing (the xlogs are, or recovery reads what is durable). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.handle.close();
  }

  private flushBuffer(): void {
    if (this.bufferUsedBytes === 0) return;
    const bytes = this.buffer.subarray(0, this.bufferUsedBytes);
    const endBytes = this.writtenSizeBytes + bytes.length;
    if (endBytes > this.allocatedBytes && this.preallocating) this.preallocate(endBytes);
    this.failure.guard(() => this.handle.write(bytes, this.writtenSizeBytes));
    this.writtenSizeBytes += this.bufferUsedBytes;
    this.bufferUsedBytes = 0;
  }

  /**
   * Zero-fills the file ahead of the records up to the next JOURNAL_EXTEND_BYTES boundary past
   * `endBytes`. A failure is not the journal's: zeros past the records read as its end whether
   * they were written or not, so it only turns preallocation off.
   */
  private preallocate(endBytes: number): void {
    const extendedBytes = Math.ceil(endBytes / JOURNAL_EXTEND_BYTES) * JOURNAL_EXTEND_BYTES;
    const fillBytes = extendedBytes - this.allocatedBytes;
    try {
      // Never the last free space: the records and the xlogs need it more than the zeros do.
      const freeBytes = this.options.fileSystem.freeBytes(this.path);
      if (freeBytes < JOURNAL_PREALLOCATION_FREE_SPACE_FACTOR * fillBytes) {
        throw new StorageError('IO', `ENOSPC: ${freeBytes} bytes free, under ` +
          `${JOURNAL_PREALLOCATION_FREE_SPACE_FACTOR} × the ${fillBytes} to preallocate`);
      }
      zeroFill(this.handle, this.allocatedBytes, extendedBytes);
      this.allocatedBytes = extendedBytes;
    } catch (error) {
      this.preallocating = false;
      try {
        this.handle.truncate(Math.max(this.allocatedBytes, this.writtenSizeBytes)); // the zeros go
      } catch {
        // Zeros past the records read as the journal's end; they only take space.
      }
      const detail = error instanceof Error ? error.message : String(error);
      this.options.onWarning?.(`commit journal ${this.path}: preallocation of ${fillBytes} ` +
        `bytes failed (${detail}); going on without it`);
    }
  }

  private throwIfUnusable(): void {
    if (this.closed) throw new StorageError('CLOSED', `commit journal ${this.path} is closed`);
    this.failure.throwIfBroken();
  }
}

const ZERO_CHUNK = new Uint8Array(1024 * 1024);
/** Preallocation runs only while this many times its size is free. */
const JOURNAL_PREALLOCATION_FREE_SPACE_FACTOR = 2;

/** Writes zeros over [fromBytes, toBytes) of the file. */
function zeroFill(handle: FileHandle, fromBytes: number, toBytes: number): void {
  for (let at = fromBytes; at < toBytes; at += ZERO_CHUNK.length) {
    handle.write(ZERO_CHUNK.subarray(0, Math.min(ZERO_CHUNK.length, toBytes - at)), at);
  }
}
