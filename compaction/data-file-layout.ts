// Where a partition's data files are and what goes into a slot: file names, their directories,
// and when a compressed image is worth storing. The layout itself is drawn in data-file.ts.

import { join } from 'node:path';
import { assert } from '../lib/base/assert.ts';
import { StorageError } from '../lib/base/errors.ts';
import type { PartitionId } from '../lib/base/ids.ts';
import {
  COMPRESSION_SAVINGS_PERCENT_MIN, FILE_SYSTEM_BLOCK_SIZE_BYTES,
} from '../lib/base/limits.ts';
import type { FileSystem } from '../lib/io/file-system.ts';
import { dataPartitionDirectory } from './cplog-files.ts';

const DATA_FILE_NAME_PATTERN = /^(0|[1-9]\d*)_part_(0|[1-9]\d*)\.dat$/;

export interface DataFileLayout {
  /** The data directory (dbPath); the files go to `<dataRoot>/<pId>` unless filePathList is set. */
  dataRoot: string;
  partitionId: PartitionId;
  /** `/dataStore/dbFileSplitCount` (at least 1). */
  splitCount: number;
  /** `/dataStore/dbFilePathList`, resolved by the caller; empty or absent: dataRoot. */
  filePathList?: readonly string[];
}

/** `<pId>_part_<n>.dat` */
export function dataFileName(partitionId: PartitionId, fileIndex: number): string {
  assert(Number.isInteger(fileIndex) && fileIndex >= 0);
  return `${partitionId}_part_${fileIndex}.dat`;
}

/** The directory of each data file, by file index. */
export function dataFileDirectories(options: DataFileLayout): string[] {
  const list = options.filePathList ?? [];
  return Array.from({ length: options.splitCount }, (_, n) => (list.length === 0
    ? dataPartitionDirectory(options.dataRoot, options.partitionId)
    : join(list[n % list.length]!, String(options.partitionId))));
}

/** Whether a compressed image of `compressedBytes` is worth storing instead of the raw one. */
export function compressionSaves(compressedBytes: number, blockSizeBytes: number): boolean {
  const percentMax = 100 - COMPRESSION_SAVINGS_PERCENT_MIN;
  return compressedBytes * 100 <= blockSizeBytes * percentMax &&
    roundUpToFileSystemBlock(compressedBytes) <= blockSizeBytes - FILE_SYSTEM_BLOCK_SIZE_BYTES;
}

/** Rounds up to whole file-system blocks: what a compressed slot writes. */
export function roundUpToFileSystemBlock(sizeBytes: number): number {
  return Math.ceil(sizeBytes / FILE_SYSTEM_BLOCK_SIZE_BYTES) * FILE_SYSTEM_BLOCK_SIZE_BYTES;
}

/** A data file of this partition with an index ≥ splitCount means the split count changed. */
export function checkDataFileSplitCount(
  fileSystem: FileSystem,
  options: DataFileLayout,
  directory: string,
): void {
  for (const name of fileSystem.list(directory)) {
    const match = DATA_FILE_NAME_PATTERN.exec(name);
    if (match === null || Number(match[1]) !== options.partitionId) continue;
    if (Number(match[2]) < options.splitCount) continue;
    throw new StorageError('CONFIG_INVALID', `${join(directory, name)} exists but ` +
      `/dataStore/dbFileSplitCount is ${options.splitCount}: the split count of a database ` +
      'cannot change');
  }
}
