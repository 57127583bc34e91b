// SQL from the client: store.sql(text, parameters?) runs one statement on the node (SQL_EXECUTE,
// lib/protocol/messages-sql.ts) in auto-commit. A SELECT (or EXPLAIN) gives a row set like a TQL
// query's: async iterable, toArray(), paged from the node by the fetch size; its columns carry
// their SQL types (TIMESTAMP precision included). DML gives the rows it changed as updateCount,
// DDL 0, and no rows. store.cancelSql(queryId) cancels a running statement by its "#sqls" query
// id (SQL_CANCEL).
//
// Parameters are typed: a plain value takes the type its JavaScript shape implies (boolean BOOL,
// bigint LONG, integer number LONG, other number DOUBLE, string STRING, Uint8Array BLOB, Date
// TIMESTAMP, null NULL); `{ type, value }` names the SQL type itself.

import { StorageError } from '../base/errors.ts';
import type { Row } from '../schema/column-type.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import { SQL_CANCEL, SQL_EXECUTE, SQL_WIRE_TYPES } from '../protocol/messages-sql.ts';
import type { SqlTypedValue } from '../sql/plan/bind-expression.ts';
import type { SqlType, SqlValue } from '../sql/value.ts';
import type { ConnectionPool } from './client-pool.ts';
import { FETCH_SIZE_DEFAULT, RowSet } from './client-query.ts';

export type SqlParameter = SqlValue | Date | SqlTypedValue;

export interface SqlOptions {
  /** Rows per page fetched from the node. */
  fetchSize?: number;
  /** The statement ends with REQUEST_TIMEOUT after this; 0 or absent: the node's default. */
  timeoutMs?: number;
}

export class SqlRowSet implements AsyncIterable<Row> {
  constructor(
    /** Rows the statement changed (DML), 0 for DDL; undefined for a SELECT. */
    readonly updateCount: number | undefined,
    readonly columns: readonly ColumnSchema[],
    /** Each column's SQL type. */
    readonly sqlTypes: readonly SqlType[],
    private readonly rows: RowSet | undefined,
  ) {}

  get columnNames(): string[] {
    return this.columns.map((column) => column.name);
  }

  hasNext(): boolean {
    return this.rows?.hasNext() ?? false;
  }

  async next(): Promise<Row> {
    if (this.rows === undefined) throw new StorageError('CLOSED', 'an update has no rows');
    return this.rows.next();
  }

  async toArray(): Promise<Row[]> {
    return this.rows === undefined ? [] : this.rows.toArray();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Row> {
    if (this.rows !== undefined) yield* this.rows;
  }

  async close(): Promise<void> {
    await this.rows?.close();
  }
}

export async function clientSql(pool: ConnectionPool, text: string, parameters: readonly SqlParameter[],
  options: SqlOptions): Promise<SqlRowSet> {
  if (typeof text !== 'string') throw new StorageError('ROW_INVALID', 'sql takes the statement as a string');
  const fetchSize = options.fetchSize ?? FETCH_SIZE_DEFAULT;
  if (!Number.isSafeInteger(fetchSize) || fetchSize < 1) {
    throw new StorageError('CONFIG_INVALID', `fetchSize must be a whole number of rows, at least 1, not ${fetchSize}`);
  }
  const timeoutMs = options.timeoutMs ?? 0;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0) {
    throw new StorageError('CONFIG_INVALID', `timeoutMs must be a whole number of ms, not ${timeoutMs}`);
  }
  const { reply, connection } = await pool.exchange(SQL_EXECUTE, {
    sql: text, fetchSize, timeoutMs, parameters: parameters.map(typedParameter),
  });
  if (reply.updateCount !== undefined) return new SqlRowSet(reply.updateCount, [], [], undefined);
  const rows = new RowSet(reply, connection, fetchSize, undefined);
  await rows.ready();
  return new SqlRowSet(undefined, reply.columns, reply.sqlTypes, rows);
}

export async function clientCancelSql(pool: ConnectionPool, queryId: string): Promise<boolean> {
  if (typeof queryId !== 'string' || queryId.length === 0) {
    throw new StorageError('ROW_INVALID', 'cancelSql takes a query id (QUERY_ID of "#sqls") as a non-empty string');
  }
  const { reply } = await pool.exchange(SQL_CANCEL, { queryId });
  return reply.cancelled;
}

export function typedParameter(parameter: SqlParameter): SqlTypedValue {
  if (parameter === null) return { type: 'UNKNOWN', value: null };
  if (parameter instanceof Date) return { type: 'TIMESTAMP', value: parameter.getTime() };
  if (parameter instanceof Uint8Array) return { type: 'BLOB', value: parameter };
  switch (typeof parameter) {
    case 'boolean': return { type: 'BOOL', value: parameter };
    case 'bigint': return { type: 'LONG', value: parameter };
    case 'string': return { type: 'STRING', value: parameter };
    case 'number':
      return Number.isSafeInteger(parameter) ? { type: 'LONG', value: BigInt(parameter) }
        : { type: 'DOUBLE', value: parameter };
    case 'object':
      if (SQL_WIRE_TYPES.includes(parameter.type)) return parameter;
      break;
    default: break;
  }
  throw new StorageError('ROW_INVALID', `an SQL parameter cannot be ${String(parameter)}`);
}
