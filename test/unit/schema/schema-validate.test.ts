import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError, isStorageError, type StorageErrorCode } from '../../../lib/base/errors.ts';
import { blockSizeLimits } from '../../../lib/base/limits.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import {
  columnIndexByName, schemasEqual, validateAddColumn, validateAddIndex,
  validateContainerDefinition, validateRenameColumn,
} from '../../../lib/schema/schema-validate.ts';

const limits = blockSizeLimits(64 * 1024);

function code(expected: StorageErrorCode, pattern?: RegExp) {
  return (error: unknown) => {
    assert.ok(isStorageError(error), `expected a StorageError, got ${String(error)}`);
    assert.equal(error.code, expected, error.message);
    if (pattern !== undefined) assert.match(error.message, pattern);
    return true;
  };
}

const sensor = () => ({
  name: 'sensor1',
  type: 'TIME_SERIES',
  columns: [
    { name: 'ts', type: 'TIMESTAMP' },
    { name: 'temp', type: 'DOUBLE' },
    { name: 'status', type: 'STRING', notNull: true },
    { name: 'shape', type: 'GEOMETRY' },
  ],
});

const people = () => ({
  name: 'People',
  type: 'COLLECTION',
  rowKey: 2,
  columns: [
    { name: 'last', type: 'STRING' },
    { name: 'first', type: 'STRING' },
    { name: 'born', type: 'TIMESTAMP', timePrecision: 'MICROSECOND' },
    { name: 'tags', type: 'STRING_ARRAY' },
    { name: 'photo', type: 'BLOB' },
    { name: 'home', type: 'GEOMETRY' },
  ],
});

describe('validateContainerDefinition: valid definitions', () => {
  it('normalises a time series: implied key, notNull key, MILLISECOND default', () => {
    const schema = validateContainerDefinition(sensor(), limits);
    assert.deepEqual(schema, {
      name: 'sensor1',
      type: 'TIME_SERIES',
      columns: [
        {
          name: 'ts', type: 'TIMESTAMP', array: false, notNull: true, timePrecision: 'MILLISECOND',
        },
        { name: 'temp', type: 'DOUBLE', array: false, notNull: false },
        { name: 'status', type: 'STRING', array: false, notNull: true },
        { name: 'shape', type: 'GEOMETRY', array: false, notNull: false },
      ],
      rowKeyColumnCount: 1,
      indexes: [],
      schemaVersion: 1,
    });
  });

  it('keeps a composite key, arrays, precision, affinity and indexes with positions', () => {
    const schema = validateContainerDefinition({
      ...people(),
      dataAffinity: '#unique',
      indexes: [
        { name: 'byBorn', columnNames: ['BORN'], type: 'tree' },
        { columnNames: ['home'], type: 'SPATIAL' },
        { name: 'byName', columnNames: ['first', 'last'], type: 'TREE' },
      ],
    }, limits);
    assert.equal(schema.rowKeyColumnCount, 2);
    assert.equal(schema.dataAffinity, '#unique');
    assert.deepEqual(schema.columns.map((c) => c.notNull),
      [true, true, false, false, false, false]);
    assert.deepEqual(schema.columns[2], {
      name: 'born', type: 'TIMESTAMP', array: false, notNull: false, timePrecision: 'MICROSECOND',
    });
    assert.deepEqual(schema.columns[3],
      { name: 'tags', type: 'STRING', array: true, notNull: false });
    assert.deepEqual(schema.indexes, [
      { name: 'byBorn', columnIndexes: [2], type: 'TREE' },
      { name: '', columnIndexes: [5], type: 'SPATIAL' },
      { name: 'byName', columnIndexes: [1, 0], type: 'TREE' },
    ]);
  });

  it('accepts `array: true`, TIMESTAMP(9) and rowKey true', () => {
    const schema = validateContainerDefinition({
      name: 'c', type: 'COLLECTION', rowKey: true,
      columns: [
        { name: 'id', type: 'LONG' },
        { name: 'xs', type: 'INTEGER', array: true },
        { name: 't', type: 'TIMESTAMP(9)' },
      ],
    }, limits);
    assert.equal(schema.rowKeyColumnCount, 1);
    assert.equal(schema.columns[1]!.array, true);
    assert.equal(schema.columns[2]!.timePrecision, 'NANOSECOND');
  });

  it('treats null members as absent and allows an empty trigger list and compression NO', () => {
    const schema = validateContainerDefinition({
      ...sensor(), rowKey: null, dataAffinity: null, triggers: [],
      timeSeriesProperties: { compressionMethod: 'NO' },
    }, limits);
    assert.equal(schema.rowKeyColumnCount, 1);
    assert.equal(schema.dataAffinity, undefined);
  });
});

describe('validateContainerDefinition: refusals', () => {
  it('wrong shapes are INVALID_SCHEMA, never a TypeError', () => {
    for (const definition of [null, 1, 'x', [], { ...sensor(), columns: 'ts' },
      { ...sensor(), columns: [null] }, { ...sensor(), columns: [] },
      { ...sensor(), type: 'TABLE' },
      { ...sensor(), type: undefined }, { ...sensor(), indexes: {} }, { ...sensor(), extra: 1 }]) {
      assert.throws(() => validateContainerDefinition(definition, limits), code('INVALID_SCHEMA'));
    }
  });

  it('a bad container or column name is INVALID_NAME', () => {
    assert.throws(() => validateContainerDefinition({ ...sensor(), name: '9lives' }, limits),
      code('INVALID_NAME'));
    assert.throws(() => validateContainerDefinition({ ...sensor(), name: undefined }, limits),
      code('INVALID_NAME'));
    const columns = [...sensor().columns, { name: 'c'.repeat(257), type: 'BOOL' }];
    assert.throws(() => validateContainerDefinition({ ...sensor(), columns }, limits),
      code('INVALID_NAME'));
  });

  it('column types: unknown names, GEOMETRY/BLOB arrays, contradictions', () => {
    const withColumn = (column: object) =>
      () => validateContainerDefinition({ ...people(), columns: [...people().columns, column] },
        limits);
    assert.throws(withColumn({ name: 'x', type: 'DECIMAL' }), code('INVALID_SCHEMA', /DECIMAL/));
    assert.throws(withColumn({ name: 'x', type: 7 }), code('INVALID_SCHEMA'));
    assert.throws(withColumn({ name: 'x', type: 'GEOMETRY_ARRAY' }), code('INVALID_SCHEMA'));
    assert.throws(withColumn({ name: 'x', type: 'BLOB', array: true }), code('INVALID_SCHEMA'));
    assert.throws(withColumn({ name: 'x', type: 'LONG_ARRAY', array: false }),
      code('INVALID_SCHEMA'));
    assert.throws(withColumn({ name: 'x', type: 'LONG', timePrecision: 'MILLISECOND' }),
      code('INVALID_SCHEMA'));
    assert.throws(withColumn({ name: 'x', type: 'TIMESTAMP', timePrecision: 'SECOND' }),
      code('INVALID_SCHEMA'));
    assert.throws(withColumn({ name: 'x', type: 'TIMESTAMP(6)', timePrecision: 'NANOSECOND' }),
      code('INVALID_SCHEMA'));
    assert.throws(withColumn({ name: 'x', type: 'TIMESTAMP_ARRAY', timePrecision: 'MICROSECOND' }),
      code('NOT_SUPPORTED'));
    assert.throws(withColumn({ name: 'x', type: 'BOOL', notNull: 'yes' }), code('INVALID_SCHEMA'));
  });

  it('too many columns: by count and by fixed-length part', () => {
    const columns = Array.from({ length: limits.columnCountMax + 1 }, (_, i) => ({
      name: `c${i}`, type: 'BYTE',
    }));
    assert.throws(() => validateContainerDefinition({ name: 'wide', type: 'COLLECTION', columns },
      limits), code('TOO_MANY_COLUMNS'));
    assert.equal(validateContainerDefinition({ name: 'wide', type: 'COLLECTION',
      columns: columns.slice(0, limits.columnCountMax) }, limits).columns.length, 1024);
    const large = blockSizeLimits(1024 * 1024);
    const longs = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `c${i}`, type: 'LONG' }));
    assert.equal(validateContainerDefinition({ name: 'w', type: 'COLLECTION',
      columns: longs(7552) }, large).columns.length, 7552);
    assert.throws(() => validateContainerDefinition({ name: 'w', type: 'COLLECTION',
      columns: longs(7553) }, large), code('TOO_MANY_COLUMNS', /fixed-length/));
  });

  it('duplicate column names differing only in case are DUPLICATE_COLUMN_NAME', () => {
    const columns = [...people().columns, { name: 'FIRST', type: 'INTEGER' }];
    assert.throws(() => validateContainerDefinition({ ...people(), columns }, limits),
      code('DUPLICATE_COLUMN_NAME', /"FIRST"/));
  });

  it('composite key rules', () => {
    const collection = (rowKey: unknown, types: string[]) => () => validateContainerDefinition({
      name: 'k', type: 'COLLECTION', rowKey,
      columns: types.map((type, i) => ({ name: `c${i}`, type })),
    }, limits);
    assert.equal(collection(16, Array(17).fill('INTEGER'))().rowKeyColumnCount, 16);
    assert.throws(collection(17, Array(17).fill('INTEGER')), code('INVALID_SCHEMA'));
    assert.throws(collection(3, ['STRING', 'STRING']), code('INVALID_SCHEMA', /covers 3/));
    assert.throws(collection(2, ['STRING', 'DOUBLE']), code('INVALID_SCHEMA', /DOUBLE/));
    assert.throws(collection(1, ['STRING_ARRAY']), code('INVALID_SCHEMA', /array/));
    assert.throws(collection(1, ['BOOL']), code('INVALID_SCHEMA'));
    assert.throws(collection(1.5, ['STRING']), code('INVALID_SCHEMA'));
    assert.throws(collection('1', ['STRING']), code('INVALID_SCHEMA'));
    assert.equal(collection(true, ['TIMESTAMP(9)'])().rowKeyColumnCount, 1);
    assert.equal(collection(undefined, ['STRING'])().rowKeyColumnCount, 0);
  });

  it('time series key rules', () => {
    const series = (patch: object) => () => validateContainerDefinition({ ...sensor(), ...patch },
      limits);
    const tsKey = /exactly one row key column, column 0, of type TIMESTAMP with MILLISECOND/;
    assert.throws(series({ rowKey: false }), code('INVALID_SCHEMA', tsKey));
    assert.throws(series({ rowKey: 0 }), code('INVALID_SCHEMA', tsKey));
    assert.throws(series({ rowKey: 2 }), code('INVALID_SCHEMA', tsKey));
    const longKey = [{ name: 'id', type: 'LONG' }, { name: 'v', type: 'DOUBLE' }];
    assert.throws(series({ columns: longKey }), code('INVALID_SCHEMA', tsKey));
    const precise = { name: 'ts', type: 'TIMESTAMP', timePrecision: 'MICROSECOND' };
    assert.throws(series({ columns: [precise] }), code('INVALID_SCHEMA', tsKey));
    assert.throws(series({ columns: [{ name: 'ts', type: 'TIMESTAMP_ARRAY' }] }),
      code('INVALID_SCHEMA', tsKey));
    assert.equal(series({ rowKey: true })().rowKeyColumnCount, 1);
  });

  it('HASH index is NOT_SUPPORTED with the 5.0 message', () => {
    assert.throws(() => validateContainerDefinition({ ...sensor(),
      indexes: [{ columnNames: ['temp'], type: 'HASH' }] }, limits), (error: unknown) => {
      assert.ok(error instanceof StorageError);
      assert.equal(error.code, 'NOT_SUPPORTED');
      assert.equal(error.message, 'HASH index is not supported since 5.0; use a TREE index');
      return true;
    });
  });

  it('index rules of §4.5', () => {
    const withIndex = (base: () => object, index: object) =>
      () => validateContainerDefinition({ ...base(), indexes: [index] }, limits);
    assert.throws(withIndex(sensor, { columnNames: ['ts'], type: 'TREE' }),
      code('INVALID_SCHEMA', /time series key/));
    assert.throws(withIndex(sensor, { columnNames: ['temp', 'ts'], type: 'TREE' }),
      code('INVALID_SCHEMA', /time series key/));
    assert.throws(withIndex(sensor, { columnNames: ['shape'], type: 'SPATIAL' }),
      code('INVALID_SCHEMA', /collections only/));
    assert.throws(withIndex(people, { columnNames: ['photo'], type: 'TREE' }),
      code('INVALID_SCHEMA', /BLOB/));
    assert.throws(withIndex(people, { columnNames: ['tags'], type: 'TREE' }),
      code('INVALID_SCHEMA', /array/));
    assert.throws(withIndex(people, { columnNames: ['home'], type: 'TREE' }),
      code('INVALID_SCHEMA', /GEOMETRY/));
    assert.throws(withIndex(people, { columnNames: ['first'], type: 'SPATIAL' }),
      code('INVALID_SCHEMA', /SPATIAL/));
    assert.throws(withIndex(people, { columnNames: ['nope'], type: 'TREE' }),
      code('COLUMN_NOT_FOUND'));
    assert.throws(withIndex(people, { columnNames: ['first', 'FIRST'], type: 'TREE' }),
      code('INVALID_SCHEMA', /twice/));
    assert.throws(withIndex(people, { columnNames: [], type: 'TREE' }), code('INVALID_SCHEMA'));
    assert.throws(withIndex(people, { columnNames: ['first'], type: 'BTREE' }),
      code('INVALID_SCHEMA'));
    assert.throws(withIndex(people, { name: 'bad name', columnNames: ['first'], type: 'TREE' }),
      code('INVALID_NAME'));
    const wide = { name: 'w', type: 'COLLECTION',
      columns: Array.from({ length: 17 }, (_, i) => ({ name: `c${i}`, type: 'INTEGER' })) };
    const allColumns = { columnNames: wide.columns.map((c) => c.name), type: 'TREE' };
    assert.throws(withIndex(() => wide, allColumns), code('INVALID_SCHEMA', /more than 16/));
    assert.throws(() => validateContainerDefinition({ ...people(), indexes: [
      { name: 'a', columnNames: ['first'], type: 'TREE' },
      { name: 'A', columnNames: ['last'], type: 'TREE' },
    ] }, limits), code('INVALID_SCHEMA', /twice/));
    assert.throws(() => validateContainerDefinition({ ...people(), indexes: [
      { columnNames: ['first'], type: 'TREE' }, { columnNames: ['FIRST'], type: 'TREE' },
    ] }, limits), code('INVALID_SCHEMA', /two TREE indexes/));
  });

  it('HI and SS compression are NOT_SUPPORTED since 5.0', () => {
    for (const compressionMethod of ['HI', 'SS', 'hi']) {
      assert.throws(() => validateContainerDefinition({ ...sensor(),
        timeSeriesProperties: { compressionMethod } }, limits),
      code('NOT_SUPPORTED', /not supported since 5.0/));
    }
    assert.throws(() => validateContainerDefinition({ ...sensor(),
      timeSeriesProperties: { compressionMethod: 'NO', compressionWindowSize: 5 } }, limits),
    code('NOT_SUPPORTED', /not supported since 5.0/));
    assert.throws(() => validateContainerDefinition({ ...sensor(),
      timeSeriesProperties: { compressionMethod: 'ZIP' } }, limits), code('INVALID_SCHEMA'));
  });

  it('row expiry is NOT_SUPPORTED since 5.0, in either spelling', () => {
    assert.throws(() => validateContainerDefinition({ ...sensor(),
      timeSeriesProperties: { rowExpirationTime: 30 } }, limits),
    code('NOT_SUPPORTED', /row expiry.*not supported since 5.0/));
    assert.throws(() => validateContainerDefinition({ ...sensor(),
      rowExpiration: { time: 30, unit: 'DAY' } }, limits),
    code('NOT_SUPPORTED', /row expiry.*not supported since 5.0/));
  });

  it('triggers are NOT_SUPPORTED since 5.0', () => {
    assert.throws(() => validateContainerDefinition({ ...sensor(),
      triggers: [{ name: 't', type: 'REST', uri: 'http://x' }] }, limits),
    code('NOT_SUPPORTED', /triggers are not supported since 5.0/));
    assert.throws(() => validateContainerDefinition({ ...sensor(), triggers: 'x' }, limits),
      code('INVALID_SCHEMA'));
  });

  it('time series properties on a collection, bad data affinity', () => {
    assert.throws(() => validateContainerDefinition({ ...people(),
      timeSeriesProperties: { compressionMethod: 'NO' } }, limits), code('INVALID_SCHEMA'));
    assert.throws(() => validateContainerDefinition({ ...people(), dataAffinity: 'toolongname' },
      limits), code('INVALID_NAME'));
    // An object that String() cannot convert (its toString is not a function) is described.
    assert.throws(() => validateContainerDefinition({ ...sensor(), rowKey: { toString: 0 } },
      limits), (error: unknown) => isStorageError(error, 'INVALID_SCHEMA') &&
      /rowKey must be .*got object/.test(error.message));
  });

  it('any JSON is either a schema or a StorageError, never another error', () => {
    const valid = [sensor(), people()];
    const mutated = fc.tuple(fc.constantFrom(...valid), fc.constantFrom(
      'name', 'type', 'columns', 'rowKey', 'dataAffinity', 'indexes', 'timeSeriesProperties',
      'triggers', 'rowExpiration',
    ), fc.jsonValue()).map(([definition, key, value]) => ({ ...definition, [key]: value }));
    const column = fc.record({ name: fc.jsonValue(), type: fc.constantFrom('LONG', 'STRING_ARRAY',
      'x'), array: fc.jsonValue(), notNull: fc.boolean() }, { requiredKeys: ['name', 'type'] });
    const randomColumns = fc.array(column, { maxLength: 5 }).map((columns) => ({
      name: 'c', type: 'COLLECTION', columns,
    }));
    fc.assert(fc.property(fc.oneof(fc.jsonValue(), fc.anything(), mutated, randomColumns),
      (definition) => {
        try {
          const schema = validateContainerDefinition(definition, limits);
          assert.ok(schema.columns.length > 0);
        } catch (error) {
          assert.ok(error instanceof StorageError, String(error));
        }
      }), { numRuns: 1000 });
  });
});

const patched = (columns: object[], position: number, patch: object) =>
  columns.map((column, i) => (i === position ? { ...column, ...patch } : column));

describe('schemasEqual', () => {
  const schema = () => validateContainerDefinition(people(), limits);

  it('ignores case of names and the index list', () => {
    const other = validateContainerDefinition({
      ...people(), name: 'PEOPLE',
      columns: people().columns.map((c) => ({ ...c, name: c.name.toUpperCase() })),
      indexes: [{ columnNames: ['first'], type: 'TREE' }],
    }, limits);
    assert.equal(schemasEqual(schema(), other), true);
  });

  it('sees every difference of type, key, notNull, precision and affinity', () => {
    const variants: Array<(d: ReturnType<typeof people>) => object> = [
      (d) => ({ ...d, rowKey: 1 }),
      (d) => ({ ...d, dataAffinity: 'g1' }),
      (d) => ({ ...d, columns: d.columns.slice(0, 5) }),
      (d) => ({ ...d, columns: patched(d.columns, 4, { notNull: true }) }),
      (d) => ({ ...d, columns: patched(d.columns, 2, { timePrecision: 'NANOSECOND' }) }),
      (d) => ({ ...d, columns: patched(d.columns, 3, { type: 'STRING' }) }),
      (d) => ({ ...d, columns: patched(d.columns, 5, { name: 'away' }) }),
      (d) => ({ ...d, name: 'Persons' }),
    ];
    for (const variant of variants) {
      assert.equal(schemasEqual(schema(), validateContainerDefinition(variant(people()), limits)),
        false);
    }
  });
});

describe('schema changes', () => {
  const base = (): ContainerSchema => validateContainerDefinition(sensor(), limits);

  it('columnIndexByName ignores case', () => {
    assert.equal(columnIndexByName(base(), 'TEMP'), 1);
    assert.equal(columnIndexByName(base(), 'nope'), undefined);
  });

  it('validateAddColumn appends, bumps the version and leaves the old schema alone', () => {
    const before = base();
    const after = validateAddColumn(before, { name: 'humidity', type: 'FLOAT' }, limits);
    assert.equal(after.schemaVersion, 2);
    assert.equal(before.columns.length, 4);
    assert.deepEqual(after.columns.at(-1), { name: 'humidity', type: 'FLOAT', array: false,
      notNull: false });
    assert.equal(columnIndexByName(after, 'HUMIDITY'), 4);
    assert.equal(columnIndexByName(before, 'humidity'), undefined);
  });

  it('validateAddColumn refuses duplicates, keys and columns beyond the limit', () => {
    assert.throws(() => validateAddColumn(base(), { name: 'Temp', type: 'LONG' }, limits),
      code('DUPLICATE_COLUMN_NAME'));
    const key = { name: 'k', type: 'LONG', rowKey: true };
    assert.throws(() => validateAddColumn(base(), key, limits), code('INVALID_SCHEMA', /row key/));
    assert.throws(() => validateAddColumn(base(), { name: 'k', type: 'NOPE' }, limits),
      code('INVALID_SCHEMA'));
    const full = validateContainerDefinition({ name: 'f', type: 'COLLECTION',
      columns: Array.from({ length: 1024 }, (_, i) => ({ name: `c${i}`, type: 'BOOL' })) }, limits);
    assert.throws(() => validateAddColumn(full, { name: 'x', type: 'BOOL' }, limits),
      code('TOO_MANY_COLUMNS'));
  });

  it('validateRenameColumn renames, bumps the version, allows a change of case only', () => {
    const after = validateRenameColumn(base(), 'TEMP', 'temperature', limits);
    assert.equal(after.columns[1]!.name, 'temperature');
    assert.equal(after.schemaVersion, 2);
    assert.equal(validateRenameColumn(base(), 'temp', 'TEMP', limits).columns[1]!.name, 'TEMP');
    assert.throws(() => validateRenameColumn(base(), 'nope', 'x', limits),
      code('COLUMN_NOT_FOUND'));
    assert.throws(() => validateRenameColumn(base(), 'temp', 'STATUS', limits),
      code('DUPLICATE_COLUMN_NAME'));
    assert.throws(() => validateRenameColumn(base(), 'temp', 'a b', limits), code('INVALID_NAME'));
  });

  it('validateAddIndex adds an index without changing the version', () => {
    const after = validateAddIndex(base(), { name: 'byTemp', columnNames: ['temp'], type: 'TREE' },
      limits);
    assert.deepEqual(after.indexes, [{ name: 'byTemp', columnIndexes: [1], type: 'TREE' }]);
    assert.equal(after.schemaVersion, 1);
    assert.throws(() => validateAddIndex(after, { name: 'BYTEMP', columnNames: ['status'],
      type: 'TREE' }, limits), code('INVALID_SCHEMA'));
    assert.throws(() => validateAddIndex(after, { columnNames: ['temp'], type: 'HASH' }, limits),
      code('NOT_SUPPORTED'));
  });
});
