// Over real HTTP against a real node: rows of one container (put, get, delete), the value
// encodings and input conversions of spec/surface.md §1.4, the size limits, and each documented
// error of those routes.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KiB } from '../../../lib/base/units.ts';
import { getStore } from '../../../lib/client/store-factory.ts';
import {
  assertError, startWebApiFixture, type HttpCaller, type WebApiFixture,
} from './webapi-test-helpers.ts';

const ALL_TYPES = {
  container_name: 'typed', container_type: 'COLLECTION', rowkey: true,
  columns: [
    { name: 'id', type: 'LONG' }, { name: 'b', type: 'BOOL' }, { name: 's', type: 'STRING' },
    { name: 'y', type: 'BYTE' }, { name: 'h', type: 'SHORT' }, { name: 'i', type: 'INTEGER' },
    { name: 'f', type: 'FLOAT' }, { name: 'd', type: 'DOUBLE' }, { name: 't', type: 'TIMESTAMP' },
    { name: 'tn', type: 'TIMESTAMP', timePrecision: 'NANOSECOND' },
    { name: 'g', type: 'GEOMETRY' }, { name: 'blob', type: 'BLOB' },
    { name: 'la', type: 'LONG_ARRAY' }, { name: 'ta', type: 'TIMESTAMP_ARRAY' },
  ],
};

interface RowsAnswer {
  columns: Array<{ name: string; type: string; timePrecision?: string }>;
  rows: unknown[][];
  offset: number;
  limit: number;
  total: number;
}

describe('web API: rows of a container', { timeout: 180_000 }, () => {
  let fixture: WebApiFixture;
  let http: HttpCaller;
  let rowsPath: string;

  before(async () => {
    fixture = await startWebApiFixture({
      maxLimit: 1000, maxRequestSizeBytes: 32 * KiB, maxResponseSizeBytes: 32 * KiB,
      maxTotalResponseSizeBytes: 36 * KiB,
    });
    http = fixture.http;
    rowsPath = `${fixture.base}/containers/typed/rows`;
    const created = await http.call('POST', `${fixture.base}/containers`, { body: ALL_TYPES });
    assert.equal(created.status, 201, created.text);
    const series = await http.call('POST', `${fixture.base}/containers`, { body: {
      container_name: 'meter', container_type: 'TIME_SERIES', rowkey: true,
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' }] } });
    assert.equal(series.status, 201, series.text);
    const keyless = await http.call('POST', `${fixture.base}/containers`, { body: {
      container_name: 'log', container_type: 'COLLECTION', rowkey: false,
      columns: [{ name: 'msg', type: 'STRING' }] } });
    assert.equal(keyless.status, 201, keyless.text);
  });
  after(async () => {
    await fixture?.stop();
  });

  const get = async (body: unknown, path = rowsPath) =>
    await http.json('POST', path, { body }) as RowsAnswer;

  it('puts rows of every type and reads them back in the spec\'s encodings', async () => {
    const body = '[' +
      '[9223372036854775807, true, "normal", 127, -32768, 2147483647, 1.1, 593.5, ' +
      '"2016-01-16T10:25:00.253Z", "2016-01-16T10:25:00.253123456Z", ' +
      '"POLYGON((0 0,10 0,10 10,0 10,0 0))", "aGVsbG8=", [1, "-9223372036854775808"], ' +
      '["2016-01-16T10:25:00.000Z"]],' +
      '["-5", "abc", 42, "1", "2", "3", "4.5", "1e3", "1970-01-01T00:00:00.000Z", ' +
      '"1970-01-01T00:00:00Z", "POINT(1 2)", "", [], []],' +
      '[7, null, null, null, null, null, null, null, null, null, null, null, null, null]]';
    const answer = await http.call('PUT', rowsPath, { body });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.text, '{"count":3}');
    const read = await http.call('POST', rowsPath, { body: { limit: 10, sort: 'id desc' } });
    assert.equal(read.status, 200, read.text);
    assert.match(String(read.headers['content-type']), /^application\/json;charset=UTF-8/);
    // LONG values are exact in the text itself, not only after parsing.
    assert.match(read.text, /\[9223372036854775807,true,"normal",127,-32768,2147483647,1\.1,/);
    assert.match(read.text, /\[1,-9223372036854775808\]/);
    const rows = (JSON.parse(read.text) as RowsAnswer).rows;
    assert.deepEqual(rows[0]!.slice(7), [593.5, '2016-01-16T10:25:00.253Z',
      '2016-01-16T10:25:00.253123456Z', 'POLYGON((0 0,10 0,10 10,0 10,0 0))', 'aGVsbG8=',
      rows[0]![12], ['2016-01-16T10:25:00.000Z']]);
    assert.deepEqual(rows[1], [7, null, null, null, null, null, null, null, null, null, null,
      null, null, null]);
    assert.deepEqual(rows[2], [-5, false, '42', 1, 2, 3, 4.5, 1000, '1970-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.000000000Z', 'POINT(1 2)', '', [], []]);
    const columns = (JSON.parse(read.text) as RowsAnswer).columns;
    assert.deepEqual(columns.slice(8, 10), [
      { name: 't', type: 'TIMESTAMP', timePrecision: 'MILLISECOND' },
      { name: 'tn', type: 'TIMESTAMP', timePrecision: 'NANOSECOND' }]);
    assert.deepEqual(columns[12], { name: 'la', type: 'LONG_ARRAY' });
  });

  it('replaces rows with an existing key (upsert)', async () => {
    const row = [7, true, 'again', null, null, null, null, null, null, null, null, null, null,
      null];
    assert.equal((await http.call('PUT', rowsPath, { body: [row] })).status, 200);
    const page = await get({ limit: 10, condition: 'id = 7' });
    assert.equal(page.total, 1);
    assert.deepEqual(page.rows[0]!.slice(0, 3), [7, true, 'again']);
  });

  it('pages with offset, limit, condition and sort; total ignores the paging', async () => {
    const rows = Array.from({ length: 20 }, (_, i) =>
      [new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), i * 1.5]);
    assert.equal((await http.call('PUT', `${fixture.base}/containers/meter/rows`,
      { body: rows })).status, 200);
    const path = `${fixture.base}/containers/meter/rows`;
    const page = await get({ offset: 2, limit: 3, condition: 'kw >= 6', sort: 'ts desc' }, path);
    assert.deepEqual(page, {
      columns: [{ name: 'ts', type: 'TIMESTAMP', timePrecision: 'MILLISECOND' },
        { name: 'kw', type: 'DOUBLE' }],
      rows: [['2026-01-01T00:17:00.000Z', 25.5], ['2026-01-01T00:16:00.000Z', 24],
        ['2026-01-01T00:15:00.000Z', 22.5]],
      offset: 2, limit: 3, total: 16,
    });
    // A limit above maxLimit (1000 here) is lowered to it.
    assert.equal((await get({ limit: 5000 }, path)).limit, 1000);
    assert.equal((await get({ limit: 5, offset: 100 }, path)).rows.length, 0);
  });

  it('refuses bad read requests', async () => {
    const post = (body: unknown, path = rowsPath) => http.call('POST', path, { body });
    assertError(await post({}), 400, "'limit' is invalid");
    assertError(await post({ limit: 0 }), 400, "'limit' is invalid");
    assertError(await post({ limit: -3 }), 400, "'limit' is invalid");
    assertError(await post({ limit: 1, offset: -1 }), 400, "'offset' is invalid");
    const limitMapping = /^Mapping JSON data error at field 'limit' \(expected integer\)$/;
    assertError(await post({ limit: 'ten' }), 400, limitMapping);
    assertError(await post({ limit: 1.5 }), 400, limitMapping);
    assertError(await post({ limit: 1, condition: 'id = 1\u0000' }), 400,
      'Invalid character(s) found');
    assertError(await post({ limit: 1, sort: '\u0000' }), 400, 'Invalid character(s) found');
    const syntax = await post({ limit: 1, condition: 'id = = 1' });
    assertError(syntax, 400, /TQL_SYNTAX/);
    assert.equal(JSON.parse(syntax.text).errorCode, 180001);
    assertError(await post({ limit: 1, condition: 'nope > 1' }), 400, /COLUMN_NOT_FOUND/);
    assertError(await post({ limit: 1 }, `${fixture.base}/containers/absent/rows`), 404,
      "Container not existed: 'absent'");
    assertError(await post({ limit: 1 }, '/store/v2/x/dbs/public/containers/typed/rows'), 400,
      "Cluster not found in repository: 'x'");
  });

  it('refuses rows that do not convert, with the spec\'s messages', async () => {
    const put = (body: unknown) => http.call('PUT', rowsPath, { body });
    const nulls = (values: Record<number, unknown>) => ALL_TYPES.columns.map((_, i) =>
      i === 0 ? 100 : (i in values ? values[i] : null));
    assertError(await put([]), 400, 'Rows data is empty');
    assertError(await put([[1, true]]), 400, /^Row data is invalid: row 0 has 2 values/);
    assertError(await put([nulls({}), 'row']), 400,
      'Row data is invalid: row 1 is not an array of values');
    assertError(await put({ rows: [] }), 400, 'Parse error');
    assertError(await put([nulls({ 2: { text: 'x' } })]), 400, 'Parse error');
    assertError(await put([nulls({ 12: [[1]] })]), 400, 'Parse error');
    const cannot = (type: string, detail = '') => new RegExp('^' +
      `The specified data cannot be converted to ${type} type${detail}: row 0, column "`
        .replace(/[()]/g, '\\$&'));
    assertError(await put([nulls({ 2: true })]), 400, cannot('STRING'));
    assertError(await put([nulls({ 3: 128 })]), 400, cannot('BYTE', ' (upper limit over)'));
    assertError(await put([nulls({ 4: '-32769' })]), 400, cannot('SHORT', ' (lower limit over)'));
    assertError(await put([nulls({ 5: 1.5 })]), 400, cannot('INTEGER'));
    assertError(await put([nulls({ 5: '12a' })]), 400, cannot('INTEGER'));
    assertError(await put([nulls({ 6: '1e39' })]), 400, cannot('FLOAT'));
    assertError(await put([nulls({ 7: '1e999' })]), 400, cannot('DOUBLE'));
    assertError(await put([nulls({ 7: '0x10' })]), 400, cannot('DOUBLE'));
    assertError(await put([nulls({ 8: 1453000000000 })]), 400, cannot('TIMESTAMP'));
    assertError(await put([nulls({ 8: '2016-01-16 10:25:00' })]), 400, cannot('TIMESTAMP'));
    assertError(await put([nulls({ 8: '2016-02-30T00:00:00.000Z' })]), 400, cannot('TIMESTAMP'));
    assertError(await put([nulls({ 8: '2016-01-16T10:25:00.253+09:00' })]), 400,
      cannot('TIMESTAMP'));
    assertError(await put([nulls({ 10: 'CIRCLE(1)' })]), 400, cannot('GEOMETRY'));
    assertError(await put([nulls({ 11: 'not base64!' })]), 400, cannot('BLOB'));
    assertError(await put([nulls({ 12: 5 })]), 400, cannot('LONG_ARRAY'));
    assertError(await put([nulls({ 12: [1, null] })]), 400, cannot('LONG_ARRAY'));
    assertError(await put([nulls({ 13: ['2016'] })]), 400, cannot('TIMESTAMP_ARRAY'));
    assertError(await put([[null, ...nulls({}).slice(1)]]), 400, /KEY_REQUIRED/);
    assertError(await http.call('PUT', `${fixture.base}/containers/absent/rows`,
      { body: [[1]] }), 404, "Container not existed: 'absent'");
    // None of those changed anything.
    assert.equal((await get({ limit: 100 })).total, 3);
  });

  it('limits the estimated size of a put and of an answer', async () => {
    const big = (id: number) => [id, null, 'x'.repeat(20 * KiB), null, null, null, null, null,
      null, null, null, null, null, null];
    assertError(await http.call('PUT', rowsPath, { body: [big(200), big(201)] }), 400,
      'Too many rows data');
    assert.equal((await http.call('PUT', rowsPath, { body: [big(200)] })).status, 200);
    assert.equal((await http.call('PUT', rowsPath, { body: [big(201)] })).status, 200);
    assertError(await http.call('POST', rowsPath, { body: { limit: 10, condition: 'id >= 200' } }),
      400, 'Too many result');
    assert.equal((await get({ limit: 1, condition: 'id >= 200' })).rows.length, 1);
    // The same limits on the multi-container routes and TQL.
    const base = fixture.base;
    assertError(await http.call('POST', `${base}/containers/rows`,
      { body: [{ name: 'typed', keyValues: [200, 201] }] }), 400, 'Too many result');
    assertError(await http.call('POST', `${base}/containers/rows`, { body: [
      { name: 'typed', keyValues: [200] }, { name: 'typed', keyValues: [201] }] }), 400,
    'Too many result');
    assertError(await http.call('PUT', `${base}/containers/rows`, { body: [
      { containerName: 'typed', rows: [big(202)] }, { containerName: 'typed', rows: [big(203)] },
    ] }), 400, 'Too many rows data');
    assertError(await http.call('POST', `${base}/tql`,
      { body: [{ name: 'typed', stmt: 'select * where id >= 200' }] }), 400, 'Too many result');
    assertError(await http.call('POST', `${base}/tql`, { body: [
      { name: 'typed', stmt: 'select * where id = 200' },
      { name: 'typed', stmt: 'select * where id = 201' }] }), 400, 'Too many result');
    await http.call('DELETE', rowsPath, { body: [200, 201] });
    assert.equal((await get({ limit: 10, condition: 'id >= 200 and id < 1000' })).total, 0);
  });

  it('refuses to describe a container with a composite row key', async () => {
    const store = getStore({ notificationMember: `127.0.0.1:${fixture.node.transactionPort}`,
      clusterName: 'myCluster', username: 'admin', password: 'admin' });
    try {
      await store.putContainer({ name: 'pairs', type: 'COLLECTION', rowKey: 2, columns: [
        { name: 'a', type: 'INTEGER' }, { name: 'b', type: 'STRING' }] });
    } finally {
      await store.close();
    }
    assertError(await http.call('GET', `${fixture.base}/containers/pairs/info`), 400,
      /composite row key/);
    assert.equal((await http.call('DELETE', `${fixture.base}/containers`, { body: ['pairs'] }))
      .status, 204);
  });

  it('refuses a container list larger than maxResponseSize', async () => {
    const names = ['a', 'b', 'c', 'd', 'e'].map((letter) => letter.repeat(8000));
    for (const name of names) {
      const created = await http.call('POST', `${fixture.base}/containers`, { body: {
        container_name: name, container_type: 'COLLECTION', rowkey: false,
        columns: [{ name: 'v', type: 'INTEGER' }] } });
      assert.equal(created.status, 201, created.text);
    }
    assertError(await http.call('GET', `${fixture.base}/containers?limit=10`), 400,
      "Response size is too large. Please try to use 'limit' option.");
    const page = await http.json('GET', `${fixture.base}/containers?limit=2`) as
      { names: string[]; total: number };
    assert.equal(page.names.length, 2);
    assert.equal(page.total, 8);
    assert.equal((await http.call('DELETE', `${fixture.base}/containers`, { body: names }))
      .status, 204);
  });

  it('deletes rows by key (204), ignoring keys that do not exist or convert', async () => {
    const answer = await http.call('DELETE', rowsPath, { body: [7, '-5', 12345, 'x', null] });
    assert.equal(answer.status, 204, answer.text);
    const left = await get({ limit: 10 });
    assert.deepEqual(left.rows.map((row) => row[0]), [9223372036854775807]);
    const meterPath = `${fixture.base}/containers/meter/rows`;
    assert.equal((await http.call('DELETE', meterPath,
      { body: ['2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z', 17] })).status, 204);
    assert.equal((await get({ limit: 100 }, meterPath)).total, 18);
    assertError(await http.call('DELETE', `${fixture.base}/containers/log/rows`,
      { body: ['a'] }), 400, 'Row key does not exist');
    assertError(await http.call('DELETE', `${fixture.base}/containers/absent/rows`,
      { body: [1] }), 404, "Container not existed: 'absent'");
    assertError(await http.call('DELETE', rowsPath, { body: { key: 1 } }), 400);
  });
});
