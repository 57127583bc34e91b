// What gs_backup, gs_backuplist and gs_restore share: where the backups of a home are (its
// `/dataStore/backupPath`, GS_HOME/backup by default, or -d), the look-up of one backup, and the
// progress of a copy in bytes: a cli-progress bar on a terminal, a line at each tenth otherwise.

import { join } from 'node:path';
import cliProgress from 'cli-progress';
import { isStorageError } from '../../lib/base/errors.ts';
import { loadConfig } from '../../lib/config/config.ts';
import { homePath } from '../../lib/config/home.ts';
import type { FileSystem } from '../../lib/io/file-system.ts';
import { backupNameProblem, readBackupInfo, type BackupInfo } from '../../lib/node/backup-info.ts';
import { CommandError, EXIT_ARGUMENTS, EXIT_ERROR } from '../operating-command.ts';

/** The option every backup command takes for the backups' directory. */
export const BACKUP_DIRECTORY_HELP: [string, string] = ['-d, --directory DIR',
  'the directory holding the backups (default: /dataStore/backupPath of GS_HOME\'s ' +
  'gs_node.json,\nGS_HOME/backup)'];

/** The backups' directory: `directory` when given, else the home's backupPath. */
export function backupRootOf(fileSystem: FileSystem, home: string, directory: string | undefined):
  string {
  if (directory !== undefined) return homePath(process.cwd(), directory);
  try {
    return homePath(home, loadConfig(fileSystem, home).config.node.dataStore.backupPath);
  } catch (error) {
    if (isStorageError(error)) throw new CommandError(error.message, EXIT_ERROR);
    throw error;
  }
}

/** A backup name that is one, or an argument error. */
export function checkBackupName(name: string | undefined): string {
  if (name === undefined) throw new CommandError('Specify a backup name.', EXIT_ARGUMENTS);
  const problem = backupNameProblem(name);
  if (problem !== undefined) {
    throw new CommandError(`Specify a valid backup name: ${problem}.`, EXIT_ARGUMENTS);
  }
  return name;
}

/** One backup's info, or the error that says it is not there. */
export function findBackup(fileSystem: FileSystem, backupRoot: string, name: string):
  { directory: string; info: BackupInfo } {
  const directory = join(backupRoot, name);
  let info: BackupInfo | undefined;
  try {
    info = readBackupInfo(fileSystem, directory);
  } catch (error) {
    if (isStorageError(error)) throw new CommandError(error.message, EXIT_ERROR);
    throw error;
  }
  if (info === undefined) {
    throw new CommandError(`The backup ${name} does not exist. (${directory})`, EXIT_ERROR);
  }
  return { directory, info };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Bytes done of a total: a bar on a terminal (stderr), else a line at each tenth (stdout). */
export class ByteProgress {
  private bar: cliProgress.SingleBar | undefined;
  private lastTenth = -1;

  constructor(private readonly label: string, private readonly terminal = process.stderr.isTTY) {}

  update(doneBytes: number, totalBytes: number): void {
    const total = Math.max(totalBytes, doneBytes, 1);
    if (this.terminal) {
      if (this.bar === undefined) {
        this.bar = new cliProgress.SingleBar({
          format: `${this.label} [{bar}] {percentage}% {done} of {all}`,
          stream: process.stderr, hideCursor: true, clearOnComplete: false,
        }, cliProgress.Presets.shades_classic);
        this.bar.start(total, 0, { done: formatBytes(0), all: formatBytes(total) });
      }
      this.bar.setTotal(total);
      this.bar.update(doneBytes, { done: formatBytes(doneBytes), all: formatBytes(total) });
      return;
    }
    const tenth = Math.floor(doneBytes * 10 / total);
    if (tenth > this.lastTenth) {
      this.lastTenth = tenth;
      console.log(`${this.label}: ${tenth * 10}% (${formatBytes(doneBytes)} of ` +
        `${formatBytes(total)})`);
    }
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}
