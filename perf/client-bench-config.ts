// Sizes of the client and thread workloads (client/*, engine/thread/*), derived from the run's
// BenchConfig: the same TSBS dataset and writers, plus how long the fixed-time put loops run and
// how often. A full run of these workloads takes a few minutes; BENCH_QUICK=1 a few seconds each.

import type { BenchConfig } from './bench-config.ts';

export interface ClientBenchConfig {
  /** Runs of the TSBS load through the client (and through InfluxDB), after one warm-up. */
  clientIngestRepeatCount: number;
  /** Client connections (each its own ClientStore) loading at once: TSBS's --workers. */
  clientIngestConnectionCount: number;
  /** Runs of each fixed-time put loop, after one warm-up. */
  putRepeatCount: number;
  /** How long one run of a put loop starts new puts. */
  putDurationMs: number;
  /** Runs of the engine/thread ingest (store in the calling thread, then in a worker). */
  threadIngestRepeatCount: number;
}

export function clientBenchConfig(config: BenchConfig): ClientBenchConfig {
  const { quick } = config;
  return {
    clientIngestRepeatCount: quick ? 1 : 5,
    clientIngestConnectionCount: config.ingestWorkerCount,
    putRepeatCount: quick ? 1 : 3,
    putDurationMs: quick ? 500 : 3000,
    threadIngestRepeatCount: quick ? 1 : 5,
  };
}
