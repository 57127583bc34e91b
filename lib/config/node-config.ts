// The node definition (gs_node.json): what one node uses, apart from the storage members read with
// the storage options (lib/base/options.ts). Paths are relative to GS_HOME unless absolute.

import {
  CONCURRENCY_MAX, CONNECTION_LIMIT_MAX, CONNECTION_LIMIT_MIN,
  CONNECTION_REPLY_HARD_LIMIT_BYTES_DEFAULT, CONNECTION_REPLY_LIMIT_BYTES_MIN,
  CONNECTION_REPLY_QUERY_LIMIT_BYTES_DEFAULT,
  CONNECTION_REPLY_SOFT_LIMIT_BYTES_DEFAULT, CONNECTION_REPLY_SOFT_LIMIT_TIME_MS_DEFAULT,
  CONNECTION_REPLY_TOTAL_LIMIT_BYTES_DEFAULT, CONNECTION_UNAUTHENTICATED_LIMIT_DEFAULT,
  CONNECTION_UNAUTHENTICATED_PER_ADDRESS_LIMIT_DEFAULT, PG_IDLE_TIMEOUT_MS_DEFAULT,
  PG_MESSAGE_BYTES_DEFAULT, PG_STARTUP_MESSAGE_BYTES_MAX, PG_STATEMENTS_PER_QUERY_DEFAULT,
  PROTOCOL_MESSAGE_BYTES_MAX,
} from '../base/limits.ts';
import { isAddress, type OptionReader } from '../base/option-reader.ts';
import { MiB } from '../base/units.ts';
import { readNodeServices, type NodeServices } from './node-services.ts';
import { readNodeTuning, type NodeTuning } from './node-tuning.ts';
import { readTraceConfig, type TraceConfig } from './trace-config.ts';

export type PersistencyMode = 'NORMAL' | 'RETAINING_ALL_LOG';
export type GoalAssignmentRule = 'DEFAULT' | 'ROUNDROBIN';

export interface NodeConfig {
  services: NodeServices;
  dataStore: {
    backupPath: string;
    syncTempPath: string;
    persistencyMode: PersistencyMode;
    /** Partitions per affinity group of blocks. */
    affinityGroupSize: number;
    enableAutoArchive: boolean;
    autoArchiveName: string;
    enableAutoArchiveOutputInfo: boolean;
    enableAutoArchiveOutputInfoPath: string;
    /** Blocks one expiry scan visits per run. */
    batchScanNum: number;
    /** Partitions recovered in parallel at start. */
    recoveryConcurrency: number;
  };
  cluster: {
    /** The interface multicast goes out of; empty means the system's choice. */
    notificationInterfaceAddress: string;
    rackZoneId: string;
    goalAssignmentRule: GoalAssignmentRule;
    enableStableGoal: boolean;
    enableStandbyMode: boolean;
  };
  sync: {
    redoLogErrorKeepIntervalMs: number;
    redoLogMaxMessageSizeBytes: number;
  };
  system: {
    /** The event log's directory when GS_LOG is not set. */
    eventLogPath: string;
    securityPath: string;
  };
  transaction: {
    /** Authenticated client connections the transaction service accepts at once. */
    connectionLimit: number;
    /** Connections that have not authenticated yet, at once: in total, and from one address. */
    unauthenticatedConnectionLimit: number;
    unauthenticatedConnectionLimitPerAddress: number;
    /** Reply bytes queued for one connection: stop reading it, close it after the time, close. */
    replyBufferSoftLimitBytes: number;
    replyBufferSoftLimitTimeMs: number;
    replyBufferHardLimitBytes: number;
    /** Reply bytes queued beyond which a connection starts no query, fetch or multi-get. */
    replyBufferQueryLimitBytes: number;
    /** Reply bytes queued over every connection (GridDB's totalMessageMemoryLimit). */
    totalMessageMemoryLimitBytes: number;
    totalMemoryLimitBytes: number;
    /** 0 means never. */
    reauthenticationIntervalMs: number;
    workMemoryLimitBytes: number;
    notificationInterfaceAddress: string;
    monitoringStoreRate: number;
  };
  sql: {
    /** A partitioning column of a table with a primary key must be a key column (§4.9). */
    partitioningRowkeyConstraint: boolean;
    storeSwapFilePath: string;
    storeSwapSyncSizeBytes: number;
    storeMemoryLimitBytes: number;
    workMemoryLimitBytes: number;
    workCacheMemoryBytes: number;
    connectionLimit: number;
    concurrency: number;
    /** A query running longer is written to the event log. */
    traceLimitExecutionTimeMs: number;
    /** Bytes of query text such a record keeps. */
    traceLimitQuerySizeBytes: number;
    notificationInterfaceAddress: string;
    addBatchMaxCount: number;
    tablePartitioningMaxAssignNum: number;
    failOnTotalMemoryLimit: boolean;
    /** 0 means automatic. */
    totalMemoryLimitBytes: number;
    /** 0 means automatic (3). */
    resourceControlLevel: number;
    monitoringMemoryRate: number;
    monitoringStoreRate: number;
    monitoringNetworkRate: number;
    /** The PostgreSQL protocol on /sql/servicePort (lib/pgwire/, docs/postgres.md). */
    pg: PgConfig;
  };
  trace: TraceConfig;
  security: {
    userCacheSize: number;
    userCacheUpdateIntervalS: number;
  };
  tuning: NodeTuning;
  webapi: {
    /**
     * The web API runs inside the node's process (lib/node/node-webapi.ts), on the settings of
     * GS_HOME/webapi/conf, and reaches the node in-process; off, it is a process of its own
     * (store-webapi). `npm start` turns it on (store-node --webapi).
     */
    embedded: boolean;
  };
}

const CONNECTION_LIMIT = { min: CONNECTION_LIMIT_MIN, max: CONNECTION_LIMIT_MAX };
const RATE = { min: 0, max: 1 };
const ZONE_ID_TEXT = { lengthMax: 64 };

export function readNodeConfig(read: OptionReader): NodeConfig {
  return {
    services: readNodeServices(read),
    webapi: { embedded: read.boolean('node', '/webapi/embedded', false) },
    dataStore: readDataStore(read),
    cluster: {
      notificationInterfaceAddress: interfaceAddress(read, '/cluster/notificationInterfaceAddress'),
      rackZoneId: read.text('node', '/cluster/rackZoneId', '', ZONE_ID_TEXT),
      goalAssignmentRule: read.choice('node', '/cluster/goalAssignmentRule', 'DEFAULT',
        ['DEFAULT', 'ROUNDROBIN'] as const),
      enableStableGoal: read.boolean('node', '/cluster/enableStableGoal', false),
      enableStandbyMode: read.boolean('node', '/cluster/enableStandbyMode', false),
    },
    sync: {
      redoLogErrorKeepIntervalMs: read.duration('node', '/sync/redoLogErrorKeepInterval', 600_000),
      redoLogMaxMessageSizeBytes: read.integer('node', '/sync/redoLogMaxMessageSize', 2 * MiB,
        { min: 1024, max: 1024 * MiB }),
    },
    system: {
      eventLogPath: read.path('node', '/system/eventLogPath', 'log'),
      securityPath: read.path('node', '/system/securityPath', 'security'),
    },
    transaction: {
      connectionLimit: read.integer('node', '/transaction/connectionLimit', 5000, CONNECTION_LIMIT),
      ...readConnectionLimits(read),
      totalMemoryLimitBytes: read.size('node', '/transaction/totalMemoryLimit', 1024 * MiB),
      reauthenticationIntervalMs: read.duration('node', '/transaction/reauthenticationInterval', 0),
      workMemoryLimitBytes: read.size('node', '/transaction/workMemoryLimit', 128 * MiB),
      notificationInterfaceAddress:
        interfaceAddress(read, '/transaction/notificationInterfaceAddress'),
      monitoringStoreRate: read.number('node', '/transaction/monitoringStoreRate', 0, RATE),
    },
    sql: readSql(read),
    trace: readTraceConfig(read),
    security: {
      userCacheSize: read.integer('node', '/security/userCacheSize', 1000, { min: 0, max: 1_000_000 }),
      userCacheUpdateIntervalS: read.integer('node', '/security/userCacheUpdateInterval', 60,
        { min: 0, max: 86_400 }),
    },
    tuning: readNodeTuning(read),
  };
}

/**
 * The transaction port's limits on unauthenticated connections and on queued replies (store's
 * members, but totalMessageMemoryLimit, which is GridDB's). The hard limit may not be below the
 * soft one, nor the total below the hard one.
 */
function readConnectionLimits(read: OptionReader) {
  const unauthenticatedConnectionLimit = read.integer('node',
    '/transaction/unauthenticatedConnectionLimit', CONNECTION_UNAUTHENTICATED_LIMIT_DEFAULT,
    CONNECTION_LIMIT);
  const unauthenticatedConnectionLimitPerAddress = read.integer('node',
    '/transaction/unauthenticatedConnectionLimitPerAddress',
    Math.min(CONNECTION_UNAUTHENTICATED_PER_ADDRESS_LIMIT_DEFAULT, unauthenticatedConnectionLimit),
    { min: 1, max: unauthenticatedConnectionLimit });
  const replyBufferSoftLimitBytes = read.size('node', '/transaction/replyBufferSoftLimit',
    CONNECTION_REPLY_SOFT_LIMIT_BYTES_DEFAULT, { minBytes: CONNECTION_REPLY_LIMIT_BYTES_MIN });
  const replyBufferHardLimitBytes = read.size('node', '/transaction/replyBufferHardLimit',
    Math.max(CONNECTION_REPLY_HARD_LIMIT_BYTES_DEFAULT, replyBufferSoftLimitBytes),
    { minBytes: replyBufferSoftLimitBytes });
  return {
    unauthenticatedConnectionLimit,
    unauthenticatedConnectionLimitPerAddress,
    replyBufferSoftLimitBytes,
    replyBufferSoftLimitTimeMs: read.duration('node', '/transaction/replyBufferSoftLimitTime',
      CONNECTION_REPLY_SOFT_LIMIT_TIME_MS_DEFAULT, { minMs: 1, maxMs: 2 ** 31 - 1 }),
    replyBufferHardLimitBytes,
    replyBufferQueryLimitBytes: read.size('node', '/transaction/replyBufferQueryLimit',
      Math.min(CONNECTION_REPLY_QUERY_LIMIT_BYTES_DEFAULT, replyBufferSoftLimitBytes),
      { minBytes: CONNECTION_REPLY_LIMIT_BYTES_MIN, maxBytes: replyBufferSoftLimitBytes }),
    totalMessageMemoryLimitBytes: read.size('node', '/transaction/totalMessageMemoryLimit',
      Math.max(CONNECTION_REPLY_TOTAL_LIMIT_BYTES_DEFAULT, replyBufferHardLimitBytes),
      { minBytes: replyBufferHardLimitBytes }),
  };
}

function readDataStore(read: OptionReader): NodeConfig['dataStore'] {
  return {
    backupPath: read.path('node', '/dataStore/backupPath', 'backup'),
    syncTempPath: read.path('node', '/dataStore/syncTempPath', 'sync'),
    persistencyMode: readPersistencyMode(read),
    // The manual and the shipped file say 4; GridDB's code says 7. The shipped file wins.
    affinityGroupSize: read.integer('node', '/dataStore/affinityGroupSize', 4,
      { min: 1, max: 10_000 }),
    enableAutoArchive: read.boolean('node', '/dataStore/enableAutoArchive', false),
    autoArchiveName: read.text('node', '/dataStore/autoArchiveName', '', { lengthMax: 255 }),
    enableAutoArchiveOutputInfo: read.boolean('node', '/dataStore/enableAutoArchiveOutputInfo', true),
    enableAutoArchiveOutputInfoPath: read.path('node', '/dataStore/enableAutoArchiveOutputInfoPath',
      'cluster'),
    batchScanNum: read.integer('node', '/dataStore/batchScanNum', 2000, { min: 500, max: 100_000 }),
    recoveryConcurrency: read.integer('node', '/dataStore/recoveryConcurrency', CONCURRENCY_MAX,
      { min: 1, max: 1024 }),
  };
}

/** The manual's `RETAINING_ALL_LOG` and the code's `KEEP_ALL_LOG` name the same mode. */
function readPersistencyMode(read: OptionReader): PersistencyMode {
  const path = '/dataStore/persistencyMode';
  const value = read.member('node', path);
  if (value === undefined || value === 'NORMAL') return 'NORMAL';
  if (value === 'RETAINING_ALL_LOG' || value === 'KEEP_ALL_LOG') return 'RETAINING_ALL_LOG';
  read.reject('node', path, value, 'one of NORMAL, RETAINING_ALL_LOG, KEEP_ALL_LOG');
  return 'NORMAL';
}

function readSql(read: OptionReader): NodeConfig['sql'] {
  return {
    storeSwapFilePath: read.path('node', '/sql/storeSwapFilePath', 'swap'),
    storeSwapSyncSizeBytes: read.size('node', '/sql/storeSwapSyncSize', 1024 * MiB),
    storeMemoryLimitBytes: read.size('node', '/sql/storeMemoryLimit', 1024 * MiB),
    workMemoryLimitBytes: read.size('node', '/sql/workMemoryLimit', 32 * MiB),
    partitioningRowkeyConstraint: read.boolean('node', '/sql/partitioningRowkeyConstraint', true),
    workCacheMemoryBytes: read.size('node', '/sql/workCacheMemory', 128 * MiB),
    connectionLimit: read.integer('node', '/sql/connectionLimit', 5000, CONNECTION_LIMIT),
    concurrency: read.integer('node', '/sql/concurrency', 4, { min: 1, max: CONCURRENCY_MAX }),
    traceLimitExecutionTimeMs: read.duration('node', '/sql/traceLimitExecutionTime', 300_000),
    traceLimitQuerySizeBytes: read.integer('node', '/sql/traceLimitQuerySize', 1000,
      { min: 0, max: MiB }),
    notificationInterfaceAddress: interfaceAddress(read, '/sql/notificationInterfaceAddress'),
    addBatchMaxCount: read.integer('node', '/sql/addBatchMaxCount', 1000, { min: 1, max: 1_000_000 }),
    tablePartitioningMaxAssignNum: read.integer('node', '/sql/tablePartitioningMaxAssignNum',
      10_000, { min: 1024, max: 1_000_000 }),
    failOnTotalMemoryLimit: read.boolean('node', '/sql/failOnTotalMemoryLimit', false),
    totalMemoryLimitBytes: read.member('node', '/sql/totalMemoryLimit') === 0
      ? 0 : read.size('node', '/sql/totalMemoryLimit', 0),
    resourceControlLevel: read.integer('node', '/sql/resourceControlLevel', 0, { min: 0, max: 3 }),
    monitoringMemoryRate: read.number('node', '/sql/monitoringMemoryRate', 0.5, RATE),
    monitoringStoreRate: read.number('node', '/sql/monitoringStoreRate', 0, RATE),
    monitoringNetworkRate: read.number('node', '/sql/monitoringNetworkRate', 0, RATE),
    pg: readPgConfig(read),
  };
}

export interface PgConfig {
  /** Bytes of one frontend message at most. */
  messageBytesMax: number;
  statementsPerQueryMax: number;
  idleTimeoutMs: number;
  /** 0: the SQL default (SQL_STATEMENT_TIMEOUT_MS_DEFAULT). */
  statementTimeoutMs: number;
  /** PEM files of the TLS certificate and key; both empty: SSLRequest is answered 'N'. */
  tlsCertificatePath: string;
  tlsKeyPath: string;
}

function readPgConfig(read: OptionReader): PgConfig {
  const certificate = read.member('node', '/sql/pgTlsCertificatePath');
  const key = read.member('node', '/sql/pgTlsKeyPath');
  if ((certificate === undefined) !== (key === undefined)) {
    read.reject('node', '/sql/pgTlsKeyPath', key, 'set together with /sql/pgTlsCertificatePath');
  }
  return {
    messageBytesMax: read.size('node', '/sql/pgMessageSizeLimit', PG_MESSAGE_BYTES_DEFAULT,
      { minBytes: PG_STARTUP_MESSAGE_BYTES_MAX, maxBytes: PROTOCOL_MESSAGE_BYTES_MAX }),
    statementsPerQueryMax: read.integer('node', '/sql/pgStatementsPerQueryLimit',
      PG_STATEMENTS_PER_QUERY_DEFAULT, { min: 1, max: 100_000 }),
    idleTimeoutMs: read.duration('node', '/sql/pgIdleTimeout', PG_IDLE_TIMEOUT_MS_DEFAULT),
    statementTimeoutMs: read.duration('node', '/sql/pgStatementTimeout', 0),
    tlsCertificatePath: certificate === undefined ? '' : read.path('node', '/sql/pgTlsCertificatePath', ''),
    tlsKeyPath: key === undefined ? '' : read.path('node', '/sql/pgTlsKeyPath', ''),
  };
}

/** An interface address, or empty for the system's choice. */
function interfaceAddress(read: OptionReader, path: string): string {
  const value = read.member('node', path);
  if (value === undefined || value === '') return '';
  if (!isAddress(value)) {
    read.reject('node', path, value, 'an IP address, a host name or ""');
    return '';
  }
  return value;
}
