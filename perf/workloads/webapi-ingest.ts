// webapi/ingest/tsbs/batch=5000/connections=2: the TSBS cpu-only load through the web API, rows/s.
//
// Store: a real node process (logWriteMode 0, as in client/ingest) serving the web API in its own
// process (npm start's mode), or with BENCH_WEBAPI_MODE=process a real web API process
// (tools/store-webapi.ts) in front of it (perf/webapi-process.ts). Two HTTP writers, each on a
// keep-alive connection of its own (an http.Agent with one socket each), take the next batch of
// the interleaved stream (5000 rows of one host) and send it as one
// `PUT /store/v2/myCluster/dbs/public/containers/<host>/rows` with a JSON body of rows
// (`["2016-01-01T00:00:00.000Z", 12.5, ...]`), waiting for the `{"count":5000}` answer, as
// TSBS's load workers do. The JSON bodies are built before the timing, as InfluxDB's line
// protocol bodies are: each side's timing is HTTP and its server. The web API parses the body,
// converts every value, and writes the rows through its client store (one multiPut per batch),
// acknowledged after the node's fdatasync. Containers (one per host, fresh each run) are created
// through the web API, untimed.
//
// Peer: InfluxDB 1.x exactly as in client/ingest (perf/influx-peer.ts): the same rows as line
// protocol, 5000 lines a POST /write, two concurrent writers on keep-alive connections. Without
// influxd on PATH the store side runs alone (peerValue null).
//
// One warm-up run each, then store and InfluxDB runs alternate; each run's rows are counted
// afterwards (every row is there) and its containers or database dropped. Reported: medians.
// The target is 1× InfluxDB.

import { Agent, request } from 'node:http';
import { assert } from '../../lib/base/assert.ts';
import { getStore } from '../../lib/client/store-factory.ts';
import { settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import type { WorkloadReport } from '../bench-result.ts';
import { clientBenchConfig } from '../client-bench-config.ts';
import { loadBatchesByWriter } from '../concurrent-callers.ts';
import { influxComparedIngest } from '../influx-load.ts';
import type { NodeProcess } from '../node-process.ts';
import { timeAsyncMs } from '../stats.ts';
import { checkAndDropHostContainers } from '../tsbs-containers.ts';
import { TSBS_CPU_FIELDS, type TsbsBatch, type TsbsDataset } from '../tsbs.ts';
import {
  webApiMode, webApiModeText, withNodeWebApi, type WebApiEndpoint,
} from '../webapi-process.ts';

/** The target (13): at least 2.5× InfluxDB's rows/s. */
const INFLUX_RATIO_MIN = 2.5;
const HTTP_TIMEOUT_MS = 120_000;

export async function webApiIngestWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  const { clientIngestRepeatCount: repeatCount, clientIngestConnectionCount: connectionCount } =
    clientBenchConfig(config);
  const bodies = new Map(dataset.batches.map((batch) =>
    [batch, Buffer.from(webApiBatchBody(batch), 'utf8')]));
  const mode = webApiMode();
  return influxComparedIngest({
    name: `webapi/ingest/tsbs/batch=${dataset.config.batchRowCountMax}/` +
      `connections=${connectionCount}`,
    homeLabel: 'webapi-ingest', dataset, repeatCount, connectionCount,
    ratioMin: INFLUX_RATIO_MIN, databasePrefix: 'webapi_run',
    storeMethod: `${webApiModeText(mode)} (BENCH_WEBAPI_MODE=${mode}, logWriteMode 0), ` +
      `${connectionCount} HTTP writers on keep-alive connections of their own, ` +
      'PUT .../containers/<host>/rows with a JSON body per batch, bodies built before timing',
    withStore: (root, use) => withNodeWebApi(root, { mode, dataStore: { logWriteMode: 0 } },
      (node, webApi) =>
        use((run) => storeRun(node, webApi, dataset, { run, connectionCount, bodies }))),
  });
}

/** A batch as the web API takes it: `[["<ISO time>", usage_user, ...], ...]`. */
export function webApiBatchBody(batch: TsbsBatch): string {
  const rows = batch.rows.map((row) => {
    const values = row.slice(1).map((value) => String(value));
    return `["${new Date(row[0] as number).toISOString()}",${values.join(',')}]`;
  });
  return `[${rows.join(',')}]`;
}

/** The body of POST /containers for a TSBS host container. */
export function webApiContainerBody(containerName: string): object {
  return {
    container_name: containerName, container_type: 'TIME_SERIES', rowkey: true,
    columns: [{ name: 'ts', type: 'TIMESTAMP' },
      ...TSBS_CPU_FIELDS.map((field) => ({ name: field, type: 'DOUBLE' }))],
  };
}

export interface HttpAnswer {
  status: number;
  text: string;
}

/** One request on `target.agent` (keep-alive), JSON body, as the admin; the whole answer. */
export function httpCall(
  target: { port: number; agent: Agent },
  call: { method: string; path: string; body: Buffer },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({
      host: '127.0.0.1', port: target.port, method: call.method, path: call.path,
      agent: target.agent, timeout: HTTP_TIMEOUT_MS,
      headers: { 'content-type': 'application/json; charset=UTF-8',
        'content-length': call.body.length, authorization: 'Basic YWRtaW46YWRtaW4=' },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0,
        text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${call.path}: timed out`)));
    outgoing.on('error', reject);
    outgoing.end(call.body);
  });
}

/** One timed load through the web API into fresh containers; returns milliseconds. */
async function storeRun(
  node: NodeProcess,
  webApi: WebApiEndpoint,
  dataset: TsbsDataset,
  settings: { run: number; connectionCount: number; bodies: ReadonlyMap<TsbsBatch, Buffer> },
): Promise<number> {
  const names = dataset.hosts.map((host) => `run${settings.run}_${host.containerName}`);
  const agents = Array.from({ length: settings.connectionCount },
    () => new Agent({ keepAlive: true, maxSockets: 1 }));
  const admin = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
  try {
    for (const containerName of names) {
      const answer = await httpCall({ port: webApi.port, agent: agents[0]! }, {
        method: 'POST', path: `${webApi.basePath}/containers`,
        body: Buffer.from(JSON.stringify(webApiContainerBody(containerName))) });
      assert(answer.status === 201, `create ${containerName}: ${answer.status} ${answer.text}`);
    }
    settleHeap();
    const ms = await timeAsyncMs(() => loadBatchesByWriter(dataset.batches,
      settings.connectionCount, async (w, batch) => {
        const answer = await httpCall({ port: webApi.port, agent: agents[w]! }, {
          method: 'PUT', path: `${webApi.basePath}/containers/${names[batch.hostIndex]!}/rows`,
          body: settings.bodies.get(batch)! });
        assert(answer.status === 200, `PUT rows: ${answer.status} ${answer.text.slice(0, 500)}`);
      }));
    await checkAndDropHostContainers(admin, names, dataset);
    return ms;
  } finally {
    for (const agent of agents) agent.destroy();
    await admin.close();
  }
}
