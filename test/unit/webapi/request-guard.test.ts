// Issue 12, points 6, 9, 10 and 11, against a real node and the web API in this process: what is
// refused before a body is read (credentials, charset, Host, Expect), body limits (413), the body
// timeout (408), DELETE routes that report the node's errors, and a node that cannot be reached.
// The memory of a separate web API process under a hostile body is measured in
// webapi-process.test.ts.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getStore } from '../../../lib/client/store-factory.ts';
import { ADMIN, assertError, basicAuthorization, CLUSTER, rawHttpClient, startWebApiFixture,
  WEBAPI_TEST_MODE,
  type HttpAnswer, type WebApiFixture } from './webapi-test-helpers.ts';

const KiB = 1024;
/** Every raw exchange ends within this. */
interface RawAnswer {
  text: string;
  /** The server closed the connection. */
  closed: boolean;
}

/** Writes `head`, then `body` chunks while the server lets it; resolves when the server closes. */
async function rawExchange(port: number, head: string, chunks: Iterable<Buffer> = []):
  Promise<RawAnswer> {
  return { text: await rawHttpClient(port, head, chunks).closed, closed: true };
}

/** The JSON error body of a raw answer, with its status. */
function rawError(answer: RawAnswer, status: number, message: RegExp): void {
  const match = /^HTTP\/1\.1 (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(answer.text);
  assert.ok(match !== null, `not an HTTP answer: ${answer.text.slice(0, 300)}`);
  assert.equal(Number(match[1]), status, answer.text.slice(0, 300));
  assert.match(match[2]!, /content-type: application\/json/i);
  const body = JSON.parse(match[3]!) as { version: string; errorCode: number; errorMessage: string };
  assert.equal(body.version, 'v2');
  assert.equal(typeof body.errorCode, 'number');
  assert.match(body.errorMessage, message);
}

function* repeated(chunk: Buffer, count: number): Generator<Buffer> {
  for (let i = 0; i < count; i++) yield chunk;
}

describe('web API: hostile and unlucky requests (issue 12)', { timeout: 120_000 }, () => {
  let fixture: WebApiFixture;
  let rowsPath: string;
  before(async () => {
    fixture = await startWebApiFixture({
      requestJsonBodySizeBytesMax: 256 * KiB, putBatchSizeBytes: 4 * KiB,
      requestBodyTimeoutS: 1, transactionTimeoutS: 1,
    });
    rowsPath = `${fixture.base}/containers/t/rows`;
    const created = await fixture.http.call('POST', `${fixture.base}/containers`, { body: {
      container_name: 't', container_type: 'COLLECTION', rowkey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'v', type: 'DOUBLE' }] } });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => fixture.stop());

  it('answers a body without credentials 401 before reading it, and closes', async () => {
    // 64 MiB chunked, far over every limit: the answer comes after at most what the kernel
    // buffers, and the connection closes.
    const chunk = Buffer.from('[],'.repeat(21_845));
    const answer = await rawExchange(fixture.http.port,
      `PUT ${rowsPath} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
      'Transfer-Encoding: chunked\r\n\r\n',
      (function* () {
        for (const c of repeated(chunk, 1000)) {
          yield Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c,
            Buffer.from('\r\n')]);
        }
      })());
    rawError(answer, 401, /^Basic authentication not found$/);
    assert.match(answer.text, /connection: close/i);
    assertError(await fixture.http.call('PUT', rowsPath, { body: [[1, 1]],
      auth: { user: 'admin', password: 'wrong' } }), 401, /AUTHENTICATION_FAILED/);
  });

  it('answers an authenticated body over maxRequestBodySize 413, declared or counted',
    async () => {
      const big = Buffer.from(`[${'[1,1.5],'.repeat(40 * KiB)}[2,2]]`);
      assertError(await fixture.http.call('PUT', rowsPath, { body: big }), 413,
        /Request body is too large \(more than 262144 bytes\)/);
      assertError(await fixture.http.call('DELETE', rowsPath, { body: big }), 413);
      const counted = await rawExchange(fixture.http.port,
        `PUT ${rowsPath} HTTP/1.1\r\nHost: x\r\nAuthorization: ${basicAuthorization('admin', 'admin')}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        [Buffer.from(`${big.length.toString(16)}\r\n`), big, Buffer.from('\r\n0\r\n\r\n')]);
      rawError(counted, 413, /Request body is too large/);
    });

  it('stores a PUT of many batches, every row', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => [i, i / 2]);
    const answer = await fixture.http.json('PUT', rowsPath, { body: rows });
    assert.deepEqual(answer, { count: 5000 });
    const read = await fixture.http.json('POST', rowsPath, { body: { limit: 10_000 } }) as
      { rows: unknown[][] };
    assert.deepEqual(read.rows, rows);
    const multi = await fixture.http.json('PUT', `${fixture.base}/containers/rows`, { body: [
      { rows: rows.slice(0, 2000).map(([id]) => [id, -1]), containerName: 't' },
      { containerName: 'T', rows: [[4999, -2]] }] });
    assert.deepEqual(multi, [{ containerName: 't', updatedRows: 2000 },
      { containerName: 'T', updatedRows: 1 }]);
  });

  it('closes a connection whose body does not arrive within requestBodyTimeout (408)',
    async () => {
      const answer = await rawExchange(fixture.http.port,
        `PUT ${rowsPath} HTTP/1.1\r\nHost: x\r\nAuthorization: ${basicAuthorization('admin', 'admin')}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n[[1,',
        []);
      assert.ok(answer.closed);
      rawError(answer, 408, /not received within 1 s \(requestBodyTimeout\)/);
    });

  it('refuses charsets other than UTF-8 (415), Expect it cannot meet (417), no Host (400)',
    async () => {
      for (const charset of ['ISO-8859-1', 'latin1', 'UTF-16', '"utf-16le"']) {
        assertError(await fixture.http.call('PUT', rowsPath, { body: [[1, 1]],
          contentType: `application/json; charset=${charset}` }), 415, /Unsupported charset/);
      }
      assert.equal((await fixture.http.call('PUT', rowsPath, { body: [[1, 1]],
        contentType: 'application/json;charset="utf-8"' })).status, 200);
      const expect = await rawExchange(fixture.http.port, `GET ${fixture.base}/checkConnection ` +
        `HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\nAuthorization: ${basicAuthorization('admin', 'admin')}\r\n\r\n`);
      rawError(expect, 417, /Expectation 'bogus' is not supported/);
      const noHost = await rawExchange(fixture.http.port, `GET ${fixture.base}/checkConnection ` +
        `HTTP/1.1\r\nAuthorization: ${basicAuthorization('admin', 'admin')}\r\n\r\n`);
      rawError(noHost, 400, /Host header is required/);
    });

  it('answers a DELETE of a locked row, or a drop behind an open transaction, with the error',
    async () => {
      await fixture.http.json('PUT', rowsPath, { body: [[1, 1], [2, 2]] });
      const other = getStore({ notificationMember: `127.0.0.1:${fixture.node.transactionPort}`,
        clusterName: CLUSTER, username: ADMIN.user, password: ADMIN.password });
      try {
        const container = (await other.getContainer('t'))!;
        await container.setAutoCommit(false);
        await container.put([1, 10]);
        const removed: HttpAnswer = await fixture.http.call('DELETE', rowsPath,
          { body: [2, 1] });
        assertError(removed, 400, /LOCK_TIMEOUT/);
        // The drop waits for the open transaction at most the transaction timeout (1 s).
        assertError(await fixture.http.call('DELETE', `${fixture.base}/containers`,
          { body: ['t'] }), 400, /LOCK_TIMEOUT/);
        await container.abort();
      } finally {
        await other.close();
      }
      // Row 2 went before the lock stopped the request; row 1 is still there.
      const left = await fixture.http.json('POST', rowsPath,
        { body: { limit: 10, condition: 'id <= 2' } }) as { rows: unknown[][] };
      assert.deepEqual(left.rows.map((row) => row[0]), [0, 1]);
      // Missing rows and containers are still no error.
      assert.equal((await fixture.http.call('DELETE', rowsPath, { body: [123_456] })).status, 204);
      assert.equal((await fixture.http.call('DELETE', `${fixture.base}/containers`,
        { body: ['absent', 'no-such'] })).status, 204);
    });

  it('answers 500 saying the node cannot be reached, for every route, once it is down',
    // Embedded, the node takes its web API down with it (test/unit/node/node-webapi.test.ts).
    { skip: WEBAPI_TEST_MODE === 'embedded' ? 'the web API stops with its node' : false },
    async () => {
      await fixture.node.stop();
      const unreachable = /the node could not be reached at 127\.0\.0\.1:\d+ .*CONNECTION_FAILED/;
      assertError(await fixture.http.call('DELETE', `${fixture.base}/containers`,
        { body: ['t'] }), 500, unreachable);
      assertError(await fixture.http.call('GET', `${fixture.base}/checkConnection`), 500,
        unreachable);
      assertError(await fixture.http.call('GET', `${fixture.base}/containers?limit=1`,
        { auth: { user: 'someone', password: 'else' } }), 500, unreachable);
    });
});
