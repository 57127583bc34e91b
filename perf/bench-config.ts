// Sizes of a benchmark run. The full run is the issue's: 100 hosts × 1 day at 10 s = 864,000
// rows in batches of 5000. The checkpoint and recovery workloads load largeDayCount consecutive
// days of those hosts (4 days: 3,456,000 rows, about 300 MiB of blocks), the dirty set a checkpoint
// writes and the xlog a recovery replays. BENCH_QUICK=1 shrinks everything for a smoke run (its
// numbers mean little).

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
  /** Days of the dataset (the same rows, shifted a day each) in a large dirty set or xlog. */
  largeDayCount: number;
  checkpointRepeatCount: number;
  recoveryRepeatCount: number;
  /** Sessions making single-row commits at once in the commit-latency workload. */
  commitSessionCount: number;
  /** How long the commit sessions run with no checkpoint, per run. */
  commitIdleMs: number;
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
    largeDayCount: quick ? 1 : 4,
    checkpointRepeatCount: quick ? 1 : 5,
    recoveryRepeatCount: quick ? 1 : 5,
    commitSessionCount: 4,
    commitIdleMs: quick ? 200 : 1000,
  };
}
