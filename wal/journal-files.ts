// Where commit journal files live: `<root>/journal/<first>-<last>_<sequence>.journal`, root being
// the transaction log directory, first..last the partition range of the group that wrote the file
// (both included). Naming the range, not the group index, keeps a file's meaning when
// /dataStore/concurrency changes between a crash and the restart: each group reads every file whose
// range overlaps its own.

import { join } from 'node:path';
import { assert } from '../lib/base/assert.ts';
import type { FileSystem } from '../lib/io/file-system.ts';

export const JOURNAL_DIRECTORY_NAME = 'journal';

const JOURNAL_FILE_NAME_PATTERN = /^(0|[1-9]\d*)-(0|[1-9]\d*)_([1-9]\d*)\.journal$/;

/** A group's partitions: startPartitionId .. startPartitionId + partitionCount - 1. */
export interface PartitionRange {
  startPartitionId: number;
  partitionCount: number;
}

export interface JournalFileName extends PartitionRange {
  sequence: number;
}

export function journalDirectory(root: string): string {
  return join(root, JOURNAL_DIRECTORY_NAME);
}

export function journalFilePath(root: string, file: JournalFileName): string {
  assert(Number.isInteger(file.startPartitionId) && file.startPartitionId >= 0);
  assert(Number.isInteger(file.partitionCount) && file.partitionCount >= 1);
  assert(Number.isInteger(file.sequence) && file.sequence >= 1 && file.sequence <= 0xffff_ffff);
  const last = file.startPartitionId + file.partitionCount - 1;
  return join(journalDirectory(root), `${file.startPartitionId}-${last}_${file.sequence}.journal`);
}

/** The range and sequence a file name stands for; undefined for any other name. */
export function parseJournalFileName(name: string): JournalFileName | undefined {
  const match = JOURNAL_FILE_NAME_PATTERN.exec(name);
  if (match === null) return undefined;
  const first = Number(match[1]);
  const last = Number(match[2]);
  const sequence = Number(match[3]);
  if (last < first || last > 0xffff_ffff || sequence > 0xffff_ffff) return undefined;
  return { startPartitionId: first, partitionCount: last - first + 1, sequence };
}

/** Journal files whose range overlaps `range`, in ascending sequence order. */
export function listJournalFiles(
  fileSystem: FileSystem,
  root: string,
  range: PartitionRange,
): JournalFileName[] {
  const files: JournalFileName[] = [];
  for (const name of fileSystem.list(journalDirectory(root))) {
    const file = parseJournalFileName(name);
    if (file !== undefined && rangesOverlap(file, range)) files.push(file);
  }
  return files.sort((a, b) => a.sequence - b.sequence);
}

export function rangesOverlap(a: PartitionRange, b: PartitionRange): boolean {
  return a.startPartitionId < b.startPartitionId + b.partitionCount &&
    b.startPartitionId < a.startPartitionId + a.partitionCount;
}

export function rangeContains(outer: PartitionRange, inner: PartitionRange): boolean {
  return inner.startPartitionId >= outer.startPartitionId &&
    inner.startPartitionId + inner.partitionCount <= outer.startPartitionId + outer.partitionCount;
}
