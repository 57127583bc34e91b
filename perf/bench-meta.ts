// perf/results/latest-meta.json: what the numbers of latest.json belong to — the machine, the
// runtime, the code revision, the sizes, and how each workload was measured with every sample.
// The top level describes the latest run; `workloads` is merged by name across runs, each entry
// stamped with the date of its own run.

import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { invariants } from '../lib/base/invariants.ts';
import type { BenchConfig } from './bench-config.ts';

/** True when the runner can collect the heap between runs (node --expose-gc). */
export function heapSettles(): boolean {
  return typeof (globalThis as { gc?: unknown }).gc === 'function';
}

/** The 1-minute load average: above the cpu count, other processes took time from the runs. */
export function loadAverage1m(): number {
  return loadavg()[0]!;
}

export function benchMeta(
  config: BenchConfig,
  run: {
    workloads: unknown[]; durationMs: number; loadAverage1mAtStart: number;
    /** The form the node and the timed tools ran in (server-form.ts). */
    form: string;
  },
) {
  const cpuList = cpus();
  const { dataset } = config;
  return {
    date: new Date().toISOString(),
    quick: config.quick,
    durationS: Math.round(run.durationMs / 1000),
    loadAverage1m: { atStart: run.loadAverage1mAtStart, atEnd: loadAverage1m() },
    machine: {
      cpuCount: cpuList.length,
      cpuModel: cpuList[0]?.model ?? 'unknown',
      totalMemoryBytes: totalmem(),
      platform: process.platform,
      arch: process.arch,
    },
    node: process.version,
    form: run.form,
    v8: process.versions.v8,
    invariants: invariants.enabled,
    heapCollectedBeforeEachRun: heapSettles(),
    source: sourceRevision(),
    dataset: {
      hostCount: dataset.hosts.length,
      rowCount: dataset.rowCount,
      intervalMs: dataset.config.intervalMs,
      batchRowCountMax: dataset.config.batchRowCountMax,
      batchCount: dataset.batches.length,
      seed: dataset.config.seed,
      model: 'one TIME_SERIES container per host (cpu_host_<n>), ts + 10 DOUBLE usage_* ' +
        'fields; host tags kept once per host, not per row; batches interleaved across hosts',
    },
    ingestWorkerCount: config.ingestWorkerCount,
    ingestRepeatCount: config.ingestRepeatCount,
    scanRepeatCount: config.scanRepeatCount,
    rangeQueryCount: config.rangeQueryCount,
    largeDayCount: config.largeDayCount,
    largeRowCount: dataset.rowCount * config.largeDayCount,
    checkpointRepeatCount: config.checkpointRepeatCount,
    recoveryRepeatCount: config.recoveryRepeatCount,
    commitSessionCount: config.commitSessionCount,
    commitIdleMs: config.commitIdleMs,
    peer: 'leveldb: level@10 (classic-level@3) defaults; key = container name, 0x00, ts u64 BE; ' +
      'value = row-codec bytes; writes: chained db.batch; checkpoint, commit-latency and ' +
      'recovery: writeBufferSize 1 GiB; disk (checkpoint MB/s): 1 MiB writes, fdatasync each',
    ratio: 'store / peer for rows/s and MB/s; peer / store for ms and µs; ' +
      'above 1 the store is ahead',
    workloads: run.workloads,
  };
}

/** The commit measured, and the files changed on top of it: the results belong to that code. */
function sourceRevision(): { commit: string; changedFiles: string[] } | undefined {
  try {
    // --no-optional-locks: a status must never take .git/index.lock from someone committing.
    const git = (...args: string[]) =>
      execFileSync('git', ['--no-optional-locks', ...args], { encoding: 'utf8' });
    // Porcelain lines are "XY path": two status letters (either may be a space), a space, the path.
    const changed = git('status', '--porcelain', '--', 'lib', 'wal', 'compaction', 'perf');
    return {
      commit: git('rev-parse', 'HEAD').trim(),
      changedFiles: changed.split('\n').filter((line) => line.length > 3)
        .map((line) => line.slice(3)),
    };
  } catch {
    return undefined; // not a git checkout, or no git
  }
}
