// The row sets a GridDB connection holds between QUERY_TQL and FETCH_ROW_SET / CLOSE_ROW_SET,
// and the row ids it gave out. GridDB's node keeps a query's result and hands it out a fetch size
// at a time, with its total row count in the first reply (the client's gsGetSize); store's result
// sets page without a total, so the statement reads the whole result from store first
// (griddb-query.ts) and keeps it here, bounded: GRIDDB_ROW_SETS_MAX open row sets and
// GRIDDB_ROW_SET_BYTES_MAX of rows (store's encoded bytes) per connection, both LIMIT_EXCEEDED.
//
// Row ids: GridDB sends an id with every row of a collection's row set, and gsUpdateCurrentRow /
// gsDeleteCurrentRow send it back alone (UPDATE_ROW_BY_ID, DELETE_ROW_BY_ID). Store has no row
// ids, so each row sent gets a fresh id of the connection, remembered with the row's key and its
// container (the last GRIDDB_ROW_IDS_MAX of them). A collection without a row key has no key to
// remember: its rows get ids, and a statement by one of them is refused.

import { assert } from '../../base/assert.ts';
import type { Row, RowKey } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbPartialExecutions } from './griddb-partial-executions.ts';

/** Row sets one connection holds open (GridDB keeps them until fetched or closed). */
export const GRIDDB_ROW_SETS_MAX = 16;
/** Bytes of rows (store's encoding) one connection holds in its row sets and a query in work. */
export const GRIDDB_ROW_SET_BYTES_MAX = 64 * 1024 * 1024;
/** Row ids remembered per connection; a statement by an older one is refused. */
export const GRIDDB_ROW_IDS_MAX = 100_000;

export interface GriddbRowSet {
  readonly containerId: number;
  readonly columns: readonly ColumnSchema[];
  readonly rows: readonly Row[];
  /** The id of rows[0] (the others follow it); undefined: a time series, rows without ids. */
  readonly firstRowId: bigint | undefined;
  /** Key columns of the container (0: none, the rows' ids are not remembered). */
  readonly keyColumnCount: number;
  readonly bytes: number;
}

export interface GriddbRowRef {
  containerId: number;
  key: RowKey;
}

export class GriddbRowSets {
  /** The connection's partial executions in progress (griddb-partial-executions.ts). */
  readonly partials = new GriddbPartialExecutions();
  private readonly open = new Map<bigint, GriddbRowSet>();
  private readonly rowIds = new Map<bigint, GriddbRowRef>();
  private nextRowSetId = 1n;
  private nextRowId = 1n;
  private heldBytes = 0;

  get openCount(): number {
    return this.open.size;
  }

  get openBytes(): number {
    return this.heldBytes;
  }

  /** Refuses a query whose rows so far (`bytes`) would not fit beside the row sets held. */
  checkBytes(bytes: number): void {
    if (this.heldBytes + bytes > GRIDDB_ROW_SET_BYTES_MAX) {
      throw new GriddbError(GriddbErrorCode.LIMIT_EXCEEDED, `a query result of more than ` +
        `${GRIDDB_ROW_SET_BYTES_MAX - this.heldBytes} bytes does not fit beside the ` +
        `${this.open.size} row sets this connection holds (${GRIDDB_ROW_SET_BYTES_MAX} bytes at ` +
        'most): set a LIMIT, or fetch and close them first');
    }
  }

  /** `count` fresh row ids, the first returned. */
  takeRowIds(count: number): bigint {
    const first = this.nextRowId;
    this.nextRowId += BigInt(count);
    return first;
  }

  /** Keeps a row set for FETCH_ROW_SET; returns its id. */
  keep(rowSet: GriddbRowSet): bigint {
    if (this.open.size >= GRIDDB_ROW_SETS_MAX) {
      throw new GriddbError(GriddbErrorCode.LIMIT_EXCEEDED, `a connection holds at most ` +
        `${GRIDDB_ROW_SETS_MAX} row sets open: fetch or close one first`);
    }
    this.checkBytes(rowSet.bytes);
    const id = this.nextRowSetId++;
    this.open.set(id, rowSet);
    this.heldBytes += rowSet.bytes;
    return id;
  }

  get(rowSetId: bigint): GriddbRowSet {
    const rowSet = this.open.get(rowSetId);
    if (rowSet === undefined) {
      throw new GriddbError(GriddbErrorCode.DS_DS_RESULT_ID_INVALID,
        `row set ${rowSetId} is closed or does not exist`);
    }
    return rowSet;
  }

  close(rowSetId: bigint): void {
    const rowSet = this.open.get(rowSetId);
    if (rowSet === undefined) return;
    this.open.delete(rowSetId);
    this.heldBytes -= rowSet.bytes;
    assert(this.heldBytes >= 0);
  }

  /** The ids of rows[start, end) of a row set, remembered with their keys as they are sent. */
  sent(rowSet: GriddbRowSet, start: number, end: number): bigint[] | undefined {
    if (rowSet.firstRowId === undefined) return undefined;
    const ids: bigint[] = [];
    for (let i = start; i < end; i++) {
      const id = rowSet.firstRowId + BigInt(i);
      ids.push(id);
      if (rowSet.keyColumnCount === 0) continue;
      const row = rowSet.rows[i]!;
      const key = (rowSet.keyColumnCount === 1 ? row[0]
        : row.slice(0, rowSet.keyColumnCount)) as RowKey;
      this.rowIds.set(id, { containerId: rowSet.containerId, key });
      if (this.rowIds.size > GRIDDB_ROW_IDS_MAX) {
        this.rowIds.delete(this.rowIds.keys().next().value!);
      }
    }
    return ids;
  }

  /** The row a row id was sent for, in `containerId`. */
  rowOf(rowId: bigint, containerId: number): GriddbRowRef {
    const ref = this.rowIds.get(rowId);
    if (ref === undefined || ref.containerId !== containerId) {
      throw new GriddbError(GriddbErrorCode.TXN_STATEMENT_TYPE_UNKNOWN, `row id ${rowId} is not ` +
        `one this connection sent for container id ${containerId} (store has no row ids: it ` +
        `remembers the last ${GRIDDB_ROW_IDS_MAX} ids of rows with a row key)`);
    }
    return ref;
  }
}
