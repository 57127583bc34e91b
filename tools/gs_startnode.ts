// gs_startnode [-u USER/PASS [-w [SEC]]] [--releaseUnusedFileBlocks]: starts the node of GS_HOME
// in the background (local only), its output in GS_LOG/gsstartup.log. With -w (which needs -u)
// it waits until the node has recovered (GET /node/stat answers recovery.progressRate 1),
// printing a dot a second. A node already running on GS_HOME (its pid file names a live process,
// or another process holds the home's lock, conf/store.lock: one in another PID namespace too)
// is AD0102, exit 3, with the holder's pid.

import { closeSync, mkdirSync, openSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../lib/config/config.ts';
import { homeLocker } from '../lib/io/home-lock.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import type { CommandHelp } from './command-help.ts';
import {
  callNode, CommandError, EXIT_ARGUMENTS, EXIT_ERROR, EXIT_OK, EXIT_STATE, OPERATING_ENVIRONMENT,
  OPERATING_EXIT_CODES, parseCommandArgs, parseCredentials, requireEnvironment, runCommand,
  takeWaitOption, waitUntil,
} from './operating-command.ts';

const HELP: CommandHelp = {
  name: 'gs_startnode',
  usage: ['[-u USER/PASS [-w [SEC]]] [--releaseUnusedFileBlocks]'],
  summary: 'Starts the node of GS_HOME in the background; its output goes to ' +
    'GS_LOG/gsstartup.log.\nExit code 3 when a node already runs on GS_HOME.',
  options: [
    ['-u, --user USER/PASS', 'the administrator and password (needed by -w)'],
    ['-w, --wait [SEC]', 'wait until the node has recovered; 0 or no value waits forever ' +
      '(default: do not wait)'],
    ['--releaseUnusedFileBlocks', 'give unused data file blocks back to the file system at ' +
      'start (default off)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_startnode -u admin/admin -w 60',
};
import { nodeProcessArguments, processAlive, readNodePid } from './store-node-process.ts';

/** How long a node process must stay up before it counts as started (without -w). */
const STARTUP_GRACE_MS = 1000;

async function main(): Promise<number> {
  const { args, waitGiven, waitSeconds } = takeWaitOption(process.argv.slice(2));
  const values = parseCommandArgs(args, {
    user: { type: 'string', short: 'u' },
    releaseUnusedFileBlocks: { type: 'boolean' },
  });
  // After the options, so that a wrong option is named even where GS_HOME is not set.
  const environment = requireEnvironment(process.env);
  if (waitGiven && values.user === undefined) {
    throw new CommandError('A00002: Specify -u option in the format USER/PASS.', EXIT_ARGUMENTS);
  }
  const credentials = values.user === undefined ? undefined : parseCredentials(values.user);
  const pid = readNodePid(environment.home);
  const holder = homeLocker.holder(resolve(environment.home));
  if (holder !== undefined || (pid !== undefined && processAlive(pid))) {
    const detail = holder === undefined ? `pid ${pid} is running`
      : holder.pid === 0 ? 'the home is locked by a process whose lock file does not say which'
        : `the home is locked by the node with pid ${holder.pid} (started ${holder.startedAt})`;
    throw new CommandError('AD0102: There is a possibility that the node has been started. ' +
      `(${detail})`, EXIT_STATE);
  }
  mkdirSync(environment.log, { recursive: true });
  const output = openSync(join(environment.log, 'gsstartup.log'), 'a');
  const extra = values.releaseUnusedFileBlocks === true ? ['--releaseUnusedFileBlocks'] : [];
  const child = spawn(process.execPath, nodeProcessArguments(extra), {
    cwd: environment.home, detached: true, stdio: ['ignore', output, output], env: process.env,
  });
  closeSync(output);
  let exitCode: number | null = null;
  child.once('exit', (code) => (exitCode = code ?? 1));
  child.unref();
  if (!waitGiven) {
    await sleep(STARTUP_GRACE_MS);
    if (exitCode !== null) throw new CommandError('AD0103: Unable to start node.', EXIT_ERROR);
    console.log('The node has been started.');
    return EXIT_OK;
  }
  const { config } = loadConfig(new NodeFileSystem(), environment.home);
  const system = config.node.services.system;
  const address = { host: system.address === '0.0.0.0' ? '127.0.0.1' : system.address, port: system.port };
  const started = await waitUntil(async () => {
    if (exitCode !== null) throw new CommandError('AD0103: Unable to start node.', EXIT_ERROR);
    try {
      const report = await callNode(address, credentials!, { method: 'GET', path: '/node/stat' });
      return ((report as { recovery?: { progressRate?: number } }).recovery?.progressRate ?? 0) >= 1;
    } catch (error) {
      if (error instanceof CommandError && error.message.startsWith('A00102')) throw error;
      return false;
    }
  }, waitSeconds);
  if (!started) throw new CommandError('A00108: Timeout expired. Check the status of the node.', EXIT_ERROR);
  console.log('The node has been started.');
  return EXIT_OK;
}

runCommand(HELP, main);
