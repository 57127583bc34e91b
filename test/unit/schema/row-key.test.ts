import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import {
  INT64_MAX, INT64_MIN, type KeyValue, type RowKey,
} from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { rowKeyOps } from '../../../lib/schema/row-key.ts';

function schemaOf(
  keyColumns: ColumnSchema[], rowKeyColumnCount = keyColumns.length,
): ContainerSchema {
  return {
    name: 't', type: 'COLLECTION', rowKeyColumnCount, indexes: [], schemaVersion: 1,
    columns: [...keyColumns, { name: 'v', type: 'DOUBLE', array: false, notNull: false }],
  };
}
type Precision = ColumnSchema['timePrecision'];
const key = (name: string, type: ColumnSchema['type'], timePrecision?: Precision): ColumnSchema =>
  ({ name, type, array: false, notNull: true, ...(timePrecision ? { timePrecision } : {}) });

const stringOps = rowKeyOps(schemaOf([key('s', 'STRING')]));
const longOps = rowKeyOps(schemaOf([key('l', 'LONG')]));
const compositeOps = rowKeyOps(schemaOf(
  [key('s', 'STRING'), key('i', 'INTEGER'), key('t', 'TIMESTAMP', 'NANOSECOND')]));

describe('row-key', () => {
  it('orders numbers, bigints (int64 extremes) and strings by UTF-16 code units', () => {
    assert.ok(longOps.compare(INT64_MIN, INT64_MAX) < 0);
    assert.ok(longOps.compare(INT64_MAX, INT64_MAX - 1n) > 0);
    assert.equal(longOps.compare(5n, 5n), 0);
    const intOps = rowKeyOps(schemaOf([key('i', 'INTEGER')]));
    assert.ok(intOps.compare(-2, 10) < 0);
    // U+10000 is the surrogate pair D800 DC00, which sorts below U+FFFF in code units.
    assert.ok(stringOps.compare('\u{10000}', '\uFFFF') < 0);
    assert.ok(stringOps.compare('B', 'a') < 0);
    assert.ok(stringOps.compare('', 'a') < 0);
  });

  it('orders composite keys column by column', () => {
    assert.ok(compositeOps.compare(['a', 9, 0n], ['b', 0, 0n]) < 0);
    assert.ok(compositeOps.compare(['a', 1, 5n], ['a', 1, 4n]) > 0);
    assert.equal(compositeOps.compare(['a', 1, 5n], ['a', 1, 5n]), 0);
    assert.ok(compositeOps.compareRows(['a', 2, 0n, 1.5], ['a', 10, 0n, 0]) < 0);
    assert.deepStrictEqual(compositeOps.keyOf(['x', 3, 7n, 0.5]), ['x', 3, 7n]);
  });

  it('keyString is equal exactly when compare is 0 (composite strings with separators)', () => {
    const part = fc.tuple(
      fc.string({ unit: 'binary', maxLength: 6 }), fc.integer({ min: -3, max: 3 }),
      fc.bigInt({ min: -3n, max: 3n }));
    fc.assert(fc.property(part, part, (a, b) => {
      const sameString = compositeOps.keyString(a) === compositeOps.keyString(b);
      assert.equal(sameString, compositeOps.compare(a, b) === 0);
    }), { numRuns: 2000 });
    // Strings holding the separator characters cannot forge another key.
    const forged = compositeOps.keyString(['1:a|2', 1, 1n]);
    assert.notEqual(forged, compositeOps.keyString(['1:a', 2, 1n]));
    assert.notEqual(compositeOps.keyString(['a|1', 2, 3n]), compositeOps.keyString(['a', 12, 3n]));
  });

  it('normalizeKey takes 1-element arrays and exact numeric conversions, rejects the rest', () => {
    assert.equal(stringOps.normalizeKey(['k']), 'k');
    assert.equal(longOps.normalizeKey(5), 5n);
    assert.equal(longOps.normalizeKey([INT64_MAX]), INT64_MAX);
    const msOps = rowKeyOps(schemaOf([key('t', 'TIMESTAMP')]));
    assert.equal(msOps.normalizeKey(1000n), 1000);
    assert.ok(Object.is(msOps.normalizeKey(-0), 0));
    const mixed = ['a', 2n, 3] as unknown as KeyValue[];
    assert.deepStrictEqual(compositeOps.normalizeKey(mixed), ['a', 2, 3n]);
    const rejects = (ops: typeof stringOps, value: unknown, code: string) =>
      assert.throws(() => ops.normalizeKey(value as RowKey),
        (error) => isStorageError(error) && error.code === code);
    rejects(stringOps, 5, 'TYPE_MISMATCH');
    rejects(stringOps, ['a', 'b'], 'KEY_REQUIRED');
    rejects(longOps, 1.5, 'TYPE_MISMATCH');
    rejects(longOps, null, 'TYPE_MISMATCH');
    rejects(msOps, 2n ** 60n, 'VALUE_OUT_OF_RANGE');
    rejects(compositeOps, 'a', 'KEY_REQUIRED');
    rejects(compositeOps, ['a', 1], 'KEY_REQUIRED');
  });

  it('a keyless collection is keyed by rowId', () => {
    const ops = rowKeyOps(schemaOf([], 0));
    assert.equal(ops.columnCount, 0);
    assert.ok(ops.compare(1, 2) < 0);
    assert.equal(ops.normalizeKey([7]), 7);
    assert.throws(() => ops.normalizeKey(-1), (error) => isStorageError(error, 'TYPE_MISMATCH'));
    assert.throws(() => ops.keyOf([1.5]));
  });
});
