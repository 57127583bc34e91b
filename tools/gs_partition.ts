// gs_partition -u USER/PASS [-s HOST[:PORT]] [-p PORT] [-n PARTITION_ID] [--loss] [-a TYPE]: the
// node's partitions (GET /node/partition): owner, backups, catch-ups, LSNs and status, as JSON
// with sorted keys and an indent of 4, as GridDB prints it; -n one partition, --loss only the
// lost ones (none while the node serves: it owns every partition).

import { printStatusJson } from '../lib/node/node-status.ts';
import type { CommandHelp } from './command-help.ts';
import { CLUSTER_COMMAND_HELP, CLUSTER_COMMAND_OPTIONS } from './cluster-state.ts';
import {
  callNode, CommandError, EXIT_ARGUMENTS, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  parseCommandArgs, parseCredentials, parseServer, requireEnvironment, runCommand,
} from './operating-command.ts';

const HELP: CommandHelp = {
  name: 'gs_partition',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [-n PARTITION_ID] [--loss] [-a TYPE]'],
  summary: 'Prints the node\'s partitions (GET /node/partition) as JSON with sorted keys: owner, ' +
    'backups, catch-ups,\nLSNs and status.',
  options: [
    ...CLUSTER_COMMAND_HELP,
    ['-n, --partitionId ID', 'only this partition, 0 to partitionNum - 1 (default: every one)'],
    ['--loss', 'only the partitions lost (no node owns them); none while the node serves'],
    ['-a, --address-type TYPE', 'accepted for GridDB compatibility; ignored'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_partition -u admin/admin -n 5',
};

async function main(): Promise<number> {
  const values = parseCommandArgs(process.argv.slice(2), {
    ...CLUSTER_COMMAND_OPTIONS,
    partitionId: { type: 'string', short: 'n' },
    loss: { type: 'boolean' },
    'address-type': { type: 'string', short: 'a' },
  });
  const partitionId = values.partitionId;
  if (partitionId !== undefined && !/^\d+$/.test(partitionId)) {
    throw new CommandError(`Specify a partition number for -n.(-n ${partitionId})`, EXIT_ARGUMENTS);
  }
  requireEnvironment(process.env);
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  const query: Record<string, string> = {};
  if (partitionId !== undefined) query['partitionNo'] = partitionId;
  if (values.loss === true) query['loss'] = 'true';
  const partitions = await callNode(address, credentials, {
    method: 'GET', path: '/node/partition', query,
  });
  console.log(printStatusJson(partitions));
  return EXIT_OK;
}

runCommand(HELP, main);
