// The metatables of §5.11 through SQL: "#tables", "#index_info" and "#databases" read back the
// containers and indexes just created, with GridDB's column names and types (NULL where this store
// has no such thing); they work under WHERE, ORDER BY and GROUP BY like tables; writes to them are
// refused; "#sqls" lists a statement while it runs (half fetched) and not after; "#sockets" lists
// a connection with its application name until it closes; a listed statement cancelled by its
// query id, or by its connection closing, ends with SQL_CANCELLED and a cancelled DML changes nothing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StorageError } from '../../../../lib/base/errors.ts';
import { SQL_RUNNING_TEXT_LENGTH_MAX } from '../../../../lib/base/limits.ts';
import { SqlNodeActivityRegistry, type SqlConnectionInfo } from '../../../../lib/sql/meta/node-activity.ts';
import { runListedSql } from '../../../../lib/sql/run-listed.ts';
import type { SqlResult } from '../../../../lib/sql/run-statement.ts';
import type { SqlValue } from '../../../../lib/sql/value.ts';
import { sqlTestDatabase, testFunctions, WORK_MEMORY_LIMIT_BYTES_TEST } from '../exec/sql-exec-helpers.ts';

const CLIENT: SqlConnectionInfo = {
  localAddress: '127.0.0.1:10001', remoteAddress: '127.0.0.1:53000', applicationName: 'app-one', user: 'admin',
};

async function allRows(result: SqlResult): Promise<SqlValue[][]> {
  assert.equal(result.kind, 'rows');
  const rows: SqlValue[][] = [];
  for (;;) {
    const page = await result.next(1000);
    rows.push(...page.rows);
    if (page.done) return rows;
  }
}

describe('SQL metatables', () => {
  it('"#tables" lists every table with §5.11\'s columns and types', async () => {
    const db = await sqlTestDatabase();
    await db.update("CREATE TABLE c (a INTEGER PRIMARY KEY, b STRING) WITH (data_affinity='grp')");
    await db.update('CREATE TABLE ts (t TIMESTAMP PRIMARY KEY, v DOUBLE) USING TIMESERIES');
    const result = await db.run('SELECT * FROM "#tables" ORDER BY TABLE_NAME');
    assert.ok(result.kind === 'rows');
    assert.deepEqual(result.columns.map((column) => column.name), [
      'DATABASE_NAME', 'TABLE_NAME', 'TABLE_OPTIONAL_TYPE', 'DATA_AFFINITY', 'EXPIRATION_TIME',
      'EXPIRATION_TIME_UNIT', 'EXPIRATION_DIVISION_COUNT', 'PARTITION_TYPE', 'PARTITION_COLUMN',
      'PARTITION_INTERVAL_VALUE', 'PARTITION_INTERVAL_UNIT', 'PARTITION_DIVISION_COUNT', 'SUBPARTITION_TYPE',
      'SUBPARTITION_COLUMN', 'SUBPARTITION_INTERVAL_VALUE', 'SUBPARTITION_INTERVAL_UNIT',
      'SUBPARTITION_DIVISION_COUNT', 'EXPIRATION_TYPE',
    ]);
    assert.equal(result.columns[4]!.type, 'INTEGER');
    const nulls = new Array(14).fill(null);
    assert.deepEqual(await allRows(result), [
      ['public', 'c', 'COLLECTION', 'grp', ...nulls],
      ['public', 'ts', 'TIMESERIES', null, ...nulls],
    ]);
    await db.update('DROP TABLE c');
    assert.deepEqual(await db.rows('SELECT TABLE_NAME FROM "#tables"'), [['ts']]);
  });

  it('"#index_info" lists each indexed column with its position; WHERE, ORDER BY and GROUP BY work', async () => {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE c (a INTEGER PRIMARY KEY, b STRING, d LONG)');
    await db.update('CREATE INDEX ib ON c (b)');
    await db.update('CREATE INDEX id ON c (d)');
    const result = await db.run('SELECT * FROM "#index_info" WHERE TABLE_NAME = \'c\' ORDER BY INDEX_NAME DESC');
    assert.ok(result.kind === 'rows');
    assert.deepEqual(result.columns.map((column) => [column.name, column.type]), [
      ['DATABASE_NAME', 'STRING'], ['TABLE_NAME', 'STRING'], ['INDEX_NAME', 'STRING'], ['INDEX_TYPE', 'STRING'],
      ['ORDINAL_POSITION', 'SHORT'], ['COLUMN_NAME', 'STRING'],
    ]);
    assert.deepEqual(await allRows(result), [
      ['public', 'c', 'id', 'TREE', 1, 'd'],
      ['public', 'c', 'ib', 'TREE', 1, 'b'],
    ]);
    assert.deepEqual(await db.rows('SELECT TABLE_NAME, COUNT(*) FROM "#index_info" GROUP BY TABLE_NAME'),
      [['c', 2n]]);
    await db.update('DROP INDEX ib ON c');
    assert.deepEqual(await db.rows('SELECT INDEX_NAME FROM "#index_info"'), [['id']]);
  });

  it('"#databases" has the one database', async () => {
    const db = await sqlTestDatabase();
    const result = await db.run('SELECT * FROM "#databases"');
    assert.ok(result.kind === 'rows');
    assert.deepEqual(result.columns, [{ name: 'DATABASE_NAME', type: 'STRING' }, { name: 'DATABASE_ID', type: 'LONG' }]);
    assert.deepEqual(await allRows(result), [['public', 0n]]);
  });

  it('refuses INSERT, UPDATE, DELETE, DROP, CREATE INDEX and ALTER on a metatable', async () => {
    const db = await sqlTestDatabase();
    await db.update('CREATE TABLE c (a INTEGER PRIMARY KEY)');
    for (const text of [
      'INSERT INTO "#tables" (TABLE_NAME) VALUES (\'x\')', 'UPDATE "#tables" SET TABLE_NAME = \'x\'',
      'DELETE FROM "#index_info"', 'DROP TABLE "#databases"', 'DROP TABLE IF EXISTS "#sqls"',
      'CREATE INDEX i ON "#sockets" (SQL)', 'ALTER TABLE "#tables" ADD COLUMN z INTEGER',
      'CREATE TABLE "#tables" (a INTEGER)',
    ]) {
      await assert.rejects(db.update(text), (error: unknown) => {
        assert.ok(error instanceof StorageError, String(error));
        assert.equal(error.code, 'NOT_SUPPORTED', text);
        assert.match(error.message, /metatable "#\w+" is read-only/);
        return true;
      });
    }
    assert.deepEqual(await db.rows('SELECT TABLE_NAME FROM "#tables"'), [['c']]);
  });

  it('"#sqls" lists a statement while it runs, with its text cut to the limit, and not after', async () => {
    let nowMs = 1_700_000_000_000;
    const registry = new SqlNodeActivityRegistry(() => nowMs);
    const db = await sqlTestDatabase(registry);
    await db.update('CREATE TABLE big (a INTEGER PRIMARY KEY)');
    await db.update(`INSERT INTO big VALUES ${Array.from({ length: 600 }, (_v, i) => `(${i})`).join(', ')}`);
    const run = (text: string) => runListedSql(text, {
      database: db.database, workMemoryLimitBytes: WORK_MEMORY_LIMIT_BYTES_TEST, timeoutMs: 60_000,
      monotonicMs: () => 0, nowMs, randomBytes: (count) => new Uint8Array(count), functions: testFunctions,
    }, { registry, connection: CLIENT });
    const slowText = `SELECT a FROM big /* ${'x'.repeat(2000)} */`;
    const slow = await run(slowText);
    assert.ok(slow.kind === 'rows');
    assert.equal((await slow.next(1)).done, false);
    nowMs += 5;
    const listing = await run('SELECT SQL, APPLICATION_NAME, USER_NAME, START_TIME, NODE_ADDRESS, NODE_PORT, ' +
      'DATABASE_NAME, JOB_ID, QUERY_ID FROM "#sqls" ORDER BY START_TIME');
    const rows = await allRows(listing);
    assert.equal(rows.length, 2, 'the slow query and this one');
    assert.deepEqual(rows[0]!.slice(0, 8), [slowText.slice(0, SQL_RUNNING_TEXT_LENGTH_MAX), 'app-one', 'admin',
      nowMs - 5, '127.0.0.1', 10001, 'public', null]);
    assert.equal((rows[0]![0] as string).length, SQL_RUNNING_TEXT_LENGTH_MAX);
    assert.match(rows[1]![0] as string, /FROM "#sqls"/);
    assert.notEqual(rows[0]![8], rows[1]![8]);
    await slow.close();
    assert.deepEqual(await allRows(await run('SELECT COUNT(*) FROM "#sqls"')), [[1n]], 'only itself');
    const failing = run('SELECT nope FROM big');
    await assert.rejects(failing);
    assert.deepEqual(registry.runningStatements(), []);
  });

  it('"#sockets" lists each connection with its application name until it closes', async () => {
    const registry = new SqlNodeActivityRegistry(() => 1_700_000_000_123);
    const db = await sqlTestDatabase(registry);
    registry.connectionOpened(7, CLIENT);
    registry.connectionOpened(8, { ...CLIENT, remoteAddress: '[::1]:53001', applicationName: 'app-two' });
    const result = await db.run('SELECT * FROM "#sockets" ORDER BY REMOTE_PORT');
    assert.ok(result.kind === 'rows');
    assert.deepEqual(result.columns.map((column) => column.name), [
      'SERVICE_TYPE', 'SOCKET_TYPE', 'NODE_ADDRESS', 'NODE_PORT', 'REMOTE_ADDRESS', 'REMOTE_PORT',
      'APPLICATION_NAME', 'CREATION_TIME', 'DISPATCHING_EVENT_COUNT', 'SENDING_EVENT_COUNT', 'DATABASE_NAME',
    ]);
    assert.deepEqual(await allRows(result), [
      ['TRANSACTION', 'CLIENT', '127.0.0.1', 10001, '127.0.0.1', 53000, 'app-one', 1_700_000_000_123, null, null, 'public'],
      ['TRANSACTION', 'CLIENT', '127.0.0.1', 10001, '[::1]', 53001, 'app-two', 1_700_000_000_123, null, null, 'public'],
    ]);
    registry.connectionClosed(7);
    assert.deepEqual(await db.rows('SELECT APPLICATION_NAME FROM "#sockets"'), [['app-two']]);
  });

  it('cancel by query id ends a half-fetched SELECT; a closed connection\'s DML aborts before it commits', async () => {
    const registry = new SqlNodeActivityRegistry(() => 0, 'node-uuid');
    const db = await sqlTestDatabase(registry);
    await db.update('CREATE TABLE big (a INTEGER PRIMARY KEY)');
    await db.update(`INSERT INTO big VALUES ${Array.from({ length: 600 }, (_v, i) => `(${i})`).join(', ')}`);
    await db.update('CREATE TABLE copy (a INTEGER PRIMARY KEY)');
    const options = {
      database: db.database, workMemoryLimitBytes: WORK_MEMORY_LIMIT_BYTES_TEST, timeoutMs: 60_000,
      monotonicMs: () => 0, nowMs: 0, randomBytes: (count: number) => new Uint8Array(count), functions: testFunctions,
    };
    const slow = await runListedSql('SELECT a FROM big', options, { registry, connection: CLIENT, connectionId: 7 });
    assert.ok(slow.kind === 'rows');
    assert.equal((await slow.next(1)).done, false);
    const [listed] = registry.runningStatements();
    assert.equal(listed!.queryId, 'node-uuid:1');
    assert.equal(registry.cancel('node-uuid:9'), false);
    assert.equal(registry.cancel('node-uuid:1'), true);
    assert.deepEqual(registry.runningStatements(), [], 'a cancelled SELECT between fetches is gone at once');
    await assert.rejects(slow.next(10), (error: unknown) =>
      error instanceof StorageError && error.code === 'SQL_CANCELLED' && error.errorNumber === 200007);
    // Cancelled while it computes its rows: the connection closes before the first batch is read.
    const insert = runListedSql('INSERT INTO copy SELECT a FROM big', options,
      { registry, connection: CLIENT, connectionId: 8 });
    registry.cancelConnection(8);
    await assert.rejects(insert, (error: unknown) => error instanceof StorageError && error.code === 'SQL_CANCELLED');
    assert.deepEqual(await db.rows('SELECT COUNT(*) FROM copy'), [[0n]]);
    assert.deepEqual(registry.runningStatements(), []);
    const other = await runListedSql('INSERT INTO copy SELECT a FROM big', options,
      { registry, connection: CLIENT, connectionId: 9 });
    assert.deepEqual(other, { kind: 'update', updateCount: 600 }, 'another connection\'s statement runs on');
  });
});
