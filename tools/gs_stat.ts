// gs_stat -u USER/PASS [-s HOST[:PORT]] [-p PORT] [--csv]: the node status report, as JSON with
// sorted keys and an indent of 4 (or GridDB's one-line CSV), from GET /node/stat of the system
// service.

import { printStatusJson } from '../lib/node/node-status.ts';
import {
  callNode, EXIT_OK, parseCommandArgs, parseCredentials, parseServer, requireEnvironment, runCommand,
} from './operating-command.ts';

async function main(): Promise<number> {
  requireEnvironment(process.env);
  const values = parseCommandArgs(process.argv.slice(2), {
    user: { type: 'string', short: 'u' },
    server: { type: 'string', short: 's' },
    port: { type: 'string', short: 'p' },
    csv: { type: 'boolean' },
    'address-type': { type: 'string', short: 'a' },
  });
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

runCommand(main);
