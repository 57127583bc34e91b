// griddb/…: what GridDB's protocol costs against store's own, per row, through real clients in
// the same run on the same node process (perf/node-process.ts, logWriteMode 0: every write is
// acknowledged after the fdatasync of its xlog record, as in client/ingest and client/put).
//
// value: GridDB's own C client 5.8 (perf/griddb-c-bench.c, one process per connection, each a
// GSGridStore of its own, started together after connecting: griddb-c-writers.ts); peer
// (`store-client`): store's TypeScript client doing the same. ratio = C rows/s / store client
// rows/s; the target is that GridDB's protocol costs at most 1.2× store's own per row,
// so ratio >= 1 / 1.2.
//
//   griddb/ingest/tsbs/batch=5000/connections=2   the TSBS day of client/ingest: each batch (5000
//       rows of one host) one gsPutMultipleRows of CpuRow structs (GridDB's static binding),
//       writer w of 2 sending batches w, w+2, …, against
//       client/ingest's load (ClientContainer.multiPut, two client stores of one connection,
//       taking the next batch). Fresh containers each run, checked (every row there) and dropped;
//       that, connecting and opening the containers are outside the timing on both sides.
//   griddb/put/durable/clients=<n>   n writers, each putting one row at a time into its own
//       TIME_SERIES container (gsPutRow, auto-commit) and waiting for the acknowledgement, for
//       putDurationMs, against client/put's ClientContainer.put loops; rows/s = acknowledged puts
//       / elapsed (the C writers report their own count and time; elapsed is the longest).
//
// One warm-up run each, then the runs alternate C and store client. Each run also takes, over the
// load alone, the node process's CPU per row (process-cpu.ts), µs, under name/node-cpu: the
// protocol's cost on the node, without either client's; and the clients' CPU per row under
// name/client-cpu (the C writers' own, from getrusage; this process's for store's client). The
// writers and the node share the two cores, so rows/s moves with both.
// Without the C client's source or build tools the workload reports nothing and says why.

import { join } from 'node:path';
import { assert } from '../../lib/base/assert.ts';
import {
  getStore, type ClientContainer, type ClientStore,
} from '../../lib/client/store-factory.ts';
import { settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import {
  latencyResult, throughputResult, type BenchDetail, type BenchResult, type WorkloadReport,
} from '../bench-result.ts';
import { clientBenchConfig } from '../client-bench-config.ts';
import { PutRows, loadBatchesByWriter, putLoops } from '../concurrent-callers.ts';
import { griddbBenchProgram, runWritersTogether, writeRowsFile } from '../griddb-c-writers.ts';
import { withNodeProcess, type NodeProcess } from '../node-process.ts';
import { ownCpuMs, processCpuMs } from '../process-cpu.ts';
import { median, timeAsyncMs } from '../stats.ts';
import { checkAndDropHostContainers } from '../tsbs-containers.ts';
import { tsbsContainerDefinition, type TsbsDataset } from '../tsbs.ts';
import { connectClients } from './client-put.ts';

/** The target: GridDB's protocol at most 1.2× store's own cost per row. */
const RATIO_MIN = 1 / 1.2;
const CLUSTER = 'myCluster';

type Side = 'c' | 'store';
type Samples = Record<'rowsPerS' | 'nodeCpuUsPerRow' | 'clientCpuUsPerRow', Record<Side, number[]>>;

interface Figures {
  rowsPerS: number;
  nodeCpuUsPerRow: number | undefined;
  clientCpuUsPerRow: number;
}

/**
 * The node's CPU and this process's over the load alone: started() just before the first row,
 * done() just after the last acknowledgement.
 */
class CpuSpan {
  private nodeStartMs: number | undefined;
  private nodeEndMs: number | undefined;
  private ownStartMs = 0;
  private ownEndMs = 0;

  constructor(private readonly node: NodeProcess) {}

  started(): void {
    settleHeap();
    this.nodeStartMs = processCpuMs(this.node.pid);
    this.ownStartMs = ownCpuMs();
  }

  done(): void {
    this.ownEndMs = ownCpuMs();
    this.nodeEndMs = processCpuMs(this.node.pid);
  }

  /** A run of `rows` in `ms`; clientCpuMs is the C writers' (else this process's is taken). */
  figures(rows: number, ms: number, clientCpuMs?: number): Figures {
    return {
      rowsPerS: rows / (ms / 1000),
      nodeCpuUsPerRow: this.nodeStartMs === undefined || this.nodeEndMs === undefined
        ? undefined : ((this.nodeEndMs - this.nodeStartMs) * 1000) / rows,
      clientCpuUsPerRow: ((clientCpuMs ?? this.ownEndMs - this.ownStartMs) * 1000) / rows,
    };
  }
}

function emptySamples(): Samples {
  return { rowsPerS: { c: [], store: [] }, nodeCpuUsPerRow: { c: [], store: [] },
    clientCpuUsPerRow: { c: [], store: [] } };
}

function record(samples: Samples, side: Side, figures: Figures): void {
  samples.rowsPerS[side].push(figures.rowsPerS);
  samples.clientCpuUsPerRow[side].push(figures.clientCpuUsPerRow);
  if (figures.nodeCpuUsPerRow !== undefined) {
    samples.nodeCpuUsPerRow[side].push(figures.nodeCpuUsPerRow);
  }
}

function report(name: string, method: string, samples: Samples): WorkloadReport {
  const { rowsPerS, nodeCpuUsPerRow, clientCpuUsPerRow } = samples;
  const results: BenchResult[] = [throughputResult(name, median(rowsPerS.c),
    median(rowsPerS.store), { peer: 'store-client', target: { of: 'ratio', min: RATIO_MIN } })];
  const details: BenchDetail[] = [
    { name, method, storeSamples: rowsPerS.c, peerSamples: rowsPerS.store }];
  const cpu = (suffix: string, figures: Record<Side, number[]>, what: string) => {
    if (figures.c.length === 0 || figures.store.length === 0) return;
    results.push(latencyResult(`${name}/${suffix}`, median(figures.c), median(figures.store),
      { peer: 'store-client', unit: 'µs' }));
    details.push({ name: `${name}/${suffix}`, method: `${what} per row over the load, µs`,
      storeSamples: figures.c, peerSamples: figures.store });
  };
  cpu('node-cpu', nodeCpuUsPerRow, 'the node process\'s CPU (every thread)');
  cpu('client-cpu', clientCpuUsPerRow,
    'the clients\' CPU: the C writer processes\' own (getrusage), this process\'s for store\'s');
  return { results, details };
}

export async function griddbIngestWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  const { clientIngestRepeatCount: repeatCount, clientIngestConnectionCount: connectionCount } =
    clientBenchConfig(config);
  const name = `griddb/ingest/tsbs/batch=${dataset.config.batchRowCountMax}/` +
    `connections=${connectionCount}`;
  const program = await griddbBenchProgram();
  if (typeof program !== 'string') {
    console.warn(`${name}: skipped: ${program.skip}`);
    return { results: [], details: [] };
  }
  const samples = emptySamples();
  await withTempHome('griddb-ingest', async (root) => {
    const rowsFile = join(root, 'tsbs-rows.bin');
    writeRowsFile(rowsFile, dataset.batches);
    await withNodeProcess(join(root, 'node'), { logWriteMode: 0 }, async (node) => {
      const admin = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
      try {
        // Run 0 is the warm-up, not recorded.
        for (let run = 0; run <= repeatCount; run++) {
          const cRun = await cIngestRun(node, admin, dataset,
            { program, rowsFile, run, connectionCount });
          const storeRun = await storeIngestRun(node, admin, dataset, { run, connectionCount });
          if (run === 0) continue;
          record(samples, 'c', cRun);
          record(samples, 'store', storeRun);
        }
      } finally {
        await admin.close();
      }
    });
  });
  return report(name, `node process, logWriteMode 0; GridDB C client 5.8: ${connectionCount} ` +
    'processes of one connection, gsPutMultipleRows per batch of CpuRow structs bound by ' +
    'GS_STRUCT_BINDING, filled from the rows file in the timing; store client: ' +
    'ClientContainer.multiPut per batch, ' +
    `${connectionCount} client stores of one connection; 1 warm-up + ${repeatCount} runs ` +
    'alternating, median of runs', samples);
}

/** One load by the C writers into fresh containers c<run>_cpu_host_<h>. */
async function cIngestRun(node: NodeProcess, admin: ClientStore, dataset: TsbsDataset,
  settings: { program: string; rowsFile: string; run: number; connectionCount: number }):
  Promise<Figures> {
  const { program, rowsFile, run, connectionCount } = settings;
  const prefix = `c${run}_`;
  const names = dataset.hosts.map((host) => `${prefix}${host.containerName}`);
  for (const containerName of names) {
    await admin.putContainer(tsbsContainerDefinition(containerName));
  }
  const span = new CpuSpan(node);
  const { elapsedMs, done } = await runWritersTogether(program,
    Array.from({ length: connectionCount }, (_, w) => [String(node.endpoint.port), CLUSTER,
      'ingest', rowsFile, prefix, String(w), String(connectionCount)]), span);
  const rows = done.reduce((sum, line) => sum + Number(line[0]), 0);
  assert(rows === dataset.rowCount, `C writers put ${rows} of ${dataset.rowCount}`);
  await checkAndDropHostContainers(admin, names, dataset);
  return span.figures(rows, elapsedMs, done.reduce((sum, line) => sum + Number(line[1]), 0));
}

/** client/ingest's load through store's client into fresh containers s<run>_cpu_host_<h>. */
async function storeIngestRun(node: NodeProcess, admin: ClientStore, dataset: TsbsDataset,
  settings: { run: number; connectionCount: number }): Promise<Figures> {
  const names = dataset.hosts.map((host) => `s${settings.run}_${host.containerName}`);
  for (const containerName of names) {
    await admin.putContainer(tsbsContainerDefinition(containerName));
  }
  const writers: ClientStore[] = [];
  try {
    const containers: ClientContainer[][] = [];
    for (let w = 0; w < settings.connectionCount; w++) {
      const writer = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
      writers.push(writer);
      containers.push(await Promise.all(names.map(async (containerName) => {
        const container = await writer.getContainer(containerName);
        assert(container !== undefined);
        return container;
      })));
    }
    const span = new CpuSpan(node);
    span.started();
    const ms = await timeAsyncMs(() => loadBatchesByWriter(dataset.batches,
      settings.connectionCount,
      (w, batch) => containers[w]![batch.hostIndex]!.multiPut(batch.rows)));
    span.done();
    await checkAndDropHostContainers(admin, names, dataset);
    return span.figures(dataset.rowCount, ms);
  } finally {
    for (const writer of writers) await writer.close();
  }
}

export async function griddbPutWorkload(
  config: BenchConfig,
  clientCount: number,
): Promise<WorkloadReport> {
  assert(clientCount > 0);
  const { putRepeatCount: repeatCount, putDurationMs: durationMs } = clientBenchConfig(config);
  const name = `griddb/put/durable/clients=${clientCount}`;
  const program = await griddbBenchProgram();
  if (typeof program !== 'string') {
    console.warn(`${name}: skipped: ${program.skip}`);
    return { results: [], details: [] };
  }
  const samples = emptySamples();
  const storeHosts = Array.from({ length: clientCount },
    (_, c) => ({ containerName: `put_store_${c}`, tags: {} }));
  const cNames = Array.from({ length: clientCount }, (_, c) => `put_c_${c}`);
  await withTempHome('griddb-put', async (root) => {
    await withNodeProcess(join(root, 'node'), { logWriteMode: 0 }, async (node) => {
      // The C writers' containers; the writers connect themselves each run.
      const admin = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
      try {
        for (const cName of cNames) await admin.putContainer(tsbsContainerDefinition(cName));
      } finally {
        await admin.close();
      }
      const clients = await connectClients(node, storeHosts);
      try {
        const storeRows = new PutRows(config.dataset, clientCount);
        /** Each C writer's next row index, so that every put appends. */
        const cNextIndexes = new Array<number>(clientCount).fill(0);
        for (let run = 0; run <= repeatCount; run++) {
          const cSpan = new CpuSpan(node);
          const { done } = await runWritersTogether(program, cNames.map((cName, c) =>
            [String(node.endpoint.port), CLUSTER, 'put', cName, String(durationMs),
              String(cNextIndexes[c])]), cSpan);
          done.forEach((line, c) => { cNextIndexes[c]! += Number(line[0]); });
          const cRun = cSpan.figures(done.reduce((sum, line) => sum + Number(line[0]), 0),
            Math.max(...done.map((line) => Number(line[1]))),
            done.reduce((sum, line) => sum + Number(line[2]), 0));
          const storeSpan = new CpuSpan(node);
          storeSpan.started();
          const loops = await putLoops({ callerCount: clientCount, durationMs },
            (c) => clients.containers[c]!.put(storeRows.next(c)));
          storeSpan.done();
          const storeRun = storeSpan.figures(loops.latenciesMs.length, loops.elapsedMs);
          if (run === 0) continue;
          record(samples, 'c', cRun);
          record(samples, 'store', storeRun);
        }
      } finally {
        for (const client of clients.stores) await client.close();
      }
    });
  });
  return report(name, `node process, logWriteMode 0; ${clientCount} writers, each its own ` +
    'connection and container, one row a put, waiting for each acknowledgement, for ' +
    `${durationMs} ms; GridDB C client 5.8: a process each, gsPutRow; store client: ` +
    `ClientContainer.put; 1 warm-up + ${repeatCount} runs alternating, median of runs`, samples);
}
