// TIME_SAMPLING without WHERE from column batches (time-series-sampling.ts has the rules): the key
// column is read block by block to find the rows the points need, and only those rows are built
// from the blocks' column vectors; the rows in between are never made. The same single forward
// pass as the row-by-row form, with the same answers: a point on a row gives that row, a point
// between rows the earlier row with the point as its key and the column interpolated.
//
// Vectors hold values as rows do, except BOOL, which a vector holds as 0 or 1.

import { assert } from '../../base/assert.ts';
import type { Row } from '../../schema/column-type.ts';
import type { Integral } from './arithmetic.ts';
import type { TqlColumnBatch, TqlRowSource, TqlRunStats, TqlSourceScan } from './execute.ts';
import type { PreparedTql } from './prepare.ts';
import type { TqlValue } from './types.ts';

/**
 * Rows in order, each handed out as (key, holder, index) with no row made: `row` and `value` make
 * one or read one of its values when needed. No closure is made per row (they cost).
 */
export interface RowPass<Holder> {
  forEach(visit: (key: Integral, holder: Holder, index: number) => boolean): void;
  row(holder: Holder, index: number): Row;
  value(holder: Holder, index: number, column: number): TqlValue;
}

/** One block's batch of every column. */
type BatchSet = readonly TqlColumnBatch[];

/**
 * The rows of `scan` as column batches, all columns in lock-step; undefined when the source has
 * no batches (a session's own changes, or a source that cannot).
 */
export function batchRowPass(
  query: PreparedTql,
  source: TqlRowSource,
  scan: TqlSourceScan,
  counter: TqlRunStats,
): RowPass<BatchSet> | undefined {
  if (source.columnBatches === undefined) return undefined;
  const columns = query.schema.columns;
  const iterators: Iterator<TqlColumnBatch>[] = [];
  for (let c = 0; c < columns.length; c++) {
    const batches = source.columnBatches(scan, c);
    if (batches === undefined) return undefined;
    iterators.push(batches[Symbol.iterator]());
  }
  const bools = columns.map((column) => column.type === 'BOOL' && !column.array);
  const value = (set: BatchSet, index: number, c: number): TqlValue => {
    const batch = set[c]!;
    if (batch.nulls !== undefined && batch.nulls[index] === 1) return null;
    const stored = batch.values[index] as TqlValue;
    return bools[c] ? stored === 1 : stored;
  };
  return {
    forEach(visit) {
      try {
        for (;;) {
          const results = iterators.map((iterator) => iterator.next());
          if (results[0]!.done === true) {
            assert(results.every((result) => result.done === true));
            return;
          }
          const set = results.map((result) => result.value as TqlColumnBatch);
          const keys = set[0]!;
          assert(set.every((batch) => batch.rowCount === keys.rowCount));
          for (let i = 0; i < keys.rowCount; i++) {
            counter.scannedRowCount++;
            counter.selectedRowCount++;
            if (!visit(keys.values[i] as Integral, set, i)) return;
          }
        }
      } finally {
        for (const iterator of iterators) iterator.return?.();
      }
    },
    row: (set, index) => {
      const row: Row = new Array(columns.length);
      for (let c = 0; c < columns.length; c++) row[c] = value(set, index, c);
      return row;
    },
    value,
  };
}
