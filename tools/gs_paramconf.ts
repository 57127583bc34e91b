// gs_paramconf -u USER/PASS [-s HOST[:PORT]] [-p PORT] --show [PARAM] | --set PARAM VALUE: the
// node's parameters that change while it runs (GridDB's Online ones; lib/node/online-parameters.ts).
// --show prints every online parameter with its value as JSON ({group: {name: value}}, sorted keys,
// indent 4), or with PARAM that one's value alone; --set applies a value now
// (POST /node/config/<group>/<param>), until the node stops: gs_node.json is not changed.

import { printStatusJson } from '../lib/node/node-status.ts';
import { findOnlineParameter } from '../lib/node/online-parameters.ts';
import type { CommandHelp } from './command-help.ts';
import { CLUSTER_COMMAND_HELP, CLUSTER_COMMAND_OPTIONS } from './cluster-state.ts';
import {
  callNode, CommandError, EXIT_ARGUMENTS, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  parseCredentials, parseServer, requireEnvironment, runCommand,
} from './operating-command.ts';
import { parseArgs } from 'node:util';

const HELP: CommandHelp = {
  name: 'gs_paramconf',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] --show [PARAM]',
    '-u USER/PASS [-s HOST[:PORT]] [-p PORT] --set PARAM VALUE'],
  summary: 'Prints or changes the node\'s parameters that are settable online (storeMemoryLimit).\n' +
    'A change applies now and lasts until the node stops: gs_node.json is not changed.',
  options: [
    ...CLUSTER_COMMAND_HELP,
    ['--show [PARAM]', 'print every online parameter and its value, or PARAM\'s value'],
    ['--set PARAM VALUE', 'set PARAM to VALUE now (storeMemoryLimit: a size such as 512MB)'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_paramconf -u admin/admin --set storeMemoryLimit 512MB',
};

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2), strict: true, allowPositionals: true,
      options: { ...CLUSTER_COMMAND_OPTIONS, show: { type: 'boolean' }, set: { type: 'boolean' } },
    });
  } catch (error) {
    throw new CommandError((error as Error).message, EXIT_ARGUMENTS);
  }
  const { values, positionals } = parsed;
  if ((values.show === true) === (values.set === true)) {
    throw new CommandError('Give one of --show [PARAM] or --set PARAM VALUE.', EXIT_ARGUMENTS);
  }
  if (values.show === true && positionals.length > 1) {
    throw new CommandError(`--show takes at most one PARAM, not ${positionals.join(' ')}.`,
      EXIT_ARGUMENTS);
  }
  if (values.set === true && positionals.length !== 2) {
    throw new CommandError('--set takes a PARAM and a VALUE.', EXIT_ARGUMENTS);
  }
  requireEnvironment(process.env);
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  const name = positionals[0];
  if (name === undefined) {
    console.log(printStatusJson(await callNode(address, credentials,
      { method: 'GET', path: '/node/config' })));
    return EXIT_OK;
  }
  const found = findOnlineParameter(name);
  if ('reason' in found) throw new CommandError(`gs_paramconf: ${found.reason}.`, EXIT_ARGUMENTS);
  const path = `/node/config/${found.parameter.group}/${found.parameter.name}`;
  if (values.show === true) {
    // One value, printed bare (512MB), for scripts.
    console.log(String(await callNode(address, credentials, { method: 'GET', path })));
    return EXIT_OK;
  }
  await callNode(address, credentials,
    { method: 'POST', path, body: JSON.stringify(positionals[1]) });
  return EXIT_OK;
}

runCommand(HELP, main);
