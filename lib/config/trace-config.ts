// The event log's settings (gs_node.json `/trace`): how many files are kept, and the least level
// each component (GridDB calls them trace categories) writes. The categories and their default
// levels are those of GridDB's shipped gs_node.json; a level can later be changed online
// (gs_logconf), which is why every category is kept, not only the ones the code logs today.
// One category is this project's own: `connection` (client connections, accepted, authenticated
// with their applicationName, closed), at LEVEL_INFO so that it is on by default; GridDB logs
// those only at transactionService INFO, which its shipped level (ERROR) hides.

import { EVENT_LOG_FILE_COUNT_MAX } from '../base/limits.ts';
import type { OptionReader } from '../base/option-reader.ts';
import { MiB } from '../base/units.ts';
import { EVENT_LOG_LEVELS, type EventLogLevel } from '../io/event-log.ts';

export const TRACE_LEVELS = EVENT_LOG_LEVELS;
export type TraceLevel = EventLogLevel;

export const TRACE_CATEGORY_LEVELS_DEFAULT = {
  default: 'LEVEL_ERROR',
  dataStore: 'LEVEL_ERROR',
  collection: 'LEVEL_ERROR',
  timeSeries: 'LEVEL_ERROR',
  chunkManager: 'LEVEL_ERROR',
  objectManager: 'LEVEL_ERROR',
  checkpointFile: 'LEVEL_ERROR',
  checkpointService: 'LEVEL_INFO',
  logManager: 'LEVEL_WARNING',
  clusterService: 'LEVEL_ERROR',
  syncService: 'LEVEL_ERROR',
  systemService: 'LEVEL_INFO',
  transactionManager: 'LEVEL_ERROR',
  transactionService: 'LEVEL_ERROR',
  transactionTimeout: 'LEVEL_WARNING',
  triggerService: 'LEVEL_ERROR',
  sessionTimeout: 'LEVEL_WARNING',
  replicationTimeout: 'LEVEL_WARNING',
  recoveryManager: 'LEVEL_INFO',
  sqlService: 'LEVEL_WARNING',
  eventEngine: 'LEVEL_WARNING',
  clusterOperation: 'LEVEL_INFO',
  ioMonitor: 'LEVEL_WARNING',
  connection: 'LEVEL_INFO',
} as const satisfies Record<string, TraceLevel>;

export type TraceCategory = keyof typeof TRACE_CATEGORY_LEVELS_DEFAULT;

export const TRACE_CATEGORIES = Object.keys(TRACE_CATEGORY_LEVELS_DEFAULT) as TraceCategory[];

export interface TraceConfig {
  /** Event log files kept in the log directory; older ones are deleted. */
  fileCount: number;
  levels: Record<TraceCategory, TraceLevel>;
  auditLogs: boolean;
  auditLogsPath: string;
  auditFileLimitBytes: number;
  auditMessageLimit: number;
}

export const TRACE_FILE_COUNT_DEFAULT = 30;

export function readTraceConfig(read: OptionReader): TraceConfig {
  const levels = {} as Record<TraceCategory, TraceLevel>;
  for (const category of TRACE_CATEGORIES) {
    levels[category] = read.choice('node', `/trace/${category}`,
      TRACE_CATEGORY_LEVELS_DEFAULT[category], TRACE_LEVELS);
  }
  return {
    fileCount: read.integer('node', '/trace/fileCount', TRACE_FILE_COUNT_DEFAULT,
      { min: 1, max: EVENT_LOG_FILE_COUNT_MAX }),
    levels,
    auditLogs: read.boolean('node', '/trace/auditLogs', false),
    auditLogsPath: read.path('node', '/trace/auditLogsPath', 'audit'),
    auditFileLimitBytes: read.size('node', '/trace/auditFileLimit', 10 * MiB, { minBytes: 1 }),
    auditMessageLimit: read.integer('node', '/trace/auditMessageLimit', 1024,
      { min: 1, max: 1_048_576 }),
  };
}
