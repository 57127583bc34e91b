// Runs a statement listed in the node's "#sqls" (meta/node-activity.ts) for as long as it runs:
// from before it is planned (so a query of "#sqls" sees itself, as in GridDB) until its last row
// is fetched, its result is closed, or it fails. A cancel (by query id, or its connection closing)
// ends it with SQL_CANCELLED after its slice of work; a SELECT waiting between fetches lets go of
// its batches and work memory at once, and its next fetch gets the error.

import type { SqlConnectionInfo, SqlListedStatement, SqlNodeActivityRegistry } from './meta/node-activity.ts';
import type { SqlDatabase } from './sql-database.ts';
import { runSql, sqlCancelledError, type SqlResult, type SqlRunOptions } from './run-statement.ts';

export interface SqlListedRun {
  readonly registry: SqlNodeActivityRegistry;
  readonly connection: SqlConnectionInfo;
  /** The connection it runs for: closing it cancels the statement. */
  readonly connectionId?: number;
  /** Work before the statement runs while it is listed already (gathering metatable rows). */
  readonly prepare?: (listed: SqlListedStatement) => Promise<SqlRunOptions>;
}

/**
 * The database with one more check: a statement cancelled after it computed its changes aborts
 * instead of committing them (the transaction is all or nothing either way).
 */
function cancelledBeforeCommit(database: SqlDatabase, listed: SqlListedStatement): SqlDatabase {
  return {
    ...database,
    transaction: (table, change) => database.transaction(table, async (txn) => {
      const result = await change(txn);
      if (listed.cancelled()) throw sqlCancelledError();
      return result;
    }),
  };
}

export async function runListedSql(text: string, options: SqlRunOptions, run: SqlListedRun):
  Promise<SqlResult> {
  const listed = run.registry.statementStarted(text, run.connection, run.connectionId);
  let result: SqlResult;
  try {
    const prepared = run.prepare === undefined ? options : await run.prepare(listed);
    if (listed.cancelled()) throw sqlCancelledError();
    result = await runSql(text, {
      ...prepared, cancelled: listed.cancelled, database: cancelledBeforeCommit(prepared.database, listed),
    });
  } catch (error) {
    listed.done();
    throw error;
  }
  if (result.kind === 'update') {
    listed.done();
    return result;
  }
  const rows = result;
  // Waiting between fetches, it runs no more: off the list, its batches let go.
  listed.onCancel(() => {
    listed.done();
    void rows.close();
  });
  return {
    ...rows,
    async next(rowCountMax) {
      try {
        if (listed.cancelled()) throw sqlCancelledError();
        const page = await rows.next(rowCountMax);
        // Cancelled while this page was read: the page may be cut short, so it is not given.
        if (listed.cancelled()) throw sqlCancelledError();
        if (page.done) listed.done();
        return page;
      } catch (error) {
        listed.done();
        throw error;
      }
    },
    async close() {
      listed.done();
      await rows.close();
    },
  };
}
