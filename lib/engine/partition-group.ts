// A partition group: a contiguous range of partitions served by one thread (spec/internals.md §1.1).
// It owns their files and state completely, so nothing in it needs a latch. The group has one
// group-commit coordinator (one fdatasync round covers every commit waiting in the group) and one block
// pipeline (records applied in the order they were appended).

import { exhaustMap, filter, interval, type SchedulerLike, type Subscription } from 'rxjs';
import { assert } from '../base/assert.ts';
import { partitionId, type PartitionId } from '../base/ids.ts';
import {
  PIPELINE_BYTES_IN_FLIGHT_MAX, PIPELINE_RECORDS_IN_FLIGHT_MAX, type BlockSizeLimits, INDEX_MEMORY_SHARE_OF_STORE_MEMORY,
} from '../base/limits.ts';
import type { StorageOptions } from '../base/options.ts';
import { BlockPipeline } from '../block/block-pipeline.ts';
import { BufferPool } from '../block/buffer-pool.ts';
import { ByteWriter } from '../encoding/byte-writer.ts';
import type { Clock } from '../io/clock.ts';
import type { FileSystem } from '../io/file-system.ts';
import { partitionGroupRange } from '../schema/partition-hash.ts';
import { GroupCommit } from '../../wal/group-commit.ts';
import { startPeriodicSync } from '../../wal/periodic-sync.ts';
import { readGroupJournals, removeRecoveredJournalFiles } from '../../wal/journal-recovery.ts';
import { JournalWriter } from '../../wal/journal-writer.ts';
import { journalFilePath } from '../../wal/journal-files.ts';
import { JOURNAL_FILE_HEADER_BYTES } from '../../wal/journal-format.ts';
import { isStorageError } from '../base/errors.ts';
import {
  checkpointFreeBytes, checkpointHasRoom, checkpointNoSpaceError, checkpointSpaceNeededBytes,
} from './checkpoint-space.ts';
import type { PartitionRange } from '../../wal/journal-files.ts';
import { IndexMemory } from './index-memory.ts';
import { Partition } from './partition.ts';
import type { CheckpointGate } from './checkpoint-gate.ts';
import {
  checkpointPartition, recoverPartition, type PartitionCheckpointOutcome,
} from './partition-checkpoint.ts';
import {
  backupPartition, type BackupTarget, type PartitionBackupReport,
} from './partition-backup.ts';
import type { PartitionContext } from './partition-context.ts';
import type { XlogTornTail } from './partition-log.ts';

export interface PartitionGroupConfig {
  index: number;
  /** Groups of the store: they share storeMemoryLimit evenly. */
  groupCount: number;
  options: StorageOptions;
  limits: BlockSizeLimits;
  fileSystem: FileSystem;
  clock: Clock;
  scheduler: SchedulerLike;
  /** Runs the periodic sync and checkpoints; its timers need not keep the process alive. */
  periodicScheduler: SchedulerLike;
  transactionLogRoot: string;
  dataRoot: string;
  releaseUnusedFileBlocks: boolean;
  /**
   * Shared by the Store's groups: partition checkpoints writing their blocks at once, and syncing
   * at once (checkpoint-gate.ts).
   */
  checkpointGate: CheckpointGate;
  checkpointSyncGate: CheckpointGate;
  /** Told of each checkpoint of the group (the node's event log). */
  onCheckpoint?: ((event: CheckpointEvent) => void) | undefined;
  /** Called when a sync or an apply fails: the log of this group can no longer be trusted. */
  onSyncError(error: unknown): void;
  /** Told of what degrades without failing anything (the commit journal's preallocation). */
  onWarning?: ((message: string) => void) | undefined;
}

/** A partition checkpoint whose block writes are issued: it goes on to its syncs. */
interface StartedCheckpoint {
  partition: Partition;
  done: Promise<PartitionCheckpointOutcome>;
}

export type CheckpointTrigger = 'periodic' | 'requested' | 'shutdown' | 'recovery';

/** A checkpoint of one partition group started, completed or failed. */
export type CheckpointEvent =
  | { kind: 'started'; groupIndex: number; trigger: CheckpointTrigger }
  | { kind: 'completed'; groupIndex: number; trigger: CheckpointTrigger; durationMs: number }
  | { kind: 'failed'; groupIndex: number; trigger: CheckpointTrigger; error: unknown }
  /** Not started for want of disk space (checkpoint-space.ts); the xlog keeps every record. */
  | {
    kind: 'skipped'; groupIndex: number; trigger: CheckpointTrigger; partitionId: number;
    neededBytes: number; freeBytes: number;
  }
  /** Durable, but deleting what it superseded failed: retried at the next checkpoint. */
  | {
    kind: 'cleanupFailed'; groupIndex: number; trigger: CheckpointTrigger;
    partitionId: PartitionId; error: unknown;
  };

export interface RecoveryReport {
  partitionCount: number;
  recordCount: number;
  /** Records of recordCount that came from the commit journal (their xlog tail was not durable). */
  journaledRecordCount: number;
  /** Bytes after the last good record of the journal files read: torn or unsynced, ignored. */
  journalTornBytes: number;
  rowCount: number;
  tornBytes: number;
  /** The torn tails cut off xlog files, one per partition at most (the node logs each). */
  tornTails: XlogTornTail[];
  restoredBlockCount: number;
  releasedSlotCount: number;
  durationMs: number;
}

export class PartitionGroup {
  readonly startPartitionId: number;
  readonly partitions: Partition[];
  readonly groupCommit: GroupCommit;
  readonly pipeline: BlockPipeline;
  readonly pool: BufferPool;
  readonly indexMemory: IndexMemory;
  private periodicSync: Subscription | undefined;
  private periodicCheckpoint: Subscription | undefined;
  /** Checkpoints started, by what started them. */
  readonly checkpointRuns: Record<CheckpointTrigger, number> =
    { periodic: 0, requested: 0, shutdown: 0, recovery: 0 };
  /** What started the last checkpoint; undefined before the first. */
  lastCheckpointTrigger: CheckpointTrigger | undefined;
  /** gs_checkpoint --off turns periodic checkpoints off until --on; a restart turns them on. */
  periodicCheckpointEnabled = true;

  /**
   * storeMemoryLimit changed while the node runs (gs_paramconf): the pool's share of it. The
   * index memory bound stays as the node started with.
   */
  setStoreMemoryLimit(memoryLimitBytes: number): void {
    this.pool.setCapacityBlocks(BufferPool.capacityForMemoryLimit({
      memoryLimitBytes, shareCount: this.config.groupCount,
      blockSizeBytes: this.config.options.storeBlockSizeBytes,
    }));
  }
  /** Partitions the running checkpoint has yet to do; 0 when none runs. */
  checkpointPendingPartitionCount = 0;
  /** Periodic checkpoints that failed (the xlog still holds everything); the last error. */
  checkpointErrorCount = 0;
  lastCheckpointError: unknown = undefined;
  /** Checkpoints skipped for want of disk space. */
  checkpointSkippedCount = 0;
  /**
   * Set once recovery starts deleting the journal files it read: from then on the xlogs alone
   * hold the journaled records, and a failed start must keep what recovery appended to them.
   */
  private recoveryJournalsDeleted = false;
  /** Cleanups after a durable checkpoint that failed (each retried at the next checkpoint). */
  checkpointCleanupErrorCount = 0;
  private readonly context: PartitionContext;
  /** Checkpoints of this group run one at a time. */
  private checkpointing: Promise<void> = Promise.resolve();

  constructor(private readonly config: PartitionGroupConfig) {
    const { startPartitionId, partitionCount } = partitionGroupRange(config.index, config.options);
    this.startPartitionId = startPartitionId;
    this.groupCommit = new GroupCommit({ clock: config.clock });
    this.pipeline = new BlockPipeline({
      recordsInFlightMax: PIPELINE_RECORDS_IN_FLIGHT_MAX,
      bytesInFlightMax: PIPELINE_BYTES_IN_FLIGHT_MAX,
      onHalt: (error) => config.onSyncError(error),
    });
    this.pool = BufferPool.forMemoryLimit({
      memoryLimitBytes: config.options.storeMemoryLimitBytes, shareCount: config.groupCount,
      blockSizeBytes: config.options.storeBlockSizeBytes,
    });
    const context: PartitionContext = this.context = {
      options: config.options,
      limits: config.limits,
      fileSystem: config.fileSystem,
      clock: config.clock,
      scheduler: config.scheduler,
      transactionLogRoot: config.transactionLogRoot,
      dataRoot: config.dataRoot,
      groupCommit: this.groupCommit,
      pipeline: this.pipeline,
      pool: this.pool,
      indexMemory: this.indexMemory = new IndexMemory(Math.floor(
        config.options.storeMemoryLimitBytes / config.groupCount * INDEX_MEMORY_SHARE_OF_STORE_MEMORY)),
      payloadWriter: new ByteWriter(64 * 1024),
    };
    this.partitions = Array.from({ length: partitionCount },
      (_, i) => new Partition(partitionId(startPartitionId + i), context));
  }

  /** Replays every partition's xlog, then starts the periodic sync of logWriteMode n >= 1. */
  async recover(): Promise<RecoveryReport> {
    const startMs = this.config.clock.monotonicMs();
    const report: RecoveryReport = {
      partitionCount: this.partitions.length, recordCount: 0, journaledRecordCount: 0, rowCount: 0,
      tornBytes: 0, tornTails: [], journalTornBytes: 0,
      restoredBlockCount: 0, releasedSlotCount: 0, durationMs: 0,
    };
    const { fileSystem, transactionLogRoot: root, options } = this.config;
    const { range } = this;
    const journals = readGroupJournals(fileSystem, root, range);
    report.journalTornBytes = journals.ignoredBytes;
    for (const partition of this.partitions) {
      const result = await recoverPartition(partition, this.context,
        journals.records.get(partition.id));
      report.journaledRecordCount += result.journaledCount;
      report.recordCount += result.recordCount;
      report.rowCount += result.rowCount;
      report.tornBytes += result.tornBytes;
      if (result.tornTail !== undefined) report.tornTails.push(result.tornTail);
      report.restoredBlockCount += result.restoredBlockCount;
      if (this.config.releaseUnusedFileBlocks) {
        report.releasedSlotCount += partition.checkpointer?.releaseUnusedFileBlocks() ?? 0;
      }
    }
    // Every journaled record is in a synced xlog now: the files read can go.
    this.recoveryJournalsDeleted = true;
    await removeRecoveredJournalFiles(fileSystem, root, range, journals);
    const { logWriteMode } = options;
    if (logWriteMode === 0) await this.startJournal(journals.nextSequence);
    if (logWriteMode >= 1) {
      this.periodicSync = startPeriodicSync(this.groupCommit, logWriteMode * 1000,
        this.config.periodicScheduler, (error) => this.config.onSyncError(error));
    }
    // Every checkpointInterval; a checkpoint still running when the next is due is not doubled.
    const { checkpointIntervalMs } = this.config.options;
    this.periodicCheckpoint = interval(checkpointIntervalMs, this.config.periodicScheduler)
      .pipe(filter(() => this.periodicCheckpointEnabled),
        exhaustMap(() => this.checkpoint('periodic').catch((error: unknown) => {
        this.checkpointErrorCount++;
        this.lastCheckpointError = error;
      })))
      .subscribe();
    report.durationMs = this.config.clock.monotonicMs() - startMs;
    return report;
  }

  /**
   * Attaches a new commit journal file (its header only: preallocation waits for the first
   * commit). If even that fails (a full disk), the group goes on without a journal, each commit
   * syncing its xlog, rather than fail a start whose recovery is done.
   */
  private async startJournal(sequence: number): Promise<void> {
    const { fileSystem, transactionLogRoot: root } = this.config;
    const onWarning = this.config.onWarning;
    try {
      this.groupCommit.attachJournal(await JournalWriter.create({
        fileSystem, root, range: this.range, sequence, onWarning,
      }), fileSystem);
    } catch (error) {
      if (!isStorageError(error, 'IO')) throw error;
      const path = journalFilePath(root, { ...this.range, sequence });
      try {
        fileSystem.remove(path);
      } catch {
        // Left for the next start, which reads it as an empty journal and deletes it.
      }
      onWarning?.(`partition group ${this.config.index}: no commit journal (${error.message}); ` +
        'commits sync their xlogs instead until the next start');
    }
  }

  /**
   * A start that failed (this group's recovery or another's): closes every file without a
   * checkpoint or a sync, and takes back what this start wrote that nothing needs: recovery's
   * appends of journaled records while the journal files still hold them, and the new journal
   * file while it holds no record. What a failed start leaves is then what it found.
   */
  async abandonStart(): Promise<void> {
    this.periodicSync?.unsubscribe();
    this.periodicCheckpoint?.unsubscribe();
    const journal = this.groupCommit.closeJournal();
    if (journal !== undefined && journal.writer.sizeBytes <= JOURNAL_FILE_HEADER_BYTES) {
      journal.fileSystem.remove(journal.writer.path);
    }
    for (const partition of this.partitions) {
      if (this.recoveryJournalsDeleted) await partition.log.close().catch(() => undefined);
      else await partition.log.undoRecoveryAppends();
      partition.checkpointer?.close();
    }
    this.pipeline.close();
  }

  /**
   * The space a checkpoint of `partition` needs and the space there is; undefined when it has
   * nothing to checkpoint or statfs cannot tell.
   */
  private checkpointSpace(partition: Partition) {
    const { checkpointer } = partition;
    if (checkpointer === undefined) return undefined;
    if (partition.log.lastAppliedLsn === partition.lastCheckpointLsn) return undefined;
    const freeBytes = checkpointFreeBytes(this.config.fileSystem, this.config);
    if (freeBytes === undefined) return undefined;
    const catalogJson = JSON.stringify(partition.catalog.snapshot());
    const neededBytes = checkpointSpaceNeededBytes({
      dirtyBlockCount: partition.catalog.space.dirtyBlockCount,
      mappedBlockCount: checkpointer.blockMap.size,
      blockSizeBytes: this.config.options.storeBlockSizeBytes,
      catalogBytes: new TextEncoder().encode(catalogJson).length,
    });
    return { neededBytes, freeBytes };
  }

  /** The group's partitions, as journal file names give them. */
  get range(): PartitionRange {
    return { startPartitionId: this.startPartitionId, partitionCount: this.partitions.length };
  }

  partition(id: PartitionId): Partition {
    const partition = this.partitions[id - this.startPartitionId];
    assert(partition !== undefined && partition.id === id);
    return partition;
  }

  /**
   * Checkpoints every partition of the group that changed since its last checkpoint, one after
   * another, pipelined: a partition writes its blocks (in the Store's write gate) while the one
   * before syncs and ends its generation (in the sync gate), so at most two of the group's are in
   * flight. Each partition's own order is compaction/checkpoint.ts's; the partitions are
   * independent (their own data files, cplog, catalog and xlog generation). On a failure the
   * group's run fails once the partition started after the failed one has settled too.
   */
  checkpoint(trigger: CheckpointTrigger = 'requested'): Promise<void> {
    const run = this.checkpointing.then(async () => {
      const groupIndex = this.config.index;
      const startMs = this.config.clock.monotonicMs();
      this.checkpointRuns[trigger]++;
      this.lastCheckpointTrigger = trigger;
      this.checkpointPendingPartitionCount = this.partitions.length;
      this.config.onCheckpoint?.({ kind: 'started', groupIndex, trigger });
      const started: Array<Promise<unknown>> = [];
      try {
        let syncing: StartedCheckpoint | undefined;
        for (const partition of this.partitions) {
          const next = await this.config.checkpointGate.run(() =>
            this.startPartitionCheckpoint(partition, trigger, syncing?.done));
          if (next !== undefined) started.push(next.done);
          if (syncing !== undefined) {
            this.partitionCheckpointed(syncing.partition, trigger, await syncing.done);
          }
          syncing = next;
          if (next === undefined) return; // skipped for lack of space: the rest would be too
        }
        if (syncing !== undefined) {
          this.partitionCheckpointed(syncing.partition, trigger, await syncing.done);
        }
        const durationMs = this.config.clock.monotonicMs() - startMs;
        this.config.onCheckpoint?.({ kind: 'completed', groupIndex, trigger, durationMs });
      } catch (error) {
        // No partition of this run may still be in flight when it fails.
        await Promise.allSettled(started);
        this.config.onCheckpoint?.({ kind: 'failed', groupIndex, trigger, error });
        throw error;
      } finally {
        this.checkpointPendingPartitionCount = 0;
      }
    });
    this.checkpointing = run.catch(() => undefined);
    return run;
  }

  /**
   * In the write gate: starts the partition's checkpoint and returns once its block writes are
   * issued (it goes on to its syncs); undefined if it was skipped for lack of space.
   */
  private async startPartitionCheckpoint(
    partition: Partition,
    trigger: CheckpointTrigger,
    syncing: Promise<PartitionCheckpointOutcome> | undefined,
  ): Promise<StartedCheckpoint | undefined> {
    // Checked before each partition: the ones before (of any group) may have freed or taken
    // space. The one before in this group frees its retired slots only once synced: when the
    // space looks short, it is checked again after that.
    let space = this.checkpointSpace(partition);
    if (space !== undefined && !checkpointHasRoom(space) && syncing !== undefined) {
      await syncing.catch(() => undefined);
      space = this.checkpointSpace(partition);
    }
    if (space === undefined || checkpointHasRoom(space)) {
      let writesIssued!: () => void;
      const issued = new Promise<void>((resolve) => (writesIssued = resolve));
      const done = checkpointPartition(partition, this.context, {
        writesIssued, syncPhase: (body) => this.config.checkpointSyncGate.run(body),
      });
      // Either comes first: a checkpoint that fails before its writes may not say so.
      await Promise.race([issued, done.then(() => undefined, () => undefined)]);
      return { partition, done };
    }
    if (trigger === 'requested') throw checkpointNoSpaceError(partition.id, space);
    this.checkpointSkippedCount++;
    this.config.onCheckpoint?.({
      kind: 'skipped', groupIndex: this.config.index, trigger, partitionId: partition.id, ...space,
    });
    return undefined;
  }

  /** A partition's checkpoint is done: its cleanup error, if any, is told. */
  private partitionCheckpointed(
    partition: Partition,
    trigger: CheckpointTrigger,
    outcome: PartitionCheckpointOutcome,
  ): void {
    const { cleanupError } = outcome;
    if (cleanupError !== undefined) {
      this.checkpointCleanupErrorCount++;
      this.config.onCheckpoint?.({
        kind: 'cleanupFailed', groupIndex: this.config.index, trigger, partitionId: partition.id,
        error: cleanupError,
      });
    }
    this.checkpointPendingPartitionCount--;
  }

  /**
   * A backup of the group's partitions into `target`: a checkpoint of each, then the copy of
   * its files (partition-backup.ts), with no checkpoint between the two or during the copy: the
   * copy is chained on the group's checkpoints, so periodic and requested ones wait for its end.
   */
  backup(target: BackupTarget): Promise<PartitionBackupReport[]> {
    const checkpointed = this.checkpoint('requested');
    // Chained now, synchronously: nothing can come between the checkpoint and the copy.
    const run = this.checkpointing.then(async () => {
      await checkpointed;
      const reports: PartitionBackupReport[] = [];
      for (const partition of this.partitions) {
        reports.push(await backupPartition(partition, this.context, target));
      }
      return reports;
    });
    this.checkpointing = run.then(() => undefined, () => undefined);
    return run;
  }

  /**
   * Clean shutdown: waits for in-flight records, checkpoints (so the next start replays nothing),
   * makes every appended record durable and closes the files.
   */
  async close(): Promise<void> {
    this.periodicSync?.unsubscribe();
    this.periodicCheckpoint?.unsubscribe();
    await this.pipeline.drain();
    // A failed checkpoint loses nothing (the xlog still holds every record): close anyway, then say.
    let checkpointError: unknown;
    if (!this.pipeline.halted) {
      await this.checkpoint('shutdown').catch((error) => (checkpointError = error));
    }
    try {
      if (!this.pipeline.halted) {
        await this.groupCommit.syncAll();
        await this.groupCommit.retireJournal();
      }
      if (checkpointError !== undefined) throw checkpointError;
    } finally {
      this.groupCommit.closeJournal();
      await Promise.all(this.partitions.map((partition) => partition.log.close()));
      for (const partition of this.partitions) partition.checkpointer?.close();
      this.pipeline.close();
    }
  }
}
