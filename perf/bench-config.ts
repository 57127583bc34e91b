// Sizes of a benchmark run. The full run is the issue's: 100 hosts × 1 day at 10 s = 864,000
// rows in batches of 5000. The checkpoint and recovery workloads load largeDayCount consecutive
// days of those hosts (4 days: 3,456,000 rows, about 300 MiB of blocks), the dirty set a checkpoint
// writes and the xlog a recovery replays. BENCH_QUICK=1 shrinks everything for a smoke run (its
// numbers mean little). The soak runs each of its two phases for 10 minutes (20 s when quick);
// BENCH_SOAK_PHASE_S sets another length.

import { assert } from '../lib/base/assert.ts';
import { tsbsDataset, type TsbsDataset } from './tsbs.ts';

export const BENCH_SEED = 20_160_101;
const DAY_MS = 86_400_000;
/** The soak: 10 minutes with the hostile client, and as long without it. */
const SOAK_PHASE_MS_DEFAULT = 600_000;
const SOAK_PHASE_MS_QUICK = 20_000;
/** A phase shorter than this has too few RSS samples (one a second) to judge a warm-up by. */
export const SOAK_PHASE_MS_MIN = 5_000;
/** A day: longer is a mistake in the variable, not a soak anyone waits for. */
export const SOAK_PHASE_MS_MAX = DAY_MS;

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
  /** How long each phase of the soak (without, then with the hostile client) runs. */
  soakPhaseMs: number;
}

export function benchConfig(quick: boolean, soakPhaseMs?: number): BenchConfig {
  if (soakPhaseMs !== undefined) {
    assert(soakPhaseMs >= SOAK_PHASE_MS_MIN);
    assert(soakPhaseMs <= SOAK_PHASE_MS_MAX);
  }
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
    soakPhaseMs: soakPhaseMs ?? (quick ? SOAK_PHASE_MS_QUICK : SOAK_PHASE_MS_DEFAULT),
  };
}
