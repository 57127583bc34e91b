// CheckpointGate: how many partition checkpoints of one Store are in one phase at once, over all
// its partition groups. A Store has two: one for the phase that encodes and writes the blocks
// (the engine thread's CPU and the write thread), one for the phase that syncs and ends the
// generation (data-file fdatasync, catalog snapshot, cplog END: fsyncs in the libuv thread pool).
// A group's next partition writes its blocks while the one before syncs (partition-group.ts), so
// the fixed cost of each partition's syncs, about half of a checkpoint's wall time over ~100 small
// partitions, is hidden behind the next one's writes.
//
// Without the gates every group checkpoints its partitions in parallel with the others (a
// Store.checkpoint() starts all groups; periodic ones come due together), so with 4 groups there
// are 4 checkpoint fsyncs (data files, cplog, catalog, directories) in the libuv thread pool at a
// time: its 4 threads are taken, and each commit's xlog fdatasync queues behind a data-file sync
// (measured in docs/benchmarks.md, checkpoint section). One of each phase at a time leaves most of
// the pool and of the disk to the log.
//
// A FIFO semaphore: a partition checkpoint waits its turn (a bounded queue: at most one waiter
// per group and phase, since each group starts its partitions one after another). Crash safety
// is the checkpoint's own (compaction/checkpoint.ts): the gates only order partition checkpoints'
// phases, and each partition's order is drawn there.
//
// Across engine threads: the node runs one Store per partition group, each in a worker thread of
// its own (lib/node/engine-thread/group-workers-engine.ts), and they share the process's one
// libuv pool and the disk. So their gates can share the counts, a CheckpointGateShared (an Int32
// per phase in a SharedArrayBuffer that the node hands every worker): a checkpoint takes its
// thread's turn first, then a place in the shared count (compare-and-swap), waiting with
// Atomics.waitAsync for a release. Not FIFO across threads; a waiter re-checks at least every
// CHECKPOINT_GATE_SHARED_WAIT_MS_MAX, so a missed notify costs time, never progress. A thread that
// dies holding a place takes the node down (the engine's `failed`), so the place is never leaked
// into a node that goes on.

import { assert } from '../base/assert.ts';

/** Longest single wait for a place in the shared count before it is looked at again. */
export const CHECKPOINT_GATE_SHARED_WAIT_MS_MAX = 50;

/** The counts the gates of several engine threads share: one Int32 per CheckpointPhase. */
export type CheckpointGateShared = SharedArrayBuffer & { readonly __brand: 'CheckpointGateShared' };

/** The phases of a partition checkpoint that have a gate each: the index of their shared count. */
export enum CheckpointPhase {
  WRITE = 0,
  SYNC = 1,
}
const CHECKPOINT_PHASE_COUNT = 2;

/** Atomics.waitAsync (Node 16+), which this TypeScript library target does not declare yet. */
interface AtomicsWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number):
    { async: false; value: 'not-equal' | 'timed-out' } |
    { async: true; value: Promise<'ok' | 'timed-out'> };
}
const atomicsWaitAsync = Atomics as unknown as AtomicsWaitAsync;

export function checkpointGateSharedCreate(): CheckpointGateShared {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * CHECKPOINT_PHASE_COUNT) as
    CheckpointGateShared;
}

export class CheckpointGate {
  private inFlightCountCurrent = 0;
  private inFlightCountHigh = 0;
  private readonly waiters: Array<() => void> = [];

  /** This phase's shared count (the gates of other threads), when there is one. */
  private readonly sharedCount: Int32Array | undefined;

  constructor(
    private readonly inFlightCountMax: number,
    shared?: CheckpointGateShared,
    phase: CheckpointPhase = CheckpointPhase.WRITE,
  ) {
    assert(Number.isInteger(inFlightCountMax));
    assert(inFlightCountMax >= 1);
    if (shared !== undefined) {
      assert(shared.byteLength === Int32Array.BYTES_PER_ELEMENT * CHECKPOINT_PHASE_COUNT);
    }
    this.sharedCount = shared === undefined ? undefined
      : new Int32Array(shared, phase * Int32Array.BYTES_PER_ELEMENT, 1);
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
