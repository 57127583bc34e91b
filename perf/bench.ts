// `npm run bench`: the named workloads of perf/workloads/ on TSBS cpu-only rows, each against the
// store and against LevelDB in the same process, on fresh temporary homes. The client/ workloads
// start a node process (and influxd, the client ingest's peer, when it is installed), the webapi/
// ones a web API process in front of it too (and influxd, their peer); the engine/thread ones compare a Store in a worker
// thread with one in the calling thread.
//
//   npm run bench                      every workload but the opt-in ones, full size
//   BENCH_QUICK=1 npm run bench        a smoke run on a tenth of the hosts, fewer repetitions
//   npm run bench -- scan/in-memory    only workloads whose name starts with an argument
//   npm run bench -- soak              the soak (opt-in: 2 × 10 minutes; see workloads/soak.ts)
//   BENCH_SOAK_PHASE_S=20 npm run bench -- soak   the soak with phases of 20 s
//
// An opt-in workload runs only when an argument names at least its family (the first segment of
// its name: `soak`, `soak/mixed`), so that `npm run bench` and a short prefix such as `s` never
// start a run of 20 minutes by surprise.
//
// Prints a table of medians and writes perf/results/latest.json (see bench-result.ts for the ratio
// convention) and perf/results/latest-meta.json (machine, sizes, methods, every sample). Both are
// merged by workload name: a run of some workloads replaces their entries and keeps the others'.
// The script runs node with --expose-gc so that each timed run starts on a collected heap.
// Benchmarks are never tests: nothing here asserts on a time.

import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { invariants } from '../lib/base/invariants.ts';
import {
  SOAK_PHASE_MS_MAX, SOAK_PHASE_MS_MIN, benchConfig, type BenchConfig,
} from './bench-config.ts';
import { mergeByName, readJson, writeJson } from './bench-files.ts';
import { benchMeta, heapSettles, loadAverage1m } from './bench-meta.ts';
import { serverForm } from './server-form.ts';
import {
  resultTable, type BenchDetail, type BenchResult, type WorkloadReport,
} from './bench-result.ts';
import { checkpointWorkload } from './workloads/checkpoint.ts';
import { checkpointCommitLatencyWorkload } from './workloads/checkpoint-commit-latency.ts';
import { clientIngestWorkload } from './workloads/client-ingest.ts';
import { clientPutWorkload } from './workloads/client-put.ts';
import { griddbIngestWorkload, griddbPutWorkload } from './workloads/griddb-client.ts';
import { expimpWorkload } from './workloads/expimp.ts';
import { expiryWorkload } from './workloads/expiry.ts';
import { engineThreadIngestWorkload, engineThreadPutWorkload } from './workloads/engine-thread.ts';
import { nodeThreadIngestWorkload, nodeThreadPutWorkload } from './workloads/node-thread.ts';
import { indexQueryWorkload } from './workloads/index-query.ts';
import { ingestWorkload } from './workloads/ingest.ts';
import { pgwireWorkload } from './workloads/pgwire.ts';
import { recoveryWorkload } from './workloads/recovery.ts';
import { scanColumnarWorkload, scanRowsWorkload } from './workloads/scan-in-memory.ts';
import { scanRangeWorkload } from './workloads/scan-range.ts';
import { swapWorkload } from './workloads/swap.ts';
import { soakWorkload } from './workloads/soak.ts';
import { spatialWorkload } from './workloads/spatial.ts';
import { sqlJoinWorkload } from './workloads/sql-join.ts';
import { sqlTsbsWorkload } from './workloads/sql-tsbs.ts';
import { sqlWindowWorkload } from './workloads/sql-window.ts';
import { tqlTimeSeriesWorkload } from './workloads/tql-timeseries.ts';
import { webApiIngestWorkload } from './workloads/webapi-ingest.ts';
import { webApiQueryWorkload } from './workloads/webapi-query.ts';

const RESULTS_DIRECTORY = fileURLToPath(new URL('./results/', import.meta.url));

interface Workload {
  name: string;
  run(config: BenchConfig): Promise<WorkloadReport>;
  /** Runs only when an argument names its family or more (see the top of this file). */
  optIn?: true;
}

const WORKLOADS: readonly Workload[] = [
  { name: 'ingest/logWriteMode=1/batch=5000', run: (config) => ingestWorkload(config, 1) },
  { name: 'ingest/logWriteMode=0/batch=5000', run: (config) => ingestWorkload(config, 0) },
  { name: 'scan/in-memory/rows', run: scanRowsWorkload },
  { name: 'scan/in-memory/columnar', run: scanColumnarWorkload },
  { name: 'scan/range/1h', run: scanRangeWorkload },
  { name: 'index/query', run: indexQueryWorkload },
  { name: 'spatial/window', run: spatialWorkload },
  { name: 'tql/time-series', run: tqlTimeSeriesWorkload },
  {
    name: 'checkpoint/NO_COMPRESSION',
    run: (config) => checkpointWorkload(config, 'NO_COMPRESSION'),
  },
  { name: 'checkpoint/COMPRESSION', run: (config) => checkpointWorkload(config, 'COMPRESSION') },
  { name: 'checkpoint/commit-latency/logWriteMode=0', run: checkpointCommitLatencyWorkload },
  { name: 'recovery/xlog-replay', run: recoveryWorkload },
  { name: 'swap/memory=data/4', run: swapWorkload },
  { name: 'client/ingest/tsbs/batch=5000/connections=2', run: clientIngestWorkload },
  { name: 'client/put/durable/clients=1', run: (config) => clientPutWorkload(config, 1) },
  { name: 'client/put/durable/clients=8', run: (config) => clientPutWorkload(config, 8) },
  { name: 'client/put/durable/clients=64', run: (config) => clientPutWorkload(config, 64) },
  { name: 'griddb/ingest/tsbs/batch=5000/connections=2', run: griddbIngestWorkload },
  { name: 'griddb/put/durable/clients=1', run: (config) => griddbPutWorkload(config, 1) },
  { name: 'griddb/put/durable/clients=8', run: (config) => griddbPutWorkload(config, 8) },
  { name: 'node/thread/ingest/tsbs/batch=5000/connections=2', run: nodeThreadIngestWorkload },
  { name: 'node/thread/put/durable/clients=1', run: (config) => nodeThreadPutWorkload(config, 1) },
  { name: 'node/thread/put/durable/clients=64', run: (config) => nodeThreadPutWorkload(config, 64) },
  { name: 'webapi/ingest/tsbs/batch=5000/connections=2', run: webApiIngestWorkload },
  { name: 'webapi/query', run: webApiQueryWorkload },
  { name: 'expimp/tsbs-day', run: expimpWorkload },
  { name: 'sql/tsbs', run: sqlTsbsWorkload },
  { name: 'sql/window/moving-avg-10min', run: sqlWindowWorkload },
  { name: 'sql/join/device-readings', run: sqlJoinWorkload },
  { name: 'pgwire', run: pgwireWorkload },
  { name: 'expiry/interval=1h/expire=2h', run: expiryWorkload },
  { name: 'engine/thread/ingest/logWriteMode=1/batch=5000', run: engineThreadIngestWorkload },
  {
    name: 'engine/thread/put/durable/sessions=1',
    run: (config) => engineThreadPutWorkload(config, 1),
  },
  {
    name: 'engine/thread/put/durable/sessions=64',
    run: (config) => engineThreadPutWorkload(config, 64),
  },
  { name: 'soak/mixed/clients=64', run: soakWorkload, optIn: true },
];

async function main(): Promise<void> {
  const selected = workloadsSelected(process.argv.slice(2));
  if (invariants.enabled) console.warn('STORE_INVARIANTS=1: O(n) checks on; not the real speed');
  if (!heapSettles()) console.warn('no global gc (node --expose-gc): runs pay for earlier garbage');
  const config = benchConfig(process.env['BENCH_QUICK'] === '1',
    soakPhaseMsOf(process.env['BENCH_SOAK_PHASE_S']));
  const { dataset } = config;
  console.log(`${config.quick ? 'QUICK ' : ''}TSBS cpu-only: ${dataset.hosts.length} hosts, ` +
    `${dataset.rowCount} rows, batches of ${dataset.config.batchRowCountMax} ` +
    `(${dataset.batches.length}), ${config.ingestWorkerCount} writers; ` +
    `node ${process.version}, ${cpus().length} cpus`);
  const form = serverForm('store-node');
  console.log(`the node, web API and tools run as ${form}`);
  const loadAverage1mAtStart = loadAverage1m();
  if (loadAverage1mAtStart > cpus().length / 2) {
    console.warn(`load average ${loadAverage1mAtStart.toFixed(1)}: other processes will skew this`);
  }
  const startedMs = performance.now();
  const results: BenchResult[] = [];
  const details: BenchDetail[] = [];
  for (const workload of selected) {
    const workloadStartMs = performance.now();
    const report = await workload.run(config);
    results.push(...report.results);
    details.push(...report.details);
    console.log(`  ${workload.name}: ${secondsSince(workloadStartMs)} s`);
  }
  console.log(`\n${resultTable(results)}\n`);
  console.log('ratio: store / peer for rows/s and MB/s, peer / store for ms and µs; ' +
    'above 1 the store is ahead');
  const resultsPath = `${RESULTS_DIRECTORY}latest.json`;
  const metaPath = `${RESULTS_DIRECTORY}latest-meta.json`;
  writeJson(resultsPath, mergeByName(readJson(resultsPath), results));
  // Each workload's detail says which run it came from: the merged file holds several.
  const run = { date: new Date().toISOString(), quick: config.quick };
  const previousWorkloads = (readJson(metaPath) as { workloads?: unknown } | undefined)?.workloads;
  const workloads = mergeByName(previousWorkloads, details.map((detail) => ({ ...detail, run })));
  writeJson(metaPath, benchMeta(config,
    { workloads, durationMs: performance.now() - startedMs, loadAverage1mAtStart, form }));
  console.log('merged into perf/results/latest.json and latest-meta.json ' +
    `(${secondsSince(startedMs)} s)`);
}

function workloadsSelected(prefixes: readonly string[]): Workload[] {
  if (prefixes.length === 0) return WORKLOADS.filter((w) => w.optIn !== true);
  const selected = WORKLOADS.filter((w) => prefixes.some((prefix) => w.name.startsWith(prefix) &&
    (w.optIn !== true || prefix.startsWith(w.name.split('/')[0]!))));
  if (selected.length === 0) throw new Error(`no workload name starts with ${prefixes.join(', ')}`);
  return selected;
}

/** BENCH_SOAK_PHASE_S in ms; undefined when unset. A bad value stops the run before it starts. */
function soakPhaseMsOf(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const phaseMs = Number(text) * 1000;
  if (!Number.isInteger(phaseMs) || phaseMs < SOAK_PHASE_MS_MIN || phaseMs > SOAK_PHASE_MS_MAX) {
    throw new Error(`BENCH_SOAK_PHASE_S must be seconds from ${SOAK_PHASE_MS_MIN / 1000} to ` +
      `${SOAK_PHASE_MS_MAX / 1000}, not ${JSON.stringify(text)}`);
  }
  return phaseMs;
}

function secondsSince(startMs: number): string {
  return ((performance.now() - startMs) / 1000).toFixed(1);
}

await main();
