// Fuzzing every endpoint with requests that are each wrong in one way: credentials missing,
// malformed or wrong; an unknown cluster or database; a body that is not JSON; a media type no
// route takes; a method the path does not have; a path no route has; a container name that is
// not addressable or does not exist; a value of the wrong type or out of range. Every answer
// must be a 4xx with GridDB's error body (never a 500: the mistake is the caller's), the service
// must still answer afterwards, and no rejected request may have changed any data.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ADMIN, assertError, startWebApiFixture, type CallOptions, type HttpCaller, type WebApiFixture,
} from './webapi-test-helpers.ts';

const RUN_COUNT = 600;
const ROW = [1, 'a', 1.5, '2026-01-01T00:00:00.000Z'];

interface Endpoint {
  method: string;
  /** Relative to /store/v2/<cluster>/dbs/<database>; `{c}` is the container name. */
  path: string;
  body?: unknown;
  /** Routes whose body is parsed as JSON. */
  json: boolean;
}

const ENDPOINTS: readonly Endpoint[] = [
  { method: 'GET', path: '/checkConnection', json: false },
  { method: 'HEAD', path: '/checkConnection', json: false },
  { method: 'GET', path: '/containers?limit=10', json: false },
  { method: 'POST', path: '/containers', json: true, body: { container_name: 'fresh',
    container_type: 'COLLECTION', rowkey: true, columns: [{ name: 'k', type: 'INTEGER' }] } },
  { method: 'DELETE', path: '/containers', json: true, body: ['fz'] },
  { method: 'GET', path: '/containers/{c}/info', json: false },
  { method: 'POST', path: '/containers/{c}/rows', json: true, body: { limit: 10 } },
  { method: 'PUT', path: '/containers/{c}/rows', json: true, body: [[2, 'b', 2.5,
    '2026-01-02T00:00:00.000Z']] },
  { method: 'DELETE', path: '/containers/{c}/rows', json: true, body: [1] },
  { method: 'POST', path: '/containers/{c}/rows/blob', json: true, body: { limit: 10 } },
  { method: 'POST', path: '/containers/rows', json: true, body: [{ name: 'fz' }] },
  { method: 'PUT', path: '/containers/rows', json: true,
    body: [{ containerName: 'fz', rows: [[3, 'c', 3.5, '2026-01-03T00:00:00.000Z']] }] },
  { method: 'POST', path: '/tql', json: true, body: [{ name: 'fz', stmt: 'select *' }] },
];

/** One request, wrong in exactly one way that makes it a client's mistake. */
interface Mistake {
  endpoint: Endpoint;
  cluster: string;
  database: string;
  container: string;
  options: CallOptions;
  method: string;
  path: string;
}

const text = fc.string({ maxLength: 40 });
const token = fc.stringMatching(/^[A-Za-z0-9_]{1,20}$/);

function mistakes(): fc.Arbitrary<Mistake> {
  const start = (endpoint: Endpoint): Mistake => ({
    endpoint, cluster: 'myCluster', database: 'public', container: 'fz', method: endpoint.method,
    path: endpoint.path, options: endpoint.body === undefined ? {} : { body: endpoint.body },
  });
  const endpoint = fc.constantFrom(...ENDPOINTS);
  const withContainer = fc.constantFrom(...ENDPOINTS.filter((e) => e.path.includes('{c}')));
  const withJson = fc.constantFrom(...ENDPOINTS.filter((e) => e.json));
  return fc.oneof(
    // Credentials: missing, not Basic, not base64, no colon, wrong password, unknown user.
    fc.tuple(endpoint, fc.oneof(
      fc.constant<CallOptions>({ auth: null }),
      fc.stringMatching(/^[ -~]{0,30}$/).map((h): CallOptions =>
        ({ auth: null, headers: { authorization: h.includes('Basic ') ? `Bearer ${h}` : h } })),
      fc.stringMatching(/^[ -~]{1,30}$/).filter((s) => !/^[A-Za-z0-9+/=]*$/.test(s))
        .map((s): CallOptions => ({ auth: null, headers: { authorization: `Basic ${s}` } })),
      text.filter((s) => !s.includes(':')).map((s): CallOptions => ({ auth: null,
        headers: { authorization: `Basic ${Buffer.from(s).toString('base64')}` } })),
      text.filter((s) => s !== ADMIN.password).map((password): CallOptions =>
        ({ auth: { user: 'admin', password } })),
      token.filter((s) => s !== 'admin' && s !== 'system').map((user): CallOptions =>
        ({ auth: { user, password: 'admin' } })),
    )).map(([e, options]) => ({ ...start(e), options: { ...start(e).options, ...options } })),
    // An unknown cluster, a database that does not exist or cannot be named.
    fc.tuple(endpoint, token.filter((s) => s !== 'myCluster' && s !== 'multicastCluster'))
      .map(([e, cluster]) => ({ ...start(e), cluster })),
    fc.tuple(endpoint, fc.oneof(token, fc.stringMatching(/^[a-z]{1,8}[-.=][a-z]{1,8}$/))
      .filter((s) => s !== 'public')).map(([e, database]) => ({ ...start(e), database })),
    // A container name that cannot be addressed, or that names nothing.
    fc.tuple(withContainer, fc.oneof(fc.stringMatching(/^[a-z]{1,8}[-.=@][a-z0-9]{1,8}$/),
      fc.stringMatching(/^[0-9][a-z]{0,8}$/), token.map((s) => `none_${s}`)))
      .filter(([e]) => e.method !== 'DELETE')
      .map(([e, container]) => ({ ...start(e), container })),
    // A body that is not JSON (a raw NUL is never valid JSON), or of a type no route takes.
    fc.tuple(withJson, text).map(([e, junk]) => ({ ...start(e),
      options: { body: `${junk}\u0000` } })),
    fc.tuple(withJson, fc.constantFrom('text/plain', 'application/xml', 'image/png',
      'application/x-www-form-urlencoded', 'application/octet-stream', 'text/json'))
      .map(([e, contentType]) => ({ ...start(e), options: { body: JSON.stringify(e.body),
        contentType } })),
    // A method the path does not have, a path no route has.
    fc.tuple(endpoint, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'))
      .filter(([e, method]) => !ENDPOINTS.some((other) =>
        other.path.split('?')[0] === e.path.split('?')[0] && other.method === method) &&
        !(method === 'GET' && e.method === 'HEAD'))
      .map(([e, method]) => ({ ...start(e), method })),
    fc.tuple(endpoint, token).map(([e, segment]) => ({ ...start(e),
      path: `/zz_${segment}${e.path}` })),
    // Values of the wrong type or out of range, per route: the richest family, drawn most.
    { arbitrary: badValues(), weight: 6 },
  );
}

const notWholeNumber = fc.oneof(fc.double({ noInteger: true, noNaN: true }).filter(
  (x) => Number.isFinite(x)), text, fc.boolean(), fc.constant({}), fc.constant([]));
const notIntegerCell = fc.oneof(
  fc.double({ noInteger: true, noNaN: true }).filter((x) => Number.isFinite(x)),
  text.filter((s) => !/^[+-]?\d+$/.test(s)), fc.boolean(), fc.constant({ a: 1 }),
  fc.integer({ min: 2 ** 31, max: 2 ** 40 }), fc.integer({ min: -(2 ** 40), max: -(2 ** 31) - 1 }));
const notTimestampCell = fc.oneof(text, fc.integer(), fc.boolean(),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().replace('Z', '+00:00')));

function badValues(): fc.Arbitrary<Mistake> {
  const of = (method: string, path: string, body: fc.Arbitrary<unknown>) =>
    body.map((value): Mistake => ({ endpoint: ENDPOINTS.find((e) => e.method === method &&
      e.path === path)!, cluster: 'myCluster', database: 'public', container: 'fz', method,
    path, options: { body: value } }));
  const row = (column: number, cell: fc.Arbitrary<unknown>) =>
    cell.map((value) => ROW.map((v, i) => (i === column ? value : v)));
  const badRow = fc.oneof(row(0, notIntegerCell), row(3, notTimestampCell),
    fc.array(fc.integer(), { maxLength: 3 }), fc.constant([]));
  return fc.oneof(
    fc.oneof(fc.integer({ max: -1 }), fc.double({ noInteger: true, noNaN: true }),
      text.filter((t) => !/^\s*[+-]?\d+\s*$/.test(t)), fc.boolean())
      .map((limit): Mistake => ({ endpoint: ENDPOINTS[2]!, cluster: 'myCluster',
        database: 'public', container: 'fz', method: 'GET',
        path: `/containers?limit=${encodeURIComponent(String(limit))}`, options: {} })),
    fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 10_001 }), text.filter((s) =>
      !/^\s*[+-]?\d+\s*$/.test(s) && s.length > 0))
      .map((timeout): Mistake => ({ endpoint: ENDPOINTS[0]!, cluster: 'myCluster',
        database: 'public', container: 'fz', method: 'GET',
        path: `/checkConnection?timeout=${encodeURIComponent(String(timeout))}`, options: {} })),
    of('POST', '/containers/{c}/rows', fc.oneof(
      fc.record({ limit: fc.oneof(fc.integer({ max: 0 }), notWholeNumber) }),
      fc.record({ limit: fc.constant(1), offset: fc.oneof(fc.integer({ max: -1 }),
        notWholeNumber) }),
      text.map((s) => ({ limit: 1, condition: `${s}\u0000` })),
      fc.constant([1, 2]))),
    of('PUT', '/containers/{c}/rows', fc.oneof(fc.array(badRow, { minLength: 1, maxLength: 3 })
      .map((rows) => [[5, 'ok', 1, '2026-01-05T00:00:00.000Z'], ...rows]),
    fc.constant([]), fc.constant({ rows: [] }))),
    of('PUT', '/containers/rows', fc.oneof(
      badRow.map((r) => [{ containerName: 'fz', rows: [[6, 'ok', 1,
        '2026-01-06T00:00:00.000Z']] }, { containerName: 'fz', rows: [r] }]),
      fc.constant([{ containerName: '', rows: [ROW] }]),
      fc.constant([{ containerName: 'fz', rows: [] }]))),
    of('POST', '/containers/rows', fc.oneof(
      fc.constant([{ name: '' }]), fc.integer({ max: -1 }).map((n) => [{ name: 'fz', offset: n }]),
      fc.integer({ max: -1 }).map((n) => [{ name: 'fz', limit: n }]),
      notIntegerCell.filter((v) => typeof v !== 'object')
        .map((key) => [{ name: 'fz', keyValues: [key] }]))),
    of('POST', '/tql', fc.oneof(fc.constant([]), fc.constant(Array(11).fill({ name: 'fz',
      stmt: 'select *' })), text.map((s) => [{ name: 'fz', stmt: `EXPLAIN ${s}` }]),
    text.map((s) => [{ name: 'fz', stmt: `select * where ${s}\u0000` }]),
    fc.constant([{ name: 'fz', stmt: 'select * where' }]),
    token.map((s) => [{ name: 'fz', stmt: 'select *', columns: [`no_${s}`] }]))),
    of('POST', '/containers', fc.oneof(
      fc.constant({ container_name: '', container_type: 'COLLECTION', rowkey: true,
        columns: [{ name: 'k', type: 'INTEGER' }] }),
      token.map((type) => ({ container_name: 'newer', container_type: 'COLLECTION',
        rowkey: false, columns: [{ name: 'k', type: `${type}_X` }] })),
      fc.constant({ container_name: 'fz', container_type: 'COLLECTION', rowkey: true,
        columns: [{ name: 'k', type: 'INTEGER' }] }))),
  );
}

function pathOf(m: Mistake): string {
  const relative = m.path.replace('{c}', encodeURIComponent(m.container));
  return `/store/v2/${encodeURIComponent(m.cluster)}/dbs/${encodeURIComponent(m.database)}` +
    relative;
}

describe('web API fuzz: every mistake is a 4xx with the error body', { timeout: 120_000 },
  () => {
    let fixture: WebApiFixture;
    let http: HttpCaller;

    before(async () => {
      fixture = await startWebApiFixture();
      http = fixture.http;
      const created = await http.call('POST', `${fixture.base}/containers`, { body: {
        container_name: 'fz', container_type: 'COLLECTION', rowkey: true,
        columns: [{ name: 'k', type: 'INTEGER' }, { name: 's', type: 'STRING' },
          { name: 'd', type: 'DOUBLE' }, { name: 't', type: 'TIMESTAMP' }] } });
      assert.equal(created.status, 201, created.text);
      const put = await http.call('PUT', `${fixture.base}/containers/fz/rows`,
        { body: [ROW, [9, 'z', -1, '2025-12-31T23:59:59.999Z']] });
      assert.equal(put.status, 200, put.text);
    });
    after(async () => {
      await fixture?.stop();
    });

    const snapshot = async () => ({
      names: await http.json('GET', `${fixture.base}/containers?limit=100`),
      rows: await http.json('POST', `${fixture.base}/containers/fz/rows`,
        { body: { limit: 1000 } }),
      info: await http.json('GET', `${fixture.base}/containers/fz/info`),
    });

    it(`answers ${RUN_COUNT} malformed requests with 4xx, changes nothing, stays up`,
      async () => {
        const before = await snapshot();
        await fc.assert(fc.asyncProperty(mistakes(), async (mistake) => {
          const answer = await http.call(mistake.method, pathOf(mistake), mistake.options);
          assert.ok(answer.status >= 400 && answer.status < 500,
            `${mistake.method} ${pathOf(mistake)} ${JSON.stringify(mistake.options)}: ` +
            `${answer.status} ${answer.text}`);
          if (mistake.method !== 'HEAD') assertError(answer, answer.status);
        }), { numRuns: RUN_COUNT, seed: Number(process.env['FUZZ_SEED'] ?? 20_261_121) });
        assert.deepEqual(await snapshot(), before);
        const check = await http.call('HEAD', `${fixture.base}/checkConnection`);
        assert.equal(check.status, 200);
      });
  });
