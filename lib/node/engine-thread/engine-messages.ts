// The messages between the node's main thread and an engine thread (DESIGN.md §2): plain data,
// with request and reply bytes moved as transferred ArrayBuffers. Calls carry an id, and the
// engine answers each with the same id; the other messages are one-way, in order (a connection is
// opened before its first request and closed after its last, because a port delivers in order).
// The node runs one engine thread per partition group; each is opened with its group.
//
//   main → engine   open, request (or, with `check`, a MULTI_PUT's checks without its writes),
//                   connectionOpened, connectionClosed, status, partitionLsns,
//                   checkpoint, setPeriodicCheckpoint,
//                   setStoreMemoryLimit, sqlPeer (another group's SQL asks this one), close,
//                   sqlPeerAnswer (answers this engine's sqlPeer)
//   engine → main   done | failed (answers a call; for a request, the engine failed on a bug),
//                   reply (answers a request), checkpoint (a checkpoint started, completed,
//                   failed or skipped), warning (something degraded without failing, such as
//                   journal preallocation), sqlPeer (a statement here asks the other groups:
//                   lib/server/sql-peers.ts; the main thread asks them with sqlPeer calls and
//                   answers with sqlPeerAnswer)
//
// An engine that fails on a bug (fail-stop, request-runner.ts) ends its thread with the error
// uncaught, which the main thread sees as the worker's death (worker-engine.ts).

import type { SqlDatabaseRow } from '../../sql/meta/metatables.ts';
import type { StorageOptions } from '../../base/options.ts';
import type { CheckpointTrigger, RecoveryReport } from '../../engine/partition-group.ts';
import type { CheckpointGateShared } from '../../engine/checkpoint-gate.ts';
import type { BackupTarget } from '../../engine/partition-backup.ts';
import type { StoreStats } from '../../engine/store-stats.ts';
import type { MessageType } from '../../protocol/message-types.ts';
import type { ConnectionSetup, EngineInfo } from '../../server/request-runner.ts';
import type { SlowQueryRecord } from '../../server/slow-query-handler.ts';
import type { SqlPeerCall } from '../../server/sql-peers.ts';

/** What the engine thread needs to open the store and serve requests. */
export interface EngineOpenSettings {
  home: string;
  options: StorageOptions;
  releaseUnusedFileBlocks: boolean;
  messageBytesMax: number;
  /** GridDB's /sql/workMemoryLimit: work memory of one SQL statement. */
  sqlWorkMemoryLimitBytes?: number;
  /** GridDB's /sql/partitioningRowkeyConstraint (true when absent). */
  sqlPartitioningRowkeyConstraint?: boolean;
  /** GridDB's /sql/costBasedJoin (true when absent). */
  sqlCostBasedJoin?: boolean;
  /** The partition groups this engine serves; every group when absent. */
  groupIndexes?: number[];
  /** Shared by the node's engine threads: one checkpoint count for all (checkpoint-gate.ts). */
  checkpointGateShared?: CheckpointGateShared;
  /** Testing aid, inert when absent: LocalRunnerOptions.faultAssertOnContainer. */
  faultAssertOnContainer?: string;
  /** Testing aid, inert when absent: the store's wall clock runs this many ms ahead (expiry tests). */
  testClockOffsetMs?: number;
  /** The slow-query log's threshold and text size (lib/server/slow-query-handler.ts). */
  slowQuery?: { thresholdMs: number; textBytesMax: number };
  /** Other engine threads serve the other partition groups: SQL asks them through the main thread. */
  sqlPeers?: boolean;
}

/** The node status report's engine figures. */
export interface EngineStatus {
  stats: StoreStats;
  sessionCount: number;
  openTransactionCount: number;
  periodicCheckpointEnabled: boolean;
  /** The threads the engine runs in (worker_threads threadId; 0 is the main thread). */
  threadIds: number[];
}

export interface EngineOpened {
  info: EngineInfo;
  recovery: RecoveryReport;
}

/** An Error as it crosses the thread boundary; StorageErrors keep their code. */
export interface ErrorData {
  message: string;
  stack?: string;
  code?: string;
}

export type EngineCall =
  | { kind: 'open'; settings: EngineOpenSettings }
  | { kind: 'status' }
  | { kind: 'partitionLsns' }
  | { kind: 'checkpoint'; trigger: 'requested' | 'recovery' }
  | { kind: 'setPeriodicCheckpoint'; enabled: boolean }
  /** A checkpoint, then the copy of every partition's files into the target (a backup). */
  | { kind: 'backup'; target: BackupTarget }
  | { kind: 'setStoreMemoryLimit'; memoryLimitBytes: number }
  /** The databases besides public, for "#databases" (the access catalog lives in the main thread). */
  | { kind: 'setDatabases'; databases: SqlDatabaseRow[] }
  /** Another group's SQL statement asks this group (lib/server/sql-peers.ts). */
  | { kind: 'sqlPeer'; call: SqlPeerCall }
  /** `abandon`: a start that failed: no checkpoint, and what the start wrote is taken back. */
  | { kind: 'close'; abandon?: boolean };

export type ToEngine =
  | (EngineCall & { id: number })
  | { kind: 'request'; id: number; connectionId: number; messageType: MessageType; requestId: number;
    body: Uint8Array; check?: true }
  | { kind: 'connectionOpened'; connectionId: number; setup: ConnectionSetup }
  | { kind: 'connectionClosed'; connectionId: number }
  | { kind: 'sqlPeerAnswer'; id: number; value?: unknown; error?: ErrorData };

export type CheckpointNotice =
  | { kind: 'started'; groupIndex: number; trigger: CheckpointTrigger }
  | { kind: 'completed'; groupIndex: number; trigger: CheckpointTrigger; durationMs: number }
  | { kind: 'failed'; groupIndex: number; trigger: CheckpointTrigger; error: ErrorData }
  | {
    kind: 'skipped'; groupIndex: number; trigger: CheckpointTrigger; partitionId: number;
    neededBytes: number; freeBytes: number;
  }
  | {
    kind: 'cleanupFailed'; groupIndex: number; trigger: CheckpointTrigger; partitionId: number;
    error: ErrorData;
  };

export type FromEngine =
  | { kind: 'done'; id: number; value: unknown }
  | { kind: 'failed'; id: number; error: ErrorData }
  | { kind: 'reply'; id: number; bytes: Uint8Array; closeReason?: string }
  | { kind: 'checkpoint'; notice: CheckpointNotice }
  | { kind: 'warning'; message: string }
  | { kind: 'slowQuery'; record: SlowQueryRecord }
  | { kind: 'sqlPeer'; id: number; call: SqlPeerCall };

export function errorData(error: unknown): ErrorData {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    message: error.message,
    ...(error.stack === undefined ? {} : { stack: error.stack }),
    ...(typeof code === 'string' ? { code } : {}),
  };
}
