// End to end: the time-series calls of the client (get with a TimeOperator, interpolate,
// querySampling, aggregate TIME_AVG) and the same functions as TQL through the web API's /tql,
// against a real node process.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { getStore, type ClientStore } from '../../../lib/client/store-factory.ts';
import type { ClientContainer } from '../../../lib/client/client-container.ts';
import { storageError } from '../engine/engine-test-helpers.ts';
import {
  assertError, startWebApiFixture, type WebApiFixture,
} from '../webapi/webapi-test-helpers.ts';

const T0 = Date.UTC(2026, 0, 1);
const s = (seconds: number) => T0 + seconds * 1000;

interface TqlAnswer {
  columns: Array<{ name: string; type: string }>;
  results: unknown[][];
}

describe('time-series functions end to end', { timeout: 240_000 }, () => {
  let fixture: WebApiFixture;
  let store: ClientStore;
  let meter: ClientContainer;

  before(async () => {
    fixture = await startWebApiFixture();
    store = getStore({
      notificationMember: `127.0.0.1:${fixture.node.transactionPort}`, clusterName: 'myCluster',
      username: 'admin', password: 'admin', applicationName: 'e2e-time-series',
    });
    meter = await store.putContainer({
      name: 'meter', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' },
        { name: 'site', type: 'STRING' }],
    });
    // The §3.5 example: 0, 10, 20, 40 s holding 4, 3, 2, 1.
    await meter.multiPut([[s(0), 4, 'a'], [s(10), 3, 'b'], [s(20), 2, 'c'], [s(40), 1, 'd']]);
  });

  after(async () => {
    await store?.close().catch(() => undefined);
    await fixture?.stop();
  });

  it('the client: get with a TimeOperator, interpolate, querySampling, TIME_AVG', async () => {
    assert.deepEqual(await meter.get(s(10), 'NEXT'), [s(10), 3, 'b']);
    assert.deepEqual(await meter.get(new Date(s(10)), 'NEXT_ONLY'), [s(20), 2, 'c']);
    assert.deepEqual(await meter.get(s(30), 'PREVIOUS'), [s(20), 2, 'c']);
    assert.deepEqual(await meter.get(s(0), 'PREVIOUS_ONLY'), undefined);
    assert.deepEqual(await meter.get(s(10)), [s(10), 3, 'b'], 'a plain get by key');
    assert.deepEqual(await meter.interpolate(s(30), 'kw'), [s(30), 1.5, 'c']);
    assert.equal(await meter.interpolate(s(41), 'kw'), undefined);
    const sampled = await (await meter.querySampling(s(0), s(40), ['kw'], 'LINEAR_OR_PREVIOUS',
      15, 'SECOND').fetch()).toArray();
    assert.deepEqual(sampled, [[s(0), 4, 'a'], [s(15), 2.5, 'b'], [s(30), 1.5, 'c']]);
    const previous = await (await meter.querySampling(s(5), s(40), [], 'PREVIOUS', 10, 'SECOND')
      .fetch()).toArray();
    assert.deepEqual(previous.map((row) => row[1]), [4, 3, 2, 2]);
    assert.equal(await meter.aggregate(s(0), s(40), 'kw', 'TIME_AVG'), 2.25);
    assert.equal(await meter.aggregate(s(0), s(40), 'kw', 'AVG'), 2.5);
    // Errors are TQL's, from the node.
    await assert.rejects(meter.interpolate(s(5), 'site'), storageError('TQL_SEMANTIC',
      /cannot interpolate column site/));
    await assert.rejects(meter.querySampling(s(0), s(40), ['kw'], 'INTERPOLATE', 0, 'SECOND')
      .fetch(), storageError('TQL_SEMANTIC', /must be positive/));
    await assert.rejects(meter.get(s(0), 'SIDEWAYS' as never), storageError('TQL_SEMANTIC'));
    const plain = await store.putContainer({ name: 'plain', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'v', type: 'DOUBLE' }] });
    await assert.rejects(plain.query('SELECT TIME_AVG(v)').fetch(),
      storageError('TQL_SEMANTIC', /needs a TIME_SERIES container/));
  });

  it('the client: querySampling of several columns, and EMPTY', async () => {
    const plant = await store.putContainer({
      name: 'plant', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' },
        { name: 'temp', type: 'INTEGER' }, { name: 'site', type: 'STRING' }],
    });
    await plant.multiPut([[s(0), 4, 100, 'a'], [s(10), 3, 90, 'b'], [s(20), 2, 70, 'c'],
      [s(40), 1, 10, 'd']]);
    const sample = async (...args: Parameters<ClientContainer['querySampling']>) =>
      (await plant.querySampling(...args).fetch()).toArray();
    assert.deepEqual(await sample(s(0), s(40), ['kw', 'temp'], 'LINEAR_OR_PREVIOUS', 15, 'SECOND'),
      [[s(0), 4, 100, 'a'], [s(15), 2.5, 80, 'b'], [s(30), 1.5, 40, 'c']]);
    assert.deepEqual(await sample(s(0), s(45), [], 'EMPTY', 15, 'SECOND'),
      [[s(0), 4, 100, 'a'], [s(15), 0, 0, ''], [s(30), 0, 0, ''], [s(45), 0, 0, '']]);
    assert.deepEqual(await sample(s(30), s(60), [], 'LINEAR_OR_PREVIOUS', 10, 'SECOND'),
      [[s(30), 2, 70, 'c'], [s(40), 1, 10, 'd'], [s(50), 1, 10, 'd'], [s(60), 1, 10, 'd']]);
    await assert.rejects(plant.querySampling(s(0), s(40), ['kw', 'site'], 'LINEAR_OR_PREVIOUS',
      15, 'SECOND').fetch(), storageError('TQL_SEMANTIC', /cannot interpolate column site/));
    await assert.rejects(plant.querySampling(s(0), s(40), ['kw'], 'EMPTY', 15, 'SECOND').fetch(),
      storageError('TQL_SEMANTIC', /EMPTY interpolation names no columns/));
    assert.throws(() => plant.querySampling(s(0), s(40), ['watts'], 'INTERPOLATE', 15, 'SECOND'),
      storageError('TQL_SEMANTIC', /column watts does not exist/));
  });

  it('runs every client call of docs/tql.md as written, with the result it gives', async () => {
    const docs = readFileSync(fileURLToPath(new URL('../../../docs/tql.md', import.meta.url)),
      'utf8');
    const section = docs.slice(docs.indexOf('### Client calls'));
    // The block's calls on `meter`, each with what it returns; its setup lines are left out.
    const lines = /```ts\n([\s\S]*?)```/.exec(section)![1]!.trim().split('\n')
      .filter((line) => /^await (\(await )?meter\./.test(line) && line.includes('; // '));
    assert.equal(lines.length, 9);
    const meterOfDocs = await store.putContainer({
      name: 'docMeter', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' },
        { name: 'temp', type: 'INTEGER' }, { name: 'site', type: 'STRING' }],
    });
    const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) =>
      (meter: ClientContainer, t: (seconds: number) => number) => Promise<[unknown, unknown]>;
    for (const line of lines) {
      const [code, expected] = line.split('; // ') as [string, string];
      const run = new AsyncFunction('meter', 't', `return [${code}, ${expected}];`);
      const [actual, wanted] = await run(meterOfDocs, s);
      assert.deepEqual(actual, wanted, line);
    }
  });

  it('the web API: the same functions as /tql statements', async () => {
    const { http, base } = fixture;
    const answer = await http.json('POST', `${base}/tql`, { body: [
      { name: 'meter', stmt: "select time_next(*, timestamp('2026-01-01T00:00:11.000Z'))" },
      { name: 'meter', stmt: "select time_sampling(kw, timestamp('2026-01-01T00:00:00.000Z'), " +
        "timestamp('2026-01-01T00:00:40.000Z'), 15, second) order by kw desc" },
      { name: 'meter', stmt: 'select time_avg(kw)' },
    ] }) as TqlAnswer[];
    assert.deepEqual(answer[0]!.results, [['2026-01-01T00:00:20.000Z', 2, 'c']]);
    assert.deepEqual(answer[1]!.results, [['2026-01-01T00:00:00.000Z', 4, 'a'],
      ['2026-01-01T00:00:15.000Z', 2.5, 'b'], ['2026-01-01T00:00:30.000Z', 1.5, 'c']]);
    assert.deepEqual(answer[2]!.results, [[2.25]]);
    assert.equal(answer[2]!.columns[0]!.type, 'DOUBLE');
    const wrong = await http.call('POST', `${base}/tql`, { body: [
      { name: 'meter', stmt: 'select time_interpolated(site, now())' }] });
    assertError(wrong, 400, /cannot interpolate column site/);
  });
});
