// The web API as operators run it: the `store-webapi` process on a node's GS_HOME (default files
// written, the connection check of the README, a clean stop on SIGTERM, a clear error and exit
// code 2 for a bad repository.json), and `npm start` (tools/start.ts) running the node and the
// web API together and stopping both.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { getStore } from '../../../lib/client/store-factory.ts';
import { freePorts, newNodeHome, removeHome, startNodeProcess } from '../node/node-process.ts';
import { assertError, HttpCaller } from './webapi-test-helpers.ts';
import { processAlive } from '../../../tools/store-node-process.ts';
import { processRssBytes } from '../../../perf/rss-sampler.ts';

const TOOLS = fileURLToPath(new URL('../../../tools/', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STARTED = /"msg":"web API started"/;

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function startTool(name: string, env: NodeJS.ProcessEnv, args: string[] = [],
  nodeFlags: string[] = []): Started {
  const child = spawn(process.execPath,
    [...nodeFlags, '--import', 'tsx', join(TOOLS, name), ...args],
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
/**
 * Starts the web API on `home` beside its running node, with `properties` as its
 * store_webapi.properties (its process joins `children`, which the tests end); waits until it
 * serves and gives its pid (from its start line).
 */
async function startWebApiOn(
  home: string,
  nodeEnv: NodeJS.ProcessEnv,
  setup: { properties: string; nodeFlags?: string[]; children: ChildProcess[] },
): Promise<{ webApi: Started; pid: number }> {
  const conf = join(home, 'webapi', 'conf');
  mkdirSync(conf, { recursive: true });
  writeFileSync(join(conf, 'store_webapi.properties'), setup.properties);
  const webApi = startTool('store-webapi.ts', { ...nodeEnv }, [], setup.nodeFlags ?? []);
  setup.children.push(webApi.child);
  await waitFor(webApi, STARTED);
  const pid = Number(/"service":"store-webapi","pid":(\d+)/.exec(webApi.output())?.[1]);
  return { webApi, pid };
}

async function homeWithPorts(): Promise<{ home: string; webApiPort: number }> {
  const [transaction, system, sql, cluster, sync, webApi] = await freePorts(6);
  const home = newNodeHome({
    transaction: { servicePort: transaction }, system: { servicePort: system },
    sql: { servicePort: sql }, cluster: { servicePort: cluster }, sync: { servicePort: sync },
    dataStore: { logWriteMode: 0 },
  });
  return { home, webApiPort: webApi! };
}

/** Resident memory of a process, bytes (Linux /proc); `VmHWM` is its peak so far. */
function rssBytes(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const bytes = processRssBytes(pid, field);
  assert.ok(bytes !== undefined);
  return bytes;
}

/** One request on a connection of its own: chunked when `chunked`, else with Content-Length. */
function bodyRequest(port: number, path: string, body: Buffer, chunked: boolean):
  Promise<{ status: number; retryAfter: string | undefined; text: string }> {
  const headers: Record<string, string> = {
    'authorization': `Basic ${Buffer.from('admin:admin').toString('base64')}`,
    'content-type': 'application/json',
  };
  // Node's client frames a DELETE body as chunked only when told to.
  if (chunked) headers['transfer-encoding'] = 'chunked';
  else headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method: 'DELETE', path, headers,
      agent: false, timeout: 60_000 }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text,
        retryAfter: response.headers['retry-after'] as string | undefined }));
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${path}: timed out`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
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
        const { webApi, pid } = await startWebApiOn(home, node.env,
          { properties: `server.port=${webApiPort}\n`, children });
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

  it('holds at most maxTotalRequestBodySize of bodies at once: the rest wait or get 503',
    async () => {
      // Issue 12, point 6: 16 authenticated bodies of 2 MB (maxRequestBodySize), each parsed
      // whole and held while its DELETE waits 1 s on a locked row, used to be held all at once.
      // With a budget of 4 MB two are held at a time. Bound: RSS before + 4 MB × 15 (the parsed
      // body 6×, its text, the chunks received, and what they leave for the garbage collector) +
      // 40 MB margin, on the process's peak RSS (VmHWM). Measured: +62 MB with the budget,
      // +186 MB without.
      const { home, webApiPort } = await homeWithPorts();
      homes.push(home);
      const node = await startNodeProcess(home);
      const other = getStore({ notificationMember: `127.0.0.1:${node.transactionPort}`,
        clusterName: 'myCluster', username: 'admin', password: 'admin' });
      try {
        // Garbage is collected as it is made (V8 would otherwise let the heap grow with what was
        // allocated), so that RSS follows what is held.
        const { webApi, pid } = await startWebApiOn(home, node.env, {
          properties: `server.port=${webApiPort}\n` +
            'maxRequestBodySize=2MB\nmaxTotalRequestBodySize=4MB\ntransactionTimeout=1\n' +
            'requestBodyTimeout=30\n',
          nodeFlags: ['--optimize-for-size'], children,
        });
        const http = new HttpCaller(webApiPort);
        const base = '/store/v2/myCluster/dbs/public';
        const created = await http.call('POST', `${base}/containers`, { body: {
          container_name: 't', container_type: 'COLLECTION', rowkey: true,
          columns: [{ name: 'id', type: 'INTEGER' }, { name: 'v', type: 'INTEGER' }] } });
        assert.equal(created.status, 201, created.text);
        assert.equal((await http.call('PUT', `${base}/containers/t/rows`,
          { body: [[1, 1]] })).status, 200);
        // Another session locks row 1: every DELETE below waits on it for 1 s.
        const container = (await other.getContainer('t'))!;
        await container.setAutoCommit(false);
        await container.put([1, 10]);
        const bodyBytes = 2 * 1024 * 1024 - 64;
        // A string among the numbers makes every 0.5 a heap number of its own: 6 bytes of
        // heap for each byte of body once parsed (measured), held until the DELETE ends.
        const body = Buffer.from(`[1,"a"${',0.5'.repeat((bodyBytes - 7) / 4)}]`);
        assert.ok(body.length <= bodyBytes);
        const beforeBytes = rssBytes(pid);
        let burstDone = false;
        const burst = Promise.all(Array.from({ length: 16 }, (_, i) =>
          bodyRequest(webApiPort, `${base}/containers/t/rows`, body, i % 2 === 1)))
          .finally(() => (burstDone = true));
        await new Promise((resolve) => setTimeout(resolve, 500));
        const served = await http.call('GET', `${base}/checkConnection`);
        const servedDuringBurst = !burstDone;
        const answers = await burst;
        await container.abort();
        const peakBytes = rssBytes(pid, 'VmHWM');
        const servedCount = answers.filter((answer) => answer.status === 400).length;
        assert.ok(servedCount >= 2, `${servedCount} of 16 served`);
        const boundBytes = beforeBytes + 4 * 1024 * 1024 * 15 + 40 * 1024 * 1024;
        console.log(`web API RSS ${(beforeBytes / 2 ** 20).toFixed(1)} MiB before, peak ` +
          `${(peakBytes / 2 ** 20).toFixed(1)} MiB (bound ${(boundBytes / 2 ** 20).toFixed(1)}); ` +
          `${servedCount} of 16 served, ` +
          `${answers.filter((answer) => answer.status === 503).length} answered 503`);
        assert.ok(peakBytes <= boundBytes, `peak RSS ${peakBytes} over ${boundBytes} bytes`);
        assert.equal(served.status, 200);
        assert.ok(servedDuringBurst, 'the other client was served only after the burst');
        for (const answer of answers) {
          if (answer.status === 503) {
            assert.equal(answer.retryAfter, '2');
            assert.match(answer.text, /"errorMessage":"The web API is busy: /);
          } else {
            assert.equal(answer.status, 400, answer.text);
            assert.match(answer.text, /LOCK_TIMEOUT/);
          }
        }
        webApi.child.kill('SIGTERM');
        assert.equal(await webApi.exited, 0);
      } finally {
        await other.close();
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
    // npm start says it in words; the web API's JSON lines go to GS_LOG/store-webapi.log.
    await waitFor(start, /^store is running\.$/m);
    const webApiLog = () => readFileSync(join(home, 'log', 'store-webapi.log'), 'utf8');
    const http = new HttpCaller(webApiPort);
    const check = await http.call('HEAD', '/store/v2/myCluster/dbs/public/checkConnection');
    assert.equal(check.status, 200);
    assert.equal(check.headers['content-length'], '0');
    assertError(await http.call('GET', '/store/v2/myCluster/dbs/public/checkConnection',
      { auth: { user: 'admin', password: 'wrong' } }), 401);
    const nodePid = Number(readFileSync(join(home, 'conf', 'store.pid'), 'utf8'));
    const webApiPid = Number(/"service":"store-webapi","pid":(\d+)/.exec(webApiLog())?.[1]);
    assert.ok(processAlive(nodePid) && processAlive(webApiPid));
    start.child.kill('SIGTERM');
    assert.equal(await start.exited, 0, start.output());
    assert.match(webApiLog(), /"msg":"web API stopped"/);
    assert.match(start.output(), /node stopped/);
    assert.ok(!processAlive(nodePid), 'the node is still running');
    assert.ok(!processAlive(webApiPid), 'the web API is still running');
  });
});
