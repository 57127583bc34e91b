// The node's process as the operating commands see it: where its pid is written, and how a node
// process is started (tools/store-node, compiled or through tsx: tools/tool-process.ts).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolProcessArguments } from './tool-process.ts';

/** Relative to GS_HOME: the running node's pid (GridDB keeps conf/gridstore.pid). */
export const NODE_PID_FILE = 'conf/store.pid';

/**
 * Relative to GS_HOME: where the running node serves, `{"transaction":"host:port","system":
 * "host:port"}`, written beside the pid file once it listens and removed when it stops, so a
 * second node refused on the home can say which ports the first one has (they may be port 0's).
 */
export const NODE_ENDPOINTS_FILE = 'conf/store.endpoints.json';

export interface NodeEndpoints {
  transaction: string;
  system: string;
}

/** The endpoints GS_HOME's endpoints file holds; undefined when it is missing or unreadable. */
export function readNodeEndpoints(home: string): NodeEndpoints | undefined {
  try {
    const value = JSON.parse(readFileSync(join(home, NODE_ENDPOINTS_FILE), 'utf8')) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const { transaction, system } = value as Partial<NodeEndpoints>;
    return typeof transaction === 'string' && typeof system === 'string'
      ? { transaction, system } : undefined;
  } catch {
    return undefined;
  }
}

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

/** node's arguments to run the node process in the foreground, compiled or from source. */
export function nodeProcessArguments(extra: readonly string[] = []): string[] {
  return toolProcessArguments('store-node', extra);
}
