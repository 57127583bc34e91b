// The engine as the node's main thread sees it: a RequestRunner for the transaction server and
// the calls of the system service, all asynchronous, because in the node the engine runs in
// worker threads, one per partition group (group-workers-engine.ts, each worker a
// worker-engine.ts). The in-thread engine (in-thread-engine.ts) runs the same EngineCore over
// every group in the main thread; benchmarks compare the two (docs/benchmarks.md: "Thread or
// worker").

import type { SqlDatabaseRow } from '../../sql/meta/metatables.ts';
import type { BackupTarget, PartitionBackupReport } from '../../engine/partition-backup.ts';
import type { RecoveryReport } from '../../engine/partition-group.ts';
import type { RequestRunner } from '../../server/request-runner.ts';
import type { SlowQueryRecord } from '../../server/slow-query-handler.ts';
import type { CheckpointNotice, EngineOpenSettings, EngineStatus } from './engine-messages.ts';
import { GroupWorkersEngine } from './group-workers-engine.ts';
import { InThreadEngine } from './in-thread-engine.ts';

/** Where the engine runs: a worker per partition group (the node's default) or the main thread. */
export type EngineThread = 'worker' | 'main';

/**
 * How a node picks its engine threads: `auto` runs a worker per partition group only when the
 * machine has a core for each of them beside the main thread, which reads the sockets; otherwise
 * every group runs in the main thread. On the two-core machines this was measured on, the main
 * thread was faster (docs/benchmarks.md, "Thread or worker": 0.77x batched ingest and 0.87x
 * durable puts with four workers).
 */
export type EngineThreadChoice = EngineThread | 'auto';

export function resolveEngineThread(
  choice: EngineThreadChoice,
  machine: { concurrency: number; coreCount: number },
): EngineThread {
  if (choice !== 'auto') return choice;
  return machine.coreCount > machine.concurrency ? 'worker' : 'main';
}

export interface NodeEngineEvents {
  checkpoint(notice: CheckpointNotice): void;
  /** Something degraded without failing (the commit journal's preallocation). */
  warning(message: string): void;
  /** A query over the slow-query threshold (EngineOpenSettings.slowQuery). */
  slowQuery?(record: SlowQueryRecord): void;
  /**
   * The engine failed: a request hit a bug, or an engine thread died. Its state may be
   * half-applied and it is unusable from now on: the node must stop at once (fail-stop).
   */
  failed(error: unknown): void;
}

export interface NodeEngine {
  readonly thread: EngineThread;
  /** Worker threads the engine runs in: one per partition group, or none (the main thread). */
  readonly workerCount: number;
  readonly runner: RequestRunner;
  readonly recovery: RecoveryReport;
  status(): Promise<EngineStatus>;
  /** The last LSN of every partition, by partition id. */
  partitionLsns(): Promise<number[]>;
  checkpoint(trigger: 'requested' | 'recovery'): Promise<void>;
  setPeriodicCheckpoint(enabled: boolean): Promise<void>;
  /** A checkpoint, then every partition's files copied into `target` (Store.backup). */
  backup(target: BackupTarget): Promise<PartitionBackupReport[]>;
  /** storeMemoryLimit while running (gs_paramconf): every group's pool takes its share. */
  setStoreMemoryLimit(memoryLimitBytes: number): Promise<void>;
  /** The databases besides public, for every group's "#databases". */
  setDatabases(databases: SqlDatabaseRow[]): Promise<void>;
  /**
   * Closes every session and the store (a checkpoint; every commit synced), then the thread. With
   * `abandon` (a start that failed): no checkpoint, and what the start wrote is taken back.
   */
  close(options?: { abandon?: boolean }): Promise<void>;
}

/** Opens the store (recovery included) in the chosen thread. */
export async function openNodeEngine(
  thread: EngineThread,
  settings: EngineOpenSettings,
  events: NodeEngineEvents,
): Promise<NodeEngine> {
  return thread === 'worker'
    ? GroupWorkersEngine.open(settings, events) : InThreadEngine.open(settings, events);
}
