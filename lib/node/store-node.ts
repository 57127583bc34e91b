// A node: the configuration of its home, its engine (the store, in worker threads, one per
// partition group: engine-thread/), its transaction service (clients) and its system service (the
// operating commands), and its event log, started and stopped in order. The main thread does the
// network I/O, framing, authentication and the routing of each request to its group's thread;
// every request runs in an engine thread.
//
// Start: lock GS_HOME (lib/io/home-lock.ts; a second node on it stops here, HOME_IN_USE, having
// touched nothing) → read GS_HOME (default files on the first start) → event log → system service
// (so gs_stat answers while recovery runs, with recovery.progressRate 0) → open the store (recovery)
// → a checkpoint when recovery replayed anything, so the next start replays nothing → transaction
// service → ACTIVE. Stop: no new clients → their sessions close (open transactions abort) →
// the store closes (a checkpoint; every acknowledged commit synced) → system service → log → the
// home's lock.
//
// Fail-stop (failStop): a broken invariant in the engine (a failed assertion or any exception
// that is not a StorageError, in a request, a checkpoint or a thread), or an exception that
// escapes in the node process, ends the node at once, in either engine layout: the ABNORMAL line
// in the event log, every client connection closed without a reply, exit 1. No checkpoint and no
// clean-stop step runs, as they could write half-applied state; the next start recovers from the
// log, which holds every acknowledged commit.

import { availableParallelism } from 'node:os';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { StorageError, isStorageError } from '../base/errors.ts';
import { assert } from '../base/assert.ts';
import { prepareNodeHome, type NodeHome } from '../config/node-home.ts';
import { LivePasswordFile } from '../config/users.ts';
import { homePath, resolveHome, type HomeEnvironment } from '../config/home.ts';
import { emptyStoreStats } from '../engine/store-stats.ts';
import { systemClock, type Clock } from '../io/clock.ts';
import { ConnectionLog } from './connection-log.ts';
import type { ComponentLog, EventLogLevel } from '../io/event-log.ts';
import { homeLocker, type HomeLock, type HomeLocker } from '../io/home-lock.ts';
import { PROTOCOL_MESSAGE_BYTES_MAX } from '../base/limits.ts';
import { TransactionServer } from '../server/transaction-server.ts';
import { GriddbAnnouncer } from '../server/griddb/griddb-announcer.ts';
import { PgServer } from '../pgwire/pg-server.ts';
import { runnerSqlBackend } from '../pgwire/pg-sql-backend.ts';
import { readConfigText } from '../config/definition-file.ts';
import { parseScramVerifier, scramVerifierOf } from '../config/scram-verifiers.ts';
import { sha256Hex } from '../config/password-file.ts';
import type { AccessCatalog, Principal } from '../access/access-catalog.ts';
import { AccessControl } from '../access/access-control.ts';
import { accessFilePath } from '../access/access-file.ts';
import { AccessRunner } from '../server/access-runner.ts';
import type { RequestRunner } from '../server/request-runner.ts';
import { errorFromData } from './engine-thread/worker-engine.ts';
import {
  openNodeEngine, resolveEngineThread, type EngineThreadChoice, type NodeEngine,
} from './engine-thread/node-engine.ts';
import { NodeBackup, type BackupProgress } from './node-backup.ts';
import { startNodeWebApi, type NodeWebApi, type NodeWebApiChoice } from './node-webapi.ts';
import { nodeStatusReport, type NodeEndpoint } from './node-status.ts';
import { SystemServer, type SystemServiceNode } from './system-server.ts';

export const NODE_VERSION = '0.1.0-1 CE';

export interface StoreNodeOptions extends HomeEnvironment {
  clock?: Clock;
  /** gs_startnode --releaseUnusedFileBlocks. */
  releaseUnusedFileBlocks?: boolean;
  /** Where the engine runs (STORE_ENGINE_THREAD); `auto` by default: see resolveEngineThread. */
  engineThread?: EngineThreadChoice;
  /** Cores the node may use; os.availableParallelism() by default (tests pass other counts). */
  coreCount?: number;
  /** How the home is locked; the process-wide flock (or pid-file fallback) by default. */
  homeLocker?: HomeLocker;
  /** Called once the node has stopped, by request (gs_stopnode) or by stop(). */
  onStopped?: (error: unknown) => void;
  /**
   * Called once on fail-stop, after the ABNORMAL line is written and every client connection is
   * closed; it must end the process (the default exits with code 1) and do nothing else with
   * the node.
   */
  onFailStop?: (error: unknown) => void;
  /**
   * The web API in this process (node-webapi.ts), when gs_node.json's /webapi/embedded or
   * `embedded` says so; absent, the node runs none.
   */
  webApi?: NodeWebApiChoice;
  /** Testing aid, inert when absent: LocalRunnerOptions.faultAssertOnContainer. */
  faultAssertOnContainer?: string;
  /** Testing aid, inert when absent: the engine's wall clock runs this many ms ahead (expiry). */
  testClockOffsetMs?: number;
}

type NodeStatus = 'INACTIVE' | 'ACTIVE' | 'NORMAL_SHUTDOWN' | 'ABNORMAL';

export class StoreNode implements SystemServiceNode {
  private engine: NodeEngine | undefined;
  private transactionServer: TransactionServer | undefined;
  /** The web API in this process, when embedded (node-webapi.ts). */
  private webApi: NodeWebApi | undefined;
  /** GridDB's multicast announcement, in MULTICAST notification mode. */
  private announcer: GriddbAnnouncer | undefined;
  /** The PostgreSQL protocol on /sql/servicePort (lib/pgwire/). */
  private pgServer: PgServer | undefined;
  /** The event log's bounded lines about client connections. */
  private connectionLog: ConnectionLog | undefined;
  private readonly systemServer: SystemServer;
  /** storeMemoryLimit now: gs_node.json's, or what gs_paramconf set since the start. */
  private storeMemoryLimitBytes: number;
  private status: NodeStatus = 'INACTIVE';
  private recoveryDone = false;
  private readonly startupTimeMs: number;
  private readonly clusterRevisionId = randomUUID();
  private readonly log: ComponentLog;
  private stopping: Promise<void> | undefined;
  /** Why the node failed (fail-stop), if it did. */
  private failure: { error: unknown } | undefined;
  private peakProcessMemoryBytes = 0;
  /** Manual checkpoints (POST /node/checkpoint) that have completed in every partition group. */
  private manualCheckpointCount = 0;
  /** The online backup (gs_backup): one at a time. */
  private readonly backups: NodeBackup;
  /** General users, databases and grants (lib/access/), from the start of the services on. */
  private access: AccessControl | undefined;
  /** The administrators, read again at each login (gs_adduser & co. need no restart). */
  private readonly users: LivePasswordFile;
  readonly partitionNum: number;
  /** Where the services listen (ports resolved when configured as 0). */
  systemEndpoint: NodeEndpoint;
  transactionEndpoint: NodeEndpoint;
  sqlEndpoint: NodeEndpoint;

  private constructor(
    readonly home: NodeHome,
    /** Held from before the home is read until the node has stopped. */
    readonly homeLock: HomeLock,
    private readonly options: StoreNodeOptions,
    private readonly clock: Clock,
  ) {
    this.startupTimeMs = clock.nowMs();
    this.log = home.eventLog.component('systemService');
    this.partitionNum = home.config.storage.partitionNum;
    this.storeMemoryLimitBytes = home.config.storage.storeMemoryLimitBytes;
    this.systemEndpoint = { ...home.config.node.services.system };
    this.transactionEndpoint = { ...home.config.node.services.transaction };
    this.sqlEndpoint = { ...home.config.node.services.sql };
    this.systemServer = new SystemServer(this);
    const { storage, node: nodeConfig } = home.config;
    const homeDirectory = home.directories.home;
    this.backups = new NodeBackup({
      fileSystem: options.fileSystem, clock, home: homeDirectory,
      dataRoot: homePath(homeDirectory, storage.dbPath),
      transactionLogRoot: homePath(homeDirectory, storage.transactionLogPath),
      backupRoot: homePath(homeDirectory, nodeConfig.dataStore.backupPath),
      partitionNum: storage.partitionNum,
      copyPartitions: (target) => this.requireEngine().backup(target),
      onEnd: (info) => {
        const fields = { backupName: info.backupName, fileCount: info.fileCount,
          copiedBytes: info.copiedBytes };
        if (info.status === 'OK') this.log.info('backup completed', fields);
        else this.log.warning('backup failed', { ...fields, error: info.error });
      },
    });
    this.users = new LivePasswordFile(options.fileSystem, home.directories.home, home.users,
      (message) => this.log.warning(`password file not read: ${message}`));
  }

  /**
   * Starts a node on its home; throws (HOME_IN_USE, CONFIG_INVALID, IO, ...) with nothing left
   * running and the home's lock released.
   */
  static async start(options: StoreNodeOptions): Promise<StoreNode> {
    const clock = options.clock ?? systemClock;
    // Before anything in the home is read or written, default files included.
    const { home: homeDirectory } = resolveHome(options);
    const lock = (options.homeLocker ?? homeLocker).lock(homeDirectory, { nowMs: clock.nowMs() });
    let home: NodeHome;
    try {
      home = await prepareNodeHome({ ...options, clock });
    } catch (error) {
      lock.release();
      throw error;
    }
    const node = new StoreNode(home, lock, options, clock);
    try {
      await node.run();
    } catch (error) {
      home.eventLog.error('systemService', error, { while: 'starting' });
      // No checkpoint: the start failed, and what it wrote is taken back (Store.abandonStart).
      await node.shutdownServices({ abandon: true }).catch(() => undefined);
      await home.eventLog.close();
      lock.release();
      throw error;
    }
    return node;
  }

  private logHomeLock(): void {
    const { path, kind, warning, takenOverFrom } = this.homeLock;
    if (warning !== undefined) this.log.warning(warning, { path });
    if (takenOverFrom !== undefined) {
      this.log.warning('took over the stale lock of a node that is gone', {
        path, pid: takenOverFrom.pid, startedAt: takenOverFrom.startedAt,
      });
    }
    this.log.info('home locked', { path, lock: kind });
  }

  private async run(): Promise<void> {
    const { config, directories } = this.home;
    const events = this.home.eventLog;
    events.nodeStarting({
      home: directories.home, clusterName: config.cluster.clusterName, version: NODE_VERSION,
    });
    this.logHomeLock();
    this.systemEndpoint = await this.systemServer.listen(this.systemEndpoint);
    const startedMs = this.clock.monotonicMs();
    const thread = resolveEngineThread(this.options.engineThread ?? 'auto', {
      concurrency: config.storage.concurrency, coreCount: this.options.coreCount ?? availableParallelism(),
    });
    const engine = this.engine = await openNodeEngine(thread, {
      home: directories.home, options: config.storage,
      releaseUnusedFileBlocks: this.options.releaseUnusedFileBlocks ?? false,
      messageBytesMax: PROTOCOL_MESSAGE_BYTES_MAX,
      slowQuery: {
        thresholdMs: config.node.sql.traceLimitExecutionTimeMs,
        textBytesMax: config.node.sql.traceLimitQuerySizeBytes,
      },
      sqlWorkMemoryLimitBytes: config.node.sql.workMemoryLimitBytes,
      sqlPartitioningRowkeyConstraint: config.node.sql.partitioningRowkeyConstraint,
      sqlCostBasedJoin: config.cluster.sql.costBasedJoin,
      ...(this.options.faultAssertOnContainer === undefined
        ? {} : { faultAssertOnContainer: this.options.faultAssertOnContainer }),
      ...(this.options.testClockOffsetMs === undefined ? {} : { testClockOffsetMs: this.options.testClockOffsetMs }),
    }, {
      checkpoint: (notice) => {
        const fields = { partitionGroup: notice.groupIndex, trigger: notice.trigger };
        if (notice.kind === 'started') events.checkpointStarted(fields);
        else if (notice.kind === 'completed') {
          events.checkpointCompleted({ ...fields, durationMs: Math.round(notice.durationMs) });
        } else if (notice.kind === 'skipped') {
          events.component('checkpointService').warning('checkpoint skipped: not enough free ' +
            `space (the xlog keeps every record; it runs again at the next interval)`, {
            ...fields, partition: notice.partitionId, neededBytes: notice.neededBytes,
            freeBytes: notice.freeBytes,
          });
        } else if (notice.kind === 'cleanupFailed') {
          // The checkpoint is durable; only deleting what it superseded failed.
          events.error('checkpointService', errorFromData(notice.error), {
            ...fields, partitionId: notice.partitionId,
            while: 'deleting superseded files after a checkpoint (retried at the next checkpoint)',
          });
        } else {
          const error = errorFromData(notice.error);
          // An I/O error fails the checkpoint and loses nothing; a bug in it is fail-stop.
          if (isStorageError(error)) events.error('checkpointService', error, fields);
          else this.failStop(error, `checkpointing partition group ${notice.groupIndex}`);
        }
      },
      warning: (message) => events.component('systemService').warning(message),
      slowQuery: (record) => events.component('sqlService').warning('slow query', {
        ...record, traceLimitExecutionTimeMs: config.node.sql.traceLimitExecutionTimeMs,
      }),
      failed: (error) => this.failStop(error, 'running the engine'),
    });
    const recovery = engine.recovery;
    for (const torn of recovery.tornTails) {
      // The rule: bytes after the last good record of a partition's newest xlog file that form
      // no record, with no valid record after them, are a write cut by the crash (wal/xlog-tail.ts).
      events.component('recoveryManager').warning(`cut a torn tail of ${torn.tornBytes} bytes ` +
        `off the xlog of partition ${torn.partitionId}`, {
        partitionId: torn.partitionId, file: torn.filePath, offsetBytes: torn.offsetBytes,
        tornBytes: torn.tornBytes, reason: torn.reason,
      });
    }
    events.recoveryCompleted({
      replayedRecords: recovery.recordCount, journaledRecords: recovery.journaledRecordCount,
      replayedRows: recovery.rowCount,
      restoredBlocks: recovery.restoredBlockCount, releasedSlots: recovery.releasedSlotCount,
      durationMs: Math.round(this.clock.monotonicMs() - startedMs),
    });
    if (recovery.recordCount > 0) await engine.checkpoint('recovery');
    this.recoveryDone = true;
    const databasesOf = (catalog: AccessCatalog) =>
      catalog.databases.map((database) => ({ name: database.name, id: database.id }));
    const access = this.access = new AccessControl(this.options.fileSystem,
      accessFilePath(homePath(this.home.directories.home, config.storage.dbPath)),
      (catalog) => engine.setDatabases(databasesOf(catalog)));
    await engine.setDatabases(databasesOf(access.catalog));
    const runner = new AccessRunner(engine.runner, access);
    const connectionLog = new ConnectionLog({ log: events, clock: this.clock });
    this.connectionLog = connectionLog;
    const server = this.transactionServer = new TransactionServer({
      engine: runner,
      messageBytesMax: PROTOCOL_MESSAGE_BYTES_MAX,
      host: this.transactionEndpoint.address,
      port: this.transactionEndpoint.port,
      clusterName: config.cluster.clusterName,
      partitionNum: this.partitionNum,
      lookupPasswordDigest: (user) => this.passwordDigestHex(user),
      loginCheck: (login) => this.principalOf(login),
      accessCatalog: () => access.catalog,
      connectionLimit: config.node.transaction.connectionLimit,
      unauthenticatedConnectionLimit: config.node.transaction.unauthenticatedConnectionLimit,
      unauthenticatedConnectionLimitPerAddress:
        config.node.transaction.unauthenticatedConnectionLimitPerAddress,
      handshakeTimeoutMs: config.cluster.transaction.authenticationTimeoutIntervalMs,
      replySoftLimitBytes: config.node.transaction.replyBufferSoftLimitBytes,
      replySoftLimitTimeMs: config.node.transaction.replyBufferSoftLimitTimeMs,
      replyHardLimitBytes: config.node.transaction.replyBufferHardLimitBytes,
      replyQueryLimitBytes: config.node.transaction.replyBufferQueryLimitBytes,
      replyTotalLimitBytes: config.node.transaction.totalMessageMemoryLimitBytes,
      onEvent: (event) => {
        connectionLog.event(event);
        if (event.kind === 'refused') {
          events.component('transactionService').warning('connection refused',
            { address: event.remoteAddress, reason: event.reason });
        } else if (event.kind === 'overflow') {
          events.component('transactionService').error('connection closed: replies not read',
            { address: event.remoteAddress, connectionId: event.connectionId,
              queuedBytes: event.queuedBytes, reason: event.reason });
        }
      },
      onEngineFailure: (error) => this.failStop(error, 'serving a request'),
    });
    const listening = await server.listen();
    this.transactionEndpoint = { address: listening.host, port: listening.port };
    if (config.cluster.notification.mode === 'MULTICAST') {
      // GridDB clients given notificationAddress find this node (griddb-announcer.ts).
      this.announcer = await GriddbAnnouncer.start({
        group: config.cluster.transaction.notification,
        master: { host: listening.host, port: listening.port },
        partitionNum: this.partitionNum,
        onSendFailed: (error) => events.component('transactionService').warning(
          'multicast announcement not sent', { group: `${
            config.cluster.transaction.notification.address}:${
            config.cluster.transaction.notification.port}`, reason: error.message }),
      });
    }
    if (server.mallocThresholdUnsetReason !== undefined) {
      events.component('transactionService').warning('malloc mmap threshold not fixed: large ' +
        `replies may leave RSS behind (${server.mallocThresholdUnsetReason})`);
    }
    const pg = this.pgServer = this.startPgServer(runner, connectionLog);
    const pgListening = await pg.listen();
    this.sqlEndpoint = { address: pgListening.host, port: pgListening.port };
    const webApiChoice = this.options.webApi;
    if (webApiChoice !== undefined && (webApiChoice.embedded ?? config.node.webapi.embedded)) {
      this.webApi = await startNodeWebApi({
        environment: this.options, choice: webApiChoice, clusterName: config.cluster.clusterName,
        logDirectory: this.home.logDirectory, transactionServer: server,
        accessCatalog: () => access.catalog,
      });
    }
    this.status = 'ACTIVE';
    events.nodeStarted({
      systemPort: this.systemEndpoint.port, transactionPort: this.transactionEndpoint.port,
      sqlPort: this.sqlEndpoint.port,
    });
  }

  /** The PostgreSQL listener over the engine's runner (docs/postgres.md). */
  private startPgServer(runner: RequestRunner, connectionLog: ConnectionLog): PgServer {
    const { config, directories } = this.home;
    const pg = config.node.sql.pg;
    const fileSystem = this.options.fileSystem;
    const pemOf = (path: string): string => {
      const full = homePath(directories.home, path);
      const text = readConfigText(fileSystem, full);
      if (text === undefined) throw new StorageError('CONFIG_INVALID', `${full} does not exist (/sql/pgTls*)`);
      return text;
    };
    const events = this.home.eventLog;
    return new PgServer({
      host: this.sqlEndpoint.address, port: this.sqlEndpoint.port, clock: this.clock,
      backend: runnerSqlBackend(runner, (error) => this.failStop(error, 'serving a PostgreSQL request')),
      connectionLimit: config.node.sql.connectionLimit, messageBytesMax: pg.messageBytesMax,
      statementsPerQueryMax: pg.statementsPerQueryMax, idleTimeoutMs: pg.idleTimeoutMs,
      statementTimeoutMs: pg.statementTimeoutMs, serverVersion: `15.0 (store ${NODE_VERSION})`,
      ...(pg.tlsCertificatePath === '' ? {} : {
        tls: { certificatePem: pemOf(pg.tlsCertificatePath), keyPem: pemOf(pg.tlsKeyPath) },
      }),
      loginCheck: (login) => this.principalOf(login),
      credentials: (user) => {
        const general = this.access?.catalog.user(user);
        if (general !== undefined && !this.users.current().has(user)) {
          if (general.scramVerifier === undefined) {
            return { verifier: undefined, checkPassword: () => false, refusalHint: 'the user was made ' +
              'from a SHA-256 digest and has no SCRAM verifier yet: SET PASSWORD first (as the user, ' +
              'or an administrator) through store\'s client, gs_sh or the web API' };
          }
          return { verifier: parseScramVerifier(general.scramVerifier),
            checkPassword: (password) => timingSafeEqual(Buffer.from(sha256Hex(password), 'hex'),
              Buffer.from(general.passwordSha256Hex, 'hex')) };
        }
        const table = this.users.current();
        const verifier = scramVerifierOf(fileSystem, directories.home, user, table.passwordDigestHex(user));
        if (verifier === undefined && table.passwordDigestHex(user) !== undefined) {
          events.component('sqlService').warning('PostgreSQL login without a SCRAM verifier: set the ' +
            'password with gs_passwd to make one (cleartext is accepted over TLS only)', { user });
        }
        return { verifier, checkPassword: (password) => table.verify(user, password) };
      },
      onEvent: (event) => {
        connectionLog.event(event);
        if (event.kind === 'refused') {
          events.component('sqlService').warning('connection refused',
            { address: event.remoteAddress, reason: event.reason });
        }
      },
    });
  }

  /** Stops the node cleanly (idempotent): the store checkpoints and syncs before it closes. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.status !== 'ABNORMAL') this.status = 'NORMAL_SHUTDOWN';
      const events = this.home.eventLog;
      events.nodeStopping({});
      let failure: unknown = this.failure?.error;
      try {
        await this.shutdownServices();
      } catch (error) {
        failure = error;
        events.error('systemService', error, { while: 'stopping' });
      }
      events.nodeStopped({ clean: failure === undefined });
      await this.home.eventLog.close();
      this.homeLock.release();
      this.options.onStopped?.(failure);
      if (failure !== undefined) throw failure;
    })();
    return this.stopping;
  }

  private async shutdownServices(options: { abandon?: boolean } = {}): Promise<void> {
    // First the web API: its requests under way finish against a node that still serves them.
    await this.webApi?.close();
    await this.announcer?.close();
    await this.pgServer?.close();
    await this.transactionServer?.close();
    // A running backup holds the checkpoints: the closing one waits for it, and so does this.
    if (this.failure === undefined) await this.backups.idle();
    this.connectionLog?.close();
    // A failed engine is not closed: closing checkpoints, and its state may be half-applied.
    if (this.failure === undefined) await this.engine?.close(options);
    await this.systemServer.close();
  }

  /** The embedded web API's URLs (node-webapi.ts); empty when it runs none. */
  get webApiUrls(): readonly string[] {
    return this.webApi?.urls ?? [];
  }

  /** The embedded web API (node-webapi.ts), when it runs one: for its status and tests. */
  get embeddedWebApi(): NodeWebApi | undefined {
    return this.webApi;
  }

  /** Where the engine runs, for the start line: "in 4 worker threads" or "in the main thread". */
  get engineThreadDescription(): string {
    const workerCount = this.engine?.workerCount ?? 0;
    return workerCount > 0 ? `in ${workerCount} worker threads` : 'in the main thread';
  }

  /**
   * Fail-stop (see the top of this file): `what` the node was doing when `error` broke it.
   * Synchronous, so nothing else runs in this thread between the failure and the end of the
   * process; once only.
   */
  failStop(error: unknown, what: string): void {
    if (this.failure !== undefined) return;
    this.failure = { error };
    this.status = 'ABNORMAL';
    const events = this.home.eventLog;
    events.nodeAbnormal(error, { while: what });
    this.transactionServer?.abort('the node stopped: ABNORMAL');
    void this.announcer?.close();
    void this.pgServer?.close();
    void this.webApi?.close().catch(() => undefined);
    this.connectionLog?.close();
    events.close();
    (this.options.onFailStop ?? exitAbnormally)(error);
  }

  // ---- SystemServiceNode ------------------------------------------------------------------------

  get recovering(): boolean {
    return !this.recoveryDone;
  }

  /** An administrator's digest (conf/password), else a general user's (the access catalog). */
  private passwordDigestHex(user: string): string | undefined {
    const table = this.users.current();
    if (table.has(user)) return table.passwordDigestHex(user);
    return this.access?.catalog.user(user)?.passwordSha256Hex;
  }

  /** Who a login is: the administrators are conf/password's users; the access catalog decides the rest. */
  private principalOf(login: { user: string; database: string }): Principal {
    const access = this.access;
    assert(access !== undefined);
    const principal = { ...login, admin: this.users.current().has(login.user) };
    access.loginCheck(principal);
    return principal;
  }

  verifyAdministrator(user: string, password: string): boolean {
    // Every user of the password file is an administrator: the built-in ones and the `gs#` ones
    // gs_adduser adds ("Add an administrator of GridDB", spec §7.2, §4.7).
    return this.users.current().verify(user, password);
  }

  async statusReport(): Promise<Record<string, unknown>> {
    const engine = this.recoveryDone ? this.engine : undefined;
    const engineStatus = await engine?.status().catch(() => undefined);
    const memory = process.memoryUsage().rss;
    this.peakProcessMemoryBytes = Math.max(this.peakProcessMemoryBytes, memory,
      process.resourceUsage().maxRSS * 1024);
    const notification = this.home.config.cluster.notification;
    const stats = engineStatus?.stats;
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
      periodicCheckpoint: engineStatus?.periodicCheckpointEnabled ?? true,
      manualCheckpointCount: this.manualCheckpointCount,
      connectionCount: this.transactionServer?.connectionCount ?? 0,
      sessionCount: engineStatus?.sessionCount ?? 0,
      transactionCount: engineStatus?.openTransactionCount ?? 0,
      lockConflictCount: 0,
      readOperationCount: stats?.rows.readCount ?? 0,
      writeOperationCount: stats?.rows.writeCount ?? 0,
      processMemoryBytes: memory,
      peakProcessMemoryBytes: this.peakProcessMemoryBytes,
      version: NODE_VERSION,
    });
  }

  get clusterName(): string {
    return this.home.config.cluster.clusterName;
  }

  host(): Record<string, unknown> {
    const self = { ...this.systemEndpoint, status: this.status };
    return { follower: [], master: { ...this.systemEndpoint }, self };
  }

  async partitions(partitionNo: number | undefined): Promise<Array<Record<string, unknown>>> {
    const lsns = await this.requireEngine().partitionLsns();
    const ids = partitionNo === undefined
      ? Array.from({ length: this.partitionNum }, (_, i) => i) : [partitionNo];
    return ids.map((pId) => {
      const lsn = lsns[pId] ?? 0;
      return {
        backup: [], catchup: [], maxLsn: lsn,
        owner: { ...this.systemEndpoint, lsn }, pId: String(pId), status: 'ON',
      };
    });
  }

  async checkpoint(): Promise<void> {
    await this.requireEngine().checkpoint('requested');
    // Counted when every group is done, so gs_checkpoint --manual -w waits for the whole of it.
    this.manualCheckpointCount++;
  }

  async setPeriodicCheckpoint(enabled: boolean): Promise<void> {
    await this.requireEngine().setPeriodicCheckpoint(enabled);
    this.home.eventLog.component('checkpointService')
      .info(`periodic checkpoints ${enabled ? 'on' : 'off'}`);
  }

  async startBackup(name: string): Promise<void> {
    await this.backups.start(name);
    this.log.info('backup started', { backupName: name });
  }

  backupProgress(): BackupProgress | undefined {
    return this.backups.progress();
  }

  onlineParameter(name: string): number {
    assert(name === 'storeMemoryLimit', `no online parameter ${name}`);
    return this.storeMemoryLimitBytes;
  }

  /** gs_paramconf --set: applied now, until the node stops (gs_node.json is not changed). */
  async setOnlineParameter(name: string, value: number): Promise<void> {
    assert(name === 'storeMemoryLimit', `no online parameter ${name}`);
    await this.requireEngine().setStoreMemoryLimit(value);
    this.storeMemoryLimitBytes = value;
    this.log.info('online parameter set', { name, value });
  }

  shutdown(force: boolean): void {
    this.log.info('shutdown requested', { force });
    this.stop().catch(() => undefined);
  }

  traceLevels(): Record<string, EventLogLevel> {
    return this.home.eventLog.levelList();
  }

  setTraceLevel(category: string, level: EventLogLevel): void {
    // Written before the change: turning systemService itself down still leaves this line.
    this.log.info('trace level changed', { category, traceLevel: level });
    this.home.eventLog.setLevel(category, level);
  }

  eventLogTail(bytesMax: number): string[] {
    return this.home.eventLog.tailLines(bytesMax);
  }

  onBackgroundError(what: string, error: unknown): void {
    this.home.eventLog.error('systemService', error, { while: what });
  }

  private requireEngine(): NodeEngine {
    if (this.engine === undefined) throw new StorageError('CLOSED', 'the store is not open');
    return this.engine;
  }
}


/** The default end of a fail-stop: exit code 1 now, with nothing else run. */
function exitAbnormally(): never {
  process.exit(1);
}
