// What the SQL executor reads tables through, and what statements change them through: an
// interface the engine implements (lib/engine/sql-tables.ts), so lib/sql stays below the engine
// and the unit tests can run plans over tables in memory.
//
// A scan hands out batches of committed rows in row-key order (or its reverse), only the columns asked for, and
// yields to the event loop between batches, so a long SELECT never holds the engine's write path.

import type { RowKey } from '../../schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../schema/container-schema.ts';
import type { SqlIndexRange } from '../plan/logical-plan.ts';
import type { SqlType } from '../value.ts';
import type { SqlBatch, SqlColumn } from './evaluate.ts';

export interface SqlScanRequest {
  /** Schema positions, in the order the batch's columns come. */
  readonly columnIndexes: readonly number[];
  /** Inclusive row key bounds (a composite key: arrays of its leading columns' values, a prefix). */
  readonly from: RowKey | undefined;
  readonly to: RowKey | undefined;
  /** Rows outside this TREE index range are not wanted: the table may read only those it names. */
  readonly index?: SqlIndexRange;
  readonly rowCountMax: number;
  /**
   * Rows in descending key order (never with `index`). The planner asks for it only where the key
   * columns past `to`'s prefix all have a greatest value (not STRING), so `to` pads to a whole key.
   */
  readonly descending?: boolean;
  /**
   * The caller counts what it reads as work and turns the event loop by its slices (work-slice.ts),
   * as an index nested-loop join's look-ups do: pages come whole (no small first page for a LIMIT
   * above a filter) and without a turn between them.
   */
  readonly slicedByCaller?: boolean;
}

/** Inclusive row-key bounds of one look-up (a composite key: a prefix, as SqlScanRequest's). */
export interface SqlLookUpRange {
  readonly from: RowKey;
  readonly to: RowKey;
}

/** Where a lookUpRanges call stopped: range `rangeIndex`, after its row with key `after`. */
export interface SqlLookUpStop {
  readonly rangeIndex: number;
  readonly after: RowKey;
}

export interface SqlLookUpRangesRequest {
  /** Schema positions, in the order the piece's columns come. */
  readonly columnIndexes: readonly number[];
  readonly ranges: readonly SqlLookUpRange[];
  /** Where the previous call stopped; undefined: from the first range's start. */
  readonly resume: SqlLookUpStop | undefined;
  readonly rowCountMax: number;
}

/** One piece of range `rangeIndex`: `columns` (request order) hold `rowCount` rows; do not keep them. */
export type SqlLookUpVisit = (rangeIndex: number, columns: readonly SqlColumn[], rowCount: number) => void;

export interface SqlTable {
  readonly schema: ContainerSchema;
  scan(request: SqlScanRequest): AsyncIterable<SqlBatch>;
  /**
   * A row-key range's rows as whole pages (≤ SQL_BATCH_ROW_COUNT rows), synchronously: an index
   * nested-loop join's look-up by row key, which counts its work itself (as `slicedByCaller`) and
   * so needs no turn, nor a promise, between pages. Never with `index` or `descending`. Tables
   * read from another thread or made of data partitions lack it (their look-ups go through scan).
   */
  lookUp?(request: SqlScanRequest): Iterable<SqlBatch>;
  /**
   * Many row-key ranges (an index nested-loop join's look-ups of one left batch) read in one call,
   * synchronously: `visit` sees each range's rows in pieces of at most SQL_BATCH_ROW_COUNT rows,
   * in range order, as views of the blocks where it can (a DOUBLE or TIMESTAMP (ms) column
   * without NULLs in the piece is a Float64Array over the block's values), valid only until
   * `visit` returns: nothing is copied for a consumer that aggregates them at once. The call stops
   * after the piece that reaches `rowCountMax` rows and answers where to go on (undefined: every
   * range read), so the caller can turn the event loop in between. Lacking where `lookUp` is.
   */
  lookUpRanges?(request: SqlLookUpRangesRequest, visit: SqlLookUpVisit): SqlLookUpStop | undefined;
  /**
   * The rows a scan would give, handed to `visit` a piece at a time inside the scan's own turn
   * (a GROUP BY computed in the scan: execute-scan-aggregate.ts): a piece's DOUBLE and TIMESTAMP
   * (ms) columns without NULLs are views of the blocks (Float64Array), good only until `visit`
   * returns, so no page is copied; the other columns as a scan's page has them. Between pieces of
   * SQL_SCAN_AGGREGATE_ROW_COUNT rows the table waits one event-loop turn. Never with `index` or
   * `descending`. Tables read from another thread or made of data partitions lack it.
   */
  visit?(request: SqlScanRequest, visit: (batch: SqlBatch) => void): Promise<void>;
  /** What EXPLAIN adds to a scan of this table (a partitioned table: the data partitions read). */
  explain?(request: Pick<SqlScanRequest, 'from' | 'to'>): Record<string, unknown>;
}

/** The type SQL reads a column as: GEOMETRY and arrays read as NULL of type UNKNOWN. */
export function sqlTypeOfColumn(column: ColumnSchema): SqlType {
  if (column.array || column.type === 'GEOMETRY') return 'UNKNOWN';
  if (column.type === 'TIMESTAMP') {
    if (column.timePrecision === 'MICROSECOND') return 'TIMESTAMP(6)';
    if (column.timePrecision === 'NANOSECOND') return 'TIMESTAMP(9)';
    return 'TIMESTAMP';
  }
  return column.type;
}
