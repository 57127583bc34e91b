// XlogWriter: appends records to one partition's current xlog file.
//
// Three LSNs tell how far a record has gone: lastLsn (assigned by append, maybe only in the write
// buffer), writtenLsn (handed to the OS by a pwrite) and syncedLsn (durable: an fdatasync that
// began after it was written has finished). lastLsn >= writtenLsn >= syncedLsn always. Only
// syncedLsn may be acknowledged in logWriteMode 0.
//
// Durability steps run one after another on a chain (datasync, the start of a generation), so
// syncedLsn only moves forward and never past a file that is not yet durable.
//
// A failed write or fdatasync breaks the writer for good: after a failed fsync the kernel may have
// dropped the dirty pages and reported the error once, so a retry could "succeed" over lost data.
// Every later call throws StorageError('IO'); recovery reopens the log from what is on disk.

import { assert } from '../lib/base/assert.ts';
import { FailureLatch } from '../lib/io/failure-latch.ts';
import { StorageError } from '../lib/base/errors.ts';
import type { Generation, Lsn, PartitionId } from '../lib/base/ids.ts';
import { XLOG_RECORD_BYTES_MAX, XLOG_WRITE_BUFFER_BYTES } from '../lib/base/limits.ts';
import {
  makeDirectoryDurable, syncCreatedFile, type FileHandle, type FileSystem,
} from '../lib/io/file-system.ts';
import { xlogFilePath, xlogPartitionDirectory } from './xlog-files.ts';
import {
  encodeXlogFileHeaderRecord, encodeXlogRecord, encodeXlogRecordHeader, isXlogRecordType,
  XLOG_FILE_HEADER_RECORD_BYTES, XLOG_FORMAT_VERSION, XLOG_LSN_MAX, XLOG_RECORD_HEADER_BYTES,
  xlogRecordSizeBytes, XlogRecordType,
} from './xlog-format.ts';
import type { XlogScanResult } from './xlog-reader.ts';

export interface XlogWriterOptions {
  fileSystem: FileSystem;
  /** The transaction log directory. */
  root: string;
  partitionId: PartitionId;
  /** Recorded in each FILE_HEADER. */
  blockSizeBytes: number;
  /** Defaults to XLOG_WRITE_BUFFER_BYTES; tests pass tiny sizes. */
  writeBufferBytes?: number;
}

interface XlogWriterState {
  handle: FileHandle;
  generation: Generation;
  sizeBytes: number;
  lastLsn: Lsn;
}

export class XlogWriter {
  /**
   * Starts generation `generation` in a new file (which must not exist or be empty), writes its
   * FILE_HEADER, and syncs the file and its directory so the file survives a crash. `lastLsn` is
   * the LSN of the last record before this file and must already be durable.
   */
  static async create(
    options: XlogWriterOptions & { generation: Generation; lastLsn: Lsn },
  ): Promise<XlogWriter> {
    const { fileSystem, root, partitionId } = options;
    const directory = xlogPartitionDirectory(root, partitionId);
    // A new partition directory is itself an entry of the root.
    await makeDirectoryDurable(fileSystem, directory);
    const handle = openXlogFileWithHeader(options, options.generation, options.lastLsn);
    await syncCreatedFile(fileSystem, handle, directory);
    return new XlogWriter(options, {
      handle, generation: options.generation, sizeBytes: XLOG_FILE_HEADER_RECORD_BYTES,
      lastLsn: options.lastLsn,
    });
  }

  /**
   * Continues the last file of a scan at its tail. Bytes past the tail (a torn write) are cut off;
   * a last file whose FILE_HEADER is torn (tail 0) gets a new one. The file is synced first, so
   * syncedLsn starts at the scan's lastLsn.
   */
  static async continueAfterScan(
    options: XlogWriterOptions & { scan: XlogScanResult },
  ): Promise<XlogWriter> {
    const { fileSystem, root, partitionId, scan } = options;
    assert(scan.partitionId === partitionId);
    assert(scan.lastGeneration !== 0); // no file at all: create generation 1 instead
    const generation = scan.lastGeneration;
    const handle = fileSystem.open(xlogFilePath(root, partitionId, generation), 'readWrite');
    let sizeBytes = scan.tailOffsetBytes;
    try {
      assert(handle.sizeBytes() >= scan.tailOffsetBytes);
      if (scan.tailOffsetBytes === 0) {
        handle.truncate(0);
        handle.write(fileHeaderRecord(options, generation, scan.lastLsn), 0);
        sizeBytes = XLOG_FILE_HEADER_RECORD_BYTES;
      } else if (handle.sizeBytes() > scan.tailOffsetBytes) {
        handle.truncate(scan.tailOffsetBytes);
      }
      // The records scanned may sit only in the page cache of a process that died.
      await handle.datasync();
      await fileSystem.syncDirectory(xlogPartitionDirectory(root, partitionId));
    } catch (error) {
      handle.close();
      throw error;
    }
    return new XlogWriter(options, { handle, generation, sizeBytes, lastLsn: scan.lastLsn });
  }

  readonly partitionId: PartitionId;
  private readonly options: XlogWriterOptions;
  private handle: FileHandle;
  private generationCurrent: Generation;
  /** File bytes handed to the OS; the buffer's bytes go after them. */
  private writtenSizeBytes: number;
  private readonly buffer: Uint8Array;
  private bufferUsedBytes = 0;
  /** The header of a record written straight through, past the buffer. */
  private readonly headerScratch = new Uint8Array(XLOG_RECORD_HEADER_BYTES);
  private lastLsnCurrent: Lsn;
  private writtenLsnCurrent: Lsn;
  private syncedLsnCurrent: Lsn;
  private readonly failure: FailureLatch;
  private closed = false;
  /** The last durability step; each new one runs after it. Never rejects. */
  private syncTail: Promise<void> = Promise.resolve();

  private constructor(options: XlogWriterOptions, state: XlogWriterState) {
    const writeBufferBytes = options.writeBufferBytes ?? XLOG_WRITE_BUFFER_BYTES;
    assert(writeBufferBytes >= XLOG_RECORD_HEADER_BYTES);
    assert(writeBufferBytes <= XLOG_RECORD_BYTES_MAX);
    // Only what later files need: not the scan or the first generation the factories were given.
    this.options = {
      fileSystem: options.fileSystem, root: options.root, partitionId: options.partitionId,
      blockSizeBytes: options.blockSizeBytes, writeBufferBytes,
    };
    this.partitionId = options.partitionId;
    this.failure = new FailureLatch({
      subject: `xlog writer of partition ${options.partitionId}`,
      advice: 'recover the partition to go on',
    });
    this.handle = state.handle;
    this.generationCurrent = state.generation;
    this.writtenSizeBytes = state.sizeBytes;
    this.buffer = new Uint8Array(writeBufferBytes);
    this.lastLsnCurrent = state.lastLsn;
    this.writtenLsnCurrent = state.lastLsn;
    this.syncedLsnCurrent = state.lastLsn;
  }

  get generation(): Generation {
    return this.generationCurrent;
  }

  /** LSN of the last record appended (maybe only buffered). */
  get lastLsn(): Lsn {
    return this.lastLsnCurrent;
  }

  /** LSN of the last record handed to the OS. */
  get writtenLsn(): Lsn {
    return this.writtenLsnCurrent;
  }

  /** LSN of the last durable record. */
  get syncedLsn(): Lsn {
    return this.syncedLsnCurrent;
  }

  /** Size of the current file, buffered bytes included. */
  get sizeBytes(): number {
    return this.writtenSizeBytes + this.bufferUsedBytes;
  }

  /** The failure that broke the writer; undefined while it works. */
  get brokenError(): StorageError | undefined {
    return this.failure.brokenBy;
  }

  /**
   * Assigns the next LSN and encodes the record into the write buffer (flushing it first if the
   * record does not fit; a record larger than the buffer is written straight through). The record
   * is not durable until a datasync that starts after this call.
   */
  append(type: XlogRecordType, payload: Uint8Array): Lsn {
    this.throwIfUnusable();
    assert(isXlogRecordType(type));
    assert(type !== XlogRecordType.FILE_HEADER);
    if (payload.length > XLOG_RECORD_BYTES_MAX) {
      throw new StorageError('LIMIT_EXCEEDED', `xlog record of ${payload.length} bytes is over ` +
        `the maximum of ${XLOG_RECORD_BYTES_MAX} bytes (partition ${this.partitionId})`);
    }
    assert(this.lastLsnCurrent < XLOG_LSN_MAX);
    const record = { lsn: (this.lastLsnCurrent + 1n) as Lsn, type, payload };
    const recordSizeBytes = xlogRecordSizeBytes(payload.length);
    if (recordSizeBytes > this.buffer.length - this.bufferUsedBytes) this.flushBuffer();
    if (recordSizeBytes > this.buffer.length) {
      this.writeThrough(record);
      this.writtenLsnCurrent = record.lsn;
    } else {
      this.bufferUsedBytes = encodeXlogRecord(this.buffer, this.bufferUsedBytes, record);
    }
    this.lastLsnCurrent = record.lsn;
    return record.lsn;
  }

  /** Hands the buffered records to the OS (one pwrite). Not durable: see datasync. */
  flush(): void {
    this.throwIfUnusable();
    this.flushBuffer();
  }

  /**
   * Flushes, then makes every record written so far durable: when this resolves, syncedLsn is at
   * least the lastLsn of the moment of the call.
   */
  datasync(): Promise<void> {
    try {
      this.throwIfUnusable();
      this.flushBuffer();
    } catch (error) {
      return Promise.reject(error);
    }
    const handle = this.handle;
    const targetLsn = this.writtenLsnCurrent;
    return this.enqueueSync(() => this.syncHandle(handle, targetLsn));
  }

  /**
   * Moves to a new file for `generation` (checkpoints call this). The switch happens now: appends
   * after this call go to the new file. The returned promise resolves once the old file is durable
   * and closed and the new file and its directory entry are durable.
   */
  startGeneration(generation: Generation): Promise<void> {
    let previous: { handle: FileHandle; lsn: Lsn };
    let handle: FileHandle;
    try {
      this.throwIfUnusable();
      assert(generation > this.generationCurrent);
      this.flushBuffer();
      previous = { handle: this.handle, lsn: this.writtenLsnCurrent };
      const lastLsn = this.lastLsnCurrent;
      handle = this.failure.guard(() => openXlogFileWithHeader(this.options, generation, lastLsn));
    } catch (error) {
      return Promise.reject(error);
    }
    this.handle = handle;
    this.generationCurrent = generation;
    this.writtenSizeBytes = XLOG_FILE_HEADER_RECORD_BYTES;
    return this.enqueueSync(async () => {
      // The new header claims the old file ends at previous.lsn: make that true before relying on
      // it.
      // A failed close of the synced old file must not skip the new file's sync: its entry may
      // become durable with a later directory sync, and an empty file before the last is damage.
      let closeError: unknown;
      try {
        await this.syncHandle(previous.handle, previous.lsn);
      } finally {
        try {
          previous.handle.close();
        } catch (error) {
          closeError = error;
        }
      }
      const directory = xlogPartitionDirectory(this.options.root, this.partitionId);
      await this.failure.guardAsync(async () => {
        await handle.datasync();
        await this.options.fileSystem.syncDirectory(directory);
      });
      if (closeError !== undefined) throw closeError;
    });
  }

  /**
   * Writes what is buffered, waits for durability steps under way, and closes the file. Does not
   * sync: call datasync first to make the tail durable. Later calls throw CLOSED.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    let flushError: unknown;
    if (this.failure.brokenBy === undefined) {
      try {
        this.flushBuffer();
      } catch (error) {
        flushError = error;
      }
    }
    this.closed = true;
    await this.syncTail;
    this.handle.close();
    if (flushError !== undefined) throw flushError;
  }

  private flushBuffer(): void {
    if (this.bufferUsedBytes === 0) return;
    const bytes = this.buffer.subarray(0, this.bufferUsedBytes);
    this.failure.guard(() => this.handle.write(bytes, this.writtenSizeBytes));
    this.writtenSizeBytes += this.bufferUsedBytes;
    this.bufferUsedBytes = 0;
    this.writtenLsnCurrent = this.lastLsnCurrent;
  }

  /** A record larger than the buffer: its header from a scratch array, its payload as given. */
  private writeThrough(record: { lsn: Lsn; type: XlogRecordType; payload: Uint8Array }): void {
    assert(this.bufferUsedBytes === 0);
    const header = this.headerScratch;
    encodeXlogRecordHeader(header, 0, record);
    this.failure.guard(() => {
      this.handle.write(header, this.writtenSizeBytes);
      this.handle.write(record.payload, this.writtenSizeBytes + XLOG_RECORD_HEADER_BYTES);
    });
    this.writtenSizeBytes += xlogRecordSizeBytes(record.payload.length);
  }

  private async syncHandle(handle: FileHandle, targetLsn: Lsn): Promise<void> {
    if (targetLsn <= this.syncedLsnCurrent) return;
    this.throwIfBroken();
    await this.failure.guardAsync(() => handle.datasync());
    if (targetLsn > this.syncedLsnCurrent) this.syncedLsnCurrent = targetLsn;
  }

  private enqueueSync(step: () => Promise<void>): Promise<void> {
    const run = this.syncTail.then(step);
    this.syncTail = run.then(ignore, ignore);
    return run;
  }

  private throwIfUnusable(): void {
    if (this.closed) {
      throw new StorageError('CLOSED', `xlog writer of partition ${this.partitionId} is closed`);
    }
    this.throwIfBroken();
  }

  private throwIfBroken(): void {
    this.failure.throwIfBroken();
  }
}

/** Creates a generation's file and writes its FILE_HEADER (not yet synced). */
function openXlogFileWithHeader(
  options: XlogWriterOptions,
  generation: Generation,
  lastLsn: Lsn,
): FileHandle {
  const path = xlogFilePath(options.root, options.partitionId, generation);
  const handle = options.fileSystem.open(path, 'create');
  try {
    // An existing generation's file belongs to a log the caller did not scan.
    assert(handle.sizeBytes() === 0, `${path} already has data`);
    handle.write(fileHeaderRecord(options, generation, lastLsn), 0);
  } catch (error) {
    handle.close();
    throw error;
  }
  return handle;
}

function fileHeaderRecord(
  options: XlogWriterOptions,
  generation: Generation,
  lastLsn: Lsn,
): Uint8Array {
  return encodeXlogFileHeaderRecord({
    formatVersion: XLOG_FORMAT_VERSION, partitionId: options.partitionId, generation,
    blockSizeBytes: options.blockSizeBytes,
  }, lastLsn);
}

function ignore(): void {}
