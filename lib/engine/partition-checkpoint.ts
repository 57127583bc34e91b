// A partition's checkpoints and its recovery from them.
//
// Recovery: rebuild the block map from the last complete cplogs → recreate the containers from that
// generation's catalog snapshot → restore their rows from the block images → replay only the xlog
// records after the checkpoint LSN.
//
// Checkpoint: in one synchronous step take the applied LSN, the catalog snapshot and the set of
// changed blocks (so the three agree), and switch the xlog to the new generation; then write the
// blocks (the checkpointer), make the catalog snapshot durable before the cplog END, and finally
// delete what fell out of retention: xlog files older than the previous generation, minus
// XLOG_RETAINED_GENERATION_COUNT more (GridDB's retainedFileCount), and older catalog snapshots.
// That deletion runs after the cplog END is durable, so its failure does not fail the checkpoint:
// it stays pending in the checkpointer and is retried by the next checkpointPartition.

import {
  lsn, partitionId as toPartitionId, type BlockId, type Generation, type Lsn,
} from '../base/ids.ts';
import type { StorageError } from '../base/errors.ts';
import { restorePartition } from '../block/block-space-restore.ts';
import {
  PartitionCheckpointer, type CheckpointPhases, type CheckpointReport,
} from '../../compaction/checkpoint.ts';
import {
  readCatalogSnapshot, removeCatalogSnapshotsBefore, writeCatalogSnapshot,
} from './catalog-snapshot.ts';
import type { Partition } from './partition.ts';
import type { PartitionContext } from './partition-context.ts';
import type { PartitionRecovery } from './partition-log.ts';
import type { JournalRecord } from '../../wal/journal-format.ts';

/** Older xlog generations kept beyond the one a recovery needs, as GridDB's retainedFileCount. */
export const XLOG_RETAINED_GENERATION_COUNT = 2;

export interface PartitionRecoveryReport extends PartitionRecovery {
  checkpointLsn: Lsn;
  restoredBlockCount: number;
}

/** Opens the partition's data files and restores it from its checkpoint and xlog tail. */
export async function recoverPartition(
  partition: Partition,
  context: PartitionContext,
  journaled: readonly JournalRecord[] = [],
): Promise<PartitionRecoveryReport> {
  const { options } = context;
  const checkpointer = await PartitionCheckpointer.open({
    fileSystem: context.fileSystem, dataRoot: context.dataRoot, partitionId: partition.id,
    blockSizeBytes: options.storeBlockSizeBytes,
    partialCheckpointInterval: options.partialCheckpointInterval,
    compress: options.storeCompressionMode === 'COMPRESSION',
    splitCount: options.dbFileSplitCount, filePathList: options.dbFilePathList, clock: context.clock,
    fileFlushSizeBytes: options.checkpointFileFlushSizeBytes,
  });
  partition.checkpointer = checkpointer;
  partition.catalog.space.attachBacking(checkpointer);
  const { generations, checkpointLsn } = checkpointer.recovered;
  const newest = generations.at(-1);
  let restoredBlockCount = 0;
  if (newest !== undefined) {
    const snapshot = readCatalogSnapshot(context.fileSystem, context.dataRoot,
      { partitionId: partition.id, generation: newest });
    partition.catalog.restore(snapshot);
    const images = new Map<BlockId, Uint8Array>();
    for (const id of checkpointer.blockMap.keys()) images.set(id, checkpointer.readCheckpointImage(id));
    restorePartition(partition.catalog.space, {
      images, rowStoreOf: (id) => partition.catalog.get(id)?.rows,
    });
    restoredBlockCount = images.size;
  }
  const replay = await partition.log.recover(partition.catalog, checkpointLsn, journaled);
  partition.lastCheckpointLsn = checkpointLsn;
  return { ...replay, checkpointLsn, restoredBlockCount };
}

/** What checkpointPartition did: a checkpoint (or none was due), and any cleanup that failed. */
export interface PartitionCheckpointOutcome {
  report: CheckpointReport | undefined;
  /** The cleanup after a durable checkpoint failed: it stays pending, retried at the next call. */
  cleanupError: StorageError | undefined;
}

/**
 * Checkpoints the partition if anything was applied since its last checkpoint; else retries the
 * last checkpoint's cleanup if it is pending. A failure after the checkpoint is durable (deleting
 * old cplog, xlog or catalog files) does not fail it: it comes back as cleanupError.
 */
export async function checkpointPartition(
  partition: Partition,
  context: PartitionContext,
  phases: Pick<CheckpointPhases, 'writesIssued' | 'syncPhase'> = {},
): Promise<PartitionCheckpointOutcome> {
  const checkpointer = partition.checkpointer;
  const checkpointLsn = lsn(partition.log.lastAppliedLsn);
  if (checkpointer === undefined || checkpointLsn === partition.lastCheckpointLsn) {
    phases.writesIssued?.();
    if (checkpointer === undefined) return { report: undefined, cleanupError: undefined };
    return { report: undefined, cleanupError: checkpointer.retryCleanup() };
  }
  // From here to checkpointer.checkpoint()'s first await, nothing else runs: LSN, catalog and
  // block set are one consistent cut.
  const previousGeneration = partition.log.generation;
  const generation = checkpointer.reserveGeneration(previousGeneration + 1);
  const catalog = partition.catalog.snapshot();
  const switched = partition.log.startGeneration(generation);
  // It may reject before beforeEnd awaits it (a failed write of the old file's tail): handled
  // here so that is no unhandled rejection, and still thrown where it is awaited.
  void switched.catch(() => undefined);
  const report = await checkpointer.checkpoint(partition.catalog.space, checkpointLsn, {
    ...phases,
    generation,
    beforeEnd: async () => {
      await switched;
      await writeCatalogSnapshot(context.fileSystem, context.dataRoot, {
        partitionId: toPartitionId(partition.id), generation, checkpointLsn, ...catalog,
      });
    },
    cleanUp: () => {
      partition.log.removeGenerationsBefore(previousGeneration - XLOG_RETAINED_GENERATION_COUNT);
      removeCatalogSnapshotsBefore(context.fileSystem, context.dataRoot,
        { partitionId: partition.id, keepFrom: generation as Generation });
    },
  }).catch(async (error: unknown) => {
    await switched.catch(() => undefined);
    throw error;
  });
  partition.lastCheckpointLsn = checkpointLsn;
  return { report, cleanupError: report.cleanupError };
}
