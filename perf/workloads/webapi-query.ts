// webapi/query/*: simple TSBS queries through the web API against InfluxDB's HTTP query API, the
// latency of one request from the bench process, median and p95.
//
// Both sides hold the same TSBS day: the store through a real node process serving the web API
// itself (npm start's mode; BENCH_WEBAPI_MODE=process puts a web API process in front of the
// node instead, GridDB's layout) (rows PUT through the web API, one container per host), InfluxDB through its line
// protocol (measurement `cpu`, the host a tag). Untimed. Then each query is sent over one
// keep-alive connection per side (an http.Agent with one socket), a store request and an
// InfluxDB request in turn, so both see the same machine; time is from the request's start to
// the last byte of its answer. Each answer is then checked, untimed, against the dataset: both
// sides must give the very values the rows hold.
//
//   max/1h           the max of usage_user over one host's hour
//                    store  POST /tql [{name, stmt: "SELECT MAX(usage_user) WHERE ts >= … AND ts < …"}]
//                    influx SELECT max(usage_user) FROM cpu WHERE hostname='host_7' AND time …
//   range/12h        every column of one host over 12 hours (4,320 rows)
//                    store  POST /tql SELECT * WHERE ts >= … AND ts < …
//                    influx SELECT usage_user, …, usage_guest_nice FROM cpu WHERE hostname=… AND time …
//   lastpoint        the newest row of each host
//                    store  POST /tql, one statement a host: SELECT * ORDER BY ts DESC LIMIT 1
//                    influx SELECT last(*) FROM cpu GROUP BY hostname
//   count            every row
//                    store  POST /tql, one statement a host: SELECT COUNT(*)
//                    influx SELECT count(usage_user) FROM cpu
//
// The store's web API runs with maxQueryNum=100 so that the per-host queries fit one request.
// Without influxd on PATH the store runs alone and the peer is null.

import { Agent } from 'node:http';
import { join } from 'node:path';
import { assert } from '../../lib/base/assert.ts';
import { settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import { latencyResult, type BenchResult, type WorkloadReport } from '../bench-result.ts';
import { loadBatchesByWriter } from '../concurrent-callers.ts';
import { INFLUX_MEASUREMENT, influxBatchBody, influxLinePrefix } from '../influx-line-protocol.ts';
import { InfluxPeer, influxdPath } from '../influx-peer.ts';
import { median, percentile } from '../stats.ts';
import { TSBS_CPU_FIELDS, type TsbsDataset } from '../tsbs.ts';
import {
  webApiMode, webApiModeText, withNodeWebApi, type WebApiEndpoint,
} from '../webapi-process.ts';
import { httpCall, webApiBatchBody, webApiContainerBody } from './webapi-ingest.ts';

const HOUR_MS = 3_600_000;
const INFLUX_DATABASE = 'tsbs';
/** The targets for the two single-host queries: median ≤ 0.5× InfluxDB's, p95 ≤ 1×. */
const MEDIAN_RATIO_MIN = 2;
const P95_RATIO_MIN = 1;
const WARM_UP_COUNT = 5;

interface QueryCase {
  name: string;
  /** Requests per side (full run; a quick run sends a fifth). */
  sampleCount: number;
  targeted: boolean;
  /** The /tql body of request i. */
  store(i: number): unknown[];
  /** The InfluxQL statement of request i. */
  influx(i: number): string;
  checkStore(i: number, answer: unknown): void;
  checkInflux(i: number, answer: unknown): void;
}

export async function webApiQueryWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  const influxd = influxdPath();
  if (influxd === undefined) {
    console.warn('  webapi/query: influxd is not on PATH (Debian package influxdb): InfluxDB ' +
      'skipped');
  }
  const cases = queryCases(dataset);
  const report: WorkloadReport = { results: [], details: [] };
  const mode = webApiMode();
  await withTempHome('webapi-query', (root) => withNodeWebApi(root, { mode,
    dataStore: { logWriteMode: 1 }, settings: [`maxQueryNum=${Math.max(10, dataset.hosts.length)}`] },
  async (_node, webApi) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const peer = influxd === undefined ? undefined
      : await InfluxPeer.start(influxd, join(root, 'influxdb'), 1);
    try {
      await storeLoad(webApi, agent, dataset);
      if (peer !== undefined) await influxLoad(peer, dataset);
      const storeQuery = async (body: unknown[]) => {
        const answer = await httpCall({ port: webApi.port, agent }, { method: 'POST',
          path: `${webApi.basePath}/tql`, body: Buffer.from(JSON.stringify(body)) });
        assert(answer.status === 200, `/tql: ${answer.status} ${answer.text.slice(0, 500)}`);
        return answer.text;
      };
      for (const query of cases) {
        const count = config.quick ? Math.ceil(query.sampleCount / 5) : query.sampleCount;
        const one = await timeCase(query, count, storeQuery,
          peer === undefined ? undefined : (q) => peer.queryText(INFLUX_DATABASE, q));
        report.results.push(...one.results);
        report.details.push({
          name: query.name, storeSamples: one.storeSamples, peerSamples: one.peerSamples,
          method: `${dataset.rowCount} TSBS rows, ${dataset.hosts.length} hosts; ${count} ` +
            `requests a side after ${WARM_UP_COUNT} warm-up, store and InfluxDB in turn, one ` +
            'keep-alive connection each, request start to last byte; every answer checked ' +
            `against the dataset; store: ${webApiModeText(mode)} (BENCH_WEBAPI_MODE=${mode}), ` +
            `POST /tql; InfluxDB: ${influxd ?? 'skipped'} GET /query epoch=ms`,
        });
      }
    } finally {
      agent.destroy();
      await peer?.stop();
    }
  }));
  return report;
}

async function timeCase(
  query: QueryCase,
  count: number,
  storeQuery: (body: unknown[]) => Promise<string>,
  influxQuery: ((statement: string) => Promise<string>) | undefined,
): Promise<{ results: BenchResult[]; storeSamples: number[]; peerSamples: number[] }> {
  for (let i = 0; i < WARM_UP_COUNT; i++) {
    query.checkStore(i, JSON.parse(await storeQuery(query.store(i))));
    if (influxQuery !== undefined) query.checkInflux(i, JSON.parse(await influxQuery(query.influx(i))));
  }
  settleHeap();
  const storeSamples: number[] = [];
  const peerSamples: number[] = [];
  for (let i = 0; i < count; i++) {
    const body = query.store(i);
    let startMs = performance.now();
    const storeText = await storeQuery(body);
    storeSamples.push(performance.now() - startMs);
    query.checkStore(i, JSON.parse(storeText));
    if (influxQuery === undefined) continue;
    const statement = query.influx(i);
    startMs = performance.now();
    const influxText = await influxQuery(statement);
    peerSamples.push(performance.now() - startMs);
    query.checkInflux(i, JSON.parse(influxText));
  }
  const peerOf = (p: number) => (peerSamples.length === 0 ? null : percentile(peerSamples, p));
  const options = (min: number) => ({ peer: 'influxdb' as const,
    ...(query.targeted ? { target: { of: 'ratio' as const, min } } : {}) });
  return {
    storeSamples, peerSamples,
    results: [
      latencyResult(query.name, median(storeSamples), peerOf(50), options(MEDIAN_RATIO_MIN)),
      latencyResult(`${query.name}/p95`, percentile(storeSamples, 95), peerOf(95),
        options(P95_RATIO_MIN)),
    ],
  };
}

/** The dataset through the web API: a container per host, then every batch as a row PUT. */
async function storeLoad(webApi: WebApiEndpoint, agent: Agent, dataset: TsbsDataset):
  Promise<void> {
  const target = { port: webApi.port, agent };
  for (const host of dataset.hosts) {
    const answer = await httpCall(target, { method: 'POST', path: `${webApi.basePath}/containers`,
      body: Buffer.from(JSON.stringify(webApiContainerBody(host.containerName))) });
    assert(answer.status === 201, `create ${host.containerName}: ${answer.status} ${answer.text}`);
  }
  await loadBatchesByWriter(dataset.batches, 1, async (_, batch) => {
    const answer = await httpCall(target, { method: 'PUT',
      path: `${webApi.basePath}/containers/${dataset.hosts[batch.hostIndex]!.containerName}/rows`,
      body: Buffer.from(webApiBatchBody(batch)) });
    assert(answer.status === 200, `PUT rows: ${answer.status} ${answer.text.slice(0, 500)}`);
  });
}

async function influxLoad(peer: InfluxPeer, dataset: TsbsDataset): Promise<void> {
  await peer.createDatabase(INFLUX_DATABASE);
  const prefixes = dataset.hosts.map(influxLinePrefix);
  await loadBatchesByWriter(dataset.batches, 1, (_, batch) => peer.write(INFLUX_DATABASE,
    Buffer.from(influxBatchBody(batch, prefixes[batch.hostIndex]!))));
  assert(await peer.pointCount(INFLUX_DATABASE, INFLUX_MEASUREMENT) === dataset.rowCount);
}

function queryCases(dataset: TsbsDataset): QueryCase[] {
  const hostCount = dataset.hosts.length;
  const hostOf = (i: number) => (i * 37) % hostCount;
  const hostName = (h: number) => dataset.hosts[h]!.tags['hostname']!;
  const container = (h: number) => dataset.hosts[h]!.containerName;
  const iso = (ms: number) => new Date(ms).toISOString();
  const storeWhere = (fromMs: number, toMs: number) =>
    `ts >= TIMESTAMP('${iso(fromMs)}') AND ts < TIMESTAMP('${iso(toMs)}')`;
  const influxWhere = (h: number, fromMs: number, toMs: number) =>
    `hostname='${hostName(h)}' AND time >= '${iso(fromMs)}' AND time < '${iso(toMs)}'`;
  const hourFrom = (i: number) => dataset.fromMs + (i % 24) * HOUR_MS;
  const halfDayFrom = (i: number) => dataset.fromMs + (i % 13) * HOUR_MS;
  const rowsIn = (h: number, fromMs: number, toMs: number) =>
    dataset.rowsByHost[h]!.filter((row) => (row[0] as number) >= fromMs && (row[0] as number) < toMs);
  const fields = TSBS_CPU_FIELDS.join(', ');
  const lastRows = dataset.rowsByHost.map((rows) => rows[rows.length - 1]!);
  return [
    {
      name: 'webapi/query/max/1h', sampleCount: 500, targeted: true,
      store: (i) => [{ name: container(hostOf(i)),
        stmt: `SELECT MAX(usage_user) WHERE ${storeWhere(hourFrom(i), hourFrom(i) + HOUR_MS)}` }],
      influx: (i) => `SELECT max(usage_user) FROM cpu WHERE ` +
        influxWhere(hostOf(i), hourFrom(i), hourFrom(i) + HOUR_MS),
      checkStore: (i, answer) => checkEqual(storeTables(answer)[0]!.results[0]![0],
        maxOf(rowsIn(hostOf(i), hourFrom(i), hourFrom(i) + HOUR_MS)), 'store max'),
      checkInflux: (i, answer) => checkEqual(influxSeries(answer)[0]!.values[0]![1],
        maxOf(rowsIn(hostOf(i), hourFrom(i), hourFrom(i) + HOUR_MS)), 'InfluxDB max'),
    },
    {
      name: 'webapi/query/range/12h', sampleCount: 150, targeted: true,
      store: (i) => [{ name: container(hostOf(i)),
        stmt: `SELECT * WHERE ${storeWhere(halfDayFrom(i), halfDayFrom(i) + 12 * HOUR_MS)}` }],
      influx: (i) => `SELECT ${fields} FROM cpu WHERE ` +
        influxWhere(hostOf(i), halfDayFrom(i), halfDayFrom(i) + 12 * HOUR_MS),
      checkStore: (i, answer) => checkRows(storeTables(answer)[0]!.results.map(storeRow),
        rowsIn(hostOf(i), halfDayFrom(i), halfDayFrom(i) + 12 * HOUR_MS), 'store range'),
      checkInflux: (i, answer) => checkRows(influxSeries(answer)[0]!.values,
        rowsIn(hostOf(i), halfDayFrom(i), halfDayFrom(i) + 12 * HOUR_MS), 'InfluxDB range'),
    },
    {
      name: `webapi/query/lastpoint/hosts=${hostCount}`, sampleCount: 100, targeted: false,
      store: () => dataset.hosts.map((host) =>
        ({ name: host.containerName, stmt: 'SELECT * ORDER BY ts DESC LIMIT 1' })),
      influx: () => 'SELECT last(*) FROM cpu GROUP BY hostname',
      checkStore: (_, answer) => checkRows(storeTables(answer).map((t) => storeRow(t.results[0]!)),
        lastRows, 'store lastpoint'),
      checkInflux: (_, answer) => {
        const series = influxSeries(answer);
        assert(series.length === hostCount, `InfluxDB lastpoint: ${series.length} hosts`);
        for (const one of series) {
          const h = dataset.hosts.findIndex((host) => host.tags['hostname'] === one.tags?.['hostname']);
          TSBS_CPU_FIELDS.forEach((field, f) => checkEqual(
            one.values[0]![one.columns.indexOf(`last_${field}`)], lastRows[h]![f + 1], field));
        }
      },
    },
    {
      name: 'webapi/query/count', sampleCount: 100, targeted: false,
      store: () => dataset.hosts.map((host) => ({ name: host.containerName,
        stmt: 'SELECT COUNT(*)' })),
      influx: () => `SELECT count(usage_user) FROM cpu`,
      checkStore: (_, answer) => checkEqual(storeTables(answer)
        .reduce((sum, t) => sum + (t.results[0]![0] as number), 0), dataset.rowCount, 'count'),
      checkInflux: (_, answer) => checkEqual(influxSeries(answer)[0]!.values[0]![1],
        dataset.rowCount, 'InfluxDB count'),
    },
  ];
}

interface StoreTable {
  results: unknown[][];
}

interface InfluxSeries {
  columns: string[];
  values: unknown[][];
  tags?: Record<string, string>;
}

function storeTables(answer: unknown): StoreTable[] {
  assert(Array.isArray(answer), 'a /tql answer is an array');
  return answer as StoreTable[];
}

function influxSeries(answer: unknown): InfluxSeries[] {
  const series = (answer as { results?: Array<{ series?: InfluxSeries[] }> }).results?.[0]?.series;
  assert(series !== undefined, `InfluxDB answered no series: ${JSON.stringify(answer).slice(0, 300)}`);
  return series;
}

/** A store row with its ISO time as milliseconds, as InfluxDB's epoch=ms answers have it. */
function storeRow(row: unknown[]): unknown[] {
  return [Date.parse(row[0] as string), ...row.slice(1)];
}

function maxOf(rows: readonly (readonly unknown[])[]): number {
  return Math.max(...rows.map((row) => row[1] as number));
}

function checkEqual(actual: unknown, expected: unknown, what: string): void {
  assert(actual === expected, `${what}: ${String(actual)}, expected ${String(expected)}`);
}

function checkRows(actual: readonly unknown[][], expected: readonly (readonly unknown[])[],
  what: string): void {
  assert(actual.length === expected.length, `${what}: ${actual.length} rows of ${expected.length}`);
  for (let r = 0; r < expected.length; r++) {
    for (let c = 0; c < expected[r]!.length; c++) {
      checkEqual(actual[r]![c], expected[r]![c], `${what} row ${r} column ${c}`);
    }
  }
}
