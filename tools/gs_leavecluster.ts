// gs_leavecluster -u USER/PASS [-s HOST[:PORT]] [-p PORT] [-f] [-w [SEC]]: takes the node out of
// its cluster (POST /node/leave). A store node is a cluster of one, holding the only copy of every
// partition: without -f this refuses with GridDB's A80103 (leaving would lose data), and with -f
// the node answers that it cannot leave its cluster of one (exit 3): stop it with gs_stopnode.

import type { CommandHelp } from './command-help.ts';
import { CLUSTER_COMMAND_HELP, CLUSTER_COMMAND_OPTIONS, clusterState } from './cluster-state.ts';
import {
  callNode, CommandError, EXIT_ERROR, EXIT_OK, EXIT_STATE, OPERATING_ENVIRONMENT,
  OPERATING_EXIT_CODES, parseCommandArgs, parseCredentials, parseServer, requireEnvironment,
  runCommand, takeWaitOption, waitUntil,
} from './operating-command.ts';

const HELP: CommandHelp = {
  name: 'gs_leavecluster',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [-f] [-w [SEC]]'],
  summary: 'Takes the node out of its cluster. A store node is a cluster of one: without -f ' +
    'this refuses (A80103,\nits data has no other copy); with -f the node answers that it ' +
    'cannot leave (exit 3): use gs_stopnode.',
  options: [
    ...CLUSTER_COMMAND_HELP,
    ['-f, --force', 'leave even if data may be lost (default off)'],
    ['-w, --wait [SEC]', 'wait until the node has left; 0 or no value waits forever ' +
      '(default: do not wait)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_leavecluster -u admin/admin -w 60',
};

async function main(): Promise<number> {
  const { args, waitGiven, waitSeconds } = takeWaitOption(process.argv.slice(2));
  const values = parseCommandArgs(args, {
    ...CLUSTER_COMMAND_OPTIONS,
    force: { type: 'boolean', short: 'f' },
  });
  requireEnvironment(process.env);
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  const state = await clusterState(address, credentials);
  if (state.nodeStatus !== 'ACTIVE') {
    throw new CommandError(`The node has not joined a cluster.(nodeStatus=${state.nodeStatus})`,
      EXIT_STATE);
  }
  if (values.force !== true) {
    // The node's partitions have no replica on another node: leaving loses every one.
    throw new CommandError('A80103: If this node is left from the GridDB cluster, data loss ' +
      'may occur.', EXIT_STATE);
  }
  await callNode(address, credentials, { method: 'POST', path: '/node/leave' });
  if (waitGiven) {
    const left = await waitUntil(async () =>
      (await clusterState(address, credentials)).nodeStatus === 'INACTIVE', waitSeconds);
    if (!left) {
      throw new CommandError('A00108: Timeout expired. Check the status of the node.', EXIT_ERROR);
    }
  }
  console.log('The node has been left from the GridDB cluster.');
  return EXIT_OK;
}

runCommand(HELP, main);
