// The SQL request: SQL_EXECUTE runs one statement on the node's store (lib/sql/run-statement.ts)
// in auto-commit, beside TQL. A SELECT's rows go through the connection's result sets like a
// query's, so FETCH pages on and RESULT_CLOSE lets go early; DML and DDL answer an update count.
// The executor yields to the event loop after each slice of work, so commits run while a long
// SELECT does; the statement's deadline and the work memory limit bound what one statement may take.
// SQL_CANCEL cancels a running statement of this engine by its "#sqls" query id (the routing
// runner asks every engine thread), or with an empty id those of the asking connection; it ends
// with SQL_CANCELLED after its current slice of work (lib/sql/exec/work-slice.ts). Where the node
// runs one engine thread per partition group, a statement gathers the metatables from every
// group and reads a table of another group through its peers (sql-peers.ts, sql-node-database.ts).

import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SQL_STATEMENT_TIMEOUT_MS_DEFAULT, SQL_WORK_MEMORY_LIMIT_BYTES_DEFAULT } from '../base/limits.ts';
import { storeSqlDatabase } from '../engine/sql-database.ts';
import type { Row } from '../schema/column-type.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import { SQL_CANCEL, SQL_EXECUTE } from '../protocol/messages-sql.ts';
import type { SqlPlanColumn } from '../sql/plan/logical-plan.ts';
import type { SqlConnectionInfo } from '../sql/meta/node-activity.ts';
import { runListedSql } from '../sql/run-listed.ts';
import { runSql, type SqlResult, type SqlRunOptions } from '../sql/run-statement.ts';
import type { QueryResult } from './query-handler.ts';
import { sqlNodeDatabase } from './sql-node-database.ts';
import { handler, type DispatchEntry } from './request-handler.ts';

/** Who runs a statement when requests come without a socket (tests of the runner alone). */
const NO_CONNECTION: SqlConnectionInfo = { localAddress: '', remoteAddress: '', applicationName: '', user: '' };

export const SQL_HANDLERS: readonly DispatchEntry[] = [
  handler(SQL_EXECUTE, async (request, context) => {
    const store = context.store;
    const options: SqlRunOptions = {
      database: storeSqlDatabase(store, {
        yieldTurn: async () => { await nextTurn(); },
        databaseId: context.databaseId,
        ...(context.sqlActivity === undefined ? {} : { activity: context.sqlActivity }),
      }),
      parameters: request.parameters,
      workMemoryLimitBytes: context.sqlWorkMemoryLimitBytes ?? SQL_WORK_MEMORY_LIMIT_BYTES_DEFAULT,
      partitioningRowkeyConstraint: context.sqlPartitioningRowkeyConstraint ?? true,
      costBasedJoin: context.sqlCostBasedJoin ?? true,
      timeoutMs: request.timeoutMs > 0 ? request.timeoutMs : SQL_STATEMENT_TIMEOUT_MS_DEFAULT,
      monotonicMs: () => store.clock.monotonicMs(),
      nowMs: store.clock.nowMs(),
      randomBytes: (count) => new Uint8Array(randomBytes(count)),
      ...(context.connection?.dialect === undefined ? {} : { dialect: context.connection.dialect }),
    };
    const activity = context.sqlActivity;
    const peers = context.sqlPeers;
    const result = activity === undefined
      ? await runSql(request.sql, options)
      : await runListedSql(request.sql, options, {
        registry: activity, connection: context.connection ?? NO_CONNECTION,
        ...(context.connectionId === undefined ? {} : { connectionId: context.connectionId }),
        // Listed first, so a statement that reads "#sqls" sees itself in every group's rows.
        ...(peers === undefined ? {} : {
          prepare: async () => ({ ...options, database: await sqlNodeDatabase(request.sql, options.database, peers, options.workMemoryLimitBytes, context.databaseId) }),
        }),
      });
    if (result.kind === 'update') return { resultSetId: 0 as const, updateCount: result.updateCount };
    const reply = await context.resultSets.first(queryResultOfSql(result), request.fetchSize);
    return { ...reply, sqlTypes: result.columns.map((column) => column.type) };
  }),
  handler(SQL_CANCEL, async (request, context) => {
    const activity = context.sqlActivity;
    if (activity === undefined) return { cancelled: false };
    // No query id: the statements of the asking connection (a PostgreSQL CancelRequest).
    if (request.queryId === '') {
      return { cancelled: context.connectionId !== undefined && activity.cancelConnection(context.connectionId) };
    }
    return { cancelled: activity.cancel(request.queryId) };
  }),
];

/** The columns SQL's rows are encoded with: UNKNOWN travels as a STRING column of NULLs. */
export function sqlResultColumns(columns: readonly SqlPlanColumn[]): ColumnSchema[] {
  return columns.map(({ name, type }) => {
    if (type === 'UNKNOWN') return { name, type: 'STRING', array: false, notNull: false };
    if (type === 'TIMESTAMP(6)' || type === 'TIMESTAMP(9)') {
      return {
        name, type: 'TIMESTAMP', array: false, notNull: false,
        timePrecision: type === 'TIMESTAMP(6)' ? 'MICROSECOND' : 'NANOSECOND',
      };
    }
    return { name, type, array: false, notNull: false };
  });
}

function queryResultOfSql(result: Extract<SqlResult, { kind: 'rows' }>): QueryResult {
  return {
    kind: 'ROWS',
    columns: sqlResultColumns(result.columns),
    async next(rowCountMax) {
      const page = await result.next(rowCountMax);
      return { rows: page.rows as Row[], done: page.done };
    },
    close() {
      void result.close();
    },
  };
}
