// Over real HTTP against a real node: the connection check and its timeout rules, Basic
// authentication and its three 401 messages, unknown clusters and databases, the container
// routes (list, create, delete, info) with each documented error, and the framework's own
// errors (404, 405, 415, bad JSON, a body or header too large), always with the error body.

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MiB } from '../../../lib/base/units.ts';
import {
  assertError, startWebApiFixture, type HttpCaller, type WebApiFixture,
} from './webapi-test-helpers.ts';

const SENSORS = {
  container_name: 'sensors', container_type: 'COLLECTION', rowkey: true,
  columns: [
    { name: 'id', type: 'STRING', index: ['TREE'] },
    { name: 'value', type: 'DOUBLE', index: [] },
    { name: 'seen', type: 'TIMESTAMP', timePrecision: 'MICROSECOND' },
    { name: 'tags', type: 'STRING_ARRAY' },
  ],
};

describe('web API: connection check, authentication, containers', { timeout: 180_000 }, () => {
  let fixture: WebApiFixture;
  let http: HttpCaller;
  let base: string;

  before(async () => {
    fixture = await startWebApiFixture({ maxLimit: 1000, requestBodySizeBytesMax: 1 * MiB,
      requestJsonBodySizeBytesMax: 512 * 1024 });
    http = fixture.http;
    base = fixture.base;
  });
  after(async () => {
    await fixture?.stop();
  });

  describe('checkConnection', () => {
    it('answers GET and HEAD with 200, Content-Length 0, a Date and no body', async () => {
      for (const method of ['GET', 'HEAD']) {
        const answer = await http.call(method, `${base}/checkConnection`);
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.headers['content-length'], '0');
        assert.ok(!Number.isNaN(Date.parse(String(answer.headers['date']))));
        assert.equal(answer.body.length, 0);
      }
    });

    it('takes a timeout in milliseconds, from 1 to 10000', async () => {
      assert.equal((await http.call('GET', `${base}/checkConnection?timeout=5000`)).status, 200);
      assertError(await http.call('GET', `${base}/checkConnection?timeout=0`), 400,
        'Timeout must be greater than 0');
      assertError(await http.call('GET', `${base}/checkConnection?timeout=-5`), 400,
        'Timeout must be greater than 0');
      assertError(await http.call('GET', `${base}/checkConnection?timeout=10001`), 400,
        'Cannot wait that long');
      assertError(await http.call('GET', `${base}/checkConnection?timeout=soon`), 400);
      assertError(await http.call('GET', `${base}/checkConnection?timeout=1&timeout=2`), 400);
    });

    it('refuses missing, malformed and wrong credentials with 401', async () => {
      const path = `${base}/checkConnection`;
      assertError(await http.call('GET', path, { auth: null }), 401,
        'Basic authentication not found');
      assertError(await http.call('GET', path, { auth: null,
        headers: { authorization: 'Bearer abc' } }), 401, 'Basic authentication not found');
      assertError(await http.call('GET', path, { auth: null,
        headers: { authorization: 'Basic ***' } }), 401,
      'Basic authentication is not encoded by Base64');
      assertError(await http.call('GET', path, { auth: null,
        headers: { authorization: `Basic ${Buffer.from('admin').toString('base64')}` } }), 401,
      'Basic authentication is invalid format');
      const wrong = await http.call('GET', path, { auth: { user: 'admin', password: 'nope' } });
      assertError(wrong, 401, /AUTHENTICATION_FAILED/);
      assert.equal(JSON.parse(wrong.text).errorCode, 10005);
      assertError(await http.call('GET', path, { auth: { user: 'nobody', password: 'admin' } }),
        401, /AUTHENTICATION_FAILED/);
      // A password with ':' is split at the first one only; still wrong here, still a 401.
      assertError(await http.call('GET', path, { auth: { user: 'admin', password: 'ad:min' } }),
        401, /AUTHENTICATION_FAILED/);
      // The right password works again after the wrong ones.
      assert.equal((await http.call('GET', path)).status, 200);
    });

    it('answers unknown clusters, databases and unaddressable names', async () => {
      assertError(await http.call('GET', '/store/v2/otherCluster/dbs/public/checkConnection'),
        400, "Cluster not found in repository: 'otherCluster'");
      assertError(await http.call('GET', '/store/v2/myCluster/dbs/nosuchdb/checkConnection'),
        404, /DATABASE_NOT_FOUND/);
      assertError(await http.call('GET', '/store/v2/myCluster/dbs/pub-lic/checkConnection'),
        400, "Database name 'pub-lic' is invalid");
      assertError(await http.call('GET', '/store/v2/multicastCluster/dbs/public/checkConnection'),
        500, /MULTICAST/);
    });
  });

  describe('containers', () => {
    it('creates a container (201), refuses a second of that name (409)', async () => {
      const created = await http.call('POST', `${base}/containers`, { body: SENSORS });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.length, 0);
      assertError(await http.call('POST', `${base}/containers`, { body: SENSORS }), 409,
        'Container already existed');
      const series = await http.call('POST', `${base}/containers`, { body: {
        container_name: 'meter1', container_type: 'TIME_SERIES', rowkey: true,
        columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'FLOAT' }],
      } });
      assert.equal(series.status, 201, series.text);
    });

    it('creates the indexes of the columns with the container, or nothing', async () => {
      const columns = [{ name: 'k', type: 'INTEGER', index: ['TREE'] },
        { name: 'v', type: 'DOUBLE', index: ['TREE'] }, { name: 'g', type: 'GEOMETRY',
          index: ['SPATIAL'] }];
      const created = await http.call('POST', `${base}/containers`, { body: {
        container_name: 'indexed', container_type: 'COLLECTION', rowkey: true, columns } });
      assert.equal(created.status, 201, created.text);
      const info = await http.json('GET', `${base}/containers/indexed/info`) as
        { columns: Array<{ index: string[] }> };
      assert.deepEqual(info.columns.map((c) => c.index), [['TREE'], ['TREE'], ['SPATIAL']]);
      assertError(await http.call('POST', `${base}/containers`, { body: {
        container_name: 'badindex', container_type: 'COLLECTION', rowkey: true,
        columns: [{ name: 'k', type: 'INTEGER' }, { name: 'v', type: 'DOUBLE',
          index: ['SPATIAL'] }] } }), 400, /INVALID_SCHEMA.*SPATIAL/);
      assertError(await http.call('GET', `${base}/containers/badindex/info`), 404);
      assert.equal((await http.call('DELETE', `${base}/containers`, { body: ['indexed'] }))
        .status, 204);
    });

    it('describes a container; 404 for one that does not exist', async () => {
      const info = await http.json('GET', `${base}/containers/sensors/info`);
      assert.deepEqual(info, {
        container_name: 'sensors', container_type: 'COLLECTION', rowkey: true,
        columns: [
          { name: 'id', type: 'STRING', index: ['TREE'] },
          { name: 'value', type: 'DOUBLE', index: [] },
          { name: 'seen', type: 'TIMESTAMP', index: [], timePrecision: 'MICROSECOND' },
          { name: 'tags', type: 'STRING_ARRAY', index: [] },
        ],
      });
      assertError(await http.call('GET', `${base}/containers/nothing/info`), 404,
        "Container not existed: 'nothing'");
      assertError(await http.call('GET', `${base}/containers/a-b/info`), 400,
        'Container name is invalid');
    });

    it('refuses bad definitions with the spec\'s messages', async () => {
      const post = (body: unknown) => http.call('POST', `${base}/containers`, { body });
      const valid = { container_name: 'x1', container_type: 'COLLECTION', rowkey: false,
        columns: [{ name: 'a', type: 'INTEGER' }] };
      assertError(await post({ ...valid, container_name: '' }), 400, 'Container name is invalid');
      assertError(await post({ ...valid, container_name: 'bad.name' }), 400,
        'Container name is invalid');
      assertError(await post({ ...valid, container_type: undefined }), 400,
        "'container_type' is required");
      assertError(await post({ ...valid, container_type: 'TABLE' }), 400,
        "Mapping JSON data error at field 'container_type': 'TABLE' is not one of COLLECTION, " +
        'TIME_SERIES');
      assertError(await post({ ...valid, columns: [] }), 400, "'columns' is required");
      assertError(await post({ ...valid, columns: undefined }), 400, "'columns' is required");
      assertError(await post({ ...valid, columns: [{ name: 'a', type: null }] }), 400,
        'Empty column type');
      assertError(await post({ ...valid, columns: [{ name: 'a', type: 'DECIMAL' }] }), 400,
        /Mapping JSON data/);
      assertError(await post({ ...valid, rowkey: 'yes' }), 400,
        /^Mapping JSON data error at field 'rowkey' \(expected boolean\)$/);
      assertError(await post([valid]), 400, /Mapping JSON data/);
      // The node's own schema rules: a time series needs a TIMESTAMP row key.
      const node = await post({ ...valid, container_type: 'TIME_SERIES', rowkey: true });
      assertError(node, 400, /INVALID_SCHEMA/);
      assert.ok(JSON.parse(node.text).errorCode > 0);
      assertError(await http.call('GET', `${base}/containers/x1/info`), 404);
    });

    it('lists names with limit, offset, type and sort; total before paging', async () => {
      for (const name of ['c_b', 'c_a', 'C_c']) {
        const answer = await http.call('POST', `${base}/containers`, { body: {
          container_name: name, container_type: 'COLLECTION', rowkey: false,
          columns: [{ name: 'v', type: 'INTEGER' }] } });
        assert.equal(answer.status, 201, answer.text);
      }
      const all = await http.json('GET', `${base}/containers?limit=100`);
      assert.deepEqual(all, { names: ['C_c', 'c_a', 'c_b', 'meter1', 'sensors'], total: 5,
        offset: 0, limit: 100 });
      assert.deepEqual(await http.json('GET', `${base}/containers?limit=2&offset=1&sort=DESC`),
        { names: ['meter1', 'c_b'], total: 5, offset: 1, limit: 2 });
      assert.deepEqual(await http.json('GET', `${base}/containers?limit=10&type=TIME_SERIES`),
        { names: ['meter1'], total: 1, offset: 0, limit: 10 });
      assert.deepEqual(await http.json('GET', `${base}/containers?limit=3&offset=9`),
        { names: [], total: 5, offset: 9, limit: 3 });
      // limit is reported as at most maxLimit (1000 here).
      assert.equal((await http.json('GET', `${base}/containers?limit=5000`) as
        { limit: number }).limit, 1000);
      assertError(await http.call('GET', `${base}/containers`), 400, "'limit' is required");
      assertError(await http.call('GET', `${base}/containers?limit=-1`), 400,
        "'limit' is invalid");
      assertError(await http.call('GET', `${base}/containers?limit=1&offset=-1`), 400,
        "'offset' is invalid");
      assertError(await http.call('GET', `${base}/containers?limit=x`), 400);
      assertError(await http.call('GET', `${base}/containers?limit=1&type=TABLE`), 400);
      assertError(await http.call('GET', `${base}/containers?limit=1&sort=asc`), 400);
    });

    it('drops containers (204), ignoring names that do not exist', async () => {
      const answer = await http.call('DELETE', `${base}/containers`,
        { body: ['c_a', 'no_such', 'C_c', 'bad-name'] });
      assert.equal(answer.status, 204, answer.text);
      assert.deepEqual((await http.json('GET', `${base}/containers?limit=10`) as
        { names: string[] }).names, ['c_b', 'meter1', 'sensors']);
      assertError(await http.call('DELETE', `${base}/containers`, { body: { name: 'c_b' } }),
        400);
      assertError(await http.call('DELETE', `${base}/containers`, { body: ['c_b'],
        auth: { user: 'admin', password: 'x' } }), 401);
      assert.equal((await http.json('GET', `${base}/containers?limit=10`) as
        { total: number }).total, 3);
    });
  });

  describe('errors of the framework', () => {
    it('answers an unknown path 404 and a known path with another method 405', async () => {
      assertError(await http.call('GET', `${base}/nothing/here`), 404);
      assertError(await http.call('GET', '/'), 404);
      assertError(await http.call('PATCH', `${base}/containers`), 405,
        "Request method 'PATCH' not supported");
      assertError(await http.call('POST', `${base}/checkConnection`, { body: {} }), 405);
      assertError(await http.call('GET', `${base}/tql`), 405);
      assertError(await http.call('DELETE', `${base}/containers/sensors/info`), 405);
    });

    it('answers a media type no route takes 415, and JSON that does not parse 400', async () => {
      assertError(await http.call('POST', `${base}/containers`,
        { body: 'container_name=x', contentType: 'application/x-www-form-urlencoded' }), 415);
      assertError(await http.call('POST', `${base}/containers`,
        { body: '{}', contentType: 'text/plain' }), 415);
      assertError(await http.call('POST', `${base}/containers`, { body: '{"container_name":' }),
        400, /JSON parse error/);
    });

    it('answers a body over the limit 413 and headers over the limit 400', async () => {
      const big = JSON.stringify([['x'.repeat(1 * MiB)]]);
      assertError(await http.call('PUT', `${base}/containers/sensors/rows`, { body: big }), 413);
      const header = await rawRequest(http.port, `GET ${base}/checkConnection HTTP/1.1\r\n` +
        `Host: x\r\nX-Big: ${'a'.repeat(60_000)}\r\n\r\n`);
      assert.match(header, /^HTTP\/1\.1 400/);
      assert.match(header, /"version":"v2"/);
      const garbage = await rawRequest(http.port, 'NOT HTTP AT ALL\r\n\r\n');
      assert.match(garbage, /^HTTP\/1\.1 400/);
      // Still serving.
      assert.equal((await http.call('HEAD', `${base}/checkConnection`)).status, 200);
    });
  });
});

/** Sends raw bytes and returns everything the server wrote before closing. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.end(text));
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer'));
    }, 10_000);
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
  });
}
