// Concurrent callers of the client and thread workloads: writers that each own a connection (or a
// session) and take the next TSBS batch of the shared stream, and fixed-time loops of single-row
// puts that record each acknowledgement's latency.

import { assert } from '../lib/base/assert.ts';
import type { Row } from '../lib/schema/column-type.ts';
import type { TsbsBatch, TsbsDataset } from './tsbs.ts';

/**
 * Sends every batch through `put`, writerCount at a time, in stream order, as loadBatches does,
 * but tells `put` which writer sends: writer w always uses its own connection.
 */
export async function loadBatchesByWriter<Batch = TsbsBatch>(
  batches: readonly Batch[],
  writerCount: number,
  put: (writer: number, batch: Batch) => Promise<void>,
): Promise<void> {
  assert(writerCount > 0);
  let next = 0;
  const writer = async (w: number) => {
    while (next < batches.length) await put(w, batches[next++]!);
  };
  await Promise.all(Array.from({ length: writerCount }, (_, w) => writer(w)));
}

/**
 * The rows single-row puts write: caller c writes container c, one row per put, timestamps one
 * interval apart and increasing across runs (so every put appends a new row, never replaces
 * one), field values those of TSBS host c (modulo the host count).
 */
export class PutRows {
  private readonly nextIndexes: number[];

  constructor(private readonly dataset: TsbsDataset, callerCount: number) {
    assert(callerCount > 0);
    this.nextIndexes = new Array<number>(callerCount).fill(0);
  }

  next(caller: number): Row {
    const index = this.nextIndexes[caller]!;
    assert(index !== undefined);
    this.nextIndexes[caller] = index + 1;
    const values = this.dataset.rowsByHost[caller % this.dataset.hosts.length]!;
    const row = values[index % values.length]!.slice();
    row[0] = this.dataset.fromMs + index * this.dataset.config.intervalMs;
    return row;
  }
}

export interface PutLoopsRun {
  /** One per acknowledged put, from its call to its acknowledgement. */
  latenciesMs: number[];
  /** From the first put to the last acknowledgement. */
  elapsedMs: number;
}

/**
 * callerCount loops, each putting one row and waiting for its acknowledgement before the next,
 * starting new puts for durationMs; a put started in time is waited for and counted.
 */
export async function putLoops(
  settings: { callerCount: number; durationMs: number },
  putOne: (caller: number) => Promise<void>,
): Promise<PutLoopsRun> {
  assert(settings.callerCount > 0);
  assert(settings.durationMs > 0);
  const latenciesMs: number[] = [];
  const startMs = performance.now();
  const endMs = startMs + settings.durationMs;
  const loop = async (caller: number) => {
    while (performance.now() < endMs) {
      const putStartMs = performance.now();
      await putOne(caller);
      latenciesMs.push(performance.now() - putStartMs);
    }
  };
  await Promise.all(Array.from({ length: settings.callerCount }, (_, c) => loop(c)));
  const elapsedMs = performance.now() - startMs;
  assert(latenciesMs.length > 0);
  return { latenciesMs, elapsedMs };
}

/** Acknowledged puts per second of a run. */
export function putLoopsRowsPerS(run: PutLoopsRun): number {
  return run.latenciesMs.length / (run.elapsedMs / 1000);
}
