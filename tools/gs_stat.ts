// gs_stat -u USER/PASS [-s HOST[:PORT]] [-p PORT] [--csv]: the node status report, as JSON with
// sorted keys and an indent of 4 (or GridDB's one-line CSV), from GET /node/stat of the system
// service.

import { printStatusJson } from '../lib/node/node-status.ts';
import type { CommandHelp } from './command-help.ts';
import {
  callNode, EXIT_OK, OPERATING_ENVIRONMENT, OPERATING_EXIT_CODES, parseCommandArgs,
  parseCredentials, parseServer, requireEnvironment, runCommand,
} from './operating-command.ts';

const HELP: CommandHelp = {
  name: 'gs_stat',
  usage: ['-u USER/PASS [-s HOST[:PORT]] [-p PORT] [--csv]'],
  summary: 'Prints the node\'s status report (GET /node/stat of its system service) as JSON with ' +
    'sorted keys,\nor as one CSV header line and one value line.',
  options: [
    ['-u, --user USER/PASS', 'the administrator and password (required)'],
    ['-s, --server HOST[:PORT]', 'the node\'s system service (default 127.0.0.1:10040)'],
    ['-p, --port PORT', 'the system service port (default 10040)'],
    ['--csv', 'CSV instead of JSON'],
    ['-a, --address-type TYPE', 'accepted for GridDB compatibility; ignored'],
  ],
  environment: OPERATING_ENVIRONMENT,
  exitCodes: OPERATING_EXIT_CODES,
  example: 'gs_stat -u admin/admin',
};

async function main(): Promise<number> {
  const values = parseCommandArgs(process.argv.slice(2), {
    user: { type: 'string', short: 'u' },
    server: { type: 'string', short: 's' },
    port: { type: 'string', short: 'p' },
    csv: { type: 'boolean' },
    'address-type': { type: 'string', short: 'a' },
  });
  // After the options, so that a wrong option is named even where GS_HOME is not set.
  requireEnvironment(process.env);
  const credentials = parseCredentials(values.user);
  const address = parseServer(values.server, values.port);
  const report = await callNode(address, credentials, {
    method: 'GET', path: '/node/stat',
    query: { notificationMember: 'true', detail: 'true', memoryDetail: 'true' },
  });
  console.log(values.csv === true ? csvOf(report) : printStatusJson(report));
  return EXIT_OK;
}

/** `--csv`: nested keys flattened with `/`, one quoted header line and one quoted value line. */
function csvOf(report: unknown): string {
  const cells = new Map<string, string>();
  const walk = (value: unknown, path: string) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, member] of Object.entries(value)) walk(member, path === '' ? key : `${path}/${key}`);
      return;
    }
    cells.set(path, textOf(value));
  };
  walk(report, '');
  const keys = [...cells.keys()].sort();
  const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
  return `${keys.map(quote).join(',')}\n${keys.map((key) => quote(cells.get(key)!)).join(',')}`;
}

function textOf(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(textOf).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, member]) => `${key}:${textOf(member)}`).join(', ')}}`;
  }
  return String(value);
}

runCommand(HELP, main);
