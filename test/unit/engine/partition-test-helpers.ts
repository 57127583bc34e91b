// The partitioned-table tests' database: a store on a simulated disk (engine-test-helpers.ts), its
// wall clock optionally the test's own, seen through SQL; EXPLAIN's scan entry; a crash and reopen.

import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isStorageError, type StorageErrorCode } from '../../../lib/base/errors.ts';
import type { StorageOptions } from '../../../lib/base/options.ts';
import { storeSqlDatabase } from '../../../lib/engine/sql-database.ts';
import { Store } from '../../../lib/engine/store.ts';
import { runSql, type SqlRunOptions } from '../../../lib/sql/run-statement.ts';
import type { SqlDatabase } from '../../../lib/sql/sql-database.ts';
import type { SqlValue } from '../../../lib/sql/value.ts';
import { testFunctions } from '../sql/exec/sql-exec-helpers.ts';
import { openTestStore, type TestStore } from './engine-test-helpers.ts';

const T0_MS = Date.UTC(2024, 0, 1);

export interface PartitionTestDatabase {
  test: TestStore;
  database: SqlDatabase;
  rows(text: string, options?: Partial<SqlRunOptions>): Promise<SqlValue[][]>;
  update(text: string, options?: Partial<SqlRunOptions>): Promise<number>;
  /** The SCAN entry of EXPLAIN's plan for a SELECT. */
  scanPlan(select: string): Promise<{ partitions?: { total: number; read: number } }>;
  reopenAfterCrash(): Promise<void>;
}

export async function partitionTestDatabase(wallClockMs?: () => number,
  overrides: Partial<StorageOptions> = {}): Promise<PartitionTestDatabase> {
  const test = await openTestStore(overrides, wallClockMs === undefined ? {} : { wallClockMs });
  const self: PartitionTestDatabase = {
    test,
    database: storeSqlDatabase(test.store, { yieldTurn: async () => { await nextTurn(); } }),
    async rows(text, options = {}) {
      const result = await runSql(text, {
        database: self.database, workMemoryLimitBytes: 32 << 20, timeoutMs: 60_000, monotonicMs: () => 0,
        nowMs: T0_MS, randomBytes: (count) => new Uint8Array(count), functions: testFunctions, ...options,
      });
      if (result.kind !== 'rows') return [[result.updateCount]];
      const rows: SqlValue[][] = [];
      for (;;) {
        const page = await result.next(1000);
        rows.push(...page.rows);
        if (page.done) return rows;
      }
    },
    async update(text, options) {
      const [[count]] = await self.rows(text, options) as [[number]];
      return count;
    },
    async scanPlan(select) {
      const plan = (await self.rows(`EXPLAIN ${select}`)).map(([json]) => JSON.parse(json as string) as
        { type: string; detail: { partitions?: { total: number; read: number } } });
      return plan.find((entry) => entry.type === 'SCAN')!.detail;
    },
    async reopenAfterCrash() {
      test.fileSystem.crash();
      test.store = await Store.open({
        home: '/h', options: test.options, fileSystem: test.fileSystem, scheduler: test.scheduler,
        ...(wallClockMs === undefined ? {} : { clock: { nowMs: wallClockMs, monotonicMs: () => test.scheduler.now() } }),
      });
      self.database = storeSqlDatabase(test.store, { yieldTurn: async () => { await nextTurn(); } });
    },
  };
  return self;
}

export async function rejects(promise: Promise<unknown>, code: StorageErrorCode, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(isStorageError(error, code), `${code} expected, not ${String(error)}`);
    assert.match((error as Error).message, pattern);
    return true;
  });
}

