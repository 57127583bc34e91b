// The storage engine's in-process API: open a home directory, create and drop containers, open
// sessions, read and write rows. The node (lib/server) drives the same partition groups by messages;
// tests and benchmarks use this facade directly.
//
// A Store may open only some of the partition groups (`groupIndexes`): the node runs one Store per
// group, each in a worker thread of its own, on the same home. Such a Store recovers, checkpoints,
// lists and reports only its groups' partitions, and refuses a container of another group
// (PARTITION_NOT_OWNED); the files are the same whichever Store opens them, so a home written by
// Stores of one group each opens as one Store of every group, and the other way round.
//
//   const store = await Store.open({ home: './var' });
//   await store.createContainer({ name: 'cpu', type: 'TIME_SERIES', columns: [...] });
//   const cpu = store.session().container('cpu');
//   await cpu.multiPut(rows);
//   const rows = await cpu.scan({ from: t0, to: t1, direction: 'asc' });

import type { SqlDatabaseRow } from '../sql/meta/metatables.ts';
import { isAbsolute, join } from 'node:path';
import { Subscription, asyncScheduler, exhaustMap, timer, type SchedulerLike } from 'rxjs';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { PartitionId } from '../base/ids.ts';
import {
  blockSizeLimits, CHECKPOINT_PARTITIONS_IN_FLIGHT_MAX, CHECKPOINT_SYNCS_IN_FLIGHT_MAX,
  EXPIRY_SWEEP_INTERVAL_MS_DEFAULT, SESSION_COUNT_MAX,
} from '../base/limits.ts';
import type { StorageOptions } from '../base/options.ts';
import { backgroundScheduler } from '../io/background-scheduler.ts';
import { systemClock, type Clock } from '../io/clock.ts';
import { makeDirectoryDurable, type FileSystem } from '../io/file-system.ts';
import { NodeFileSystem } from '../io/node-file-system.ts';
import type { ContainerDefinition, ContainerSchema } from '../schema/container-schema.ts';
import type { TablePartitioning } from '../schema/table-partitioning.ts';
import type {
  ColumnSchema, IndexDefinition, IndexSelector,
} from '../schema/container-schema.ts';
import {
  containerPartitionId, partitionGroupOf, partitionGroupRange,
} from '../schema/partition-hash.ts';
import type { ContainerInfo } from './catalog.ts';
import { CheckpointGate, CheckpointPhase, type CheckpointGateShared } from './checkpoint-gate.ts';
import { expirySweep } from './partition-expiry.ts';
import type { BackupTarget, PartitionBackupReport } from './partition-backup.ts';
import type { Partition } from './partition.ts';
import {
  PartitionGroup, type CheckpointEvent, type RecoveryReport,
} from './partition-group.ts';
import { Session, type SessionOptions } from './session.ts';
import { collectStoreStats, type StoreStats } from './store-stats.ts';
import { readStorageConfig } from './store-config.ts';
import { checkStoreIdentity } from './store-identity.ts';
import { removeForeignJournalFiles } from '../../wal/journal-recovery.ts';

export interface StoreConfig {
  /** GS_HOME: relative dbPath and transactionLogPath are resolved against it. */
  home: string;
  /** Parsed options; when absent, read from the home's conf/gs_cluster.json and gs_node.json. */
  options?: StorageOptions;
  fileSystem?: FileSystem;
  clock?: Clock;
  /** gs_startnode --releaseUnusedFileBlocks: after recovery, punch a hole in every free data slot. */
  releaseUnusedFileBlocks?: boolean;
  /** Told of every checkpoint of every partition group (the node writes them to its event log). */
  onCheckpoint?: (event: CheckpointEvent) => void;
  /** Told of what degrades without failing (the commit journal's preallocation). */
  onWarning?: (message: string) => void;
  scheduler?: SchedulerLike;
  /**
   * The partition groups this Store opens (each in 0..concurrency-1, no repeats); all of them
   * when absent. Each group keeps its share of storeMemoryLimit (limit / concurrency) either way.
   */
  groupIndexes?: readonly number[];
  /**
   * The checkpoint counts shared with the Stores of other engine threads of the same node
   * (checkpoint-gate.ts): CHECKPOINT_PARTITIONS_IN_FLIGHT_MAX and CHECKPOINT_SYNCS_IN_FLIGHT_MAX
   * then bound them all together.
   */
  checkpointGateShared?: CheckpointGateShared;
  /** Between two expiry sweeps (partition-expiry.ts); EXPIRY_SWEEP_INTERVAL_MS_DEFAULT when absent. */
  expirySweepIntervalMs?: number;
}

/** Where a Store of `config` keeps its files: dbPath and transactionLogPath, resolved. */
interface StoreRoots {
  options: StorageOptions;
  fileSystem: FileSystem;
  dataRoot: string;
  transactionLogRoot: string;
}

export class Store {
  /** The groups this Store opened, in group order. */
  private readonly groups: PartitionGroup[];
  /** By group index; undefined for a group another Store serves. */
  private readonly groupByIndex: Array<PartitionGroup | undefined>;
  private readonly sessions = new Set<Session>();
  private nextSessionId = 1;
  private closed = false;
  private failure: unknown = undefined;
  recovery: RecoveryReport | undefined;
  private expiry: Subscription | undefined;
  /** Data partitions the expiry sweeps dropped, and sweeps that failed, since the open. */
  expiryDroppedCount = 0;
  expiryErrorCount = 0;

  private constructor(
    readonly options: StorageOptions,
    readonly fileSystem: FileSystem,
    readonly clock: Clock,
    private readonly groupIndexList: readonly number[],
    groups: (store: Store) => PartitionGroup[],
  ) {
    this.groups = groups(this);
    assert(this.groups.length === groupIndexList.length);
    this.groupByIndex = Array.from({ length: options.concurrency }, () => undefined);
    groupIndexList.forEach((index, i) => (this.groupByIndex[index] = this.groups[i]));
  }

  /**
   * What every open of a home does first: check the database identity (written on the first
   * start) and make the xlog directory. Idempotent; the node runs it once before its engine
   * threads open their groups, so that they never race to write the identity file.
   */
  static async prepareHome(config: StoreConfig): Promise<void> {
    const { options, fileSystem, dataRoot, transactionLogRoot } = storeRoots(config);
    await checkStoreIdentity(fileSystem, dataRoot, options);
    await makeDirectoryDurable(fileSystem, transactionLogRoot);
  }

  /**
   * After every partition group of the home has recovered (in this Store or in several): deletes
   * commit journal files that no current group's range contains, left by a start with another
   * /dataStore/concurrency (their records are in synced xlogs now).
   */
  static async removeStaleJournals(config: StoreConfig): Promise<void> {
    const { options, fileSystem, transactionLogRoot } = storeRoots(config);
    const ranges = Array.from({ length: options.concurrency },
      (_, index) => partitionGroupRange(index, options));
    await removeForeignJournalFiles(fileSystem, transactionLogRoot, ranges);
  }

  static async open(config: StoreConfig): Promise<Store> {
    const { options, fileSystem, dataRoot, transactionLogRoot } = storeRoots(config);
    const groupIndexes = storeGroupIndexes(config.groupIndexes, options.concurrency);
    const clock = config.clock ?? systemClock;
    const scheduler = config.scheduler ?? asyncScheduler;
    const periodicScheduler = config.scheduler ?? backgroundScheduler;
    await Store.prepareHome({ ...config, options, fileSystem });
    const limits = blockSizeLimits(options.storeBlockSizeBytes);
    const checkpointGate = new CheckpointGate(CHECKPOINT_PARTITIONS_IN_FLIGHT_MAX,
      config.checkpointGateShared, CheckpointPhase.WRITE);
    const checkpointSyncGate = new CheckpointGate(CHECKPOINT_SYNCS_IN_FLIGHT_MAX,
      config.checkpointGateShared, CheckpointPhase.SYNC);
    const store = new Store(options, fileSystem, clock, groupIndexes, (self) =>
      groupIndexes.map((index) => new PartitionGroup({
        groupCount: options.concurrency,
        index, options, limits, fileSystem, clock, scheduler, periodicScheduler, transactionLogRoot,
        dataRoot, releaseUnusedFileBlocks: config.releaseUnusedFileBlocks ?? false, checkpointGate,
        checkpointSyncGate,
        onCheckpoint: config.onCheckpoint,
        onWarning: config.onWarning,
        onSyncError: (error) => self.fail(error),
      })));
    const recoveries = await Promise.allSettled(store.groups.map((group) => group.recover()));
    const failed = recoveries.find((recovery) => recovery.status === 'rejected');
    if (failed !== undefined) {
      await store.abandonStart().catch(() => undefined);
      throw failed.reason;
    }
    const reports = recoveries.map((recovery) => (recovery as PromiseFulfilledResult<RecoveryReport>).value);
    // One sweep at once (what expired while the node was down), then every interval; a sweep still
    // running when the next is due is not doubled.
    store.expiry = timer(0, config.expirySweepIntervalMs ?? EXPIRY_SWEEP_INTERVAL_MS_DEFAULT, periodicScheduler)
      .pipe(exhaustMap(() => expirySweep(store).then((report) => {
        store.expiryDroppedCount += report.droppedCount;
      }, (error: unknown) => {
        store.expiryErrorCount++;
        config.onWarning?.(`expiry sweep failed: ${error instanceof Error ? error.message : String(error)}`);
      })))
      .subscribe();
    store.recovery = recoveryReportSum(reports);
    // Files of another layout are safe to delete only once every group has recovered.
    if (groupIndexes.length === options.concurrency) {
      await Store.removeStaleJournals({ ...config, options, fileSystem });
    }
    return store;
  }

  // ---- routing ---------------------------------------------------------------------------------

  partitionIdOf(containerName: string): PartitionId {
    return containerPartitionId(containerName, this.options.partitionNum);
  }

  /** The partition that owns a container name; the name is checked for type only here. */
  partitionFor(containerName: unknown): Partition {
    this.checkOpen();
    if (typeof containerName !== 'string' || containerName.length === 0) {
      throw new StorageError('INVALID_NAME', 'a container name must be a non-empty string');
    }
    const id = this.partitionIdOf(containerName);
    return this.ownerOf(id).partition(id);
  }

  /** The indexes of the partition groups this Store serves, ascending. */
  get groupIndexes(): readonly number[] {
    return this.groupIndexList;
  }

  /** Whether this Store serves the partition (every partition, unless opened with groupIndexes). */
  ownsPartition(partitionId: PartitionId): boolean {
    return this.groupByIndex[partitionGroupOf(partitionId, this.options)] !== undefined;
  }

  private ownerOf(partitionId: PartitionId): PartitionGroup {
    const groupIndex = partitionGroupOf(partitionId, this.options);
    const group = this.groupByIndex[groupIndex];
    if (group === undefined) {
      throw new StorageError('PARTITION_NOT_OWNED', `partition ${partitionId} belongs to ` +
        `partition group ${groupIndex}, which this engine does not serve`);
    }
    return group;
  }

  /**
   * Syncs the xlog of the partition that owns `containerName` up to its last record (GridDB's
   * gsFlush); resolves at once when nothing is unsynced.
   */
  async syncPartitionLog(containerName: string): Promise<void> {
    await this.partitionFor(containerName).log.syncAppended();
  }

  // ---- catalog ---------------------------------------------------------------------------------

  async createContainer(definition: ContainerDefinition): Promise<ContainerInfo> {
    const name = (definition as { name?: unknown } | null)?.name;
    return this.partitionFor(name).createContainer(definition, this.options.transactionTimeoutLimitMs);
  }

  /**
   * Drops a container once no transaction holds it, waiting `timeoutMs` at most (the caller's
   * transaction timeout; the node's limit when absent), LOCK_TIMEOUT after.
   */
  async dropContainer(name: string, timeoutMs?: number): Promise<boolean> {
    const limitMs = this.options.transactionTimeoutLimitMs;
    return this.partitionFor(name).dropContainer(name, Math.min(timeoutMs ?? limitMs, limitMs));
  }

  async addColumn(name: string, column: ColumnSchema): Promise<ContainerInfo> {
    return this.partitionFor(name).addColumn(name, column, this.options.transactionTimeoutLimitMs);
  }

  async setPartitioning(name: string, partitioning: TablePartitioning): Promise<ContainerInfo> {
    return this.partitionFor(name).setPartitioning(name, partitioning, this.options.transactionTimeoutLimitMs);
  }

  async renameColumn(name: string, columns: { fromName: string; toName: string }) {
    return this.partitionFor(name).renameColumn(name, columns, this.options.transactionTimeoutLimitMs);
  }

  /**
   * Creates a secondary index: `{ columnNames, type: 'TREE', name? }` (docs/data-model.md "Secondary indexes").
   * False when it exists already.
   */
  async createIndex(name: string, index: IndexDefinition): Promise<boolean> {
    return this.partitionFor(name).createIndex(name, index, this.options.transactionTimeoutLimitMs);
  }

  /** Drops the indexes named by `{ name }` or `{ columnNames, type? }`; how many went (0 is fine). */
  async dropIndex(name: string, selector: IndexSelector): Promise<number> {
    return this.partitionFor(name).dropIndex(name, selector, this.options.transactionTimeoutLimitMs);
  }

  /** SQL's views (ContainerSchema.view): kept in the partition of their name, as containers are. */
  async createView(view: { name: string; definition: string }): Promise<void> {
    return this.partitionFor(view.name).createView(view, this.options.transactionTimeoutLimitMs);
  }

  async dropView(name: string): Promise<boolean> {
    return this.partitionFor(name).dropView(name, this.options.transactionTimeoutLimitMs);
  }

  view(name: string): ContainerSchema | undefined {
    return this.partitionFor(name).view(name);
  }

  /** Every view of the partitions this store serves, in name order. */
  listViews(): ContainerSchema[] {
    this.checkOpen();
    const views = this.groups.flatMap((group) => group.partitions.flatMap((p) => p.catalog.views()));
    return views.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  getContainerInfo(name: string): ContainerInfo | undefined {
    return this.partitionFor(name).info(name);
  }

  /** Every container name, in UTF-16 code-unit order (as GridDB's container list). */
  listContainers(): string[] {
    this.checkOpen();
    const names = this.groups.flatMap((group) => group.partitions.flatMap((p) => p.catalog.names()));
    return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  // ---- sessions --------------------------------------------------------------------------------

  session(options: SessionOptions = {}): Session {
    this.checkOpen();
    if (this.sessions.size >= SESSION_COUNT_MAX) {
      throw new StorageError('LIMIT_EXCEEDED', `at most ${SESSION_COUNT_MAX} sessions may be open`);
    }
    const requestedMs = options.transactionTimeoutMs;
    if (requestedMs !== undefined && !(Number.isSafeInteger(requestedMs) && requestedMs > 0)) {
      throw new StorageError('CONFIG_INVALID',
        `transactionTimeoutMs must be a positive whole number of ms, not ${String(requestedMs)}`);
    }
    const timeoutMs = Math.min(requestedMs ?? Infinity,
      this.options.transactionTimeoutLimitMs);
    const session = new Session(this, this.nextSessionId++, timeoutMs, () => this.sessions.delete(session));
    this.sessions.add(session);
    return session;
  }

  /** Aborts the open transactions of a session in every partition (the session closed). */
  closeSessionTransactions(sessionId: number): void {
    for (const group of this.groups) {
      for (const partition of group.partitions) partition.closeSession(sessionId);
    }
  }

  // ---- life ------------------------------------------------------------------------------------

  get partitionGroups(): readonly PartitionGroup[] {
    return this.groups;
  }

  /** The storage figures of the node status report, from live counters (store-stats.ts). */
  stats(): StoreStats {
    this.checkOpen();
    return collectStoreStats(this.groups, {
      blockSizeBytes: this.options.storeBlockSizeBytes,
      compressionMode: this.options.storeCompressionMode,
    });
  }

  /** Evicts every block the buffer pools may drop now; returns how many went. */
  evictAll(): number {
    this.checkOpen();
    return this.groups.reduce((count, group) => count + group.pool.evictAll(), 0);
  }

  /**
   * Checkpoints every partition that changed since its last checkpoint. `trigger` says why, for
   * the status report: an operator's request (the default), or the node's own right after
   * recovery.
   */
  async checkpoint(trigger: 'requested' | 'recovery' = 'requested'): Promise<void> {
    this.checkOpen();
    await Promise.all(this.groups.map((group) => group.checkpoint(trigger)));
  }

  /**
   * A backup of this Store's partitions into `target` (PartitionGroup.backup), its groups in
   * parallel; the reports in partition order.
   */
  async backup(target: BackupTarget): Promise<PartitionBackupReport[]> {
    const reports = await Promise.all(this.groups.map((group) => group.backup(target)));
    return reports.flat().sort((a, b) => a.partitionId - b.partitionId);
  }

  /** Punches every free data-file slot of this store's partitions; how many (partition-expiry.ts). */
  releaseFreeSlots(): number {
    this.checkOpen();
    let released = 0;
    for (const group of this.groups) {
      for (const partition of group.partitions) released += partition.checkpointer?.releaseUnusedFileBlocks() ?? 0;
    }
    return released;
  }

  /**
   * The databases besides public, as the node's access catalog holds them (lib/access/), for
   * "#databases"; the node sets them at start and after each CREATE/DROP DATABASE.
   */
  databases: readonly SqlDatabaseRow[] = [];

  /** Periodic checkpoints on or off (gs_checkpoint --on / --off); on at every start. */
  get periodicCheckpointEnabled(): boolean {
    return this.groups.every((group) => group.periodicCheckpointEnabled);
  }

  set periodicCheckpointEnabled(enabled: boolean) {
    this.checkOpen();
    for (const group of this.groups) group.periodicCheckpointEnabled = enabled;
  }

  /** storeMemoryLimit while the node runs (gs_paramconf --set): every group's pool share. */
  setStoreMemoryLimit(memoryLimitBytes: number): void {
    this.checkOpen();
    for (const group of this.groups) group.setStoreMemoryLimit(memoryLimitBytes);
  }

  /** The last LSN applied in a partition (gs_partition's lsn). */
  partitionLsn(partitionId: PartitionId): bigint | number {
    this.checkOpen();
    if (!Number.isSafeInteger(partitionId) || partitionId < 0 ||
      partitionId >= this.options.partitionNum) {
      throw new StorageError('CONFIG_INVALID', `no partition ${partitionId}`);
    }
    return this.ownerOf(partitionId).partition(partitionId).log.lastAppliedLsn;
  }

  /** Sessions open now. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Transactions open now (manual-commit transactions with changes or locks), every partition. */
  get openTransactionCount(): number {
    let count = 0;
    for (const group of this.groups) {
      for (const partition of group.partitions) count += partition.openTransactionCount;
    }
    return count;
  }

  /**
   * Clean shutdown: open transactions are aborted, every partition is checkpointed and every
   * acknowledged record synced.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.expiry?.unsubscribe();
    for (const session of [...this.sessions]) session.close();
    this.closed = true;
    await Promise.all(this.groups.map((group) => group.close()));
  }

  /**
   * After a start that failed (recovery here, or a later step of the node's start): closes every
   * file with no checkpoint and no sync, and takes back what the start wrote that nothing needs
   * (PartitionGroup.abandonStart), so a failed start takes no disk space.
   */
  async abandonStart(): Promise<void> {
    if (this.closed) return;
    this.expiry?.unsubscribe();
    for (const session of [...this.sessions]) session.close();
    this.closed = true;
    const abandons = await Promise.allSettled(this.groups.map((group) => group.abandonStart()));
    const failed = abandons.find((abandon) => abandon.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  checkOpen(): void {
    if (this.failure !== undefined) {
      throw new StorageError('IO', `the store stopped after an I/O error; restart to recover: ${
        this.failure instanceof Error ? this.failure.message : String(this.failure)}`,
      { cause: this.failure });
    }
    if (this.closed) throw new StorageError('CLOSED', 'the store is closed');
  }

  private fail(error: unknown): void {
    this.failure ??= error;
  }
}

/** The recovery of several groups that recovered at once: counts summed, the longest duration. */
export function recoveryReportSum(reports: readonly RecoveryReport[]): RecoveryReport {
  assert(reports.length > 0);
  return reports.reduce((total, report) => ({
    partitionCount: total.partitionCount + report.partitionCount,
    recordCount: total.recordCount + report.recordCount,
    journaledRecordCount: total.journaledRecordCount + report.journaledRecordCount,
    journalTornBytes: total.journalTornBytes + report.journalTornBytes,
    rowCount: total.rowCount + report.rowCount,
    tornBytes: total.tornBytes + report.tornBytes,
    tornTails: [...total.tornTails, ...report.tornTails],
    restoredBlockCount: total.restoredBlockCount + report.restoredBlockCount,
    releasedSlotCount: total.releasedSlotCount + report.releasedSlotCount,
    durationMs: Math.max(total.durationMs, report.durationMs),
  }));
}

function storeRoots(config: StoreConfig): StoreRoots {
  const fileSystem = config.fileSystem ?? new NodeFileSystem();
  const options = config.options ?? readStorageConfig(fileSystem, config.home);
  const resolve = (path: string) => (isAbsolute(path) ? path : join(config.home, path));
  return {
    options, fileSystem,
    dataRoot: resolve(options.dbPath), transactionLogRoot: resolve(options.transactionLogPath),
  };
}

/** The groups a Store opens: the ones asked for (checked), else all of them. */
function storeGroupIndexes(asked: readonly number[] | undefined, concurrency: number): number[] {
  if (asked === undefined) return Array.from({ length: concurrency }, (_, index) => index);
  const valid = asked.length > 0 && new Set(asked).size === asked.length &&
    asked.every((index) => Number.isInteger(index) && index >= 0 && index < concurrency);
  if (!valid) {
    throw new StorageError('CONFIG_INVALID', `groupIndexes ${JSON.stringify(asked)} must name ` +
      `distinct partition groups of 0..${concurrency - 1}`);
  }
  return [...asked].sort((a, b) => a - b);
}
