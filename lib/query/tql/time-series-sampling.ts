// TIME_SAMPLING and the interpolation it shares with TIME_INTERPOLATED (spec/surface.md §3.5,
// GridDB's SelectionTimeSampling and getInterpolatedValue).
//
// Points are start, start + interval, ... not after end. A point on a selected row gives that row
// as it is; a point between two selected rows gives the earlier row with the point as its key and,
// when a column is named, that column interpolated linearly (NULL when either neighbour's value is
// NULL); with `*` every field is the earlier row's. Points before the first selected row or after
// the last give nothing. One forward pass: the row before the start, then rows from the start,
// each point visited once and each row once, O(points + rows).
//
// Interpolation is GridDB's arithmetic: rate = (t − t1) / (t2 − t1) as a double, value = v1 +
// rate × (v2 − v1) in doubles, then back to the column's type: integers truncated toward zero
// (a LONG beyond its range by rounding near ±2^63 is held at the bound), FLOAT rounded to single.

import { INT64_MAX, INT64_MIN, type Row } from '../../schema/column-type.ts';
import type { Integral } from './arithmetic.ts';
import type { SelectedRows } from './time-series-execute.ts';
import type { TimeSeriesSelection } from './time-series-bind.ts';
import type { TqlType, TqlValue } from './types.ts';

export interface InterpolationInput {
  readonly time: bigint;
  readonly previousTime: bigint;
  readonly nextTime: bigint;
  readonly previous: TqlValue;
  readonly next: TqlValue;
}

export function interpolatedValue(type: TqlType, input: InterpolationInput): TqlValue {
  const { previous, next } = input;
  if (previous === null || next === null) return null;
  const rate = Number(input.time - input.previousTime) /
    Number(input.nextTime - input.previousTime);
  const difference = typeof previous === 'bigint' || typeof next === 'bigint'
    ? Number(BigInt(next as Integral) - BigInt(previous as Integral))
    : (next as number) - (previous as number);
  const value = Number(previous as Integral) + rate * difference;
  switch (type.scalar) {
    case 'DOUBLE': return value;
    case 'FLOAT': return Math.fround(value);
    case 'LONG': {
      const whole = BigInt(Math.trunc(value));
      return whole > INT64_MAX ? INT64_MAX : whole < INT64_MIN ? INT64_MIN : whole;
    }
    default: return Math.trunc(value);
  }
}

/** Rows the sampling can make at most: its points, or `cap` when fewer. */
export function samplingRowCountMax(
  selection: TimeSeriesSelection & { kind: 'sampling' },
  cap: number,
): number {
  const points = selection.points;
  if (points === undefined) return 0;
  return Math.min(Number(points.count), cap);
}

export function sampleRows(
  selection: TimeSeriesSelection & { kind: 'sampling' },
  selected: SelectedRows,
  rowCountMax: number,
): Row[] {
  const points = selection.points;
  const rows: Row[] = [];
  if (points === undefined || points.count === 0n || rowCountMax === 0) return rows;
  const { end, interval } = points;
  const shape = selected.keyShape();
  const column = selection.columnIndex;
  const pointRow = (previous: Row, next: Row, point: bigint): Row => {
    const row = previous.slice();
    row[0] = shape(point)!;
    if (column !== undefined) {
      row[column] = interpolatedValue(selection.columnType!, {
        time: point, previousTime: BigInt(previous[0] as Integral),
        nextTime: BigInt(next[0] as Integral),
        previous: previous[column] as TqlValue, next: next[column] as TqlValue,
      });
    }
    return row;
  };
  let previous = selected.first({ to: points.start - 1n, direction: 'desc' });
  let point = points.start;
  selected.forEach({ from: points.start, direction: 'asc' }, (row) => {
    const key = BigInt(row[0] as Integral);
    if (previous === undefined && point < key) {
      // No row before: the points up to this row have no reference rows.
      point += (key - point + interval - 1n) / interval * interval;
    }
    while (point < key && point <= end) {
      rows.push(pointRow(previous!, row, point));
      if (rows.length === rowCountMax) return false;
      point += interval;
    }
    if (point === key && point <= end) {
      rows.push(row);
      if (rows.length === rowCountMax) return false;
      point += interval;
    }
    previous = row;
    return point <= end;
  });
  return rows;
}
