// What an engine thread holds: the Store (of its partition group, or of every group) and the
// RequestRunner over it, and the calls the node makes of them (engine-messages.ts). The same code
// serves each worker (engine-worker.ts) and the in-thread engine that benchmarks compare them
// with (node-engine.ts).

import { threadId } from 'node:worker_threads';
import { assert } from '../../base/assert.ts';
import { StorageError } from '../../base/errors.ts';
import {
  STATEMENT_RESULT_COUNT_MAX, STATEMENT_RESULT_COUNT_PER_CLIENT_MAX,
} from '../../base/limits.ts';
import type { PartitionId } from '../../base/ids.ts';
import { Store } from '../../engine/store.ts';
import { errorFrame, type RequestFrame } from '../../server/reply-frames.ts';
import {
  LocalRequestRunner, type ConnectionSetup, type RunOutcome,
} from '../../server/request-runner.ts';
import { tqlQueryHandler } from '../../server/tql-query-handler.ts';
import { slowQueryHandler, type SlowQueryRecord } from '../../server/slow-query-handler.ts';
import type { SqlPeers } from '../../server/sql-peers.ts';
import { offsetClock, systemClock } from '../../io/clock.ts';
import {
  errorData, type CheckpointNotice, type EngineCall, type EngineOpenSettings, type EngineOpened,
  type EngineStatus,
} from './engine-messages.ts';

export interface EngineCoreEvents {
  checkpoint(notice: CheckpointNotice): void;
  warning(message: string): void;
  /** A query over the slow-query threshold (EngineOpenSettings.slowQuery). */
  slowQuery?(record: SlowQueryRecord): void;
  /**
   * A request hit a bug (LocalRunnerOptions.onFailure): the engine's state may be half-applied,
   * so its thread must stop before anything else runs in it (fail-stop).
   */
  failed(error: unknown): void;
  /** The other engine threads, for SQL spanning partition groups (EngineOpenSettings.sqlPeers). */
  sqlPeers?: SqlPeers;
}

export class EngineCore {
  private store: Store | undefined;
  private runnerOpen: LocalRequestRunner | undefined;

  constructor(private readonly events: EngineCoreEvents) {}

  /** Runs a request; once the store is closed, it is answered CLOSED. */
  async request(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    const runner = this.runnerOpen;
    if (runner === undefined) return closedOutcome(frame);
    return runner.run(connectionId, frame);
  }

  /** A MULTI_PUT's checks without its writes (LocalRequestRunner.check). */
  async check(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    const runner = this.runnerOpen;
    if (runner === undefined) return closedOutcome(frame);
    return runner.check(connectionId, frame);
  }

  connectionOpened(connectionId: number, setup: ConnectionSetup): void {
    this.runnerOpen?.connectionOpened(connectionId, setup);
  }

  connectionClosed(connectionId: number): void {
    this.runnerOpen?.connectionClosed(connectionId);
  }

  /** Carries out a call; its answer is plain data. */
  async call(call: EngineCall): Promise<unknown> {
    switch (call.kind) {
      case 'open': return this.open(call.settings);
      case 'status': return this.status();
      case 'partitionLsns': {
        // Every partition's, 0 for those of groups another engine thread serves.
        const store = this.requireStore();
        return Array.from({ length: store.options.partitionNum }, (_, pId) =>
          (store.ownsPartition(pId as PartitionId)
            ? Number(store.partitionLsn(pId as PartitionId)) : 0));
      }
      case 'checkpoint': return this.requireStore().checkpoint(call.trigger);
      case 'backup': return this.requireStore().backup(call.target);
      case 'setPeriodicCheckpoint':
        this.requireStore().periodicCheckpointEnabled = call.enabled;
        return undefined;
      case 'setDatabases':
        this.requireStore().databases = call.databases;
        return undefined;
      case 'setStoreMemoryLimit':
        this.requireStore().setStoreMemoryLimit(call.memoryLimitBytes);
        return undefined;
      case 'sqlPeer': {
        const runner = this.runnerOpen;
        if (runner === undefined) throw new StorageError('CLOSED', 'the node is stopping');
        return runner.sqlPeerAnswer(call.call);
      }
      case 'close': return this.close(call.abandon ?? false);
    }
  }

  private async open(settings: EngineOpenSettings): Promise<EngineOpened> {
    assert(this.store === undefined, 'the engine opens its store once');
    const store = await Store.open({
      home: settings.home, options: settings.options,
      releaseUnusedFileBlocks: settings.releaseUnusedFileBlocks,
      ...(settings.testClockOffsetMs === undefined ? {} : { clock: offsetClock(settings.testClockOffsetMs) }),
      ...(settings.groupIndexes === undefined ? {} : { groupIndexes: settings.groupIndexes }),
      ...(settings.checkpointGateShared === undefined
        ? {} : { checkpointGateShared: settings.checkpointGateShared }),
      onCheckpoint: (event) => this.events.checkpoint(
        event.kind === 'failed' || event.kind === 'cleanupFailed'
          ? { ...event, error: errorData(event.error) } : event),
      onWarning: (message) => this.events.warning(message),
    });
    this.store = store;
    this.runnerOpen = new LocalRequestRunner(store, {
      queryHandler: settings.slowQuery === undefined ? tqlQueryHandler
        : slowQueryHandler(tqlQueryHandler, {
          ...settings.slowQuery, monotonicMs: () => systemClock.monotonicMs(),
          onSlow: (record) => this.events.slowQuery?.(record),
        }),
      messageBytesMax: settings.messageBytesMax,
      ...(settings.sqlWorkMemoryLimitBytes === undefined
        ? {} : { sqlWorkMemoryLimitBytes: settings.sqlWorkMemoryLimitBytes }),
      ...(settings.sqlPartitioningRowkeyConstraint === undefined
        ? {} : { sqlPartitioningRowkeyConstraint: settings.sqlPartitioningRowkeyConstraint }),
      ...(settings.sqlCostBasedJoin === undefined ? {} : { sqlCostBasedJoin: settings.sqlCostBasedJoin }),
      statementResultCountMax: STATEMENT_RESULT_COUNT_MAX,
      statementResultCountPerClientMax: STATEMENT_RESULT_COUNT_PER_CLIENT_MAX,
      onFailure: (error) => this.events.failed(error),
      ...(settings.faultAssertOnContainer === undefined
        ? {} : { faultAssertOnContainer: settings.faultAssertOnContainer }),
      ...(settings.sqlPeers === true && this.events.sqlPeers !== undefined
        ? { sqlPeers: this.events.sqlPeers } : {}),
    });
    assert(store.recovery !== undefined);
    return { info: this.runnerOpen.info, recovery: store.recovery };
  }

  private status(): EngineStatus {
    const store = this.requireStore();
    return {
      stats: store.stats(),
      sessionCount: store.sessionCount,
      openTransactionCount: store.openTransactionCount,
      periodicCheckpointEnabled: store.periodicCheckpointEnabled,
      threadIds: [threadId],
    };
  }

  /**
   * Ends every connection's sessions, then closes the store (a checkpoint, every commit synced),
   * or abandons it after a failed start (Store.abandonStart).
   */
  private async close(abandon: boolean): Promise<void> {
    const { store } = this;
    if (store === undefined) return;
    this.runnerOpen?.closeAll();
    this.runnerOpen = undefined;
    this.store = undefined;
    await (abandon ? store.abandonStart() : store.close());
  }

  private requireStore(): Store {
    if (this.store === undefined) throw new StorageError('CLOSED', 'the store is not open');
    return this.store;
  }
}

function closedOutcome(frame: RequestFrame): RunOutcome {
  return { bytes: errorFrame(frame, new StorageError('CLOSED', 'the node is stopping')) };
}
