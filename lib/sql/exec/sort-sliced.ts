// A stable sort that turns the event loop as it goes (work-slice.ts): the built-in sort of a few
// 100,000 rows runs for a second in one piece, with no way to stop it for a cancel or a commit.
// Runs of SORT_RUN_ROW_COUNT are sorted with the built-in sort (stable), then merged pairwise,
// bottom-up, into a second array and back, a step of rows at a time. Ties keep their input order.
// Its cost: about 1.4× the built-in sort's CPU (100,000 rows: 63 ms against 45 ms, medians).

import { assert } from '../../base/assert.ts';
import type { SqlWorkSlice } from './work-slice.ts';

/** Rows sorted in one piece by the built-in sort: about 1.5 ms, under a slice's work. */
const SORT_RUN_ROW_COUNT = 4096;
/** Rows a merge places between two looks at the work slice. */
const SORT_MERGE_STEP_ROW_COUNT = 1024;
/** Work units of one row of a run sort (its comparisons): a run is about a slice of work. */
const SORT_RUN_ROW_UNITS = 4;

/** `items` sorted by `compare` (stable); the array given may be reused. */
export async function sortSliced<T>(items: T[], compare: (a: T, b: T) => number, work: SqlWorkSlice):
  Promise<T[]> {
  const n = items.length;
  for (let start = 0; start < n; start += SORT_RUN_ROW_COUNT) {
    sortRun(items, start, Math.min(n, start + SORT_RUN_ROW_COUNT), compare);
    if (work.spend((Math.min(n, start + SORT_RUN_ROW_COUNT) - start) * SORT_RUN_ROW_UNITS)) await work.pause();
  }
  let from = items;
  let to = items.slice(); // a packed array of the same kind, overwritten by the merges
  for (let width = SORT_RUN_ROW_COUNT; width < n; width *= 2) {
    for (let low = 0; low < n; low += 2 * width) {
      const merge: Merge = { i: low, j: Math.min(low + width, n), k: low, middle: Math.min(low + width, n),
        high: Math.min(low + 2 * width, n) };
      while (merge.k < merge.high) {
        const placed = mergeStep(from, to, merge, compare);
        if (work.spend(placed)) await work.pause();
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

/** Where a merge of from[i, middle) and from[j, high) into to[k…) stands. */
interface Merge {
  i: number;
  j: number;
  k: number;
  readonly middle: number;
  readonly high: number;
}

/** Sorts items[start, end) in place with the built-in sort (stable). */
function sortRun<T>(items: T[], start: number, end: number, compare: (a: T, b: T) => number): void {
  if (start === 0 && end === items.length) {
    items.sort(compare);
    return;
  }
  const run = items.slice(start, end).sort(compare);
  for (let i = 0; i < run.length; i++) items[start + i] = run[i]!;
}

/**
 * Places up to SORT_MERGE_STEP_ROW_COUNT rows of a merge (synchronous: its locals stay out of the
 * async function's context, which would slow the loop); returns how many.
 */
function mergeStep<T>(from: readonly T[], to: T[], merge: Merge, compare: (a: T, b: T) => number): number {
  let { i, j, k } = merge;
  const { middle, high } = merge;
  const stop = Math.min(high, k + SORT_MERGE_STEP_ROW_COUNT);
  const first = k;
  while (k < stop && i < middle && j < high) {
    // The left run's row first on a tie: stable.
    if (compare(from[j]!, from[i]!) < 0) to[k++] = from[j++]!;
    else to[k++] = from[i++]!;
  }
  while (k < stop && i < middle) to[k++] = from[i++]!;
  while (k < stop && j < high) to[k++] = from[j++]!;
  assert(k > first);
  merge.i = i;
  merge.j = j;
  merge.k = k;
  return k - first;
}
