// Storage options: read from the members of gs_cluster.json and gs_node.json that concern storage,
// validated all at once (every bad member is reported, not just the first), and turned into numbers
// with their units in their names. Nothing past this file parses "64KB" or "300s".

import { StorageError } from './errors.ts';
import {
  CONCURRENCY_MAX, CONCURRENCY_MIN, PARTITION_NUM_MAX, PARTITION_NUM_MIN, STORE_BLOCK_SIZES_BYTES,
} from './limits.ts';
import { formatSize, parseDurationMs, parseSizeBytes } from './units.ts';

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
  /** Upper bound of a transaction's life and of one lock wait. */
  transactionTimeoutLimitMs: number;
}

/** The members as they appear in the two JSON files. Unknown members are allowed and ignored here. */
export interface StorageConfigFiles {
  cluster?: Record<string, unknown>;
  node?: Record<string, unknown>;
}

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
  transactionTimeoutLimitMs: 300_000,
};

const FILE_NAMES = { cluster: 'gs_cluster.json', node: 'gs_node.json' } as const;

class OptionReader {
  readonly problems: string[] = [];

  constructor(private readonly files: StorageConfigFiles) {}

  member(file: 'cluster' | 'node', path: string): unknown {
    let value: unknown = this.files[file];
    for (const part of path.split('/').filter(Boolean)) {
      if (typeof value !== 'object' || value === null) return undefined;
      const object = value as Record<string, unknown>;
      // The seed spells one member `/datastore/...`; accept that spelling of the group too.
      value = part === 'dataStore' && object[part] === undefined ? object['datastore'] : object[part];
    }
    return value;
  }

  integer(file: 'cluster' | 'node', path: string, fallback: number, min: number, max: number) {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${FILE_NAMES[file]} ${path}: ${JSON.stringify(value)} ` +
        `is not an integer from ${min} to ${max}`);
      return fallback;
    }
    return value;
  }

  size(file: 'cluster' | 'node', path: string, fallback: number, allowed?: readonly number[]) {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    const bytes = parseSizeBytes(value);
    if (bytes === undefined || (allowed !== undefined && !allowed.includes(bytes))) {
      const expected = allowed === undefined
        ? 'a size with a unit (B, KB, MB, GB, TB)'
        : `one of ${allowed.map(formatSize).join(', ')}`;
      this.problems.push(`${FILE_NAMES[file]} ${path}: ${JSON.stringify(value)} is not ${expected}`);
      return fallback;
    }
    return bytes;
  }

  duration(file: 'cluster' | 'node', path: string, fallback: number, minMs = 0) {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    const ms = parseDurationMs(value);
    if (ms === undefined || ms < minMs) {
      this.problems.push(
        `${FILE_NAMES[file]} ${path}: ${JSON.stringify(value)} ` +
          'is not a duration with a unit (h, min, s, ms)' +
          (minMs > 0 ? ` of at least ${minMs} ms` : ''),
      );
      return fallback;
    }
    return ms;
  }

  choice<T extends string>(file: 'cluster' | 'node', path: string, fallback: T, allowed: readonly T[]) {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !allowed.includes(value as T)) {
      this.problems.push(`${FILE_NAMES[file]} ${path}: ${JSON.stringify(value)} ` +
        `is not one of ${allowed.join(', ')}`);
      return fallback;
    }
    return value as T;
  }

  path(file: 'cluster' | 'node', path: string, fallback: string) {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || value.length === 0 || value.includes('\0')) {
      this.problems.push(`${FILE_NAMES[file]} ${path}: ${JSON.stringify(value)} is not a directory path`);
      return fallback;
    }
    return value;
  }

  pathList(file: 'cluster' | 'node', path: string): string[] {
    const value = this.member(file, path);
    if (value === undefined) return [];
    const ok = Array.isArray(value) &&
      value.every((item) => typeof item === 'string' && item.length > 0 && !item.includes('\0'));
    if (!ok) {
      this.problems.push(`${FILE_NAMES[file]} ${path}: ${JSON.stringify(value)} ` +
        'is not a list of directory paths');
      return [];
    }
    return value as string[];
  }
}

/** Returns the options and every problem found; an empty problem list means valid. */
export function readStorageOptions(files: StorageConfigFiles): {
  options: StorageOptions;
  problems: string[];
} {
  const read = new OptionReader(files);
  const d = STORAGE_OPTION_DEFAULTS;
  const options: StorageOptions = {
    partitionNum: read.integer('cluster', '/dataStore/partitionNum', d.partitionNum,
      PARTITION_NUM_MIN, PARTITION_NUM_MAX),
    storeBlockSizeBytes: read.size('cluster', '/dataStore/storeBlockSize', d.storeBlockSizeBytes,
      STORE_BLOCK_SIZES_BYTES),
    concurrency: read.integer('node', '/dataStore/concurrency', d.concurrency,
      CONCURRENCY_MIN, CONCURRENCY_MAX),
    logWriteMode: read.integer('node', '/dataStore/logWriteMode', d.logWriteMode, -1, 86_400),
    storeMemoryLimitBytes: read.size('node', '/dataStore/storeMemoryLimit', d.storeMemoryLimitBytes),
    transactionLogPath: read.path('node', '/dataStore/transactionLogPath', d.transactionLogPath),
    dbPath: read.path('node', '/dataStore/dbPath', d.dbPath),
    storeCompressionMode: read.choice('node', '/dataStore/storeCompressionMode',
      d.storeCompressionMode, ['NO_COMPRESSION', 'COMPRESSION'] as const),
    // GridDB's docs say 0 means "no split"; its code's minimum is 1. Both mean one file.
    dbFileSplitCount: Math.max(1, read.integer('node', '/dataStore/dbFileSplitCount', 1, 0, 128)),
    dbFilePathList: read.pathList('node', '/dataStore/dbFilePathList'),
    checkpointIntervalMs: read.duration('node', '/checkpoint/checkpointInterval',
      d.checkpointIntervalMs, 1),
    partialCheckpointInterval: read.integer('node', '/checkpoint/partialCheckpointInterval',
      d.partialCheckpointInterval, 1, 1024),
    transactionTimeoutLimitMs: read.duration('node', '/transaction/transactionTimeoutLimit',
      d.transactionTimeoutLimitMs, 1),
  };
  if (options.concurrency > options.partitionNum) {
    read.problems.push(
      `gs_node.json /dataStore/concurrency: ${options.concurrency} is more than /dataStore/partitionNum ` +
        `${options.partitionNum}`,
    );
  }
  return { options, problems: read.problems };
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
