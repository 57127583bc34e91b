// How much disk a partition's checkpoint may take, checked before it writes anything. A checkpoint
// only ever adds space until later ones retire the old xlog generations, so on a disk that is full
// or nearly so it would fail halfway (and break the data files for the rest of the run). Skipping
// it loses nothing: the xlog keeps every record until a checkpoint with room covers it.
//
// The need is an upper bound, each file rounded up to whole file-system blocks:
//   data     every dirty block written raw (compression and adopted swap images only save)
//   cplog    HEADER + END + one entry per block of the map, written or relogged, one FREE per
//            block of the map, and one per dirty block new since the last checkpoint
//   catalog  the snapshot of this generation (its JSON and header)
//   xlog     the new generation's file: its FILE_HEADER record

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { CHECKPOINT_FREE_SPACE_RESERVE_BYTES, FILE_SYSTEM_BLOCK_SIZE_BYTES } from '../base/limits.ts';
import type { FileSystem } from '../io/file-system.ts';
import { CPLOG_END_RECORD_BYTES, CPLOG_RECORD_BYTES_MAX } from '../../compaction/cplog-format.ts';
import { XLOG_FILE_HEADER_RECORD_BYTES } from '../../wal/xlog-format.ts';

/** The catalog snapshot's header before its JSON (catalog-snapshot.ts). */
const CATALOG_SNAPSHOT_HEADER_BYTES = 16;

export interface CheckpointSpaceInput {
  dirtyBlockCount: number;
  /** Blocks in the block map of the last complete checkpoint. */
  mappedBlockCount: number;
  blockSizeBytes: number;
  /** The catalog snapshot's JSON, in bytes. */
  catalogBytes: number;
}

/** The most disk one partition's checkpoint can allocate (see the top of this file). */
export function checkpointSpaceNeededBytes(input: CheckpointSpaceInput): number {
  const { dirtyBlockCount, mappedBlockCount, blockSizeBytes, catalogBytes } = input;
  assert(Number.isSafeInteger(dirtyBlockCount) && dirtyBlockCount >= 0);
  assert(Number.isSafeInteger(mappedBlockCount) && mappedBlockCount >= 0);
  const cplogEntryCount = 2 * mappedBlockCount + dirtyBlockCount;
  const cplogBytes = (1 + cplogEntryCount) * CPLOG_RECORD_BYTES_MAX + CPLOG_END_RECORD_BYTES;
  return dirtyBlockCount * blockSizeBytes + roundUpToFileSystemBlock(cplogBytes) +
    roundUpToFileSystemBlock(CATALOG_SNAPSHOT_HEADER_BYTES + catalogBytes) +
    roundUpToFileSystemBlock(XLOG_FILE_HEADER_RECORD_BYTES);
}

/**
 * The free space of the file systems a checkpoint writes to (the smaller, if two), or undefined
 * when statfs cannot tell: then the checkpoint is tried, and a full disk fails it as before.
 */
export function checkpointFreeBytes(
  fileSystem: FileSystem,
  roots: { dataRoot: string; transactionLogRoot: string },
): number | undefined {
  try {
    return Math.min(fileSystem.freeBytes(roots.dataRoot),
      fileSystem.freeBytes(roots.transactionLogRoot));
  } catch {
    return undefined;
  }
}

/** Whether a checkpoint needing `neededBytes` may start with `freeBytes` free. */
export function checkpointHasRoom(space: { neededBytes: number; freeBytes: number }): boolean {
  return space.freeBytes >= space.neededBytes + CHECKPOINT_FREE_SPACE_RESERVE_BYTES;
}

/** The error a requested checkpoint gets when it would not fit: IO, saying ENOSPC and how much. */
export function checkpointNoSpaceError(
  partitionId: number,
  space: { neededBytes: number; freeBytes: number },
): StorageError {
  return new StorageError('IO', `ENOSPC: the checkpoint of partition ${partitionId} needs up ` +
    `to ${space.neededBytes} bytes plus a reserve of ${CHECKPOINT_FREE_SPACE_RESERVE_BYTES}, and ` +
    `${space.freeBytes} bytes are free; it did not start (the xlog keeps every record)`);
}

function roundUpToFileSystemBlock(sizeBytes: number): number {
  return Math.ceil(sizeBytes / FILE_SYSTEM_BLOCK_SIZE_BYTES) * FILE_SYSTEM_BLOCK_SIZE_BYTES;
}
