// node/thread/…: the engine in worker threads, one per partition group (the node's default:
// /dataStore/concurrency 4, so four workers, with the main thread routing each request to its
// group's worker), against the engine with every group in the node's main thread, through the
// whole node: client library, TCP, framing, the routing, the request runner, the Store. The
// engine/thread workloads measure the thread boundary alone (one worker); these measure it where
// it counts, with the main thread also carrying the sockets and the protocol.
//
// Two node processes on their own homes, alike but for STORE_ENGINE_THREAD (worker, the default;
// main), both started before the first run; runs alternate between them.
//
//   node/thread/ingest/tsbs/batch=5000/connections=2   the client ingest of client-ingest.ts
//       (logWriteMode 0, two client stores of one connection, multiPut per 5000-row batch)
//   node/thread/put/durable/clients=1|64               the durable puts of client-put.ts
//       (n clients of one connection, one row at a time, waiting for each acknowledgement)
//
// In latest.json value is the worker node, peer `in-thread` the main-thread node; ratio above 1:
// the workers are faster.

import { join } from 'node:path';
import { assert } from '../../lib/base/assert.ts';
import { settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import { throughputResult, type WorkloadReport } from '../bench-result.ts';
import { clientBenchConfig } from '../client-bench-config.ts';
import { PutRows, putLoops, type PutLoopsRun } from '../concurrent-callers.ts';
import { withNodeProcess, type NodeProcess } from '../node-process.ts';
import { putReport } from '../put-report.ts';
import { median } from '../stats.ts';
import type { TsbsHost } from '../tsbs.ts';
import { clientIngestRun } from './client-ingest.ts';
import { connectClients } from './client-put.ts';

/** Runs body with a worker-thread node and a main-thread node, both on fresh homes. */
async function withBothNodes<T>(
  label: string,
  body: (worker: NodeProcess, main: NodeProcess) => Promise<T>,
): Promise<T> {
  return withTempHome(label, (root) =>
    withNodeProcess(join(root, 'worker'), { logWriteMode: 0 }, (worker) =>
      withNodeProcess(join(root, 'main'), { logWriteMode: 0 }, (main) => body(worker, main),
        'main'), 'worker'));
}

export async function nodeThreadIngestWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  const { clientIngestRepeatCount: repeatCount, clientIngestConnectionCount: connectionCount } =
    clientBenchConfig(config);
  const name = `node/thread/ingest/tsbs/batch=${dataset.config.batchRowCountMax}/` +
    `connections=${connectionCount}`;
  const workerSamples: number[] = [];
  const mainSamples: number[] = [];
  await withBothNodes('node-thread-ingest', async (worker, main) => {
    // Run 0 is the warm-up, not recorded.
    for (let run = 0; run <= repeatCount; run++) {
      const workerMs = await clientIngestRun(worker, dataset, { run, connectionCount });
      const mainMs = await clientIngestRun(main, dataset, { run, connectionCount });
      if (run === 0) continue;
      workerSamples.push(dataset.rowCount / (workerMs / 1000));
      mainSamples.push(dataset.rowCount / (mainMs / 1000));
    }
  });
  assert(workerSamples.length === repeatCount);
  return {
    results: [throughputResult(name, median(workerSamples), median(mainSamples),
      { peer: 'in-thread' })],
    details: [{
      name, storeSamples: workerSamples, peerSamples: mainSamples,
      method: `${dataset.rowCount} TSBS rows in batches of ${dataset.config.batchRowCountMax} ` +
        `through ${connectionCount} client stores of one connection each (multiPut per batch) ` +
        'to a node process with its engine in a worker thread per partition group (value) and ' +
        'to one with its engine in the main thread (peer), logWriteMode 0; 1 warm-up + ' +
        `${repeatCount} runs alternating, median`,
    }],
  };
}

export async function nodeThreadPutWorkload(
  config: BenchConfig,
  clientCount: number,
): Promise<WorkloadReport> {
  const { putRepeatCount: repeatCount, putDurationMs: durationMs } = clientBenchConfig(config);
  const hosts: TsbsHost[] = Array.from({ length: clientCount },
    (_, c) => ({ containerName: `put_client_${c}`, tags: {} }));
  const workerRuns: PutLoopsRun[] = [];
  const mainRuns: PutLoopsRun[] = [];
  await withBothNodes('node-thread-put', async (worker, main) => {
    const workerClients = await connectClients(worker, hosts);
    const mainClients = await connectClients(main, hosts);
    try {
      const workerRows = new PutRows(config.dataset, clientCount);
      const mainRows = new PutRows(config.dataset, clientCount);
      const settings = { callerCount: clientCount, durationMs };
      for (let run = 0; run <= repeatCount; run++) {
        settleHeap();
        const workerRun = await putLoops(settings,
          (c) => workerClients.containers[c]!.put(workerRows.next(c)));
        settleHeap();
        const mainRun = await putLoops(settings,
          (c) => mainClients.containers[c]!.put(mainRows.next(c)));
        if (run === 0) continue;
        workerRuns.push(workerRun);
        mainRuns.push(mainRun);
      }
    } finally {
      for (const client of [...workerClients.stores, ...mainClients.stores]) await client.close();
    }
  });
  return putReport(`node/thread/put/durable/clients=${clientCount}`,
    { store: workerRuns, peer: mainRuns }, {
      peer: 'in-thread',
      method: `${clientCount} clients (a ClientStore with one connection each), each a loop of ` +
        'put of one row into its own container waiting for the acknowledgement, to a node ' +
        'process with its engine in a worker thread per partition group (value) and to one ' +
        `with its engine in the main thread (peer), logWriteMode 0; ${durationMs} ms a run, ` +
        '1 warm-up + ' +
        `${repeatCount} runs alternating, median of runs`,
    });
}
