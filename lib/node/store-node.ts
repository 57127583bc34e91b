// A node: the configuration of its home, its store, its transaction service (clients) and its
// system service (the operating commands), and its event log, started and stopped in order.
//
// Start: read GS_HOME (default files on the first start) → event log → system service (so
// gs_stat answers while recovery runs, with recovery.progressRate 0) → open the store (recovery)
// → a checkpoint when recovery replayed anything, so the next start replays nothing → transaction
// service → ACTIVE. Stop: no new clients → their sessions close (open transactions abort) →
// the store closes (a checkpoint; every acknowledged commit synced) → system service → log.

import { randomUUID } from 'node:crypto';
import { StorageError } from '../base/errors.ts';
import type { PartitionId } from '../base/ids.ts';
import { prepareNodeHome, type NodeHome } from '../config/node-home.ts';
import type { HomeEnvironment } from '../config/home.ts';
import { Store } from '../engine/store.ts';
import { emptyStoreStats } from '../engine/store-stats.ts';
import { systemClock, type Clock } from '../io/clock.ts';
import type { ComponentLog } from '../io/event-log.ts';
import { TransactionServer } from '../server/transaction-server.ts';
import { nodeStatusReport, type NodeEndpoint } from './node-status.ts';
import { SystemServer, type SystemServiceNode } from './system-server.ts';

export const NODE_VERSION = '0.1.0-1 CE';

export interface StoreNodeOptions extends HomeEnvironment {
  clock?: Clock;
  /** gs_startnode --releaseUnusedFileBlocks. */
  releaseUnusedFileBlocks?: boolean;
  /** Called once the node has stopped, by request (gs_stopnode) or by stop(). */
  onStopped?: (error: unknown) => void;
}

type NodeStatus = 'INACTIVE' | 'ACTIVE' | 'NORMAL_SHUTDOWN' | 'ABNORMAL';

export class StoreNode implements SystemServiceNode {
  private store: Store | undefined;
  private transactionServer: TransactionServer | undefined;
  private readonly systemServer: SystemServer;
  private status: NodeStatus = 'INACTIVE';
  private recoveryDone = false;
  private readonly startupTimeMs: number;
  private readonly clusterRevisionId = randomUUID();
  private readonly log: ComponentLog;
  private stopping: Promise<void> | undefined;
  private peakProcessMemoryBytes = 0;
  readonly partitionNum: number;
  /** Where the services listen (ports resolved when configured as 0). */
  systemEndpoint: NodeEndpoint;
  transactionEndpoint: NodeEndpoint;

  private constructor(
    readonly home: NodeHome,
    private readonly options: StoreNodeOptions,
    private readonly clock: Clock,
  ) {
    this.startupTimeMs = clock.nowMs();
    this.log = home.eventLog.component('systemService');
    this.partitionNum = home.config.storage.partitionNum;
    this.systemEndpoint = { ...home.config.node.services.system };
    this.transactionEndpoint = { ...home.config.node.services.transaction };
    this.systemServer = new SystemServer(this);
  }

  /** Starts a node on its home; throws (CONFIG_INVALID, IO, ...) with nothing left running. */
  static async start(options: StoreNodeOptions): Promise<StoreNode> {
    const clock = options.clock ?? systemClock;
    const home = await prepareNodeHome({ ...options, clock });
    const node = new StoreNode(home, options, clock);
    try {
      await node.run();
    } catch (error) {
      home.eventLog.error('systemService', error, { while: 'starting' });
      await node.shutdownServices().catch(() => undefined);
      await home.eventLog.close();
      throw error;
    }
    return node;
  }

  private async run(): Promise<void> {
    const { config, directories } = this.home;
    const events = this.home.eventLog;
    events.nodeStarting({
      home: directories.home, clusterName: config.cluster.clusterName, version: NODE_VERSION,
    });
    this.systemEndpoint = await this.systemServer.listen(this.systemEndpoint);
    const startedMs = this.clock.monotonicMs();
    const store = this.store = await Store.open({
      home: directories.home, options: config.storage,
      releaseUnusedFileBlocks: this.options.releaseUnusedFileBlocks ?? false,
      onCheckpoint: (event) => {
        const fields = { partitionGroup: event.groupIndex, trigger: event.trigger };
        if (event.kind === 'started') events.checkpointStarted(fields);
        else if (event.kind === 'completed') {
          events.checkpointCompleted({ ...fields, durationMs: Math.round(event.durationMs) });
        } else events.error('checkpointService', event.error, fields);
      },
    });
    const recovery = store.recovery!;
    events.recoveryCompleted({
      replayedRecords: recovery.recordCount, replayedRows: recovery.rowCount,
      restoredBlocks: recovery.restoredBlockCount, releasedSlots: recovery.releasedSlotCount,
      durationMs: Math.round(this.clock.monotonicMs() - startedMs),
    });
    if (recovery.recordCount > 0) await store.checkpoint('recovery');
    this.recoveryDone = true;
    const server = this.transactionServer = new TransactionServer({
      engine: store,
      host: this.transactionEndpoint.address,
      port: this.transactionEndpoint.port,
      clusterName: config.cluster.clusterName,
      lookupPasswordDigest: (user) => this.home.users.passwordDigestHex(user),
      connectionLimit: config.node.transaction.connectionLimit,
      onEvent: (event) => {
        if (event.kind === 'connected') {
          events.clientConnected({
            applicationName: event.applicationName, address: event.remoteAddress, user: event.user,
            connectionId: event.connectionId,
          });
        } else if (event.kind === 'refused') {
          events.component('transactionService').warning('connection refused',
            { address: event.remoteAddress, reason: event.reason });
        }
      },
      onInternalError: (error) => events.error('transactionService', error),
    });
    const listening = await server.listen();
    this.transactionEndpoint = { address: listening.host, port: listening.port };
    this.status = 'ACTIVE';
    events.nodeStarted({
      systemPort: this.systemEndpoint.port, transactionPort: this.transactionEndpoint.port,
    });
  }

  /** Stops the node cleanly (idempotent): the store checkpoints and syncs before it closes. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.status = 'NORMAL_SHUTDOWN';
      const events = this.home.eventLog;
      events.nodeStopping({});
      let failure: unknown;
      try {
        await this.shutdownServices();
      } catch (error) {
        failure = error;
        events.error('systemService', error, { while: 'stopping' });
      }
      events.nodeStopped({ clean: failure === undefined });
      await this.home.eventLog.close();
      this.options.onStopped?.(failure);
      if (failure !== undefined) throw failure;
    })();
    return this.stopping;
  }

  private async shutdownServices(): Promise<void> {
    await this.transactionServer?.close();
    await this.store?.close();
    await this.systemServer.close();
  }

  // ---- SystemServiceNode ------------------------------------------------------------------------

  get recovering(): boolean {
    return !this.recoveryDone;
  }

  verifyAdministrator(user: string, password: string): boolean {
    // Administrators are the built-in users; `gs#` names are general users (spec §8.3).
    return !user.startsWith('gs#') && this.home.users.verify(user, password);
  }

  statusReport(): Record<string, unknown> {
    const store = this.store;
    const memory = process.memoryUsage().rss;
    this.peakProcessMemoryBytes = Math.max(this.peakProcessMemoryBytes, memory,
      process.resourceUsage().maxRSS * 1024);
    const notification = this.home.config.cluster.notification;
    const stats = store !== undefined && this.recoveryDone ? store.stats() : undefined;
    return nodeStatusReport({
      stats: stats ?? emptyStoreStats(this.home.config.storage.storeCompressionMode),
      nowMs: this.clock.nowMs(),
      startupTimeMs: this.startupTimeMs,
      recoveryProgressRate: this.recoveryDone ? 1 : 0,
      nodeStatus: this.status,
      clusterName: this.home.config.cluster.clusterName,
      notificationMode: notification.mode,
      clusterRevisionId: this.clusterRevisionId,
      self: this.systemEndpoint,
      partitionNum: this.partitionNum,
      periodicCheckpoint: store?.periodicCheckpointEnabled ?? true,
      connectionCount: this.transactionServer?.connectionCount ?? 0,
      sessionCount: store?.sessionCount ?? 0,
      transactionCount: store?.openTransactionCount ?? 0,
      lockConflictCount: 0,
      readOperationCount: stats?.rows.readCount ?? 0,
      writeOperationCount: stats?.rows.writeCount ?? 0,
      processMemoryBytes: memory,
      peakProcessMemoryBytes: this.peakProcessMemoryBytes,
      version: NODE_VERSION,
    });
  }

  host(): Record<string, unknown> {
    const self = { ...this.systemEndpoint, status: this.status };
    return { follower: [], master: { ...this.systemEndpoint }, self };
  }

  partitions(partitionNo: number | undefined): Array<Record<string, unknown>> {
    const store = this.store;
    const ids = partitionNo === undefined
      ? Array.from({ length: this.partitionNum }, (_, i) => i) : [partitionNo];
    return ids.map((pId) => {
      const lsn = store === undefined ? 0 : Number(store.partitionLsn(pId as PartitionId));
      return {
        backup: [], catchup: [], maxLsn: lsn,
        owner: { ...this.systemEndpoint, lsn }, pId: String(pId), status: 'ON',
      };
    });
  }

  async checkpoint(): Promise<void> {
    await this.requireStore().checkpoint('requested');
  }

  setPeriodicCheckpoint(enabled: boolean): void {
    this.requireStore().periodicCheckpointEnabled = enabled;
    this.home.eventLog.component('checkpointService')
      .info(`periodic checkpoints ${enabled ? 'on' : 'off'}`);
  }

  shutdown(force: boolean): void {
    this.log.info('shutdown requested', { force });
    this.stop().catch(() => undefined);
  }

  onBackgroundError(what: string, error: unknown): void {
    this.home.eventLog.error('systemService', error, { while: what });
  }

  private requireStore(): Store {
    if (this.store === undefined) throw new StorageError('CLOSED', 'the store is not open');
    return this.store;
  }
}

