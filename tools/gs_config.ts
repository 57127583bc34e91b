// gs_config -u USER/PASS [-s HOST[:PORT]] [-p PORT] [-a TYPE]: the cluster's members as the node
// knows them (GET /node/host): master, followers and the node itself, as JSON with sorted keys
// and an indent of 4, as GridDB prints it.

import { printStatusJson } from '../lib/node/node-status.ts';
import type { CommandHelp } from './command-help.ts';
import { CLUSTER_COMMAND_HELP, CLUSTER_COMMAND_OPTIONS } from './cluster-state.ts';
import {
  callNode, CommandError, EXIT_ARGUMENTS, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  parseCommandArgs, parseCredentials, parseServer, requireEnvironment, runCommand,
} from './operating-command.ts';

const ADDRESS_TYPES = ['system', 'cluster', 'transaction', 'sync'];

const HELP: CommandHelp = {
  name: 'gs_config',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [-a TYPE]'],
  summary: 'Prints the cluster\'s members (GET /node/host): master, followers and the node ' +
    'itself with its status,\nas JSON with sorted keys.',
  options: [
    ...CLUSTER_COMMAND_HELP,
    ['-a, --address-type TYPE', `${ADDRESS_TYPES.join(', ')}: accepted for GridDB ` +
      'compatibility; the addresses are the system service\'s'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_config -u admin/admin',
};

async function main(): Promise<number> {
  const values = parseCommandArgs(process.argv.slice(2), {
    ...CLUSTER_COMMAND_OPTIONS,
    'address-type': { type: 'string', short: 'a' },
  });
  const addressType = values['address-type'];
  if (addressType !== undefined && !ADDRESS_TYPES.includes(addressType)) {
    throw new CommandError(`Specify one of ${ADDRESS_TYPES.join(', ')} for -a.(-a ${addressType})`,
      EXIT_ARGUMENTS);
  }
  requireEnvironment(process.env);
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  const host = await callNode(address, credentials, {
    method: 'GET', path: '/node/host',
    query: addressType === undefined ? {} : { addressType },
  });
  console.log(printStatusJson(host));
  return EXIT_OK;
}

runCommand(HELP, main);
