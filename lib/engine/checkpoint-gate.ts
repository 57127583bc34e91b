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
//
// Across engine threads: the node runs one Store per partition group, each in a worker thread of
// its own (lib/node/engine-thread/group-workers-engine.ts), and they share the process's one
// libuv pool and the disk. So their gates can share one count, a CheckpointGateShared (an Int32 in
// a SharedArrayBuffer that the node hands every worker): a checkpoint takes its thread's turn
// first, then a place in the shared count (compare-and-swap), waiting with Atomics.waitAsync for
// a release. Not FIFO across threads; a waiter re-checks at least every
// CHECKPOINT_GATE_SHARED_WAIT_MS_MAX, so a missed notify costs time, never progress. A thread that
// dies holding a place takes the node down (the engine's `failed`), so the place is never leaked
// into a node that goes on.

import { assert } from '../base/assert.ts';

/** Longest single wait for a place in the shared count before it is looked at again. */
export const CHECKPOINT_GATE_SHARED_WAIT_MS_MAX = 50;

/** The count the gates of several engine threads share: checkpoints in flight over all of them. */
export type CheckpointGateShared = SharedArrayBuffer & { readonly __brand: 'CheckpointGateShared' };

/** Atomics.waitAsync (Node 16+), which this TypeScript library target does not declare yet. */
interface AtomicsWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number):
    { async: false; value: 'not-equal' | 'timed-out' } |
    { async: true; value: Promise<'ok' | 'timed-out'> };
}
const atomicsWaitAsync = Atomics as unknown as AtomicsWaitAsync;

export function checkpointGateSharedCreate(): CheckpointGateShared {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT) as CheckpointGateShared;
}

export class CheckpointGate {
  private inFlightCountCurrent = 0;
  private inFlightCountHigh = 0;
  private readonly waiters: Array<() => void> = [];

  /** In the shared count (the gates of other threads), when there is one. */
  private readonly sharedCount: Int32Array | undefined;

  constructor(private readonly inFlightCountMax: number, shared?: CheckpointGateShared) {
    assert(Number.isInteger(inFlightCountMax));
    assert(inFlightCountMax >= 1);
    if (shared !== undefined) assert(shared.byteLength === Int32Array.BYTES_PER_ELEMENT);
    this.sharedCount = shared === undefined ? undefined : new Int32Array(shared);
  }

  /** Runs `body` once fewer than inFlightCountMax others run; in the order callers came. */
  async run<T>(body: () => Promise<T>): Promise<T> {
    if (this.inFlightCountCurrent >= this.inFlightCountMax) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    } else this.inFlightCountCurrent++;
    assert(this.inFlightCountCurrent <= this.inFlightCountMax);
    this.inFlightCountHigh = Math.max(this.inFlightCountHigh, this.inFlightCountCurrent);
    try {
      return await this.runShared(body);
    } finally {
      // The slot passes straight to the next waiter: nobody can overtake it in between.
      const next = this.waiters.shift();
      if (next === undefined) this.inFlightCountCurrent--;
      else next();
    }
  }

  /** `body` once the shared count has room, holding a place in it meanwhile. */
  private async runShared<T>(body: () => Promise<T>): Promise<T> {
    const count = this.sharedCount;
    if (count === undefined) return body();
    for (;;) {
      const seen = Atomics.load(count, 0);
      assert(seen >= 0 && seen <= this.inFlightCountMax);
      const free = seen < this.inFlightCountMax;
      if (free && Atomics.compareExchange(count, 0, seen, seen + 1) === seen) break;
      if (free) continue; // another thread took it first: look again
      const wait = atomicsWaitAsync.waitAsync(count, 0, seen, CHECKPOINT_GATE_SHARED_WAIT_MS_MAX);
      if (wait.async) await wait.value;
    }
    try {
      return await body();
    } finally {
      const before = Atomics.sub(count, 0, 1);
      assert(before >= 1);
      Atomics.notify(count, 0, 1);
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
