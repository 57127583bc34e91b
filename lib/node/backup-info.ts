// A backup's name and its info file, `<backupPath>/<name>/gs_backup_info.json` (GridDB's name),
// written by the node when the backup begins (status P), and again at its end (OK, or NG with the
// error). gs_backuplist lists them and gs_restore refuses any backup that is not OK.
//
//   gs_backup_info.json: {"formatVersion":1,"backupName":"b1","mode":"full","status":"OK",
//     "startTime":"2026-...Z","endTime":"2026-...Z","partitionNum":128,"fileCount":..,
//     "copiedBytes":..,"partitions":[{"partitionId":0,"checkpointLsn":"12","copiedLsn":"15",
//     "fileCount":3,"copiedBytes":..}...],"error":"..." (NG only)}
//
// A backup holds data/ and txnlog/ as a home's (lib/engine/partition-backup.ts), data/store.json,
// data/gs_access.json (the general users, databases and grants),
// and conf/ (gs_cluster.json, gs_node.json, password, password.scram) as they were when it began.

import { join } from 'node:path';
import { StorageError } from '../base/errors.ts';
import type { FileSystem } from '../io/file-system.ts';
import type { PartitionBackupReport } from '../engine/partition-backup.ts';

export const BACKUP_INFO_FILE_NAME = 'gs_backup_info.json';
export const BACKUP_INFO_FORMAT_VERSION = 1;
/** spec/surface.md §4: a backup name is alphanumerics and `_`, at most 12 characters. */
export const BACKUP_NAME_LENGTH_MAX = 12;
const BACKUP_NAME_PATTERN = /^[A-Za-z0-9_]+$/;
/** The largest info file read: one line per partition, a few hundred bytes each. */
export const BACKUP_INFO_BYTES_MAX = 4 * 1024 * 1024;
/** The most backups gs_backuplist lists. */
export const BACKUP_LIST_COUNT_MAX = 10_000;

/** GridDB's gs_backuplist statuses: in progress, done, failed. */
export type BackupStatus = 'P' | 'OK' | 'NG';

export interface BackupInfo {
  formatVersion: number;
  backupName: string;
  mode: 'full';
  status: BackupStatus;
  startTime: string;
  endTime: string | null;
  partitionNum: number;
  fileCount: number;
  copiedBytes: number;
  partitions: PartitionBackupReport[];
  error?: string;
}

/** Why `name` is not a backup name; undefined when it is one. */
export function backupNameProblem(name: string): string | undefined {
  if (name === '') return 'a backup name is required';
  if (name.length > BACKUP_NAME_LENGTH_MAX) {
    return `the backup name ${name} is longer than ${BACKUP_NAME_LENGTH_MAX} characters`;
  }
  if (!BACKUP_NAME_PATTERN.test(name)) {
    return `the backup name ${name} may hold only letters, digits and _`;
  }
  return undefined;
}

export function backupInfoPath(backupDirectory: string): string {
  return join(backupDirectory, BACKUP_INFO_FILE_NAME);
}

export function encodeBackupInfo(info: BackupInfo): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(info, null, 2)}\n`);
}

/** Reads a backup's info file; undefined when there is none; CORRUPTION when it is not one. */
export function readBackupInfo(fileSystem: FileSystem, backupDirectory: string):
  BackupInfo | undefined {
  const path = backupInfoPath(backupDirectory);
  if (!fileSystem.exists(path)) return undefined;
  const file = fileSystem.open(path, 'read');
  let text: string;
  try {
    const sizeBytes = file.sizeBytes();
    if (sizeBytes > BACKUP_INFO_BYTES_MAX) {
      throw new StorageError('CORRUPTION', `${path}: ${sizeBytes} bytes, more than ` +
        `${BACKUP_INFO_BYTES_MAX}`);
    }
    const bytes = new Uint8Array(sizeBytes);
    file.read(bytes, 0);
    text = new TextDecoder().decode(bytes);
  } finally {
    file.close();
  }
  let info: unknown;
  try {
    info = JSON.parse(text);
  } catch (cause) {
    throw new StorageError('CORRUPTION', `${path}: not JSON`, { cause });
  }
  const record = info as Partial<BackupInfo> | null;
  if (record === null || typeof record !== 'object' ||
    record.formatVersion !== BACKUP_INFO_FORMAT_VERSION || typeof record.backupName !== 'string' ||
    !['P', 'OK', 'NG'].includes(record.status as string) || !Array.isArray(record.partitions)) {
    throw new StorageError('CORRUPTION', `${path}: not a backup info file of format version ` +
      `${BACKUP_INFO_FORMAT_VERSION}`);
  }
  return record as BackupInfo;
}

/** The backups under `backupRoot` (directories with an info file), by name. */
export function listBackups(fileSystem: FileSystem, backupRoot: string):
  Array<{ name: string; info: BackupInfo | undefined; problem?: string }> {
  const names = fileSystem.list(backupRoot).slice(0, BACKUP_LIST_COUNT_MAX);
  const backups: Array<{ name: string; info: BackupInfo | undefined; problem?: string }> = [];
  for (const name of names) {
    if (!fileSystem.exists(backupInfoPath(join(backupRoot, name)))) continue;
    try {
      backups.push({ name, info: readBackupInfo(fileSystem, join(backupRoot, name)) });
    } catch (error) {
      backups.push({ name, info: undefined, problem: (error as Error).message });
    }
  }
  return backups;
}
