// A stable sort that turns the event loop as it goes (work-slice.ts): the built-in sort of a few
// 100,000 rows runs for a second in one piece, with no way to stop it for a cancel or a commit.
// Runs of SORT_RUN_ROW_COUNT are sorted with the built-in sort (stable), then merged pairwise,
// bottom-up, into a second array and back; one unit of work per row a run sort or a merge places,
// times its comparisons' log. Ties keep their input order.

import { assert } from '../../base/assert.ts';
import type { SqlWorkSlice } from './work-slice.ts';

/** Rows sorted in one piece by the built-in sort: a fraction of a slice's work. */
const SORT_RUN_ROW_COUNT = 1024;
/** Rows a merge places between two looks at the work slice. */
const SORT_MERGE_STEP_ROW_COUNT = 1024;
/** Work units of one row of a run sort: about log2(SORT_RUN_ROW_COUNT) comparisons. */
const SORT_RUN_ROW_UNITS = 10;

/** `items` sorted by `compare` (stable); the array given may be reused. */
export async function sortSliced<T>(items: T[], compare: (a: T, b: T) => number, work: SqlWorkSlice):
  Promise<T[]> {
  const n = items.length;
  let from = items;
  for (let start = 0; start < n; start += SORT_RUN_ROW_COUNT) {
    const end = Math.min(n, start + SORT_RUN_ROW_COUNT);
    if (start === 0 && end === n) {
      items.sort(compare);
    } else {
      const run = items.slice(start, end).sort(compare);
      for (let i = 0; i < run.length; i++) items[start + i] = run[i]!;
    }
    if (work.spend((end - start) * SORT_RUN_ROW_UNITS)) await work.pause();
  }
  let to = new Array<T>(n);
  for (let width = SORT_RUN_ROW_COUNT; width < n; width *= 2) {
    for (let low = 0; low < n; low += 2 * width) {
      const middle = Math.min(low + width, n);
      const high = Math.min(low + 2 * width, n);
      let i = low;
      let j = middle;
      let k = low;
      while (i < middle && j < high) {
        // The left run's row first on a tie: stable.
        to[k++] = compare(from[j]!, from[i]!) < 0 ? from[j++]! : from[i++]!;
        if (k % SORT_MERGE_STEP_ROW_COUNT === 0 && work.spend(SORT_MERGE_STEP_ROW_COUNT)) await work.pause();
      }
      while (i < middle) to[k++] = from[i++]!;
      while (j < high) to[k++] = from[j++]!;
      assert(k === high);
    }
    [from, to] = [to, from];
  }
  return from;
}
