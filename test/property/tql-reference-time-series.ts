// The reference for TQL's time-series functions, written apart from lib/query as plainly as
// possible (spec/surface.md §3.5, GridDB's selection_func_impl.h): every function looks at the
// rows WHERE selected, in key order, searching them from the start each time. No paging, no
// one-pass cleverness: the engine's answer must equal this one.
//
// Keys of a time series here are ms TIMESTAMPs (bigints in the reference's terms).

import { INT64_MAX, INT64_MIN, type Row } from '../../lib/schema/column-type.ts';
import {
  refCompare,
  refValue,
  type Kind,
  type RefAnswer,
  type RefValue,
} from './tql-reference.ts';

export type RefTimeSeries = { onSeries: boolean } & (
  | { fn: 'TIME_NEXT' | 'TIME_NEXT_ONLY' | 'TIME_PREV' | 'TIME_PREV_ONLY'; time: bigint | null }
  | {
      fn: 'TIME_INTERPOLATED';
      index: number;
      /** The column's type: INTEGER, LONG, FLOAT, DOUBLE, ... */
      type: string;
      time: bigint | null;
    }
  | {
      fn: 'TIME_SAMPLING';
      /** undefined: `*`. */
      index: number | undefined;
      type: string | undefined;
      start: bigint | null;
      end: bigint;
      /** In ms. */
      intervalMs: bigint;
    }
  | { fn: 'TIME_AVG' | 'MAX_ROWS' | 'MIN_ROWS'; index: number }
);

const keyOf = (row: Row): bigint => refValue(row[0] ?? null, 'time') as bigint;

const numeric = (kind: Kind) => kind === 'int' || kind === 'float' || kind === 'double';

/** Why GridDB refuses the call, or undefined when it is fine. */
function refusal(call: RefTimeSeries, kinds: readonly Kind[]): string | undefined {
  if (call.fn !== 'MAX_ROWS' && call.fn !== 'MIN_ROWS' && !call.onSeries) return 'TQL_SEMANTIC';
  if ((call.fn === 'TIME_INTERPOLATED' || call.fn === 'TIME_AVG') && !numeric(kinds[call.index]!))
    return 'TQL_SEMANTIC';
  if (call.fn === 'TIME_SAMPLING' && call.index !== undefined && !numeric(kinds[call.index]!))
    return 'TQL_SEMANTIC';
  if ((call.fn === 'MAX_ROWS' || call.fn === 'MIN_ROWS') && !numeric(kinds[call.index]!)) {
    if (kinds[call.index] !== 'time') return 'TQL_SEMANTIC';
  }
  return undefined;
}

/** Rows (before ORDER BY, OFFSET and LIMIT), TIME_AVG's value, or an error. */
export function refTimeSeries(
  call: RefTimeSeries,
  selected: readonly Row[],
  kinds: readonly Kind[],
): RefAnswer {
  const refused = refusal(call, kinds);
  if (refused !== undefined) return { kind: 'error', code: refused };
  switch (call.fn) {
    case 'TIME_NEXT':
    case 'TIME_NEXT_ONLY':
    case 'TIME_PREV':
    case 'TIME_PREV_ONLY': {
      if (call.time === null) return { kind: 'rows', rows: [] };
      const t = call.time;
      const test = {
        TIME_NEXT: (k: bigint) => k >= t,
        TIME_NEXT_ONLY: (k: bigint) => k > t,
        TIME_PREV: (k: bigint) => k <= t,
        TIME_PREV_ONLY: (k: bigint) => k < t,
      }[call.fn];
      const matching = selected.filter((row) => test(keyOf(row)));
      const row = call.fn.startsWith('TIME_NEXT') ? matching[0] : matching[matching.length - 1];
      return { kind: 'rows', rows: row === undefined ? [] : [row] };
    }
    case 'TIME_INTERPOLATED': {
      if (call.time === null) return { kind: 'rows', rows: [] };
      const row = pointRow(selected, call.time, call.index, call.type);
      return { kind: 'rows', rows: row === undefined ? [] : [row] };
    }
    case 'TIME_SAMPLING': {
      if (call.start === null) return { kind: 'rows', rows: [] };
      const rows: Row[] = [];
      for (let point = call.start; point <= call.end; point += call.intervalMs) {
        const row = pointRow(selected, point, call.index, call.type);
        if (row !== undefined) rows.push(row);
      }
      return { kind: 'rows', rows };
    }
    case 'TIME_AVG':
      return { kind: 'aggregate', value: timeAverage(selected, call.index) };
    case 'MAX_ROWS':
    case 'MIN_ROWS': {
      const kind = kinds[call.index]!;
      const holding = selected.filter((row) => row[call.index] !== null);
      if (holding.length === 0) return { kind: 'rows', rows: [] };
      const values = holding.map((row) => refValue(row[call.index]!, kind));
      let best: RefValue = values[0]!;
      for (const value of values) {
        const order = refCompare(value, best);
        if (call.fn === 'MAX_ROWS' ? order > 0 : order < 0) best = value;
      }
      return { kind: 'rows', rows: holding.filter((_, i) => refCompare(values[i]!, best) === 0) };
    }
  }
}

/**
 * The row for time t: the selected row at t, else the row before t with key t and (column given)
 * the column on the line between the rows before and after; undefined without both.
 */
function pointRow(
  selected: readonly Row[],
  t: bigint,
  index: number | undefined,
  type: string | undefined,
): Row | undefined {
  const exact = selected.find((row) => keyOf(row) === t);
  if (exact !== undefined) return exact;
  const before = selected.filter((row) => keyOf(row) < t);
  const after = selected.filter((row) => keyOf(row) > t);
  if (before.length === 0 || after.length === 0) return undefined;
  const previous = before[before.length - 1]!;
  const next = after[0]!;
  const row = [...previous];
  row[0] = Number(t);
  if (index !== undefined) row[index] = onLine(previous, next, t, index, type);
  return row;
}

/** GridDB's arithmetic: v1 + rate × (v2 − v1) in doubles, back to the column's type. */
function onLine(
  previous: Row,
  next: Row,
  t: bigint,
  index: number,
  type: string | undefined,
): Row[number] {
  const a = previous[index]!;
  const b = next[index]!;
  if (a === null || b === null) return null;
  const t1 = keyOf(previous);
  const t2 = keyOf(next);
  const rate = Number(t - t1) / Number(t2 - t1);
  if (typeof a === 'bigint') {
    // LONG: the difference is exact before it becomes a double.
    const x = Number(a) + rate * Number((b as bigint) - a);
    const whole = BigInt(Math.trunc(x));
    if (whole > INT64_MAX) return INT64_MAX;
    return whole < INT64_MIN ? INT64_MIN : whole;
  }
  const x = (a as number) + rate * ((b as number) - (a as number));
  if (type === 'INTEGER') return Math.trunc(x);
  return type === 'FLOAT' ? Math.fround(x) : x;
}

/**
 * TIME_AVG: the values (NULLs skipped) in key order, each weighted by the span from the midpoint
 * with its previous value to the midpoint with its next (the ends from their own key); midpoints
 * truncated to whole ms. One value is the result itself; none, no result.
 */
function timeAverage(selected: readonly Row[], index: number): number | null {
  const points = selected
    .filter((row) => row[index] !== null)
    .map((row) => ({ t: keyOf(row), v: Number(row[index]) }));
  if (points.length === 0) return null;
  if (points.length === 1) return points[0]!.v;
  const mid = (i: number) => points[i]!.t + (points[i + 1]!.t - points[i]!.t) / 2n;
  let sum = 0;
  let total = 0;
  for (let i = 0; i < points.length; i++) {
    const left = i === 0 ? points[0]!.t : mid(i - 1);
    const right = i === points.length - 1 ? points[i]!.t : mid(i);
    const weight = Number(right - left);
    sum += points[i]!.v * weight;
    total += weight;
  }
  return sum / total;
}

/**
 * GridDB's sampling call (TimeSeries.query(start, end, columnSet, mode, interval, unit), its
 * server's TimeSeries::sample and sampleWithoutInterp), point by point over every row:
 *
 * - EMPTY: each point gives the row there, else the point with empty values; naming a column is
 *   an error.
 * - LINEAR_OR_PREVIOUS: nothing without a row in [start, end]. A point on a row gives it; else the
 *   latest row before it (any, also before start) with the point as key, each named column on the
 *   line to the first row after the point (none: no row), a DOUBLE rounded to single. With no column
 *   named the first row after the point must be in range, and the points after the last row in
 *   range take that row only when the first of them is before end.
 *
 * Named columns must be numeric and not the key; `types` are the columns' types (INTEGER, ...).
 */
export function refSamplingCall(
  call: { mode: 'LINEAR_OR_PREVIOUS' | 'EMPTY'; columns: readonly number[];
    start: bigint; end: bigint; intervalMs: bigint },
  rows: readonly Row[],
  types: readonly string[],
): RefAnswer {
  const numericType = ['BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE'];
  if (call.mode === 'EMPTY' && call.columns.length > 0) return { kind: 'error', code: 'TQL_SEMANTIC' };
  if (call.columns.some((index) => index === 0 || !numericType.includes(types[index]!))) {
    return { kind: 'error', code: 'TQL_SEMANTIC' };
  }
  const points: bigint[] = [];
  for (let point = call.start; point <= call.end; point += call.intervalMs) points.push(point);
  const at = (point: bigint) => rows.find((row) => keyOf(row) === point);
  if (call.mode === 'EMPTY') {
    const empty = (point: bigint): Row => types.map((type, i) => {
      if (i === 0) return Number(point);
      return { STRING: '', BOOL: false, LONG: 0n }[type] ?? 0;
    });
    return { kind: 'rows', rows: points.map((point) => at(point) ?? empty(point)) };
  }
  const inRange = rows.filter((row) => keyOf(row) >= call.start && keyOf(row) <= call.end);
  if (inRange.length === 0) return { kind: 'rows', rows: [] };
  const lastInRange = keyOf(inRange[inRange.length - 1]!);
  const tail = points.filter((point) => point > lastInRange);
  const out: Row[] = [];
  for (const point of points) {
    const exact = at(point);
    if (exact !== undefined) {
      out.push(exact);
      continue;
    }
    const before = rows.filter((row) => keyOf(row) < point);
    const previous = before[before.length - 1];
    if (previous === undefined) continue;
    const made = [...previous];
    made[0] = Number(point);
    if (call.columns.length === 0) {
      if (point > lastInRange && !(tail[0]! < call.end)) continue;
      out.push(made);
      continue;
    }
    const next = rows.find((row) => keyOf(row) > point);
    if (next === undefined) continue;
    for (const index of call.columns) {
      const value = onLine(previous, next, point, index, types[index]);
      made[index] = types[index] === 'DOUBLE' && value !== null ? Math.fround(value as number)
        : value;
    }
    out.push(made);
  }
  return { kind: 'rows', rows: out };
}
