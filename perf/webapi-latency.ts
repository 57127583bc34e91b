// The back-to-back latency of one web API request with the node in this very process (the web
// API embedded, as `npm start` runs it): no other process to wake, so what is measured is the
// request's own CPU path (HTTP, the route, the hop to the node, the query, the answer's text).
// One host of the TSBS day (8,640 rows) is loaded through the web API, then each case is sent
// `count` times on one keep-alive connection, one after another (with `--pause-ms`, a pause
// before each). Prints best, median and p95 per case, and the process's CPU time per request
// (user + system, both the caller's and the server's side; on a loaded machine steadier than
// the latencies, which wait for a core). Run it under --cpu-prof to see where a request's time
// goes:
//
//   node --import tsx perf/webapi-latency.ts [--count 300] [--pause-ms 0] [--case max|range]

import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { assert } from '../lib/base/assert.ts';
import { NodeFileSystem } from '../lib/io/node-file-system.ts';
import { StoreNode } from '../lib/node/store-node.ts';
import { WEBAPI_SETTINGS_DEFAULT } from '../lib/webapi/config/webapi-settings.ts';
import { writeInProcessNodeHome } from './in-process-node-home.ts';
import { median, percentile } from './stats.ts';
import { tsbsDataset } from './tsbs.ts';
import { httpCall, webApiBatchBody, webApiContainerBody } from './workloads/webapi-ingest.ts';

const HOUR_MS = 3_600_000;
const TOOLS_DIRECTORY = fileURLToPath(new URL('../tools/', import.meta.url));
const WARM_UP_COUNT = 50;

const { values: args } = parseArgs({ options: {
  count: { type: 'string', default: '300' },
  'pause-ms': { type: 'string', default: '0' },
  case: { type: 'string', multiple: true, default: ['max', 'range'] },
} });
const count = Number(args.count);
const pauseMs = Number(args['pause-ms']);

const home = mkdtempSync(join(tmpdir(), 'store-webapi-latency-'));
writeInProcessNodeHome(home);

const node = await StoreNode.start({
  env: { GS_HOME: home, GS_LOG: join(home, 'log') }, cwd: process.cwd(),
  toolsDirectory: TOOLS_DIRECTORY, fileSystem: new NodeFileSystem(),
  webApi: { embedded: true, logger: () => pino({ level: 'silent' }),
    settings: { ...WEBAPI_SETTINGS_DEFAULT, port: 0, address: '127.0.0.1' } },
});
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
try {
  const target = { port: node.embeddedWebApi!.server.port, agent };
  const base = '/store/v2/myCluster/dbs/public';
  const dataset = tsbsDataset({ hostCount: 1, durationMs: 24 * HOUR_MS, intervalMs: 10_000,
    batchRowCountMax: 5000, seed: 1 });
  const name = dataset.hosts[0]!.containerName;
  const created = await httpCall(target, { method: 'POST', path: `${base}/containers`,
    body: Buffer.from(JSON.stringify(webApiContainerBody(name))) });
  assert(created.status === 201, created.text);
  for (const batch of dataset.batches) {
    const put = await httpCall(target, { method: 'PUT', path: `${base}/containers/${name}/rows`,
      body: Buffer.from(webApiBatchBody(batch)) });
    assert(put.status === 200, put.text);
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  const where = (fromMs: number, toMs: number) =>
    `ts >= TIMESTAMP('${iso(fromMs)}') AND ts < TIMESTAMP('${iso(toMs)}')`;
  const cases: Record<string, (i: number) => string> = {
    max: (i) => {
      const fromMs = dataset.fromMs + (i % 24) * HOUR_MS;
      return `SELECT MAX(usage_user) WHERE ${where(fromMs, fromMs + HOUR_MS)}`;
    },
    range: (i) => {
      const fromMs = dataset.fromMs + (i % 13) * HOUR_MS;
      return `SELECT * WHERE ${where(fromMs, fromMs + 12 * HOUR_MS)}`;
    },
  };
  for (const caseName of args.case) {
    const statement = cases[caseName];
    assert(statement !== undefined, `--case max or range, not ${caseName}`);
    const bodies = Array.from({ length: WARM_UP_COUNT + count }, (_, i) =>
      Buffer.from(JSON.stringify([{ name, stmt: statement(i) }])));
    const samples: number[] = [];
    let cpuFrom = process.cpuUsage();
    for (let i = 0; i < bodies.length; i++) {
      if (i === WARM_UP_COUNT) cpuFrom = process.cpuUsage();
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      const startMs = performance.now();
      const answer = await httpCall(target, { method: 'POST', path: `${base}/tql`, body: bodies[i]! });
      const elapsedMs = performance.now() - startMs;
      assert(answer.status === 200, answer.text.slice(0, 300));
      if (i >= WARM_UP_COUNT) samples.push(elapsedMs);
    }
    const cpu = process.cpuUsage(cpuFrom);
    const cpuUsPerRequest = (cpu.user + cpu.system) / count;
    samples.sort((a, b) => a - b);
    console.log(`${caseName}: best ${samples[0]!.toFixed(3)} ms, median ` +
      `${median(samples).toFixed(3)} ms, p95 ${percentile(samples, 95).toFixed(3)} ms, ` +
      `CPU ${cpuUsPerRequest.toFixed(0)} µs a request (the process's, both sides) ` +
      `(${count} back to back, pause ${pauseMs} ms)`);
  }
} finally {
  agent.destroy();
  await node.stop();
  rmSync(home, { recursive: true, force: true });
}
