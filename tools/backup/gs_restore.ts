// gs_restore [-d DIR] [--test] BACKUPNAME: puts a backup (status OK) into GS_HOME, whose data and
// transaction log directories must be empty or absent: it refuses (exit 3) a home that holds
// any, so a restore never mixes with or overwrites a database. The node must not run on GS_HOME
// (its lock, conf/store.lock, is taken for the copy). Where the home has no conf/gs_node.json,
// the backup's conf/ files are copied too; otherwise the home's settings stay (dbPath,
// transactionLogPath, dbFilePathList and dbFileSplitCount place the files). Files are copied
// one by one, each synced, with the progress shown (a bar on a terminal, lines otherwise);
// --test lists what would be copied and changes nothing. Then gs_startnode recovers the node
// from the backup's checkpoint and the log after it.

import { join } from 'node:path';
import type { CommandHelp } from '../command-help.ts';
import { loadConfig } from '../../lib/config/config.ts';
import { homePath } from '../../lib/config/home.ts';
import { copyFileChunked } from '../../lib/io/file-copy.ts';
import { makeDirectoryDurable, type FileSystem } from '../../lib/io/file-system.ts';
import { homeLocker } from '../../lib/io/home-lock.ts';
import { NodeFileSystem } from '../../lib/io/node-file-system.ts';
import { BACKUP_CONF_FILE_NAMES } from '../../lib/node/node-backup.ts';
import {
  dataFileDirectories, type DataFileLayout,
} from '../../compaction/data-file-layout.ts';
import {
  CommandError, EXIT_ERROR, EXIT_OK, EXIT_STATE, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  requireEnvironment, runCommand,
} from '../operating-command.ts';
import { parseArgsWithPositionals } from '../positional-args.ts';
import {
  BACKUP_DIRECTORY_HELP, backupRootOf, ByteProgress, checkBackupName, findBackup, formatBytes,
} from './backup-common.ts';
import { isStorageError } from '../../lib/base/errors.ts';

const HELP: CommandHelp = {
  name: 'gs_restore',
  usage: ['[-d DIR] [--test] BACKUPNAME'],
  summary: 'Restores a backup into GS_HOME, whose data and transaction log directories must be ' +
    'empty;\nthe backup\'s conf/ files too where GS_HOME has no conf/gs_node.json. Start the ' +
    'node then\n(gs_startnode): it recovers from the backup\'s checkpoint and log.',
  options: [
    BACKUP_DIRECTORY_HELP,
    ['--test', 'list what would be restored, change nothing'],
    ['BACKUPNAME', 'the backup to restore (required)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_restore -d /var/lib/store/backup daily1',
};

/** `<pId>_part_<n>.dat`: placed by the home's dbFilePathList. */
const DATA_FILE_NAME_PATTERN = /^(\d+)_part_(\d+)\.dat$/;

interface Copy {
  fromPath: string;
  toPath: string;
  sizeBytes: number;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgsWithPositionals(process.argv.slice(2), {
    directory: { type: 'string', short: 'd' },
    test: { type: 'boolean' },
  }, 1);
  const name = checkBackupName(positionals[0]);
  const { home: homeText } = requireEnvironment(process.env);
  const home = homePath(process.cwd(), homeText);
  const fileSystem = new NodeFileSystem();
  const { directory, info } = findBackup(fileSystem, backupRootOf(fileSystem, home,
    values.directory), name);
  if (info.status !== 'OK') {
    throw new CommandError(`The backup ${name} cannot be restored: its status is ${info.status}` +
      `${info.error === undefined ? '' : ` (${info.error})`}, not OK.`, EXIT_ERROR);
  }
  const homeHasConf = fileSystem.exists(join(home, 'conf', 'gs_node.json'));
  const { storage } = configOf(fileSystem, homeHasConf ? home : directory);
  const dataRoot = homePath(home, storage.dbPath);
  const logRoot = homePath(home, storage.transactionLogPath);
  for (const root of [dataRoot, logRoot]) {
    const entries = fileSystem.list(root);
    if (entries.length > 0) {
      throw new CommandError(`The restore target is not empty: ${root} holds ${entries.length} ` +
        `entries (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', ...' : ''}). ` +
        'gs_restore restores only into a GS_HOME whose data and transaction log directories ' +
        'are empty.', EXIT_STATE);
    }
  }
  const copies = planCopies(fileSystem, directory, { home, homeHasConf, dataRoot, logRoot,
    splitCount: storage.dbFileSplitCount, filePathList: storage.dbFilePathList });
  const totalBytes = copies.reduce((sum, copy) => sum + copy.sizeBytes, 0);
  if (values.test === true) {
    for (const copy of copies) console.log(`${copy.fromPath} -> ${copy.toPath}`);
    console.log(`${copies.length} files, ${formatBytes(totalBytes)} (--test: nothing copied)`);
    return EXIT_OK;
  }
  let lock;
  try {
    fileSystem.mkdirp(join(home, 'conf'));
    lock = homeLocker.lock(home, { nowMs: Date.now() });
  } catch (error) {
    if (isStorageError(error) && error.code === 'HOME_IN_USE') {
      throw new CommandError(`The restore target is in use: ${error.message}`, EXIT_STATE);
    }
    throw error;
  }
  try {
    await copyAll(fileSystem, copies, `restore ${name}`, totalBytes);
  } finally {
    lock.release();
  }
  console.log(`The backup ${name} has been restored into ${home}. (${copies.length} files, ` +
    `${formatBytes(totalBytes)}; start the node with gs_startnode)`);
  return EXIT_OK;
}

function configOf(fileSystem: FileSystem, home: string) {
  try {
    return loadConfig(fileSystem, home).config;
  } catch (error) {
    if (isStorageError(error)) throw new CommandError(error.message, EXIT_ERROR);
    throw error;
  }
}

/** Every file of the backup and where it goes in the home. */
function planCopies(fileSystem: FileSystem, backup: string, target: {
  home: string; homeHasConf: boolean; dataRoot: string; logRoot: string; splitCount: number;
  filePathList: readonly string[];
}): Copy[] {
  const copies: Copy[] = [];
  const add = (fromPath: string, toPath: string) =>
    copies.push({ fromPath, toPath, sizeBytes: sizeOf(fileSystem, fromPath) });
  if (!target.homeHasConf) {
    for (const name of BACKUP_CONF_FILE_NAMES) {
      const path = join(backup, 'conf', name);
      if (fileSystem.exists(path)) add(path, join(target.home, 'conf', name));
    }
  }
  for (const name of fileSystem.list(join(backup, 'data'))) {
    const path = join(backup, 'data', name);
    if (!/^\d+$/.test(name)) {
      add(path, join(target.dataRoot, name));
      continue;
    }
    const partitionId = Number(name) as DataFileLayout['partitionId'];
    const directories = dataFileDirectories({ dataRoot: target.dataRoot, partitionId,
      splitCount: target.splitCount, filePathList: target.filePathList });
    for (const file of fileSystem.list(path)) {
      const dataFile = DATA_FILE_NAME_PATTERN.exec(file);
      const index = dataFile === null ? -1 : Number(dataFile[2]);
      const directory = index >= 0 && index < directories.length
        ? directories[index]! : join(target.dataRoot, name);
      add(join(path, file), join(directory, file));
    }
  }
  for (const name of fileSystem.list(join(backup, 'txnlog'))) {
    for (const file of fileSystem.list(join(backup, 'txnlog', name))) {
      add(join(backup, 'txnlog', name, file), join(target.logRoot, name, file));
    }
  }
  return copies;
}

async function copyAll(fileSystem: FileSystem, copies: readonly Copy[], label: string,
  totalBytes: number): Promise<void> {
  const progress = new ByteProgress(label);
  let doneBytes = 0;
  const directories = new Set<string>();
  try {
    progress.update(0, totalBytes);
    for (const copy of copies) {
      const directory = join(copy.toPath, '..');
      if (!directories.has(directory)) {
        await makeDirectoryDurable(fileSystem, directory);
        directories.add(directory);
      }
      await copyFileChunked(fileSystem, copy, {
        onChunk: (bytes) => progress.update((doneBytes += bytes), totalBytes),
      });
    }
    for (const directory of directories) await fileSystem.syncDirectory(directory);
    progress.update(totalBytes, totalBytes);
  } finally {
    progress.stop();
  }
}

function sizeOf(fileSystem: FileSystem, path: string): number {
  const file = fileSystem.open(path, 'read');
  try {
    return file.sizeBytes();
  } finally {
    file.close();
  }
}

runCommand(HELP, main);
