// A window aggregate over frames that slide: one pass over the partition, O(rows). The frame is
// kept as [lo, hi]; each row's frame drops rows from the front and adds rows at the back, because
// the starts and ends of non-empty frames do not fall (window-frame-bounds.ts: rows sorted, NULL
// keys at one end), except once where NaN keys begin. An empty frame is skipped; a frame past the
// last, or one that moves back, starts afresh.
//   COUNT             a count of the non-NULL values.
//   SUM of integers   an exact BigInt sum; beyond LONG is SQL_PROC_VALUE_OVERFLOW, as GROUP BY's.
//   SUM, TOTAL, AVG   a compensated (Neumaier) sum of the finite values, with NaN and ±Infinity
//                     counted apart, so a NaN or an infinity leaving the frame leaves no trace.
//                     Integers below 2^53 sum exactly, as in the per-frame path; other doubles
//                     may differ from the per-frame left-to-right sum in the last bits (the
//                     compensated sum is the nearer). Values so large that the frame's sum could
//                     overflow take the per-frame path.
//   MIN, MAX          a monotonic deque of row indexes, kept by the accumulator's own preference
//                     (aggregates.ts: extremePrefers), so the same value (0 or -0, first kept) wins.
// Others (STDDEV and VAR: running moments drift from the per-frame Welford in the last bits,
// and a frame of equal values must give exactly 0) answer undefined: the caller runs them per
// frame.

import { assert } from '../../base/assert.ts';
import { StorageError } from '../../base/errors.ts';
import { INT64_MAX, INT64_MIN } from '../../schema/column-type.ts';
import type { SqlAggregateCall } from '../plan/logical-plan.ts';
import { SQL_INTEGER_TYPES, type SqlType, type SqlValue } from '../value.ts';
import { createAccumulator, extremePrefers } from './aggregates.ts';
import type { WindowFrameBounds } from './window-frame-bounds.ts';
import type { SqlWorkSlice } from './work-slice.ts';

/** A frame's state: rows enter at the back and leave at the front, in index order. */
interface SlidingState {
  add(index: number): void;
  remove(index: number): void;
  clear(): void;
  result(): SqlValue;
}

/** A sliding aggregate's state for this call, or undefined where it has none (see the top). */
function slidingState(call: SqlAggregateCall, argType: SqlType, args: readonly SqlValue[]):
  SlidingState | undefined {
  if (call.distinct) return undefined;
  switch (call.name) {
    case 'COUNT': return countState(args);
    case 'SUM':
      return SQL_INTEGER_TYPES.has(argType) ? longSumState(args) : doubleSumState(args, 'SUM');
    case 'TOTAL': return doubleSumState(args, 'TOTAL');
    case 'AVG': return doubleSumState(args, 'AVG');
    case 'MIN': case 'MAX': return extremeState(args, extremePrefers(call.name, argType));
    default: return undefined;
  }
}

/**
 * Each row's aggregate over its frame in one pass; undefined when this aggregate (or these
 * values) has no sliding form.
 */
export async function slidingAggregate(call: SqlAggregateCall, argType: SqlType,
  args: readonly SqlValue[], bounds: WindowFrameBounds, work: SqlWorkSlice): Promise<SqlValue[] | undefined> {
  const state = slidingState(call, argType, args);
  if (state === undefined) return undefined;
  const n = args.length;
  const empty = createAccumulator(call, argType).result();
  const out = new Array<SqlValue>(n);
  let lo = 0;
  let hi = -1;
  for (let i = 0; i < n; i++) {
    const start = bounds.starts[i]!;
    const end = bounds.ends[i]!;
    if (end < start) {
      out[i] = empty;
      continue;
    }
    assert(start >= 0 && end < n);
    let steps = 1;
    if (hi < lo || start > hi || start < lo || end < hi) {
      // A frame past the last one (or the first) starts afresh: none of its rows were added yet.
      // So does one that moves back, which only a NaN key's frame does (window-frame-bounds.ts).
      state.clear();
      for (let j = start; j <= end; j++) state.add(j);
      steps += end - start + 1;
    } else {
      steps += start - lo + end - hi;
      for (let j = lo; j < start; j++) state.remove(j);
      for (let j = hi + 1; j <= end; j++) state.add(j);
    }
    lo = start;
    hi = end;
    out[i] = state.result();
    if (work.spend(steps)) await work.pause();
  }
  return out;
}

function countState(args: readonly SqlValue[]): SlidingState {
  let count = 0;
  return {
    add(index) { if (args[index] !== null) count++; },
    remove(index) { if (args[index] !== null) count--; },
    clear() { count = 0; },
    result: () => BigInt(count),
  };
}

function longSumState(args: readonly SqlValue[]): SlidingState {
  let sum = 0n;
  let count = 0;
  return {
    add(index) {
      const value = args[index]!;
      if (value === null) return;
      sum += BigInt(value as number | bigint);
      count++;
    },
    remove(index) {
      const value = args[index]!;
      if (value === null) return;
      sum -= BigInt(value as number | bigint);
      count--;
    },
    clear() { sum = 0n; count = 0; },
    result() {
      if (count === 0) return null;
      if (sum > INT64_MAX || sum < INT64_MIN) {
        throw new StorageError('SQL_PROC_VALUE_OVERFLOW', 'integer overflow: SUM is beyond LONG');
      }
      return sum;
    },
  };
}

/** Finite values may sum past the double range beyond this: such a partition runs per frame. */
const SLIDING_SUM_MAGNITUDE_MAX = Number.MAX_VALUE / 4;

function doubleSumState(args: readonly SqlValue[], name: 'SUM' | 'TOTAL' | 'AVG'): SlidingState | undefined {
  const values = new Float64Array(args.length);
  let magnitude = 0;
  for (let i = 0; i < args.length; i++) {
    const value = args[i]!;
    values[i] = value === null ? 0 : Number(value);
    if (Number.isFinite(values[i]!)) magnitude += Math.abs(values[i]!);
  }
  if (!(magnitude <= SLIDING_SUM_MAGNITUDE_MAX)) return undefined;
  let count = 0;
  let nanCount = 0;
  let positiveCount = 0;
  let negativeCount = 0;
  let sum = 0;
  let compensation = 0;
  const step = (x: number): void => {
    // Neumaier: the low-order bits `sum + x` loses go to the compensation.
    const t = sum + x;
    compensation += Math.abs(sum) >= Math.abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  };
  const move = (index: number, sign: 1 | -1): void => {
    if (args[index] === null) return;
    const x = values[index]!;
    count += sign;
    if (x !== x) nanCount += sign;
    else if (x === Infinity) positiveCount += sign;
    else if (x === -Infinity) negativeCount += sign;
    else step(sign * x);
    // An empty frame sums to exactly 0 again, whatever rounding the moves left.
    if (count === 0) { sum = 0; compensation = 0; }
  };
  const total = (): number => {
    if (nanCount > 0 || (positiveCount > 0 && negativeCount > 0)) return NaN;
    if (positiveCount > 0) return Infinity;
    if (negativeCount > 0) return -Infinity;
    return sum + compensation;
  };
  return {
    add: (index) => move(index, 1),
    remove: (index) => move(index, -1),
    clear() { count = 0; nanCount = 0; positiveCount = 0; negativeCount = 0; sum = 0; compensation = 0; },
    result() {
      if (count === 0) return name === 'TOTAL' ? 0 : null;
      return name === 'AVG' ? total() / count : total();
    },
  };
}

function extremeState(args: readonly SqlValue[], prefers: (value: SqlValue, than: SqlValue) => boolean):
  SlidingState {
  // Row indexes, oldest first, none preferred over one before it: the front is the frame's pick.
  // Each index enters once between clears, so n slots suffice.
  const deque = new Int32Array(args.length);
  let head = 0;
  let tail = 0;
  return {
    add(index) {
      const value = args[index]!;
      if (value === null) return;
      while (tail > head && prefers(value, args[deque[tail - 1]!]!)) tail--;
      assert(tail < deque.length);
      deque[tail++] = index;
    },
    remove(index) {
      if (tail > head && deque[head] === index) head++;
    },
    clear() { head = 0; tail = 0; },
    result: () => (tail > head ? args[deque[head]!]! : null),
  };
}
