// The client library against a real node (a TransactionServer over a Store in a temporary
// directory, real sockets): every operation, values of every type exactly, transactions, queries,
// and several clients at once.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { ClientStore } from '../../../lib/client/client-store.ts';
import { INT64_MAX, INT64_MIN, type Row } from '../../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { ByteReader } from '../../../lib/encoding/byte-reader.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import { containerSchemaOf, resultSchemaOf } from '../../../lib/protocol/wire-schema.ts';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { tqlQueryHandler } from '../../../lib/server/tql-query-handler.ts';
import { rowsArbitrary, schemaArbitrary, wireRows } from '../encoding/row-arbitraries.ts';
import { startServer, storageError, type TestServer } from '../server/server-test-helpers.ts';
import { clientOf } from './client-test-helpers.ts';

const EVERY_TYPE: ContainerDefinition = {
  name: 'everyType', type: 'COLLECTION', rowKey: true,
  columns: [
    { name: 'id', type: 'LONG' }, { name: 'flag', type: 'BOOL' }, { name: 'text', type: 'STRING' },
    { name: 'b', type: 'BYTE' }, { name: 's', type: 'SHORT' }, { name: 'i', type: 'INTEGER' },
    { name: 'f', type: 'FLOAT' }, { name: 'd', type: 'DOUBLE' }, { name: 'ms', type: 'TIMESTAMP' },
    { name: 'us', type: 'TIMESTAMP(6)' }, { name: 'ns', type: 'TIMESTAMP(9)' },
    { name: 'shape', type: 'GEOMETRY' }, { name: 'blob', type: 'BLOB' },
    { name: 'longs', type: 'LONG_ARRAY' }, { name: 'words', type: 'STRING_ARRAY' },
    { name: 'doubles', type: 'DOUBLE_ARRAY' }, { name: 'times', type: 'TIMESTAMP_ARRAY' },
  ],
};

/** JSON of key values, bigints included: rows with equal keys collapse to the last one. */
const replacer = (_: string, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value);

const SENSORS: ContainerDefinition = {
  name: 'sensors', type: 'COLLECTION', rowKey: true,
  columns: [{ name: 'id', type: 'STRING' }, { name: 'value', type: 'LONG' }],
};

describe('client: containers and rows', () => {
  let test: TestServer;
  let store: ClientStore;
  before(async () => {
    test = await startServer({ queryHandler: tqlQueryHandler });
    store = clientOf(test);
  });
  after(async () => {
    await store.close();
    await test.stop();
  });

  it('puts, gets and describes containers, lists and drops them', async () => {
    const sensors = await store.putContainer(SENSORS);
    assert.equal(sensors.name, 'sensors');
    assert.equal(sensors.info.columns.length, 2);
    assert.equal((await store.putContainer(SENSORS)).info.containerId, sensors.info.containerId);
    const again = await store.getContainer('SENSORS');
    assert.equal(again?.name, 'sensors');
    assert.equal(await store.getContainer('nothing'), undefined);
    assert.equal(await store.getContainerInfo('nothing'), undefined);
    await store.putContainer({ ...SENSORS, name: 'scratch' });
    assert.deepEqual(await store.getContainerNames(), ['scratch', 'sensors']);
    assert.equal(await store.dropContainer('scratch'), true);
    assert.equal(await store.dropContainer('scratch'), false);
    assert.deepEqual(await store.getContainerNames(), ['sensors']);
  });

  it('extends a container with putContainer(modifiable), and the old handle follows', async () => {
    const before = await store.putContainer({ ...SENSORS, name: 'growing' });
    await before.put(['a', 1n]);
    const wider = await store.putContainer({ ...SENSORS, name: 'growing',
      columns: [...SENSORS.columns, { name: 'note', type: 'STRING' }] }, true);
    assert.equal(wider.info.schemaVersion, 2);
    assert.deepEqual(await wider.get('a'), ['a', 1n, null]);
    // The old handle learns of the new schema (SCHEMA_CHANGED) and sends once more.
    await assert.rejects(before.put(['b', 2n]), storageError('ROW_INVALID', /3 values/));
    assert.equal(before.info.schemaVersion, 2);
    await before.put(['b', 2n, 'new']);
    assert.deepEqual(await wider.get('b'), ['b', 2n, 'new']);
  });

  it('round-trips values of every type exactly: LONG extremes, NaN, -0, empty values', async () => {
    const container = await store.putContainer(EVERY_TYPE);
    const rows: Row[] = [
      [INT64_MIN, true, '', -128, -32768, -(2 ** 31), -0, NaN, 0, 0n, 0n, 'POINT(1 2)',
        new Uint8Array(0), [INT64_MIN, INT64_MAX], [''], [NaN, -0, Infinity], [0]],
      [INT64_MAX, false, '😀 é', 127, 32767, 2 ** 31 - 1, Math.fround(1.1), -0,
        253_402_300_799_999,
        253_402_300_799_999_999n, 253_402_300_799_999_999_999n, 'POLYGON((0 0,1 0,1 1,0 0))',
        new Uint8Array([0, 1, 255]), [], [], [], []],
      [0n, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
        null],
    ];
    await container.multiPut(rows);
    for (const row of rows) assert.deepStrictEqual(await container.get(row[0] as bigint), row);
    const nan = await container.get(INT64_MIN);
    assert.ok(Object.is(nan![6], -0) && Number.isNaN(nan![7]));
    // Values the engine normalises: a number for LONG, a Date for TIMESTAMP.
    await container.put([5, true, 'x', 1, 1, 1, 0.5, 0.5, new Date(1000), 1n, 1n, 'POINT(0 0)',
      new Uint8Array([9]), [1], ['a'], [1.5], [new Date(2)]] as unknown as Row);
    assert.deepStrictEqual((await container.get(5n))!.slice(0, 9),
      [5n, true, 'x', 1, 1, 1, 0.5, 0.5, 1000]);
  });

  it('round-trips random rows of random schemas through put and get', async () => {
    const schemas = schemaArbitrary.filter((schema) => schema.rowKeyColumnCount > 0);
    let index = 0;
    await fc.assert(fc.asyncProperty(schemas.chain((schema) =>
      rowsArbitrary(schema, 4).map((rows) => ({ schema, rows }))), async ({ schema, rows }) => {
      const name = `random${index++}`;
      const container = await store.putContainer({
        name, type: schema.type, rowKey: schema.rowKeyColumnCount,
        columns: schema.columns.map((column) => ({ ...column })),
      });
      const unique = new Map<string, Row>();
      const keyColumns = schema.rowKeyColumnCount;
      for (const row of rows) unique.set(JSON.stringify(row.slice(0, keyColumns), replacer), row);
      await container.multiPut([...unique.values()]);
      for (const row of unique.values()) {
        const key = keyColumns === 1 ? row[0] : row.slice(0, keyColumns);
        assert.deepStrictEqual(await container.get(key as never), wireRows([row])[0]);
      }
      await store.dropContainer(name);
    }), { numRuns: 40 });
  });

  it('removes rows and reports whether there was one', async () => {
    const sensors = await store.putContainer(SENSORS);
    await sensors.put(['gone', 1n]);
    assert.equal(await sensors.remove('gone'), true);
    assert.equal(await sensors.remove('gone'), false);
    assert.equal(await sensors.get('gone'), undefined);
  });

  it('puts and gets rows of several containers at once', async () => {
    await store.putContainer({ ...SENSORS, name: 'left' });
    await store.putContainer({ ...SENSORS, name: 'right' });
    await store.multiPut({ left: [['a', 1n], ['b', 2n]], right: [['c', 3n]] });
    const rows = await store.multiGet(new Map([
      ['left', { keys: ['b', 'missing'] }],
      ['RIGHT', { start: 'a', finish: 'z' }],
    ]));
    assert.deepEqual([...rows.entries()], [['left', [['b', 2n]]], ['RIGHT', [['c', 3n]]]]);
    const limited = await store.multiGet({ left: { limit: 1 } });
    assert.deepEqual(limited.get('left'), [['a', 1n]]);
    await assert.rejects(store.multiPut({ left: [['x', 'not a long']] }),
      storageError('TYPE_MISMATCH', /column "value" of "left"/));
    await assert.rejects(store.multiGet({ nowhere: { keys: ['a'] } }),
      storageError('CONTAINER_NOT_FOUND'));
  });

  it('queries with TQL and pages through the result', async () => {
    const readings = await store.putContainer({ name: 'readings', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'value', type: 'DOUBLE' }] });
    await readings.multiPut(Array.from({ length: 50 }, (_, i) => [i * 1000, i / 2]));
    const all = await readings.query('SELECT *').setFetchOption('SIZE', 7).fetch();
    assert.equal(all.kind, 'ROWS');
    assert.deepEqual(all.columnNames, ['ts', 'value']);
    const rows = await all.toArray();
    assert.equal(rows.length, 50);
    assert.deepEqual(rows[49], [49_000, 24.5]);
    const partial = await readings.query('SELECT *').setFetchOption('PARTIAL_EXECUTION', true)
      .setFetchOption('SIZE', 10).fetch();
    let count = 0;
    for await (const row of partial) count += row.length === 2 ? 1 : 0;
    assert.equal(count, 50);
    const limited = await readings.query('SELECT * WHERE value >= 10')
      .setFetchOption('LIMIT', 3).fetch();
    assert.deepEqual((await limited.toArray()).map((row) => row[1]), [10, 10.5, 11]);
    const max = await readings.query('SELECT MAX(value)').fetch();
    assert.equal(max.kind, 'AGGREGATION');
    assert.equal(max.aggregationValue(), 24.5);
    const early = await readings.query('SELECT *').setFetchOption('SIZE', 5).fetch();
    await early.next();
    await early.close();
    assert.equal(early.hasNext(), false);
    await assert.rejects(readings.query('SELECT nothing FROM').fetch());
    assert.throws(() => readings.query('x').setFetchOption('SIZE', 0),
      storageError('CONFIG_INVALID'));
  });

  it('takes a result a page at a time with nextPage (the next page fetched ahead), LIMIT and close too', async () => {
    const paged = await store.putContainer({ name: 'paged', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'value', type: 'DOUBLE' }] });
    await paged.multiPut(Array.from({ length: 23 }, (_, i) => [i * 1000, i]));
    const all = await paged.query('SELECT *').setFetchOption('SIZE', 5).fetch();
    await all.next();
    const sizes: number[] = [];
    const values: unknown[] = [];
    for (let page = await all.nextPage(); page.length > 0; page = await all.nextPage()) {
      sizes.push(page.length);
      values.push(...page.map((row) => row[1]));
    }
    assert.deepEqual(sizes, [4, 5, 5, 5, 3]);
    assert.deepEqual(values, Array.from({ length: 22 }, (_, i) => i + 1));
    assert.equal(all.hasNext(), false);
    const limited = await paged.query('SELECT *').setFetchOption('SIZE', 5).setFetchOption('LIMIT', 7).fetch();
    assert.deepEqual([(await limited.nextPage()).length, (await limited.nextPage()).length,
      (await limited.nextPage()).length], [5, 2, 0]);
    // Closed with a page fetched ahead and not taken: the result is let go of, and the connection
    // still answers.
    const early = await paged.query('SELECT *').setFetchOption('SIZE', 5).fetch();
    assert.equal((await early.nextPage()).length, 5);
    await early.close();
    assert.equal(early.hasNext(), false);
    assert.deepEqual(await early.nextPage(), []);
    // The page fetched ahead is the last one: the node has ended the result, close sends nothing.
    const ended = await paged.query('SELECT * WHERE value < 10').setFetchOption('SIZE', 5).fetch();
    assert.equal((await ended.nextPage()).length, 5);
    await ended.close();
    assert.equal((await (await paged.query('SELECT *').fetch()).toArray()).length, 23);
  });

  it('takes whole pages as the bytes the node sent with nextPageEncoded, which decode to the rows', async () => {
    const encoded = await store.putContainer({ name: 'encodedPages', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'value', type: 'DOUBLE' }, { name: 'note', type: 'STRING' }] });
    const rows: Row[] = Array.from({ length: 23 }, (_, i) => [i * 1000, i / 3, i % 2 === 0 ? null : `n${i}`]);
    await encoded.multiPut(rows);
    const all = await encoded.query('SELECT *').setFetchOption('SIZE', 5).fetch();
    const codec = rowCodec(resultSchemaOf([...all.columns]), 'wire');
    const sizes: number[] = [];
    const decoded: Row[] = [];
    for (let page = await all.nextPageEncoded(); page !== undefined; page = await all.nextPageEncoded()) {
      sizes.push(page.count);
      const reader = new ByteReader(page.bytes);
      decoded.push(...codec.readRows(reader, page.count));
      reader.expectEnd();
    }
    assert.deepEqual(sizes, [5, 5, 5, 5, 3]);
    assert.deepEqual(decoded, rows);
    assert.equal(all.hasNext(), false);
    // Mixed with nextPage, and within a LIMIT that ends with a page.
    const limited = await encoded.query('SELECT *').setFetchOption('SIZE', 5).setFetchOption('LIMIT', 7).fetch();
    assert.equal((await limited.nextPageEncoded())?.count, 5);
    assert.deepEqual(await limited.nextPage(), rows.slice(5, 7));
    assert.equal(await limited.nextPageEncoded(), undefined);
    // Not after next(): the page is no longer whole.
    const started = await encoded.query('SELECT *').setFetchOption('SIZE', 5).fetch();
    await started.next();
    await assert.rejects(started.nextPageEncoded(), storageError('NOT_SUPPORTED'));
    await started.close();
  });

  it('puts rows encoded with the container\'s schema by multiPutEncoded; refuses another schema\'s before sending', async () => {
    const container = await store.putContainer({ name: 'encodedPut', type: 'TIME_SERIES',
      columns: [{ name: 'ts', type: 'TIMESTAMP' }, { name: 'value', type: 'DOUBLE' }] });
    const schema = containerSchemaOf(container.info);
    const rows: Row[] = Array.from({ length: 9 }, (_, i) => [1000 + i, i === 4 ? null : i / 7]);
    const writer = new ByteWriter(64);
    rowCodec(schema, 'wire').writeRows(writer, rows);
    await container.multiPutEncoded(schema, rows.length, writer.finish());
    const all = async () => (await container.query('SELECT *').fetch()).toArray();
    assert.deepEqual(await all(), rows);
    const other = { ...schema, columns: [schema.columns[0]!, { ...schema.columns[1]!, type: 'LONG' as const }] };
    await assert.rejects(container.multiPutEncoded(other, 1, writer.finish()), storageError('SCHEMA_CHANGED'));
    assert.deepEqual(await all(), rows);
  });
});

describe('client: transactions', () => {
  let test: TestServer;
  let store: ClientStore;
  let other: ClientStore;
  before(async () => {
    test = await startServer({ queryHandler: tqlQueryHandler },
      { transactionTimeoutLimitMs: 5000 });
    store = clientOf(test);
    // A shorter transaction timeout than the store's: its lock waits end before others' locks.
    other = clientOf(test, { transactionTimeout: 1 });
    await store.putContainer(SENSORS);
  });
  after(async () => {
    await store.close();
    await other.close();
    await test.stop();
  });

  it('keeps changes private until commit, and discards them at abort', async () => {
    const mine = (await store.getContainer('sensors'))!;
    const theirs = (await other.getContainer('sensors'))!;
    await mine.setAutoCommit(false);
    await mine.put(['t', 1n]);
    assert.deepEqual(await mine.get('t'), ['t', 1n]);
    assert.equal(await theirs.get('t'), undefined);
    const inTransaction = await (await mine.query('SELECT * WHERE id = \'t\'').fetch()).toArray();
    assert.deepEqual(inTransaction, [['t', 1n]], 'a query sees its own transaction');
    await mine.commit();
    assert.deepEqual(await theirs.get('t'), ['t', 1n]);
    await mine.put(['u', 2n]);
    await mine.abort();
    assert.equal(await mine.get('u'), undefined);
    await mine.put(['v', 3n]);
    await mine.setAutoCommit(true);
    assert.deepEqual(await theirs.get('v'), ['v', 3n], 'turning auto-commit on commits');
    await assert.rejects(mine.commit(), storageError('TRANSACTION_INVALID', /auto-commit mode/));
    await mine.close();
  });

  it('times a lock wait out with LOCK_TIMEOUT', async () => {
    const holder = (await store.getContainer('sensors'))!;
    const waiter = (await other.getContainer('sensors'))!;
    await holder.setAutoCommit(false);
    await holder.put(['locked', 1n]);
    const startedMs = Date.now();
    await assert.rejects(waiter.put(['locked', 2n]), storageError('LOCK_TIMEOUT'));
    assert.ok(Date.now() - startedMs >= 900, 'the waiter waited its own transaction timeout');
    await holder.abort();
    await waiter.put(['locked', 2n]);
    await holder.close();
  });

  it('keeps several clients apart and each one\'s writes whole', async () => {
    const clients = Array.from({ length: 4 }, () => clientOf(test));
    await Promise.all(clients.map(async (client, c) => {
      const container = (await client.getContainer('sensors'))!;
      for (let batch = 0; batch < 5; batch++) {
        await container.multiPut(Array.from({ length: 20 }, (_, i) =>
          [`c${c}-${batch}-${i}`, BigInt(c * 1000 + batch * 20 + i)]));
      }
      await Promise.all(Array.from({ length: 10 }, (_, i) => container.get(`c${c}-0-${i}`)));
    }));
    const count = await (await (await store.getContainer('sensors'))!
      .query('SELECT COUNT(*) WHERE id LIKE \'c%\'').fetch()).aggregationValue();
    assert.equal(count, 400n);
    await Promise.all(clients.map((client) => client.close()));
  });
});
