// What a partition borrows from its partition group: settings, injected time and files, and the
// group's shared machinery (group commit, pipeline, one encode buffer: the group is single-threaded).

import type { SchedulerLike } from 'rxjs';
import type { BlockSizeLimits } from '../base/limits.ts';
import type { StorageOptions } from '../base/options.ts';
import type { BlockPipeline } from '../block/block-pipeline.ts';
import type { BufferPool } from '../block/buffer-pool.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import type { Clock } from '../io/clock.ts';
import type { FileSystem } from '../io/file-system.ts';
import type { IndexMemory } from './index-memory.ts';
import type { GroupCommit } from '../../wal/group-commit.ts';

export interface PartitionContext {
  options: StorageOptions;
  limits: BlockSizeLimits;
  fileSystem: FileSystem;
  clock: Clock;
  scheduler: SchedulerLike;
  /** Absolute transaction log directory (options.transactionLogPath resolved against the home). */
  transactionLogRoot: string;
  /** Absolute data directory (options.dbPath resolved against the home): cplogs, .dat, catalogs. */
  dataRoot: string;
  groupCommit: GroupCommit;
  pipeline: BlockPipeline;
  /** The group's share of storeMemoryLimit, for every partition's blocks. */
  pool: BufferPool;
  /** The group's budget for index structures (INDEX_MEMORY_SHARE_OF_STORE_MEMORY of its share). */
  indexMemory: IndexMemory;
  payloadWriter: ByteWriter;
}
