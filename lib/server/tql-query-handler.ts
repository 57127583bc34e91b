// The query handler of a node with TQL: the engine runs the query (ContainerHandle.query, which
// sees the session's own open transaction) and leaves a cursor when rows remain; this adapter hands
// its answers to the server page by page, continuing the cursor (queryMore) for the rows a page
// needs. An aggregate is one row of one column typed as the aggregate's result (none when there
// is no result, GridDB's empty aggregation). EXPLAIN's rows are all there at once, their own kind.
// A plain SELECT * (no filter beyond a row-key range, in key order) comes already encoded, all of
// it: its rows are never made (execute.ts allEncoded).

import type { Row } from '../schema/column-type.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import type { TqlCursor, TqlResult } from '../query/tql/execute.ts';
import type { QueryHandler, QueryResult } from './query-handler.ts';
import { queryResultOfEncodedRows, queryResultOfRows } from './query-handler.ts';

export const tqlQueryHandler: QueryHandler = async (request) => {
  const first = await request.container.query(request.tql, {
    ...(request.fetchSize > 0 ? { fetchSizeRows: request.fetchSize } : {}),
    partialExecution: request.partialExecution,
    forUpdate: request.forUpdate,
    ...(request.rowLimit !== undefined ? { rowLimit: request.rowLimit } : {}),
    ...(request.sampling !== undefined ? { sampling: request.sampling } : {}),
    // Rows straight from the engine's column batches into the reply bytes where the query
    // allows (execute.ts allEncoded); fetch(forUpdate) needs the rows themselves to lock them.
    encodeRows: !request.forUpdate,
  });
  if (first.kind === 'aggregate') {
    return queryResultOfRows('AGGREGATION', aggregateColumns(first),
      first.value === null ? [] : [[first.value]]);
  }
  if (first.kind === 'explain') return queryResultOfRows('EXPLAIN', first.columns, first.rows);
  if (first.kind === 'encodedRows') {
    return queryResultOfEncodedRows('ROWS', first.columns, first.rows);
  }
  return rowsResult(first, (cursor, rowCountMax) =>
    request.container.queryMore(cursor, { fetchSizeRows: rowCountMax }));
};

/**
 * The one column of an aggregate's answer, the same array for the same function and type (a
 * few dozen at most): its result schema and row codec are then made once, not per query.
 */
const aggregateColumnLists = new Map<string, ColumnSchema[]>();

function aggregateColumns(result: Extract<TqlResult, { kind: 'aggregate' }>): ColumnSchema[] {
  const { type, timePrecision } = result.type;
  const key = `${result.function}\0${type}\0${timePrecision ?? ''}`;
  let columns = aggregateColumnLists.get(key);
  if (columns === undefined) {
    const column: ColumnSchema = { name: result.function, type, array: false, notNull: false };
    if (timePrecision !== undefined) column.timePrecision = timePrecision;
    columns = [column];
    aggregateColumnLists.set(key, columns);
  }
  return columns;
}

function rowsResult(
  first: Extract<TqlResult, { kind: 'rows' }>,
  more: (cursor: TqlCursor, rowCountMax: number) => Promise<TqlResult>,
): QueryResult {
  let rows: Row[] = first.rows;
  let offset = 0;
  let cursor = first.cursor;
  return {
    kind: 'ROWS',
    columns: first.columns,
    async next(rowCountMax) {
      if (offset >= rows.length && cursor !== undefined) {
        const answer = await more(cursor, rowCountMax);
        rows = answer.kind === 'rows' ? answer.rows : [];
        cursor = answer.kind === 'rows' ? answer.cursor : undefined;
        offset = 0;
      }
      const page = rows.slice(offset, offset + rowCountMax);
      offset += page.length;
      return { rows: page, done: offset >= rows.length && cursor === undefined };
    },
    close() {
      rows = [];
      cursor = undefined;
    },
  };
}
