// Stopping `npm start` (tools/start.ts) the ways a service manager or a terminal does (issue 12,
// point 12): SIGTERM to `npm start` itself (npm forwards it to its shell), SIGHUP to start.ts (the
// terminal went away), and SIGTERM to start.ts, the node and the web API at once (systemd's
// KillMode=control-group, where the node also gets start.ts's own SIGTERM). Each time both
// children must be gone, the exit code 0, and the node's event log must show a clean stop with
// its shutdown checkpoint. Ports are free ones written to the home's gs_node.json and
// store_webapi.properties; leftovers are killed by pid.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { freePorts, newNodeHome, removeHome } from '../node/node-process.ts';
import { HttpCaller } from '../webapi/webapi-test-helpers.ts';
import { processAlive } from '../../../tools/store-node-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

interface Started {
  child: ChildProcess;
  home: string;
  output(): string;
  exited: Promise<number | null>;
}

const pids: number[] = [];
const homes: string[] = [];
after(() => {
  for (const pid of pids) {
    if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const home of homes) removeHome(home);
});

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number,
  output: () => string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * `npm start` (through npm's shell) or `node --import tsx tools/start.ts` on a new home; resolves
 * once the web API answers checkConnection, with the pids of both children.
 */
async function start(
  how: 'npm' | 'node',
): Promise<Started & { nodePid: number; webApiPid: number }> {
  const [transaction, system, sql, cluster, sync, webApiPort] = await freePorts(6);
  const home = newNodeHome({
    transaction: { servicePort: transaction }, system: { servicePort: system },
    sql: { servicePort: sql }, cluster: { servicePort: cluster }, sync: { servicePort: sync },
  });
  homes.push(home);
  mkdirSync(join(home, 'webapi', 'conf'), { recursive: true });
  writeFileSync(join(home, 'webapi', 'conf', 'store_webapi.properties'),
    `server.port=${webApiPort}\n`);
  const env = { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log') };
  const npm = process.env['npm_execpath'];
  const [command, args] = how === 'node'
    ? [process.execPath, ['--import', 'tsx', join(ROOT, 'tools', 'start.ts')]]
    : npm !== undefined && npm.endsWith('.js') ? [process.execPath, [npm, 'start']]
      : ['npm', ['start']];
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  pids.push(child.pid!);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) =>
    resolve(code)));
  const output = () => text;
  const webApiPidOf = () => Number(/"service":"store-webapi","pid":(\d+)/.exec(text)?.[1] ?? 0);
  await until('the web API', () => webApiPidOf() > 0, READY_TIMEOUT_MS, output);
  const nodePid = Number(readFileSync(join(home, 'conf', 'store.pid'), 'utf8'));
  const webApiPid = webApiPidOf();
  pids.push(nodePid, webApiPid);
  const http = new HttpCaller(webApiPort!);
  await until('checkConnection', async () => {
    const answer = await http.call('GET', '/store/v2/myCluster/dbs/public/checkConnection')
      .catch(() => undefined);
    return answer?.status === 200;
  }, READY_TIMEOUT_MS, output);
  return { child, home, output, exited, nodePid, webApiPid };
}

function eventLogRecords(home: string): Array<Record<string, unknown>> {
  const directory = join(home, 'log');
  return readdirSync(directory).filter((name) => name.endsWith('.log')).sort()
    .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function assertStoppedCleanly(
  started: Started & { nodePid: number; webApiPid: number },
): Promise<void> {
  const { output } = started;
  const gone = () => !processAlive(started.nodePid) && !processAlive(started.webApiPid);
  await until('both children to exit', gone, STOP_TIMEOUT_MS, output);
  const code = await Promise.race([started.exited,
    new Promise<string>((resolve) => setTimeout(() => resolve('still running'), STOP_TIMEOUT_MS))]);
  assert.equal(code, 0, output());
  const records = eventLogRecords(started.home);
  assert.ok(records.some((r) => r['msg'] === 'checkpoint completed' && r['trigger'] === 'shutdown'),
    `no shutdown checkpoint in the event log: ${output()}`);
  const last = records.at(-1)!;
  assert.equal(last['msg'], 'node stopped', output());
  assert.equal(last['clean'], true, output());
  assert.match(output(), /"msg":"web API stopped"/);
}

describe('stopping npm start', { timeout: 300_000 }, () => {
  it('SIGTERM to `npm start` stops the node and the web API cleanly', async () => {
    const started = await start('npm');
    started.child.kill('SIGTERM');
    await assertStoppedCleanly(started);
  });

  it('SIGHUP to tools/start.ts (the terminal went away) stops both cleanly', async () => {
    const started = await start('node');
    started.child.kill('SIGHUP');
    await assertStoppedCleanly(started);
  });

  it('SIGTERM to start.ts, the node and the web API at once (a service manager) stops cleanly',
    async () => {
      const started = await start('node');
      for (const pid of [started.child.pid!, started.nodePid, started.webApiPid]) {
        process.kill(pid, 'SIGTERM');
      }
      await assertStoppedCleanly(started);
    });
});
