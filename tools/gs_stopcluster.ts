// gs_stopcluster -u USER/PASS [-s HOST[:PORT]] [-p PORT] [-w [SEC]]: stops the cluster's service
// (POST /cluster/stop to the master, found through GET /node/stat). A store node is a cluster of
// one whose service stops only with the node: the master answers so, and this exits 3 saying to
// use gs_stopnode.

import type { CommandHelp } from './command-help.ts';
import { CLUSTER_COMMAND_HELP, CLUSTER_COMMAND_OPTIONS, clusterState } from './cluster-state.ts';
import {
  callNode, CommandError, EXIT_ERROR, EXIT_OK, EXIT_STATE, OPERATING_ENVIRONMENT,
  OPERATING_EXIT_CODES, parseCommandArgs, parseCredentials, parseServer, requireEnvironment,
  runCommand, takeWaitOption, waitUntil,
} from './operating-command.ts';

const HELP: CommandHelp = {
  name: 'gs_stopcluster',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [-w [SEC]]'],
  summary: 'Stops the cluster\'s service (POST /cluster/stop to its master). A store node is a ' +
    'cluster of one that\nstops only with the node: the master says so and this exits 3; use ' +
    'gs_stopnode.',
  options: [
    ...CLUSTER_COMMAND_HELP,
    ['-w, --wait [SEC]', 'wait until the cluster has stopped; 0 or no value waits forever ' +
      '(default: do not wait)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_stopcluster -u admin/admin -w 60',
};

async function main(): Promise<number> {
  const { args, waitGiven, waitSeconds } = takeWaitOption(process.argv.slice(2));
  const values = parseCommandArgs(args, CLUSTER_COMMAND_OPTIONS);
  requireEnvironment(process.env);
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  const state = await clusterState(address, credentials);
  if (state.nodeStatus !== 'ACTIVE' ||
    (state.clusterStatus !== 'MASTER' && state.clusterStatus !== 'FOLLOWER')) {
    throw new CommandError('The cluster is not serving: it cannot be stopped.(nodeStatus=' +
      `${state.nodeStatus}, clusterStatus=${state.clusterStatus})`, EXIT_STATE);
  }
  await callNode(state.master, credentials, { method: 'POST', path: '/cluster/stop' });
  if (waitGiven) {
    const stopped = await waitUntil(async () =>
      (await clusterState(address, credentials)).nodeStatus === 'INACTIVE', waitSeconds);
    if (!stopped) {
      throw new CommandError('A00108: Timeout expired. Check the status of the node.', EXIT_ERROR);
    }
  }
  console.log('The GridDB cluster has been stopped.');
  return EXIT_OK;
}

runCommand(HELP, main);
