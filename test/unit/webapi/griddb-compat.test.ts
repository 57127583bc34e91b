// Over real HTTP against a real node, what a client written for GridDB's web API meets (issue 13,
// points 4 and 5): GridDB's own base path `/griddb/v2/...` answers as `/store/v2/...` does (the
// `basePath` setting, both by default), and the errors say where the problem is: the row, the
// column, the value and the form expected; the container or cluster asked for; the container
// types allowed; and the name of a body member no route reads, which is refused, not ignored.

import assert from 'node:assert/strict';
import { pino } from 'pino';
import { after, before, describe, it } from 'node:test';
import { WEBAPI_SETTINGS_DEFAULT } from '../../../lib/webapi/config/webapi-settings.ts';
import { WebApiServer } from '../../../lib/webapi/webapi-server.ts';
import {
  assertError, CLUSTER, HttpCaller, startWebApiFixture, type WebApiFixture,
} from './webapi-test-helpers.ts';

describe('web API: GridDB compatibility of paths and errors', { timeout: 180_000 }, () => {
  let fixture: WebApiFixture;
  let http: HttpCaller;
  let base: string;

  before(async () => {
    fixture = await startWebApiFixture();
    http = fixture.http;
    base = fixture.base;
    const created = await http.call('POST', `${base}/containers`, { body: {
      container_name: 'usage', container_type: 'TIME_SERIES', rowkey: true,
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'usage', type: 'DOUBLE' },
        { name: 'tags', type: 'INTEGER_ARRAY' }],
    } });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    await fixture?.stop();
  });

  describe('basePath', () => {
    it('answers under /griddb/v2/ and /store/v2/ by default, the same', async () => {
      const row = ['2024-01-01T00:00:00.000Z', 1.5, [1, 2]];
      const griddb = `/griddb/v2/${CLUSTER}/dbs/public`;
      assert.equal((await http.call('GET', `${griddb}/checkConnection`)).status, 200);
      const put = await http.json('PUT', `${griddb}/containers/usage/rows`, { body: [row] });
      assert.deepEqual(put, { count: 1 });
      const viaGriddb = await http.json('POST', `${griddb}/containers/usage/rows`,
        { body: { limit: 10 } });
      const viaStore = await http.json('POST', `${base}/containers/usage/rows`,
        { body: { limit: 10 } });
      assert.deepEqual(viaGriddb, viaStore);
      assert.deepEqual((viaStore as { rows: unknown[] }).rows, [row]);
      // Errors under GridDB's path carry GridDB's body too; a wrong method is still a 405.
      assertError(await http.call('GET', `${griddb}/containers/absent/info`), 404,
        "Container not existed: 'absent'");
      assertError(await http.call('DELETE', `${griddb}/checkConnection`), 405);
    });

    it('answers only under the base paths the setting names', async () => {
      const server = await WebApiServer.start({
        repository: { clusters: [{ name: CLUSTER, mode: 'FIXED_LIST',
          transactionMember: `127.0.0.1:${fixture.node.transactionPort}`, sqlMember: '' }] },
        settings: { ...WEBAPI_SETTINGS_DEFAULT, port: 0, basePaths: ['griddb'] },
        logger: pino({ level: 'silent' }),
      });
      try {
        const only = new HttpCaller(server.port);
        assert.equal((await only.call('GET',
          `/griddb/v2/${CLUSTER}/dbs/public/checkConnection`)).status, 200);
        assertError(await only.call('GET', `/store/v2/${CLUSTER}/dbs/public/checkConnection`),
          404, /^No route for GET \/store\/v2\//);
      } finally {
        await server.close();
      }
    });
  });

  describe('errors that locate the problem', () => {
    it('names the row (from 0), the column, the value and the type of a value that does not ' +
      'convert', async () => {
      const rows: unknown[][] = [];
      for (let r = 0; r < 20_001; r++) {
        rows.push([new Date(Date.UTC(2025, 0, 1) + r * 1000).toISOString(), r, null]);
      }
      rows[20_000]![1] = 'abc';
      assertError(await http.call('PUT', `${base}/containers/usage/rows`, { body: rows }), 400,
        'The specified data cannot be converted to DOUBLE type: row 20000, column "usage": ' +
        '"abc" is not a DOUBLE.');
      const put = (row: unknown[]) => http.call('PUT', `${base}/containers/usage/rows`,
        { body: [['2025-01-01T00:00:00.000Z', 1, null], row] });
      assertError(await put(['2025-01-01 00:00:00', 1, null]), 400,
        'The specified data cannot be converted to TIMESTAMP type: row 1, column "ts": ' +
        '"2025-01-01 00:00:00" is not a TIMESTAMP (yyyy-MM-ddTHH:mm:ss.SSSZ).');
      assertError(await put(['2025-01-01T00:00:01.000Z', 1, [1, 'x']]), 400,
        'The specified data cannot be converted to INTEGER_ARRAY type: row 1, column "tags" ' +
        'element 1: "x" is not an INTEGER (-2147483648 to 2147483647).');
      assertError(await http.call('PUT', `${base}/containers/rows`, { body: [
        { containerName: 'usage', rows: [['2025-01-01T00:00:00.000Z', 1, null],
          ['2025-01-01T00:00:01.000Z', 2, null], ['2025-01-01T00:00:02.000Z', true, null]] },
      ] }), 400, 'The specified data cannot be converted to DOUBLE type: container "usage", ' +
        'row 2, column "usage": true is not a DOUBLE.');
    });

    it('names the container and the cluster asked for, after GridDB\'s text', async () => {
      assertError(await http.call('POST', `${base}/containers/nosuch/rows`,
        { body: { limit: 1 } }), 404, "Container not existed: 'nosuch'");
      assertError(await http.call('GET', '/store/v2/noCluster/dbs/public/checkConnection'), 400,
        "Cluster not found in repository: 'noCluster'");
    });

    it('lists the container types allowed', async () => {
      assertError(await http.call('POST', `${base}/containers`, { body: {
        container_name: 'x', container_type: 'TABLE', rowkey: false,
        columns: [{ name: 'a', type: 'INTEGER' }],
      } }), 400, "Mapping JSON data error at field 'container_type': 'TABLE' is not one of " +
        'COLLECTION, TIME_SERIES');
    });

    it('refuses members of a body that no route reads, naming them', async () => {
      const tql = await http.call('POST', `${base}/tql`, {
        body: [{ name: 'usage', stmt: 'select *', limit: 1 }],
      });
      assertError(tql, 400, "Unrecognized field 'limit' at object 0 (known fields: name, stmt, " +
        'columns, hasPartialExecution)');
      assertError(await http.call('POST', `${base}/containers/usage/rows`,
        { body: { limit: 1, condtion: 'usage > 1' } }), 400,
      /^Unrecognized field 'condtion' at the body \(known fields: limit, /);
      assertError(await http.call('POST', `${base}/containers`, { body: {
        container_name: 'x', container_type: 'COLLECTION', rowkey: false,
        columns: [{ name: 'a', type: 'INTEGER', size: 4 }],
      } }), 400, /^Unrecognized field 'size' at field 'columns' object 0 /);
      // The streamed multi-container PUT refuses them as it reads, before storing anything.
      const before = await http.json('POST', `${base}/containers/usage/rows`,
        { body: { limit: 1000 } }) as { total: number };
      assertError(await http.call('PUT', `${base}/containers/rows`, { body: [
        { containerName: 'usage', rows: [['2026-01-01T00:00:00.000Z', 1, null]], mode: 'x' },
      ] }), 400, "Unrecognized field 'mode' at object 0 (known fields: containerName, rows)");
      const after = await http.json('POST', `${base}/containers/usage/rows`,
        { body: { limit: 1000 } }) as { total: number };
      assert.equal(after.total, before.total);
    });
  });
});
