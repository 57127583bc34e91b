// The node's process as the operating commands see it: where its pid is written, and how a node
// process is started from this checkout (node + tsx + tools/store-node.ts).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Relative to GS_HOME: the running node's pid (GridDB keeps conf/gridstore.pid). */
export const NODE_PID_FILE = 'conf/store.pid';

/** The pid GS_HOME's pid file holds; undefined when it is missing or holds no pid. */
export function readNodePid(home: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(join(home, NODE_PID_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 1 ? pid : undefined;
}

/** Is there a process of this pid? */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * node's arguments to run the node process in the foreground. tsx is named by its resolved
 * location: the process starts in GS_HOME, where a bare `tsx` would not resolve.
 */
export function nodeProcessArguments(extra: readonly string[] = []): string[] {
  const entry = fileURLToPath(new URL('./store-node.ts', import.meta.url));
  return ['--import', import.meta.resolve('tsx'), entry, ...extra];
}
