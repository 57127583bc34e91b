// Runs the time-series functions of the select list (time-series-bind.ts) over a container's rows.
// WHERE applies first, as in GridDB's server: a function sees only the rows WHERE selects, and its
// neighbours are the nearest selected rows. The plan's key range bounds every read.
//
//   TIME_NEXT*, TIME_PREV*   one read from the time in the key's order, stopping at the first
//                            selected row: O(1) blocks through the row-key B+tree without WHERE
//   TIME_INTERPOLATED        the row at or before the time, and the one after it: two such reads
//   TIME_SAMPLING            the row before the start, then one forward pass over the rows from
//                            the start until past the last point: O(points + rows), no search per
//                            point (time-series-sampling.ts)
//   TIME_AVG, MAX_ROWS/MIN_ROWS  the key and value columns in batches when every row in range is
//                            selected (no WHERE); else rows one by one
//
// A result of rows is then sorted by ORDER BY (stable: ties keep key order), and OFFSET and LIMIT
// cut it. A result longer than TQL_RESULT_ROW_COUNT_MAX is LIMIT_EXCEEDED; a sampling whose points
// could exceed it is refused before any row is read.

import { assert } from '../../base/assert.ts';
import { StorageError } from '../../base/errors.ts';
import { TQL_RESULT_ROW_COUNT_MAX } from '../../base/limits.ts';
import type { Row, RowKey } from '../../schema/column-type.ts';
import { compareDoubles, compareIntegrals, type Integral } from './arithmetic.ts';
import type { TqlColumnBatch, TqlRowSource, TqlRunStats, TqlSourceScan } from './execute.ts';
import { rowComparator } from './order.ts';
import type { PreparedTql } from './prepare.ts';
import type { TimeSeriesSelection } from './time-series-bind.ts';
import { interpolatedValue, sampleRows, samplingRowCountMax } from './time-series-sampling.ts';
import { batchRowPass } from './time-series-sampling-columns.ts';
import { sampleApiRows } from './time-series-sampling-api.ts';
import { isFloating, type TqlValue } from './types.ts';

export type TimeSeriesOutcome =
  | { readonly kind: 'rows'; readonly rows: Row[] }
  | { readonly kind: 'aggregate'; readonly value: number | null };

/** Key bounds in key units, inclusive; undefined: open. */
export interface KeyBounds {
  readonly from?: bigint;
  readonly to?: bigint;
  readonly direction: 'asc' | 'desc';
}

/** Reads the selected rows of a query within bounds, for the functions here. */
export class SelectedRows {
  constructor(
    private readonly query: PreparedTql,
    private readonly source: TqlRowSource,
    private readonly counter: TqlRunStats,
  ) {}

  /** Calls visit with each selected row in order until it returns false. */
  forEach(bounds: KeyBounds, visit: (row: Row) => boolean, pageRowCountMax?: number): void {
    const scan = this.scanOf(bounds, pageRowCountMax);
    if (scan === undefined) return;
    const filter = this.query.filter;
    for (const page of this.source.pages(scan)) {
      for (const row of page.rows) {
        this.counter.scannedRowCount++;
        if (filter !== undefined && filter(row) !== true) continue;
        this.counter.selectedRowCount++;
        if (!visit(row)) return;
      }
    }
  }

  /** The first selected row within bounds, in their direction. */
  first(bounds: KeyBounds): Row | undefined {
    let found: Row | undefined;
    // Without WHERE the first row in range is the answer: a page of one row is enough.
    const pageRowCountMax = this.query.filter === undefined ? 1 : undefined;
    this.forEach(bounds, (row) => {
      found = row;
      return false;
    }, pageRowCountMax);
    return found;
  }

  /** The scan of bounds within the plan's range; undefined when nothing can be in range. */
  scanOf(bounds: KeyBounds, pageRowCountMax?: number): TqlSourceScan | undefined {
    const plan = this.query.plan;
    if (plan.empty) return undefined;
    // Without bounds of its own a read is the plan's, whatever the key (MAX_ROWS on a collection).
    if (bounds.from === undefined && bounds.to === undefined) {
      return { from: plan.from, to: plan.to, after: undefined, direction: bounds.direction };
    }
    assert(this.query.schema.type === 'TIME_SERIES');
    const planFrom = plan.from === undefined ? undefined : BigInt(plan.from as Integral);
    const planTo = plan.to === undefined ? undefined : BigInt(plan.to as Integral);
    const from = larger(planFrom, bounds.from);
    const to = smaller(planTo, bounds.to);
    if (from !== undefined && to !== undefined && from > to) return undefined;
    const shape = this.keyShape();
    return {
      from: shape(from), to: shape(to), after: undefined, direction: bounds.direction,
      ...(pageRowCountMax === undefined ? {} : { pageRowCountMax }),
    };
  }

  /** Key units → the key's JS shape: a number for ms, a bigint for µs and ns. */
  keyShape(): (units: bigint | undefined) => number | bigint | undefined {
    const ms = (this.query.schema.columns[0]!.timePrecision ?? 'MILLISECOND') === 'MILLISECOND';
    return (units) => (units === undefined ? undefined : ms ? clampToNumber(units) : units);
  }
}

function clampToNumber(units: bigint): number {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(units > max ? max : units < -max ? -max : units);
}

function larger(a: bigint | undefined, b: bigint | undefined): bigint | undefined {
  return a === undefined ? b : b === undefined || a > b ? a : b;
}

function smaller(a: bigint | undefined, b: bigint | undefined): bigint | undefined {
  return a === undefined ? b : b === undefined || a < b ? a : b;
}

export function executeTimeSeries(
  query: PreparedTql,
  source: TqlRowSource,
  counter: TqlRunStats,
): TimeSeriesOutcome {
  const selection = query.timeSeries;
  assert(selection !== undefined);
  const selected = new SelectedRows(query, source, counter);
  switch (selection.kind) {
    case 'find': return finish(query, findRow(selection, selected));
    case 'interpolate': return finish(query, interpolate(selection, selected));
    case 'sampling': {
      const sorted = needsSort(query);
      const cap = sorted ? Infinity : query.offset + query.limit;
      const rowCountMax = samplingRowCountMax(selection, cap);
      if (rowCountMax > TQL_RESULT_ROW_COUNT_MAX) throw samplingTooLarge(rowCountMax);
      // Without WHERE every row in range is selected: the pass may read columns, not rows.
      const batches = query.filter === undefined ? (bounds: KeyBounds) => {
        const scan = selected.scanOf(bounds);
        return scan === undefined ? undefined : batchRowPass(query, source, scan, counter);
      } : undefined;
      if (selection.api !== undefined) {
        return finish(query, sampleApiRows(selection, selection.api, selected, query.schema,
          rowCountMax));
      }
      return finish(query, sampleRows(selection, selected, rowCountMax, batches));
    }
    case 'timeAvg': return { kind: 'aggregate', value: timeAverage(query, selection, source,
      selected, counter) };
    case 'extremeRows': return finish(query, extremeRows(query, selection, source, selected,
      counter));
  }
  return assert(false, 'a time-series selection of no kind') as never;
}

/** ORDER BY other than the key ascending first: the result is sorted. */
function needsSort(query: PreparedTql): boolean {
  const first = query.orderBy[0];
  return first !== undefined && (first.columnIndex !== 0 || first.descending);
}

function finish(query: PreparedTql, rows: Row[]): TimeSeriesOutcome {
  if (query.orderBy.length > 0) rows.sort(rowComparator(query.orderBy));
  const end = query.offset + query.limit;
  return { kind: 'rows', rows: rows.slice(query.offset, end) };
}

function findRow(
  selection: TimeSeriesSelection & { kind: 'find' },
  selected: SelectedRows,
): Row[] {
  const time = selection.time;
  if (time === undefined) return [];
  let bounds: KeyBounds;
  switch (selection.function) {
    case 'TIME_NEXT': bounds = { from: time.ceil, direction: 'asc' }; break;
    case 'TIME_NEXT_ONLY': bounds = { from: time.floor + 1n, direction: 'asc' }; break;
    case 'TIME_PREV': bounds = { to: time.floor, direction: 'desc' }; break;
    case 'TIME_PREV_ONLY': bounds = { to: time.ceil - 1n, direction: 'desc' }; break;
  }
  const row = selected.first(bounds);
  return row === undefined ? [] : [row];
}

function interpolate(
  selection: TimeSeriesSelection & { kind: 'interpolate' },
  selected: SelectedRows,
): Row[] {
  const time = selection.time;
  if (time === undefined) return [];
  const previous = selected.first({ to: time, direction: 'desc' });
  if (previous === undefined) return [];
  if (BigInt(previous[0] as Integral) === time) return [previous];
  const next = selected.first({ from: time + 1n, direction: 'asc' });
  if (next === undefined) return [];
  const row = previous.slice();
  row[0] = selected.keyShape()(time)!;
  const index = selection.columnIndex;
  row[index] = interpolatedValue(selection.columnType, {
    time, previousTime: BigInt(previous[0] as Integral), nextTime: BigInt(next[0] as Integral),
    previous: previous[index] as TqlValue, next: next[index] as TqlValue,
  });
  return [row];
}

function samplingTooLarge(rowCount: number): StorageError {
  return new StorageError('LIMIT_EXCEEDED', `TIME_SAMPLING would make up to ${rowCount} rows; ` +
    `a query result may hold at most ${TQL_RESULT_ROW_COUNT_MAX}: narrow the range, widen the ` +
    'interval, or add a LIMIT');
}

function resultTooLarge(name: string): StorageError {
  return new StorageError('LIMIT_EXCEEDED', `${name} selects more than ` +
    `${TQL_RESULT_ROW_COUNT_MAX} rows, the most a query result may hold`);
}

// ---- columns -------------------------------------------------------------------------------

/**
 * The key and one value column of every row in range, zipped batch by batch; undefined when rows
 * must be read one by one (a WHERE to evaluate, or a source without batches).
 */
function keyValueBatches(
  query: PreparedTql,
  source: TqlRowSource,
  selected: SelectedRows,
  columnIndex: number,
): Iterable<[TqlColumnBatch, TqlColumnBatch]> | undefined {
  if (query.filter !== undefined || query.schema.type !== 'TIME_SERIES') return undefined;
  if (source.columnBatches === undefined) return undefined;
  const scan = selected.scanOf({ direction: 'asc' });
  if (scan === undefined) return [];
  const keys = source.columnBatches(scan, 0);
  const values = source.columnBatches(scan, columnIndex);
  if (keys === undefined || values === undefined) return undefined;
  return zip(keys, values);
}

function* zip(
  keys: Iterable<TqlColumnBatch>,
  values: Iterable<TqlColumnBatch>,
): Generator<[TqlColumnBatch, TqlColumnBatch]> {
  const valueIterator = values[Symbol.iterator]();
  for (const key of keys) {
    const value = valueIterator.next();
    assert(value.done !== true);
    assert(value.value.rowCount === key.rowCount, 'column batches of unlike row counts');
    yield [key, value.value];
  }
  assert(valueIterator.next().done === true);
}

/**
 * GridDB's TIME_AVG: each non-NULL value weighs the time from the midpoint to its previous value
 * to the midpoint to its next (the first and last from their own key); a lone value is the result.
 * Midpoints are truncated to key units as the server's integer arithmetic does.
 */
class TimeAverage {
  private count = 0;
  private beforeTime = 0n;
  private beforeMid = 0n;
  private beforeValue = 0;
  private weightedSum = 0;
  private weight = 0;

  add(time: bigint, value: number): void {
    if (this.count++ === 0) {
      this.beforeTime = time;
      this.beforeMid = time;
      this.beforeValue = value;
      return;
    }
    assert(time > this.beforeTime, 'TIME_AVG values out of key order');
    const mid = (time - this.beforeTime) / 2n + this.beforeTime;
    const weight = Number(mid - this.beforeMid);
    this.weightedSum += this.beforeValue * weight;
    this.weight += weight;
    this.beforeTime = time;
    this.beforeMid = mid;
    this.beforeValue = value;
  }

  result(): number | null {
    if (this.count === 0) return null;
    if (this.count === 1) return this.beforeValue;
    const weight = Number(this.beforeTime - this.beforeMid);
    return (this.weightedSum + this.beforeValue * weight) / (this.weight + weight);
  }
}

function timeAverage(
  query: PreparedTql,
  selection: TimeSeriesSelection & { kind: 'timeAvg' },
  source: TqlRowSource,
  selected: SelectedRows,
  counter: TqlRunStats,
): number | null {
  const average = new TimeAverage();
  const index = selection.columnIndex;
  const batches = keyValueBatches(query, source, selected, index);
  if (batches !== undefined) {
    counter.aggregateInput = 'COLUMN_BATCHES';
    for (const [keys, values] of batches) {
      counter.scannedRowCount += keys.rowCount;
      counter.selectedRowCount += keys.rowCount;
      for (let i = 0; i < keys.rowCount; i++) {
        if (values.nulls !== undefined && values.nulls[i] === 1) continue;
        average.add(BigInt(keys.values[i] as Integral), Number(values.values[i]));
      }
    }
  } else {
    counter.aggregateInput = 'ROWS';
    selected.forEach({ direction: 'asc' }, (row) => {
      const value = row[index];
      if (value !== null) average.add(BigInt(row[0] as Integral), Number(value));
      return true;
    });
  }
  return query.limit === 0 || query.offset > 0 ? null : average.result();
}

function extremeRows(
  query: PreparedTql,
  selection: TimeSeriesSelection & { kind: 'extremeRows' },
  source: TqlRowSource,
  selected: SelectedRows,
  counter: TqlRunStats,
): Row[] {
  const order = isFloating(selection.columnType)
    ? (a: TqlValue, b: TqlValue) => compareDoubles(a as number, b as number)
    : (a: TqlValue, b: TqlValue) => compareIntegrals(a as Integral, b as Integral);
  const sign = selection.function === 'MIN_ROWS' ? -1 : 1;
  const index = selection.columnIndex;
  let best: TqlValue = null;
  const batches = keyValueBatches(query, source, selected, index);
  if (batches === undefined) {
    let rows: Row[] = [];
    selected.forEach({ direction: 'asc' }, (row) => {
      const value = row[index] as TqlValue;
      if (value === null) return true;
      const compared = best === null ? 1 : sign * order(value, best);
      if (compared > 0) {
        best = value;
        rows = [row];
      } else if (compared === 0) {
        if (rows.length === TQL_RESULT_ROW_COUNT_MAX) throw resultTooLarge(selection.function);
        rows.push(row);
      }
      return true;
    });
    return rows;
  }
  // Columns first: the keys of the rows holding the extreme, then those rows alone.
  let keys: RowKey[] = [];
  for (const [keyBatch, values] of batches) {
    counter.scannedRowCount += keyBatch.rowCount;
    for (let i = 0; i < keyBatch.rowCount; i++) {
      if (values.nulls !== undefined && values.nulls[i] === 1) continue;
      const value = values.values[i] as TqlValue;
      const compared = best === null ? 1 : sign * order(value, best);
      if (compared > 0) {
        best = value;
        keys = [keyBatch.values[i] as RowKey];
      } else if (compared === 0) {
        if (keys.length === TQL_RESULT_ROW_COUNT_MAX) throw resultTooLarge(selection.function);
        keys.push(keyBatch.values[i] as RowKey);
      }
    }
  }
  // Each lookup counts its row as read and selected.
  return keys.map((key) => {
    const units = BigInt(key as Integral);
    const row = selected.first({ from: units, to: units, direction: 'asc' });
    assert(row !== undefined, 'a row of a column batch is gone');
    return row;
  });
}
