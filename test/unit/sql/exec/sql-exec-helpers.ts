// Helpers of the SQL executor tests: a store on a simulated disk seen as a SQL database, and a
// way to run one statement and get its rows (or update count). Time is a counter the test moves.

import { setImmediate as nextTurn } from 'node:timers/promises';
import { storeSqlDatabase } from '../../../../lib/engine/sql-database.ts';
import { sqlCast } from '../../../../lib/sql/functions/cast.ts';
import { sqlScalarFunction } from '../../../../lib/sql/functions/registry.ts';
import type { SqlScalarFunction } from '../../../../lib/sql/functions/scalar-function.ts';
import type { SqlNodeActivity } from '../../../../lib/sql/meta/metatables.ts';
import type { SqlTypedValue } from '../../../../lib/sql/plan/bind-expression.ts';
import { runSql, type SqlResult, type SqlRunOptions } from '../../../../lib/sql/run-statement.ts';
import type { SqlDatabase } from '../../../../lib/sql/sql-database.ts';
import type { SqlValue } from '../../../../lib/sql/value.ts';
import { openTestStore, type TestStore } from '../../engine/engine-test-helpers.ts';

export const WORK_MEMORY_LIMIT_BYTES_TEST = 32 * 1024 * 1024;

/**
 * The §5.8 registry; TIMESTAMP(text) falls back to CAST(text AS TIMESTAMP) until the function
 * library registers it (the worked examples of §5.6 call it).
 */
export function testFunctions(name: string): SqlScalarFunction | undefined {
  return sqlScalarFunction(name) ?? (name.toUpperCase() === 'TIMESTAMP' ? sqlCast('TIMESTAMP') : undefined);
}

export interface SqlTestDatabase {
  readonly test: TestStore;
  readonly database: SqlDatabase;
  /** Virtual monotonic time the statement deadline reads. */
  clockMs: number;
  run(text: string, parameters?: readonly SqlTypedValue[], options?: Partial<SqlRunOptions>): Promise<SqlResult>;
  /** Every row of a SELECT. */
  rows(text: string, parameters?: readonly SqlTypedValue[], options?: Partial<SqlRunOptions>): Promise<SqlValue[][]>;
  /** The update count of a DML or DDL statement. */
  update(text: string, parameters?: readonly SqlTypedValue[]): Promise<number>;
}

/** `activity`: what "#sqls" and "#sockets" read; both empty when absent. */
export async function sqlTestDatabase(activity?: SqlNodeActivity): Promise<SqlTestDatabase> {
  const test = await openTestStore();
  const database = storeSqlDatabase(test.store, {
    yieldTurn: async () => { await nextTurn(); }, ...(activity === undefined ? {} : { activity }),
  });
  const self: SqlTestDatabase = {
    test, database, clockMs: 0,
    run(text, parameters = [], options = {}) {
      return runSql(text, {
        database, parameters, workMemoryLimitBytes: WORK_MEMORY_LIMIT_BYTES_TEST, timeoutMs: 60_000,
        monotonicMs: () => self.clockMs, nowMs: 1_700_000_000_000,
        randomBytes: (count) => new Uint8Array(count), functions: testFunctions, ...options,
      });
    },
    async rows(text, parameters, options) {
      const result = await self.run(text, parameters, options);
      if (result.kind !== 'rows') throw new Error(`${text}: rows expected`);
      const rows: SqlValue[][] = [];
      for (;;) {
        const page = await result.next(1000);
        rows.push(...page.rows);
        if (page.done) return rows;
      }
    },
    async update(text, parameters) {
      const result = await self.run(text, parameters);
      if (result.kind !== 'update') throw new Error(`${text}: update count expected`);
      return result.updateCount;
    },
  };
  return self;
}
