// DDL and DML through SQL, and the bounds of a statement: CREATE TABLE forms (keys, NOT NULL,
// USING TIMESERIES, WITH, PARTITION BY refused), DROP, indexes, ALTER TABLE; INSERT / REPLACE /
// UPDATE / DELETE each all-or-nothing (a failing row changes nothing; a duplicate key on INSERT is
// an error); the work memory limit, the statement timeout and cancellation.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StorageError } from '../../../../lib/base/errors.ts';
import { sqlTestDatabase } from './sql-exec-helpers.ts';

function code(expected: string, message?: RegExp) {
  return (error: unknown): true => {
    assert.ok(error instanceof StorageError, String(error));
    assert.equal(error.code, expected, error.message);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  };
}

describe('SQL DDL', () => {
  it('creates tables with keys, NOT NULL, USING TIMESERIES and data_affinity; IF NOT EXISTS', async () => {
    const db = await sqlTestDatabase();
    await db.update("CREATE TABLE c (a INTEGER, b VARCHAR(10) NOT NULL, PRIMARY KEY (a)) WITH (data_affinity='x')");
    const schema = db.database.tableSchema('C')!;
    assert.equal(schema.type, 'COLLECTION');
    assert.equal(schema.rowKeyColumnCount, 1);
    assert.equal(schema.dataAffinity, 'x');
    assert.deepEqual(schema.columns.map((c) => [c.name, c.type, c.notNull]),
      [['a', 'INTEGER', true], ['b', 'STRING', true]]);
    await assert.rejects(db.update('CREATE TABLE c (a INTEGER)'), code('CONTAINER_EXISTS'));
    assert.equal(await db.update('CREATE TABLE IF NOT EXISTS c (a INTEGER)'), 0);
    await db.update('CREATE TABLE ts (t TIMESTAMP PRIMARY KEY, v REAL, u TIMESTAMP(6)) USING TIMESERIES');
    const series = db.database.tableSchema('ts')!;
    assert.equal(series.type, 'TIME_SERIES');
    assert.equal(series.columns[1]!.type, 'DOUBLE');
    assert.equal(series.columns[2]!.timePrecision, 'MICROSECOND');
    await db.update('CREATE TABLE k2 (h STRING, t TIMESTAMP, v LONG, PRIMARY KEY (h, t))');
    assert.equal(db.database.tableSchema('k2')!.rowKeyColumnCount, 2);
  });

  it('refuses a key that is not the leading columns (PARTITION BY runs: sql-partitioned-table.test.ts)', async () => {
    const db = await sqlTestDatabase();
    await assert.rejects(db.update('CREATE TABLE p (a INTEGER, b INTEGER, PRIMARY KEY (b))'),
      code('NOT_SUPPORTED', /leading columns/));
    assert.equal(db.database.tableSchema('p'), undefined);
  });

  it('drops tables, creates and drops indexes, adds and renames columns', async () => {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE d (a INTEGER PRIMARY KEY, b LONG)');
    await db.update('CREATE INDEX ib ON d (b)');
    assert.deepEqual(db.database.tableSchema('d')!.indexes.map((i) => i.name), ['ib']);
    await assert.rejects(db.update('CREATE INDEX ib ON d (b)'), code('INVALID_SCHEMA'));
    await db.update('CREATE INDEX IF NOT EXISTS ib ON d (b)');
    await db.update('DROP INDEX ib ON d');
    await assert.rejects(db.update('DROP INDEX ib ON d'), code('INVALID_SCHEMA'));
    await db.update('DROP INDEX IF EXISTS ib ON d');
    await db.update('INSERT INTO d VALUES (1, 5)');
    await db.update('ALTER TABLE d ADD COLUMN c STRING');
    await db.update('ALTER TABLE d RENAME COLUMN b TO bb');
    assert.deepEqual(await db.rows('SELECT a, bb, c FROM d'), [[1, 5n, null]]);
    await db.update('DROP TABLE d');
    await assert.rejects(db.update('DROP TABLE d'), code('CONTAINER_NOT_FOUND'));
    await db.update('DROP TABLE IF EXISTS d');
  });
});

describe('SQL DML', () => {
  it('INSERT with a column list, INSERT OR REPLACE, REPLACE, INSERT … SELECT', async () => {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE s (id INTEGER PRIMARY KEY, v LONG, note STRING)');
    assert.equal(await db.update('INSERT INTO s (v, id) VALUES (10, 1), (20, 2)'), 2);
    assert.equal(await db.update("INSERT OR REPLACE INTO s VALUES (2, 21, 'r'), (3, 30, NULL)"), 2);
    assert.equal(await db.update("REPLACE INTO s VALUES (1, 11, 'x')"), 1);
    assert.deepEqual(await db.rows('SELECT * FROM s'), [[1, 11n, 'x'], [2, 21n, 'r'], [3, 30n, null]]);
    await db.update('CREATE TABLE s2 (id INTEGER PRIMARY KEY, total LONG)');
    assert.equal(await db.update('INSERT INTO s2 SELECT id + 100, v * 2 FROM s WHERE v > 15'), 2);
    assert.deepEqual(await db.rows('SELECT * FROM s2'), [[102, 42n], [103, 60n]]);
  });

  it('a duplicate key on plain INSERT fails the whole statement and changes nothing', async () => {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE u (id INTEGER PRIMARY KEY, v LONG)');
    await db.update('INSERT INTO u VALUES (1, 1)');
    await assert.rejects(db.update('INSERT INTO u VALUES (2, 2), (3, 3), (1, 9)'), code('ROW_INVALID', /duplicate primary key/));
    await assert.rejects(db.update('INSERT INTO u VALUES (4, 4), (4, 5)'), code('ROW_INVALID', /duplicate/));
    assert.deepEqual(await db.rows('SELECT * FROM u'), [[1, 1n]]);
  });

  it('a failing row of a multi-row INSERT changes nothing (NOT NULL, range)', async () => {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE n (id INTEGER PRIMARY KEY, b BYTE, s STRING NOT NULL)');
    await assert.rejects(db.update("INSERT INTO n VALUES (1, 1, 'a'), (2, 2, NULL)"), code('NULL_NOT_ALLOWED'));
    await assert.rejects(db.update("INSERT INTO n VALUES (1, 1, 'a'), (2, 300, 'b')"), code('VALUE_OUT_OF_RANGE'));
    await assert.rejects(db.update("INSERT INTO n VALUES (1, 1, 'a'), (2, 'x', 'b')"), code('TYPE_MISMATCH'));
    assert.deepEqual(await db.rows('SELECT * FROM n'), []);
    await db.update('CREATE TABLE src (id INTEGER PRIMARY KEY, b LONG)');
    await db.update('INSERT INTO src VALUES (1, 1), (2, 2), (3, 3)');
    await assert.rejects(db.update("INSERT INTO n SELECT id, b * 60, 'x' FROM src"), code('VALUE_OUT_OF_RANGE', /180/));
    assert.deepEqual(await db.rows('SELECT * FROM n'), []);
    assert.equal(await db.update("INSERT INTO n SELECT id, b * 40, 'x' FROM src"), 3);
  });

  it('UPDATE … SET … WHERE and DELETE, all-or-nothing; the key is not updatable', async () => {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE w (id INTEGER PRIMARY KEY, v LONG, b BYTE)');
    await db.update('INSERT INTO w VALUES (1, 10, 1), (2, 20, 2), (3, 30, 100)');
    assert.equal(await db.update('UPDATE w SET v = v + 1 WHERE id >= 2'), 2);
    assert.deepEqual(await db.rows('SELECT v FROM w'), [[10n], [21n], [31n]]);
    await assert.rejects(db.update('UPDATE w SET b = b * 2'), code('VALUE_OUT_OF_RANGE'));
    assert.deepEqual(await db.rows('SELECT b FROM w'), [[1], [2], [100]]);
    await assert.rejects(db.update('UPDATE w SET id = 5'), code('SQL_COMPILE_SYNTAX_ERROR', /primary key/));
    assert.equal(await db.update('DELETE FROM w WHERE v > 20'), 2);
    assert.deepEqual(await db.rows('SELECT id FROM w'), [[1]]);
    assert.equal(await db.update('DELETE FROM w'), 1);
    assert.deepEqual(await db.rows('SELECT COUNT(*) FROM w'), [[0n]]);
  });
});

describe('SQL statement bounds', () => {
  it('past the work memory limit a GROUP BY, a sort and a DISTINCT end with LIMIT_EXCEEDED', async () => {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE big (id INTEGER PRIMARY KEY, s STRING)');
    const values = Array.from({ length: 2000 }, (_v, i) => `(${i}, '${'x'.repeat(50)}${i}')`).join(', ');
    await db.update(`INSERT INTO big VALUES ${values}`);
    const small = { workMemoryLimitBytes: 64 * 1024 };
    for (const text of ['SELECT s, COUNT(*) FROM big GROUP BY s', 'SELECT s FROM big ORDER BY s DESC',
      'SELECT DISTINCT s FROM big']) {
      await assert.rejects(db.rows(text, [], small), code('LIMIT_EXCEEDED', /work memory limit of 65536 bytes/));
    }
    assert.equal((await db.rows('SELECT s FROM big ORDER BY s DESC LIMIT 5', [], small)).length, 5);
    assert.equal((await db.rows('SELECT s FROM big ORDER BY s DESC')).length, 2000);
  });

  it('a statement past its timeout ends with REQUEST_TIMEOUT; a cancelled one with SQL_CANCELLED', async () => {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE slow (id INTEGER PRIMARY KEY)');
    await db.update(`INSERT INTO slow VALUES ${Array.from({ length: 5000 }, (_v, i) => `(${i})`).join(', ')}`);
    const result = await db.run('SELECT id FROM slow', [], { timeoutMs: 100 });
    assert.equal(result.kind, 'rows');
    if (result.kind !== 'rows') return;
    assert.equal((await result.next(10)).rows.length, 10);
    db.clockMs += 101;
    await assert.rejects(async () => { for (;;) if ((await result.next(1000)).done) break; }, code('REQUEST_TIMEOUT'));
    let cancelled = false;
    const second = await db.run('SELECT COUNT(*) FROM slow', [], { cancelled: () => cancelled });
    cancelled = true;
    if (second.kind !== 'rows') return;
    await assert.rejects(second.next(10), code('SQL_CANCELLED', /cancelled/));
  });

  it('a JavaScript error inside a function fails the statement as INTERNAL_ERROR, not the caller', async () => {
    const db = await sqlTestDatabase();
    const broken = {
      name: 'BROKEN', minArgs: 0, maxArgs: 0, resultType: () => 'LONG' as const,
      evaluate: () => BigInt(1.5),
    };
    await assert.rejects(db.rows('SELECT BROKEN()', [], { functions: (name) => (name === 'BROKEN' ? broken : undefined) }),
      code('INTERNAL_ERROR', /RangeError/));
    assert.deepEqual(await db.rows('SELECT 1'), [[1n]]);
  });

  it('GEOMETRY and array columns read as NULL and refuse changes', async () => {
    const db = await sqlTestDatabase();
    await db.test.store.createContainer({
      name: 'g', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'tags', type: 'STRING', array: true }],
    });
    await db.test.store.session().container('g').put([1, ['a']]);
    assert.deepEqual(await db.rows('SELECT id, tags FROM g'), [[1, null]]);
    await assert.rejects(db.update('DELETE FROM g'), code('NOT_SUPPORTED', /array column tags/));
  });
});
