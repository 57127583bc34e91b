// A partition's files copied into a backup: everything its last complete checkpoint needs and the
// log after it. The caller (PartitionGroup.backup) has just checkpointed the partition and holds
// the group's checkpoint chain, so no checkpoint runs until the copy is over: no cplog, catalog or
// xlog file is deleted, no slot a cplog names is reused (free-slots.ts), and the xlog stays in its
// generation. Writes go on meanwhile: commits append to the xlog (copied up to its size when its
// copy begins; a record cut there is a torn tail the restored node's recovery cuts off, and it was
// not acknowledged before the copy began), swap writes land in slots no cplog names.
//
// Backup layout, as a home's (a restore copies it back file for file):
//   <backup>/data/<pId>/<pId>_<gen>.cplog, <pId>_<gen>.catalog, <pId>_part_<n>.dat
//   <backup>/txnlog/<pId>/<pId>_<gen>.xlog
// Data files under dbFilePathList are taken from there and put beside the cplogs.

import { join } from 'node:path';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { PartitionId } from '../base/ids.ts';
import { copyFileChunked } from '../io/file-copy.ts';
import { makeDirectoryDurable, type FileSystem } from '../io/file-system.ts';
import { dataPartitionDirectory } from '../../compaction/cplog-files.ts';
import { dataFileDirectories } from '../../compaction/data-file-layout.ts';
import { xlogPartitionDirectory } from '../../wal/xlog-files.ts';
import type { Partition } from './partition.ts';
import type { PartitionContext } from './partition-context.ts';

/** Files of one partition a backup copies: a bound on what one directory listing may give. */
export const PARTITION_BACKUP_FILE_COUNT_MAX = 4096;

/** Where a backup's copy goes: its data and txnlog directories. */
export interface BackupTarget {
  dataRoot: string;
  transactionLogRoot: string;
}

/** What one partition's backup holds (plain data: it crosses from an engine thread). */
export interface PartitionBackupReport {
  partitionId: number;
  /** The LSN of the checkpoint the copy is consistent with (decimal). */
  checkpointLsn: string;
  /** The partition's last LSN when its copy began: every record up to it is in the copy. */
  copiedLsn: string;
  fileCount: number;
  copiedBytes: number;
}

/** Copies the partition's checkpoint files and its xlog into `target`. */
export async function backupPartition(
  partition: Partition,
  context: PartitionContext,
  target: BackupTarget,
): Promise<PartitionBackupReport> {
  const { fileSystem, options } = context;
  const partitionId = partition.id as PartitionId;
  // Taken before any xlog byte is copied: every record up to it is in the file by then.
  const copiedLsn = partition.log.lastAppliedLsn;
  assert(copiedLsn >= partition.lastCheckpointLsn);
  const dataTo = dataPartitionDirectory(target.dataRoot, partitionId);
  const logTo = xlogPartitionDirectory(target.transactionLogRoot, partitionId);
  const dataFrom = new Set([dataPartitionDirectory(context.dataRoot, partitionId),
    ...dataFileDirectories({
      dataRoot: context.dataRoot, partitionId, splitCount: options.dbFileSplitCount,
      filePathList: options.dbFilePathList,
    })]);
  const copies: Array<{ fromPath: string; toPath: string }> = [];
  for (const directory of dataFrom) copies.push(...directoryCopies(fileSystem, directory, dataTo));
  const logFrom = xlogPartitionDirectory(context.transactionLogRoot, partitionId);
  const logCopies = directoryCopies(fileSystem, logFrom, logTo);
  let copiedBytes = 0;
  for (const [directory, list] of [[dataTo, copies], [logTo, logCopies]] as const) {
    if (list.length === 0) continue;
    await makeDirectoryDurable(fileSystem, directory);
    for (const copy of list) copiedBytes += await copyFileChunked(fileSystem, copy);
    await fileSystem.syncDirectory(directory);
  }
  return {
    partitionId, checkpointLsn: String(partition.lastCheckpointLsn), copiedLsn: String(copiedLsn),
    fileCount: copies.length + logCopies.length, copiedBytes,
  };
}

function directoryCopies(fileSystem: FileSystem, from: string, to: string) {
  // Temporary files (`.tmp`, an atomic write under way) are not part of any checkpoint.
  const names = fileSystem.list(from).filter((name) => !name.endsWith('.tmp'));
  if (names.length > PARTITION_BACKUP_FILE_COUNT_MAX) {
    throw new StorageError('LIMIT_EXCEEDED', `backup: ${from} holds ${names.length} files, more than ` +
      `${PARTITION_BACKUP_FILE_COUNT_MAX}`);
  }
  return names.map((name) => ({ fromPath: join(from, name), toPath: join(to, name) }));
}
