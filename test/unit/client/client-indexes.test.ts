// The client's index and time-series calls against a real node (TransactionServer over a Store,
// real sockets, TQL): createIndex (one column, composite, IndexInfo), a query the node answers
// through the index, dropIndex, their errors; queryByTimeRange both ways and every aggregation,
// and the TQL errors they share.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientContainer } from '../../../lib/client/client-container.ts';
import type { ClientStore } from '../../../lib/client/client-store.ts';
import { tqlQueryHandler } from '../../../lib/server/tql-query-handler.ts';
import { startServer, storageError, type TestServer } from '../server/server-test-helpers.ts';
import { clientOf } from './client-test-helpers.ts';

const T0 = Date.UTC(2026, 0, 1);

describe('client: indexes and time series', () => {
  let test: TestServer;
  let store: ClientStore;
  let meter: ClientContainer;
  before(async () => {
    test = await startServer({ queryHandler: tqlQueryHandler });
    store = clientOf(test);
    meter = await store.putContainer({
      name: 'meter', type: 'TIME_SERIES',
      columns: [
        { name: 'ts', type: 'TIMESTAMP' }, { name: 'kw', type: 'DOUBLE' },
        { name: 'site', type: 'STRING' }, { name: 'phase', type: 'INTEGER' },
      ],
    });
    const rows = [];
    for (let i = 0; i < 50; i++) rows.push([T0 + i * 1000, i % 10 === 0 ? null : i / 4, `s${i % 4}`, i % 3]);
    await meter.multiPut(rows);
  });
  after(async () => {
    await store.close();
    await test.stop();
  });

  it('creates indexes the node then reads through, sees them in the info, and drops them', async () => {
    assert.equal(await meter.createIndex('site'), true);
    assert.equal(await meter.createIndex('SITE', 'TREE'), false, 'exists already: not an error');
    assert.equal(await meter.createIndex({ columnNames: ['phase', 'kw'], name: 'byPhaseKw' }), true);
    assert.deepEqual(meter.info.indexes, [
      { name: '', columnIndexes: [2], type: 'TREE' },
      { name: 'byPhaseKw', columnIndexes: [3, 1], type: 'TREE' },
    ]);
    assert.deepEqual((await store.getContainerInfo('meter'))!.indexes, meter.info.indexes);
    assert.equal(meter.info.schemaVersion, 1);
    const rows = await (await meter.query("SELECT * WHERE site = 's1' AND phase = 1").fetch()).toArray();
    assert.deepEqual(rows.map((row) => row[0]), [T0 + 1000, T0 + 13_000, T0 + 25_000, T0 + 37_000, T0 + 49_000]);
    // The node's engine, asked the same, says which index it read through.
    const handle = test.store.session().container('meter');
    const direct = await handle.query('SELECT * WHERE phase = 2 AND kw > 5');
    assert.equal(direct.kind === 'rows' && direct.indexUsed, 'byPhaseKw');
    const viaClient = await (await meter.query('SELECT * WHERE phase = 2 AND kw > 5').fetch()).toArray();
    assert.deepEqual(viaClient, direct.kind === 'rows' ? direct.rows : []);
    // Rows written after the index are found through it.
    await meter.put([T0 + 100_000, 1, 'new', 7]);
    const found = await (await meter.query("SELECT * WHERE site = 'new'").fetch()).toArray();
    assert.deepEqual(found, [[T0 + 100_000, 1, 'new', 7]]);
    assert.equal(await meter.dropIndex({ name: 'BYPHASEKW' }), 1);
    assert.equal(await meter.dropIndex('site'), 1);
    assert.equal(await meter.dropIndex('site'), 0, 'none left: not an error');
    assert.deepEqual(meter.info.indexes, []);
    await meter.remove(T0 + 100_000);
  });

  it('refuses bad indexes with the engine\'s codes', async () => {
    await assert.rejects(meter.createIndex('ts'), storageError('INVALID_SCHEMA'));
    await assert.rejects(meter.createIndex('nothing'), storageError('COLUMN_NOT_FOUND'));
    await assert.rejects(meter.createIndex('kw', 'HASH' as never), storageError('NOT_SUPPORTED'));
    await assert.rejects(meter.createIndex('kw', 'SPATIAL'), storageError('INVALID_SCHEMA'));
    await assert.rejects(meter.createIndex({ columnNames: Array.from({ length: 17 }, (_, i) => `c${i}`) }),
      storageError('INVALID_SCHEMA'));
    await assert.rejects(meter.dropIndex({}), storageError('INVALID_SCHEMA'));
    const gone = await store.putContainer({ name: 'gone', type: 'COLLECTION',
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'v', type: 'LONG' }], rowKey: true });
    await store.dropContainer('gone');
    await assert.rejects(gone.createIndex('v'), storageError('CONTAINER_NOT_FOUND'));
    assert.deepEqual((await store.getContainerInfo('meter'))!.indexes, []);
  });

  it('queries a time range either way', async () => {
    const ascending = await (await meter.queryByTimeRange(T0 + 5000, new Date(T0 + 8000)).fetch()).toArray();
    assert.deepEqual(ascending.map((row) => row[0]), [T0 + 5000, T0 + 6000, T0 + 7000, T0 + 8000]);
    const descending = await (await meter.queryByTimeRange(T0 + 47_500, undefined, 'DESCENDING').fetch())
      .toArray();
    assert.deepEqual(descending.map((row) => row[0]), [T0 + 49_000, T0 + 48_000]);
    const all = await (await meter.queryByTimeRange(null, null).fetch()).toArray();
    assert.equal(all.length, 50);
    assert.throws(() => meter.queryByTimeRange(T0, T0, 'SIDEWAYS' as never), storageError('TQL_SEMANTIC'));
    assert.throws(() => meter.queryByTimeRange(Number.NaN, T0), storageError('TQL_SEMANTIC'));
  });

  it('aggregates a time range with every aggregation, as TQL does', async () => {
    const start = T0 + 10_000;
    const end = T0 + 19_000;
    const values = Array.from({ length: 10 }, (_, i) => 10 + i).filter((i) => i % 10 !== 0).map((i) => i / 4);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1);
    assert.equal(await meter.aggregate(start, end, 'kw', 'COUNT'), 10n);
    assert.equal(await meter.aggregate(start, end, 'kw', 'SUM'), values.reduce((a, b) => a + b, 0));
    assert.equal(await meter.aggregate(start, end, 'kw', 'AVG'), mean);
    assert.equal(await meter.aggregate(start, end, 'kw', 'MIN'), 11 / 4);
    assert.equal(await meter.aggregate(start, end, 'kw', 'MAX'), 19 / 4);
    assert.ok(Math.abs((await meter.aggregate(start, end, 'kw', 'VARIANCE') as number) - variance) < 1e-9);
    assert.ok(Math.abs((await meter.aggregate(start, end, 'kw', 'STDDEV') as number) -
      Math.sqrt(variance)) < 1e-9);
    assert.equal(await meter.aggregate(start, end, 'phase', 'SUM'), 10n);
    assert.equal(await meter.aggregate(start, end, 'ts', 'MAX'), end);
    assert.equal(await meter.aggregate(T0 + 500_000, undefined, 'kw', 'AVG'), undefined);
    assert.equal(await meter.aggregate(T0 + 500_000, undefined, 'kw', 'COUNT'), 0n);
    // The errors are TQL's: an unknown column, a column the aggregation cannot take, a collection.
    const tqlError = await meter.query('SELECT AVG(nothing)').fetch().catch((error: unknown) => error);
    await assert.rejects(meter.aggregate(start, end, 'nothing', 'AVG'),
      storageError((tqlError as { code: 'TQL_SEMANTIC' }).code));
    await assert.rejects(meter.aggregate(start, end, 'nothing', 'COUNT'), storageError('TQL_SEMANTIC'));
    await assert.rejects(meter.aggregate(start, end, 'site', 'SUM'), storageError('TQL_SEMANTIC'));
    await assert.rejects(meter.aggregate(start, end, 'kw', 'MEDIAN' as never), storageError('TQL_SEMANTIC'));
    const collection = await store.putContainer({ name: 'plain', type: 'COLLECTION',
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'v', type: 'LONG' }], rowKey: true });
    await assert.rejects(collection.aggregate(start, end, 'v', 'SUM'), storageError('TQL_SEMANTIC'));
    assert.throws(() => collection.queryByTimeRange(start, end), storageError('TQL_SEMANTIC'));
  });
});
