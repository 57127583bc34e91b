// Sizes of a benchmark run. The full run is the issue's: 100 hosts × 1 day at 10 s = 864,000
// rows in batches of 5000. BENCH_QUICK=1 shrinks everything for a smoke run (its numbers mean
// little).

import { tsbsDataset, type TsbsDataset } from './tsbs.ts';

export const BENCH_SEED = 20_160_101;
const DAY_MS = 86_400_000;

export interface BenchConfig {
  quick: boolean;
  dataset: TsbsDataset;
  /** Concurrent writers, as TSBS load --workers. Both engines get the same. */
  ingestWorkerCount: number;
  ingestRepeatCount: number;
  scanRepeatCount: number;
  /** Upper bound of one benchmark.js measurement, seconds. */
  benchmarkMaxTimeS: number;
  rangeQueryCount: number;
  rangeMs: number;
}

export function benchConfig(quick: boolean): BenchConfig {
  const dataset = tsbsDataset({
    hostCount: quick ? 10 : 100,
    durationMs: DAY_MS,
    intervalMs: 10_000,
    batchRowCountMax: 5000,
    seed: BENCH_SEED,
  });
  return {
    quick,
    dataset,
    ingestWorkerCount: 2,
    ingestRepeatCount: quick ? 1 : 5,
    scanRepeatCount: quick ? 2 : 7,
    benchmarkMaxTimeS: quick ? 0.5 : 3,
    rangeQueryCount: quick ? 200 : 2000,
    rangeMs: 3_600_000,
  };
}
