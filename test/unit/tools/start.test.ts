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
import { HttpCaller, basicAuthorization } from '../webapi/webapi-test-helpers.ts';
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
  // Children whose pids a failed start never recorded: the node's pid file, the web API's log.
  for (const home of homes) {
    pids.push(Number(readIfThere(join(home, 'conf', 'store.pid'))),
      Number(/"pid":(\d+)/.exec(readIfThere(join(home, 'log', 'store-webapi.log')))?.[1] ?? 0));
  }
  for (const pid of pids.filter((pid) => pid > 0)) {
    if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const home of homes) removeHome(home);
});

function readIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number,
  output: () => string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

interface Launched extends Started {
  transactionPort: number;
  systemPort: number;
  webApiPort: number;
}

/** A new home on free ports (gs_node.json, store_webapi.properties). */
async function newStartHome(): Promise<{ home: string; ports: number[] }> {
  const ports = await freePorts(6);
  const [transaction, system, sql, cluster, sync, webApiPort] = ports;
  const home = newNodeHome({
    transaction: { servicePort: transaction }, system: { servicePort: system },
    sql: { servicePort: sql }, cluster: { servicePort: cluster }, sync: { servicePort: sync },
  });
  homes.push(home);
  mkdirSync(join(home, 'webapi', 'conf'), { recursive: true });
  writeFileSync(join(home, 'webapi', 'conf', 'store_webapi.properties'),
    `server.port=${webApiPort}\n`);
  return { home, ports };
}

/** Spawns `npm start` (through npm's shell) or `node --import tsx tools/start.ts` on `home`. */
function launch(how: 'npm' | 'node', home: string, ports: number[]): Launched {
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
  return { child, home, output: () => text, exited,
    transactionPort: ports[0]!, systemPort: ports[1]!, webApiPort: ports[5]! };
}

/**
 * `npm start` or tools/start.ts on a new home; resolves once the web API answers checkConnection,
 * with the pids of both children.
 */
async function start(how: 'npm' | 'node'): Promise<Launched & { nodePid: number; webApiPid: number }> {
  const { home, ports } = await newStartHome();
  const launched = launch(how, home, ports);
  const { output } = launched;
  const webApiPidOf = () => Number(/"service":"store-webapi","pid":(\d+)/.exec(webApiLog(home))?.[1] ?? 0);
  await until('the web API', () => webApiPidOf() > 0, READY_TIMEOUT_MS, output);
  const http = new HttpCaller(launched.webApiPort);
  await until('checkConnection', async () => {
    const answer = await http.call('GET', '/store/v2/myCluster/dbs/public/checkConnection')
      .catch(() => undefined);
    return answer?.status === 200;
  }, READY_TIMEOUT_MS, output);
  // The node writes its pid file before its start line, and the words follow that line; the web
  // API's log may come first (it runs inside the node: npm start's default).
  await until('the lines in words', () => /Ctrl-C stops both/.test(output()), READY_TIMEOUT_MS,
    output);
  const nodePid = Number(readFileSync(join(home, 'conf', 'store.pid'), 'utf8'));
  const webApiPid = webApiPidOf();
  pids.push(nodePid, webApiPid);
  return { ...launched, nodePid, webApiPid };
}

/** The web API's JSON lines, which `npm start` writes beside the node's event log. */
function webApiLog(home: string): string {
  try {
    return readFileSync(join(home, 'log', 'store-webapi.log'), 'utf8');
  } catch {
    return '';
  }
}

function eventLogRecords(home: string): Array<Record<string, unknown>> {
  const directory = join(home, 'log');
  return readdirSync(directory).filter((name) => /^store-\d+-\d+\.log$/.test(name)).sort()
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
  assert.match(webApiLog(started.home), /"msg":"web API stopped"/);
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

// Issue 13, point 7: what `npm start` tells a person, where its logs go, and how it ends when the
// node dies or another node holds the home.
describe('npm start in words', { timeout: 300_000 }, () => {
  it('says where the data, the clients, the web API and the default user are, and a first ' +
    'command that works; the logs in GS_LOG are JSON, the terminal gets none', async () => {
    const started = await start('node');
    const text = started.output();
    const home = started.home;
    assert.match(text, new RegExp(`data: +${home} \\(event log, JSON lines: ${join(home, 'log')}\\)`));
    assert.match(text, new RegExp(`clients: +127\\.0\\.0\\.1:${started.transactionPort}, cluster myCluster`));
    const url = `http://127.0.0.1:${started.webApiPort}/store/v2/myCluster/dbs/public`;
    assert.ok(text.includes(`web API:  ${url}\n`), text);
    assert.match(text, /user: +admin, password admin: the default, change it/);
    const tryLine = /try: +curl -s -u admin:admin '([^']+)'/.exec(text);
    assert.ok(tryLine !== null, text);
    const answer = await fetch(tryLine[1]!, { headers: { authorization: basicAuthorization('admin', 'admin') } });
    assert.equal(answer.status, 200, await answer.clone().text());
    assert.deepEqual(await answer.json(), { names: [], total: 0, offset: 0, limit: 10 });
    for (const line of text.split('\n')) assert.ok(!line.startsWith('{'), `a JSON line on the terminal: ${line}`);
    const logs = readdirSync(join(home, 'log'));
    assert.ok(logs.includes('store-webapi.log'), logs.join());
    for (const name of logs) {
      for (const line of readFileSync(join(home, 'log', name), 'utf8').split('\n').filter(Boolean)) {
        assert.doesNotThrow(() => JSON.parse(line), `${name}: ${line}`);
      }
    }
    started.child.kill('SIGTERM');
    await assertStoppedCleanly(started);
  });

  it('says the node died and exits non-zero when the node is killed', async () => {
    const started = await start('node');
    process.kill(started.nodePid, 'SIGKILL');
    const code = await started.exited;
    assert.notEqual(code, 0);
    assert.match(started.output(), /npm start: the node died \(killed by SIGKILL\); its event log is in /);
    await until('the web API to exit', () => !processAlive(started.webApiPid), STOP_TIMEOUT_MS,
      started.output);
  });

  it('a second start on the same home says a node runs there, its pid and ports', async () => {
    const first = await start('node');
    const second = launch('node', first.home,
      [first.transactionPort, first.systemPort, 0, 0, 0, first.webApiPort]);
    const code = await second.exited;
    assert.equal(code, 3, second.output());
    assert.match(second.output(), new RegExp(`in use by the node with pid ${first.nodePid} .*` +
      `it serves clients on 127\\.0\\.0\\.1:${first.transactionPort} and operating commands on ` +
      `127\\.0\\.0\\.1:${first.systemPort}`));
    assert.match(second.output(), /npm start: a node already runs on this home/);
    assert.ok(processAlive(first.nodePid), 'the first node must keep running');
    first.child.kill('SIGTERM');
    await assertStoppedCleanly(first);
  });
});
