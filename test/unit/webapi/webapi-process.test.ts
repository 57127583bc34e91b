// The web API as operators run it: the `store-webapi` process on a node's GS_HOME (default files
// written, the connection check of the README, a clean stop on SIGTERM, a clear error and exit
// code 2 for a bad repository.json), and `npm start` (tools/start.ts) running the node and the
// web API together and stopping both.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { freePorts, newNodeHome, removeHome, startNodeProcess } from '../node/node-process.ts';
import { assertError, HttpCaller } from './webapi-test-helpers.ts';
import { processAlive } from '../../../tools/store-node-process.ts';

const TOOLS = fileURLToPath(new URL('../../../tools/', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STARTED = /"msg":"web API started"/;

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function startTool(name: string, env: NodeJS.ProcessEnv, args: string[] = []): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', join(TOOLS, name), ...args],
    { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) =>
    resolve(code)));
  return { child, output: () => text, exited };
}

async function waitFor(started: Started, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!pattern.test(started.output())) {
    if (started.child.exitCode !== null) {
      throw new Error(`exited (${started.child.exitCode}): ${started.output()}`);
    }
    if (Date.now() > deadline) throw new Error(`no ${String(pattern)}: ${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A node home on ports of its own (the default repository.json reads them) and a web API port. */
async function homeWithPorts(): Promise<{ home: string; webApiPort: number }> {
  const [transaction, system, sql, cluster, sync, webApi] = await freePorts(6);
  const home = newNodeHome({
    transaction: { servicePort: transaction }, system: { servicePort: system },
    sql: { servicePort: sql }, cluster: { servicePort: cluster }, sync: { servicePort: sync },
    dataStore: { logWriteMode: 0 },
  });
  return { home, webApiPort: webApi! };
}

/** Resident memory of a process, bytes (Linux /proc). */
function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(match !== null);
  return Number(match[1]) * 1024;
}

/**
 * Sends `totalBytes` of `[[],[],...` chunked, stopping when an answer comes; resolves with the
 * answer and the bytes written before it came.
 */
function hostileBody(port: number, head: string, totalBytes: number):
  Promise<{ answer: string; sentBytes: number }> {
  const chunk = Buffer.from('[],'.repeat(21_845));
  const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk,
    Buffer.from('\r\n')]);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    let sentBytes = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer; sent ${sentBytes} bytes`));
    }, 60_000);
    const done = () => {
      clearTimeout(timer);
      resolve({ answer, sentBytes });
    };
    socket.on('data', (data: Buffer) => (answer += data.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.on('connect', () => {
      socket.write(`${head}1\r\n[\r\n`);
      const pump = () => {
        while (answer === '' && !socket.destroyed && sentBytes < totalBytes) {
          sentBytes += chunk.length;
          if (!socket.write(framed)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
}

describe('web API processes', { timeout: 180_000 }, () => {
  const homes: string[] = [];
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    for (const home of homes) removeHome(home);
  });

  it('store-webapi writes its defaults, answers the connection check, stops on SIGTERM',
    async () => {
      const { home, webApiPort } = await homeWithPorts();
      homes.push(home);
      const node = await startNodeProcess(home);
      try {
        const env = { ...node.env };
        // The first start writes the defaults (port 8081, which --port overrides here).
        const webApi = startTool('store-webapi.ts', env, ['--port', String(webApiPort)]);
        children.push(webApi.child);
        await waitFor(webApi, STARTED);
        assert.match(readFileSync(join(home, 'webapi', 'conf', 'store_webapi.properties'),
          'utf8'), /#server\.port=8081/);
        webApi.child.kill('SIGTERM');
        assert.equal(await webApi.exited, 0);
        const repository = JSON.parse(readFileSync(join(home, 'webapi', 'conf',
          'repository.json'), 'utf8')) as { clusters: Array<Record<string, unknown>> };
        assert.deepEqual(repository.clusters[0], { name: 'myCluster', mode: 'FIXED_LIST',
          transactionMember: `127.0.0.1:${node.transactionPort}`,
          sqlMember: repository.clusters[0]!['sqlMember'], providerUrl: null });
        writeFileSync(join(home, 'webapi', 'conf', 'store_webapi.properties'),
          `server.port=${webApiPort}\nfailoverTimeout=1\n`);
        const again = startTool('store-webapi.ts', env);
        children.push(again.child);
        await waitFor(again, STARTED);
        const http = new HttpCaller(webApiPort);
        const check = await http.call('HEAD', '/store/v2/myCluster/dbs/public/checkConnection');
        assert.equal(check.status, 200);
        assert.equal(check.headers['content-length'], '0');
        assert.ok(check.headers['date'] !== undefined);
        assertError(await http.call('GET', '/store/v2/myCluster/dbs/public/checkConnection',
          { auth: { user: 'admin', password: 'wrong' } }), 401, /AUTHENTICATION_FAILED/);
        // The node goes away: the check times out (500), or fails after failoverTimeout with a
        // 500 that says the node could not be reached (never a 401: the password is right).
        await node.stop();
        assertError(await http.call('GET',
          '/store/v2/myCluster/dbs/public/checkConnection?timeout=100'), 500, 'Exceeded timeout');
        assertError(await http.call('GET', '/store/v2/myCluster/dbs/public/checkConnection'), 500,
          /the node could not be reached at 127\.0\.0\.1:\d+ \[170003:CONNECTION_FAILED\]/);
        // A caller not seen before is checked with the node first: the same 500.
        assertError(await http.call('GET', '/store/v2/myCluster/dbs/public/containers?limit=1',
          { auth: { user: 'other', password: 'x' } }), 500, /could not be reached/);
        again.child.kill('SIGTERM');
        assert.equal(await again.exited, 0);
        assert.match(again.output(), /"msg":"web API stopped"/);
      } finally {
        await node.stop();
      }
    });

  it('keeps its memory under a 100 MB body without credentials, and serves others meanwhile',
    async () => {
      // Issue 12, point 6: the body used to be read and parsed before the credentials were
      // checked (2.8 GB RSS). Now the 401 comes before the body is read; an authenticated body
      // over maxRequestBodySize (20 MB) stops at it. Bound: RSS before + 20 MB + 40 MB margin.
      const { home, webApiPort } = await homeWithPorts();
      homes.push(home);
      const node = await startNodeProcess(home);
      try {
        const conf = join(home, 'webapi', 'conf');
        mkdirSync(conf, { recursive: true });
        writeFileSync(join(conf, 'store_webapi.properties'), `server.port=${webApiPort}\n`);
        const webApi = startTool('store-webapi.ts', { ...node.env });
        children.push(webApi.child);
        await waitFor(webApi, STARTED);
        const pid = Number(/"service":"store-webapi","pid":(\d+)/.exec(webApi.output())?.[1]);
        const http = new HttpCaller(webApiPort);
        const base = '/store/v2/myCluster/dbs/public';
        assert.equal((await http.call('HEAD', `${base}/checkConnection`)).status, 200);
        const beforeBytes = rssBytes(pid);
        const totalBytes = 100 * 1024 * 1024;
        const head = (auth: string, method = 'PUT') =>
          `${method} ${base}/containers/t/rows HTTP/1.1\r\nHost: x\r\n` +
          `${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
        const [hostile, served] = await Promise.all([
          hostileBody(webApiPort, head(''), totalBytes),
          http.call('GET', `${base}/checkConnection`),
        ]);
        assert.equal(served.status, 200);
        assert.match(hostile.answer, /^HTTP\/1\.1 401 .*"errorMessage":"Basic authentication not found"/s);
        assert.ok(hostile.sentBytes < totalBytes / 4, `${hostile.sentBytes} bytes sent first`);
        const admin = `Authorization: Basic ${Buffer.from('admin:admin').toString('base64')}\r\n`;
        const created = await http.call('POST', `${base}/containers`, { body: {
          container_name: 't', container_type: 'COLLECTION', rowkey: false,
          columns: [{ name: 'v', type: 'INTEGER' }] } });
        assert.equal(created.status, 201, created.text);
        // DELETE reads its (small) bodies whole: counted up to the limit, then 413.
        const tooLarge = await hostileBody(webApiPort, head(admin, 'DELETE'), totalBytes);
        assert.match(tooLarge.answer, /^HTTP\/1\.1 413 /);
        const afterBytes = rssBytes(pid);
        const boundBytes = beforeBytes + 20 * 1024 * 1024 + 40 * 1024 * 1024;
        assert.ok(afterBytes <= boundBytes, `RSS ${beforeBytes} → ${afterBytes} bytes`);
        console.log(`web API RSS: ${(beforeBytes / 2 ** 20).toFixed(1)} MiB before, ` +
          `${(afterBytes / 2 ** 20).toFixed(1)} MiB after; 401 after ${hostile.sentBytes} ` +
          `bytes, 413 after ${tooLarge.sentBytes} bytes`);
        webApi.child.kill('SIGTERM');
        assert.equal(await webApi.exited, 0);
      } finally {
        await node.stop();
      }
    });

  it('store-webapi refuses a bad repository.json with exit code 2, naming the member',
    async () => {
      const { home, webApiPort } = await homeWithPorts();
      homes.push(home);
      const conf = join(home, 'webapi', 'conf');
      mkdirSync(conf, { recursive: true });
      writeFileSync(join(conf, 'repository.json'),
        '{"clusters":[{"name":"myCluster","mode":"FIXED_LIST"}]}');
      const webApi = startTool('store-webapi.ts', { ...process.env, GS_HOME: home },
        ['--port', String(webApiPort)]);
      children.push(webApi.child);
      assert.equal(await webApi.exited, 2, webApi.output());
      assert.match(webApi.output(), /web API failed to start: CONFIG_INVALID: .*repository\.json/);
      assert.match(webApi.output(), /clusters\[0\]\.transactionMember is required/);
      const badPort = startTool('store-webapi.ts', { ...process.env, GS_HOME: home },
        ['--port', 'http']);
      children.push(badPort.child);
      assert.equal(await badPort.exited, 2, badPort.output());
    });

  it('npm start runs the node and the web API, and stops both', async () => {
    const { home, webApiPort } = await homeWithPorts();
    homes.push(home);
    const conf = join(home, 'webapi', 'conf');
    mkdirSync(conf, { recursive: true });
    writeFileSync(join(conf, 'store_webapi.properties'), `server.port=${webApiPort}\n`);
    const start = startTool('start.ts', { ...process.env, GS_HOME: home,
      GS_LOG: join(home, 'log') });
    children.push(start.child);
    await waitFor(start, STARTED);
    assert.match(start.output(), /node started on /);
    const http = new HttpCaller(webApiPort);
    const check = await http.call('HEAD', '/store/v2/myCluster/dbs/public/checkConnection');
    assert.equal(check.status, 200);
    assert.equal(check.headers['content-length'], '0');
    assertError(await http.call('GET', '/store/v2/myCluster/dbs/public/checkConnection',
      { auth: { user: 'admin', password: 'wrong' } }), 401);
    const nodePid = Number(readFileSync(join(home, 'conf', 'store.pid'), 'utf8'));
    const webApiPid = Number(/"service":"store-webapi","pid":(\d+)/.exec(start.output())?.[1]);
    assert.ok(processAlive(nodePid) && processAlive(webApiPid));
    start.child.kill('SIGTERM');
    assert.equal(await start.exited, 0, start.output());
    assert.match(start.output(), /"msg":"web API stopped"/);
    assert.match(start.output(), /node stopped/);
    assert.ok(!processAlive(nodePid), 'the node is still running');
    assert.ok(!processAlive(webApiPid), 'the web API is still running');
  });
});
