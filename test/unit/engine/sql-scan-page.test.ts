// storeSqlScanPage, the page another engine thread's statement reads of a table here
// (lib/server/sql-peers.ts): through a TREE index range it gives only the rows the index names, in
// key order, page after page from `after`; descending it gives the rows from the last key down.
// Both equal what a filter over the whole table's pages keeps.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeSqlScanPage } from '../../../lib/engine/sql-database.ts';
import type { RowKey } from '../../../lib/schema/column-type.ts';
import type { SqlIndexRange } from '../../../lib/sql/plan/logical-plan.ts';
import { sqlTestDatabase, type SqlTestDatabase } from '../sql/exec/sql-exec-helpers.ts';

const ROW_COUNT = 2000;
const DEVICE_COUNT = 50;

describe('storeSqlScanPage', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE r (id INTEGER PRIMARY KEY, device INTEGER, v LONG)');
    await db.update('CREATE INDEX r_device ON r (device)');
    await db.update(`INSERT INTO r VALUES ${Array.from({ length: ROW_COUNT },
      (_v, i) => `(${i}, ${(i * 7) % DEVICE_COUNT}, ${i})`).join(', ')}`);
  });

  after(async () => {
    await db?.test.store.close();
  });

  /** Every page of a read, the ids in the order they came, and how many rows each page held. */
  function readAll(options: { index?: SqlIndexRange; descending?: boolean; rowCountMax: number }) {
    const ids: number[] = [];
    const pages: number[] = [];
    let afterKey: RowKey | undefined;
    for (;;) {
      const page = storeSqlScanPage(db.test.store, { table: 'r', columnIndexes: [0, 1], from: undefined, to: undefined,
        after: afterKey, ...options });
      pages.push(page.batch.rowCount);
      for (let i = 0; i < page.batch.rowCount; i++) ids.push(page.batch.columns[0]![i] as number);
      if (page.last === undefined) return { ids, pages };
      afterKey = page.last;
    }
  }

  it('through an index range: only its rows, in key order, page after page', () => {
    const index: SqlIndexRange = { name: 'r_device', columnIndexes: [1], low: [3], lowInclusive: true, high: [4], highInclusive: true };
    const want = Array.from({ length: ROW_COUNT }, (_v, i) => i).filter((i) => [3, 4].includes((i * 7) % DEVICE_COUNT));
    const { ids, pages } = readAll({ index, rowCountMax: 16 });
    assert.deepEqual(ids, want);
    // Only the index's rows were read: pages of 16, not a scan's pages mostly empty.
    assert.equal(pages.length, Math.ceil(want.length / 16));
    assert.ok(pages.every((count) => count === 16 || count === want.length % 16));
  });

  it('descending: every row from the last key down', () => {
    const { ids } = readAll({ descending: true, rowCountMax: 256 });
    assert.deepEqual(ids, Array.from({ length: ROW_COUNT }, (_v, i) => ROW_COUNT - 1 - i));
  });
});
