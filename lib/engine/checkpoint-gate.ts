// CheckpointGate: how many partition checkpoints of one Store run at once, over all its partition
// groups. Without it every group checkpoints its partitions in parallel with the others (a
// Store.checkpoint() starts all groups; periodic ones come due together), so with 4 groups there
// are 4 checkpoint fsyncs (data files, cplog, catalog, directories) in the libuv thread pool at a
// time: its 4 threads are taken, and each commit's xlog fdatasync queues behind a data-file sync
// (measured in docs/benchmarks.md, checkpoint section). One at a time leaves the pool and most of
// the disk to the log, at no cost to the checkpoint's own throughput, which the disk bounds anyway.
//
// A FIFO semaphore: a partition checkpoint waits its turn (a bounded queue: at most one waiter
// per group, since each group checkpoints its partitions one after another). Crash safety is the
// checkpoint's own (compaction/checkpoint.ts): the gate only orders whole partition checkpoints.

import { assert } from '../base/assert.ts';

export class CheckpointGate {
  private inFlightCountCurrent = 0;
  private inFlightCountHigh = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly inFlightCountMax: number) {
    assert(Number.isInteger(inFlightCountMax));
    assert(inFlightCountMax >= 1);
  }

  /** Runs `body` once fewer than inFlightCountMax others run; in the order callers came. */
  async run<T>(body: () => Promise<T>): Promise<T> {
    if (this.inFlightCountCurrent >= this.inFlightCountMax) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    } else this.inFlightCountCurrent++;
    assert(this.inFlightCountCurrent <= this.inFlightCountMax);
    this.inFlightCountHigh = Math.max(this.inFlightCountHigh, this.inFlightCountCurrent);
    try {
      return await body();
    } finally {
      // The slot passes straight to the next waiter: nobody can overtake it in between.
      const next = this.waiters.shift();
      if (next === undefined) this.inFlightCountCurrent--;
      else next();
    }
  }

  /** Checkpoints running now, and the most that ever ran at once (for tests and benchmarks). */
  get inFlightCount(): number {
    return this.inFlightCountCurrent;
  }

  get inFlightCountMaxSeen(): number {
    return this.inFlightCountHigh;
  }
}
