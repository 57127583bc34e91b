// The buffer pool of a partition group (DESIGN.md §3.5): at most capacityBlocks physical blocks
// of the group's partitions have their data in memory; the rest are on disk, in the data files.
//
// A block's data is "resident" or "evicted". The BlockSpace that owns a block (a PoolClient) does
// the work: it loads an evicted block from its image on disk (a swap read) and admits it here; on
// eviction it writes the image first when the block changed since the last checkpoint and has no
// current image on disk (a swap write), then drops the data, keeping only what routing needs.
//
// Replacement is CLOCK (second chance): a use sets a block's reference bit; the hand clears bits
// as it passes and takes the first block whose bit is clear. Not taken:
//   - blocks used in the current operation (usedEpoch === epoch): an operation holds references
//     to the blocks it reads and changes, and settles them only at its end; beginOperation() is
//     called at the start of every store operation;
//   - blocks the client pins (a checkpoint still has to encode them, or no backing file exists).
// When every resident block is taken that way the pool admits one more than its capacity rather
// than fail (overCapacityCount counts it): an operation's own blocks (a batch merged all over a
// container, a column added) are its working set. The next operation begins by evicting back down.
//
// Memory is counted in blocks: each resident physical block as blockSizeBytes, whatever its
// tenants fill (GridDB counts its pool the same way).
//
// The pool also keeps the spare buffers of point-read images (block-space.ts): a load in one
// partition usually evicts a block of another, so the buffer it frees serves the group's next load.

import { assert } from '../base/assert.ts';
import { POINT_READ_IMAGE_SPARE_COUNT_MAX } from '../base/limits.ts';
import type { PhysicalBlock } from './physical-block.ts';

/**
 * The fewest blocks a pool holds, whatever the memory limit. Operations go over the capacity
 * anyway when their own working set needs it, so this is a floor, not a requirement.
 */
export const BUFFER_POOL_BLOCK_COUNT_MIN = 1;

/** What a BlockSpace does for the pool. */
export interface PoolClient {
  /** May the block's data be dropped now? */
  canEvict(block: PhysicalBlock): boolean;
  /** Writes the block's image if needed and drops its data. */
  evict(block: PhysicalBlock): void;
}

/** Swap reads/writes and evictions, for the node's status report. */
export interface BufferPoolCounters {
  swapReadCount: number;
  swapReadBytes: number;
  swapReadTimeMs: number;
  swapWriteCount: number;
  swapWriteBytes: number;
  swapWriteTimeMs: number;
  evictionCount: number;
  /** Admissions beyond the capacity because every resident block was in use. */
  overCapacityCount: number;
}

interface Frame {
  block: PhysicalBlock;
  client: PoolClient;
}

export class BufferPool {
  /** Changed at run time by setCapacityBlocks (gs_paramconf --set storeMemoryLimit). */
  private capacity: number;
  readonly blockSizeBytes: number;
  readonly counters: BufferPoolCounters = {
    swapReadCount: 0, swapReadBytes: 0, swapReadTimeMs: 0,
    swapWriteCount: 0, swapWriteBytes: 0, swapWriteTimeMs: 0,
    evictionCount: 0, overCapacityCount: 0,
  };
  private readonly frames: Frame[] = [];
  private hand = 0;
  private epoch = 1;
  /** Resident blocks by kind byte (block-format kinds). */
  private readonly residentByKind = new Map<number, number>();
  /** Buffers of point-read images let go, for the next loads. */
  private readonly imageSpares: Uint8Array[] = [];

  constructor(options: { capacityBlocks: number; blockSizeBytes: number }) {
    assert(Number.isSafeInteger(options.capacityBlocks) && options.capacityBlocks >= 1);
    this.capacity = options.capacityBlocks;
    this.blockSizeBytes = options.blockSizeBytes;
  }

  /** How many blocks may be resident (operations' working sets aside). */
  get capacityBlocks(): number {
    return this.capacity;
  }

  /**
   * A new capacity, while the node runs. Growing just raises the bound. Shrinking lowers it and
   * evicts nothing now: the next operation of the group begins by evicting down to it
   * (beginOperation), so blocks the current one holds are never dropped under it.
   */
  setCapacityBlocks(capacityBlocks: number): void {
    assert(Number.isSafeInteger(capacityBlocks) && capacityBlocks >= BUFFER_POOL_BLOCK_COUNT_MIN);
    this.capacity = capacityBlocks;
  }

  /** A pool of storeMemoryLimit bytes shared by `shareCount` partition groups. */
  static forMemoryLimit(
    options: { memoryLimitBytes: number; shareCount: number; blockSizeBytes: number },
  ): BufferPool {
    const { blockSizeBytes } = options;
    return new BufferPool({
      capacityBlocks: BufferPool.capacityForMemoryLimit(options), blockSizeBytes,
    });
  }

  /** The blocks of one group's share of storeMemoryLimit. */
  static capacityForMemoryLimit(
    options: { memoryLimitBytes: number; shareCount: number; blockSizeBytes: number },
  ): number {
    const { memoryLimitBytes, shareCount, blockSizeBytes } = options;
    return Math.max(BUFFER_POOL_BLOCK_COUNT_MIN,
      Math.floor(memoryLimitBytes / shareCount / blockSizeBytes));
  }

  get residentBlockCount(): number {
    return this.frames.length;
  }

  /** Bytes the resident blocks count for. */
  get residentBytes(): number {
    return this.frames.length * this.blockSizeBytes;
  }

  get capacityBytes(): number {
    return this.capacityBlocks * this.blockSizeBytes;
  }

  /** Resident blocks of one kind. */
  residentCountOf(kind: number): number {
    return this.residentByKind.get(kind) ?? 0;
  }

  /** A buffer of blockSizeBytes for a point-read image: a spare one when there is one. */
  takeImageBuffer(): Uint8Array {
    return this.imageSpares.pop() ?? new Uint8Array(this.blockSizeBytes);
  }

  /** A point-read image's buffer is free: kept for the next, up to the spare limit. */
  spareImageBuffer(buffer: Uint8Array): void {
    assert(buffer.byteLength === this.blockSizeBytes);
    if (this.imageSpares.length < POINT_READ_IMAGE_SPARE_COUNT_MAX) this.imageSpares.push(buffer);
  }

  /** A swap read of blockCount blocks (their images' bytes) took durationMs. */
  countSwapRead(blockCount: number, bytes: number, durationMs: number): void {
    this.counters.swapReadCount += blockCount;
    this.counters.swapReadBytes += bytes;
    this.counters.swapReadTimeMs += durationMs;
  }

  /** A swap write of `bytes` to the data files took durationMs. */
  countSwapWrite(bytes: number, durationMs: number): void {
    this.counters.swapWriteCount++;
    this.counters.swapWriteBytes += bytes;
    this.counters.swapWriteTimeMs += durationMs;
  }

  /**
   * A store operation begins: blocks used from now on are held until the next one begins. A pool
   * the last operation took over its capacity shrinks back first.
   */
  beginOperation(): void {
    this.epoch++;
    if (this.frames.length > this.capacityBlocks) this.evictDownTo(this.capacityBlocks);
  }

  /**
   * Evicts every block that may go (a checkpoint's pending blocks stay): memory back to the
   * operating system, and a cold cache for tests and benchmarks. Returns how many went.
   */
  evictAll(): number {
    const before = this.frames.length;
    this.epoch++;
    this.evictDownTo(0);
    return before - this.frames.length;
  }

  /** The block was used: it gets a second chance, and is held for the current operation. */
  touch(block: PhysicalBlock): void {
    block.referenced = true;
    block.usedEpoch = this.epoch;
  }

  /** A block whose data just became resident: makes room for it, then holds it. */
  admit(block: PhysicalBlock, client: PoolClient): void {
    assert(block.frameIndex < 0, `block ${block.id} admitted twice`);
    this.touch(block);
    this.makeRoom();
    // Making room may have evicted a large value whose chain this block is part of.
    if (!block.resident) return;
    block.frameIndex = this.frames.length;
    this.frames.push({ block, client });
    this.residentByKind.set(block.kind, this.residentCountOf(block.kind) + 1);
  }

  /** The block's data is gone (evicted by its client, or the block freed). */
  remove(block: PhysicalBlock): void {
    const index = block.frameIndex;
    assert(index >= 0 && this.frames[index]?.block === block, `block ${block.id} not in the pool`);
    const last = this.frames.pop()!;
    if (last.block !== block) {
      this.frames[index] = last;
      last.block.frameIndex = index;
    }
    block.frameIndex = -1;
    if (this.hand >= this.frames.length) this.hand = 0;
    this.residentByKind.set(block.kind, this.residentCountOf(block.kind) - 1);
  }

  /** Evicts until one more block fits, or nothing more can be evicted now. */
  private makeRoom(): void {
    if (!this.evictDownTo(this.capacityBlocks - 1)) this.counters.overCapacityCount++;
  }

  /** Evicts until at most blockCount are resident; false when it had to stop short. */
  private evictDownTo(blockCount: number): boolean {
    while (this.frames.length > blockCount) {
      const victim = this.findVictim();
      if (victim === undefined) return false;
      victim.client.evict(victim.block);
      this.remove(victim.block);
      this.counters.evictionCount++;
    }
    return true;
  }

  /** CLOCK: two sweeps at most (the first may only clear reference bits). */
  private findVictim(): Frame | undefined {
    const count = this.frames.length;
    for (let step = 0; step < 2 * count; step++) {
      if (this.hand >= this.frames.length) this.hand = 0;
      const frame = this.frames[this.hand]!;
      this.hand++;
      const { block } = frame;
      if (block.usedEpoch === this.epoch) continue;
      if (block.referenced) {
        block.referenced = false;
        continue;
      }
      if (frame.client.canEvict(block)) return frame;
    }
    return undefined;
  }

  /** O(frames): every frame's index is right and counts by kind add up. */
  checkInvariants(): void {
    const byKind = new Map<number, number>();
    this.frames.forEach(({ block }, index) => {
      assert(block.frameIndex === index, `block ${block.id} frame index drift`);
      assert(block.resident, `evicted block ${block.id} in the pool`);
      byKind.set(block.kind, (byKind.get(block.kind) ?? 0) + 1);
    });
    for (const [kind, count] of this.residentByKind) {
      assert((byKind.get(kind) ?? 0) === count, `resident count of kind ${kind} drift`);
    }
  }
}
