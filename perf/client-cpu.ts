// The client library's CPU per request, against a real node process: the CPU this process spends
// (user + system, process.cpuUsage) per acknowledged put or per 5000-row multiPut, and the rows/s
// it reaches. Both share the machine's cores with the node, so every microsecond the client saves
// is one the node gets.
//
//   node --import tsx perf/client-cpu.ts put [options]      64 clients, one row per put
//   node --import tsx perf/client-cpu.ts ingest [options]   2 writers, TSBS batches of 5000 rows
//
// Options: --runs <n> (after one warm-up), --duration-ms <ms> (put), --hosts <n> (ingest), and
// --client <directory> (repeatable): a checkout whose lib/client/store-factory.ts is loaded as the
// client library, so that two builds run against the same node, their runs alternating (the
// machine is shared and noisy; alternating spreads its noise over both). Without --client, this
// checkout's library runs alone. Prints the median over runs of each build. Run it under
// `node --cpu-prof` to see where the client's CPU goes.

import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { assert } from '../lib/base/assert.ts';
import { getStore } from '../lib/client/store-factory.ts';
import { BENCH_SEED } from './bench-config.ts';
import { withTempHome } from './bench-files.ts';
import { PutRows, loadBatchesByWriter, putLoops } from './concurrent-callers.ts';
import { withNodeProcess, type NodeProcess } from './node-process.ts';
import { median } from './stats.ts';
import { tsbsContainerDefinition, tsbsDataset, type TsbsDataset } from './tsbs.ts';

type ClientLibrary = typeof import('../lib/client/store-factory.ts');

interface Build {
  label: string;
  library: ClientLibrary;
  usPerRequest: number[];
  /** The part of usPerRequest spent in the kernel: socket writes and reads, mostly. */
  systemUsPerRequest: number[];
  rowsPerS: number[];
}

interface CpuSpent {
  totalUs: number;
  systemUs: number;
}

const PUT_CLIENT_COUNT = 64;
const INGEST_WRITER_COUNT = 2;
const DAY_MS = 86_400_000;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    'runs': { type: 'string', default: '5' },
    'duration-ms': { type: 'string', default: '3000' },
    'hosts': { type: 'string', default: '20' },
    'client': { type: 'string', multiple: true, default: [] },
  },
});
const mode = positionals[0] ?? 'put';
assert(mode === 'put' || mode === 'ingest');
const runCount = Number(values.runs);
const durationMs = Number(values['duration-ms']);
const hostCount = Number(values.hosts);

const builds: Build[] = [];
for (const directory of values.client.length > 0 ? values.client : ['.']) {
  const url = pathToFileURL(join(resolve(directory), 'lib/client/store-factory.ts')).href;
  builds.push({ label: directory, library: await import(url) as ClientLibrary,
    usPerRequest: [], systemUsPerRequest: [], rowsPerS: [] });
}

await withTempHome('client-cpu', async (root) => {
  await withNodeProcess(join(root, 'node'), { logWriteMode: 0 }, async (node) => {
    if (mode === 'put') await putRuns(node);
    else await ingestRuns(node);
  });
});

const unit = mode === 'put' ? 'put' : 'batch';
for (const build of builds) {
  const userUs = build.usPerRequest.map((us, i) => us - build.systemUsPerRequest[i]!);
  console.log(`${build.label}: client ${median(build.usPerRequest).toFixed(1)} us/${unit} ` +
    `(user ${median(userUs).toFixed(1)}, kernel ${median(build.systemUsPerRequest).toFixed(1)}), ` +
    `${Math.round(median(build.rowsPerS))} rows/s; runs: ` +
    `${build.usPerRequest.map((us) => us.toFixed(1)).join(' ')} us`);
}

/** CPU of this process since `start` (process.cpuUsage()), microseconds. */
function cpuSince(start: NodeJS.CpuUsage): CpuSpent {
  const { user, system } = process.cpuUsage(start);
  return { totalUs: user + system, systemUs: system };
}

async function putRuns(node: NodeProcess): Promise<void> {
  const names = Array.from({ length: PUT_CLIENT_COUNT }, (_, c) => `cpu_put_${c}`);
  const admin = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
  for (const name of names) await admin.putContainer(tsbsContainerDefinition(name));
  await admin.close();
  const dataset = tsbsDataset({ hostCount: 10, durationMs: DAY_MS, intervalMs: 10_000,
    batchRowCountMax: 5000, seed: BENCH_SEED });
  const rows = new PutRows(dataset, PUT_CLIENT_COUNT);
  for (let run = 0; run <= runCount; run++) {
    for (const build of builds) {
      const stores = names.map(() =>
        build.library.getStore({ ...node.storeProperties, connectionPoolSize: 1 }));
      const containers = await Promise.all(stores.map(async (store, c) => {
        const container = await store.getContainer(names[c]!);
        assert(container !== undefined);
        return container;
      }));
      const start = process.cpuUsage();
      const result = await putLoops({ callerCount: PUT_CLIENT_COUNT, durationMs },
        (c) => containers[c]!.put(rows.next(c)));
      const spent = cpuSince(start);
      for (const store of stores) await store.close();
      if (run === 0) continue;
      const putCount = result.latenciesMs.length;
      build.usPerRequest.push(spent.totalUs / putCount);
      build.systemUsPerRequest.push(spent.systemUs / putCount);
      build.rowsPerS.push(putCount / (result.elapsedMs / 1000));
    }
  }
}

async function ingestRuns(node: NodeProcess): Promise<void> {
  const dataset = tsbsDataset({ hostCount, durationMs: DAY_MS, intervalMs: 10_000,
    batchRowCountMax: 5000, seed: BENCH_SEED });
  let runIndex = 0;
  for (let run = 0; run <= runCount; run++) {
    for (const build of builds) {
      const { spent, elapsedMs } = await ingestRun(node, build.library, dataset, runIndex++);
      if (run === 0) continue;
      build.usPerRequest.push(spent.totalUs / dataset.batches.length);
      build.systemUsPerRequest.push(spent.systemUs / dataset.batches.length);
      build.rowsPerS.push(dataset.rowCount / (elapsedMs / 1000));
    }
  }
}

async function ingestRun(
  node: NodeProcess,
  library: ClientLibrary,
  dataset: TsbsDataset,
  run: number,
): Promise<{ spent: CpuSpent; elapsedMs: number }> {
  const names = dataset.hosts.map((host) => `cpu_run${run}_${host.containerName}`);
  const admin = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
  for (const name of names) await admin.putContainer(tsbsContainerDefinition(name));
  const writers = Array.from({ length: INGEST_WRITER_COUNT }, () =>
    library.getStore({ ...node.storeProperties, connectionPoolSize: 1 }));
  const containers = await Promise.all(writers.map((writer) => Promise.all(names.map(
    async (name) => (await writer.getContainer(name))!))));
  const start = process.cpuUsage();
  const startMs = performance.now();
  await loadBatchesByWriter(dataset.batches, INGEST_WRITER_COUNT,
    (w, batch) => containers[w]![batch.hostIndex]!.multiPut(batch.rows));
  const elapsedMs = performance.now() - startMs;
  const spent = cpuSince(start);
  for (const writer of writers) await writer.close();
  for (const name of names) await admin.dropContainer(name);
  await admin.close();
  return { spent, elapsedMs };
}
