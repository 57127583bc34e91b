// gs_backuplist [-d DIR] [BACKUPNAME]: the backups of the home (its backupPath, or -d), read from
// their info files (lib/node/backup-info.ts), so it answers with the node stopped too. Without a
// name: one line per backup, GridDB's columns (BackupName, Status P / OK / NG, StartTime,
// EndTime). With a name: that backup's info (its partitions' checkpoint LSNs, files, bytes) as
// JSON, indent 4. -u is accepted, as GridDB's command takes it, and not needed.

import type { CommandHelp } from '../command-help.ts';
import { NodeFileSystem } from '../../lib/io/node-file-system.ts';
import { listBackups } from '../../lib/node/backup-info.ts';
import {
  CommandError, EXIT_ERROR, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES, requireEnvironment, runCommand,
} from '../operating-command.ts';
import { parseArgsWithPositionals } from '../positional-args.ts';
import {
  BACKUP_DIRECTORY_HELP, backupRootOf, checkBackupName, findBackup,
} from './backup-common.ts';

const HELP: CommandHelp = {
  name: 'gs_backuplist',
  usage: ['[-d DIR] [BACKUPNAME]'],
  summary: 'Lists the backups (name, status P / OK / NG, start and end time), or prints one ' +
    'backup\'s details\nas JSON. Reads the backups\' directory: the node need not run.',
  options: [
    BACKUP_DIRECTORY_HELP,
    ['-u, --user USER/PASS', 'accepted as GridDB\'s command takes it; not needed'],
    ['BACKUPNAME', 'print this backup\'s details'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_backuplist',
};

async function main(): Promise<number> {
  const { values, positionals } = parseArgsWithPositionals(process.argv.slice(2), {
    directory: { type: 'string', short: 'd' },
    user: { type: 'string', short: 'u' },
  }, 1);
  const { home } = requireEnvironment(process.env);
  const fileSystem = new NodeFileSystem();
  const backupRoot = backupRootOf(fileSystem, home, values.directory);
  if (positionals[0] !== undefined) {
    const { info } = findBackup(fileSystem, backupRoot, checkBackupName(positionals[0]));
    console.log(JSON.stringify(info, null, 4));
    return EXIT_OK;
  }
  if (!fileSystem.exists(backupRoot)) {
    throw new CommandError(`The backup directory ${backupRoot} does not exist.`, EXIT_ERROR);
  }
  const rows = listBackups(fileSystem, backupRoot).map(({ name, info, problem }) => [
    name, info?.status ?? 'NG', info?.startTime ?? '-', info?.endTime ?? '-',
    ...(problem === undefined ? [] : [problem]),
  ]);
  const header = ['BackupName', 'Status', 'StartTime', 'EndTime'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (column < widths.length ? cell.padEnd(widths[column]!) : cell))
      .join('  ').trimEnd();
  console.log(line(header));
  console.log('-'.repeat(widths.reduce((sum, width) => sum + width + 2, -2)));
  for (const row of rows) console.log(line(row));
  return EXIT_OK;
}

runCommand(HELP, main);
