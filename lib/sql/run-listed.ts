// Runs a statement listed in the node's "#sqls" (meta/node-activity.ts) for as long as it runs:
// from before it is planned (so a query of "#sqls" sees itself, as in GridDB) until its last row
// is fetched, its result is closed, or it fails.

import type { SqlConnectionInfo, SqlNodeActivityRegistry } from './meta/node-activity.ts';
import { runSql, type SqlResult, type SqlRunOptions } from './run-statement.ts';

export async function runListedSql(text: string, options: SqlRunOptions, registry: SqlNodeActivityRegistry,
  connection: SqlConnectionInfo): Promise<SqlResult> {
  const listed = registry.statementStarted(text, connection);
  let result: SqlResult;
  try {
    result = await runSql(text, options);
  } catch (error) {
    listed.done();
    throw error;
  }
  if (result.kind === 'update') {
    listed.done();
    return result;
  }
  const rows = result;
  return {
    ...rows,
    async next(rowCountMax) {
      try {
        const page = await rows.next(rowCountMax);
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
