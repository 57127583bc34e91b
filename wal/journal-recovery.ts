// The commit journal at a partition group's recovery: read every journal file whose partition range
// overlaps the group's, keep its partitions' records by partition (ascending LSN, each LSN once),
// and after the partitions have appended them to their xlogs and synced, delete the files that
// hold nothing for any other group.
//
// Files of another range exist only when /dataStore/concurrency changed between a crash and this
// start; every group that overlaps one reads it, and the store deletes it once all of them are open
// (removeForeignJournalFiles).

import type { Lsn, PartitionId } from '../lib/base/ids.ts';
import type { FileSystem } from '../lib/io/file-system.ts';
import {
  journalDirectory, journalFilePath, listJournalFiles, rangeContains, type JournalFileName,
  type PartitionRange,
} from './journal-files.ts';
import type { JournalRecord } from './journal-format.ts';
import { scanJournalFile } from './journal-reader.ts';

export interface GroupJournals {
  /** Per partition of the group, its journaled records in ascending LSN order, each LSN once. */
  records: Map<PartitionId, JournalRecord[]>;
  /** The files read. */
  files: JournalFileName[];
  /** The sequence for the group's next file: above every file of its exact range. */
  nextSequence: number;
  /** Bytes past the last good record of each file, summed (torn or unsynced tails). */
  ignoredBytes: number;
}

export function readGroupJournals(
  fileSystem: FileSystem,
  root: string,
  range: PartitionRange,
): GroupJournals {
  const files = listJournalFiles(fileSystem, root, range);
  const byLsn = new Map<PartitionId, Map<Lsn, JournalRecord>>();
  const end = range.startPartitionId + range.partitionCount;
  let ignoredBytes = 0;
  let nextSequence = 1;
  for (const file of files) {
    if (file.startPartitionId === range.startPartitionId &&
        file.partitionCount === range.partitionCount) {
      nextSequence = Math.max(nextSequence, file.sequence + 1);
    }
    const scan = scanJournalFile(fileSystem, journalFilePath(root, file),
      (id) => id >= range.startPartitionId && id < end,
      (record) => {
        let partition = byLsn.get(record.partitionId);
        if (partition === undefined) byLsn.set(record.partitionId, partition = new Map());
        partition.set(record.lsn, { ...record, payload: record.payload.slice() });
      });
    ignoredBytes += scan.ignoredBytes;
  }
  const records = new Map<PartitionId, JournalRecord[]>();
  for (const [id, partition] of byLsn) {
    records.set(id, [...partition.values()].sort((a, b) => (a.lsn < b.lsn ? -1 : 1)));
  }
  return { records, files, nextSequence, ignoredBytes };
}

/**
 * The records (ascending LSNs) that continue a log ending at `lastLsn` without a gap: those a
 * recovery appends. A gap means the rest was never acknowledged: a journaled commit waits for the
 * xlog-only records before it to be synced.
 */
export function continuingRecords(records: readonly JournalRecord[], lastLsn: Lsn): JournalRecord[] {
  const continued: JournalRecord[] = [];
  for (const record of records) {
    if (record.lsn <= lastLsn) continue;
    if (record.lsn !== lastLsn + 1n) break;
    continued.push(record);
    lastLsn = record.lsn;
  }
  return continued;
}

/**
 * Deletes the files read at recovery that lie within the group's range (their records are now in
 * synced xlogs), and makes the deletions durable.
 */
export async function removeRecoveredJournalFiles(
  fileSystem: FileSystem,
  root: string,
  range: PartitionRange,
  journals: GroupJournals,
): Promise<void> {
  let removed = false;
  for (const file of journals.files) {
    if (!rangeContains(range, file)) continue;
    fileSystem.remove(journalFilePath(root, file));
    removed = true;
  }
  if (removed) await fileSystem.syncDirectory(journalDirectory(root));
}

/**
 * Deletes journal files within no range of `ranges` (the groups now open, all recovered): left from
 * a start with another concurrency, their records are in synced xlogs now.
 */
export async function removeForeignJournalFiles(
  fileSystem: FileSystem,
  root: string,
  ranges: readonly PartitionRange[],
): Promise<void> {
  const all = { startPartitionId: 0, partitionCount: 0xffff_ffff };
  let removed = false;
  for (const file of listJournalFiles(fileSystem, root, all)) {
    if (ranges.some((range) => rangeContains(range, file))) continue;
    fileSystem.remove(journalFilePath(root, file));
    removed = true;
  }
  if (removed) await fileSystem.syncDirectory(journalDirectory(root));
}
