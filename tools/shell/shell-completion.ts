// Tab completion (node:readline's completer): the sub-command names for the first word, `$name`
// for a variable anywhere, and container names for the container argument of the sub-commands
// that take one. Container names are listed from the node when first needed and kept for
// CONTAINER_NAMES_TTL_MS (create and drop forget them); completion never waits more than
// COMPLETION_WAIT_MS for the node and offers nothing rather than an error.

import { commandNames } from './shell-command-table.ts';
import type { Shell } from './shell.ts';

export const CONTAINER_NAMES_TTL_MS = 10_000;
const COMPLETION_WAIT_MS = 2000;
/** Names offered at most: readline prints them all. */
const CANDIDATES_MAX = 1000;
const TAKES_CONTAINER = new Set(['tql', 'tqlexplain', 'tqlanalyze', 'showcontainer', 'showtable',
  'dropcontainer', 'putrow', 'removerow', 'createindex', 'dropindex']);

async function containerNames(shell: Shell): Promise<string[]> {
  const cached = shell.containerNames;
  if (cached !== undefined && Date.now() - cached.listedAtMs < CONTAINER_NAMES_TTL_MS) return cached.names;
  if (shell.connection.current === undefined) return [];
  const listing = (async () => (await shell.connection.require()).getContainerNames())();
  const timeout = new Promise<undefined>((resolve) => {
    setTimeout(() => resolve(undefined), COMPLETION_WAIT_MS).unref();
  });
  const names = await Promise.race([listing, timeout]).catch(() => undefined);
  listing.catch(() => undefined);
  if (names === undefined) return [];
  shell.containerNames = { names, listedAtMs: Date.now() };
  return names;
}

/** The candidates for the line before the cursor, and the part of it they replace. */
export async function complete(shell: Shell, line: string): Promise<[string[], string]> {
  const words = line.split(/\s+/);
  const current = words[words.length - 1] ?? '';
  let candidates: string[] = [];
  if (current.startsWith('$')) {
    candidates = shell.variables.names().map((name) => `$${name}`);
  } else if (words.length === 1) {
    candidates = commandNames().map((name) => `${name} `);
  } else if (words.length === 2 && TAKES_CONTAINER.has(words[0]!.toLowerCase())) {
    candidates = (await containerNames(shell)).map((name) => `${name} `);
  }
  const lower = current.toLowerCase();
  const hits = candidates.filter((candidate) => candidate.toLowerCase().startsWith(lower)).slice(0, CANDIDATES_MAX);
  return [hits, current];
}

/** The completer in node:readline's callback form. */
export function readlineCompleter(shell: Shell) {
  return (line: string, callback: (error: Error | null, result: [string[], string]) => void): void => {
    complete(shell, line).then((result) => callback(null, result), () => callback(null, [[], line]));
  };
}
