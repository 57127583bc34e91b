// The frame of each row of a window partition, as inclusive indexes into the partition (rows
// sorted by the ORDER BY keys; end < start: an empty frame). Two ways, with one answer:
//   frameBoundsPerRow  the definition: each row's RANGE frame is searched from both ends of the
//                      partition (O(rows) a row). The reference, and the path for NaN keys.
//   frameBounds        one pass, O(rows): ROWS frames are arithmetic; RANGE frames walk two
//                      pointers that only move forward, because the rows are sorted, so the
//                      distance of row j ahead of row i never falls as j grows or rises as i does.
//                      A partition with a NaN key under an offset bound takes the per-row path:
//                      NaN is no distance from anything.
// RANGE frames use peers: rows with equal ORDER BY keys share a frame end (CURRENT ROW) or start.
// NULL keys, as in PostgreSQL: a NULL key's frame under an offset bound holds only the NULL keys;
// for a non-NULL key, NULLs sort before every key (ascending: they lead) or after (descending:
// they trail), so an offset end that reaches no key still passes the leading NULLs, and an
// offset start that reaches no key stops at the trailing NULLs (`RANGE BETWEEN UNBOUNDED
// PRECEDING AND 1 PRECEDING` of the smallest key holds the NULL rows). An offset applies to the
// first ORDER BY key (the planner allows one key with an offset), in the direction of its ORDER BY.

import { assert } from '../../base/assert.ts';
import type { SqlPlanFrameBound } from '../plan/logical-plan.ts';
import type { SqlValue } from '../value.ts';
import { compareSqlValues } from './value-ops.ts';
import type { SqlWorkSlice } from './work-slice.ts';

export interface WindowFrameSpec {
  readonly unit: 'ROWS' | 'RANGE';
  readonly start: SqlPlanFrameBound;
  readonly end: SqlPlanFrameBound;
}

/** Inclusive frame bounds by row: `starts[i]..ends[i]`, empty when ends[i] < starts[i]. */
export interface WindowFrameBounds {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

const hasOffset = (bound: SqlPlanFrameBound) => bound.kind === 'PRECEDING' || bound.kind === 'FOLLOWING';

/** The first ORDER BY key of each row as a number (NULL: null); none without ORDER BY. */
function keysOf(orders: WindowOrderColumns, n: number): (number | null)[] {
  const first = orders[0];
  return Array.from({ length: n }, (_v, i) => {
    const value = first === undefined ? null : first[i]!;
    return value === null ? null : Number(value);
  });
}

/**
 * The ORDER BY values of a partition's rows in sorted order, key by key: `orders[k][i]` is key k
 * of row i.
 */
export type WindowOrderColumns = readonly (readonly SqlValue[])[];

/** One pass over the partition's `n` rows. */
export async function frameBounds(frame: WindowFrameSpec, descending: boolean, orders: WindowOrderColumns,
  n: number, work: SqlWorkSlice): Promise<WindowFrameBounds> {
  if (frame.unit === 'ROWS') return rowsBounds(frame, n);
  const offsets = hasOffset(frame.start) || hasOffset(frame.end);
  const keys = keysOf(orders, n);
  if (offsets && keys.some((key) => key !== null && Number.isNaN(key))) {
    return frameBoundsPerRow(frame, descending, orders, n, work);
  }
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  // Peer groups: rows with equal ORDER BY values are contiguous (sorted).
  const groupFirst = new Int32Array(n);
  const groupLast = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    groupFirst[i] = i > 0 && peers(orders, i - 1, i) ? groupFirst[i - 1]! : i;
  }
  for (let i = n - 1; i >= 0; i--) {
    groupLast[i] = i < n - 1 && peers(orders, i, i + 1) ? groupLast[i + 1]! : i;
  }
  // Distance of row j ahead of row i along the ORDER BY direction; both keys non-NULL.
  const ahead = (i: number, j: number): number => (descending ? keys[i]! - keys[j]! : keys[j]! - keys[i]!);
  // Frame start: the first non-NULL row at least `least` ahead; end: the last at most `most` ahead.
  const least = frame.start.kind === 'PRECEDING' ? -frame.start.offset : frame.start.offset;
  const most = frame.end.kind === 'PRECEDING' ? -frame.end.offset : frame.end.offset;
  // The non-NULL keys are contiguous (NULL sorts first ascending, last descending): [lo, hi).
  let lo = 0;
  while (lo < n && keys[lo] === null) lo++;
  let hi = n;
  while (hi > lo && keys[hi - 1] === null) hi--;
  for (let j = lo; j < hi; j++) assert(keys[j] !== null);
  let from = lo;
  let to = lo - 1;
  for (let i = 0; i < n; i++) {
    if (keys[i] === null && offsets) {
      // NULL keys are peers of each other only.
      starts[i] = frame.start.kind === 'UNBOUNDED PRECEDING' ? 0 : groupFirst[i]!;
      ends[i] = frame.end.kind === 'UNBOUNDED FOLLOWING' ? n - 1 : groupLast[i]!;
      continue;
    }
    switch (frame.start.kind) {
      case 'UNBOUNDED PRECEDING': starts[i] = 0; break;
      case 'CURRENT ROW': starts[i] = groupFirst[i]!; break;
      default:
        while (from < hi && ahead(i, from) < least) from++;
        starts[i] = from;
    }
    switch (frame.end.kind) {
      case 'UNBOUNDED FOLLOWING': ends[i] = n - 1; break;
      case 'CURRENT ROW': ends[i] = groupLast[i]!; break;
      default:
        while (to + 1 < hi && ahead(i, to + 1) <= most) to++;
        ends[i] = to;
    }
  }
  if (work.spend(3 * n)) await work.pause();
  return { starts, ends };
}

function rowsBounds(frame: WindowFrameSpec, n: number): WindowFrameBounds {
  const at = (bound: SqlPlanFrameBound, i: number): number => {
    switch (bound.kind) {
      case 'UNBOUNDED PRECEDING': return 0;
      case 'UNBOUNDED FOLLOWING': return n - 1;
      case 'CURRENT ROW': return i;
      case 'PRECEDING': return i - bound.offset;
      case 'FOLLOWING': return i + bound.offset;
    }
  };
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    // Offsets may exceed the Int32 range: clamp before storing.
    starts[i] = Math.max(0, Math.min(n, at(frame.start, i)));
    ends[i] = Math.min(n - 1, Math.max(-1, at(frame.end, i)));
  }
  return { starts, ends };
}

function peers(orders: WindowOrderColumns, i: number, j: number): boolean {
  return orders.every((column) => compareSqlValues(column[i]!, column[j]!) === 0);
}

/** The definition, row by row: each row's search walks the partition from both ends. */
export async function frameBoundsPerRow(frame: WindowFrameSpec, descending: boolean,
  orders: WindowOrderColumns, n: number, work: SqlWorkSlice): Promise<WindowFrameBounds> {
  if (frame.unit === 'ROWS') return rowsBounds(frame, n);
  const { start, end } = frame;
  const keys = keysOf(orders, n);
  const key = (j: number): number | null => keys[j]!;
  const ahead = (i: number, j: number): number => (descending ? key(i)! - key(j)! : key(j)! - key(i)!);
  const inside = (bound: SqlPlanFrameBound, i: number, j: number, side: 'start' | 'end'): boolean => {
    switch (bound.kind) {
      case 'UNBOUNDED PRECEDING': case 'UNBOUNDED FOLLOWING': return true;
      case 'CURRENT ROW':
        return side === 'start' ? j >= i || peers(orders, i, j) : j <= i || peers(orders, i, j);
      case 'PRECEDING': return side === 'start' ? ahead(i, j) >= -bound.offset : ahead(i, j) <= -bound.offset;
      case 'FOLLOWING': return side === 'start' ? ahead(i, j) >= bound.offset : ahead(i, j) <= bound.offset;
    }
  };
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const [from, to] = rangeBounds(i);
    starts[i] = from;
    ends[i] = to;
    if (work.spend(1 + Math.max(0, from) + Math.max(0, n - 1 - to))) await work.pause();
  }
  return { starts, ends };

  function rangeBounds(i: number): [number, number] {
    if (key(i) === null && (hasOffset(start) || hasOffset(end))) {
      let first = i;
      let last = i;
      while (first > 0 && key(first - 1) === null) first--;
      while (last < n - 1 && key(last + 1) === null) last++;
      return [start.kind === 'UNBOUNDED PRECEDING' ? 0 : first, end.kind === 'UNBOUNDED FOLLOWING' ? n - 1 : last];
    }
    const counts = (bound: SqlPlanFrameBound, j: number) => key(j) !== null || !hasOffset(bound);
    let from = 0;
    while (from < n && !(counts(start, from) && inside(start, i, from, 'start'))) from++;
    let to = n - 1;
    while (to >= 0 && !(counts(end, to) && inside(end, i, to, 'end'))) to--;
    // No key in reach: the start stops at the trailing NULLs, the end passes the leading ones.
    if (from === n) while (from > 0 && key(from - 1) === null) from--;
    if (to === -1) while (to + 1 < n && key(to + 1) === null) to++;
    assert(from >= 0 && to < n);
    return [from, to];
  }
}
