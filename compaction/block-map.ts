// The block map recovery starts from: block id → where its image is, rebuilt from the last
// partialCheckpointInterval complete cplogs. A split checkpoint writes the entries of the blocks
// dirtied since the last one plus a share of the cold ones, so only those generations together
// describe every live block; the checkpoint code (not this file) keeps that promise, and must
// keep it across a skipped generation too (a full re-log after recovery does).
//
// Replaying the generations oldest → newest (a later BLOCK entry replaces an earlier one, FREE
// deletes) gives the same map as reading them newest → oldest and keeping, for each block, the
// last entry of the newest generation that names it. This file does the latter: it reads one
// generation at a time and never holds more than one generation's entries beside the map.

import { StorageError } from '../lib/base/errors.ts';
import { assert } from '../lib/base/assert.ts';
import type { BlockId, Generation, Lsn, PartitionId } from '../lib/base/ids.ts';
import { PARTIAL_CHECKPOINT_INTERVAL_MAX } from '../lib/base/limits.ts';
import type { FileSystem } from '../lib/io/file-system.ts';
import { cplogFilePath, listCplogGenerations } from './cplog-files.ts';
import type { CplogBlockEntry, CplogEntry, CplogHeader } from './cplog-format.ts';
import { readCplog } from './cplog-reader.ts';

/** A cplog BLOCK entry as recovery keeps it: where the block is, and which generation said so. */
export interface BlockMapEntry extends Omit<CplogBlockEntry, 'type'> {
  /** The generation whose cplog set this entry. */
  generation: Generation;
}

export type BlockMap = Map<BlockId, BlockMapEntry>;

export interface BlockMapLoadOptions {
  /** The data directory: cplogs are `<dataRoot>/<pId>/<pId>_<generation>.cplog`. */
  dataRoot: string;
  partitionId: PartitionId;
  /** `/checkpoint/partialCheckpointInterval`: how many complete generations to replay. */
  partialCheckpointInterval: number;
}

export interface BlockMapLoad {
  blockMap: BlockMap;
  /** Of the newest complete generation: replay the xlog after it. 0 when there is none. */
  checkpointLsn: Lsn;
  /** The complete generations replayed, ascending; [] when there is none. */
  generations: Generation[];
  /**
   * Incomplete cplogs met on the way back from the newest file, newest first: checkpoints a crash
   * interrupted (or damage). They were skipped; report them.
   */
  incompleteGenerations: Array<{ generation: Generation; reason: string }>;
  /** Of the generations replayed; undefined when there is none. */
  blockSizeBytes: number | undefined;
}

/**
 * Rebuilds a partition's block map from its cplogs. Throws CORRUPTION when complete generations
 * disagree (block size, checkpoint LSN going back) or two live blocks share a slot; NOT_SUPPORTED
 * and IO as readCplog.
 */
export function loadBlockMap(fileSystem: FileSystem, options: BlockMapLoadOptions): BlockMapLoad {
  const { dataRoot, partitionId, partialCheckpointInterval } = options;
  assert(Number.isInteger(partialCheckpointInterval));
  assert(partialCheckpointInterval >= 1);
  assert(partialCheckpointInterval <= PARTIAL_CHECKPOINT_INTERVAL_MAX);
  const load: BlockMapLoad = {
    blockMap: new Map(), checkpointLsn: 0n as Lsn, generations: [], incompleteGenerations: [],
    blockSizeBytes: undefined,
  };
  /** Blocks a newer generation removed: older entries for them are dead. */
  const removed = new Set<BlockId>();
  let newer: CplogHeader | undefined;
  const all = listCplogGenerations(fileSystem, dataRoot, partitionId);
  for (let i = all.length - 1; i >= 0; i--) {
    if (load.generations.length === partialCheckpointInterval) break;
    const generation = all[i]!;
    const read = readCplog(fileSystem, cplogFilePath(dataRoot, partitionId, generation));
    if (!read.complete) {
      const reason = read.incompleteReason ?? 'incomplete';
      load.incompleteGenerations.push({ generation, reason });
      continue;
    }
    assert(read.header !== undefined);
    if (newer === undefined) load.checkpointLsn = read.header.checkpointLsn;
    else checkOlderHeader(read.header, newer);
    newer = read.header;
    load.generations.push(generation);
    applyOlderGeneration(load.blockMap, removed, read.entries, generation);
  }
  load.generations.reverse();
  load.blockSizeBytes = newer?.blockSizeBytes;
  checkSlotsDistinct(load.blockMap, partitionId);
  return load;
}

/**
 * Folds one generation into a map built from newer ones: walking its entries backwards, the first
 * entry met for a block is its last in this generation, and it counts only if no newer
 * generation named the block.
 */
function applyOlderGeneration(
  blockMap: BlockMap,
  removed: Set<BlockId>,
  entries: readonly CplogEntry[],
  generation: Generation,
): void {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (blockMap.has(entry.blockId) || removed.has(entry.blockId)) continue;
    if (entry.type === 'FREE') {
      removed.add(entry.blockId);
      continue;
    }
    blockMap.set(entry.blockId, {
      blockId: entry.blockId, slot: entry.slot, storedSizeBytes: entry.storedSizeBytes,
      codec: entry.codec, checksum: entry.checksum, kind: entry.kind, generation,
    });
  }
}

function checkOlderHeader(older: CplogHeader, newer: CplogHeader): void {
  const where = `partition ${older.partitionId} generations ${older.generation} and ` +
    `${newer.generation}`;
  if (older.blockSizeBytes !== newer.blockSizeBytes) {
    throw new StorageError('CORRUPTION', `cplog ${where}: block sizes ${older.blockSizeBytes} ` +
      `and ${newer.blockSizeBytes} differ`);
  }
  if (older.checkpointLsn > newer.checkpointLsn) {
    throw new StorageError('CORRUPTION', `cplog ${where}: checkpoint LSN goes back from ` +
      `${older.checkpointLsn} to ${newer.checkpointLsn}`);
  }
}

function checkSlotsDistinct(blockMap: BlockMap, partitionId: PartitionId): void {
  const blockBySlot = new Map<number, BlockId>();
  for (const entry of blockMap.values()) {
    const other = blockBySlot.get(entry.slot);
    if (other !== undefined) {
      throw new StorageError('CORRUPTION', `cplogs of partition ${partitionId}: blocks ${other} ` +
        `and ${entry.blockId} are both in slot ${entry.slot}`);
    }
    blockBySlot.set(entry.slot, entry.blockId);
  }
}
