// GridDB's own C client (5.8, unmodified) against a real store node: rows in auto-commit mode
// (PUT_ROW, PUT_MULTIPLE_ROWS, GET_ROW, DELETE_ROW) with every column type the client encodes, edge values and
// NULLs (rows.c), store's own client and the web API reading the same rows (one store, two
// protocols: GridDB's and store's, and the web API on store's client), TIMESTAMP(6/9), array and
// BLOB edges, what an application sees of GEOMETRY (which the C client can neither encode nor
// decode), and the errors an application gets. test/support/griddb-c-client.ts builds the client (skips with a
// message without the source or the build tools).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { HttpCaller, startWebApiServer } from '../../unit/webapi/webapi-test-helpers.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const ROWS_C = fileURLToPath(new URL('rows.c', import.meta.url));
const CLUSTER = 'myCluster';
/** GridDB's code (server/gs_error.h) as the application gets it. */
const TXN_CONTAINER_NOT_FOUND = 10016;
/** The C client's own code for what it cannot do (client.h GS_ERROR_CC_UNSUPPORTED_OPERATION). */
const CC_UNSUPPORTED_OPERATION = 140003;
/** GridDB's code of what this node does not do (a row holding a GEOMETRY to send). */
const TXN_STATEMENT_TYPE_UNKNOWN = 10013;
/** 9999-12-31T23:59:59.999Z, GridDB's last TIMESTAMP, in ms. */
const LAST_MS = 253402300799999;

describe('GridDB C client: rows on a store node', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(ROWS_C);

  const run = (mode: string) =>
    runProgram(suite.program, [String(suite.node.transactionPort), CLUSTER, mode]);

  it('puts, gets and deletes rows of every type; store\'s client and the web API see the same rows', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const put = await run('put');
    assert.equal(put.code, 0, put.stderr);
    const checked = await run('check');
    assert.equal(checked.code, 0, checked.stderr);

    const store = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const container = await store.getContainer('Rows01');
      assert.ok(container !== undefined);
      const row1 = await container.get(1);
      assert.deepEqual(row1, [1, 'h\u00e9llo', true, -128, 32767, -2147483648, -(2n ** 63n),
        -0, NaN, 1700000000123, 1700000000123456n, 1700000000123456789n,
        Uint8Array.from([0, 1, 0xfe, 0xff]), [-(2n ** 63n), -1n, 0n, 2n ** 63n - 1n],
        ['', 'a', '\u00e9t\u00e9'], '']);
      const row2 = await container.get(2);
      assert.deepEqual(row2, [2, null, null, null, null, null, null, null, null, null, null,
        null, null, [], null, 'x']);
      for (let k = 0; k < 5; k++) {
        assert.deepEqual(await container.get(10 + k), [10 + k, null, null, null, null, null,
          BigInt(k * 1000), null, null, null, null, null, null, [], null, 'x']);
      }
      const timeSeries = await store.getContainer('TS_Rows');
      assert.deepEqual(await timeSeries?.get(1700000000001), [1700000000001, 21.5, null]);
      assert.equal(await timeSeries?.get(1700000000000), undefined);
    } finally {
      await store.close();
    }

    const webApi = await startWebApiServer(suite.node.transactionPort);
    try {
      const http = new HttpCaller(webApi.port);
      const base = `/store/v2/${CLUSTER}/dbs/public/containers`;
      // The same rows as store's client read above, in the web API's JSON (value-encode.ts):
      // LONG exact, -0 kept, NaN as "NaN", TIMESTAMP(3/6/9) in UTC text, BLOB base64.
      const rows = await http.call('POST', `${base}/Rows01/rows`,
        { body: { limit: 100, sort: 'id' } });
      assert.equal(rows.status, 200, rows.text);
      const nulls = (id: number, l: string) =>
        `[${id},null,null,null,null,null,${l},null,null,null,null,null,null,[],null,"x"]`;
      assert.equal(rows.text.slice(rows.text.indexOf('"rows":') + 7, rows.text.indexOf(',"offset"')),
        '[[1,"h\u00e9llo",true,-128,32767,-2147483648,-9223372036854775808,-0,"NaN",' +
        '"2023-11-14T22:13:20.123Z","2023-11-14T22:13:20.123456Z",' +
        '"2023-11-14T22:13:20.123456789Z","AAH+/w==",' +
        '[-9223372036854775808,-1,0,9223372036854775807],["","a","\u00e9t\u00e9"],""],' +
        `${nulls(2, 'null')},${[0, 1, 2, 3, 4].map((k) => nulls(10 + k, String(k * 1000)))
          .join(',')}]`);
      const timeSeries = await http.call('POST', `${base}/TS_Rows/rows`, { body: { limit: 10 } });
      assert.equal(timeSeries.status, 200, timeSeries.text);
      assert.match(timeSeries.text, /"rows":\[\["2023-11-14T22:13:20\.001Z",21\.5,null\]\]/);
    } finally {
      await webApi.close();
    }

    const deleted = await run('delete');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout.trim(), `put-after-drop ${TXN_CONTAINER_NOT_FOUND}`);
  });
  it('puts and gets TIMESTAMP(6/9) at the epoch and the last instant, arrays of every element type at their edges, a 200,000-byte BLOB; store\'s client sees the same', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const edges = await run('edges');
    assert.equal(edges.code, 0, edges.stderr);
    const store = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const container = await store.getContainer('Rows02');
      assert.ok(container !== undefined);
      const blob = new Uint8Array(200_000).map((_, k) => (k * 7 + Math.floor(k / 256)) & 0xff);
      const text = Array.from({ length: 300 }, (_, k) => String.fromCharCode(97 + k % 26)).join('');
      assert.deepStrictEqual(await container.get(1), [1, 0n, 0n, [true, false], [-128, 0, 127],
        [-32768, 32767], [-(2 ** 31), 2 ** 31 - 1], [-0, Infinity, NaN, Math.fround(1e-45)],
        [-0, -Infinity, NaN, 5e-324], [0, LAST_MS], blob, text]);
      assert.deepStrictEqual(await container.get(2), [2, BigInt(LAST_MS) * 1000n + 999n,
        BigInt(LAST_MS) * 1_000_000n + 999_999n, [], [], [], [], [], [], [], new Uint8Array(0),
        '']);
    } finally {
      await store.close();
    }
  });
  it('GEOMETRY: the C client refuses to put one, the node refuses to send rows holding one, COUNT(*) is answered', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const put = await run('geometry-put');
    assert.equal(put.code, 0, put.stderr);
    assert.equal(put.stdout.trim(), `geometry-put ${CC_UNSUPPORTED_OPERATION}`);
    const store = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      const container = await store.getContainer('Rows03');
      assert.ok(container !== undefined);
      await container.put([1, 'POLYGON((0 0, 1 0, 1 1, 0 0))']);
    } finally {
      await store.close();
    }
    const got = await run('geometry-get');
    assert.equal(got.code, 0, got.stderr);
    assert.equal(got.stdout.trim(), `geometry-get ${TXN_STATEMENT_TYPE_UNKNOWN}\n` +
      `geometry-query ${TXN_STATEMENT_TYPE_UNKNOWN}\ngeometry-count 1`);
  });
});
