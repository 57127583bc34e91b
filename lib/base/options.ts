// Storage options: read from the members of gs_cluster.json and gs_node.json that concern storage,
// validated all at once (every bad member is reported, not just the first), and turned into numbers
// with their units in their names. The engine opens with these alone; lib/config reads them through
// the same reader as the rest of the two files. Nothing past the config layer parses "64KB".

import { StorageError } from './errors.ts';
import {
  CONCURRENCY_MAX, CONCURRENCY_MIN, DATA_FILE_SPLIT_COUNT_MAX, PARTIAL_CHECKPOINT_INTERVAL_MAX,
  PARTITION_NUM_MAX, PARTITION_NUM_MIN, STORE_BLOCK_SIZES_BYTES,
} from './limits.ts';
import { OptionReader, type DefinitionFiles } from './option-reader.ts';

export type StoreCompressionMode = 'NO_COMPRESSION' | 'COMPRESSION';

export interface StorageOptions {
  partitionNum: number;
  concurrency: number;
  storeBlockSizeBytes: number;
  /** -1 or 0: acknowledge after fdatasync (group commit). n >= 1: acknowledge at append, sync every n s. */
  logWriteMode: number;
  storeMemoryLimitBytes: number;
  /** Relative to the home directory unless absolute. */
  transactionLogPath: string;
  dbPath: string;
  storeCompressionMode: StoreCompressionMode;
  dbFileSplitCount: number;
  dbFilePathList: string[];
  checkpointIntervalMs: number;
  partialCheckpointInterval: number;
  /**
   * GridDB's /dataStore/checkpointFileFlushSize: a checkpoint fdatasyncs a partition's data files
   * each time it has written this many bytes to them, besides once before the cplog END; 0: only
   * that once.
   */
  checkpointFileFlushSizeBytes: number;
  /** Upper bound of a transaction's life and of one lock wait. */
  transactionTimeoutLimitMs: number;
}

/** The members as they appear in the two JSON files. Unknown members are allowed and ignored here. */
export type StorageConfigFiles = DefinitionFiles;

export const STORAGE_OPTION_DEFAULTS: StorageOptions = {
  partitionNum: 128,
  concurrency: 4,
  storeBlockSizeBytes: 64 * 1024,
  logWriteMode: 1,
  storeMemoryLimitBytes: 1024 * 1024 * 1024,
  transactionLogPath: 'txnlog',
  dbPath: 'data',
  storeCompressionMode: 'NO_COMPRESSION',
  dbFileSplitCount: 1,
  dbFilePathList: [],
  checkpointIntervalMs: 300_000,
  partialCheckpointInterval: 5,
  checkpointFileFlushSizeBytes: 0,
  transactionTimeoutLimitMs: 300_000,
};

/** Returns the options and every problem found; an empty problem list means valid. */
export function readStorageOptions(files: StorageConfigFiles): {
  options: StorageOptions;
  problems: string[];
} {
  const reader = new OptionReader(files);
  const options = readStorageMembers(reader);
  return { options, problems: reader.problems };
}

/**
 * Reads the storage members through a reader the caller owns (lib/config reads every other member
 * through the same one, so that it knows which members are left over).
 */
export function readStorageMembers(read: OptionReader): StorageOptions {
  const d = STORAGE_OPTION_DEFAULTS;
  const options: StorageOptions = {
    partitionNum: read.integer('cluster', '/dataStore/partitionNum', d.partitionNum,
      { min: PARTITION_NUM_MIN, max: PARTITION_NUM_MAX }),
    storeBlockSizeBytes: read.size('cluster', '/dataStore/storeBlockSize', d.storeBlockSizeBytes,
      STORE_BLOCK_SIZES_BYTES),
    concurrency: read.integer('node', '/dataStore/concurrency', d.concurrency,
      { min: CONCURRENCY_MIN, max: CONCURRENCY_MAX }),
    logWriteMode: read.integer('node', '/dataStore/logWriteMode', d.logWriteMode,
      { min: -1, max: 86_400 }),
    storeMemoryLimitBytes: read.size('node', '/dataStore/storeMemoryLimit', d.storeMemoryLimitBytes),
    transactionLogPath: read.path('node', '/dataStore/transactionLogPath', d.transactionLogPath),
    dbPath: read.path('node', '/dataStore/dbPath', d.dbPath),
    storeCompressionMode: read.choice('node', '/dataStore/storeCompressionMode',
      d.storeCompressionMode, ['NO_COMPRESSION', 'COMPRESSION'] as const),
    // GridDB's docs say 0 means "no split"; its code's minimum is 1. Both mean one file.
    dbFileSplitCount: Math.max(1, read.integer('node', '/dataStore/dbFileSplitCount', 1,
      { min: 0, max: DATA_FILE_SPLIT_COUNT_MAX })),
    dbFilePathList: read.pathList('node', '/dataStore/dbFilePathList'),
    checkpointIntervalMs: read.duration('node', '/checkpoint/checkpointInterval',
      d.checkpointIntervalMs, { minMs: 1 }),
    partialCheckpointInterval: read.integer('node', '/checkpoint/partialCheckpointInterval',
      d.partialCheckpointInterval, { min: 1, max: PARTIAL_CHECKPOINT_INTERVAL_MAX }),
    // GridDB's default is the number 0 (off), which has no unit: taken as it is.
    checkpointFileFlushSizeBytes: read.member('node', '/dataStore/checkpointFileFlushSize') === 0 ? 0
      : read.size('node', '/dataStore/checkpointFileFlushSize', d.checkpointFileFlushSizeBytes),
    transactionTimeoutLimitMs: read.duration('node', '/transaction/transactionTimeoutLimit',
      d.transactionTimeoutLimitMs, { minMs: 1 }),
  };
  if (options.concurrency > options.partitionNum) {
    read.problems.push(
      `gs_node.json /dataStore/concurrency: ${options.concurrency} is more than /dataStore/partitionNum ` +
        `${options.partitionNum}`,
    );
  }
  return options;
}

/** Like readStorageOptions, but a bad file is a CONFIG_INVALID error naming every bad member. */
export function parseStorageOptions(files: StorageConfigFiles): StorageOptions {
  const { options, problems } = readStorageOptions(files);
  if (problems.length > 0) {
    throw new StorageError('CONFIG_INVALID', `invalid configuration: ${problems.join('; ')}`);
  }
  return options;
}

/** Builds options from a partial object of already-parsed values (tests, benchmarks, tools). */
export function storageOptions(overrides: Partial<StorageOptions> = {}): StorageOptions {
  return { ...STORAGE_OPTION_DEFAULTS, ...overrides };
}
