// Over real HTTP against a real node: the multi-container get and put, /tql with several
// statements and `columns`, and the BLOB variants of the row routes (multipart with a zip).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { unzipSync, zipSync } from 'fflate';
import { parseMultipart, multipartBoundary } from '../../../lib/webapi/http/multipart.ts';
import {
  assertError, startWebApiFixture, type HttpCaller, type WebApiFixture,
} from './webapi-test-helpers.ts';

interface MultiGetAnswer {
  container: string;
  columns: unknown[];
  results: unknown[][];
  offset: number;
  limit: number;
  total: number;
}

interface TqlAnswer {
  columns: Array<{ name: string; type: string; timePrecision?: string }>;
  results: unknown[][];
  offset?: number;
  limit?: number;
  total?: number;
  responseSizeByte?: number;
}

const BOUNDARY = 'testBoundary7MA4YWxkTrZu0gW';

function multipart(parts: Array<{ name: string; data: Buffer; fileName?: string;
  type: string }>): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const fileName = part.fileName === undefined ? '' : `; filename="${part.fileName}"`;
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; ` +
      `name="${part.name}"${fileName}\r\nContent-Type: ${part.type}\r\n\r\n`), part.data,
    Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

describe('web API: multi-container rows, TQL, BLOB rows', { timeout: 180_000 }, () => {
  let fixture: WebApiFixture;
  let http: HttpCaller;
  let base: string;

  const create = async (body: unknown) => {
    const answer = await http.call('POST', `${base}/containers`, { body });
    assert.equal(answer.status, 201, answer.text);
  };

  before(async () => {
    fixture = await startWebApiFixture({ maxLimit: 100, maxQueryNum: 3 });
    http = fixture.http;
    base = fixture.base;
    await create({ container_name: 'meter', container_type: 'TIME_SERIES', rowkey: true,
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' }] });
    await create({ container_name: 'people', container_type: 'COLLECTION', rowkey: true,
      columns: [{ name: 'name', type: 'STRING' }, { name: 'age', type: 'INTEGER' }] });
    await create({ container_name: 'log', container_type: 'COLLECTION', rowkey: false,
      columns: [{ name: 'msg', type: 'STRING' }] });
    await create({ container_name: 'files', container_type: 'COLLECTION', rowkey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'data', type: 'BLOB' },
        { name: 'fname', type: 'STRING' }, { name: 'thumb', type: 'BLOB' }] });
  });
  after(async () => {
    await fixture?.stop();
  });

  it('puts rows into several containers in one request', async () => {
    const answer = await http.json('PUT', `${base}/containers/rows`, { body: [
      { containerName: 'meter', rows: Array.from({ length: 10 }, (_, i) =>
        [new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), i]) },
      { containerName: 'people', rows: [['ann', 31], ['bob', '42'], ['cy', 7]] },
      { containerName: 'log', rows: [['one'], ['two']] },
      { containerName: 'people', rows: [['dee', 50]] },
    ] });
    assert.deepEqual(answer, [
      { containerName: 'meter', updatedRows: 10 }, { containerName: 'people', updatedRows: 3 },
      { containerName: 'log', updatedRows: 2 }, { containerName: 'people', updatedRows: 1 },
    ]);
    const put = (body: unknown) => http.call('PUT', `${base}/containers/rows`, { body });
    assertError(await put([{ containerName: '', rows: [['x', 1]] }]), 400,
      'The container is invalid');
    assertError(await put([{ containerName: 'people', rows: [] }]), 400,
      'Row data is invalid: container "people" has no rows');
    assertError(await put([{ containerName: 'people' }]), 400,
      'Row data is invalid: container "people" has no rows');
    assertError(await put([{ containerName: 'absent', rows: [['x']] }]), 404,
      "Container not existed: 'absent'");
    assertError(await put([{ containerName: 'people', rows: [['x']] }]), 400,
      'Row data is invalid: container "people", row 0 has 1 values, the container has 2 columns');
    assertError(await put([{ containerName: 'people', rows: [['x', 1], ['y', true]] }]), 400,
      /^The specified data cannot be converted to INTEGER type: container "people", row 1, /);
    assertError(await put({ containerName: 'people' }), 400, /Mapping JSON data/);
    // A refused request wrote nothing, not even to the containers before the bad one.
    assertError(await put([{ containerName: 'log', rows: [['three']] },
      { containerName: 'people', rows: [['x', 'y']] }]), 400);
    const logRows = await http.json('POST', `${base}/containers/log/rows`,
      { body: { limit: 10 } }) as { total: number };
    assert.equal(logRows.total, 2);
  });

  it('gets rows of several containers by keys and key ranges, paged', async () => {
    const answer = await http.json('POST', `${base}/containers/rows`, { body: [
      { name: 'people', keyValues: ['bob', 'ann', 'zed'] },
      { name: 'meter', startKeyValue: '2026-01-01T00:00:02.000Z',
        finishKeyValue: '2026-01-01T00:00:07.000Z', offset: 1, limit: 2 },
      { name: 'log' },
      { name: 'people', limit: 500 },
    ] }) as MultiGetAnswer[];
    assert.deepEqual(answer.map((a) => [a.container, a.total, a.offset, a.limit]), [
      ['people', 2, 0, 100], ['meter', 6, 1, 2], ['log', 2, 0, 100],
      ['people', 4, 0, 100]]);
    assert.deepEqual(answer[0]!.results.map((row) => row[0]).sort(), ['ann', 'bob']);
    assert.deepEqual(answer[1]!.results, [['2026-01-01T00:00:03.000Z', 3],
      ['2026-01-01T00:00:04.000Z', 4]]);
    assert.deepEqual(answer[1]!.columns, [
      { name: 'ts', type: 'TIMESTAMP', timePrecision: 'MILLISECOND' },
      { name: 'kw', type: 'DOUBLE' }]);
    const post = (body: unknown) => http.call('POST', `${base}/containers/rows`, { body });
    assertError(await post([{ name: ' ' }]), 400, 'The container is invalid');
    assertError(await post([{ name: 'people', offset: -1 }]), 400, 'The offset is invalid');
    assertError(await post([{ name: 'people', limit: -1 }]), 400, 'The limit is invalid');
    assertError(await post([{ name: 'absent' }]), 404, "Container not existed: 'absent'");
    assertError(await post([{ name: 'meter', keyValues: ['yesterday'] }]), 400,
      /cannot be converted to TIMESTAMP/);
    assertError(await post({ name: 'people' }), 400, /Mapping JSON data/);
  });

  it('runs several TQL statements, with columns, totals and aggregates', async () => {
    const answer = await http.json('POST', `${base}/tql`, { body: [
      { name: 'meter', stmt: 'select * where kw >= 3\norder by ts desc limit 2 offset 1',
        columns: null, hasPartialExecution: false },
      { name: 'people', stmt: 'select *', columns: ['age'] },
      { name: 'meter', stmt: 'select avg(kw)' },
    ] }) as TqlAnswer[];
    assert.deepEqual(answer[0], {
      columns: [{ name: 'ts', type: 'TIMESTAMP', timePrecision: 'MILLISECOND' },
        { name: 'kw', type: 'DOUBLE' }],
      results: [['2026-01-01T00:00:08.000Z', 8], ['2026-01-01T00:00:07.000Z', 7]],
      offset: 1, limit: 2, total: 7, responseSizeByte: 32,
    });
    assert.deepEqual(answer[1]!.columns, [{ name: 'age', type: 'INTEGER' }]);
    assert.equal(answer[1]!.limit, 100);
    assert.equal(answer[1]!.total, 4);
    assert.deepEqual(answer[2], { columns: [{ name: 'aggregationResult', type: 'DOUBLE' }],
      results: [[4.5]] });
    const more = await http.json('POST', `${base}/tql`, { body: [
      { name: 'meter', stmt: 'select count(*)' },
      { name: 'meter', stmt: 'select max(ts)' },
      { name: 'meter', stmt: 'select * limit 1000', hasPartialExecution: true },
    ] }) as TqlAnswer[];
    assert.deepEqual(more[0]!.results, [[10]]);
    assert.deepEqual(more[1], { columns: [{ name: 'aggregationResult', type: 'TIMESTAMP',
      timePrecision: 'MILLISECOND' }], results: [['2026-01-01T00:00:09.000Z']] });
    assert.equal(more[2]!.limit, 100);
  });

  it('writes rows of fixed-size columns from the page bytes: NULLs, edge values, beside text answers', async () => {
    await create({ container_name: 'warm', container_type: 'TIME_SERIES', rowkey: true,
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'temp_c', type: 'DOUBLE' },
        { name: 'n', type: 'INTEGER' }, { name: 'ok', type: 'BOOL' }, { name: 's', type: 'SHORT' }] });
    const put = await http.call('PUT', `${base}/containers/warm/rows`, { body: [
      ['2026-01-01T00:00:00.000Z', 0.1, -7, true, 300],
      ['2026-01-01T00:00:01.500Z', null, null, false, null],
      ['2026-01-01T00:00:02.000Z', -1.5e-300, 2147483647, null, -32768],
    ] });
    assert.equal(put.status, 200, put.text);
    const answer = await http.json('POST', `${base}/tql`, { body: [
      { name: 'people', stmt: 'select * where age < 0' },
      { name: 'warm', stmt: 'select *' },
      { name: 'warm', stmt: 'select * where n > 0', columns: ['temp_c'] },
    ] }) as TqlAnswer[];
    assert.deepEqual(answer[0]!.results, []);
    assert.deepEqual(answer[1], {
      columns: [{ name: 'ts', type: 'TIMESTAMP', timePrecision: 'MILLISECOND' },
        { name: 'temp_c', type: 'DOUBLE' }, { name: 'n', type: 'INTEGER' },
        { name: 'ok', type: 'BOOL' }, { name: 's', type: 'SHORT' }],
      results: [['2026-01-01T00:00:00.000Z', 0.1, -7, true, 300],
        ['2026-01-01T00:00:01.500Z', null, null, false, null],
        ['2026-01-01T00:00:02.000Z', -1.5e-300, 2147483647, null, -32768]],
      offset: 0, limit: 100, total: 3, responseSizeByte: 8 * 3 + 8 * 2 + 4 * 2 + 1 * 2 + 2 * 2,
    });
    assert.deepEqual(answer[2]!.results, [[-1.5e-300]]);
  });

  it('counts total by a query only when the rows do not tell it; the first failure in order answers', async () => {
    await create({ container_name: 'many', container_type: 'COLLECTION', rowkey: true,
      columns: [{ name: 'id', type: 'INTEGER' }] });
    const put = await http.call('PUT', `${base}/containers/many/rows`,
      { body: Array.from({ length: 120 }, (_, i) => [i]) });
    assert.equal(put.status, 200, put.text);
    const answer = await http.json('POST', `${base}/tql`, { body: [
      // As many rows as maxLimit (100): more may match, so they are counted.
      { name: 'many', stmt: 'select *' },
      // Fewer rows than the limit from offset 0: they are every row matched.
      { name: 'many', stmt: 'select * where id >= 50' },
      { name: 'many', stmt: 'select * where id >= 10 limit 5 offset 100' },
    ] }) as TqlAnswer[];
    assert.deepEqual(answer.map((a) => [a.results.length, a.limit, a.offset, a.total]),
      [[100, 100, 0, 120], [70, 100, 0, 70], [5, 5, 100, 110]]);
    const tql = (body: unknown) => http.call('POST', `${base}/tql`, { body });
    assertError(await tql([{ name: 'many', stmt: 'select *' }, { name: 'absent', stmt: 'select *' },
      { name: 'many', stmt: 'select * where' }]), 404, "Container not existed: 'absent'");
    assertError(await tql([{ name: 'many', stmt: 'select * where' },
      { name: 'absent', stmt: 'select *' }]), 400, /TQL_SYNTAX/);
    // Its count goes with the query, and fails too.
    assertError(await tql([{ name: 'absent', stmt: 'select * limit 5 offset 1' }]), 404,
      "Container not existed: 'absent'");
  });

  it('refuses bad TQL requests', async () => {
    const tql = (body: unknown) => http.call('POST', `${base}/tql`, { body });
    const one = { name: 'meter', stmt: 'select *' };
    assertError(await tql([]), 400, 'List of TQL is empty');
    assertError(await tql([one, one, one, one]), 400,
      'Exceed maximum of TQLs that can be executed');
    assertError(await tql([{ ...one, name: '' }]), 400, 'Container invalid');
    assertError(await tql([{ ...one, stmt: '  ' }]), 400, 'Statement invalid');
    assertError(await tql([{ ...one, stmt: 'EXPLAIN select *' }]), 400,
      "'EXPLAIN/ANALYZE' is not supported");
    assertError(await tql([{ ...one, stmt: 'select *\u0000' }]), 400,
      'Invalid character(s) found');
    assertError(await tql([{ ...one, columns: ['nope'] }]), 400, "Column 'nope' not existed");
    assertError(await tql([{ ...one, name: 'absent' }]), 404, "Container not existed: 'absent'");
    assertError(await tql([{ ...one, stmt: 'select * where' }]), 400, /TQL_SYNTAX/);
    assertError(await tql([{ ...one, hasPartialExecution: 'yes' }]), 400, /Mapping JSON data/);
    assertError(await tql({ ...one }), 400, /Mapping JSON data/);
  });

  it('puts rows with BLOBs from a zip and reads them back as a zip', async () => {
    const zip = zipSync({ 'a.bin': new Uint8Array([1, 2, 3]),
      'pictures/b.png': new Uint8Array([9, 8]) });
    const rows = [[1, 'a.bin', 'first.bin', 'pictures/b.png'], [2, ' ', 'second', null],
      [3, 'pictures/b.png', 'first.bin', '']];
    const body = multipart([
      { name: 'rows', data: Buffer.from(JSON.stringify(rows)), type: 'application/json' },
      { name: 'file', data: Buffer.from(zip), fileName: 'up.zip', type: 'application/zip' }]);
    const put = await http.call('PUT', `${base}/containers/files/rows/blob`,
      { body, contentType: `multipart/form-data; boundary=${BOUNDARY}` });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(JSON.parse(put.text), { count: 3 });
    const plain = await http.json('POST', `${base}/containers/files/rows`,
      { body: { limit: 10 } }) as { rows: unknown[][] };
    assert.deepEqual(plain.rows, [[1, 'AQID', 'first.bin', 'CQg='], [2, null, 'second', null],
      [3, 'CQg=', 'first.bin', null]]);

    const read = await http.call('POST', `${base}/containers/files/rows/blob`,
      { body: { limit: 10, fileNameCol: 'fname' } });
    assert.equal(read.status, 200, read.text);
    const boundary = multipartBoundary(String(read.headers['content-type']));
    assert.ok(boundary !== undefined);
    const parts = parseMultipart(read.body, boundary);
    assert.equal(parts.get('rows')!.contentType, 'application/json;charset=UTF-8');
    assert.equal(parts.get('file')!.contentType, 'application/zip');
    const answer = JSON.parse(parts.get('rows')!.data.toString('utf8')) as
      { rows: string[][]; total: number };
    assert.equal(answer.total, 3);
    const files = unzipSync(new Uint8Array(parts.get('file')!.data));
    const row1 = answer.rows[0]!;
    assert.equal(row1[1], '(BLOB)1_first.bin');
    assert.equal(row1[3], '(BLOB)2_first.bin');
    assert.deepEqual([...files['1_first.bin']!], [1, 2, 3]);
    assert.deepEqual([...files['2_first.bin']!], [9, 8]);
    // Row 3 asks for the same name again: it gets a random one instead.
    const third = answer.rows[2]![1]!.slice('(BLOB)'.length);
    assert.notEqual(third, '1_first.bin');
    assert.deepEqual([...files[third]!], [9, 8]);
    assert.equal(Object.keys(files).length, 3);
  });

  it('refuses BLOB uploads that are not zips or miss files', async () => {
    const upload = (rows: unknown, file: Buffer) => http.call('PUT',
      `${base}/containers/files/rows/blob`, {
        body: multipart([
          { name: 'rows', data: Buffer.from(JSON.stringify(rows)), type: 'application/json' },
          { name: 'file', data: file, fileName: 'up.zip', type: 'application/zip' }]),
        contentType: `multipart/form-data; boundary=${BOUNDARY}` });
    const zip = Buffer.from(zipSync({ 'a.bin': new Uint8Array([1]) }));
    assertError(await upload([[9, 'b.bin', 'x', null]], zip), 400,
      'File not found in list BLOB data: b.bin');
    assertError(await upload([[9, 'a.bin', 'x', null]], Buffer.from('not a zip')), 400,
      'File type is invalid');
    const broken = Buffer.from(zip);
    broken.fill(0x55, 30);
    assertError(await upload([[9, 'a.bin', 'x', null]], broken), 400, /Cannot extract file/);
    assertError(await upload([], zip), 400, 'Rows data is empty');
    assertError(await http.call('PUT', `${base}/containers/files/rows/blob`,
      { body: [[1, 'a.bin', 'x', null]] }), 400, /multipart/);
    assertError(await http.call('PUT', `${base}/containers/files/rows/blob`,
      { body: 'x', contentType: 'multipart/form-data' }), 400);
    assertError(await http.call('POST', `${base}/containers/files/rows/blob`,
      { body: { limit: 1, fileNameCol: 'nope' } }), 400, "Column 'nope' not existed");
    const plain = await http.json('POST', `${base}/containers/files/rows`,
      { body: { limit: 10 } }) as { total: number };
    assert.equal(plain.total, 3);
  });
});
