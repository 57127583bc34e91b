// The checkpoint of one partition: shadow paging with split block maps (DESIGN.md §3.4).
//
// Order, and why:
//   1. take the set of blocks changed and freed since the last checkpoint, at a point where every
//      xlog record up to checkpointLsn is applied and no later one is (the caller's job);
//   2. write each changed block's image to a FREE slot — never to a slot the last complete
//      checkpoint references, so a crash anywhere before step 4 leaves that checkpoint intact;
//      the slot the block had before is retired, not freed; with a fileFlushSizeBytes
//      (checkpointFileFlushSize), the data files are also fdatasynced each time that many bytes
//      were written, which only makes those slots durable sooner (no complete cplog names them
//      yet) and keeps each sync short, so the commit journal's fdatasync never queues behind one
//      long flush of the whole partition;
//   3. log, besides the changed and freed blocks, the cold blocks whose id falls in this
//      generation's share (id % partialCheckpointInterval == generation % partialCheckpointInterval),
//      so the last partialCheckpointInterval complete cplogs together describe every live block;
//   4. fdatasync the data files, and wait for the caller's files of this generation (its catalog,
//      written since the cplog was created, beside steps 2-3) and for the cplog's directory entry
//      (synced since create); then write the cplog's END record and fdatasync it: only now does
//      the generation exist for recovery;
//   5. only now free the retired slots, and delete cplogs that fell out of the window (and run
//      the caller's own cleanup: old xlog files, old catalog snapshots).
// A failure in step 5 (or in closing the cplog after its END is synced) does not undo step 4: the
// checkpoint is done. The cleanup stays pending, the error goes into the report
// (cleanupError), and retryCleanup() or the next checkpoint runs it again; every step of it is
// idempotent and deletes by listing, so a later run also takes what an earlier one left.
// The first checkpoint after open, and the first after a failed one, logs every live block: an
// incomplete cplog (a crash or an error interrupted it) never got its share of the cold blocks, so
// the window of the last partialCheckpointInterval generations might otherwise miss some.
// So that commits keep flowing while a checkpoint runs: each block is encoded on the event loop,
// with a turn of the loop before each, and written by the write thread (lib/io/write-thread.ts, a
// worker at a lower priority than the engine thread, not the libuv pool the xlog's syncs need);
// up to CHECKPOINT_WRITE_BYTES_IN_FLIGHT_MAX of images are in flight, so encoding and writing
// overlap. A block enters the block map and the cplog only once its write has landed, and every
// write has landed before any data-file sync that step 2 or step 4 makes (writeBlocks waits for
// them), so the order above holds as drawn. The node writes one partition's blocks at a time over
// all its engine threads, and syncs one partition at a time (steps 4-5), so the next partition's
// steps 2-3 run while one syncs (lib/engine/checkpoint-gate.ts, partition-group.ts: the
// partitions are independent); checkpointFileFlushSize (step 2) can cut a partition's data-file
// sync into short ones.
//
// Swap images (the BlockBacking of lib/block/block-backing.ts): a block evicted from the buffer
// pool after changing since the last checkpoint set is written to a free slot, which no cplog
// names; a crash simply leaves that slot free. The next checkpoint whose set has the block
// unchanged since adopts the image: the slot becomes the block's checkpoint slot, logged like a
// written one, with no second write. A swap image made stale by a change is freed at once.

import { setImmediate as nextTurn } from 'node:timers/promises';
import { assert } from '../lib/base/assert.ts';
import type { BlockId, Generation, Lsn, PartitionId } from '../lib/base/ids.ts';
import { StorageError } from '../lib/base/errors.ts';
import { MiB } from '../lib/base/units.ts';
import { systemClock, type Clock } from '../lib/io/clock.ts';
import type { FileSystem } from '../lib/io/file-system.ts';
import type { BlockBacking } from '../lib/block/block-backing.ts';
import {
  loadBlockMap, type BlockMap, type BlockMapEntry, type BlockMapLoad,
} from './block-map.ts';
import { cplogFilePath, listCplogGenerations } from './cplog-files.ts';
import { CplogWriter } from './cplog-writer.ts';
import { DataFiles } from './data-file.ts';
import { FreeSlots } from './free-slots.ts';

/** Bytes of block images a checkpoint has encoded and not yet written: its writes in flight. */
export const CHECKPOINT_WRITE_BYTES_IN_FLIGHT_MAX = 1 * MiB;

/** Writes in flight at a time for blocks of blockSizeBytes: at least one. */
export function checkpointWriteWindowCount(blockSizeBytes: number): number {
  return Math.max(1, Math.floor(CHECKPOINT_WRITE_BYTES_IN_FLIGHT_MAX / blockSizeBytes));
}

/**
 * Image buffers of the writes in flight, kept for the next block and the next partition's
 * checkpoint (a fresh set per partition would be garbage of every partition's size in seconds):
 * at most one window's worth of each block size.
 */
const imageBuffers = new Map<number, Uint8Array[]>();

function takeImageBuffer(blockSizeBytes: number): Uint8Array {
  return imageBuffers.get(blockSizeBytes)?.pop() ?? new Uint8Array(blockSizeBytes);
}

function giveImageBuffer(buffer: Uint8Array): void {
  const free = imageBuffers.get(buffer.length) ?? [];
  imageBuffers.set(buffer.length, free);
  if (free.length < checkpointWriteWindowCount(buffer.length)) free.push(buffer);
}

/** What a partition's block layer offers a checkpoint. */
export interface CheckpointSource {
  /**
   * Snapshots and resets the changed and freed block ids (copy-on-write begins for the changed);
   * `swapped`: the changed ones whose current image is their swap image (adopt, do not encode).
   */
  takeCheckpointSet(): { dirty: BlockId[]; freed: BlockId[]; swapped?: BlockId[] };
  /**
   * The image of a live block as of the snapshot, exactly blockSizeBytes long; in `into` when the
   * source can (the checkpoint writes it at once and reuses the buffer).
   */
  encodeBlock(blockId: BlockId, into?: Uint8Array): Uint8Array;
  blockKind(blockId: BlockId): number;
  /** The set is durable (its cplog END is synced): ends copy-on-write, and freed ids may be reused. */
  finishCheckpointSet(): void;
  /** The checkpoint failed: the set's dirty and freed ids go back into the next set. */
  abandonCheckpointSet(): void;
}

export interface PartitionCheckpointerOptions {
  fileSystem: FileSystem;
  dataRoot: string;
  partitionId: PartitionId;
  blockSizeBytes: number;
  partialCheckpointInterval: number;
  compress: boolean;
  splitCount: number;
  filePathList?: string[];
  clock?: Clock;
  /** checkpointFileFlushSize: step 2 syncs the data files every this many bytes; 0 or absent: off. */
  fileFlushSizeBytes?: number;
}

/** Running totals since open, for the node status report (gs_stat) and benchmarks. */
export interface CheckpointCounters {
  /** Checkpoints completed, and those that failed. */
  completedCount: number;
  failedCount: number;
  /** Block images checkpoints wrote (adopted swap images not included), their bytes on disk. */
  writeCount: number;
  writeBytes: number;
  /** Time in writing blocks (encoding and compression included), and in compression alone. */
  writeTimeMs: number;
  writeCompressTimeMs: number;
  /** Swap images adopted instead of written. */
  adoptedCount: number;
  /** Swap writes and reads through this partition's files: counts, bytes, codec time. */
  swapWriteCount: number;
  swapWriteCompressTimeMs: number;
  swapReadCount: number;
  swapReadUncompressTimeMs: number;
  /** Wall-clock start and end of the last completed checkpoint; 0 before the first. */
  lastStartMs: number;
  lastEndMs: number;
}

export interface CheckpointReport {
  generation: Generation;
  checkpointLsn: Lsn;
  writtenBlockCount: number;
  freedBlockCount: number;
  reloggedBlockCount: number;
  /**
   * Set when the checkpoint is durable but its cleanup (step 5) failed: the cleanup is pending and
   * is retried; the caller logs this.
   */
  cleanupError?: StorageError;
}

/** What a caller of PartitionCheckpointer.checkpoint() adds to its steps. */
export interface CheckpointPhases {
  generation?: Generation;
  /**
   * The caller's files of this generation (its catalog): started once the cplog exists, beside
   * steps 2-4, and awaited before END.
   */
  beforeEnd?: () => Promise<void>;
  /** The caller's part of step 5; may throw StorageError, is retried until it succeeds. */
  cleanUp?: () => void;
  /**
   * Called once, when every block write of step 2 is issued (or the checkpoint failed before):
   * from then on the checkpoint only waits for its writes and syncs, and the caller may start
   * the next partition's.
   */
  writesIssued?: () => void;
  /** Runs step 4 (the syncs and END), in the caller's turn; at once if absent. */
  syncPhase?: <T>(body: () => Promise<T>) => Promise<T>;
}

/** Where a swap image is: like a block map entry, without a generation (no cplog names it). */
type SwapEntry = Omit<BlockMapEntry, 'generation'>;

export class PartitionCheckpointer implements BlockBacking {
  /** Swap images by block (see the top of this file). */
  private readonly swapped = new Map<BlockId, SwapEntry>();
  /**
   * The image a checkpoint is writing, until the write is done and the block map names its slot.
   * Encoding marks the block clean, so the pool may drop it during the write and read it back: from
   * here, as neither the block map (not yet) nor a swap slot (it was clean) holds it.
   */
  private readonly writing = new Map<BlockId, Uint8Array>();
  readonly counters: CheckpointCounters = {
    completedCount: 0, failedCount: 0, writeCount: 0, writeBytes: 0, writeTimeMs: 0,
    writeCompressTimeMs: 0, adoptedCount: 0, swapWriteCount: 0, swapWriteCompressTimeMs: 0,
    swapReadCount: 0, swapReadUncompressTimeMs: 0, lastStartMs: 0, lastEndMs: 0,
  };

  private constructor(
    private readonly options: PartitionCheckpointerOptions,
    readonly dataFiles: DataFiles,
    readonly blockMap: BlockMap,
    private readonly freeSlots: FreeSlots,
    /** The generation the next checkpoint takes: above every cplog file, complete or not. */
    private nextGeneration: number,
    readonly recovered: BlockMapLoad,
  ) {}

  /** Whether the next checkpoint must log every live block (see the top of this file). */
  private fullRelogDue = true;

  /** The last completed checkpoint's step 5, until it succeeds (see the top of this file). */
  private cleanupDue: (() => void) | undefined;

  /** Rebuilds the block map from the last complete cplogs and opens the data files. */
  static async open(options: PartitionCheckpointerOptions): Promise<PartitionCheckpointer> {
    const { fileSystem, dataRoot, partitionId } = options;
    const load = loadBlockMap(fileSystem, {
      dataRoot, partitionId, partialCheckpointInterval: options.partialCheckpointInterval,
    });
    const dataFiles = await DataFiles.open({
      fileSystem, dataRoot, partitionId, blockSizeBytes: options.blockSizeBytes,
      splitCount: options.splitCount, filePathList: options.filePathList, clock: options.clock,
    });
    const freeSlots = new FreeSlots();
    const slotCount = Math.max(dataFiles.slotCountOnDisk(),
      ...[...load.blockMap.values()].map((entry) => entry.slot + 1));
    freeSlots.rebuild(load.blockMap, slotCount);
    const generations = listCplogGenerations(fileSystem, dataRoot, partitionId);
    const nextGeneration = (generations.at(-1) ?? 0) + 1;
    return new PartitionCheckpointer(options, dataFiles, load.blockMap, freeSlots, nextGeneration,
      load);
  }

  /** Recovery: the image of a block of the last complete checkpoint. */
  readCheckpointImage(blockId: BlockId): Uint8Array {
    const entry = this.blockMap.get(blockId);
    assert(entry !== undefined, `block ${blockId} is not in the block map`);
    return this.dataFiles.readSlot(entry.slot, entry);
  }

  /**
   * BlockBacking: a swap read, of the block's swap image if it has one, else its checkpoint's.
   * The caller decodes the image, which verifies its own checksum: a raw slot is not summed twice.
   */
  readImage(blockId: BlockId, into?: Uint8Array): Uint8Array {
    const inFlight = this.swapped.has(blockId) ? undefined : this.writing.get(blockId);
    if (inFlight !== undefined) {
      // A copy: the checkpoint reuses its buffer for the next block.
      const copy = into !== undefined && into.length === inFlight.length ? into
        : new Uint8Array(inFlight.length);
      copy.set(inFlight);
      return copy;
    }
    const entry = this.swapped.get(blockId) ?? this.blockMap.get(blockId);
    assert(entry !== undefined, `block ${blockId} has no image on disk`);
    const files = this.dataFiles.counters;
    const uncompressStartMs = files.uncompressTimeMs;
    const image = this.dataFiles.readSlot(entry.slot, entry, into, { rawVerifiedByImage: true });
    this.counters.swapReadCount++;
    this.counters.swapReadUncompressTimeMs += files.uncompressTimeMs - uncompressStartMs;
    return image;
  }

  /** BlockBacking: a swap write, to the block's swap slot or a free one. */
  swapOut(blockId: BlockId, image: Uint8Array, kind: number): number {
    assert(image.length === this.options.blockSizeBytes);
    const slot = this.swapped.get(blockId)?.slot ?? this.freeSlots.allocate();
    const files = this.dataFiles.counters;
    const before = { bytes: files.writtenBytes, compressMs: files.compressTimeMs };
    try {
      const stored = this.dataFiles.writeSlot(slot, image, { compress: this.options.compress });
      this.swapped.set(blockId, { blockId, slot, ...stored, kind });
    } catch (error) {
      if (!this.swapped.has(blockId)) this.freeSlots.release(slot);
      throw error;
    }
    this.counters.swapWriteCount++;
    this.counters.swapWriteCompressTimeMs += files.compressTimeMs - before.compressMs;
    return files.writtenBytes - before.bytes;
  }

  /** BlockBacking: the swap image is stale or unneeded. */
  dropSwap(blockId: BlockId): void {
    const entry = this.swapped.get(blockId);
    if (entry === undefined) return;
    this.swapped.delete(blockId);
    this.freeSlots.release(entry.slot);
  }

  /** Swap images held now. */
  get swapImageCount(): number {
    return this.swapped.size;
  }

  /** Punches every free slot (gs_startnode --releaseUnusedFileBlocks); returns how many released. */
  releaseUnusedFileBlocks(): number {
    let released = 0;
    for (const slot of this.freeSlots.freeSlots()) {
      if (this.dataFiles.releaseSlot(slot)) released++;
    }
    return released;
  }

  /**
   * The generation number of the next checkpoint, at least `atLeast` (the xlog's next generation:
   * a checkpoint opens a new .xlog/.cplog pair). Reserving it is what checkpoint() expects.
   */
  reserveGeneration(atLeast: number): Generation {
    this.nextGeneration = Math.max(this.nextGeneration, atLeast);
    return this.nextGeneration++ as Generation;
  }

  /**
   * Runs one checkpoint of the partition; see the order at the top of this file. The set is taken
   * synchronously, before the first await, so the caller's checkpointLsn and the blocks agree.
   * `beforeEnd` starts once the cplog file exists, runs beside the block writes and the data
   * files' sync, and is awaited before the END record (the caller's own files of this generation,
   * such as the catalog, must be durable by then).
   */
  async checkpoint(
    source: CheckpointSource,
    checkpointLsn: Lsn,
    options: CheckpointPhases = {},
  ): Promise<CheckpointReport> {
    const generation = options.generation ?? this.reserveGeneration(0);
    assert(generation < this.nextGeneration);
    const clock = this.options.clock ?? systemClock;
    const startMs = clock.nowMs();
    let issued = false;
    const writesIssued = () => {
      if (issued) return;
      issued = true;
      options.writesIssued?.();
    };
    const { dirty, freed, swapped = [] } = source.takeCheckpointSet();
    this.freeSlots.checkpointStarted();
    // At once, before any await: a later swap write of these blocks must take a new slot.
    const adopted = this.adoptSwapImages(swapped, generation);
    let cplog: CplogWriter | undefined;
    let written = new Set<BlockId>();
    let relogged = 0;
    let closeError: StorageError | undefined;
    let callerFiles: Promise<void> | undefined;
    try {
      cplog = await CplogWriter.create({
        fileSystem: this.options.fileSystem, dataRoot: this.options.dataRoot,
        partitionId: this.options.partitionId, generation,
        blockSizeBytes: this.options.blockSizeBytes, checkpointLsn,
      });
      // The caller's files of this generation are written while the blocks are: both only
      // need to be durable before END. After the cplog's directory sync, so that this phase
      // holds one thread of the pool at a time (the sync phase of another partition holds one).
      const beforeEnd = options.beforeEnd;
      callerFiles = beforeEnd === undefined ? undefined : cplog.entryDurable.then(beforeEnd);
      void callerFiles?.catch(() => undefined);
      written = await this.writeBlocks(source, dirty, cplog,
        { generation, adopted, issued: writesIssued });
      this.logFreed(freed, cplog);
      relogged = this.relogColdBlocks(written, cplog, generation, this.fullRelogDue);
      const syncPhase = options.syncPhase ?? ((body) => body());
      const ending = cplog;
      await syncPhase(async () => {
        // The data files and the caller's files both before END; neither needs the other first.
        const synced = await Promise.allSettled([this.dataFiles.datasync(), callerFiles]);
        const failed = synced.find((result) => result.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
        await ending.finish();
      });
    } catch (error) {
      writesIssued();
      // Nothing of this checkpoint may still be in flight when it fails.
      await callerFiles?.catch(() => undefined);
      // Only closing the file failed once END was durable: the checkpoint is done.
      if (cplog?.durable === true && error instanceof StorageError) closeError = error;
      else {
        this.checkpointFailed(source, cplog);
        throw error;
      }
    }
    this.checkpointCompleted(source, { startMs, endMs: clock.nowMs() });
    this.cleanupDue = () => {
      this.deleteOldCplogs(generation);
      options.cleanUp?.();
    };
    const cleanupError = closeError ?? this.retryCleanup();
    return {
      generation, checkpointLsn, writtenBlockCount: written.size, freedBlockCount: freed.length,
      reloggedBlockCount: relogged, ...(cleanupError === undefined ? {} : { cleanupError }),
    };
  }

  /** Whether the last completed checkpoint's cleanup failed and waits for a retry. */
  get cleanupPending(): boolean {
    return this.cleanupDue !== undefined;
  }

  /**
   * Runs the last completed checkpoint's pending cleanup, if any; returns its I/O error (the
   * cleanup then stays pending). Anything but a StorageError is a bug and is thrown.
   */
  retryCleanup(): StorageError | undefined {
    const cleanUp = this.cleanupDue;
    if (cleanUp === undefined) return undefined;
    try {
      cleanUp();
    } catch (error) {
      if (error instanceof StorageError) return error;
      throw error;
    }
    // Unless a newer checkpoint replaced it meanwhile (cleanUp is synchronous: it cannot have).
    assert(this.cleanupDue === cleanUp);
    this.cleanupDue = undefined;
    return undefined;
  }

  /** Step 4 is done: the generation exists. In memory only: nothing here can fail on I/O. */
  private checkpointCompleted(
    source: CheckpointSource,
    times: { startMs: number; endMs: number },
  ): void {
    this.fullRelogDue = false;
    this.counters.completedCount++;
    this.counters.lastStartMs = times.startMs;
    this.counters.lastEndMs = times.endMs;
    source.finishCheckpointSet();
    this.freeSlots.checkpointCompleted();
  }

  /** Before step 4 completed: the generation stays incomplete and the next one logs everything. */
  private checkpointFailed(source: CheckpointSource, cplog: CplogWriter | undefined): void {
    this.counters.failedCount++;
    cplog?.abandon();
    this.fullRelogDue = true;
    this.freeSlots.checkpointFailed();
    source.abandonCheckpointSet();
  }

  close(): void {
    this.dataFiles.close();
  }

  /**
   * The swap images of the set's blocks become their checkpoint images: in the block map now, in
   * the cplog when writeBlocks reaches them.
   */
  private adoptSwapImages(ids: readonly BlockId[], generation: Generation): Set<BlockId> {
    const adopted = new Set<BlockId>();
    for (const blockId of ids) {
      const entry = this.swapped.get(blockId);
      assert(entry !== undefined, `block ${blockId} has no swap image to adopt`);
      this.swapped.delete(blockId);
      const previous = this.blockMap.get(blockId);
      if (previous !== undefined) this.freeSlots.retireForCheckpoint(previous.slot);
      this.blockMap.set(blockId, { ...entry, generation });
      adopted.add(blockId);
    }
    return adopted;
  }

  private async writeBlocks(
    source: CheckpointSource,
    dirty: readonly BlockId[],
    cplog: CplogWriter,
    at: { generation: Generation; adopted: ReadonlySet<BlockId>; issued: () => void },
  ): Promise<Set<BlockId>> {
    const { generation, adopted } = at;
    const written = new Set<BlockId>();
    const clock = this.options.clock ?? systemClock;
    const { blockSizeBytes, compress } = this.options;
    const windowCount = checkpointWriteWindowCount(blockSizeBytes);
    const files = this.dataFiles.counters;
    const flushSizeBytes = this.options.fileFlushSizeBytes ?? 0;
    assert(Number.isSafeInteger(flushSizeBytes) && flushSizeBytes >= 0);
    const inFlight = new Set<Promise<void>>();
    let failure: { error: unknown } | undefined;
    let unsyncedBytes = 0;
    const startMs = clock.monotonicMs();
    /** Waits for every write in flight; throws the first failure of any write. */
    const drain = async () => {
      await Promise.all(inFlight);
      if (failure !== undefined) throw failure.error;
    };
    try {
      for (let i = 0; i < dirty.length; i++) {
        // A turn of the loop before each block: commits wait for one block's encoding at most.
        if (i > 0) await nextTurn();
        if (failure !== undefined) break;
        const blockId = dirty[i]!;
        if (adopted.has(blockId)) {
          const { slot, storedSizeBytes, codec, checksum, kind } = this.blockMap.get(blockId)!;
          cplog.appendBlock({ blockId, slot, storedSizeBytes, codec, checksum, kind });
          written.add(blockId);
          this.counters.adoptedCount++;
          continue;
        }
        while (inFlight.size >= windowCount) await Promise.race(inFlight);
        if (failure !== undefined) break;
        const buffer = takeImageBuffer(blockSizeBytes);
        const image = source.encodeBlock(blockId, buffer);
        assert(image.length === blockSizeBytes);
        const slot = this.freeSlots.allocate();
        // The data files count the write when they issue it, so the counters are read around
        // the call (a swap-out while it is in flight counts there too).
        const before = { bytes: files.writtenBytes, compressMs: files.compressTimeMs };
        const writing = this.dataFiles.writeSlotAsync(slot, image, { compress });
        this.counters.writeCount++;
        this.counters.writeBytes += files.writtenBytes - before.bytes;
        unsyncedBytes += files.writtenBytes - before.bytes;
        this.counters.writeCompressTimeMs += files.compressTimeMs - before.compressMs;
        this.writing.set(blockId, image);
        const done: Promise<void> = writing.then((stored) => {
          const previous = this.blockMap.get(blockId);
          if (previous !== undefined) this.freeSlots.retireForCheckpoint(previous.slot);
          const kind = source.blockKind(blockId);
          this.blockMap.set(blockId, { blockId, slot, ...stored, kind, generation });
          cplog.appendBlock({ blockId, slot, ...stored, kind });
          written.add(blockId);
        }, (error: unknown) => {
          failure ??= { error };
        }).finally(() => {
          this.writing.delete(blockId);
          giveImageBuffer(buffer);
          inFlight.delete(done);
        });
        inFlight.add(done);
        if (flushSizeBytes > 0 && unsyncedBytes >= flushSizeBytes) {
          // Only what has landed can be synced: the writes in flight first.
          await drain();
          await this.dataFiles.datasync();
          unsyncedBytes = 0;
        }
      }
    } finally {
      at.issued();
      // Even on failure: no write of this checkpoint may still be in flight when it returns.
      await Promise.all(inFlight);
    }
    if (failure !== undefined) throw failure.error;
    this.counters.writeTimeMs += clock.monotonicMs() - startMs;
    return written;
  }

  private logFreed(freed: readonly BlockId[], cplog: CplogWriter): void {
    for (const blockId of freed) {
      const previous = this.blockMap.get(blockId);
      if (previous === undefined) continue; // created and freed between two checkpoints
      this.freeSlots.retireForCheckpoint(previous.slot);
      this.blockMap.delete(blockId);
      cplog.appendFree(blockId);
    }
  }

  /** Logs this generation's share (or all) of the blocks it did not write, at their slots. */
  private relogColdBlocks(
    written: Set<BlockId>,
    cplog: CplogWriter,
    generation: Generation,
    all: boolean,
  ): number {
    const interval = this.options.partialCheckpointInterval;
    let relogged = 0;
    for (const entry of this.blockMap.values()) {
      if (written.has(entry.blockId)) continue;
      if (!all && entry.blockId % interval !== generation % interval) continue;
      const { blockId, slot, storedSizeBytes, codec, checksum, kind } = entry;
      cplog.appendBlock({ blockId, slot, storedSizeBytes, codec, checksum, kind });
      relogged++;
    }
    return relogged;
  }

  /** Keeps the last partialCheckpointInterval generations (up to this one); older ones go. */
  private deleteOldCplogs(generation: Generation): void {
    const { fileSystem, dataRoot, partitionId, partialCheckpointInterval } = this.options;
    for (const old of listCplogGenerations(fileSystem, dataRoot, partitionId)) {
      if (old > generation - partialCheckpointInterval) continue;
      fileSystem.remove(cplogFilePath(dataRoot, partitionId, old));
    }
  }
}
