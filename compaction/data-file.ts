// DataFiles: one partition's block slots, striped over its data files. Owns the slot layout, the
// stored form of a block (raw or snappy) and the sparse tail of compressed slots; not which slot
// a block goes to (free-slots.ts) or where a block is (block-map.ts).
//
// Layout: slot s of blockSizeBytes is in file s % splitCount, `<dir>/<pId>_part_<n>.dat`, at
// byte floor(s / splitCount) × blockSizeBytes. <dir> is `<dbFilePathList[n % length]>/<pId>`
// when a path list is given, else the partition's data directory `<dataRoot>/<pId>`. The split
// count is fixed for the life of the database: a file of a higher index found at open means it
// changed, and the slots would be read from the wrong place (CONFIG_INVALID).
//
// Stored form (its codec, size and CRC-32C go into the cplog entry, which is what a read trusts):
//   raw     the whole image, blockSizeBytes
//   snappy  the snappy-compressed image, chosen only when it saves at least
//           COMPRESSION_SAVINGS_PERCENT_MIN percent and one file-system block. Only the used
//           bytes, rounded up to FILE_SYSTEM_BLOCK_SIZE_BYTES and zero-padded, are written; the
//           rest of the slot is punched (PUNCH_HOLE | KEEP_SIZE) where the file system can, else
//           left as it was: a read takes only the stored bytes, so stale bytes past them are
//           harmless. A file always covers its last slot whole, so offsets never move.
//
// Nothing is durable until datasync(). A failed write or datasync breaks the files for good (a
// failed fsync may have dropped the pages it reported on): later writes and syncs throw IO.

import { join } from 'node:path';
import { compressSync, uncompressSync } from 'snappy';
import { assert } from '../lib/base/assert.ts';
import { FailureLatch } from '../lib/io/failure-latch.ts';
import { StorageError } from '../lib/base/errors.ts';
import type { BlockId, PartitionId } from '../lib/base/ids.ts';
import {
  DATA_FILE_SPLIT_COUNT_MAX, DATA_SLOT_COUNT_MAX,
  FILE_SYSTEM_BLOCK_SIZE_BYTES, STORE_BLOCK_SIZES_BYTES,
} from '../lib/base/limits.ts';
import { crc32c } from '../lib/encoding/crc32c.ts';
import { systemClock, type Clock } from '../lib/io/clock.ts';
import { makeDirectoryDurable, type FileHandle, type FileSystem } from '../lib/io/file-system.ts';
import { BlockCodec } from './cplog-format.ts';
import {
  checkDataFileSplitCount, compressionSaves, dataFileDirectories, dataFileName,
  roundUpToFileSystemBlock, type DataFileLayout,
} from './data-file-layout.ts';

export {
  compressionSaves, dataFileDirectories, dataFileName, type DataFileLayout,
} from './data-file-layout.ts';

/** snappy keeps its output in native memory, freed only by a GC, unless asked to copy it. */
const SNAPPY_COMPRESS_OPTIONS = { copyOutputData: true } as const;
const SNAPPY_UNCOMPRESS_OPTIONS = { asBuffer: true, copyOutputData: true } as const;

export interface DataFilesOptions extends DataFileLayout {
  fileSystem: FileSystem;
  blockSizeBytes: number;
  /** Times compression and syncs for the counters; the system clock if absent. */
  clock?: Clock;
}

/** Running totals since open, for gs_stat and benchmarks. */
export interface DataFileCounters {
  /** writeSlot calls, and the bytes they handed to the files (compressed slots: padded size). */
  writeCount: number;
  writtenBytes: number;
  /** Image bytes given to writeSlot: writtenBytes / imageBytes is the space compression kept. */
  imageBytes: number;
  /** Slots stored snappy-compressed; the rest of writeCount went raw. */
  compressedCount: number;
  compressTimeMs: number;
  readCount: number;
  readBytes: number;
  uncompressTimeMs: number;
  /** Punches that released space, and the bytes they covered. */
  punchCount: number;
  punchedBytes: number;
  /** datasync() calls and the time they took. */
  flushCount: number;
  flushTimeMs: number;
}

/** How writeSlot stored an image: what the block's cplog entry records. */
export interface StoredSlot {
  storedSizeBytes: number;
  codec: BlockCodec;
  /** CRC-32C of the stored bytes. */
  checksum: number;
}

/** What readSlot needs of a block map entry. */
export interface DataSlotEntry extends StoredSlot {
  /** Named in errors. */
  blockId: BlockId;
}



interface DataFile {
  handle: FileHandle;
  /** Tracked, so a write needs no fstat to know whether it extends the file. */
  sizeBytes: number;
  /** undefined until the first punch answers. */
  punchSupported: boolean | undefined;
}

export class DataFiles {
  /**
   * Opens (creating if missing) the partition's data files, with their directories durable. Throws
   * CONFIG_INVALID if a file beyond splitCount exists, IO if a file cannot be opened.
   */
  static async open(options: DataFilesOptions): Promise<DataFiles> {
    assert(STORE_BLOCK_SIZES_BYTES.includes(options.blockSizeBytes as never));
    assert(Number.isInteger(options.splitCount) && options.splitCount >= 1);
    assert(options.splitCount <= DATA_FILE_SPLIT_COUNT_MAX);
    // The checkpoint's writes go through it: up before the first checkpoint needs it.
    options.fileSystem.prepareAsyncWrites?.();
    const directories = dataFileDirectories(options);
    for (const directory of new Set(directories)) {
      await makeDirectoryDurable(options.fileSystem, directory);
      checkDataFileSplitCount(options.fileSystem, options, directory);
    }
    const files: DataFile[] = [];
    const createdIn = new Set<string>();
    try {
      for (const [n, directory] of directories.entries()) {
        const path = join(directory, dataFileName(options.partitionId, n));
        if (!options.fileSystem.exists(path)) createdIn.add(directory);
        const handle = options.fileSystem.open(path, 'create');
        files.push({ handle, sizeBytes: 0, punchSupported: undefined });
        files[n]!.sizeBytes = handle.sizeBytes();
      }
      // A new file is not durable until its directory entry is.
      for (const directory of createdIn) await options.fileSystem.syncDirectory(directory);
    } catch (error) {
      for (const file of files) file.handle.close();
      throw error;
    }
    return new DataFiles(options, files);
  }

  readonly partitionId: PartitionId;
  readonly blockSizeBytes: number;
  readonly splitCount: number;
  readonly paths: readonly string[];
  private readonly files: DataFile[];
  private readonly clock: Clock;
  /** One slot: a compressed image padded to file-system blocks, or a compressed slot read. */
  private readonly scratch: Uint8Array;
  /** The same, for writeSlotAsync (free again once it has called writeAsync). */
  private readonly asyncScratch: Uint8Array;
  private readonly countersCurrent: DataFileCounters = {
    writeCount: 0, writtenBytes: 0, imageBytes: 0, compressedCount: 0, compressTimeMs: 0,
    readCount: 0, readBytes: 0, uncompressTimeMs: 0, punchCount: 0, punchedBytes: 0,
    flushCount: 0, flushTimeMs: 0,
  };
  private readonly failure: FailureLatch;
  private closed = false;

  private constructor(options: DataFilesOptions, files: DataFile[]) {
    this.partitionId = options.partitionId;
    this.failure = new FailureLatch({
      subject: `data files of partition ${options.partitionId}`,
      advice: 'recover the partition to go on',
    });
    this.blockSizeBytes = options.blockSizeBytes;
    this.splitCount = options.splitCount;
    this.files = files;
    this.paths = files.map((file) => file.handle.path);
    this.clock = options.clock ?? systemClock;
    this.scratch = new Uint8Array(options.blockSizeBytes);
    this.asyncScratch = new Uint8Array(options.blockSizeBytes);
  }

  get counters(): Readonly<DataFileCounters> {
    return this.countersCurrent;
  }

  /** Whether holes could be punched: undefined until tried, false once any file refused. */
  get punchSupported(): boolean | undefined {
    if (this.files.some((file) => file.punchSupported === false)) return false;
    return this.files.some((file) => file.punchSupported === true) ? true : undefined;
  }

  /** Which file holds `slot`, and where. */
  slotLocation(slot: number): { fileIndex: number; path: string; offsetBytes: number } {
    assert(Number.isSafeInteger(slot));
    assert(slot >= 0 && slot < DATA_SLOT_COUNT_MAX);
    const fileIndex = slot % this.splitCount;
    const offsetBytes = Math.floor(slot / this.splitCount) * this.blockSizeBytes;
    return { fileIndex, path: this.paths[fileIndex]!, offsetBytes };
  }

  /**
   * Writes a block image (exactly blockSizeBytes) into `slot`, snappy-compressed if `compress`
   * (storeCompressionMode COMPRESSION) and worth it. Not durable until datasync().
   */
  writeSlot(slot: number, image: Uint8Array, options: { compress: boolean }): StoredSlot {
    this.throwIfUnusable();
    const plan = this.planWrite(slot, image, { ...options, scratch: this.scratch });
    this.failure.guard(() => plan.file.handle.write(plan.bytes, plan.offsetBytes));
    this.afterWrite(plan.file, plan);
    return this.countWrite(plan, image);
  }

  /**
   * writeSlot off the event loop (the checkpoint's writes, FileHandle.writeAsync, which takes the
   * bytes at the call): several may be in flight, each of a different slot. Synchronous writes of
   * other slots (swap-outs) may run meanwhile.
   */
  async writeSlotAsync(
    slot: number, image: Uint8Array, options: { compress: boolean },
  ): Promise<StoredSlot> {
    this.throwIfUnusable();
    // Its own scratch: a swap-out or a swap read meanwhile uses this.scratch. Free again once
    // writeAsync is called, which takes the bytes then.
    const plan = this.planWrite(slot, image, { ...options, scratch: this.asyncScratch });
    const { file, offsetBytes, bytes } = plan;
    // The file covers the slot from here on, so a swap-out of a lower slot meanwhile never
    // truncates it below the bytes this write lands (it only ever extends past sizeBytes). A
    // whole-slot write extends the file itself (pwrite never shrinks one): no ftruncate, which
    // would wait on the inode lock of the writes in flight, a kernel-throttled one included.
    const slotEndBytes = offsetBytes + this.blockSizeBytes;
    const punchEndBytes = Math.min(slotEndBytes, file.sizeBytes);
    if (file.sizeBytes < slotEndBytes) {
      if (bytes.length < this.blockSizeBytes) {
        this.failure.guard(() => file.handle.truncate(slotEndBytes));
      }
      file.sizeBytes = slotEndBytes;
    }
    // Counted when issued, before the first await (a caller reads the counters there).
    const stored = this.countWrite(plan, image);
    await this.failure.guardAsync(() => file.handle.writeAsync(bytes, offsetBytes));
    const usedEndBytes = offsetBytes + bytes.length;
    if (usedEndBytes < punchEndBytes) {
      this.punch(file, { offsetBytes: usedEndBytes, endBytes: punchEndBytes });
    }
    return stored;
  }

  /** What writeSlot writes where: the stored form (compressed ones padded in `scratch`). */
  private planWrite(
    slot: number, image: Uint8Array, options: { compress: boolean; scratch: Uint8Array },
  ): WritePlan {
    assert(image.length === this.blockSizeBytes);
    const { fileIndex, offsetBytes } = this.slotLocation(slot);
    const file = this.files[fileIndex]!;
    const compressed = options.compress ? this.compress(image) : undefined;
    const stored = compressed ?? image;
    const checksum = crc32c(stored);
    if (compressed === undefined) {
      return { file, offsetBytes, bytes: image, writeBytes: image.length, stored, checksum,
        codec: BlockCodec.RAW };
    }
    const writeBytes = roundUpToFileSystemBlock(compressed.length);
    options.scratch.set(compressed);
    options.scratch.fill(0, compressed.length, writeBytes);
    const bytes = options.scratch.subarray(0, writeBytes);
    return { file, offsetBytes, bytes, writeBytes, stored, checksum, codec: BlockCodec.SNAPPY };
  }

  private countWrite(plan: WritePlan, image: Uint8Array): StoredSlot {
    const counters = this.countersCurrent;
    counters.writeCount += 1;
    counters.writtenBytes += plan.writeBytes;
    counters.imageBytes += image.length;
    if (plan.codec === BlockCodec.SNAPPY) counters.compressedCount += 1;
    return { storedSizeBytes: plan.stored.length, codec: plan.codec, checksum: plan.checksum };
  }

  /**
   * The full image of the block stored in `slot` as `entry` says, in `into` (blockSizeBytes) if
   * given, else in a new array. A checksum mismatch, a short slot or a bad snappy stream is
   * CORRUPTION naming partition, block, slot and file.
   */
  readSlot(
    slot: number, entry: DataSlotEntry, into?: Uint8Array,
    options: { rawVerifiedByImage?: boolean } = {},
  ): Uint8Array {
    if (this.closed) throw this.closedError();
    assert(entry.storedSizeBytes > 0 && entry.storedSizeBytes <= this.blockSizeBytes);
    if (entry.codec === BlockCodec.RAW) assert(entry.storedSizeBytes === this.blockSizeBytes);
    if (into !== undefined) assert(into.length === this.blockSizeBytes);
    const { fileIndex, offsetBytes } = this.slotLocation(slot);
    const raw = entry.codec === BlockCodec.RAW;
    const target = raw ? into ?? new Uint8Array(this.blockSizeBytes) : this.scratch;
    const stored = target.subarray(0, entry.storedSizeBytes);
    const readBytes = this.files[fileIndex]!.handle.read(stored, offsetBytes);
    this.countersCurrent.readCount += 1;
    this.countersCurrent.readBytes += readBytes;
    if (readBytes !== stored.length) {
      const what = `${readBytes} of ${stored.length} stored bytes in the file`;
      throw this.corruption(slot, entry, what);
    }
    // A raw slot is the image itself, whose own checksum covers its used bytes: a caller that
    // decodes (verifies) the image at once may skip this second pass over the whole slot.
    const verified = raw && options.rawVerifiedByImage === true;
    if (!verified && crc32c(stored) !== entry.checksum) {
      throw this.corruption(slot, entry, 'checksum mismatch');
    }
    return raw ? target : this.uncompress(slot, entry, stored, into);
  }

  /**
   * Punches the whole slot (releaseUnusedFileBlocks: the slot is free). False where holes cannot
   * be punched; the slot's bytes then stay. Not durable until datasync().
   */
  releaseSlot(slot: number): boolean {
    this.throwIfUnusable();
    const { fileIndex, offsetBytes } = this.slotLocation(slot);
    const file = this.files[fileIndex]!;
    const endBytes = Math.min(offsetBytes + this.blockSizeBytes, file.sizeBytes);
    // Past the end of the file there is nothing to release.
    if (endBytes <= offsetBytes) return file.punchSupported !== false;
    return this.punch(file, { offsetBytes, endBytes });
  }

  /** Makes every write and punch so far durable, in every file. */
  async datasync(): Promise<void> {
    this.throwIfUnusable();
    const startMs = this.clock.monotonicMs();
    const results = await Promise.allSettled(this.files.map((file) => file.handle.datasync()));
    this.countersCurrent.flushCount += 1;
    this.countersCurrent.flushTimeMs += this.clock.monotonicMs() - startMs;
    const failed = results.find((result) => result.status === 'rejected');
    if (failed !== undefined) {
      this.failure.trip(failed.reason);
      throw failed.reason;
    }
  }

  /** Total size of the files: slots times block size, holes included. */
  sizeBytes(): number {
    return this.files.reduce((sum, file) => sum + file.sizeBytes, 0);
  }

  /** Bytes the files take on disk: less than sizeBytes() where slots are sparse. */
  allocatedBytes(): number {
    if (this.closed) throw this.closedError();
    return this.files.reduce((sum, file) => sum + file.handle.allocatedBytes(), 0);
  }

  /** Slots the files cover: one past the highest slot any of them reaches. */
  slotCountOnDisk(): number {
    let slotCount = 0;
    for (const [n, file] of this.files.entries()) {
      const fileSlotCount = Math.ceil(file.sizeBytes / this.blockSizeBytes);
      if (fileSlotCount === 0) continue;
      slotCount = Math.max(slotCount, (fileSlotCount - 1) * this.splitCount + n + 1);
    }
    return slotCount;
  }

  /** Closes every file; does not sync. Later calls throw CLOSED (close itself is idempotent). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const file of this.files) file.handle.close();
  }

  /** The snappy image if worth storing, else undefined. */
  private compress(image: Uint8Array): Uint8Array | undefined {
    const startMs = this.clock.monotonicMs();
    const compressed = compressSync(image, SNAPPY_COMPRESS_OPTIONS);
    this.countersCurrent.compressTimeMs += this.clock.monotonicMs() - startMs;
    return compressionSaves(compressed.length, this.blockSizeBytes) ? compressed : undefined;
  }

  private uncompress(
    slot: number,
    entry: DataSlotEntry,
    stored: Uint8Array,
    into: Uint8Array | undefined,
  ): Uint8Array {
    const startMs = this.clock.monotonicMs();
    let image: Uint8Array;
    try {
      image = uncompressSync(stored, SNAPPY_UNCOMPRESS_OPTIONS) as Uint8Array;
    } catch (cause) {
      throw this.corruption(slot, entry, 'bad snappy stream', cause);
    }
    this.countersCurrent.uncompressTimeMs += this.clock.monotonicMs() - startMs;
    if (image.length !== this.blockSizeBytes) {
      throw this.corruption(slot, entry, `uncompressed to ${image.length} bytes`);
    }
    if (into === undefined) return new Uint8Array(image.buffer, image.byteOffset, image.length);
    into.set(image);
    return into;
  }

  /**
   * After `writeBytes` of a slot went in: punch the rest of the slot where the file already had
   * bytes, and extend the file over the whole slot (a hole) if it ends inside it.
   */
  private afterWrite(file: DataFile, { offsetBytes, writeBytes }: WrittenRange): void {
    const slotEndBytes = offsetBytes + this.blockSizeBytes;
    const punchEndBytes = Math.min(slotEndBytes, file.sizeBytes);
    file.sizeBytes = Math.max(file.sizeBytes, offsetBytes + writeBytes);
    if (offsetBytes + writeBytes < punchEndBytes) {
      this.punch(file, { offsetBytes: offsetBytes + writeBytes, endBytes: punchEndBytes });
    }
    if (file.sizeBytes < slotEndBytes) {
      this.failure.guard(() => file.handle.truncate(slotEndBytes));
      file.sizeBytes = slotEndBytes;
    }
  }

  private punch(file: DataFile, range: { offsetBytes: number; endBytes: number }): boolean {
    if (file.punchSupported === false) return false;
    const lengthBytes = range.endBytes - range.offsetBytes;
    assert(range.offsetBytes % FILE_SYSTEM_BLOCK_SIZE_BYTES === 0);
    assert(lengthBytes > 0);
    file.punchSupported = this.failure.guard(() =>
      file.handle.punchHole(range.offsetBytes, lengthBytes));
    if (file.punchSupported) {
      this.countersCurrent.punchCount += 1;
      this.countersCurrent.punchedBytes += lengthBytes;
    }
    return file.punchSupported;
  }

  private corruption(
    slot: number,
    entry: DataSlotEntry,
    what: string,
    cause?: unknown,
  ): StorageError {
    const { path, offsetBytes } = this.slotLocation(slot);
    return new StorageError('CORRUPTION', `partition ${this.partitionId} block ${entry.blockId} ` +
      `slot ${slot} (${path} at byte ${offsetBytes}, codec ${entry.codec}, ` +
      `${entry.storedSizeBytes} bytes): ${what}`, cause === undefined ? undefined : { cause });
  }

  private throwIfUnusable(): void {
    if (this.closed) throw this.closedError();
    this.failure.throwIfBroken();
  }

  private closedError(): StorageError {
    return new StorageError('CLOSED', `data files of partition ${this.partitionId} are closed`);
  }
}

interface WrittenRange {
  offsetBytes: number;
  writeBytes: number;
}

/** One slot write: the bytes handed to the file and what the cplog entry records. */
interface WritePlan extends WrittenRange {
  file: DataFile;
  bytes: Uint8Array;
  stored: Uint8Array;
  checksum: number;
  codec: BlockCodec;
}


