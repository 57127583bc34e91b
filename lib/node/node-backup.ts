// The node's online backup (POST /node/backup, gs_backup): one at a time, into
// `<backupPath>/<name>` (`/dataStore/backupPath`, GS_HOME/backup by default). It runs while the
// node serves: the engine checkpoints each partition group and copies its partitions' files with
// no checkpoint in between or during the copy (PartitionGroup.backup), then the node adds
// data/store.json, data/gs_access.json and conf/, and writes the info file (backup-info.ts) with status OK, or NG
// and the error. Progress (GET /node/backup) is the bytes in the backup directory against the
// bytes of the data and log directories when the backup began.

import { basename, join } from 'node:path';
import { accessFilePath } from '../access/access-file.ts';
import { StorageError } from '../base/errors.ts';
import type { PartitionBackupReport } from '../engine/partition-backup.ts';
import type { Clock } from '../io/clock.ts';
import { copyFileChunked } from '../io/file-copy.ts';
import {
  makeDirectoryDurable, writeFileDurable, type FileSystem,
} from '../io/file-system.ts';
import {
  BACKUP_INFO_FORMAT_VERSION, backupInfoPath, backupNameProblem, encodeBackupInfo,
  type BackupInfo,
} from './backup-info.ts';

/** Files of a home's conf/ a backup takes with it. */
/** password.scram: the PostgreSQL port's SCRAM verifiers (lib/config/scram-verifiers.ts), kept with `password`. */
export const BACKUP_CONF_FILE_NAMES = ['gs_cluster.json', 'gs_node.json', 'password', 'password.scram'] as const;
/** The identity file of the data directory (lib/engine/store-identity.ts). */
const STORE_IDENTITY_FILE_NAME = 'store.json';
/** Directory entries counted for progress: a bound on one listing. */
const PROGRESS_ENTRY_COUNT_MAX = 1_000_000;

export interface NodeBackupHome {
  fileSystem: FileSystem;
  clock: Clock;
  home: string;
  dataRoot: string;
  transactionLogRoot: string;
  backupRoot: string;
  partitionNum: number;
  /** The engine's copy (NodeEngine.backup). */
  copyPartitions(target: { dataRoot: string; transactionLogRoot: string }):
    Promise<PartitionBackupReport[]>;
  onEnd(info: BackupInfo): void;
}

/** What GET /node/backup answers. */
export interface BackupProgress {
  backupName: string;
  status: BackupInfo['status'];
  startTime: string;
  endTime: string | null;
  copiedBytes: number;
  /** The bytes of the data and log directories when the backup began: about what it copies. */
  totalBytes: number;
  error?: string;
}

export class NodeBackup {
  private current: { info: BackupInfo; directory: string; totalBytes: number;
    done: Promise<void> } | undefined;

  constructor(private readonly home: NodeBackupHome) {}

  /** Starts a backup; a StorageError (CONFIG_INVALID for a bad request) when it cannot. */
  async start(name: string): Promise<void> {
    const { fileSystem, backupRoot } = this.home;
    const problem = backupNameProblem(name);
    if (problem !== undefined) throw new StorageError('CONFIG_INVALID', problem);
    if (this.current?.info.status === 'P') {
      throw new StorageError('CONFIG_INVALID',
        `the backup ${this.current.info.backupName} is running: one at a time`);
    }
    const directory = join(backupRoot, name);
    if (fileSystem.exists(directory)) {
      throw new StorageError('CONFIG_INVALID', `the backup ${name} exists already (${directory})`);
    }
    const totalBytes = this.directoryBytes(this.home.dataRoot) +
      this.directoryBytes(this.home.transactionLogRoot);
    const info: BackupInfo = {
      formatVersion: BACKUP_INFO_FORMAT_VERSION, backupName: name, mode: 'full', status: 'P',
      startTime: isoTime(this.home.clock.nowMs()), endTime: null,
      partitionNum: this.home.partitionNum, fileCount: 0, copiedBytes: 0, partitions: [],
    };
    try {
      await makeDirectoryDurable(fileSystem, directory);
      await this.writeInfo(directory, info);
    } catch (error) {
      // A backupPath that cannot hold a directory: the request's fault, said as such.
      throw new StorageError('CONFIG_INVALID', `the backup directory ${directory} cannot be ` +
        `written (/dataStore/backupPath): ${(error as Error).message}`, { cause: error });
    }
    const current = { info, directory, totalBytes, done: Promise.resolve() };
    this.current = current;
    current.done = this.run(current.info, directory);
  }

  /** The running or last backup; undefined before the first. */
  progress(): BackupProgress | undefined {
    const current = this.current;
    if (current === undefined) return undefined;
    const { info } = current;
    return {
      backupName: info.backupName, status: info.status, startTime: info.startTime,
      endTime: info.endTime,
      copiedBytes: info.status === 'P' ? this.directoryBytes(current.directory) : info.copiedBytes,
      totalBytes: current.totalBytes,
      ...(info.error === undefined ? {} : { error: info.error }),
    };
  }

  /** Resolves once no backup runs (a stop waits for it: its copy holds the checkpoints). */
  async idle(): Promise<void> {
    await this.current?.done;
  }

  private async run(info: BackupInfo, directory: string): Promise<void> {
    try {
      const partitions = await this.home.copyPartitions({
        dataRoot: join(directory, 'data'), transactionLogRoot: join(directory, 'txnlog'),
      });
      const extra = await this.copyHomeFiles(directory);
      info.partitions = partitions;
      info.fileCount = extra.fileCount + partitions.reduce((sum, p) => sum + p.fileCount, 0);
      info.copiedBytes = extra.copiedBytes +
        partitions.reduce((sum, p) => sum + p.copiedBytes, 0);
      info.status = 'OK';
    } catch (error) {
      info.status = 'NG';
      info.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    info.endTime = isoTime(this.home.clock.nowMs());
    try {
      await this.writeInfo(directory, info);
    } catch (error) {
      info.status = 'NG';
      info.error = `the info file could not be written: ${(error as Error).message}`;
    }
    this.home.onEnd(info);
  }

  /**
   * data/store.json, data/gs_access.json (general users, databases, grants: lib/access/) and
   * conf/: what a restored home needs beside the partitions (gs_restore copies data/'s files).
   */
  private async copyHomeFiles(directory: string): Promise<{ fileCount: number; copiedBytes: number }> {
    const { fileSystem, home, dataRoot } = this.home;
    const copies = [STORE_IDENTITY_FILE_NAME, basename(accessFilePath(dataRoot))].map((name) =>
      ({ fromPath: join(dataRoot, name), toPath: join(directory, 'data', name) }));
    for (const name of BACKUP_CONF_FILE_NAMES) {
      copies.push({ fromPath: join(home, 'conf', name), toPath: join(directory, 'conf', name) });
    }
    let fileCount = 0;
    let copiedBytes = 0;
    for (const copy of copies) {
      if (!fileSystem.exists(copy.fromPath)) continue;
      await makeDirectoryDurable(fileSystem, join(copy.toPath, '..'));
      copiedBytes += await copyFileChunked(fileSystem, copy);
      fileCount++;
    }
    await fileSystem.syncDirectory(join(directory, 'conf')).catch(() => undefined);
    await fileSystem.syncDirectory(join(directory, 'data'));
    return { fileCount, copiedBytes };
  }

  private async writeInfo(directory: string, info: BackupInfo): Promise<void> {
    await writeFileDurable(this.home.fileSystem, backupInfoPath(directory), encodeBackupInfo(info),
      { atomic: true });
  }

  /** The bytes of the files in a directory tree (two levels: `<root>/<pId>/<file>` and `<root>/<file>`). */
  private directoryBytes(root: string): number {
    const { fileSystem } = this.home;
    let totalBytes = 0;
    let entryCount = 0;
    const fileBytes = (path: string): number => {
      const file = fileSystem.open(path, 'read');
      try {
        return file.sizeBytes();
      } finally {
        file.close();
      }
    };
    for (const name of fileSystem.list(root)) {
      const path = join(root, name);
      // A partition's directory, or conf/, data/, txnlog/ of a backup; else a file.
      const entries = /^\d+$/.test(name) || ['conf', 'data', 'txnlog'].includes(name)
        ? fileSystem.list(path) : undefined;
      if (entries === undefined) {
        if (name.endsWith('.tmp') || name === 'journal') continue;
        totalBytes += safeBytes(() => fileBytes(path));
        continue;
      }
      for (const entry of entries) {
        if (++entryCount > PROGRESS_ENTRY_COUNT_MAX) return totalBytes;
        const entryPath = join(path, entry);
        const nested = /^\d+$/.test(entry) ? fileSystem.list(entryPath) : undefined;
        if (nested === undefined) totalBytes += safeBytes(() => fileBytes(entryPath));
        else for (const file of nested) totalBytes += safeBytes(() => fileBytes(join(entryPath, file)));
      }
    }
    return totalBytes;
  }
}

/** A file that went away between the listing and the open counts 0: progress is an estimate. */
function safeBytes(bytes: () => number): number {
  try {
    return bytes();
  } catch {
    return 0;
  }
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
