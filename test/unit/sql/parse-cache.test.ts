// The parsed-statement cache (lib/sql/parse-cache.ts): a text is parsed once and its tree reused,
// the tree is frozen all the way down, the cache stays within its size and keeps neither failures
// nor long texts, and a statement run again after DDL (a column added, a view made again under the
// same name, a table dropped and made again) answers for the new catalog: the cache keeps nothing
// the catalog decides.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import { SQL_PARSED_CACHE_TEXT_LENGTH_MAX } from '../../../lib/base/limits.ts';
import { SqlParsedCache, sqlParsedCache } from '../../../lib/sql/parse-cache.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './exec/sql-exec-helpers.ts';

describe('sql parse cache', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
  });

  after(async () => {
    await db?.test.store.close();
  });

  it('parses a text once and hands out the same frozen tree', () => {
    const cache = new SqlParsedCache(4);
    const text = "SELECT a, MAX(b) FROM t WHERE c IN ('x', 'y') AND d > ? GROUP BY a";
    const first = cache.parse(text);
    const second = cache.parse(text);
    assert.equal(second, first);
    assert.equal(cache.hits, 1);
    assert.equal(first.parameterCount, 1);
    const frozenEverywhere = (value: unknown): boolean => typeof value !== 'object' || value === null ||
      ArrayBuffer.isView(value) || (Object.isFrozen(value) && Object.values(value).every(frozenEverywhere));
    assert.ok(frozenEverywhere(first));
  });

  it('keeps at most its size, least recently used out first, and no failures or long texts', () => {
    const cache = new SqlParsedCache(2);
    cache.parse('SELECT 1');
    cache.parse('SELECT 2');
    cache.parse('SELECT 1'); // now the most recently used
    cache.parse('SELECT 3'); // SELECT 2 goes
    assert.equal(cache.size, 2);
    const hits = cache.hits;
    cache.parse('SELECT 1');
    assert.equal(cache.hits, hits + 1);
    cache.parse('SELECT 2');
    assert.equal(cache.hits, hits + 1);
    for (let i = 0; i < 2; i++) {
      assert.throws(() => cache.parse('SELECT FROM WHERE'), (error) => isStorageError(error));
    }
    const long = `SELECT ${'1 + '.repeat(SQL_PARSED_CACHE_TEXT_LENGTH_MAX / 4)}1`;
    assert.equal(cache.parse(long).parameterCount, 0);
    assert.notEqual(cache.parse(long), cache.parse(long));
    assert.equal(cache.size, 2);
  });

  it('a statement run again after DDL answers for the new columns, views and tables', async () => {
    await db.update('CREATE TABLE ddl_t (id INTEGER PRIMARY KEY, a INTEGER)');
    await db.update('INSERT INTO ddl_t VALUES (1, 10), (2, 20)');
    const star = 'SELECT * FROM ddl_t ORDER BY id';
    assert.deepEqual(await db.rows(star), [[1, 10], [2, 20]]);
    const hits = sqlParsedCache.hits;
    assert.deepEqual(await db.rows(star), [[1, 10], [2, 20]]);
    assert.ok(sqlParsedCache.hits > hits, 'the second run found its parse in the cache');

    await db.update('ALTER TABLE ddl_t ADD COLUMN b STRING');
    assert.deepEqual(await db.rows(star), [[1, 10, null], [2, 20, null]]);

    await db.update('CREATE VIEW ddl_v AS SELECT id FROM ddl_t WHERE a > 15');
    const view = 'SELECT * FROM ddl_v ORDER BY 1';
    assert.deepEqual(await db.rows(view), [[2]]);
    await db.update('DROP VIEW ddl_v');
    await db.update('CREATE VIEW ddl_v AS SELECT a, id FROM ddl_t WHERE a < 15');
    assert.deepEqual(await db.rows(view), [[10, 1]]);

    await db.update('DROP TABLE ddl_t');
    await db.update('CREATE TABLE ddl_t (id INTEGER PRIMARY KEY, z DOUBLE, y STRING)');
    await db.update("INSERT INTO ddl_t VALUES (5, 1.5, 'q')");
    assert.deepEqual(await db.rows(star), [[5, 1.5, 'q']]);
  });
});
