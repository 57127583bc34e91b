// GridDB's sampling call, TimeSeries.query(start, end, columnSet, InterpolationMode, interval,
// unit): the node's side of the client's querySampling. GridDB sends it as its own statement
// (QUERY_TIME_SERIES_SAMPLING), not as TQL, and its server answers it with TimeSeries::sample and
// TimeSeries::sampleWithoutInterp, whose rules differ from TQL's TIME_SAMPLING
// (time-series-sampling.ts); they are kept here as that code has them:
//
//   LINEAR_OR_PREVIOUS  a point on a row gives the row. A point between two rows gives the earlier
//     row with the point as its key and each named column on the line between the two rows (NULL
//     when either value is NULL); with no column named, every field is the earlier row's and the
//     points after the last row in range take it too, unless only one point is left and it is the
//     end itself (the server's `targetT < endT`). With columns named, the row after end is read
//     as the later neighbour and points after the last row give nothing. Points before the first
//     row give nothing; no row in [start, end]: no result. An interpolated DOUBLE is rounded to
//     single precision (the server writes `static_cast<float>` into the DOUBLE field).
//   EMPTY  every point gives a row: the row at the point, else the point with the empty value of
//     each other column (GridDB's empty values: "" false 0 epoch POINT(EMPTY), no bytes, no
//     elements; NULL for no column). Naming a column is an error.
//
// The row before start is the first one's earlier neighbour (GridDB's server reads it only when it
// shares a row array with the first row in range; its documentation promises the reference row).
// One forward pass from start, each row read once, ending at the first row past end.

import { assert } from '../../base/assert.ts';
import { emptyValueOf, type Row } from '../../schema/column-type.ts';
import type { ContainerSchema } from '../../schema/container-schema.ts';
import type { Integral } from './arithmetic.ts';
import { tqlSemanticError } from './error.ts';
import type { SelectedRows } from './time-series-execute.ts';
import type { TimeSeriesSelection } from './time-series-bind.ts';
import { interpolatedValue } from './time-series-sampling.ts';
import { columnTqlType, isNumeric, typeName, type TqlValue } from './types.ts';

/** GridDB's InterpolationMode, by its wire number (LINEAR_OR_PREVIOUS 0, EMPTY 1). */
export const SAMPLING_MODES = ['LINEAR_OR_PREVIOUS', 'EMPTY'] as const;
export type SamplingMode = (typeof SAMPLING_MODES)[number];

export interface SamplingApi {
  readonly mode: SamplingMode;
  /** The columns interpolated linearly, by index; empty for EMPTY. */
  readonly columnIndexes: readonly number[];
}

/** GridDB's refusals of a sampling call's columns (TimeSeries::sample, sampleWithoutInterp). */
export function checkSamplingApi(schema: ContainerSchema, api: SamplingApi): void {
  if (api.mode === 'EMPTY' && api.columnIndexes.length > 0) {
    throw tqlSemanticError('EMPTY interpolation names no columns: every field but the key of a ' +
      `point without a row is empty (${api.columnIndexes.length} named)`, undefined);
  }
  for (const index of api.columnIndexes) {
    const column = schema.columns[index];
    if (!Number.isSafeInteger(index) || column === undefined) {
      throw tqlSemanticError(`column ${index} does not exist in ${schema.name} ` +
        `(${schema.columns.length} columns)`, undefined);
    }
    const type = columnTqlType(column);
    if (!isNumeric(type)) {
      throw tqlSemanticError(`sampling cannot interpolate column ${column.name} ` +
        `(${typeName(type)}): it needs a numeric column (BYTE, SHORT, INTEGER, LONG, FLOAT, ` +
        'DOUBLE)', undefined);
    }
  }
}

type Sampling = TimeSeriesSelection & { kind: 'sampling' };

export function sampleApiRows(
  selection: Sampling,
  api: SamplingApi,
  selected: SelectedRows,
  schema: ContainerSchema,
  rowCountMax: number,
): Row[] {
  const points = selection.points;
  const rows: Row[] = [];
  if (points === undefined || points.count === 0n || rowCountMax === 0) return rows;
  const shape = selected.keyShape();
  const keyOf = (units: bigint): Integral => shape(units)!;
  const full = (): boolean => rows.length >= rowCountMax;
  let point = points.start;
  const pastEnd = (): boolean => point > points.end;
  if (api.mode === 'EMPTY') {
    const empty = emptyRow(schema);
    const emptyAt = (at: bigint): Row => {
      const row = empty.slice();
      row[0] = keyOf(at);
      return row;
    };
    selected.forEach({ from: points.start, to: points.end, direction: 'asc' }, (row) => {
      const key = BigInt(row[0] as Integral);
      while (point < key && !full()) {
        rows.push(emptyAt(point));
        point += points.interval;
      }
      if (point === key && !full()) {
        rows.push(row);
        point += points.interval;
      }
      return !full() && !pastEnd();
    });
    while (!pastEnd() && !full()) {
      rows.push(emptyAt(point));
      point += points.interval;
    }
    return rows;
  }
  const named = api.columnIndexes;
  const types = named.map((index) => columnTqlType(schema.columns[index]!));
  let previous = selected.first({ to: points.start - 1n, direction: 'desc' });
  let inRange = false;
  selected.forEach({ from: points.start, direction: 'asc' }, (row) => {
    const key = BigInt(row[0] as Integral);
    if (key > points.end) {
      // The later neighbour of the last points: read only when columns are named (and the rows
      // in range are not none).
      if (named.length === 0 || !inRange) return false;
    }
    inRange = true;
    while (point < key && !pastEnd() && !full()) {
      if (previous !== undefined) {
        const made = previous.slice();
        made[0] = keyOf(point);
        const previousKey = BigInt(previous[0] as Integral);
        for (let i = 0; i < named.length; i++) {
          const index = named[i]!;
          const value = interpolatedValue(types[i]!, {
            time: point, previousTime: previousKey, nextTime: key,
            previous: previous[index] as TqlValue, next: row[index] as TqlValue,
          });
          made[index] = types[i]!.scalar === 'DOUBLE' && value !== null
            ? Math.fround(value as number) : value;
        }
        rows.push(made);
      }
      point += points.interval;
    }
    if (point === key && !pastEnd() && !full()) {
      rows.push(row);
      point += points.interval;
    }
    previous = row;
    return key <= points.end && !pastEnd() && !full();
  });
  if (named.length === 0 && inRange && point < points.end) {
    assert(previous !== undefined);
    while (!pastEnd() && !full()) {
      const made = previous.slice();
      made[0] = keyOf(point);
      rows.push(made);
      point += points.interval;
    }
  }
  return rows;
}

/** A row of GridDB's empty values (the key is set per point). */
function emptyRow(schema: ContainerSchema): Row {
  return schema.columns.map((column) => emptyValueOf(column.type, column));
}
