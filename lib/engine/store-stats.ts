// The storage figures of the node status report (gs_stat's `checkpoint` and `performance`
// members), gathered from the live counters of every partition group: checkpoints, data files,
// buffer pool and swap, xlog flushes, rows. Names here carry their units; the node maps them to
// GridDB's member names. Collecting is O(partitions + blocks): for a status request, not a loop.

import { assert } from '../base/assert.ts';
import type { StoreCompressionMode } from '../base/options.ts';
import { BlockKind } from '../block/block-space.ts';
import type { PartitionGroup } from './partition-group.ts';

/** Memory the pool holds and blocks in use, of one kind of block. */
export interface StoreMemoryOfKind {
  residentBytes: number;
  useBytes: number;
}

export interface StoreStats {
  checkpoint: {
    /** Checkpoints started, by what started them. */
    periodicCount: number;
    requestedCount: number;
    shutdownCount: number;
    /** The node's checkpoint right after recovery. */
    recoveryCount: number;
    /** What started the last checkpoint; undefined before the first. */
    lastTrigger: 'periodic' | 'requested' | 'shutdown' | 'recovery' | undefined;
    running: boolean;
    /** Partitions a running checkpoint has yet to do. */
    pendingPartitionCount: number;
    /** Partition checkpoints completed and failed. */
    completedCount: number;
    failedCount: number;
    /** Wall clock (epoch ms) of the last completed partition checkpoint; 0 before the first. */
    lastStartMs: number;
    lastEndMs: number;
    writeCount: number;
    writeBytes: number;
    writeTimeMs: number;
    writeCompressTimeMs: number;
    /** Swap images checkpoints adopted rather than wrote. */
    adoptedSwapImageCount: number;
    /** fdatasync of the data files. */
    fileFlushCount: number;
    fileFlushTimeMs: number;
  };
  dataFiles: {
    sizeBytes: number;
    /** Blocks on disk: below sizeBytes where slots are sparse (compression, released blocks). */
    allocatedBytes: number;
    /** Live blocks over the slots the files hold, 0..1. */
    usageRate: number;
    /** Block slots the data files hold on disk (usageRate's denominator). */
    slotCount: number;
    /** Whether holes can be punched; undefined until the first punch was tried. */
    punchHoleSupported: boolean | undefined;
    compressionMode: StoreCompressionMode;
  };
  memory: {
    limitBytes: number;
    /** Resident blocks × block size. */
    residentBytes: number;
    /** Live blocks × block size: what the data takes, resident or not. */
    useBytes: number;
    row: StoreMemoryOfKind;
    shared: StoreMemoryOfKind;
    largeValue: StoreMemoryOfKind;
    /**
     * Secondary index structures (in memory only, never swapped: resident = use), within their
     * own bound on top of limitBytes (INDEX_MEMORY_SHARE_OF_STORE_MEMORY).
     */
    index: StoreMemoryOfKind & { limitBytes: number };
    evictionCount: number;
    overCapacityCount: number;
  };
  swap: {
    readCount: number;
    readBytes: number;
    readTimeMs: number;
    readUncompressTimeMs: number;
    writeCount: number;
    writeBytes: number;
    writeTimeMs: number;
    writeCompressTimeMs: number;
  };
  /** xlog fdatasyncs (group commit rounds and periodic syncs); the partitions' LSNs summed. */
  log: { flushCount: number; flushTimeMs: number; lastLsnSum: number };
  rows: { readCount: number; writeCount: number };
}

export function collectStoreStats(
  groups: readonly PartitionGroup[],
  options: { blockSizeBytes: number; compressionMode: StoreCompressionMode },
): StoreStats {
  const { blockSizeBytes } = options;
  const stats = emptyStoreStats(options.compressionMode);
  const { checkpoint, dataFiles, memory, swap } = stats;
  let liveBlockCount = 0;
  let slotCount = 0;
  for (const group of groups) {
    checkpoint.periodicCount += group.checkpointRuns.periodic;
    checkpoint.requestedCount += group.checkpointRuns.requested;
    checkpoint.shutdownCount += group.checkpointRuns.shutdown;
    checkpoint.recoveryCount += group.checkpointRuns.recovery;
    checkpoint.lastTrigger ??= group.lastCheckpointTrigger;
    checkpoint.pendingPartitionCount += group.checkpointPendingPartitionCount;
    const { pool } = group;
    memory.limitBytes += pool.capacityBytes;
    memory.residentBytes += pool.residentBytes;
    memory.row.residentBytes += pool.residentCountOf(BlockKind.ROW) * blockSizeBytes;
    memory.shared.residentBytes += pool.residentCountOf(BlockKind.SHARED) * blockSizeBytes;
    memory.largeValue.residentBytes += pool.residentCountOf(BlockKind.LARGE_VALUE) * blockSizeBytes;
    memory.evictionCount += pool.counters.evictionCount;
    memory.overCapacityCount += pool.counters.overCapacityCount;
    memory.index.useBytes += group.indexMemory.usedBytes;
    memory.index.limitBytes += group.indexMemory.limitBytes;
    swap.readCount += pool.counters.swapReadCount;
    swap.readBytes += pool.counters.swapReadBytes;
    swap.readTimeMs += pool.counters.swapReadTimeMs;
    swap.writeCount += pool.counters.swapWriteCount;
    swap.writeBytes += pool.counters.swapWriteBytes;
    swap.writeTimeMs += pool.counters.swapWriteTimeMs;
    stats.log.flushCount += group.groupCommit.fileSyncCount;
    stats.log.flushTimeMs += group.groupCommit.syncTimeMsTotal;
    for (const partition of group.partitions) {
      stats.rows.readCount += partition.rowsReadCount;
      stats.rows.writeCount += partition.rowsWrittenCount;
      stats.log.lastLsnSum += Number(partition.log.lastAppliedLsn);
      const { space } = partition.catalog;
      const counts = space.blockCountsByKind();
      liveBlockCount += space.blockCount;
      memory.row.useBytes += counts.row * blockSizeBytes;
      memory.shared.useBytes += counts.shared * blockSizeBytes;
      memory.largeValue.useBytes += counts.largeValue * blockSizeBytes;
      const checkpointer = partition.checkpointer;
      if (checkpointer === undefined) continue;
      const c = checkpointer.counters;
      checkpoint.completedCount += c.completedCount;
      checkpoint.failedCount += c.failedCount;
      checkpoint.lastStartMs = Math.max(checkpoint.lastStartMs, c.lastStartMs);
      checkpoint.lastEndMs = Math.max(checkpoint.lastEndMs, c.lastEndMs);
      checkpoint.writeCount += c.writeCount;
      checkpoint.writeBytes += c.writeBytes;
      checkpoint.writeTimeMs += c.writeTimeMs;
      checkpoint.writeCompressTimeMs += c.writeCompressTimeMs;
      checkpoint.adoptedSwapImageCount += c.adoptedCount;
      swap.readUncompressTimeMs += c.swapReadUncompressTimeMs;
      swap.writeCompressTimeMs += c.swapWriteCompressTimeMs;
      const files = checkpointer.dataFiles;
      checkpoint.fileFlushCount += files.counters.flushCount;
      checkpoint.fileFlushTimeMs += files.counters.flushTimeMs;
      dataFiles.sizeBytes += files.sizeBytes();
      dataFiles.allocatedBytes += files.allocatedBytes();
      slotCount += files.slotCountOnDisk();
      if (files.punchSupported !== undefined) {
        dataFiles.punchHoleSupported = (dataFiles.punchHoleSupported ?? true) && files.punchSupported;
      }
    }
  }
  checkpoint.running = checkpoint.pendingPartitionCount > 0;
  memory.useBytes = liveBlockCount * blockSizeBytes;
  memory.index.residentBytes = memory.index.useBytes;
  dataFiles.slotCount = slotCount;
  dataFiles.usageRate = usageRate(liveBlockCount, slotCount);
  return stats;
}

/**
 * The figures of Stores that each serve some of the groups (one per engine thread), as one Store
 * of all of them would give them: counts summed, the latest times, the first trigger found in
 * group order (`parts` are in group order), rates computed again from the sums.
 */
export function mergeStoreStats(
  parts: readonly StoreStats[],
  options: { blockSizeBytes: number },
): StoreStats {
  assert(parts.length > 0);
  const stats = parts.reduce((total, part) => numbersSummed(total, part));
  const { checkpoint, dataFiles, memory } = stats;
  checkpoint.lastStartMs = Math.max(...parts.map((part) => part.checkpoint.lastStartMs));
  checkpoint.lastEndMs = Math.max(...parts.map((part) => part.checkpoint.lastEndMs));
  checkpoint.lastTrigger = parts.find((part) => part.checkpoint.lastTrigger !== undefined)
    ?.checkpoint.lastTrigger;
  checkpoint.running = checkpoint.pendingPartitionCount > 0;
  const punch = parts.map((part) => part.dataFiles.punchHoleSupported)
    .filter((supported) => supported !== undefined);
  dataFiles.punchHoleSupported = punch.length === 0 ? undefined : punch.every(Boolean);
  dataFiles.usageRate = usageRate(memory.useBytes / options.blockSizeBytes, dataFiles.slotCount);
  return stats;
}

function usageRate(liveBlockCount: number, slotCount: number): number {
  return slotCount === 0 ? 1 : Math.min(1, liveBlockCount / slotCount);
}

/** A copy of `a` with every number added to the same member of `b`; other members are a's. */
function numbersSummed<T>(a: T, b: T): T {
  if (typeof a === 'number' && typeof b === 'number') return (a + b) as T;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a;
  const sum: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(a)) {
    sum[key] = numbersSummed(value, (b as Record<string, unknown>)[key]);
  }
  return sum as T;
}

/** Every figure zero: before the store is open. */
export function emptyStoreStats(compressionMode: StoreCompressionMode): StoreStats {
  const ofKind = () => ({ residentBytes: 0, useBytes: 0 });
  return {
    checkpoint: {
      periodicCount: 0, requestedCount: 0, shutdownCount: 0, recoveryCount: 0,
      lastTrigger: undefined, running: false,
      pendingPartitionCount: 0, completedCount: 0, failedCount: 0, lastStartMs: 0, lastEndMs: 0,
      writeCount: 0, writeBytes: 0, writeTimeMs: 0, writeCompressTimeMs: 0,
      adoptedSwapImageCount: 0, fileFlushCount: 0, fileFlushTimeMs: 0,
    },
    dataFiles: {
      sizeBytes: 0, allocatedBytes: 0, usageRate: 1, slotCount: 0, punchHoleSupported: undefined,
      compressionMode,
    },
    memory: {
      limitBytes: 0, residentBytes: 0, useBytes: 0, row: ofKind(), shared: ofKind(),
      largeValue: ofKind(), index: { ...ofKind(), limitBytes: 0 }, evictionCount: 0, overCapacityCount: 0,
    },
    swap: {
      readCount: 0, readBytes: 0, readTimeMs: 0, readUncompressTimeMs: 0,
      writeCount: 0, writeBytes: 0, writeTimeMs: 0, writeCompressTimeMs: 0,
    },
    log: { flushCount: 0, flushTimeMs: 0, lastLsnSum: 0 },
    rows: { readCount: 0, writeCount: 0 },
  };
}
