// tql/time-series: TQL's time-series functions on the TSBS cpu-only day (10-s rows, 100 hosts; 10
// with BENCH_QUICK) through the network, against InfluxDB's nearest queries.
//
//   downsample  one host's day to 1-minute points, one column:
//               store  SELECT TIME_SAMPLING(usage_user, <day start>, <day end − 1 min>, 1,
//                      MINUTE)
//               Influx SELECT first(usage_user) FROM cpu WHERE hostname = 'host_h' AND
//                      time >= <day start> AND time < <day end> GROUP BY time(1m)
//               1440 points either way; reported in points/s (1440 / the median latency)
//   last-point  the last row of each of the hosts:
//               store  SELECT TIME_PREV(*, NOW()) on each host's container, all sent at once
//               Influx SELECT last(*) FROM cpu GROUP BY hostname (one query)
//               reported: the median latency of the whole answer, ms
//
// Store: a real node process (perf/node-process.ts) loaded through the TypeScript client, one
// client store; Influx: its own influxd (perf/influx-peer.ts) loaded with the same rows as line
// protocol. Loading is not timed. Each query shape runs WARM_UP_COUNT times untimed, then
// QUERY_COUNT timed runs alternating store and InfluxDB, hosts taken in turn. The issue's
// targets: downsampling at 2× InfluxDB's points/s or more, the last points at half its latency or
// less. Without influxd the store side runs alone and the peer is null.

import { join } from 'node:path';
import { assert } from '../../lib/base/assert.ts';
import { getStore, type ClientContainer } from '../../lib/client/store-factory.ts';
import { loadBatches } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import {
  latencyResult, throughputResult, type BenchResult, type WorkloadReport,
} from '../bench-result.ts';
import { influxBatchBody, influxLinePrefix } from '../influx-line-protocol.ts';
import { influxdPath, InfluxPeer } from '../influx-peer.ts';
import { withNodeProcess } from '../node-process.ts';
import { median, timeAsyncMs } from '../stats.ts';
import { tsbsContainerDefinition, type TsbsDataset } from '../tsbs.ts';

const DATABASE = 'tsbs';
const MINUTE_MS = 60_000;
const WARM_UP_COUNT = 5;
const LOAD_WORKER_COUNT = 2;
/** The targets: twice InfluxDB's points/s; half its latency (its ms / ours ≥ 2). */
const RATIO_MIN = 2;

export async function tqlTimeSeriesWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  const queryCount = config.quick ? 10 : 50;
  const influxd = influxdPath();
  if (influxd === undefined) {
    console.warn('  tql/time-series: influxd is not on PATH (Debian package influxdb): ' +
      'InfluxDB skipped');
  }
  return withTempHome('tql-time-series', (root) => withNodeProcess(join(root, 'node'),
    { logWriteMode: 1 }, async (node) => {
      const store = getStore({ ...node.storeProperties, applicationName: 'bench-tql' });
      const peer = influxd === undefined ? undefined
        : await InfluxPeer.start(influxd, join(root, 'influxdb'), 2);
      try {
        const containers = await loadStore(dataset, (definition) =>
          store.putContainer(definition));
        if (peer !== undefined) await loadInflux(peer, dataset);
        const shapes = queries(dataset, containers, peer);
        const results: BenchResult[] = [];
        const details = [];
        for (const shape of shapes) {
          const measured = await measure(shape, queryCount);
          results.push(shape.result(measured.storeMs, measured.peerMs));
          details.push({
            name: shape.name, method: shape.method + `; ${WARM_UP_COUNT} warm-up + ${queryCount} ` +
              'timed runs of each side, alternating, median latency',
            storeSamples: measured.storeSamples, peerSamples: measured.peerSamples,
          });
          console.log(`    ${shape.name}: store ${measured.storeMs.toFixed(2)} ms, InfluxDB ` +
            `${measured.peerMs?.toFixed(2) ?? '-'} ms`);
        }
        return { results, details };
      } finally {
        await peer?.stop();
        await store.close();
      }
    }));
}

async function loadStore(
  dataset: TsbsDataset,
  create: (definition: ReturnType<typeof tsbsContainerDefinition>) => Promise<ClientContainer>,
): Promise<ClientContainer[]> {
  const containers: ClientContainer[] = [];
  for (const host of dataset.hosts) {
    containers.push(await create(tsbsContainerDefinition(host.containerName)));
  }
  await loadBatches(dataset.batches, LOAD_WORKER_COUNT,
    (batch) => containers[batch.hostIndex]!.multiPut(batch.rows));
  return containers;
}

async function loadInflux(peer: InfluxPeer, dataset: TsbsDataset): Promise<void> {
  await peer.createDatabase(DATABASE);
  const prefixes = dataset.hosts.map(influxLinePrefix);
  await loadBatches(dataset.batches, LOAD_WORKER_COUNT, (batch) => peer.write(DATABASE,
    Buffer.from(influxBatchBody(batch, prefixes[batch.hostIndex]!), 'utf8')));
}

interface Shape {
  name: string;
  method: string;
  /** Runs query `index` once; resolves when its whole answer is in. */
  store(index: number): Promise<void>;
  peer: ((index: number) => Promise<void>) | undefined;
  result(storeMs: number, peerMs: number | undefined): BenchResult;
}

function queries(
  dataset: TsbsDataset,
  containers: readonly ClientContainer[],
  peer: InfluxPeer | undefined,
): Shape[] {
  const { fromMs, toMs } = dataset;
  const pointCount = (toMs - fromMs) / MINUTE_MS;
  const hostCount = dataset.hosts.length;
  const iso = (ms: number) => new Date(ms).toISOString();
  const sampling = `SELECT TIME_SAMPLING(usage_user, TIMESTAMP('${iso(fromMs)}'), ` +
    `TIMESTAMP('${iso(toMs - MINUTE_MS)}'), 1, MINUTE)`;
  const downsample: Shape = {
    name: `tql/time-sampling/1m/rows=${dataset.rowCount / hostCount}`,
    method: `store: ${sampling} on one host's container through the client (node process), ` +
      `${pointCount} points; InfluxDB: first(usage_user) GROUP BY time(1m) of one host's day`,
    store: async (index) => {
      const rows = await (await containers[index % hostCount]!.query(sampling).fetch()).toArray();
      assert(rows.length === pointCount, `${rows.length} sampled points`);
    },
    peer: peer === undefined ? undefined : async (index) => {
      const series = await peer.select(`SELECT first(usage_user) FROM cpu WHERE hostname = ` +
        `'host_${index % hostCount}' AND time >= ${fromMs}ms AND time < ${toMs}ms ` +
        'GROUP BY time(1m)', DATABASE);
      assert(series[0]?.values.length === pointCount, 'InfluxDB points');
    },
    result: (storeMs, peerMs) => throughputResult(downsample.name, pointCount / (storeMs / 1000),
      peerMs === undefined ? null : pointCount / (peerMs / 1000),
      { unit: 'rows/s', peer: 'influxdb', target: { of: 'ratio', min: RATIO_MIN } }),
  };
  const last: Shape = {
    name: `tql/time-prev/last-point/hosts=${hostCount}`,
    method: `store: SELECT TIME_PREV(*, NOW()) on each of ${hostCount} containers, sent at once ` +
      `through one client store; InfluxDB: SELECT last(*) FROM cpu GROUP BY hostname`,
    store: async () => {
      const rows = await Promise.all(containers.map(async (container) =>
        (await container.query('SELECT TIME_PREV(*, NOW())').fetch()).toArray()));
      assert(rows.every((answer) => answer.length === 1 && answer[0]![0] === toMs - 10_000));
    },
    peer: peer === undefined ? undefined : async () => {
      const series = await peer.select('SELECT last(*) FROM cpu GROUP BY hostname', DATABASE);
      assert(series.length === hostCount, `${series.length} InfluxDB series`);
    },
    result: (storeMs, peerMs) => latencyResult(last.name, storeMs, peerMs ?? Number.NaN,
      { peer: 'influxdb', target: { of: 'ratio', min: RATIO_MIN } }),
  };
  return [downsample, last];
}

async function measure(shape: Shape, queryCount: number) {
  for (let i = 0; i < WARM_UP_COUNT; i++) {
    await shape.store(i);
    await shape.peer?.(i);
  }
  const storeSamples: number[] = [];
  const peerSamples: number[] = [];
  for (let i = 0; i < queryCount; i++) {
    storeSamples.push(await timeAsyncMs(() => shape.store(i)));
    if (shape.peer !== undefined) peerSamples.push(await timeAsyncMs(() => shape.peer!(i)));
  }
  return {
    storeMs: median(storeSamples), peerMs: shape.peer === undefined ? undefined
      : median(peerSamples), storeSamples, peerSamples,
  };
}
