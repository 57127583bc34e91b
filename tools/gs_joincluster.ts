// gs_joincluster -u USER/PASS [-s HOST[:PORT]] [-p PORT] [-c NAME] [-n NUM] [-w [SEC]]: joins the
// node to its cluster (POST /node/join). A store node is a cluster of one: once it serves it is
// its cluster's master (`/cluster/nodeStatus` ACTIVE), so on a serving node this answers GridDB's
// A70101 (exit 3), as GridDB does for a node already joined; `-n` above 1 asks for a cluster this
// node cannot form.

import type { CommandHelp } from './command-help.ts';
import { CLUSTER_COMMAND_HELP, CLUSTER_COMMAND_OPTIONS, clusterState } from './cluster-state.ts';
import {
  callNode, CommandError, EXIT_ARGUMENTS, EXIT_ERROR, EXIT_OK, EXIT_STATE, OPERATING_ENVIRONMENT,
  OPERATING_EXIT_CODES, parseCommandArgs, parseCredentials, parseServer, requireEnvironment,
  runCommand, takeWaitOption, waitUntil,
} from './operating-command.ts';

const CLUSTER_NAME_DEFAULT = 'defaultCluster';

const HELP: CommandHelp = {
  name: 'gs_joincluster',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [-c NAME] [-n NUM] [-w [SEC]]'],
  summary: 'Joins the node to its cluster. A store node is a cluster of one that it joins by ' +
    'itself once it serves:\non a serving node this says A70101 (already joined) and exits 3.',
  options: [
    ...CLUSTER_COMMAND_HELP,
    ['-c, --clusterName NAME', `the cluster's name (default ${CLUSTER_NAME_DEFAULT})`],
    ['-n, --nodeNum NUM', 'the designated number of nodes, 1 or more (default 1)'],
    ['-w, --wait [SEC]', 'wait until the cluster serves; 0 or no value waits forever ' +
      '(default: do not wait)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_joincluster -u admin/admin -c myCluster -w 60',
};

async function main(): Promise<number> {
  const { args, waitGiven, waitSeconds } = takeWaitOption(process.argv.slice(2));
  const values = parseCommandArgs(args, {
    ...CLUSTER_COMMAND_OPTIONS,
    clusterName: { type: 'string', short: 'c' },
    nodeNum: { type: 'string', short: 'n' },
  });
  const clusterName = values.clusterName ?? CLUSTER_NAME_DEFAULT;
  const nodeNum = values.nodeNum ?? '1';
  if (!/^\d+$/.test(nodeNum) || Number(nodeNum) < 1) {
    throw new CommandError(`Specify a whole number of 1 or more for -n.(-n ${nodeNum})`,
      EXIT_ARGUMENTS);
  }
  if (clusterName === '') throw new CommandError('Specify a cluster name for -c.', EXIT_ARGUMENTS);
  requireEnvironment(process.env);
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  if ((await clusterState(address, credentials)).nodeStatus !== 'INACTIVE') {
    throw new CommandError('A70101: The GridDB node has already joined to the GridDB cluster.',
      EXIT_STATE);
  }
  await callNode(address, credentials, {
    method: 'POST', path: '/node/join', query: { clusterName, minNodeNum: nodeNum },
  });
  if (waitGiven) {
    const serving = await waitUntil(async () => {
      const { clusterStatus } = await clusterState(address, credentials);
      return clusterStatus === 'MASTER' || clusterStatus === 'FOLLOWER';
    }, waitSeconds);
    if (!serving) {
      throw new CommandError('A00108: Timeout expired. Check the status of the node.', EXIT_ERROR);
    }
  }
  console.log('The GridDB cluster has been started.');
  return EXIT_OK;
}

runCommand(HELP, main);
