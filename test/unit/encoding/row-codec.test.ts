import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError, isStorageError } from '../../../lib/base/errors.ts';
import { ByteReader } from '../../../lib/encoding/byte-reader.ts';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import type { Row, RowKey } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { keyValidator, rowValidator } from '../../../lib/schema/row-validate.ts';
import { validateContainerDefinition } from '../../../lib/schema/schema-validate.ts';
import { limits, rowsArbitrary, schemaAndRows, schemaArbitrary } from './row-arbitraries.ts';

const corruption = (error: unknown) => isStorageError(error, 'CORRUPTION');

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
      const codec = rowCodec(schema, 'storage');
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

  it('rowBytes is the size writeRows takes for each row, one at a time and in a batch', () => {
    fc.assert(fc.property(schemaAndRows, ({ schema, rows }) => {
      const codec = rowCodec(schema, 'storage');
      const writer = new ByteWriter(8);
      let totalBytes = 0;
      for (const row of rows) {
        const before = writer.lengthBytes;
        codec.writeRows(writer, [row]);
        assert.equal(codec.rowBytes(row), writer.lengthBytes - before);
        totalBytes += codec.rowBytes(row);
      }
      const batch = new ByteWriter(8);
      codec.writeRows(batch, rows);
      assert.equal(batch.lengthBytes, totalBytes);
      assert.deepStrictEqual(batch.finish(), writer.finish());
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
      rowCodec(schema, 'storage').writeKeys(writer, keys);
      const reader = new ByteReader(writer.finish());
      assert.deepStrictEqual(rowCodec(schema, 'storage').readKeys(reader, keys.length), keys);
      reader.expectEnd();
    }), { numRuns: 1000 });
  });

  it('garbage bytes decode to rows or CORRUPTION, never another error', () => {
    fc.assert(fc.property(schemaArbitrary, fc.uint8Array({ maxLength: 64 }), fc.nat(4),
      (schema, bytes, count) => {
        try {
          rowCodec(schema, 'storage').readRows(new ByteReader(bytes), count);
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
  const codec = rowCodec(schema, 'storage');

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
    rowCodec(cpu, 'storage').writeRows(writer, rows);
    assert.equal(writer.lengthBytes, 2 + 8 + 9 * 8);
    assert.deepStrictEqual(rowCodec(cpu, 'storage').readRows(new ByteReader(writer.finish()), 1), rows);
  });
});
