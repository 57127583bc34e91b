// gs_stopnode -u USER/PASS [-s HOST[:PORT]] [-p PORT] [-f] [-w [SEC]], or gs_stopnode -k [-w [SEC]]:
// stops the node cleanly (POST /node/shutdown: a checkpoint, every commit synced), or kills the
// local node's process (-k, SIGKILL, through the pid file in GS_HOME/conf). With -w it waits until
// the node no longer answers (or its process is gone), printing a dot a second.

import { join } from 'node:path';
import type { CommandHelp } from './command-help.ts';
import {
  callNode, CommandError, EXIT_ERROR, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  parseCommandArgs, parseCredentials, parseServer, requireEnvironment, runCommand, takeWaitOption,
  waitUntil,
} from './operating-command.ts';

const HELP: CommandHelp = {
  name: 'gs_stopnode',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [-f] [-w [SEC]]', '-k [-w [SEC]]'],
  summary: 'Stops the node cleanly (a checkpoint, every commit synced), or kills the local ' +
    'node\'s process (-k).',
  options: [
    ['-u, --user USER/PASS', 'the administrator and password (required without -k)'],
    ['-s, --server HOST[:PORT]', 'the node\'s system service (default 127.0.0.1:10040)'],
    ['-p, --port PORT', 'the system service port (default 10040)'],
    ['-f, --force', 'stop even when the node has joined a cluster (default off)'],
    ['-k, --kill', 'SIGKILL the process named by GS_HOME/conf/store.pid (default off)'],
    ['-w, --wait [SEC]', 'wait until the node is down; 0 or no value waits forever ' +
      '(default: do not wait)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_stopnode -u admin/admin -w 60',
};
import { NODE_PID_FILE, processAlive, readNodePid } from './store-node-process.ts';

async function main(): Promise<number> {
  const { args, waitGiven, waitSeconds } = takeWaitOption(process.argv.slice(2));
  const values = parseCommandArgs(args, {
    user: { type: 'string', short: 'u' },
    server: { type: 'string', short: 's' },
    port: { type: 'string', short: 'p' },
    force: { type: 'boolean', short: 'f' },
    kill: { type: 'boolean', short: 'k' },
  });
  // After the options, so that a wrong option is named even where GS_HOME is not set.
  const environment = requireEnvironment(process.env);
  if (values.kill === true) {
    const pid = readNodePid(environment.home);
    if (pid === undefined) {
      throw new CommandError(`No node process is known: ${join(environment.home, NODE_PID_FILE)} ` +
        'cannot be read or holds no pid.');
    }
    process.kill(pid, 'SIGKILL');
    if (waitGiven) await waitUntil(() => !processAlive(pid), waitSeconds);
    console.log('The node is forced to stop.');
    return EXIT_OK;
  }
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  await callNode(address, credentials, {
    method: 'POST', path: '/node/shutdown', query: { force: values.force === true ? 'true' : 'false' },
  });
  console.log('The node is stopped.');
  if (waitGiven) {
    const stopped = await waitUntil(async () => {
      try {
        await callNode(address, credentials, { method: 'GET', path: '/node/stat' });
        return false;
      } catch {
        return true;
      }
    }, waitSeconds);
    if (!stopped) throw new CommandError('A00108: Timeout expired. Check the status of the node.', EXIT_ERROR);
    console.log('The node has been stopped.');
  }
  return EXIT_OK;
}

runCommand(HELP, main);
