import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError, isStorageError } from '../../../lib/base/errors.ts';
import { blockSizeLimits } from '../../../lib/base/limits.ts';
import { ByteReader } from '../../../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import {
  INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_NS_MAX, TIMESTAMP_US_MAX,
  type ColumnType, type Row, type RowKey, type Value,
} from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { keyValidator, rowValidator } from '../../../lib/schema/row-validate.ts';
import { validateContainerDefinition } from '../../../lib/schema/schema-validate.ts';

const limits = blockSizeLimits(64 * 1024);
const corruption = (error: unknown) => isStorageError(error, 'CORRUPTION');

// ---- arbitraries --------------------------------------------------------------------------------

interface ColumnDefinition {
  type: ColumnType;
  array: boolean;
  notNull: boolean;
  timePrecision: 'MILLISECOND' | 'MICROSECOND' | 'NANOSECOND';
}

const SCALAR_TYPES: ColumnType[] = ['BOOL', 'STRING', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT',
  'DOUBLE', 'TIMESTAMP', 'GEOMETRY', 'BLOB'];
const KEY_TYPES: ColumnType[] = ['STRING', 'INTEGER', 'LONG', 'TIMESTAMP'];

const columnDefinition = (types: ColumnType[]): fc.Arbitrary<ColumnDefinition> => fc.record({
  type: fc.constantFrom(...types),
  array: fc.boolean(),
  notNull: fc.boolean(),
  timePrecision: fc.constantFrom('MILLISECOND', 'MICROSECOND', 'NANOSECOND'),
}, { noNullPrototype: true }).map((c) => {
  const arrayable = c.type !== 'GEOMETRY' && c.type !== 'BLOB';
  const array = c.array && arrayable;
  const timePrecision = array ? 'MILLISECOND' : c.timePrecision;
  return { ...c, array, timePrecision };
});

/** Random valid schemas: collections with 0..3 key columns, or time series. */
const schemaArbitrary: fc.Arbitrary<ContainerSchema> = fc.record({
  timeSeries: fc.boolean(),
  keys: fc.array(columnDefinition(KEY_TYPES).map((c) => ({ ...c, array: false })),
    { maxLength: 3 }),
  rest: fc.array(columnDefinition(SCALAR_TYPES), { maxLength: 12 }),
}, { noNullPrototype: true }).filter(({ keys, rest }) => keys.length + rest.length > 0)
  .map(({ timeSeries, keys, rest }) => {
    const leading: ColumnDefinition[] = timeSeries
      ? [{ type: 'TIMESTAMP', array: false, notNull: true, timePrecision: 'MILLISECOND' }]
      : keys;
    const columns = [...leading, ...rest].map((c, i) => ({
      name: `c${i}`, type: c.type, array: c.array, notNull: c.notNull,
      ...(c.type === 'TIMESTAMP' ? { timePrecision: c.timePrecision } : {}),
    }));
    return validateContainerDefinition({
      name: 'random', type: timeSeries ? 'TIME_SERIES' : 'COLLECTION',
      rowKey: timeSeries ? 1 : keys.length, columns,
    }, limits);
  });

const wellFormed = (text: string) => !text.includes('\0') &&
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary-ascii', maxLength: 100 }),
  fc.constantFrom('', '😀', '\uFEFF', 'é', 'a'.repeat(42), '€'.repeat(43), '𝄞x'),
).filter(wellFormed);

/** Canonical values, as validateRow returns them. */
function scalarArbitrary(column: ColumnSchema): fc.Arbitrary<Value> {
  switch (column.type) {
    case 'BOOL': return fc.boolean();
    case 'BYTE': return fc.integer({ min: -128, max: 127 });
    case 'SHORT': return fc.integer({ min: -32768, max: 32767 });
    case 'INTEGER': return fc.oneof(fc.integer(), fc.constantFrom(-(2 ** 31), 2 ** 31 - 1));
    case 'LONG': return fc.oneof(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
      fc.constantFrom(INT64_MIN, INT64_MAX, 0n, -1n));
    case 'FLOAT': return fc.oneof(fc.float(), fc.constantFrom(NaN, -0, Infinity, -Infinity));
    case 'DOUBLE': return fc.oneof(fc.double(), fc.constantFrom(NaN, -0, Infinity, -Infinity,
      Number.MAX_VALUE, Number.MIN_VALUE));
    case 'TIMESTAMP':
      if (column.timePrecision === 'MICROSECOND') {
        return fc.bigInt({ min: 0n, max: TIMESTAMP_US_MAX });
      }
      if (column.timePrecision === 'NANOSECOND') {
        return fc.bigInt({ min: 0n, max: TIMESTAMP_NS_MAX });
      }
      return fc.oneof(fc.bigInt({ min: 0n, max: BigInt(TIMESTAMP_MS_MAX) }).map(Number),
        fc.constantFrom(0, TIMESTAMP_MS_MAX));
    case 'STRING': return text;
    // Canonical GEOMETRY is WKT as GridDB prints it (the validator parses and reprints it).
    case 'GEOMETRY': return fc.constantFrom('POINT(1 2)', 'POLYGON((0 0,1 0,1 1,0 0))',
      'POINT(EMPTY)', 'LINESTRING(0 0 0,1.5 -2 3e+20)', 'POINT(1 2;4326)');
    case 'BLOB': return fc.uint8Array({ maxLength: 40 });
  }
}

function valueArbitrary(column: ColumnSchema, isKey: boolean): fc.Arbitrary<Value> {
  const value = column.array
    ? fc.array(scalarArbitrary(column), { maxLength: 6 }) as fc.Arbitrary<Value>
    : scalarArbitrary(column);
  return column.notNull || isKey ? value : fc.option(value, { nil: null, freq: 3 });
}

const rowsArbitrary = (schema: ContainerSchema): fc.Arbitrary<Row[]> => fc.array(
  fc.tuple(...schema.columns.map((c, i) => valueArbitrary(c, i < schema.rowKeyColumnCount))),
  { maxLength: 5 },
) as fc.Arbitrary<Row[]>;

const schemaAndRows = schemaArbitrary.chain((schema) =>
  rowsArbitrary(schema).map((rows) => ({ schema, rows })));

function keysOf(schema: ContainerSchema, rows: Row[]): RowKey[] {
  const n = schema.rowKeyColumnCount;
  return rows.map((row) => (n === 1 ? row[0] : row.slice(0, n)) as RowKey);
}

// ---- properties ---------------------------------------------------------------------------------

describe('row codec round trips', () => {
  it('random schemas and canonical rows: validateRow keeps them, decode gives them back', () => {
    fc.assert(fc.property(schemaAndRows, ({ schema, rows }) => {
      const validate = rowValidator(schema, limits);
      for (const row of rows) assert.deepStrictEqual(validate([...row]), row);
      const codec = rowCodec(schema);
      const writer = new ByteWriter(8);
      codec.writeRows(writer, rows);
      if (schema.rowKeyColumnCount > 0) codec.writeKeys(writer, keysOf(schema, rows));
      const reader = new ByteReader(writer.finish());
      assert.deepStrictEqual(codec.readRows(reader, rows.length), rows);
      if (schema.rowKeyColumnCount > 0) {
        assert.deepStrictEqual(codec.readKeys(reader, rows.length), keysOf(schema, rows));
      }
      reader.expectEnd();
    }), { numRuns: 1000 });
  });

  it('keys from keyValidator round-trip as keys', () => {
    const withKey = schemaArbitrary.filter((s) => s.rowKeyColumnCount > 0);
    fc.assert(fc.property(withKey.chain((schema) => rowsArbitrary(schema).map((rows) =>
      ({ schema, rows }))), ({ schema, rows }) => {
      const validateKey = keyValidator(schema);
      const keys = keysOf(schema, rows).map((key) => validateKey(key));
      assert.deepStrictEqual(keys, keysOf(schema, rows));
      const writer = new ByteWriter(8);
      rowCodec(schema).writeKeys(writer, keys);
      const reader = new ByteReader(writer.finish());
      assert.deepStrictEqual(rowCodec(schema).readKeys(reader, keys.length), keys);
      reader.expectEnd();
    }), { numRuns: 1000 });
  });

  it('garbage bytes decode to rows or CORRUPTION, never another error', () => {
    fc.assert(fc.property(schemaArbitrary, fc.uint8Array({ maxLength: 64 }), fc.nat(4),
      (schema, bytes, count) => {
        try {
          rowCodec(schema).readRows(new ByteReader(bytes), count);
        } catch (error) {
          assert.ok(error instanceof StorageError && error.code === 'CORRUPTION', String(error));
        }
      }), { numRuns: 1000 });
  });
});

// ---- named cases --------------------------------------------------------------------------------

describe('row codec: named cases', () => {
  const schema = validateContainerDefinition({
    name: 'named', type: 'COLLECTION', rowKey: true,
    columns: [{ name: 'id', type: 'LONG' }, { name: 'on', type: 'BOOL' },
      { name: 'ms', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE', notNull: true },
      { name: 'f', type: 'FLOAT' }, { name: 'blob', type: 'BLOB' },
      { name: 'xs', type: 'BYTE_ARRAY' },
      { name: 's', type: 'STRING' }, { name: 'n', type: 'TIMESTAMP(9)' }],
  }, limits);
  const codec = rowCodec(schema);

  function encode(rows: Row[]): Uint8Array {
    const writer = new ByteWriter(8);
    codec.writeRows(writer, rows);
    return writer.finish().slice();
  }

  it('draws the format: bitmap, then only the non-NULL values', () => {
    const bytes = encode([[1n, true, 5, 2.5, null, null, null, null, null]]);
    assert.deepEqual([...bytes.subarray(0, 2)], [0b1111_0000, 0b0000_0001]);
    assert.equal(bytes.length, 2 + 8 + 1 + 8 + 8);
  });

  it('values normalised by validateRow round-trip: Buffer, Date, numbers for LONG, float', () => {
    const row = rowValidator(schema, limits)([7, false, new Date(9), -0, 0.1, Buffer.from([1]),
      [1, -1], 'é', 3]);
    const [decoded] = codec.readRows(new ByteReader(encode([row])), 1);
    assert.deepStrictEqual(decoded, [7n, false, 9, -0, Math.fround(0.1), new Uint8Array([1]),
      [1, -1], 'é', 3n]);
  });

  it('NULL in a NOT NULL or key column on disk is CORRUPTION', () => {
    const bytes = encode([[1n, null, null, 1.5, null, null, null, null, null]]);
    const damaged = bytes.slice();
    damaged[0]! |= 0b0000_1000; // column 3 (v, NOT NULL)
    assert.throws(() => codec.readRows(new ByteReader(damaged), 1), corruption);
    const keyless = bytes.slice();
    keyless[0]! |= 0b0000_0001; // column 0 (the key)
    assert.throws(() => codec.readRows(new ByteReader(keyless), 1), corruption);
  });

  it('padding bits, bad bools, out-of-range timestamps, huge array counts are CORRUPTION', () => {
    const good = encode([[1n, true, 5, 2.5, null, null, null, null, null]]);
    const padding = good.slice();
    padding[1]! |= 0b1000_0000;
    assert.throws(() => codec.readRows(new ByteReader(padding), 1), corruption);
    const bool = good.slice();
    bool[10] = 2;
    assert.throws(() => codec.readRows(new ByteReader(bool), 1), corruption);
    const time = good.slice();
    time.set([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0], 11);
    assert.throws(() => codec.readRows(new ByteReader(time), 1), corruption);
    const array = encode([[1n, null, null, 2.5, null, null, [1], null, null]]);
    array[array.length - 2] = 0x7f; // element count 127 with one byte left
    assert.throws(() => codec.readRows(new ByteReader(array), 1), corruption);
    assert.throws(() => codec.readRows(new ByteReader(good), 1e9), corruption);
    assert.throws(() => codec.readKeys(new ByteReader(good), 1e9), corruption);
  });

  it('time series of TSBS shape: 1 timestamp + 10 doubles', () => {
    const cpu = validateContainerDefinition({ name: 'cpu', type: 'TIME_SERIES', columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      ...Array.from({ length: 10 }, (_, i) => ({ name: `usage_${i}`, type: 'DOUBLE' })),
    ] }, limits);
    const rows: Row[] = [[1_600_000_000_000, 1, 2, 3, 4, 5, 6, 7, 8, 9, null]];
    const writer = new ByteWriter(64);
    rowCodec(cpu).writeRows(writer, rows);
    assert.equal(writer.lengthBytes, 2 + 8 + 9 * 8);
    assert.deepStrictEqual(rowCodec(cpu).readRows(new ByteReader(writer.finish()), 1), rows);
  });
});
