// Members GridDB's server code defines but its shipped files leave out (surface.md §8.2, "additional
// keys"): internal tuning that an operator rarely sets. They are read from gs_node.json like any
// other member, so a file written for GridDB is understood, validated and not reported as unknown.
// Most of them steer machinery that `store` does differently or does not have; the values are kept
// for the parts that will use them and for gs_paramconf.
//
// The result is keyed by the member's path; durations are in ms and sizes in bytes.

import type { OptionReader } from '../base/option-reader.ts';
import { GiB, KiB, MiB } from '../base/units.ts';

type TuningSpec =
  | { kind: 'integer'; fallback: number; min: number; max: number }
  | { kind: 'rate'; fallback: number; min: number; max: number }
  | { kind: 'boolean'; fallback: boolean }
  /** Bytes; the number 0 (meaning "automatic" or "none") is accepted as well as a size. */
  | { kind: 'sizeBytes'; fallback: number }
  | { kind: 'durationMs'; fallback: number; minMs: number }
  | { kind: 'fileName'; fallback: string }
  | { kind: 'path'; fallback: string }
  | { kind: 'timestamp'; fallback: string };

const INT32_MAX = 2 ** 31 - 1;
const integer = (fallback: number, min = 0, max = INT32_MAX) =>
  ({ kind: 'integer', fallback, min, max }) as const;
const rate = (fallback: number, max = 1) => ({ kind: 'rate', fallback, min: 0, max }) as const;
const boolean = (fallback: boolean) => ({ kind: 'boolean', fallback }) as const;
const sizeBytes = (fallback: number) => ({ kind: 'sizeBytes', fallback }) as const;
const durationMs = (fallback: number, minMs = 0) => ({ kind: 'durationMs', fallback, minMs }) as const;
const fileName = (fallback: string) => ({ kind: 'fileName', fallback }) as const;
const EPOCH = '1970-01-01T00:00:00.000Z';

export const NODE_TUNING_MEMBERS = {
  '/dataStore/storeBlockExtentSize': integer(64, 1, 65_536),
  '/dataStore/archiveTempPath': { kind: 'path', fallback: 'archive' },
  '/dataStore/resultSetMemoryLimit': sizeBytes(10_240 * MiB),
  '/dataStore/resultSetCacheMemory': sizeBytes(0),
  '/dataStore/backgroundMinRate': rate(0.1),
  '/dataStore/erasableExpiredTime': { kind: 'timestamp', fallback: EPOCH },
  '/dataStore/estimatedErasableExpiredTime': { kind: 'timestamp', fallback: EPOCH },
  '/dataStore/rowArrayRateExponent': integer(4, 1, 16),
  '/dataStore/partitionBatchFreeCheckInterval': integer(21_600),
  '/dataStore/storeMemoryAgingSwapRate': rate(0.0005),
  '/dataStore/storeMemoryColdRate': rate(0.375),
  '/dataStore/storeMemoryRedistributeShiftableMemoryRate': integer(80, 0, 100),
  '/dataStore/storeMemoryRedistributeEmaHalfLifePeriod': integer(240, 1),
  '/dataStore/checkpointFileAutoClearCache': boolean(true),
  '/dataStore/storeBufferTableSizeRate': rate(0.01),
  '/dataStore/logMemoryLimit': sizeBytes(128 * MiB),
  '/dataStore/ioWarningThresholdTime': durationMs(5_000),
  '/dataStore/retainedFileCount': integer(2, 1, 1024),
  '/dataStore/logFileClearCacheInterval': integer(100),
  '/checkpoint/checkpointCopyInterval': durationMs(100),
  '/checkpoint/checkpointCopyQueueSize': integer(40, 1, 65_536),
  '/cluster/ownerBackupLsnGap': integer(1_000),
  '/cluster/ownerCatchupLsnGap': integer(20_000),
  '/cluster/maxLsnReplicationNum': integer(1_000),
  '/cluster/checkRuleInterval': integer(-1, -1),
  '/cluster/dropCheckInterval': durationMs(300_000, 1_000),
  '/cluster/abnormalAutoShutdown': boolean(true),
  '/cluster/stableGoalFileName': fileName('gs_stable_goal.json'),
  '/cluster/standbyModeFileName': fileName('gs_standby.json'),
  '/cluster/notificationInitialInterval': durationMs(1_000, 1),
  '/transaction/useKeepalive': boolean(true),
  '/transaction/keepaliveIdle': durationMs(600_000),
  '/transaction/keepaliveInterval': durationMs(60_000),
  '/transaction/keepaliveCount': integer(5),
  '/transaction/checkDatabaseStatsInterval': durationMs(5_000),
  '/transaction/limitDelayTime': durationMs(300_000),
  '/sql/eventBufferCacheSize': sizeBytes(1 * GiB),
  '/sql/useKeepalive': boolean(true),
  '/sql/keepaliveIdle': durationMs(600_000),
  '/sql/keepaliveInterval': durationMs(60_000),
  '/sql/keepaliveCount': integer(5),
  '/sql/sendPendingInterval': integer(500),
  '/sql/sendPendingTaskLimit': integer(5),
  '/sql/sendPendingJobLimit': integer(50),
  '/sql/sendPendingTaskConcurrency': integer(30),
  '/sql/jobTotalMemoryLimit': sizeBytes(0),
  '/sql/nosqlFailoverTimeout': durationMs(300_000),
  '/sql/tableCacheExpiredTime': durationMs(600_000),
  '/sql/tableCacheSize': integer(512),
  '/sql/multiIndexScan': boolean(false),
  '/sql/fetchSizeLimit': sizeBytes(2 * MiB),
  '/sql/transactionMessageSizeLimit': integer(2 * MiB, KiB),
  '/sql/storeSwapFileSizeLimit': sizeBytes(2048 * MiB),
  '/sql/workMemoryRate': rate(4, 1024),
  '/sync/longSyncTimeoutInterval': durationMs(INT32_MAX * 1000, 1),
  '/sync/logMaxMessageSize': sizeBytes(2 * MiB),
  '/sync/chunkMaxMessageSize': sizeBytes(2 * MiB),
  '/sync/approximateGapLsn': integer(100),
  '/sync/lockconflictInterval': durationMs(30_000),
  '/sync/keepLogInterval': durationMs(1_200_000),
  '/sync/maxSyncHistoryNum': integer(0),
  '/system/monitoringInterval': durationMs(300_000, 1),
  '/system/monitoringLimit': integer(10),
  '/security/loginWaitTime': durationMs(10),
  '/security/ldapWaitTime': durationMs(1),
  '/security/loginRepetitionNum': integer(1),
} as const satisfies Record<string, TuningSpec>;

type TuningValue<S extends TuningSpec> = S extends { kind: 'boolean' } ? boolean
  : S extends { kind: 'fileName' | 'path' | 'timestamp' } ? string : number;

export type NodeTuning = {
  -readonly [Path in keyof typeof NODE_TUNING_MEMBERS]: TuningValue<(typeof NODE_TUNING_MEMBERS)[Path]>;
};

const FILE_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,255}$/;

export function readNodeTuning(read: OptionReader): NodeTuning {
  const tuning: Record<string, number | boolean | string> = {};
  for (const [path, spec] of Object.entries(NODE_TUNING_MEMBERS) as [string, TuningSpec][]) {
    tuning[path] = readTuningMember(read, path, spec);
  }
  return tuning as NodeTuning;
}

function readTuningMember(read: OptionReader, path: string, spec: TuningSpec):
  number | boolean | string {
  switch (spec.kind) {
    case 'integer':
      return read.integer('node', path, spec.fallback, spec);
    case 'rate':
      return read.number('node', path, spec.fallback, spec);
    case 'boolean':
      return read.boolean('node', path, spec.fallback);
    case 'sizeBytes':
      return read.member('node', path) === 0 ? 0 : read.size('node', path, spec.fallback);
    case 'durationMs':
      return read.duration('node', path, spec.fallback, { minMs: spec.minMs });
    case 'path':
      return read.path('node', path, spec.fallback);
    case 'fileName':
      return read.text('node', path, spec.fallback, {
        lengthMax: 255, pattern: FILE_NAME_PATTERN,
        patternText: 'a file name of letters, digits, _ . and -',
      });
    case 'timestamp':
      return readTimestamp(read, path, spec.fallback);
  }
}

/** An ISO 8601 time with its zone, as GridDB writes erasableExpiredTime. */
function readTimestamp(read: OptionReader, path: string, fallback: string): string {
  const value = read.member('node', path);
  if (value === undefined) return fallback;
  const ok = typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:?\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value));
  if (!ok) {
    read.reject('node', path, value, 'an ISO 8601 time such as 1970-01-01T00:00:00.000Z');
    return fallback;
  }
  return value as string;
}
