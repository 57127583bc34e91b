// The node's engine as one worker thread per partition group (`/dataStore/concurrency` of them):
// worker g holds a Store of group g alone (the partitions partitionGroupRange gives it) and
// opens, recovers, checkpoints and serves only those, within its group's share of
// storeMemoryLimit. Requests go to the worker of their container through the routing runner
// (lib/server/routing-request-runner.ts); the node's calls go to every worker and their answers
// are combined: counters summed, each partition's LSN from its own worker.
//
// Opening: the home is prepared once here (the database identity, written on the first start),
// then every worker recovers its group at the same time. If one fails to open, the others are
// closed and the open fails with the first failure in group order. A worker that dies later
// takes the node down (events.failed), as the single engine thread did.

import { assert } from '../../base/assert.ts';
import type { StorageOptions } from '../../base/options.ts';
import type { BackupTarget, PartitionBackupReport } from '../../engine/partition-backup.ts';
import type { RecoveryReport } from '../../engine/partition-group.ts';
import { mergeStoreStats } from '../../engine/store-stats.ts';
import { checkpointGateSharedCreate } from '../../engine/checkpoint-gate.ts';
import { Store, recoveryReportSum } from '../../engine/store.ts';
import { partitionGroupOf } from '../../schema/partition-hash.ts';
import type { RequestRunner } from '../../server/request-runner.ts';
import { RoutingRequestRunner } from '../../server/routing-request-runner.ts';
import type { SqlDatabaseRow } from '../../sql/meta/metatables.ts';
import type { SqlPeerCall } from '../../server/sql-peers.ts';
import type { EngineOpenSettings, EngineStatus } from './engine-messages.ts';
import type { NodeEngine, NodeEngineEvents } from './node-engine.ts';
import { WorkerEngine } from './worker-engine.ts';

export class GroupWorkersEngine implements NodeEngine {
  readonly thread = 'worker';
  readonly runner: RequestRunner;
  readonly recovery: RecoveryReport;

  private constructor(
    private readonly workers: readonly WorkerEngine[],
    private readonly options: StorageOptions,
    settings: EngineOpenSettings,
  ) {
    const routing = new RoutingRequestRunner(workers, {
      partitionNum: options.partitionNum,
      messageBytesMax: settings.messageBytesMax,
    });
    this.runner = routing;
    for (const worker of workers) worker.onSqlPeer = (call) => sqlPeerRouted(workers, routing, call);
    this.recovery = recoveryReportSum(workers.map((worker) => worker.recovery));
  }

  static async open(
    settings: EngineOpenSettings,
    events: NodeEngineEvents,
  ): Promise<GroupWorkersEngine> {
    const { options } = settings;
    await Store.prepareHome({ home: settings.home, options });
    // One checkpoint count for every worker: they share the thread pool's syncs and the disk.
    const checkpointGateShared = settings.checkpointGateShared ?? checkpointGateSharedCreate();
    const opens = await Promise.allSettled(Array.from({ length: options.concurrency },
      (_, groupIndex) => WorkerEngine.open(
        { ...settings, groupIndexes: [groupIndex], checkpointGateShared, sqlPeers: options.concurrency > 1 },
        events)));
    const workers = opens.flatMap((open) => (open.status === 'fulfilled' ? [open.value] : []));
    const failed = opens.find((open) => open.status === 'rejected');
    if (failed !== undefined) {
      // Those that opened take back what they wrote: a failed start leaves what it found.
      await Promise.all(workers.map((worker) =>
        worker.close({ abandon: true }).catch(() => undefined)));
      throw failed.reason;
    }
    await Store.removeStaleJournals({ home: settings.home, options });
    return new GroupWorkersEngine(workers, options, settings);
  }

  /** Engine threads: one per partition group. */
  get workerCount(): number {
    return this.workers.length;
  }

  async status(): Promise<EngineStatus> {
    const parts = await Promise.all(this.workers.map((worker) => worker.status()));
    return {
      stats: mergeStoreStats(parts.map((part) => part.stats),
        { blockSizeBytes: this.options.storeBlockSizeBytes }),
      // Every worker holds every connection's sessions (a session spans the groups).
      sessionCount: Math.max(...parts.map((part) => part.sessionCount)),
      openTransactionCount: parts.reduce((sum, part) => sum + part.openTransactionCount, 0),
      periodicCheckpointEnabled: parts.every((part) => part.periodicCheckpointEnabled),
      threadIds: parts.flatMap((part) => part.threadIds),
    };
  }

  async partitionLsns(): Promise<number[]> {
    const parts = await Promise.all(this.workers.map((worker) => worker.partitionLsns()));
    return Array.from({ length: this.options.partitionNum },
      (_, pId) => parts[partitionGroupOf(pId, this.options)]![pId]!);
  }

  async checkpoint(trigger: 'requested' | 'recovery'): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.checkpoint(trigger)));
  }

  async backup(target: BackupTarget): Promise<PartitionBackupReport[]> {
    const parts = await Promise.all(this.workers.map((worker) => worker.backup(target)));
    return parts.flat().sort((a, b) => a.partitionId - b.partitionId);
  }

  async setPeriodicCheckpoint(enabled: boolean): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.setPeriodicCheckpoint(enabled)));
  }

  async setDatabases(databases: SqlDatabaseRow[]): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.setDatabases(databases)));
  }

  async setStoreMemoryLimit(memoryLimitBytes: number): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.setStoreMemoryLimit(memoryLimitBytes)));
  }

  /** The worker of one partition group dies at once (WorkerEngine.crash): for fault tests. */
  async crashWorker(groupIndex: number): Promise<void> {
    const worker = this.workers[groupIndex];
    assert(worker !== undefined, `no worker for partition group ${groupIndex}`);
    await worker.crash();
  }

  /**
   * Closes every worker (each checkpoints and syncs its group, or with `abandon` takes back what a
   * failed start wrote); the first failure is thrown.
   */
  async close(options: { abandon?: boolean } = {}): Promise<void> {
    const closes = await Promise.allSettled(this.workers.map((worker) => worker.close(options)));
    const failed = closes.find((close) => close.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }
}

/**
 * A statement's question to the other groups (lib/server/sql-peers.ts): a metatable's rows from
 * every worker, joined in group order; a table's schema or page from the worker of its group.
 */
async function sqlPeerRouted(workers: readonly WorkerEngine[], routing: RoutingRequestRunner,
  call: SqlPeerCall): Promise<unknown> {
  switch (call.kind) {
    case 'metatableRows': {
      const parts = await Promise.all(workers.map((worker) => worker.sqlPeer(call)));
      return (parts as unknown[][]).flat();
    }
    case 'tableSchema': case 'view': return workers[routing.groupOf(call.name)]!.sqlPeer(call);
    case 'scanPage': return workers[routing.groupOf(call.table)]!.sqlPeer(call);
  }
}
