// An index nested-loop join's look-ups of one left batch read in one engine call (SqlTable's
// lookUpRanges): for each row-key range in turn, one pass over the blocks it spans
// (RowStore.scanBatches, zero-copy), cut into pieces of at most SQL_BATCH_ROW_COUNT rows handed
// to the caller's visit synchronously. A DOUBLE or TIMESTAMP (ms) column without NULLs in the
// piece goes out as a view of the block's Float64Array (no copy, nothing for the collector); the
// others are copied into arrays of SQL values as a scan's pages are. A view is safe because
// nothing runs between the read and the visit: the blocks cannot change while the call runs, and
// the visitor keeps nothing. The call stops after the piece that reaches the request's row budget
// and says where to go on: the next call starts after that row's key, as a scan's next page does,
// so commits between two calls are seen as scanPages sees them.

import { assert } from '../base/assert.ts';
import { SQL_BATCH_ROW_COUNT } from '../base/limits.ts';
import type { KeyValue } from '../schema/column-type.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import type { SqlColumn } from '../sql/exec/evaluate.ts';
import type { SqlLookUpRangesRequest, SqlLookUpStop, SqlLookUpVisit } from '../sql/exec/table-source.ts';
import type { SqlValue } from '../sql/value.ts';
import type { ContainerEntry } from './catalog.ts';
import { appendColumn, keyPrefixAbove, storeBounds } from './sql-database.ts';

type Vector = { values: ArrayLike<unknown>; nulls: Uint8Array | undefined };

export function lookUpRanges(entry: ContainerEntry, request: SqlLookUpRangesRequest, visit: SqlLookUpVisit):
  SqlLookUpStop | undefined {
  const keys = entry.keys;
  assert(keys !== undefined, 'a look-up by row key needs a row key');
  assert(request.rowCountMax > 0);
  const schema = entry.schema;
  const columns = request.columnIndexes.map((index) => schema.columns[index]!);
  const typed = columns.map(isFloat64Column);
  // One array of piece columns for the whole call: the visitor keeps none of it.
  const piece: SqlColumn[] = new Array<SqlColumn>(columns.length);
  let rowCount = 0;
  const first = request.resume?.rangeIndex ?? 0;
  for (let i = first; i < request.ranges.length; i++) {
    const range = request.ranges[i]!;
    const after = i === first ? request.resume?.after : undefined;
    const bounds = storeBounds(schema, range);
    for (const batch of entry.rows.scanBatches({
      from: after ?? bounds.from, to: bounds.to, direction: 'asc', columnIndexes: request.columnIndexes,
    })) {
      let start = 0;
      if (after !== undefined && batch.rowCount > 0 && keys.compare(batch.keyAt(0), after) === 0) start = 1;
      let end = batch.rowCount;
      const stop = bounds.stop;
      // Keys past a prefix bound the store could not be given (storeBounds): the range ends at the
      // first of them, found by halving (keys ascend inside a batch).
      const past = stop !== undefined && end > start && keyPrefixAbove(batch.keyAt(end - 1) as KeyValue[], stop);
      if (past) {
        let low = start;
        end--;
        while (low < end) {
          const middle = (low + end) >>> 1;
          if (keyPrefixAbove(batch.keyAt(middle) as KeyValue[], stop)) end = middle;
          else low = middle + 1;
        }
      }
      for (let pieceStart = start; pieceStart < end; pieceStart += SQL_BATCH_ROW_COUNT) {
        const pieceEnd = Math.min(end, pieceStart + SQL_BATCH_ROW_COUNT);
        for (let c = 0; c < columns.length; c++) {
          piece[c] = pieceColumn(batch.columns[c]!, columns[c]!, typed[c]!, pieceStart, pieceEnd);
        }
        visit(i, piece, pieceEnd - pieceStart);
        rowCount += pieceEnd - pieceStart;
        if (rowCount >= request.rowCountMax) return { rangeIndex: i, after: batch.keyAt(pieceEnd - 1) };
      }
      if (past) break;
    }
  }
  return undefined;
}

/** Whether a column's values may go out as a Float64Array (ScanPage's rule: float64 storage). */
function isFloat64Column(column: ColumnSchema): boolean {
  return !column.array && (column.type === 'DOUBLE' || column.type === 'TIMESTAMP');
}

/** Rows start … end - 1 of a block's column: a view when typed and without NULLs there, else a copy. */
function pieceColumn(vector: Vector, column: ColumnSchema, typed: boolean, start: number, end: number): SqlColumn {
  assert(start < end);
  if (typed && vector.values instanceof Float64Array && !hasNull(vector.nulls, start, end)) {
    return vector.values.subarray(start, end);
  }
  const out: SqlValue[] = [];
  appendColumn(out, vector, column, start, end);
  return out;
}

function hasNull(nulls: Uint8Array | undefined, start: number, end: number): boolean {
  if (nulls === undefined) return false;
  for (let r = start; r < end; r++) if (nulls[r] === 1) return true;
  return false;
}
