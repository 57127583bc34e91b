// SQL in a database other than public (lib/engine/sql-database.ts with a databaseId): a table
// name is a different table in each database, plain or partitioned; the metatables show the
// database's own tables and data partitions by their names; a quoted identifier spelling
// another database's container key reaches nothing; and after a crash (the SimFileSystem loses
// what was not synced, the store recovers from the xlog) each database has its own rows back.

import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { storeSqlDatabase } from '../../../lib/engine/sql-database.ts';
import type { Store } from '../../../lib/engine/store.ts';
import { containerKey } from '../../../lib/schema/database-names.ts';
import { partitionTestDatabase } from './partition-test-helpers.ts';

const db1Of = (store: Store) =>
  storeSqlDatabase(store, { yieldTurn: async () => { await nextTurn(); }, databaseId: 1 });

describe('SQL per database', () => {
  it('keeps tables of one name apart in public and db1, partitioned ones too, through a crash', async () => {
    const db = await partitionTestDatabase();
    let db1 = { database: db1Of(db.test.store) };
    for (const options of [{}, db1]) {
      await db.update('CREATE TABLE t (id INTEGER PRIMARY KEY, v STRING)', options);
      await db.update('CREATE TABLE h (id INTEGER PRIMARY KEY, v STRING) PARTITION BY HASH (id) PARTITIONS 2', options);
    }
    await db.update("INSERT INTO t VALUES (1, 'public')");
    await db.update("INSERT INTO t VALUES (1, 'db1'), (2, 'db1')", db1);
    await db.update("INSERT INTO h VALUES (1, 'db1')", db1);
    await db.update('CREATE TABLE only1 (id INTEGER PRIMARY KEY)', db1);
    assert.deepStrictEqual(await db.rows('SELECT TABLE_NAME FROM "#tables" ORDER BY TABLE_NAME', db1),
      [['h'], ['only1'], ['t']]);
    assert.deepStrictEqual(await db.rows('SELECT TABLE_NAME FROM "#tables" ORDER BY TABLE_NAME'), [['h'], ['t']]);
    assert.deepStrictEqual(await db.rows('SELECT DISTINCT TABLE_NAME FROM "#table_partitions"', db1), [['h']]);
    const quotedKey = `SELECT * FROM "${containerKey(1, 'only1')}"`;
    assert.notEqual(await db.rows(quotedKey).then(() => 'ok', () => 'refused'), 'ok', 'public cannot spell db1\'s key');
    for (const reopen of ['before', 'after'] as const) {
      if (reopen === 'after') {
        await db.reopenAfterCrash();
        db1 = { database: db1Of(db.test.store) };
      }
      assert.deepStrictEqual(await db.rows('SELECT v FROM t ORDER BY id'), [['public']], reopen);
      assert.deepStrictEqual(await db.rows('SELECT v FROM t ORDER BY id', db1), [['db1'], ['db1']], reopen);
      assert.deepStrictEqual(await db.rows('SELECT COUNT(*) FROM h'), [[0n]], reopen);
      assert.deepStrictEqual(await db.rows('SELECT v FROM h', db1), [['db1']], reopen);
    }
    await db.update('DROP TABLE h', db1);
    assert.deepStrictEqual(await db.rows('SELECT COUNT(*) FROM "#table_partitions"'), [[2n]], 'public\'s h stays');
    await db.test.store.close();
  });

  it('keeps views of one name apart in public and db1, in "#views" too, through a crash', async () => {
    const db = await partitionTestDatabase();
    let db1 = { database: db1Of(db.test.store) };
    for (const [options, v] of [[{}, 'public'], [db1, 'db1']] as const) {
      await db.update('CREATE TABLE t (id INTEGER PRIMARY KEY, v STRING)', options);
      await db.update(`INSERT INTO t VALUES (1, '${v}')`, options);
      await db.update('CREATE VIEW w AS SELECT v FROM t', options);
    }
    await db.update('CREATE VIEW only1 AS SELECT id FROM t', db1);
    for (const reopen of ['before', 'after'] as const) {
      if (reopen === 'after') {
        await db.reopenAfterCrash();
        db1 = { database: db1Of(db.test.store) };
      }
      assert.deepStrictEqual(await db.rows('SELECT v FROM w'), [['public']], reopen);
      assert.deepStrictEqual(await db.rows('SELECT v FROM w', db1), [['db1']], reopen);
      assert.deepStrictEqual(await db.rows('SELECT VIEW_NAME FROM "#views" ORDER BY VIEW_NAME', db1),
        [['only1'], ['w']], reopen);
      assert.deepStrictEqual(await db.rows('SELECT VIEW_NAME FROM "#views"'), [['w']], reopen);
      assert.notEqual(await db.rows('SELECT * FROM only1').then(() => 'ok', () => 'refused'), 'ok', reopen);
    }
    await db.update('DROP VIEW w', db1);
    assert.deepStrictEqual(await db.rows('SELECT v FROM w'), [['public']], 'public\'s w stays');
    await db.test.store.close();
  });
});
