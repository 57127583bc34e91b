// CplogWriter: writes one checkpoint generation's cplog. Entries are encoded into one bounded
// buffer and handed to the OS a buffer at a time; nothing is durable, and the file counts as
// incomplete to every reader, until finish() has written END, fdatasynced the file and synced its
// directory (that sync is started at create, so it runs beside the block writes, not after END).
// A crash at any point before that leaves a cplog readers ignore.
//
// The caller makes the data slots the entries name durable (DataFiles.datasync) before finish():
// a complete cplog must never point at a slot whose image could still be lost.
//
// A failed write or fdatasync breaks the writer for good (after a failed fsync the kernel may
// have dropped the dirty pages and reported it once): every later call throws StorageError('IO')
// and the generation stays incomplete. The checkpoint is retried in a new generation.

import { assert } from '../lib/base/assert.ts';
import { FailureLatch } from '../lib/io/failure-latch.ts';
import { StorageError } from '../lib/base/errors.ts';
import type { BlockId, Generation, Lsn, PartitionId } from '../lib/base/ids.ts';
import { CPLOG_ENTRY_COUNT_MAX, CPLOG_WRITE_BUFFER_BYTES } from '../lib/base/limits.ts';
import { crc32c } from '../lib/encoding/crc32c.ts';
import { makeDirectoryDurable, type FileHandle, type FileSystem } from '../lib/io/file-system.ts';
import { cplogFilePath, dataPartitionDirectory } from './cplog-files.ts';
import {
  CPLOG_END_RECORD_BYTES, CPLOG_FORMAT_VERSION, CPLOG_RECORD_BYTES_MAX, encodeCplogEnd,
  encodeCplogEntry, encodeCplogHeader, type CplogBlockEntry, type CplogEntry,
} from './cplog-format.ts';

export interface CplogWriterOptions {
  fileSystem: FileSystem;
  /** The data directory: the file is `<dataRoot>/<pId>/<pId>_<generation>.cplog`. */
  dataRoot: string;
  partitionId: PartitionId;
  generation: Generation;
  blockSizeBytes: number;
  /** Every xlog record with lsn ≤ this is reflected in the blocks this checkpoint writes. */
  checkpointLsn: Lsn;
  /** Defaults to CPLOG_WRITE_BUFFER_BYTES; tests pass tiny sizes. */
  writeBufferBytes?: number;
}

type CplogWriterState = 'open' | 'finished' | 'abandoned';

export class CplogWriter {
  /**
   * Creates the generation's file (which must not exist or be empty) in a durable partition
   * directory and buffers its HEADER.
   */
  static async create(options: CplogWriterOptions): Promise<CplogWriter> {
    const { fileSystem, dataRoot, partitionId, generation } = options;
    await makeDirectoryDurable(fileSystem, dataPartitionDirectory(dataRoot, partitionId));
    const path = cplogFilePath(dataRoot, partitionId, generation);
    const handle = fileSystem.open(path, 'create');
    try {
      // A leftover file of this generation belongs to a checkpoint the caller did not clear away.
      assert(handle.sizeBytes() === 0, `${path} already has data`);
    } catch (error) {
      handle.close();
      throw error;
    }
    return new CplogWriter(options, handle);
  }

  readonly path: string;
  readonly partitionId: PartitionId;
  readonly generation: Generation;
  private readonly fileSystem: FileSystem;
  private readonly directory: string;
  private readonly blockSizeBytes: number;
  private readonly handle: FileHandle;
  private readonly buffer: Uint8Array;
  private readonly view: DataView;
  private bufferUsedBytes = 0;
  /** File bytes handed to the OS; the buffer's go after them. */
  private writtenBytes = 0;
  /** CRC-32C of the bytes handed to the OS: END's fileCrc32c once the buffer is folded in. */
  private writtenCrc32c = 0;
  private entryCountCurrent = 0;
  private state: CplogWriterState = 'open';
  private durableCurrent = false;
  private readonly failure: FailureLatch;
  /** The directory sync that makes the file's entry durable, started at create. */
  private readonly entrySynced: Promise<void>;

  private constructor(options: CplogWriterOptions, handle: FileHandle) {
    const writeBufferBytes = options.writeBufferBytes ?? CPLOG_WRITE_BUFFER_BYTES;
    assert(writeBufferBytes >= CPLOG_RECORD_BYTES_MAX);
    assert(writeBufferBytes <= CPLOG_WRITE_BUFFER_BYTES);
    this.path = handle.path;
    this.failure = new FailureLatch({
      subject: `cplog writer of ${handle.path}`, advice: 'checkpoint again in a new generation',
    });
    this.partitionId = options.partitionId;
    this.generation = options.generation;
    this.fileSystem = options.fileSystem;
    this.directory = dataPartitionDirectory(options.dataRoot, options.partitionId);
    this.blockSizeBytes = options.blockSizeBytes;
    this.handle = handle;
    this.buffer = new Uint8Array(writeBufferBytes);
    this.view = new DataView(this.buffer.buffer);
    // The new file's directory entry, synced now, beside the checkpoint's block writes, rather
    // than after END: a directory's fsync covers the entries made before it, and END's
    // fdatasync covers the file's size. finish() waits for both.
    this.entrySynced = this.failure.guardAsync(() => this.fileSystem.syncDirectory(this.directory));
    // Awaited by finish(); an abandoned writer leaves it, and its failure, to nobody.
    void this.entrySynced.catch(() => undefined);
    this.bufferUsedBytes = encodeCplogHeader(this.view, 0, {
      formatVersion: CPLOG_FORMAT_VERSION, partitionId: options.partitionId,
      generation: options.generation, blockSizeBytes: options.blockSizeBytes,
      checkpointLsn: options.checkpointLsn,
    });
  }

  /** BLOCK and FREE entries appended so far. */
  get entryCount(): number {
    return this.entryCountCurrent;
  }

  /**
   * END is synced, and the directory entry too: the generation exists for recovery. True even if
   * finish() then rejected (closing the file failed): the checkpoint is done all the same.
   */
  get durable(): boolean {
    return this.durableCurrent;
  }

  /**
   * Resolves once the file's directory entry is durable (its directory synced since create);
   * rejects, like the writer's later calls, if that sync failed.
   */
  get entryDurable(): Promise<void> {
    return this.entrySynced;
  }

  /** Size of the file, buffered bytes included. */
  get sizeBytes(): number {
    return this.writtenBytes + this.bufferUsedBytes;
  }

  /** The block is in `entry.slot`, stored as DataFiles.writeSlot reported. */
  appendBlock(entry: Omit<CplogBlockEntry, 'type'>): void {
    this.append({ type: 'BLOCK', ...entry });
  }

  /** The block was removed in this generation. */
  appendFree(blockId: BlockId): void {
    this.append({ type: 'FREE', blockId });
  }

  append(entry: CplogEntry): void {
    this.throwIfUnusable();
    if (this.entryCountCurrent >= CPLOG_ENTRY_COUNT_MAX) {
      throw new StorageError('LIMIT_EXCEEDED', `${this.path}: more than ${CPLOG_ENTRY_COUNT_MAX} ` +
        'entries in one cplog');
    }
    if (this.bufferUsedBytes + CPLOG_RECORD_BYTES_MAX > this.buffer.length) this.flushBuffer();
    this.bufferUsedBytes = encodeCplogEntry(this.view, this.bufferUsedBytes, entry,
      this.blockSizeBytes);
    this.entryCountCurrent += 1;
  }

  /**
   * Writes END, fdatasyncs the file and syncs its directory, then closes it. When this resolves,
   * the generation is complete and durable; if it rejects, the generation is incomplete unless
   * `durable` says otherwise (only closing the file failed).
   */
  async finish(): Promise<void> {
    this.throwIfUnusable();
    if (this.bufferUsedBytes + CPLOG_END_RECORD_BYTES > this.buffer.length) this.flushBuffer();
    const beforeEnd = this.buffer.subarray(0, this.bufferUsedBytes);
    const fileCrc32c = crc32c(beforeEnd, this.writtenCrc32c);
    this.bufferUsedBytes = encodeCplogEnd(this.view, this.bufferUsedBytes, {
      entryCount: this.entryCountCurrent, fileCrc32c,
    });
    this.flushBuffer();
    this.state = 'finished';
    try {
      await this.failure.guardAsync(() => this.handle.datasync());
      // And the directory's sync since create: a new cplog is not durable until its entry is.
      await this.entrySynced;
      this.durableCurrent = true;
    } finally {
      this.handle.close();
    }
  }

  /** Closes the file without END: the generation stays incomplete. Safe to call at any time. */
  abandon(): void {
    if (this.state !== 'open') return;
    this.state = 'abandoned';
    this.handle.close();
  }

  private flushBuffer(): void {
    if (this.bufferUsedBytes === 0) return;
    const bytes = this.buffer.subarray(0, this.bufferUsedBytes);
    this.failure.guard(() => this.handle.write(bytes, this.writtenBytes));
    this.writtenCrc32c = crc32c(bytes, this.writtenCrc32c);
    this.writtenBytes += this.bufferUsedBytes;
    this.bufferUsedBytes = 0;
  }

  private throwIfUnusable(): void {
    this.failure.throwIfBroken();
    if (this.state !== 'open') {
      throw new StorageError('CLOSED', `cplog writer of ${this.path} is ${this.state}`);
    }
  }
}
