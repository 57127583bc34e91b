// Bad input through the public API: every request below fails with a StorageError of a stable code
// and leaves the store exactly as it was (containers, their info, their rows), also after a reopen.
// A bad row in a multiPut writes none of the batch, in auto-commit mode and inside a transaction.
// Malformed definitions (null, numbers, missing members) fail as StorageErrors, never TypeErrors.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StorageError, type StorageErrorCode } from '../../../lib/base/errors.ts';
import { parseStorageOptions } from '../../../lib/base/options.ts';
import type { ContainerInfo } from '../../../lib/engine/catalog.ts';
import { Store } from '../../../lib/engine/store.ts';
import { INT64_MAX, INT64_MIN, type Row } from '../../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import {
  HOME, openTestStore, SENSORS, storageError, type TestStore,
} from './engine-test-helpers.ts';

/** Every column kind the row checks treat differently; `s` is NOT NULL. */
const TYPED: ContainerDefinition = {
  name: 'typed', type: 'COLLECTION', rowKey: true, columns: [
    { name: 'k', type: 'INTEGER' }, { name: 'by', type: 'BYTE' }, { name: 'sh', type: 'SHORT' },
    { name: 'i', type: 'INTEGER' }, { name: 'l', type: 'LONG' },
    { name: 's', type: 'STRING', notNull: true }, { name: 'd', type: 'DOUBLE' },
    { name: 'ts', type: 'TIMESTAMP' }, { name: 'la', type: 'LONG_ARRAY' },
  ],
};
const PAIRS: ContainerDefinition = {
  name: 'pairs', type: 'COLLECTION', rowKey: 2, columns: [
    { name: 'id', type: 'INTEGER' }, { name: 'name', type: 'STRING' }, { name: 'v', type: 'LONG' },
  ],
};
const SERIES: ContainerDefinition = {
  name: 'series', type: 'TIME_SERIES',
  columns: [{ name: 't', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE' }],
};

const typedRow = (key: number): Row => [key, 1, 1, 1, 1n, 's', 1.5, 1_000, [1n]];

interface Snapshot {
  names: string[];
  infos: Array<ContainerInfo | undefined>;
  rows: Row[][];
}

async function snapshot(store: Store): Promise<Snapshot> {
  const names = store.listContainers();
  const session = store.session();
  try {
    const rows: Row[][] = [];
    for (const name of names) rows.push(await session.container(name).scan());
    return { names, infos: names.map((name) => store.getContainerInfo(name)), rows };
  } finally {
    session.close();
  }
}

describe('bad input', () => {
  let test: TestStore;
  let initial: Snapshot;

  before(async () => {
    test = await openTestStore();
    for (const definition of [SENSORS, TYPED, PAIRS, SERIES]) {
      await test.store.createContainer(definition);
    }
    const session = test.store.session();
    await session.container('sensors').multiPut([['a', 1n], ['b', 2n]]);
    await session.container('typed').multiPut([typedRow(1), typedRow(2)]);
    await session.container('pairs').put([1, 'x', 1n]);
    await session.container('series').put([1_000, -0]);
    session.close();
    initial = await snapshot(test.store);
  });

  after(async () => {
    await test.store.close();
  });

  const handleOf = (container: string) => test.store.session().container(container);

  /** `act` must fail with `code` and change nothing. */
  async function refused(
    code: StorageErrorCode,
    act: (store: Store) => Promise<unknown>,
    message?: RegExp,
  ): Promise<void> {
    await assert.rejects(act(test.store), storageError(code, message));
    assert.deepStrictEqual(await snapshot(test.store), initial);
  }

  /**
   * A bad row is refused by put, and a multiPut ending in it writes nothing, in auto-commit mode
   * and inside a transaction.
   */
  async function rowRefused(container: string, bad: unknown[], good: Row, code: StorageErrorCode) {
    const batch = () => [structuredClone(good), structuredClone(bad)] as Row[];
    await refused(code, () => handleOf(container).put(structuredClone(bad) as Row));
    await refused(code, () => handleOf(container).multiPut(batch()));
    const handle = handleOf(container);
    await handle.setAutoCommit(false);
    const before = await handle.scan();
    await assert.rejects(handle.multiPut(batch()), storageError(code));
    assert.deepStrictEqual(await handle.scan(), before, 'the transaction holds none of the batch');
    await handle.commit();
    assert.deepStrictEqual(await snapshot(test.store), initial);
  }

  const typedBad = (column: number, value: unknown) => {
    const row: unknown[] = typedRow(7);
    row[column] = value;
    return row;
  };

  it('TYPE_MISMATCH: a value of the wrong type', async () => {
    const cases: Array<[number, unknown]> = [
      [0, 'seven'], [1, 1.5], [3, '1'], [4, 1.5], [4, '1'], [5, 5], [6, 1n], [7, 'today'],
      [8, [1.5]], [8, 7n], [6, undefined],
    ];
    for (const [column, value] of cases) {
      await rowRefused('typed', typedBad(column, value), typedRow(9), 'TYPE_MISMATCH');
    }
    await rowRefused('series', ['yesterday', 1], [5_000, 1], 'TYPE_MISMATCH');
    await refused('TYPE_MISMATCH', () => handleOf('sensors').get(42));
    await refused('TYPE_MISMATCH', () => handleOf('typed').remove('1'));
    await refused('TYPE_MISMATCH', () => handleOf('typed').scan({ from: 'a' }));
  });

  it('ROW_INVALID: a row of the wrong length or shape', async () => {
    await rowRefused('sensors', ['c'], ['d', 4n], 'ROW_INVALID');
    await rowRefused('sensors', ['c', 3n, 3n], ['d', 4n], 'ROW_INVALID');
    await rowRefused('sensors', [], ['d', 4n], 'ROW_INVALID');
    await refused('ROW_INVALID', () => handleOf('sensors').put('c' as never));
    await refused('ROW_INVALID', () => handleOf('sensors').multiPut({} as never));
    await refused('ROW_INVALID', () => handleOf('pairs').get(1));
    await refused('ROW_INVALID', () => handleOf('sensors').scan({ direction: 'up' as never }));
    await refused('ROW_INVALID', () => handleOf('sensors').scan({ limit: -1 }));
  });

  it('KEY_REQUIRED: a missing or NULL key', async () => {
    await rowRefused('sensors', [null, 3n], ['d', 4n], 'KEY_REQUIRED');
    await rowRefused('pairs', [2, null, 3n], [3, 'y', 4n], 'KEY_REQUIRED');
    await rowRefused('series', [null, 1], [5_000, 1], 'KEY_REQUIRED');
    await refused('KEY_REQUIRED', () => handleOf('sensors').get(null as never));
    await refused('KEY_REQUIRED', () => handleOf('sensors').remove(undefined as never));
    await refused('KEY_REQUIRED', () => handleOf('pairs').remove([1, null] as never));
  });

  it('NULL_NOT_ALLOWED: NULL into a NOT NULL column or an array element', async () => {
    await rowRefused('typed', typedBad(5, null), typedRow(9), 'NULL_NOT_ALLOWED');
    await rowRefused('typed', typedBad(8, [1n, null]), typedRow(9), 'NULL_NOT_ALLOWED');
  });

  it('VALUE_OUT_OF_RANGE: integers and timestamps beyond their type, U+0000', async () => {
    const cases: Array<[number, unknown]> = [
      [1, 128], [1, -129], [2, 32768], [3, 2 ** 31], [3, -(2 ** 31) - 1],
      [4, INT64_MAX + 1n], [4, INT64_MIN - 1n], [7, -1], [8, [INT64_MAX + 1n]], [5, 'nul\u0000'],
    ];
    for (const [column, value] of cases) {
      await rowRefused('typed', typedBad(column, value), typedRow(9), 'VALUE_OUT_OF_RANGE');
    }
    await rowRefused('typed', typedBad(0, 2 ** 31), typedRow(9), 'VALUE_OUT_OF_RANGE');
    await rowRefused('series', [253_402_300_800_000, 1], [5_000, 1], 'VALUE_OUT_OF_RANGE');
  });

  it('CONTAINER_NOT_FOUND: requests on a container that does not exist', async () => {
    const missing = () => handleOf('missing');
    await refused('CONTAINER_NOT_FOUND', () => missing().put(['a', 1n]));
    await refused('CONTAINER_NOT_FOUND', () => missing().multiPut([]));
    await refused('CONTAINER_NOT_FOUND', () => missing().get('a'));
    await refused('CONTAINER_NOT_FOUND', () => missing().remove('a'));
    await refused('CONTAINER_NOT_FOUND', () => missing().scan());
    await refused('CONTAINER_NOT_FOUND', () => missing().count());
    await refused('CONTAINER_NOT_FOUND', (store) => store.addColumn('missing', {
      name: 'x', type: 'LONG', array: false, notNull: false,
    }));
    await refused('CONTAINER_NOT_FOUND',
      (store) => store.renameColumn('missing', { fromName: 'a', toName: 'b' }));
    assert.equal(await test.store.dropContainer('missing'), false);
    assert.equal(test.store.getContainerInfo('missing'), undefined);
  });

  it('CONTAINER_EXISTS: the same name (in any case) with another schema', async () => {
    const create = (definition: ContainerDefinition) => (store: Store) =>
      store.createContainer(definition);
    await refused('CONTAINER_EXISTS', create({ ...SENSORS, columns: [SENSORS.columns[0]!] }));
    await refused('CONTAINER_EXISTS', create({ ...SENSORS, name: 'SENSORS', rowKey: false }));
    await refused('CONTAINER_EXISTS', create({ ...SERIES, type: 'COLLECTION', rowKey: true }));
    // The same schema again is fine, and changes nothing.
    const same = await test.store.createContainer({ ...SENSORS, name: 'Sensors' });
    assert.equal(same.name, 'sensors');
    assert.deepStrictEqual(await snapshot(test.store), initial);
  });

  it('INVALID_NAME: over-long names and characters outside the allowed set', async () => {
    const named = (name: unknown) => (store: Store) =>
      store.createContainer({ ...SENSORS, name } as ContainerDefinition);
    const names = [
      'a'.repeat(16 * 1024 + 1), 'bad name', 'a$b', 'ключ', '1abc', '', 'a@', '@x', 'tab\t',
    ];
    for (const name of names) await refused('INVALID_NAME', named(name));
    const column = (name: string) => (store: Store) => store.createContainer({
      ...SENSORS, name: 'c2', columns: [{ name, type: 'STRING' }, { name: 'v', type: 'LONG' }],
    });
    await refused('INVALID_NAME', column('bad column'));
    await refused('INVALID_NAME', column('x'.repeat(257)));
    await refused('INVALID_NAME',
      (store) => store.renameColumn('sensors', { fromName: 'value', toName: 'a b' }));
  });

  it('TOO_MANY_COLUMNS and DUPLICATE_COLUMN_NAME', async () => {
    const columns = Array.from({ length: 1025 }, (_, i) => ({ name: `c${i}`, type: 'BOOL' }));
    await refused('TOO_MANY_COLUMNS',
      (store) => store.createContainer({ name: 'wide', type: 'COLLECTION', columns }));
    await refused('DUPLICATE_COLUMN_NAME', (store) => store.createContainer({
      name: 'twice', type: 'COLLECTION',
      columns: [{ name: 'Value', type: 'LONG' }, { name: 'VALUE', type: 'STRING' }],
    }));
    await refused('DUPLICATE_COLUMN_NAME', (store) => store.addColumn('sensors', {
      name: 'VALUE', type: 'LONG', array: false, notNull: false,
    }));
    const rename = (fromName: string, toName: string) => (store: Store) =>
      store.renameColumn('sensors', { fromName, toName });
    await refused('DUPLICATE_COLUMN_NAME', rename('id', 'Value'));
    await refused('COLUMN_NOT_FOUND', rename('nope', 'x'));
  });

  it('INVALID_SCHEMA: time-series key rules and row key types', async () => {
    const series = (overrides: Partial<ContainerDefinition>) => (store: Store) =>
      store.createContainer({ ...SERIES, name: 'ts2', ...overrides });
    const [t, v] = [{ name: 't', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE' }];
    await refused('INVALID_SCHEMA', series({ columns: [{ name: 't', type: 'STRING' }, v] }));
    await refused('INVALID_SCHEMA', series({ columns: [v, t] }));
    await refused('INVALID_SCHEMA', series({ columns: [{ name: 't', type: 'TIMESTAMP(6)' }] }));
    await refused('INVALID_SCHEMA', series({ columns: [{ ...t, array: true }] }));
    await refused('INVALID_SCHEMA', series({ rowKey: false }));
    await refused('INVALID_SCHEMA', series({ rowKey: 2 }));
    await refused('INVALID_SCHEMA', series({ columns: [] }));
    await refused('INVALID_SCHEMA', (store) => store.createContainer({
      name: 'dk', type: 'COLLECTION', rowKey: true, columns: [{ name: 'k', type: 'DOUBLE' }],
    }));
    await refused('INVALID_SCHEMA',
      (store) => store.createContainer({ ...SENSORS, name: 'c4', type: 'TABLE' as never }));
  });

  it('NOT_SUPPORTED since 5.0: HASH index, HI/SS compression, row expiry, triggers', async () => {
    const since = /not supported since 5\.0/;
    const removed: Array<Partial<ContainerDefinition>> = [
      { indexes: [{ columnNames: ['v'], type: 'HASH' }] },
      { timeSeriesProperties: { compressionMethod: 'HI' } },
      { timeSeriesProperties: { compressionMethod: 'SS' } },
      { timeSeriesProperties: { rowExpirationTime: 10 } },
      { rowExpiration: { time: 10, unit: 'DAY' } },
      { triggers: [{ name: 'tr', type: 'REST', uri: 'http://x' }] },
    ];
    for (const option of removed) {
      const create = (store: Store) => store.createContainer({ ...SERIES, name: 'ts3', ...option });
      await refused('NOT_SUPPORTED', create, since);
    }
  });

  it('malformed definitions are StorageErrors, never TypeErrors', async () => {
    const collection = { name: 'x', type: 'COLLECTION' };
    const long = [{ name: 'a', type: 'LONG' }];
    const definitions: unknown[] = [
      null, undefined, 42, 'sensors', [], {}, { name: 'x' }, collection,
      { ...collection, columns: null }, { ...collection, columns: 'abc' },
      { ...collection, columns: [null] }, { ...collection, columns: [42] },
      { ...collection, columns: [{}] }, { ...collection, columns: [{ name: 'a' }] },
      { ...collection, columns: long, indexes: [null] },
      { ...collection, columns: long, timeSeriesProperties: 5 },
      { ...collection, name: 42, columns: long },
    ];
    const isStorageError = (what: string) => (error: unknown) => {
      assert.ok(error instanceof StorageError, `${what}: ${String(error)}`);
      return true;
    };
    for (const definition of definitions) {
      await assert.rejects(test.store.createContainer(definition as ContainerDefinition),
        isStorageError(`createContainer(${JSON.stringify(definition)})`));
    }
    for (const column of [null, 42, {}, { name: 'x' }]) {
      await assert.rejects(test.store.addColumn('sensors', column as never),
        isStorageError(`addColumn(${JSON.stringify(column)})`));
    }
    assert.deepStrictEqual(await snapshot(test.store), initial);
  });

  it('reopening after all of the above shows the same data', async () => {
    await test.reopen();
    assert.deepStrictEqual(await snapshot(test.store), initial);
  });
});

describe('bad options', () => {
  it('parseStorageOptions names every bad member in one CONFIG_INVALID error', () => {
    assert.throws(() => parseStorageOptions({
      cluster: { dataStore: { storeBlockSize: '65KB', partitionNum: 0 } },
      node: {
        dataStore: { concurrency: 0, logWriteMode: 'x' },
        checkpoint: { checkpointInterval: '10' },
      },
    }), (error: unknown) => {
      assert.ok(error instanceof StorageError);
      assert.equal(error.code, 'CONFIG_INVALID');
      const members = [
        'storeBlockSize', 'partitionNum', 'concurrency', 'logWriteMode', 'checkpointInterval',
      ];
      for (const member of members) assert.match(error.message, new RegExp(member), member);
      return true;
    });
    const good = parseStorageOptions({ cluster: { dataStore: { storeBlockSize: '1MB' } } });
    assert.equal(good.storeBlockSizeBytes, 1024 * 1024);
  });

  it('a store refuses to open with another partitionNum or block size', async () => {
    const test = await openTestStore({ partitionNum: 4 });
    await test.store.createContainer(SENSORS);
    await test.store.session().container('sensors').put(['a', 1n]);
    await test.store.close();
    const reopen = (overrides: object) => Store.open({
      home: HOME, options: { ...test.options, ...overrides },
      fileSystem: test.fileSystem, scheduler: test.scheduler,
    });
    await assert.rejects(reopen({ partitionNum: 8 }),
      storageError('CONFIG_INVALID', /partitionNum/));
    await assert.rejects(reopen({ storeBlockSizeBytes: 32 * 1024 }),
      storageError('CONFIG_INVALID', /storeBlockSize/));
    const store = await reopen({});
    assert.deepStrictEqual(await store.session().container('sensors').get('a'), ['a', 1n]);
    await store.close();
  });
});
