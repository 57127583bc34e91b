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
import type { KeyBounds, SelectedRows } from './time-series-execute.ts';
import type { RowPass } from './time-series-sampling-columns.ts';
import type { TqlColumnBatch } from './execute.ts';
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
  batches?: (bounds: KeyBounds) => RowPass<readonly TqlColumnBatch[]> | undefined,
): Row[] {
  const points = selection.points;
  const rows: Row[] = [];
  if (points === undefined || points.count === 0n || rowCountMax === 0) return rows;
  const shape = selected.keyShape();
  // Points are kept in the key's own shape (a number of ms, else a bigint), so that the pass
  // compares each row's key as it is, with no conversion per row.
  const end = shape(points.end)!;
  const step = stepper(points.interval, typeof end === 'number');
  const first = selected.first({ to: points.start - 1n, direction: 'desc' });
  const bounds = { from: points.start, direction: 'asc' } as const;
  const batchPass = batches?.(bounds);
  const context = { selection, rowCountMax, end, step, first, start: shape(points.start)! };
  if (batchPass !== undefined) return samplePass(batchPass, context);
  return samplePass(rowPass(selected, bounds), context);
}

/** Selected rows as a RowPass: each row is its own holder. */
function rowPass(selected: SelectedRows, bounds: KeyBounds): RowPass<Row> {
  return {
    forEach: (visit) => selected.forEach(bounds, (row) => visit(row[0] as Integral, row, 0)),
    row: (row) => row,
    value: (row, _, column) => row[column] as TqlValue,
  };
}

interface SampleContext {
  readonly selection: TimeSeriesSelection & { kind: 'sampling' };
  readonly rowCountMax: number;
  readonly start: Integral;
  readonly end: Integral;
  readonly step: Stepper;
  /** The last selected row before the start. */
  readonly first: Row | undefined;
}

/** The forward pass: rows are made only for the points. */
function samplePass<Holder>(pass: RowPass<Holder>, context: SampleContext): Row[] {
  const { selection, rowCountMax, end, step, first } = context;
  const column = selection.columnIndex;
  const rows: Row[] = [];
  // The previous row: its key, and where to make it from (the first one is made already).
  let previousKey: Integral | undefined = first?.[0] as Integral | undefined;
  let previousHolder: Holder | undefined;
  let previousIndex = 0;
  const previousRow = (): Row => (previousHolder === undefined ? first!.slice()
    : pass.row(previousHolder, previousIndex).slice());
  let point = context.start;
  pass.forEach((key, holder, index) => {
    if (previousKey === undefined && point < key) {
      // No row before: the points up to this row have no reference rows.
      point = step.firstFrom(point, key);
    }
    while (point < key && point <= end) {
      const row = previousRow();
      if (column !== undefined) {
        row[column] = interpolatedValue(selection.columnType!, {
          time: BigInt(point), previousTime: BigInt(previousKey!), nextTime: BigInt(key),
          previous: row[column] as TqlValue, next: pass.value(holder, index, column),
        });
      }
      row[0] = point;
      rows.push(row);
      if (rows.length === rowCountMax) return false;
      point = step.next(point);
    }
    if (point === key && point <= end) {
      rows.push(pass.row(holder, index));
      if (rows.length === rowCountMax) return false;
      point = step.next(point);
    }
    previousKey = key;
    previousHolder = holder;
    previousIndex = index;
    return point <= end;
  });
  return rows;
}

interface Stepper {
  next(point: Integral): Integral;
  /** The first point at or after `key`, stepping from `point`. */
  firstFrom(point: Integral, key: Integral): Integral;
}

function stepper(interval: bigint, milliseconds: boolean): Stepper {
  const firstFrom = (point: Integral, key: Integral): bigint => {
    const from = BigInt(point);
    return from + (BigInt(key) - from + interval - 1n) / interval * interval;
  };
  if (!milliseconds) {
    return {
      next: (point) => (point as bigint) + interval,
      firstFrom,
    };
  }
  // Beyond 2^53 ms a point is past every storable time, so number arithmetic stays exact where
  // it matters.
  const step = Number(interval);
  return {
    next: (point) => (point as number) + step,
    firstFrom: (point, key) => Number(firstFrom(point, key)),
  };
}
