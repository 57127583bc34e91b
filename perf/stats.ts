// Order statistics of benchmark samples. Percentiles interpolate linearly between closest ranks,
// so the median of an even count is the mean of the middle two.

import { assert } from '../lib/base/assert.ts';

/** The p-th percentile (0 <= p <= 100) of samples; the samples are not modified. */
export function percentile(samples: readonly number[], p: number): number {
  assert(samples.length > 0);
  assert(p >= 0 && p <= 100);
  const sorted = Float64Array.from(samples).sort();
  const rank = (p / 100) * (sorted.length - 1);
  const below = Math.floor(rank);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (rank - below);
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** Times one async run with the monotonic clock; returns milliseconds. */
export async function timeAsyncMs(run: () => Promise<unknown>): Promise<number> {
  const startMs = performance.now();
  await run();
  return performance.now() - startMs;
}
