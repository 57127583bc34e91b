// Multicast discovery: GridDB's own C client, given only notificationAddress/notificationPort
// (GridDB's default group 239.0.0.1:31999, as GridDB's samples take it), finds a store node that
// announces itself (gs_cluster.json /cluster/notificationAddress: griddb-announcer.ts), connects,
// and puts and gets a row (multicast.c); and does not find one that is not set to announce. Each
// runs in a private network namespace the test makes (`unshare -rn`: lo up with multicast on and
// a route for 224.0.0.0/4), so nothing leaves the machine and the group's port is free; where
// that cannot be made (no unshare or ip, user namespaces off) or the C client cannot be built,
// the test skips and says why.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compileProgram, griddbCClient, type ProgramRun } from '../../support/griddb-c-client.ts';

const run = promisify(execFile);
const MULTICAST_C = fileURLToPath(new URL('multicast.c', import.meta.url));
const IN_NAMESPACE = fileURLToPath(new URL('multicast-in-namespace.ts', import.meta.url));
const NAMESPACE_SETUP = 'ip link set lo up multicast on && ip route add 224.0.0.0/4 dev lo';
/** The node's start, the program's run (a silent node: the client's failover of 20 s), the stop. */
const NAMESPACE_RUN_MS_MAX = 150_000;

/** Why a private network namespace with a multicast route cannot be had here, or undefined. */
async function namespaceUnavailable(): Promise<string | undefined> {
  try {
    await run('unshare', ['-rn', 'sh', '-c', NAMESPACE_SETUP], { timeout: 10_000 });
    return undefined;
  } catch (error) {
    return `no private network namespace with a multicast route (unshare -rn, ip): ${
      (error as Error).message.split('\n')[0]}`;
  }
}

/** Runs multicast-in-namespace.ts in a namespace of its own; returns the program's run. */
async function inNamespace(program: string, mode: 'announce' | 'silent'): Promise<ProgramRun> {
  const { stdout } = await run('unshare', ['-rn', 'sh', '-c', `${NAMESPACE_SETUP} && exec "$@"`,
    'sh', process.execPath, '--import', 'tsx', IN_NAMESPACE, program, mode],
  { timeout: NAMESPACE_RUN_MS_MAX, maxBuffer: 4 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as ProgramRun;
}

describe('GridDB C client: multicast discovery', { timeout: 2 * NAMESPACE_RUN_MS_MAX + 60_000 },
  () => {
    it('finds an announcing node by notificationAddress alone, and not a silent one', async (t) => {
      const client = await griddbCClient();
      if ('skip' in client) return t.skip(client.skip);
      const unavailable = await namespaceUnavailable();
      if (unavailable !== undefined) return t.skip(unavailable);
      const program = await compileProgram(client, MULTICAST_C);
      const found = await inNamespace(program, 'announce');
      assert.equal(found.code, 0, found.stderr);
      assert.equal(found.stdout.trim(), 'found');
      const silent = await inNamespace(program, 'silent');
      assert.notEqual(silent.code, 0, 'a node that does not announce was found');
      assert.match(silent.stderr, /multicast|timeout|Timeout/i);
    });
  });
