// The resident set size of server processes a benchmark started, sampled at a fixed interval for
// the soak: read from /proc/<pid>/status (VmRSS, in kB; Linux), the memory the process really
// holds (heap, buffers, native allocations), which is what a growing backlog shows in. The
// samples of a process that has exited (or where /proc is not) are left out, not zero.
//
// rssFlatness says whether a series is flat after its warm-up: the issue's "RSS flat within 10%
// after warm-up" is spread = (max - min) / min over the samples after the first warmUpFraction of
// the run, at most 10%.

import { readFileSync } from 'node:fs';
import { assert } from '../lib/base/assert.ts';
import { MiB } from '../lib/base/units.ts';

/** Samples kept per process at most: an hour at one a second. */
const RSS_SAMPLE_COUNT_MAX = 3600;
const KIB_BYTES = 1024;

/**
 * A memory figure of process `pid` from /proc/<pid>/status, in bytes: `VmRSS` (resident now) or
 * `VmHWM` (its peak so far); undefined when it is gone or /proc is not there. The benchmarks and
 * the tests that bound a server's memory read it here.
 */
export function processRssBytes(
  pid: number,
  field: 'VmRSS' | 'VmHWM' = 'VmRSS',
): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (match === null) return undefined; // a zombie has no memory lines
  return Number(match[1]) * KIB_BYTES;
}

export class RssSampler {
  /** Per process name: [ms since start, RSS in MiB] pairs, one per tick it could be read. */
  private readonly series = new Map<string, { atMs: number[]; rssMiB: number[] }>();
  private readonly startMs = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pids: Readonly<Record<string, number>>, intervalMs: number) {
    assert(intervalMs > 0);
    for (const name of Object.keys(pids)) this.series.set(name, { atMs: [], rssMiB: [] });
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  /** Stops sampling (one last sample first) and returns every series. */
  stop(): Map<string, { atMs: number[]; rssMiB: number[] }> {
    clearInterval(this.timer);
    this.sample();
    return this.series;
  }

  private sample(): void {
    const atMs = performance.now() - this.startMs;
    for (const [name, pid] of Object.entries(this.pids)) {
      const series = this.series.get(name)!;
      if (series.rssMiB.length >= RSS_SAMPLE_COUNT_MAX) continue;
      const rssBytes = processRssBytes(pid);
      if (rssBytes === undefined) continue;
      series.atMs.push(atMs);
      series.rssMiB.push(rssBytes / MiB);
    }
  }
}

export interface RssFlatness {
  /** RSS at the end of the warm-up (the first sample after it), MiB. */
  afterWarmUpMiB: number;
  minMiB: number;
  maxMiB: number;
  /** (max - min) / min after the warm-up, percent. */
  spreadPercent: number;
  /** Samples after the warm-up. */
  sampleCount: number;
}

/** How flat a series is after its first warmUpFraction (of its time span); undefined if empty. */
export function rssFlatness(
  series: { atMs: readonly number[]; rssMiB: readonly number[] },
  warmUpFraction: number,
): RssFlatness | undefined {
  assert(warmUpFraction >= 0 && warmUpFraction < 1);
  assert(series.atMs.length === series.rssMiB.length);
  if (series.atMs.length === 0) return undefined;
  const spanMs = series.atMs[series.atMs.length - 1]!;
  const after = series.rssMiB.filter((_, i) => series.atMs[i]! >= spanMs * warmUpFraction);
  assert(after.length > 0); // the last sample is always after the warm-up
  const minMiB = Math.min(...after);
  const maxMiB = Math.max(...after);
  return {
    afterWarmUpMiB: after[0]!, minMiB, maxMiB,
    spreadPercent: ((maxMiB - minMiB) / minMiB) * 100, sampleCount: after.length,
  };
}
