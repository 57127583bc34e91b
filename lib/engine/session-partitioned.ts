// A partitioned table through the NoSQL interface (client protocol, web API): a ContainerHandle on
// the table hands its calls here, and they go to the data partitions as GridDB's do.
//
//   put, multiPut   each row to the data partition of its partitioning key (made on demand); an
//                   expired row is accepted and not stored
//   get, remove     to the data partition the key names (every one, when the key does not name it)
//   count           the sum over the data partitions, without expired rows
//   query (TQL)     WHERE filtering only (§3.8): `SELECT *` with WHERE and LIMIT, and COUNT(*) (the
//                   web API's row total); another aggregate, ORDER BY, OFFSET, EXPLAIN, a
//                   time-series selection or forUpdate is NOT_SUPPORTED.
//                   Each data partition answers in turn, in interval order, all rows at once
//                   (at most SCAN_ROW_COUNT_MAX together), and expired rows are dropped.
//
// With auto-commit off, the handles of the data partitions written stay open until the table's
// handle commits or aborts: then each commits (or aborts) in turn, atomic per data partition.

import { StorageError } from '../base/errors.ts';
import { SCAN_ROW_COUNT_MAX } from '../base/limits.ts';
import type { Row } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import { parseTql } from '../query/tql/parser.ts';
import type { TqlResult } from '../query/tql/execute.ts';
import type { TqlQueryOptions } from './partition-query.ts';
import type { ContainerHandle, Session } from './session.ts';
import { partitionedTransaction } from './sql-partitioned-table.ts';
import { dataPartitionsOf, expiryCutoff } from './table-partitions.ts';
import type { SqlTableTransaction } from '../sql/sql-database.ts';

/** The table's schema when `name` is a partitioned table this session's store serves. */
export function partitionedTableOf(session: Session, name: string): ContainerSchema | undefined {
  const schema = session.store.partitionFor(name).catalog.lookup(name)?.schema;
  return schema?.partitioning === undefined ? undefined : schema;
}

/**
 * Runs one call on the table's data partitions: with auto-commit on, each data partition's handle
 * is in auto-commit; off, the handles written are added to `pending` for the table's commit.
 */
export async function partitionedCall<T>(session: Session, table: ContainerSchema,
  handle: ContainerHandle & { readonly isAutoCommitOn: boolean },
  call: (txn: SqlTableTransaction) => Promise<T>): Promise<T> {
  const txn = partitionedTransaction(session.store, table, session.store.clock.nowMs(), session,
    { autoCommit: handle.isAutoCommitOn });
  const result = await call(txn);
  if (!handle.isAutoCommitOn) for (const [name, data] of txn.handles) handle.pendingAdd(name, data);
  return result;
}

export async function partitionedCount(session: Session, table: ContainerSchema): Promise<number> {
  const rows = await partitionedRows(session, table, 'SELECT *', {});
  return rows.length;
}

export async function partitionedQuery(session: Session, table: ContainerSchema, tql: string,
  options: TqlQueryOptions): Promise<TqlResult> {
  const statement = parseTql(tql);
  const refuse = (what: string) => {
    throw new StorageError('NOT_SUPPORTED', `TQL on the partitioned table ${table.name} filters with WHERE ` +
      `only (§3.8): ${what} is not supported`);
  };
  if (statement.explain !== undefined) refuse('EXPLAIN');
  const count = statement.select.kind === 'call' && statement.select.name.toUpperCase() === 'COUNT' &&
    statement.select.star && statement.select.args.length === 0;
  if (statement.select.kind !== 'all' && !count) refuse(`SELECT ${statement.text.select}`);
  if (statement.orderBy.length > 0) refuse('ORDER BY');
  if (statement.offset !== undefined) refuse('OFFSET');
  if (options.forUpdate === true) refuse('fetch(forUpdate)');
  if (options.sampling !== undefined) refuse('time sampling');
  if (count) {
    // COUNT(*) (the web API's row total): the rows WHERE selects, counted here.
    const where = statement.text.where === undefined ? '' : ` WHERE ${statement.text.where}`;
    const counted = await partitionedRows(session, table, `SELECT *${where}`, {});
    return {
      kind: 'aggregate', function: 'COUNT', type: { type: 'LONG' }, value: BigInt(counted.length),
      scannedRowCount: counted.length,
    };
  }
  const limit = Math.min(Number(statement.limit?.count ?? BigInt(SCAN_ROW_COUNT_MAX)), options.rowLimit ?? Infinity);
  const rows = (await partitionedRows(session, table, tql, options)).slice(0, limit);
  return { kind: 'rows', columns: table.columns, rows, cursor: undefined, scannedRowCount: rows.length };
}

async function partitionedRows(session: Session, table: ContainerSchema, tql: string,
  options: TqlQueryOptions): Promise<Row[]> {
  const cutoff = expiryCutoff(table, session.store.clock.nowMs());
  const columnIndex = table.partitioning!.columnIndex;
  const rows: Row[] = [];
  for (const part of dataPartitionsOf(session.store, table)) {
    const answer = await session.container(part.schema.name).query(tql, {
      ...(options.rowLimit === undefined ? {} : { rowLimit: options.rowLimit }),
    });
    if (answer.kind !== 'rows') throw new StorageError('INTERNAL_ERROR', `a WHERE query gave ${answer.kind}`);
    for (const row of answer.rows) {
      if (cutoff !== undefined && BigInt(row[columnIndex] as number) < cutoff) continue;
      rows.push(row);
    }
    if (rows.length > SCAN_ROW_COUNT_MAX) {
      throw new StorageError('LIMIT_EXCEEDED', `a TQL query on the partitioned table ${table.name} selects more ` +
        `than ${SCAN_ROW_COUNT_MAX} rows`);
    }
  }
  return rows;
}
