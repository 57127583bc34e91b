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
//       rows of one host) one gsPutMultipleRows, writer w of 2 sending batches w, w+2, …, against
//       client/ingest's clientIngestRun (ClientContainer.multiPut, two client stores of one
//       connection). Fresh containers each run, checked (every row there) and dropped, untimed.
//   griddb/put/durable/clients=<n>   n writers, each putting one row at a time into its own
//       TIME_SERIES container (gsPutRow, auto-commit) and waiting for the acknowledgement, for
//       putDurationMs, against client/put's ClientContainer.put loops; rows/s = acknowledged puts
//       / elapsed (the C writers report their own count and time; elapsed is the longest).
//
// One warm-up run each, then the runs alternate C and store client. Each run also takes the node
// process's CPU per row (process-cpu.ts), µs, under name/node-cpu: that is the protocol's cost on
// the node alone, without either client's (the C writers and this process share the two cores
// with the node, so rows/s moves with the clients' CPU as well).
// Without the C client's source or build tools the workload reports nothing and says why.

import { join } from 'node:path';
import { assert } from '../../lib/base/assert.ts';
import { getStore } from '../../lib/client/store-factory.ts';
import { settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import { latencyResult, throughputResult, type WorkloadReport } from '../bench-result.ts';
import { clientBenchConfig } from '../client-bench-config.ts';
import { PutRows, putLoops } from '../concurrent-callers.ts';
import { griddbBenchProgram, runWritersTogether, writeRowsFile } from '../griddb-c-writers.ts';
import { withNodeProcess, type NodeProcess } from '../node-process.ts';
import { processCpuMs } from '../process-cpu.ts';
import { median } from '../stats.ts';
import { checkAndDropHostContainers } from '../tsbs-containers.ts';
import { tsbsContainerDefinition } from '../tsbs.ts';
import { clientIngestRun } from './client-ingest.ts';
import { connectClients } from './client-put.ts';

/** The target: GridDB's protocol at most 1.2× store's own cost per row. */
const RATIO_MIN = 1 / 1.2;
const CLUSTER = 'myCluster';

interface Samples {
  rowsPerS: { c: number[]; store: number[] };
  nodeCpuUsPerRow: { c: number[]; store: number[] };
}

/** Times `run` (which returns rows done) and the node's CPU over it. */
async function measured(node: NodeProcess, run: () => Promise<{ rows: number; ms: number }>) {
  settleHeap();
  const cpuStartMs = processCpuMs(node.pid);
  const { rows, ms } = await run();
  const cpuEndMs = processCpuMs(node.pid);
  const cpuUsPerRow = cpuStartMs === undefined || cpuEndMs === undefined
    ? undefined : ((cpuEndMs - cpuStartMs) * 1000) / rows;
  return { rowsPerS: rows / (ms / 1000), cpuUsPerRow };
}

function record(samples: Samples, side: 'c' | 'store',
  figures: { rowsPerS: number; cpuUsPerRow: number | undefined }): void {
  samples.rowsPerS[side].push(figures.rowsPerS);
  if (figures.cpuUsPerRow !== undefined) samples.nodeCpuUsPerRow[side].push(figures.cpuUsPerRow);
}

function report(name: string, method: string, samples: Samples): WorkloadReport {
  const { rowsPerS, nodeCpuUsPerRow } = samples;
  const results = [throughputResult(name, median(rowsPerS.c), median(rowsPerS.store),
    { peer: 'store-client', target: { of: 'ratio', min: RATIO_MIN } })];
  const details = [{ name, method, storeSamples: rowsPerS.c, peerSamples: rowsPerS.store }];
  if (nodeCpuUsPerRow.c.length > 0 && nodeCpuUsPerRow.store.length > 0) {
    results.push(latencyResult(`${name}/node-cpu`, median(nodeCpuUsPerRow.c),
      median(nodeCpuUsPerRow.store), { peer: 'store-client', unit: 'µs' }));
    details.push({ name: `${name}/node-cpu`, method: 'the node process\'s CPU (every thread) ' +
      'per row over each run, µs', storeSamples: nodeCpuUsPerRow.c,
    peerSamples: nodeCpuUsPerRow.store });
  }
  return { results, details };
}

function emptySamples(): Samples {
  return { rowsPerS: { c: [], store: [] }, nodeCpuUsPerRow: { c: [], store: [] } };
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
        for (let run = 0; run <= repeatCount; run++) {
          const prefix = `c${run}_`;
          const names = dataset.hosts.map((host) => `${prefix}${host.containerName}`);
          for (const containerName of names) {
            await admin.putContainer(tsbsContainerDefinition(containerName));
          }
          const cRun = await measured(node, async () => {
            const { elapsedMs, done } = await runWritersTogether(program,
              Array.from({ length: connectionCount }, (_, w) => [String(node.endpoint.port),
                CLUSTER, 'ingest', rowsFile, prefix, String(w), String(connectionCount)]));
            const rows = done.reduce((sum, line) => sum + Number(line[0]), 0);
            assert(rows === dataset.rowCount, `C writers put ${rows} of ${dataset.rowCount}`);
            return { rows, ms: elapsedMs };
          });
          await checkAndDropHostContainers(admin, names, dataset);
          const storeRun = await measured(node, async () => ({ rows: dataset.rowCount,
            ms: await clientIngestRun(node, dataset, { run, connectionCount }) }));
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
    'processes of one connection, gsPutMultipleRows per batch, rows made with ' +
    'gsCreateRowByContainer in the timing; store client: client/ingest\'s run; 1 warm-up + ' +
    `${repeatCount} runs alternating, median of runs`, samples);
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
  const cHosts = Array.from({ length: clientCount },
    (_, c) => ({ containerName: `put_c_${c}`, tags: {} }));
  await withTempHome('griddb-put', async (root) => {
    await withNodeProcess(join(root, 'node'), { logWriteMode: 0 }, async (node) => {
      const clients = await connectClients(node, storeHosts);
      // The C writers' containers; the writers connect themselves each run.
      const admin = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
      try {
        for (const host of cHosts) await admin.putContainer(tsbsContainerDefinition(host.containerName));
      } finally {
        await admin.close();
      }
      try {
        const storeRows = new PutRows(config.dataset, clientCount);
        /** Each C writer's next row index, so every put appends. */
        const cNextIndexes = new Array<number>(clientCount).fill(0);
        for (let run = 0; run <= repeatCount; run++) {
          const cRun = await measured(node, async () => {
            const { done } = await runWritersTogether(program, cHosts.map((host, c) =>
              [String(node.endpoint.port), CLUSTER, 'put', host.containerName, String(durationMs),
                String(cNextIndexes[c])]));
            done.forEach((line, c) => { cNextIndexes[c]! += Number(line[0]); });
            return { rows: done.reduce((sum, line) => sum + Number(line[0]), 0),
              ms: Math.max(...done.map((line) => Number(line[1]))) };
          });
          const storeRun = await measured(node, async () => {
            const loops = await putLoops({ callerCount: clientCount, durationMs },
              (c) => clients.containers[c]!.put(storeRows.next(c)));
            return { rows: loops.latenciesMs.length, ms: loops.elapsedMs };
          });
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
