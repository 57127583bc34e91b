// Over real HTTP against a real node: the SQL endpoints of §1.6.14 — DDL, updates with a status
// per statement, queries with columns, SQL types and TIMESTAMP precision, the statement-kind
// regular expressions, the body checks, a query failure as 400 with the error's number, DCL
// refused per statement.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, startWebApiFixture, type HttpCaller, type WebApiFixture } from './webapi-test-helpers.ts';

describe('web API: SQL endpoints', { timeout: 180_000 }, () => {
  let fixture: WebApiFixture;
  let http: HttpCaller;
  let base: string;

  before(async () => {
    fixture = await startWebApiFixture({ maxQueryNum: 3 });
    http = fixture.http;
    base = fixture.base;
  });
  after(async () => {
    await fixture?.stop();
  });

  it('runs DDL, updates and queries with GridDB\'s JSON shapes', async () => {
    assert.deepEqual(await http.json('POST', `${base}/sql/ddl`, { body: [
      { stmt: 'CREATE TABLE t1 (id INTEGER PRIMARY KEY, ts TIMESTAMP(6), v DOUBLE)' },
      { stmt: 'CREATE TABLE t1 (id INTEGER)' },
    ] }), [
      { status: 1, message: null, stmt: 'CREATE TABLE t1 (id INTEGER PRIMARY KEY, ts TIMESTAMP(6), v DOUBLE)' },
      { status: 0, message: '[145002:CONTAINER_EXISTS] CONTAINER_EXISTS at line 1, column 14: table t1 exists already',
        stmt: 'CREATE TABLE t1 (id INTEGER)' },
    ]);
    const updates = await http.json('POST', `${base}/sql/dml/update`, { body: [
      { stmt: "INSERT INTO t1 VALUES (1, TIMESTAMP('2026-01-01T00:00:00Z'), 1.5), (2, NULL, 2.5)" },
      { stmt: 'INSERT INTO t1 (nope) VALUES (1)' },
      { stmt: 'UPDATE t1 SET v = v * 2 WHERE id = 2' },
    ] }) as Array<Record<string, unknown>>;
    assert.deepEqual(updates.map((u) => [u['status'], u['updatedRows']]), [[1, 2], [0, 0], [1, 1]]);
    assert.match(updates[1]!['message'] as string, /^\[\d+:COLUMN_NOT_FOUND\] .*nope/);
    const answers = await http.json('POST', `${base}/sql/dml/query`, { body: [
      { stmt: 'SELECT id, ts, v, NULL AS n FROM t1 ORDER BY id' }, { stmt: 'select count(*) from t1' },
    ] }) as Array<{ columns: unknown[]; results: unknown[][]; responseSizeByte: number }>;
    assert.deepEqual(answers[0]!.columns, [{ name: 'id', type: 'INTEGER' },
      { name: 'ts', type: 'TIMESTAMP', timePrecision: 'MICROSECOND' }, { name: 'v', type: 'DOUBLE' },
      { name: 'n', type: 'UNKNOWN' }]);
    assert.deepEqual(answers[0]!.results, [[1, '2026-01-01T00:00:00.000000Z', 1.5, null], [2, null, 5, null]]);
    assert.deepEqual(answers[1]!.results, [[2]]);
    assert.ok(answers[0]!.responseSizeByte > 0);
    const plain = await http.json('POST', `${base}/sql`, { body: [{ stmt: 'SELECT 1+1' }] }) as
      Array<{ results: unknown[][] }>;
    assert.deepEqual(plain[0]!.results, [[2]]);
  });

  it('answers docs/webapi.md\'s SQL example as shown', async () => {
    const ddl = await http.call('POST', `${base}/sql/ddl`, { body: [
      { stmt: 'CREATE TABLE IF NOT EXISTS t_sql (id INTEGER PRIMARY KEY, v DOUBLE)' }] });
    assert.equal(ddl.text, '[{"status":1,"message":null,"stmt":"CREATE TABLE IF NOT EXISTS t_sql ' +
      '(id INTEGER PRIMARY KEY, v DOUBLE)"}]');
    const query = await http.call('POST', `${base}/sql/dml/query`, { body: [
      { stmt: 'SELECT COUNT(*), MAX(v) FROM t_sql' }] });
    assert.match(query.text, /^\[\{"columns":\[\{"name":"COUNT\(\*\)","type":"LONG"\},\{"name":"MAX\(v\)",/);
    assert.match(query.text, /"type":"DOUBLE"\}\],"results":\[\[0,null\]\],"responseSizeByte":\d+\}\]$/);
  });

  it('checks the body and the statement kind as GridDB does', async () => {
    assertError(await http.call('POST', `${base}/sql/dml/query`, { body: [] }), 400, 'List of SQL is empty');
    assertError(await http.call('POST', `${base}/sql/dml/query`, { body: [{ stmt: 'select 1' },
      { stmt: 'select 1' }, { stmt: 'select 1' }, { stmt: 'select 1' }] }), 400,
    'Exceed maximum of SQLs that can be executed');
    assertError(await http.call('POST', `${base}/sql/dml/query`, { body: [null] }), 400, 'SQL input is invalid');
    assertError(await http.call('POST', `${base}/sql/dml/query`, { body: [{ stmt: '  ' }] }), 400, 'Statement is invalid');
    assertError(await http.call('POST', `${base}/sql/dml/query`, { body: [{ stmt: 'DELETE FROM t1' }] }), 400,
      'Statement is invalid');
    // `.` does not cross a line break, as Java's String.matches.
    assertError(await http.call('POST', `${base}/sql/dml/query`, { body: [{ stmt: 'select id\nfrom t1' }] }), 400,
      'Statement is invalid');
    assertError(await http.call('POST', `${base}/sql/dml/update`, { body: [{ stmt: 'select 1' }] }), 400,
      'Statement is invalid');
    assertError(await http.call('POST', `${base}/sql/ddl`, { body: [{ stmt: 'select 1' }] }), 400, 'Statement is invalid');
  });

  it('a failing query is 400 with its error number; DCL answers the node per statement', async () => {
    assertError(await http.call('POST', `${base}/sql/dml/query`, { body: [{ stmt: 'select nope from t1' }] }), 400,
      /^\[\d+:COLUMN_NOT_FOUND\]/);
    const dcl = await http.json('POST', `${base}/sql/dcl`, { body: [{ stmt: 'GRANT ALL ON public TO u1' }] }) as
      Array<Record<string, unknown>>;
    assert.equal(dcl[0]!['status'], 0);
    assert.match(dcl[0]!['message'] as string, /TXN_DATABASE_NAME_INVALID/);
  });
});
