// engine/thread/…: does a Store run faster in the calling thread or in a worker thread on this
// machine? DESIGN.md puts partition groups on worker threads "unless a benchmark shows in-thread
// is faster on this machine"; this is that benchmark.
//
// Conclusion on this 2-core machine (figures in docs/benchmarks.md): keep partition
// groups on worker threads. Wherever more than one request is in flight the worker is ahead:
// 5000-row batches 1.20× (2.55 M against 2.13 M rows/s), 64 durable sessions 1.11× (19.9 k
// against 17.9 k rows/s; runs 18.8–21.0 k against 17.8–18.5 k, and 1.12× in an earlier run),
// because decoding and applying rows run beside the thread that sends them, and the messages cost
// little next to a 5000-row batch or an fdatasync. A lone caller waiting on each put pays the hop:
// about 60 µs a round trip (p50 0.28 against 0.22 ms), 0.81× the rows/s. In the node the main
// thread also carries the network and the protocol, so the second thread should count for more
// there than here. Measured with one worker holding the whole Store (every partition group); the
// node's one worker per partition group is measured through the node (node-thread.ts).
//
// The same requests go to (a) a Store in the calling thread and (b) a Store inside a
// worker_threads Worker driven by messages (engine-thread-targets.ts): rows encoded with the row
// codec, one message per request with the bytes transferred (not copied), replies carrying the
// request id. Both sides run the same EngineHost code (decode, then put or multiPut), so what
// differs is only the thread boundary: posting, structured clone of the small request object,
// the reply, and a second thread that can run while this one does other work.
//
//   engine/thread/ingest/logWriteMode=1/batch=5000   the TSBS batches, encoded before the timing,
//       2 concurrent writers (as the ingest workload), one request per 5000-row batch; rows/s
//   engine/thread/put/durable/sessions=<n>           n sessions (one container and session each)
//       putting one encoded row at a time and waiting for its acknowledgement, logWriteMode 0,
//       for putDurationMs; acknowledged rows/s and p50/p99 latency (latest-meta.json also keeps,
//       per run, puts per xlog fdatasync and the process's CPU time per put, user + kernel)
//
// In latest.json value is the worker, peer `in-thread` the calling thread, ratio = worker /
// in-thread for rows/s and in-thread / worker for latencies: above 1 the worker is faster. Each run
// opens a fresh home (the worker stays, so its code stays compiled); one warm-up run, then the two
// alternate; medians.

import { assert } from '../../lib/base/assert.ts';
import type { StorageOptions } from '../../lib/base/options.ts';
import { CHECKPOINT_INTERVAL_MS_OFF, settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import { throughputResult, type WorkloadReport } from '../bench-result.ts';
import { clientBenchConfig } from '../client-bench-config.ts';
import { PutRows, loadBatchesByWriter, putLoops, type PutLoopsRun } from '../concurrent-callers.ts';
import { TsbsRowBytes } from '../engine-thread-messages.ts';
import { engineTarget, type EngineTarget } from '../engine-thread-targets.ts';
import { putReport } from '../put-report.ts';
import { median, timeAsyncMs } from '../stats.ts';
import type { TsbsDataset } from '../tsbs.ts';

interface EncodedBatch {
  hostIndex: number;
  rowCount: number;
  bytes: Uint8Array;
}

export async function engineThreadIngestWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset, ingestWorkerCount: writerCount } = config;
  const { threadIngestRepeatCount: repeatCount } = clientBenchConfig(config);
  const name = `engine/thread/ingest/logWriteMode=1/batch=${dataset.config.batchRowCountMax}`;
  const rowBytes = new TsbsRowBytes();
  const encoded: EncodedBatch[] = dataset.batches.map((batch) => ({
    hostIndex: batch.hostIndex, rowCount: batch.rows.length,
    bytes: new Uint8Array(rowBytes.encode(batch.rows)),
  }));
  const options = { logWriteMode: 1, checkpointIntervalMs: CHECKPOINT_INTERVAL_MS_OFF };
  const containerNames = dataset.hosts.map((host) => host.containerName);
  const samples = { 'in-thread': [] as number[], worker: [] as number[] };
  await withTargets(async (targets) => {
    // Run 0 is the warm-up, not recorded.
    for (let run = 0; run <= repeatCount; run++) {
      for (const target of targets) {
        const ms = await withOpenTarget(target, options, containerNames, async () => {
          // Fresh buffers each run: a transfer detaches the ones sent.
          const buffers = encoded.map((batch) => batch.bytes.slice().buffer);
          settleHeap();
          const loadMs = await timeAsyncMs(() => loadBatchesByWriter(
            encoded.map((batch, i) => ({ batch, bytes: buffers[i]! })), writerCount,
            (_, { batch, bytes }) => target.put(batch.hostIndex, batch.rowCount, bytes)));
          await checkLoaded(target, dataset);
          return loadMs;
        });
        if (run > 0) samples[target.thread].push(dataset.rowCount / (ms / 1000));
      }
    }
  });
  assert(samples.worker.length === repeatCount);
  const method = `${dataset.rowCount} TSBS rows, row-codec bytes encoded before timing, one ` +
    `request per ${dataset.config.batchRowCountMax}-row batch, ${writerCount} writers; ` +
    'logWriteMode 1; 1 warm-up + ' + `${repeatCount} runs on fresh homes, median; `;
  return {
    results: [
      throughputResult(name, median(samples.worker), median(samples['in-thread']),
        { peer: 'in-thread' }),
    ],
    details: [{
      name, storeSamples: samples.worker, peerSamples: samples['in-thread'],
      method: method + 'store = Store in a worker_threads Worker (bytes transferred), peer = ' +
        'Store in the calling thread',
    }],
  };
}

export async function engineThreadPutWorkload(
  config: BenchConfig,
  sessionCount: number,
): Promise<WorkloadReport> {
  const { putRepeatCount: repeatCount, putDurationMs: durationMs } = clientBenchConfig(config);
  const options = { logWriteMode: 0, checkpointIntervalMs: CHECKPOINT_INTERVAL_MS_OFF };
  const containerNames = Array.from({ length: sessionCount }, (_, s) => `put_session_${s}`);
  const runs = { 'in-thread': [] as PutLoopsRun[], worker: [] as PutLoopsRun[] };
  const putsPerLogSync = { 'in-thread': [] as number[], worker: [] as number[] };
  const cpuUsPerPut = { 'in-thread': [] as number[], worker: [] as number[] };
  const rowBytes = new TsbsRowBytes();
  await withTargets(async (targets) => {
    for (let run = 0; run <= repeatCount; run++) {
      for (const target of targets) {
        const rows = new PutRows(config.dataset, sessionCount);
        const [result, counts] = await withOpenTarget(target, options, containerNames,
          async () => {
            const syncCountBefore = await target.logSyncCount();
            settleHeap();
            // The whole process (both threads), user and kernel time.
            const cpuBefore = process.cpuUsage();
            // Encoding is timed on both sides: each put starts from a row, as a request would.
            const loops = await putLoops({ callerCount: sessionCount, durationMs },
              (s) => target.put(s, 1, rowBytes.encode([rows.next(s)])));
            const cpu = process.cpuUsage(cpuBefore);
            const syncCount = await target.logSyncCount() - syncCountBefore;
            return [loops, { syncCount, cpuUs: cpu.user + cpu.system }] as const;
          });
        if (run === 0) continue;
        runs[target.thread].push(result);
        putsPerLogSync[target.thread].push(result.latenciesMs.length / counts.syncCount);
        cpuUsPerPut[target.thread].push(counts.cpuUs / result.latenciesMs.length);
      }
    }
  });
  const name = `engine/thread/put/durable/sessions=${sessionCount}`;
  return putReport(name, { store: runs.worker, peer: runs['in-thread'] }, {
      peer: 'in-thread',
      method: `${sessionCount} sessions, each a loop of one-row puts (row-codec bytes, one ` +
        'request each) into its own container, waiting for the acknowledgement; logWriteMode 0; ' +
        'store = Store in a worker_threads Worker, peer = Store in the calling thread; ' +
        `${durationMs} ms a run on a fresh home, 1 warm-up + ${repeatCount} runs, median`,
      measures: {
        workerPutsPerLogSync: putsPerLogSync.worker,
        inThreadPutsPerLogSync: putsPerLogSync['in-thread'],
        workerCpuUsPerPut: cpuUsPerPut.worker,
        inThreadCpuUsPerPut: cpuUsPerPut['in-thread'],
      },
    });
}

/** Both targets for the whole workload (the worker keeps its compiled code across runs). */
async function withTargets(body: (targets: EngineTarget[]) => Promise<void>): Promise<void> {
  const targets = [engineTarget('in-thread'), engineTarget('worker')];
  try {
    await body(targets);
  } finally {
    for (const target of targets) await target.end();
  }
}

/** Opens the target's Store on a fresh home with these containers, runs body, closes it. */
async function withOpenTarget<T>(
  target: EngineTarget,
  options: Partial<StorageOptions>,
  containerNames: string[],
  body: () => Promise<T>,
): Promise<T> {
  return withTempHome(`thread-${target.thread}`, async (home) => {
    await target.open(home, options, containerNames);
    try {
      return await body();
    } finally {
      await target.close();
    }
  });
}

/** Checks (untimed) that every host's container holds all its rows. */
async function checkLoaded(target: EngineTarget, dataset: TsbsDataset): Promise<void> {
  for (let h = 0; h < dataset.hosts.length; h++) {
    const count = await target.count(h);
    assert(count === dataset.rowsByHost[h]!.length,
      `${target.thread}: host ${h} holds ${count} of ${dataset.rowsByHost[h]!.length} rows`);
  }
}
