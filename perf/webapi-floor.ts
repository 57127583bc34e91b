// Where the web API's `max/1h` request time goes, from its floor up (issue 13, point 1): the same
// client code as webapi/query (httpCall, one keep-alive http.Agent per server), the same request
// (POST /tql, the max of usage_user over one host's hour), sent to each server in turn, request by
// request, so every server sees the same machine load:
//
//   a http       bare node:http answering the real answer's bytes       (perf/webapi-floor-server.ts)
//   b fastify    bare fastify 5, the /tql route, its schema, the bytes
//   c constant   our web API in a node, the query answered by a constant (no query run)
//   d inproc     the same node, the query run
//   e node       the bench's own node process serving the web API (perf/webapi-process.ts, as
//                webapi/query starts it), the query run
//   f influxdb   InfluxDB's GET /query (its own answer), when influxd is on PATH
//
// Each has one host of the TSBS day (8,640 rows) where it answers from data. Prints per server the
// median and p95 of the request time, the client's CPU per request (this process: the request,
// the answer's bytes, as webapi/query times it) and the server's CPU per request (/proc, all its
// threads; a tick is 10 ms, so give it thousands of requests).
//
//   node --import tsx perf/webapi-floor.ts [--count 2000] [--only a,b,c,d,e,f]

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { assert } from '../lib/base/assert.ts';
import { OwnedChild, cpuProfileArgs, firstMatchingLine } from './child-processes.ts';
import { InfluxPeer, influxdPath } from './influx-peer.ts';
import { influxBatchBody, influxLinePrefix } from './influx-line-protocol.ts';
import { processCpuMs } from './process-cpu.ts';
import { median, percentile } from './stats.ts';
import { tsbsDataset } from './tsbs.ts';
import { withNodeWebApi } from './webapi-process.ts';
import { httpCall, webApiBatchBody, webApiContainerBody } from './workloads/webapi-ingest.ts';

const HOUR_MS = 3_600_000;
const WARM_UP_COUNT = 300;
const START_MS_MAX = 60_000;
const SERVER_PATH = fileURLToPath(new URL('./webapi-floor-server.ts', import.meta.url));
const ORPHAN_GUARD_PATH = fileURLToPath(new URL('./orphan-guard.mjs', import.meta.url));
const BASE = '/store/v2/myCluster/dbs/public';

const { values: args } = parseArgs({ options: {
  count: { type: 'string', default: '2000' },
  only: { type: 'string', default: 'a,b,c,d,e,f' },
} });
const count = Number(args.count);
const only = new Set(args.only.split(','));

interface Target {
  label: string;
  pid: number;
  call(i: number): Promise<string>;
  samples: number[];
  clientCpuUs: number;
  serverCpuFromMs: number;
}

const dataset = tsbsDataset({ hostCount: 1, durationMs: 24 * HOUR_MS, intervalMs: 10_000,
  batchRowCountMax: 5000, seed: 1 });
const name = dataset.hosts[0]!.containerName;
const iso = (ms: number) => new Date(ms).toISOString();
const hourFrom = (i: number) => dataset.fromMs + (i % 24) * HOUR_MS;
const storeBody = (i: number) => [{ name, stmt: `SELECT MAX(usage_user) WHERE ts >= ` +
  `TIMESTAMP('${iso(hourFrom(i))}') AND ts < TIMESTAMP('${iso(hourFrom(i) + HOUR_MS)}')` }];
const influxStatement = (i: number) => `SELECT max(usage_user) FROM cpu WHERE hostname=` +
  `'${dataset.hosts[0]!.tags['hostname']}' AND time >= '${iso(hourFrom(i))}' AND time < ` +
  `'${iso(hourFrom(i) + HOUR_MS)}'`;

/** A target of the web API's shape on `port`: the webapi/query client's very call. */
function storeTarget(label: string, pid: number, port: number): Target {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return { label, pid, samples: [], clientCpuUs: 0, serverCpuFromMs: 0, call: async (i) => {
    const answer = await httpCall({ port, agent }, { method: 'POST', path: `${BASE}/tql`,
      body: Buffer.from(JSON.stringify(storeBody(i))) });
    assert(answer.status === 200, `${label}: ${answer.status} ${answer.text.slice(0, 300)}`);
    return answer.text;
  } };
}

async function storeLoad(port: number): Promise<void> {
  const target = { port, agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
  const created = await httpCall(target, { method: 'POST', path: `${BASE}/containers`,
    body: Buffer.from(JSON.stringify(webApiContainerBody(name))) });
  assert(created.status === 201, created.text);
  for (const batch of dataset.batches) {
    const put = await httpCall(target, { method: 'PUT', path: `${BASE}/containers/${name}/rows`,
      body: Buffer.from(webApiBatchBody(batch)) });
    assert(put.status === 200, put.text);
  }
  target.agent.destroy();
}

/** BENCH_CPU_PROF_DIR's profile, sampled every 50 µs: a request is a few hundred µs. */
function profileArgs(): string[] {
  const args = cpuProfileArgs();
  return args.length === 0 ? [] : [...args, '--cpu-prof-interval', '50'];
}

async function startServer(mode: string, fixed: string, home: string):
  Promise<{ owned: OwnedChild; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', ORPHAN_GUARD_PATH,
    ...profileArgs(), SERVER_PATH, mode, fixed, home], { stdio: ['pipe', 'pipe', 'inherit'] });
  const owned = new OwnedChild(child, `the ${mode} server`);
  const match = await firstMatchingLine(owned, child.stdout, /^listening (\d+)$/, START_MS_MAX);
  return { owned, port: Number(match[1]) };
}

const root = mkdtempSync(join(tmpdir(), 'store-webapi-floor-'));
const owned: OwnedChild[] = [];
const targets: Target[] = [];
let peer: InfluxPeer | undefined;
try {
  await withNodeWebApi(root, { mode: 'embedded', dataStore: { logWriteMode: 1 } },
    async (node, webApi) => {
      await storeLoad(webApi.port);
      const real = storeTarget('e node (bench)', node.pid, webApi.port);
      const fixed = await real.call(0);
      const add = async (key: string, label: string, mode: string, load: boolean) => {
        if (!only.has(key)) return;
        const server = await startServer(mode, fixed, join(root, mode));
        owned.push(server.owned);
        if (load) await storeLoad(server.port);
        targets.push(storeTarget(label, server.owned.child.pid!, server.port));
      };
      await add('a', 'a node:http', 'http', false);
      await add('b', 'b fastify', 'fastify', false);
      await add('g', 'g net', 'net', false);
      await add('c', 'c constant', 'constant', false);
      await add('d', 'd inproc', 'real', true);
      if (only.has('e')) targets.push(real);
      const influxd = influxdPath();
      if (only.has('f') && influxd !== undefined) {
        peer = await InfluxPeer.start(influxd, join(root, 'influxdb'), 1);
        await peer.createDatabase('tsbs');
        const prefix = influxLinePrefix(dataset.hosts[0]!);
        for (const batch of dataset.batches) {
          await peer.write('tsbs', Buffer.from(influxBatchBody(batch, prefix)));
        }
        const influx = peer;
        targets.push({ label: 'f influxdb', pid: influx.pid, samples: [], clientCpuUs: 0,
          serverCpuFromMs: 0, call: (i) => influx.queryText('tsbs', influxStatement(i)) });
      }
      for (let i = 0; i < WARM_UP_COUNT; i++) for (const target of targets) await target.call(i);
      for (const target of targets) target.serverCpuFromMs = processCpuMs(target.pid) ?? 0;
      for (let i = 0; i < count; i++) {
        for (const target of targets) {
          const cpuFrom = process.cpuUsage();
          const startMs = performance.now();
          await target.call(i);
          target.samples.push(performance.now() - startMs);
          const cpu = process.cpuUsage(cpuFrom);
          target.clientCpuUs += cpu.user + cpu.system;
        }
      }
      const load = (await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ');
      console.log(`max/1h, ${count} requests each after ${WARM_UP_COUNT} warm-up, in turn; ` +
        `load average ${load}`);
      console.log('server            median ms   p95 ms   client CPU µs/req   server CPU µs/req');
      for (const target of targets) {
        const serverUs = ((processCpuMs(target.pid) ?? NaN) - target.serverCpuFromMs) * 1000 / count;
        console.log(`${target.label.padEnd(18)}${median(target.samples).toFixed(3).padStart(9)}` +
          `${percentile(target.samples, 95).toFixed(3).padStart(9)}` +
          `${(target.clientCpuUs / count).toFixed(0).padStart(20)}` +
          `${serverUs.toFixed(0).padStart(20)}`);
      }
    });
} finally {
  await peer?.stop();
  for (const one of owned) await one.stop('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
