// Views (lib/sql/run-view.ts): CREATE [FORCE] VIEW and DROP VIEW with GridDB's errors, "#views",
// a view read in FROM, in joins, in subqueries and through other views (expanded before
// planning, which EXPLAIN shows), cycles refused, a view over a dropped table failing at use,
// views read-only, invisible to the NoSQL interfaces, and kept through a restart of the store.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStorageError, type StorageErrorCode } from '../../../../lib/base/errors.ts';
import { storeSqlDatabase } from '../../../../lib/engine/sql-database.ts';
import { runSql } from '../../../../lib/sql/run-statement.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

describe('sql views', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE device (id INTEGER PRIMARY KEY, site STRING)');
    await db.update('CREATE TABLE reading (id INTEGER PRIMARY KEY, device INTEGER, value DOUBLE)');
    await db.update("INSERT INTO device VALUES (1, 'a'), (2, 'b'), (3, 'a')");
    await db.update('INSERT INTO reading VALUES (10, 1, 1.5), (11, 2, 2.5), (12, 3, 3.5), (13, 1, 4.5)');
  });

  after(async () => {
    await db?.test.store.close();
  });

  async function rejects(text: string, code: StorageErrorCode, message?: RegExp): Promise<void> {
    await assert.rejects(db.run(text), (error) => {
      assert.ok(isStorageError(error, code), `${text}: ${String(error)}`);
      if (message !== undefined) assert.match((error as Error).message, message);
      return true;
    });
  }

  it('reads a view in FROM, with an alias, in a join and in a subquery', async () => {
    await db.update("CREATE VIEW site_a AS SELECT id, site FROM device WHERE site = 'a'");
    assert.deepEqual(await db.rows('SELECT * FROM site_a ORDER BY id'), [[1, 'a'], [3, 'a']]);
    assert.deepEqual(await db.rows('SELECT s.id FROM site_a s WHERE s.id > 1'), [[3]]);
    assert.deepEqual(await db.rows(
      'SELECT r.id, v.site FROM reading r JOIN site_a v ON r.device = v.id ORDER BY r.id'),
    [[10, 'a'], [12, 'a'], [13, 'a']]);
    assert.deepEqual(await db.rows(
      'SELECT id FROM reading WHERE device IN (SELECT id FROM site_a) ORDER BY id'), [[10], [12], [13]]);
    assert.deepEqual(await db.rows('SELECT COUNT(*) FROM (SELECT * FROM site_a) x'), [[2n]]);
  });

  it('reads a view through another view, and EXPLAIN shows the tables they expand to', async () => {
    await db.update('CREATE VIEW site_a_readings AS SELECT r.id, r.value FROM reading r JOIN site_a USING (id)');
    await db.update('CREATE VIEW busy AS SELECT device, COUNT(*) AS n FROM reading GROUP BY device');
    await db.update('CREATE VIEW busiest AS SELECT device FROM busy WHERE n > 1');
    assert.deepEqual(await db.rows('SELECT * FROM busiest'), [[1]]);
    const plan = (await db.rows('EXPLAIN SELECT * FROM busiest')).map((row) => String(row[0])).join('\n');
    assert.match(plan, /"table":"reading"/);
    assert.doesNotMatch(plan, /busiest|"busy"/i);
    // The expansion is the derived table of the view's SELECT, under the view's name.
    const written = 'SELECT * FROM (SELECT device FROM (SELECT device, COUNT(*) AS n FROM reading ' +
      'GROUP BY device) busy WHERE n > 1) busiest';
    assert.deepEqual(await db.rows('EXPLAIN SELECT * FROM busiest'), await db.rows(`EXPLAIN ${written}`));
  });

  it('lists views in "#views" with their definition, and not in "#tables"', async () => {
    const rows = await db.rows('SELECT VIEW_NAME, VIEW_DEFINITION FROM "#views" WHERE VIEW_NAME = \'site_a\'');
    assert.equal(rows.length, 1);
    assert.match(String(rows[0]![1]), /^SELECT .*device.*WHERE/i);
    assert.deepEqual(await db.rows('SELECT DATABASE_NAME FROM "#views" WHERE VIEW_NAME = \'busy\''), [['public']]);
    assert.deepEqual(await db.rows('SELECT * FROM "#tables" WHERE TABLE_NAME = \'site_a\''), []);
  });

  it('refuses a name a table or a view has, and a table over a view\'s name', async () => {
    await rejects('CREATE VIEW device AS SELECT 1', 'SQL_DDL_TABLE_ALREADY_EXISTS', /device/);
    await rejects('CREATE VIEW site_a AS SELECT 1', 'SQL_DDL_TABLE_ALREADY_EXISTS');
    await rejects('CREATE TABLE site_a (id INTEGER PRIMARY KEY)', 'SQL_DDL_TABLE_ALREADY_EXISTS');
    assert.equal(await db.update('CREATE TABLE IF NOT EXISTS site_a (id INTEGER PRIMARY KEY)'), 0);
    await rejects('DROP TABLE site_a', 'SQL_DDL_INVALID_CONTAINER_ATTRIBUTE', /view/);
    await rejects('DROP VIEW device', 'SQL_DDL_INVALID_CONTAINER_ATTRIBUTE', /table/);
    assert.equal(await db.update('DROP VIEW IF EXISTS device'), 0);
    assert.ok(db.database.tableSchema('device') !== undefined);
  });

  it('refuses writes, indexes and schema changes on a view', async () => {
    await rejects("INSERT INTO site_a VALUES (9, 'a')", 'SQL_DDL_INVALID_CONTAINER_ATTRIBUTE', /read-only/);
    await rejects('UPDATE site_a SET site = \'b\'', 'SQL_DDL_INVALID_CONTAINER_ATTRIBUTE');
    await rejects('DELETE FROM site_a', 'SQL_DDL_INVALID_CONTAINER_ATTRIBUTE');
    await rejects('CREATE INDEX i ON site_a (site)', 'SQL_DDL_INVALID_CONTAINER_ATTRIBUTE');
    await rejects('ALTER TABLE site_a ADD COLUMN x INTEGER', 'SQL_DDL_INVALID_CONTAINER_ATTRIBUTE');
    assert.deepEqual(await db.rows('SELECT COUNT(*) FROM device'), [[3n]]);
  });

  it('validates the SELECT unless FORCE, and checks its syntax always', async () => {
    await rejects('CREATE VIEW ghost AS SELECT * FROM nowhere', 'CONTAINER_NOT_FOUND', /nowhere/);
    await rejects('CREATE VIEW ghost AS SELECT nocolumn FROM device', 'COLUMN_NOT_FOUND');
    await rejects('CREATE FORCE VIEW ghost AS SELEC * FROM nowhere', 'SQL_COMPILE_SYNTAX_ERROR');
    await assert.rejects(db.run('CREATE VIEW ghost AS SELECT * FROM device WHERE id = ?', [{ type: 'INTEGER', value: 1 }]),
      (error) => isStorageError(error, 'NOT_SUPPORTED') && /parameter/.test((error as Error).message));
    assert.equal(db.database.view('ghost'), undefined);
    await db.update('CREATE FORCE VIEW ghost AS SELECT * FROM nowhere');
    await rejects('SELECT * FROM ghost', 'CONTAINER_NOT_FOUND', /view ghost reads table nowhere/);
    await db.update('CREATE TABLE nowhere (k INTEGER PRIMARY KEY)');
    await db.update('INSERT INTO nowhere VALUES (7)');
    assert.deepEqual(await db.rows('SELECT * FROM ghost'), [[7]]);
    await db.update('DROP TABLE nowhere');
    await rejects('SELECT k FROM ghost', 'CONTAINER_NOT_FOUND', /line 1, column 15: view ghost reads table nowhere/);
    await db.update('DROP VIEW ghost');
  });

  it('refuses cycles, FORCE or not', async () => {
    await db.update('CREATE FORCE VIEW loop_a AS SELECT * FROM loop_b');
    await rejects('CREATE VIEW loop_b AS SELECT * FROM loop_a', 'SQL_VIEW_CYCLE', /loop_b -> loop_a -> loop_b/);
    await rejects('CREATE FORCE VIEW loop_b AS SELECT * FROM loop_a', 'SQL_VIEW_CYCLE');
    await rejects('CREATE FORCE VIEW self AS SELECT * FROM self', 'SQL_VIEW_CYCLE');
    await db.update('DROP VIEW loop_a');
  });

  it('drops a view, IF EXISTS quietly, and a missing one with GridDB\'s error', async () => {
    await db.update('CREATE VIEW gone AS SELECT id FROM device');
    await db.update('DROP VIEW gone');
    await rejects('SELECT * FROM gone', 'CONTAINER_NOT_FOUND');
    await rejects('DROP VIEW gone', 'SQL_DDL_VIEW_NOT_EXISTS', /gone/);
    assert.equal(await db.update('DROP VIEW IF EXISTS gone'), 0);
  });

  it('is no container to the NoSQL interfaces', async () => {
    const { store } = db.test;
    assert.ok(!store.listContainers().includes('site_a'));
    assert.equal(store.getContainerInfo('site_a'), undefined);
    assert.equal(await store.dropContainer('site_a'), false);
    await assert.rejects(store.createContainer({
      name: 'site_a', type: 'COLLECTION', columns: [{ name: 'id', type: 'INTEGER' }], rowKey: true,
    }), (error) => isStorageError(error, 'CONTAINER_EXISTS'));
    const session = store.session();
    try {
      await assert.rejects(session.container('site_a').get([1]), (error) => isStorageError(error, 'CONTAINER_NOT_FOUND'));
    } finally {
      session.close();
    }
  });

  it('keeps views through a checkpoint and a restart of the store', async () => {
    await db.update('CREATE VIEW logged AS SELECT site FROM device');
    await db.test.store.checkpoint(); // site_a, busy, busiest in the checkpoint; logged after it
    await db.update('CREATE VIEW after_checkpoint AS SELECT device FROM busiest');
    await db.update('DROP VIEW logged');
    const store = await db.test.reopen();
    const database = storeSqlDatabase(store, { yieldTurn: async () => {} });
    assert.ok(database.view('site_a') !== undefined);
    assert.ok(database.view('busiest') !== undefined);
    assert.equal(database.view('gone'), undefined);
    assert.equal(database.view('logged'), undefined);
    assert.equal(database.view('after_checkpoint')?.definition, 'SELECT device FROM busiest');
    const result = await runSql('SELECT * FROM busiest', {
      database, workMemoryLimitBytes: 1 << 20, timeoutMs: 60_000, monotonicMs: () => 0, nowMs: 0,
      randomBytes: (count) => new Uint8Array(count),
    });
    assert.equal(result.kind, 'rows');
    if (result.kind === 'rows') assert.deepEqual((await result.next(10)).rows, [[1]]);
  });
});
