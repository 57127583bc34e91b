// A large load made of the dataset's day repeated: day d is every row of the dataset with its
// timestamp moved d days later (d × durationMs), so each host's series runs on without a gap or a
// repeated timestamp. The checkpoint and recovery workloads load days × 864,000 rows this way
// without holding them all in the heap: the shifted rows of a day are made when it is sent.
//
// Batches go day after day, each day in the dataset's interleaved order, so every host's rows
// arrive in time order (the fast in-order append of a time series, as a live fleet sends them).

import { assert } from '../lib/base/assert.ts';
import type { Row } from '../lib/schema/column-type.ts';
import { loadBatches } from './bench-engines.ts';
import type { TsbsBatch, TsbsDataset } from './tsbs.ts';

export interface TsbsDays {
  dataset: TsbsDataset;
  dayCount: number;
  rowCount: number;
  /** Exclusive: the first timestamp after the last day. */
  toMs: number;
}

export function tsbsDays(dataset: TsbsDataset, dayCount: number): TsbsDays {
  assert(Number.isInteger(dayCount) && dayCount >= 1);
  return {
    dataset, dayCount,
    rowCount: dataset.rowCount * dayCount,
    toMs: dataset.fromMs + dayCount * dataset.config.durationMs,
  };
}

/** Day `day`'s batches: the dataset's own for day 0, shifted copies after. */
export function tsbsDayBatches(days: TsbsDays, day: number): readonly TsbsBatch[] {
  assert(day >= 0 && day < days.dayCount);
  const { dataset } = days;
  if (day === 0) return dataset.batches;
  const offsetMs = day * dataset.config.durationMs;
  return dataset.batches.map((batch) =>
    ({ hostIndex: batch.hostIndex, rows: shiftRows(batch.rows, offsetMs) }));
}

/** Sends every batch of every day through `put`, workerCount at a time, in stream order. */
export async function loadDays(
  days: TsbsDays,
  workerCount: number,
  put: (batch: TsbsBatch) => Promise<void>,
): Promise<void> {
  // One day's shifted copies at a time: they are garbage once the day is sent.
  for (let day = 0; day < days.dayCount; day++) {
    await loadBatches(tsbsDayBatches(days, day), workerCount, put);
  }
}

/** The last row of host `hostIndex` in the load: what a recovery must bring back. */
export function tsbsDaysLastRow(days: TsbsDays, hostIndex: number): Row {
  const rows = days.dataset.rowsByHost[hostIndex]!;
  const offsetMs = (days.dayCount - 1) * days.dataset.config.durationMs;
  return shiftRows([rows[rows.length - 1]!], offsetMs)[0]!;
}

function shiftRows(rows: readonly Row[], offsetMs: number): Row[] {
  return rows.map((row) => {
    const shifted = row.slice();
    shifted[0] = (row[0] as number) + offsetMs;
    return shifted;
  });
}
