// gs_checkpoint -u USER/PASS [-s HOST[:PORT]] [-p PORT] [--on | --off | --manual [-w [SEC]]]: the
// node's checkpoints, as GridDB's command drives them through the system service: without an
// action it prints whether periodic checkpoints run (`checkpoint.periodicCheckpoint` of
// GET /node/stat: ACTIVE or INACTIVE); --off and --on stop and restart them
// (POST /node/periodicCheckpoint?enable=false|true); --manual starts one now
// (POST /node/checkpoint), and with -w waits until it has finished in every partition group,
// polling `requestedCheckpointOperation` (the count of completed manual checkpoints) once a second.

import type { CommandHelp } from './command-help.ts';
import {
  callNode, CommandError, EXIT_ARGUMENTS, EXIT_ERROR, EXIT_OK, EXIT_STATE, OPERATING_ENVIRONMENT,
  OPERATING_EXIT_CODES, parseCommandArgs, parseCredentials, parseServer, requireEnvironment,
  runCommand, takeWaitOption, waitUntil, type Credentials, type NodeAddress,
} from './operating-command.ts';

const HELP: CommandHelp = {
  name: 'gs_checkpoint',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [--on | --off | --manual [-w [SEC]]]'],
  summary: 'Prints whether the node\'s periodic checkpoints run (ACTIVE or INACTIVE), turns them ' +
    'on or off,\nor runs a checkpoint now (--manual), waiting for its end with -w.',
  options: [
    ['-u, --user USER/PASS', 'the administrator and password (required)'],
    ['-s, --server HOST[:PORT]', 'the node\'s system service (default 127.0.0.1:10040)'],
    ['-p, --port PORT', 'the system service port (default 10040)'],
    ['--on', 'restart the periodic checkpoints'],
    ['--off', 'stop the periodic checkpoints (until --on or the next start)'],
    ['--manual', 'run a checkpoint now'],
    ['-w, --wait [SEC]', 'with --manual: wait until it has finished; 0 or no value waits ' +
      'forever (default: do not wait)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_checkpoint -u admin/admin --manual -w 60',
};

interface CheckpointStat {
  periodicCheckpoint: string;
  requestedCheckpointOperation: number;
  clusterStatus: string;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const waitIndex = argv.findIndex((arg) => arg === '-w' || arg === '--wait');
  const waitValue = waitIndex < 0 ? undefined : argv[waitIndex + 1];
  if (waitValue !== undefined && !waitValue.startsWith('-') && !/^\d+$/.test(waitValue)) {
    throw new CommandError(`A70002: Specify seconds to wait.(-w ${waitValue})`, EXIT_ARGUMENTS);
  }
  const { args, waitGiven, waitSeconds } = takeWaitOption(argv);
  const values = parseCommandArgs(args, {
    user: { type: 'string', short: 'u' },
    server: { type: 'string', short: 's' },
    port: { type: 'string', short: 'p' },
    on: { type: 'boolean' },
    off: { type: 'boolean' },
    manual: { type: 'boolean' },
  });
  const actions = (['on', 'off', 'manual'] as const).filter((action) => values[action] === true);
  if (actions.length > 1) {
    throw new CommandError(`Give one of --on, --off, --manual, not ${actions.map((a) => `--${a}`)
      .join(' and ')}.`, EXIT_ARGUMENTS);
  }
  if (waitGiven && values.manual !== true) {
    throw new CommandError('-w waits for a manual checkpoint: give it with --manual.',
      EXIT_ARGUMENTS);
  }
  requireEnvironment(process.env);
  if (values.user === undefined) {
    // GridDB's message and exit code for this one.
    throw new CommandError('B60001: Specify a user name and a password.(-u USER/PASS)', EXIT_ERROR);
  }
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  if (values.manual === true) return manual(address, credentials, waitGiven, waitSeconds);
  if (values.on === true || values.off === true) {
    await callNode(address, credentials, {
      method: 'POST', path: '/node/periodicCheckpoint',
      query: { enable: values.on === true ? 'true' : 'false' },
    });
    return EXIT_OK;
  }
  console.log((await checkpointStat(address, credentials)).periodicCheckpoint);
  return EXIT_OK;
}

async function manual(address: NodeAddress, credentials: Credentials, wait: boolean,
  waitSeconds: number): Promise<number> {
  const before = await checkpointStat(address, credentials);
  if (before.clusterStatus !== 'MASTER' && before.clusterStatus !== 'FOLLOWER') {
    throw new CommandError('B60101: The checkpoint cannot be performed when the GridDB cluster ' +
      'does not start.', EXIT_STATE);
  }
  await callNode(address, credentials, { method: 'POST', path: '/node/checkpoint' });
  if (!wait) {
    console.log('The GridDB node checkpoint has been started.');
    return EXIT_OK;
  }
  const done = await waitUntil(async () =>
    (await checkpointStat(address, credentials)).requestedCheckpointOperation >
      before.requestedCheckpointOperation, waitSeconds);
  if (!done) {
    throw new CommandError('A00108: Timeout expired. Check the status of the node.', EXIT_ERROR);
  }
  console.log('The manual checkpoint has been completed.');
  return EXIT_OK;
}

async function checkpointStat(address: NodeAddress, credentials: Credentials):
  Promise<CheckpointStat> {
  const report = await callNode(address, credentials, { method: 'GET', path: '/node/stat' }) as {
    checkpoint?: { periodicCheckpoint?: unknown; requestedCheckpointOperation?: unknown };
    cluster?: { clusterStatus?: unknown };
  };
  const periodic = report.checkpoint?.periodicCheckpoint;
  const count = report.checkpoint?.requestedCheckpointOperation;
  const clusterStatus = report.cluster?.clusterStatus;
  if (typeof periodic !== 'string' || typeof count !== 'number' ||
    typeof clusterStatus !== 'string') {
    throw new CommandError('A00100: Request error occurred. (/node/stat has no checkpoint or ' +
      'cluster status)');
  }
  return { periodicCheckpoint: periodic, requestedCheckpointOperation: count, clusterStatus };
}

runCommand(HELP, main);
