// gs_logconf -u USER/PASS [-s HOST[:PORT]] [-p PORT] [CATEGORY LEVEL]: the event log's least
// level per category (`/trace/<category>` of gs_node.json), as GridDB's command reads and sets
// them through the system service: without arguments it prints every category's level
// (GET /node/trace, JSON with sorted keys and an indent of 4); with CATEGORY LEVEL it sets that
// one in the running node (POST /node/trace), "Online": until the node stops, not saved to
// gs_node.json. LEVEL is LEVEL_ERROR, LEVEL_WARNING... or GridDB's short form (ERROR, INFO);
// CATEGORY is the gs_node.json name (checkpointService) or GridDB's (CHECKPOINT_SERVICE).

import { printStatusJson } from '../lib/node/node-status.ts';
import { TRACE_LEVELS } from '../lib/config/trace-config.ts';
import type { CommandHelp } from './command-help.ts';
import { CLUSTER_COMMAND_HELP, CLUSTER_COMMAND_OPTIONS } from './cluster-state.ts';
import {
  callNode, CommandError, EXIT_ARGUMENTS, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES,
  parseCredentials, parseServer, requireEnvironment, runCommand,
} from './operating-command.ts';
import { parseArgsWithPositionals } from './positional-args.ts';

const HELP: CommandHelp = {
  name: 'gs_logconf',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [CATEGORY LEVEL]'],
  summary: 'Prints the event log\'s least level of every category (GET /node/trace), or sets ' +
    'one category\'s level\nin the running node until it stops (POST /node/trace).',
  options: [
    ...CLUSTER_COMMAND_HELP,
    ['CATEGORY', 'a category of gs_node.json /trace (checkpointService, connection...) or ' +
      'its GridDB name (CHECKPOINT_SERVICE)'],
    ['LEVEL', `${TRACE_LEVELS.join(', ')} (or without LEVEL_)`],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_logconf -u admin/admin connection LEVEL_WARNING',
};

async function main(): Promise<number> {
  const { values, positionals } = parseArgsWithPositionals(process.argv.slice(2),
    CLUSTER_COMMAND_OPTIONS, 2);
  if (positionals.length === 1) {
    throw new CommandError(`Specify a level for the category ${positionals[0]}.`, EXIT_ARGUMENTS);
  }
  const setting = positionals.length === 2
    ? { category: categoryName(positionals[0]!), level: levelName(positionals[1]!) } : undefined;
  requireEnvironment(process.env);
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  if (setting !== undefined) {
    await callNode(address, credentials, { method: 'POST', path: '/node/trace', query: setting });
    return EXIT_OK;
  }
  console.log(printStatusJson(await callNode(address, credentials,
    { method: 'GET', path: '/node/trace' })));
  return EXIT_OK;
}

/** GridDB's CHECKPOINT_SERVICE is gs_node.json's checkpointService; other names go as given. */
function categoryName(text: string): string {
  if (!/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(text)) return text;
  return text.toLowerCase().replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

function levelName(text: string): string {
  const upper = text.toUpperCase();
  const level = upper.startsWith('LEVEL_') ? upper : `LEVEL_${upper}`;
  if (!(TRACE_LEVELS as readonly string[]).includes(level)) {
    throw new CommandError(`Specify one of ${TRACE_LEVELS.join(', ')} for LEVEL.(${text})`,
      EXIT_ARGUMENTS);
  }
  return level;
}

runCommand(HELP, main);
