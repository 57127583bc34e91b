// The node status report: what `GET /node/stat` answers and gs_stat prints, with every member the
// seed lists (checkpoint, cluster, currentTime, performance, recovery, version), from live
// counters. A pure function of its inputs, so a test can check every member and type.
//
// Members that describe GridDB machinery this node does not have are present with the value such
// a node reports when the machinery is idle: backups, expiry, SQL swap (0, "", or the fixed
// string GridDB prints). storeDetail maps our block kinds onto GridDB's: row, shared and
// large-value blocks are rowData; mapData is the secondary index structures (GridDB's index
// B+trees; ours live in memory beside the pool, within their own bound, so they are not in the
// storeMemory total); metaData (the catalog, kept outside blocks) counts 0 use.

import type { StoreStats } from '../engine/store-stats.ts';

export interface NodeEndpoint {
  address: string;
  port: number;
}

/** What the node knows of itself beyond the store's counters. */
export interface NodeStatusInput {
  stats: StoreStats;
  nowMs: number;
  startupTimeMs: number;
  /** 0..1: 1 once recovery is done and the node serves. */
  recoveryProgressRate: number;
  nodeStatus: 'ACTIVE' | 'INACTIVE' | 'NORMAL_SHUTDOWN' | 'ABNORMAL';
  clusterName: string;
  notificationMode: 'FIXED_LIST' | 'MULTICAST' | 'PROVIDER';
  clusterRevisionId: string;
  /** The system service of this node (gs_stat lists nodes by it). */
  self: NodeEndpoint;
  partitionNum: number;
  periodicCheckpoint: boolean;
  /**
   * Manual checkpoints (gs_checkpoint --manual) completed in every partition group: GridDB's
   * requestedCheckpointOperation, which gs_checkpoint -w polls.
   */
  manualCheckpointCount: number;
  connectionCount: number;
  sessionCount: number;
  transactionCount: number;
  lockConflictCount: number;
  readOperationCount: number;
  writeOperationCount: number;
  processMemoryBytes: number;
  peakProcessMemoryBytes: number;
  /** `<major>.<minor>.<patch>-<build> <edition>`. */
  version: string;
}

const CHECKPOINT_MODES = {
  periodic: 'NORMAL_CHECKPOINT',
  requested: 'REQUESTED_CHECKPOINT',
  shutdown: 'SHUTDOWN_CHECKPOINT',
  recovery: 'RECOVERY_CHECKPOINT',
} as const;

/** The report object; print it with printStatusJson (sorted keys, indent 4). */
export function nodeStatusReport(input: NodeStatusInput): Record<string, unknown> {
  const { stats } = input;
  const { checkpoint, memory, swap } = stats;
  const active = input.nodeStatus === 'ACTIVE';
  const rowData = {
    storeMemory: memory.residentBytes, storeUse: memory.useBytes,
    swapRead: swap.readCount, swapWrite: swap.writeCount,
  };
  const idle = { storeMemory: 0, storeUse: 0, swapRead: 0, swapWrite: 0 };
  return {
    checkpoint: {
      autoArchive: false,
      backupOperation: 0,
      duplicateLog: 0,
      endTime: checkpoint.lastEndMs,
      mode: checkpoint.lastTrigger === undefined ? 'NORMAL_CHECKPOINT'
        : CHECKPOINT_MODES[checkpoint.lastTrigger],
      normalCheckpointOperation: checkpoint.periodicCount,
      pendingPartition: checkpoint.pendingPartitionCount,
      periodicCheckpoint: input.periodicCheckpoint ? 'ACTIVE' : 'INACTIVE',
      requestedCheckpointOperation: input.manualCheckpointCount,
      startTime: checkpoint.lastStartMs,
    },
    cluster: {
      activeCount: active ? 1 : 0,
      applyRuleLimitTime: isoTime(input.startupTimeMs),
      autoGoal: 'ACTIVE',
      clusterName: input.clusterName,
      clusterRevisionId: input.clusterRevisionId,
      clusterRevisionNo: 1,
      clusterStatus: active ? 'MASTER' : 'SUB_CLUSTER',
      currentRule: 'Initial',
      designatedCount: 1,
      goalCurrentRule: 'DEFAULT',
      goalDefaultRule: 'DEFAULT',
      loadBalancer: 'ACTIVE',
      master: { ...input.self },
      nodeList: [{ ...input.self }],
      nodeStatus: input.nodeStatus,
      notificationMode: input.notificationMode,
      partitionStatus: active ? 'NORMAL' : 'INITIAL',
      startupTime: isoTime(input.startupTimeMs),
      syncCount: 0,
    },
    currentTime: isoTime(input.nowMs, { milliseconds: false }),
    performance: {
      backgroundMinRate: 0.1,
      backupCount: 0,
      checkpointFileFlushCount: checkpoint.fileFlushCount,
      checkpointFileFlushTime: wholeMs(checkpoint.fileFlushTimeMs),
      checkpointWrite: checkpoint.writeCount,
      checkpointWriteCompressTime: wholeMs(checkpoint.writeCompressTimeMs),
      checkpointWriteSize: checkpoint.writeBytes,
      checkpointWriteTime: wholeMs(checkpoint.writeTimeMs),
      currentTime: input.nowMs,
      dataFileAllocateSize: stats.dataFiles.allocatedBytes,
      dataFileSize: stats.dataFiles.sizeBytes,
      dataFileUsageRate: Math.round(stats.dataFiles.usageRate * 100) / 100,
      expirationDetail: {
        batchScanNum: 2000,
        batchScanTotalNum: 0,
        batchScanTotalTime: 0,
        erasableExpiredTime: '',
        estimatedBatchFree: 0,
        estimatedErasableExpiredTime: '',
        lastBatchFree: 0,
        latestExpirationCheckTime: 'Under measurement',
      },
      logFileFlushCount: stats.log.flushCount,
      logFileFlushTime: wholeMs(stats.log.flushTimeMs),
      numBackground: 0,
      numConnection: input.connectionCount,
      numNoExpireTxn: 0,
      numSession: input.sessionCount,
      numTxn: input.transactionCount,
      ownerCount: active ? input.partitionNum : 0,
      peakProcessMemory: input.peakProcessMemoryBytes,
      poolBufferMemory: memory.residentBytes,
      processMemory: input.processMemoryBytes,
      sqlNumConnection: 0,
      sqlPeakTotalMemory: 0,
      sqlStoreSwapRead: 0,
      sqlStoreSwapReadSize: 0,
      sqlStoreSwapReadTime: 0,
      sqlStoreSwapWrite: 0,
      sqlStoreSwapWriteSize: 0,
      sqlStoreSwapWriteTime: 0,
      sqlTotalMemory: 0,
      sqlTotalMemoryLimit: 0,
      storeCompressionMode: stats.dataFiles.compressionMode === 'COMPRESSION'
        ? 'BLOCK_COMPRESSION' : 'NO_BLOCK_COMPRESSION',
      storeDetail: {
        batchFreeMapData: { ...idle },
        batchFreeRowData: { ...idle },
        mapData: {
          ...idle, storeMemory: memory.index.residentBytes, storeUse: memory.index.useBytes,
        },
        metaData: { ...idle },
        rowData,
      },
      storeMemory: memory.residentBytes,
      storeMemoryLimit: memory.limitBytes,
      storeTotalUse: memory.useBytes,
      swapRead: swap.readCount,
      swapReadSize: swap.readBytes,
      swapReadTime: wholeMs(swap.readTimeMs),
      swapReadUncompressTime: wholeMs(swap.readUncompressTimeMs),
      swapWrite: swap.writeCount,
      swapWriteCompressTime: wholeMs(swap.writeCompressTimeMs),
      swapWriteSize: swap.writeBytes,
      swapWriteTime: wholeMs(swap.writeTimeMs),
      totalBackupLsn: 0,
      totalLockConflictCount: input.lockConflictCount,
      totalOtherLsn: 0,
      totalOwnerLsn: stats.log.lastLsnSum,
      totalReadOperation: input.readOperationCount,
      totalRowRead: stats.rows.readCount,
      totalRowWrite: stats.rows.writeCount,
      totalWriteOperation: input.writeOperationCount,
      txnDetail: { totalBackgroundOperation: 0 },
    },
    recovery: { progressRate: input.recoveryProgressRate },
    version: input.version,
  };
}

/** gs_stat's printing: keys sorted at every level, indent 4 (Python's json.dumps(sort_keys)). */
export function printStatusJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 4);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, member]) => [key, sortKeys(member)]));
}

function wholeMs(ms: number): number {
  return Math.round(ms);
}

function isoTime(ms: number, options: { milliseconds?: boolean } = {}): string {
  const text = new Date(ms).toISOString();
  return options.milliseconds === false ? `${text.slice(0, 19)}Z` : text;
}
