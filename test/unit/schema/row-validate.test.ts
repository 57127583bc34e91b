import {
  geometryValueFromWkt, isGeometryValue, type GeometryValue,
} from '../../../lib/geometry/geometry-value.ts';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError, isStorageError, type StorageErrorCode } from '../../../lib/base/errors.ts';
import { BLOB_SIZE_BYTES_MAX, blockSizeLimits } from '../../../lib/base/limits.ts';
import {
  TIMESTAMP_MS_MAX, TIMESTAMP_NS_MAX, TIMESTAMP_US_MAX,
} from '../../../lib/schema/column-type.ts';
import { keyValidator, rowValidator, validateRow } from '../../../lib/schema/row-validate.ts';
import { validateContainerDefinition } from '../../../lib/schema/schema-validate.ts';

const limits = blockSizeLimits(64 * 1024);

function code(expected: StorageErrorCode, pattern?: RegExp) {
  return (error: unknown) => {
    assert.ok(isStorageError(error), `expected a StorageError, got ${String(error)}`);
    assert.equal(error.code, expected, error.message);
    if (pattern !== undefined) assert.match(error.message, pattern);
    return true;
  };
}

/** One column of each type after a STRING key, all nullable. */
const everything = validateContainerDefinition({
  name: 'all', type: 'COLLECTION', rowKey: true,
  columns: [
    { name: 'id', type: 'STRING' },
    { name: 'b', type: 'BOOL' }, { name: 'i8', type: 'BYTE' }, { name: 'i16', type: 'SHORT' },
    { name: 'i32', type: 'INTEGER' }, { name: 'i64', type: 'LONG' }, { name: 'f', type: 'FLOAT' },
    { name: 'd', type: 'DOUBLE' }, { name: 'ms', type: 'TIMESTAMP' },
    { name: 'us', type: 'TIMESTAMP(6)' }, { name: 'ns', type: 'TIMESTAMP(9)' },
    { name: 'g', type: 'GEOMETRY' }, { name: 'blob', type: 'BLOB' },
    { name: 'xs', type: 'INTEGER_ARRAY' }, { name: 'ls', type: 'LONG_ARRAY' },
    { name: 'req', type: 'DOUBLE', notNull: true },
  ],
}, limits);
const COLUMN = Object.fromEntries(everything.columns.map((c, i) => [c.name, i]));
const validate = rowValidator(everything, limits);

function rowWith(name: string, value: unknown): unknown[] {
  const row: unknown[] = everything.columns.map(() => null);
  row[0] = 'key';
  row[COLUMN.req!] = 1.5;
  row[COLUMN[name]!] = value;
  return row;
}

const accepts = (name: string, value: unknown) => validate(rowWith(name, value))[COLUMN[name]!];
const refuses = (name: string, value: unknown, expected: StorageErrorCode, pattern?: RegExp) =>
  assert.throws(() => validate(rowWith(name, value)), code(expected, pattern), name);

describe('rowValidator: canonical values pass unchanged', () => {
  it('returns the same array, values untouched', () => {
    const row = ['k', true, -128, 32767, -(2 ** 31), -(2n ** 63n), Math.fround(1.1), -0,
      TIMESTAMP_MS_MAX, TIMESTAMP_US_MAX, TIMESTAMP_NS_MAX, geometryValueFromWkt('POINT(1 2)'),
      new Uint8Array([1]),
      [1, -2], [2n ** 63n - 1n], NaN];
    const copy = [...row];
    assert.equal(validate(row), row);
    assert.deepEqual(row, copy);
  });

  it('floats: NaN, ±Infinity and -0 are values', () => {
    for (const value of [NaN, Infinity, -Infinity, -0]) {
      assert.ok(Object.is(accepts('d', value), value));
      assert.ok(Object.is(accepts('f', value), value));
    }
  });

  it('empty strings, empty BLOBs, empty arrays, astral characters', () => {
    assert.equal(validate(['', ...rowWith('b', null).slice(1)])[0], '');
    assert.deepEqual(accepts('blob', new Uint8Array()), new Uint8Array());
    assert.deepEqual(accepts('xs', []), []);
    assert.equal(validate(['😀é\uFEFF', ...rowWith('b', null).slice(1)])[0], '😀é\uFEFF');
  });
});

describe('rowValidator: normalisation', () => {
  it('FLOAT is rounded with Math.fround', () => {
    assert.equal(accepts('f', 0.1), Math.fround(0.1));
    assert.equal(accepts('f', 3.4028235e38), Math.fround(3.4028235e38));
  });

  it('LONG and µs/ns timestamps take safe integer numbers as bigint', () => {
    assert.equal(accepts('i64', 42), 42n);
    assert.equal(accepts('i64', -(2 ** 53) + 1), -(2n ** 53n) + 1n);
    assert.equal(accepts('us', 5), 5n);
    assert.equal(accepts('ns', 0), 0n);
  });

  it('a Date is taken by every TIMESTAMP precision', () => {
    const date = new Date('2024-05-20T12:34:56.789Z');
    assert.equal(accepts('ms', date), date.getTime());
    assert.equal(accepts('us', date), BigInt(date.getTime()) * 1000n);
    assert.equal(accepts('ns', date), BigInt(date.getTime()) * 1_000_000n);
  });

  it('-0 in integer and ms timestamp columns becomes 0', () => {
    for (const name of ['i8', 'i16', 'i32', 'ms']) assert.ok(Object.is(accepts(name, -0), 0));
  });

  it('a Buffer becomes a plain Uint8Array over the same bytes', () => {
    const value = accepts('blob', Buffer.from([1, 2, 3])) as Uint8Array;
    assert.equal(Object.getPrototypeOf(value), Uint8Array.prototype);
    assert.deepEqual(value, new Uint8Array([1, 2, 3]));
  });

  it('array elements are normalised too, and a frozen row is copied, not written', () => {
    const row = Object.freeze(rowWith('ls', Object.freeze([1, 2n])));
    const result = validate(row);
    assert.notEqual(result, row);
    assert.deepEqual(result[COLUMN.ls!], [1n, 2n]);
  });

  it('validateRow caches one validator per schema', () => {
    const row = rowWith('f', 0.1);
    assert.equal(validateRow(everything, row, limits)[COLUMN.f!], Math.fround(0.1));
  });
});

describe('rowValidator: refusals', () => {
  it('not an array of exactly columns.length values is ROW_INVALID', () => {
    const short = rowWith('b', null).slice(1);
    const long = [...rowWith('b', null), 1];
    for (const row of [null, undefined, {}, 'x', short, long]) {
      assert.throws(() => validate(row), code('ROW_INVALID'));
    }
  });

  it('wrong types are TYPE_MISMATCH with container, column and value in the message', () => {
    refuses('d', 'abc', 'TYPE_MISMATCH',
      /^column "d" of "all": expected DOUBLE, got string "abc"$/);
    refuses('b', 1, 'TYPE_MISMATCH');
    refuses('b', undefined, 'TYPE_MISMATCH', /got undefined/);
    refuses('i32', 1.5, 'TYPE_MISMATCH');
    refuses('i32', '1', 'TYPE_MISMATCH');
    refuses('i32', 1n, 'TYPE_MISMATCH');
    refuses('i8', NaN, 'TYPE_MISMATCH');
    refuses('i64', 1.5, 'TYPE_MISMATCH');
    refuses('i64', 2 ** 60, 'TYPE_MISMATCH', /bigint/);
    refuses('f', 1n, 'TYPE_MISMATCH');
    refuses('ms', 1.5, 'TYPE_MISMATCH');
    refuses('ms', 1n, 'TYPE_MISMATCH');
    refuses('ms', new Date(NaN), 'TYPE_MISMATCH', /invalid Date/);
    refuses('ms', '2024-01-01T00:00:00Z', 'TYPE_MISMATCH');
    refuses('us', 1.5, 'TYPE_MISMATCH');
    refuses('g', 5, 'TYPE_MISMATCH');
    refuses('blob', [1, 2], 'TYPE_MISMATCH');
    refuses('blob', new Int8Array(2), 'TYPE_MISMATCH');
    refuses('xs', 5, 'TYPE_MISMATCH', /INTEGER_ARRAY/);
    refuses('xs', [1, 'a'], 'TYPE_MISMATCH', /element 1/);
    refuses('xs', [1, undefined], 'TYPE_MISMATCH');
  });

  it('numbers out of range are VALUE_OUT_OF_RANGE', () => {
    refuses('i8', 128, 'VALUE_OUT_OF_RANGE', /-128\.\.127/);
    refuses('i8', -129, 'VALUE_OUT_OF_RANGE');
    refuses('i16', 32768, 'VALUE_OUT_OF_RANGE');
    refuses('i32', 2 ** 31, 'VALUE_OUT_OF_RANGE');
    refuses('i64', 2n ** 63n, 'VALUE_OUT_OF_RANGE');
    refuses('i64', -(2n ** 63n) - 1n, 'VALUE_OUT_OF_RANGE');
    refuses('f', 1e39, 'VALUE_OUT_OF_RANGE', /FLOAT/);
    refuses('ms', -1, 'VALUE_OUT_OF_RANGE');
    refuses('ms', TIMESTAMP_MS_MAX + 1, 'VALUE_OUT_OF_RANGE');
    refuses('ms', new Date(-1), 'VALUE_OUT_OF_RANGE');
    refuses('us', TIMESTAMP_US_MAX + 1n, 'VALUE_OUT_OF_RANGE');
    refuses('ns', -1n, 'VALUE_OUT_OF_RANGE');
    refuses('xs', [1, 2 ** 31], 'VALUE_OUT_OF_RANGE', /element 1/);
  });

  it('strings: U+0000 and lone surrogates are refused, size limits in UTF-8 bytes', () => {
    const withKey = (key: unknown) => [key, ...rowWith('b', null).slice(1)];
    assert.throws(() => validate(withKey('a\0b')), code('VALUE_OUT_OF_RANGE', /U\+0000/));
    assert.throws(() => validate(withKey('a\uD800')), code('VALUE_OUT_OF_RANGE', /surrogate/));
    const max = limits.stringSizeBytesMax;
    assert.equal(validate(withKey('a'.repeat(max)))[0], 'a'.repeat(max));
    assert.throws(() => validate(withKey('a'.repeat(max + 1))), code('LIMIT_EXCEEDED'));
    const threeByte = '€'.repeat(Math.floor(max / 3));
    assert.equal(validate(withKey(threeByte))[0], threeByte);
    assert.throws(() => validate(withKey(`${threeByte}€`)), code('LIMIT_EXCEEDED', /bytes/));
    refuses('g', '', 'VALUE_OUT_OF_RANGE', /empty/);
    refuses('g', 'x'.repeat(max + 1), 'LIMIT_EXCEEDED');
  });

  it('arrays: length limit, NULL elements', () => {
    refuses('xs', Array(limits.arrayLengthMax + 1).fill(1), 'LIMIT_EXCEEDED');
    assert.equal((accepts('xs', Array(limits.arrayLengthMax).fill(1)) as number[]).length, 4000);
    refuses('xs', [1, null], 'NULL_NOT_ALLOWED', /element 1/);
  });

  it('BLOB size limit', () => {
    const huge = { byteLength: BLOB_SIZE_BYTES_MAX + 1 };
    Object.setPrototypeOf(huge, Uint8Array.prototype);
    refuses('blob', huge, 'LIMIT_EXCEEDED');
  });

  it('NULL: NOT NULL column → NULL_NOT_ALLOWED, key column → KEY_REQUIRED', () => {
    refuses('req', null, 'NULL_NOT_ALLOWED', /"req"/);
    assert.throws(() => validate(rowWith('id', null)), code('KEY_REQUIRED', /"id"/));
  });

  it('GEOMETRY: WKT is parsed into its binary form, printed as GridDB does; bad WKT and QSF are refused', () => {
    const wkt = (value: unknown) => (value as GeometryValue).wkt;
    assert.equal(wkt(accepts('g', ' point ( 1.50 2 ;4326 ) ')), 'POINT(1.5 2;4326)');
    assert.equal(wkt(accepts('g', 'polygon((0 0, 1 0, 1 1, 0 0))')), 'POLYGON((0 0,1 0,1 1,0 0))');
    assert.equal(wkt(accepts('g', 'LINESTRING EMPTY')), 'LINESTRING(EMPTY)');
    assert.ok(isGeometryValue(accepts('g', 'POINT(1 2)')));
    refuses('g', geometryValueFromWkt('QUADRATICSURFACE(1 0 0 0 1 0 0 0 1 0 0 0 -1)'),
      'VALUE_OUT_OF_RANGE', /QUADRATICSURFACE/);
    refuses('g', 'CIRCLE(1)', 'VALUE_OUT_OF_RANGE', /"g".*not a GEOMETRY: invalid WKT at character 1/);
    refuses('g', 'POINT(1 NaN)', 'VALUE_OUT_OF_RANGE', /NaN and INF/);
    refuses('g', 'POLYGON((0 0,1 0,1 1,0 1))', 'VALUE_OUT_OF_RANGE', /closed ring/);
    refuses('g', 'QUADRATICSURFACE(1 0 0 0 1 0 0 0 1 0 0 0 -1)', 'VALUE_OUT_OF_RANGE',
      /cannot be stored/);
  });

  it('anything at all is a row or a StorageError', () => {
    fc.assert(fc.property(fc.array(fc.anything(), { minLength: 16, maxLength: 16 }), (row) => {
      try {
        validate(row);
      } catch (error) {
        assert.ok(error instanceof StorageError, String(error));
      }
    }), { numRuns: 1000 });
  });
});

describe('keyValidator', () => {
  const composite = validateContainerDefinition({
    name: 'k', type: 'COLLECTION', rowKey: 3,
    columns: [{ name: 'a', type: 'STRING' }, { name: 'b', type: 'LONG' },
      { name: 'c', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE' }],
  }, limits);

  it('a single key is a value or a one-element array', () => {
    const key = keyValidator(everything);
    assert.equal(key('abc'), 'abc');
    assert.equal(key(['abc']), 'abc');
    assert.throws(() => key(null), code('KEY_REQUIRED'));
    assert.throws(() => key(['a', 'b']), code('TYPE_MISMATCH'));
    assert.throws(() => key(1), code('TYPE_MISMATCH'));
    assert.throws(() => key('a\0'), code('VALUE_OUT_OF_RANGE'));
  });

  it('a composite key is an array of canonical values, a new array', () => {
    const key = keyValidator(composite);
    const input = ['x', 5, new Date(7)];
    assert.deepEqual(key(input), ['x', 5n, 7]);
    assert.deepEqual(input, ['x', 5, new Date(7)]);
    assert.throws(() => key(['x', 5n]), code('ROW_INVALID'));
    assert.throws(() => key('x'), code('ROW_INVALID'));
    assert.throws(() => key(['x', null, 1]), code('KEY_REQUIRED'));
    assert.throws(() => key(['x', 1.5, 1]), code('TYPE_MISMATCH'));
  });

  it('a container without a row key refuses every key with KEY_REQUIRED', () => {
    const keyless = validateContainerDefinition({ name: 'n', type: 'COLLECTION',
      columns: [{ name: 'v', type: 'DOUBLE' }] }, limits);
    assert.throws(() => keyValidator(keyless)(1), code('KEY_REQUIRED'));
  });
});
