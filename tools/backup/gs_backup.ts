// gs_backup -u USER/PASS [-s HOST[:PORT]] [-p PORT] [-w [SEC]] BACKUPNAME: an online backup of a
// running node (POST /node/backup), into <backupPath>/BACKUPNAME on the node's machine: the node
// checkpoints, then copies the files of that checkpoint and the log after it while writes go on
// (lib/node/node-backup.ts). Without -w it returns once the backup has begun; with -w it shows
// the progress (GET /node/backup) until the end. Only full backups: GridDB's --mode values
// (auto, auto_incremental, baseline, since, incremental) are refused, with the reason.

import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandHelp } from '../command-help.ts';
import {
  callNode, CommandError, EXIT_ARGUMENTS, EXIT_ERROR, EXIT_OK, OPERATING_ENVIRONMENT,
  OPERATING_EXIT_CODES, parseCredentials, parseServer, requireEnvironment, runCommand,
  takeWaitOption, type Credentials, type NodeAddress,
} from '../operating-command.ts';
import { parseArgsWithPositionals } from '../positional-args.ts';
import { ByteProgress, checkBackupName, formatBytes } from './backup-common.ts';

const HELP: CommandHelp = {
  name: 'gs_backup',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [-w [SEC]] BACKUPNAME'],
  summary: 'Takes an online backup of the running node into <backupPath>/BACKUPNAME ' +
    '(/dataStore/backupPath,\nGS_HOME/backup by default): a checkpoint, then its files and the ' +
    'log after it, copied while writes\ngo on. BACKUPNAME: letters, digits and _, at most 12. ' +
    'Full backups only.',
  options: [
    ['-u, --user USER/PASS', 'the administrator and password (required)'],
    ['-s, --server HOST[:PORT]', 'the node\'s system service (default 127.0.0.1:10040)'],
    ['-p, --port PORT', 'the system service port (default 10040)'],
    ['-w, --wait [SEC]', 'wait for the end, showing the progress; 0 or no value waits forever ' +
      '(default: do not wait)'],
    ['--mode MODE', 'GridDB\'s incremental and automatic modes: refused (full backups only)'],
    ['BACKUPNAME', 'the backup\'s name (required)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_backup -u admin/admin -w 600 daily1',
};

/** How often -w asks for the progress. */
const POLL_INTERVAL_MS = 250;

interface Progress {
  backupName?: string;
  status?: 'P' | 'OK' | 'NG';
  copiedBytes?: number;
  totalBytes?: number;
  error?: string;
}

async function main(): Promise<number> {
  const { args, waitGiven, waitSeconds } = takeWaitOption(process.argv.slice(2));
  const { values, positionals } = parseArgsWithPositionals(args, {
    user: { type: 'string', short: 'u' },
    server: { type: 'string', short: 's' },
    port: { type: 'string', short: 'p' },
    mode: { type: 'string' },
  }, 1);
  if (values.mode !== undefined) {
    throw new CommandError(`The backup mode ${values.mode} is not supported: this node takes ` +
      'full backups only (gs_backup BACKUPNAME); incremental and automatic backups are not ' +
      'offered.', EXIT_ARGUMENTS);
  }
  const name = checkBackupName(positionals[0]);
  requireEnvironment(process.env);
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  await callNode(address, credentials, {
    method: 'POST', path: '/node/backup', query: { backupName: name },
  });
  if (!waitGiven) {
    console.log(`The backup ${name} has been started. (gs_backuplist ${name} shows its status)`);
    return EXIT_OK;
  }
  return waitForEnd(address, credentials, name, waitSeconds);
}

async function waitForEnd(address: NodeAddress, credentials: Credentials, name: string,
  waitSeconds: number): Promise<number> {
  const progress = new ByteProgress(`backup ${name}`);
  const deadlineMs = Date.now() + waitSeconds * 1000;
  try {
    for (;;) {
      const answer = await callNode(address, credentials,
        { method: 'GET', path: '/node/backup' }) as Progress;
      if (answer.backupName !== name) {
        throw new CommandError(`A00100: Request error occurred. (the node reports no backup ${name})`);
      }
      if (answer.status === 'OK') {
        progress.update(answer.copiedBytes ?? 0, answer.copiedBytes ?? 0);
        progress.stop();
        console.log(`The backup ${name} has been completed. (${formatBytes(answer.copiedBytes ?? 0)})`);
        return EXIT_OK;
      }
      if (answer.status === 'NG') {
        throw new CommandError(`The backup ${name} failed: ${answer.error ?? 'no reason given'}`,
          EXIT_ERROR);
      }
      progress.update(answer.copiedBytes ?? 0, answer.totalBytes ?? 0);
      if (waitSeconds > 0 && Date.now() >= deadlineMs) {
        throw new CommandError('A00108: Timeout expired. Check the status of the node.', EXIT_ERROR);
      }
      await sleep(POLL_INTERVAL_MS);
    }
  } finally {
    progress.stop();
  }
}

runCommand(HELP, main);
