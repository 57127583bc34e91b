// Binary DataRows written from a page's wire bytes are byte for byte those writeDataRows writes in
// binary format for the decoded rows (pgBinaryOf, the general path), for random tables of every
// type taken, NULLs, NaN, -0, ±Infinity and timestamps from 1970 to 9999 in ms, µs and ns; pages
// that do not hold their rows are refused; and which columns and formats are taken.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { pgDataRowsBinaryFits, pgDataRowsBinaryOfWire } from '../../../lib/pgwire/pg-data-rows-binary.ts';
import { TIMESTAMP_MS_MAX, TIMESTAMP_NS_MAX, TIMESTAMP_US_MAX, type Row, type Value } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import type { SqlType } from '../../../lib/sql/value.ts';
import { generalDataRows, wireBytes } from './pg-wire-pages.ts';

type Taken = 'BOOL' | 'BYTE' | 'SHORT' | 'INTEGER' | 'LONG' | 'FLOAT' | 'DOUBLE' | 'TIMESTAMP' | 'TIMESTAMP(6)' |
  'TIMESTAMP(9)' | 'STRING' | 'BLOB';
const TAKEN: Taken[] = ['BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'FLOAT', 'DOUBLE', 'TIMESTAMP', 'TIMESTAMP(6)',
  'TIMESTAMP(9)', 'STRING', 'BLOB'];
/** 2000-01-01, where PostgreSQL's times turn sign. */
const PG_EPOCH_MS = 946_684_800_000;

function valueOf(type: Taken): fc.Arbitrary<Value> {
  switch (type) {
    case 'BOOL': return fc.boolean();
    case 'BYTE': return fc.integer({ min: -128, max: 127 });
    case 'SHORT': return fc.integer({ min: -32768, max: 32767 });
    case 'INTEGER': return fc.integer({ min: -2147483648, max: 2147483647 });
    case 'LONG': return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'FLOAT': return fc.oneof(fc.float(), fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1.5));
    case 'DOUBLE': return fc.oneof(fc.double(), fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 5e-324,
      -1.7976931348623157e308, 43.21890547857493));
    case 'TIMESTAMP': return fc.oneof(fc.integer({ min: 0, max: TIMESTAMP_MS_MAX }),
      fc.constantFrom(0, 1, TIMESTAMP_MS_MAX, PG_EPOCH_MS - 1, PG_EPOCH_MS, PG_EPOCH_MS + 1, 2 ** 32 - 1, 2 ** 32,
        1_451_606_400_007));
    case 'TIMESTAMP(6)': return fc.oneof(fc.bigInt({ min: 0n, max: TIMESTAMP_US_MAX }),
      fc.constantFrom(0n, TIMESTAMP_US_MAX, BigInt(PG_EPOCH_MS) * 1000n - 1n, BigInt(PG_EPOCH_MS) * 1000n, 2n ** 53n + 1n));
    case 'TIMESTAMP(9)': return fc.oneof(fc.bigInt({ min: 0n, max: TIMESTAMP_NS_MAX }),
      fc.constantFrom(0n, 999n, TIMESTAMP_NS_MAX, BigInt(PG_EPOCH_MS) * 1_000_000n - 1n, BigInt(PG_EPOCH_MS) * 1_000_000n));
    case 'STRING': return fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\t', '\\', '"', 'x'), maxLength: 150 });
    case 'BLOB': return fc.uint8Array({ maxLength: 200 });
  }
}

function columnOf(type: Taken, i: number): ColumnSchema {
  const column: ColumnSchema = { name: `c${i}`, type: type.startsWith('TIMESTAMP') ? 'TIMESTAMP' : type as ColumnSchema['type'],
    array: false, notNull: false };
  if (type === 'TIMESTAMP(6)') return { ...column, timePrecision: 'MICROSECOND' };
  if (type === 'TIMESTAMP(9)') return { ...column, timePrecision: 'NANOSECOND' };
  return column;
}

const table = fc.array(fc.constantFrom(...TAKEN), { minLength: 1, maxLength: 12 }).chain((types) => fc.record({
  types: fc.constant(types),
  rows: fc.array(fc.tuple(...types.map((type) => fc.option(valueOf(type), { nil: null, freq: 6 }))),
    { maxLength: 150 }),
}, { noNullPrototype: true }));


describe('pg-data-rows-binary', () => {
  it('writes the bytes writeDataRows writes in binary format for the decoded rows', () => {
    fc.assert(fc.property(table, ({ types, rows }) => {
      const columns = types.map(columnOf);
      const bytes = wireBytes(columns, rows as Row[]);
      const general = generalDataRows(types, columns, bytes, rows.length, 1);
      assert.ok(pgDataRowsBinaryFits(types, columns, types.map(() => 1)));
      const written = pgDataRowsBinaryOfWire(types, { count: rows.length, bytes });
      assert.deepEqual(written, general);
    }), { numRuns: 400 });
  });

  it('writes a TIMESTAMP as PostgreSQL\'s µs since 2000 and a DOUBLE as its big-endian bits', () => {
    const columns = [columnOf('TIMESTAMP', 0), columnOf('DOUBLE', 1)];
    const bytes = wireBytes(columns, [[PG_EPOCH_MS - 1, -0], [TIMESTAMP_MS_MAX, 1.5]]);
    const out = pgDataRowsBinaryOfWire(['TIMESTAMP', 'DOUBLE'], { count: 2, bytes });
    assert.equal(out.readBigInt64BE(11), -1000n);
    assert.equal(out.readDoubleBE(23), -0);
    assert.ok(Object.is(out.readDoubleBE(23), -0));
    assert.equal(out.readBigInt64BE(42), (BigInt(TIMESTAMP_MS_MAX) - BigInt(PG_EPOCH_MS)) * 1000n);
    assert.equal(out.readDoubleBE(54), 1.5);
  });

  it('refuses a page that does not hold its rows, as RowBatch.decode does', () => {
    const columns = [columnOf('STRING', 0), columnOf('DOUBLE', 1)];
    const bytes = wireBytes(columns, [['abc', 1.5], [null, 2.5]]);
    assert.throws(() => pgDataRowsBinaryOfWire(['STRING', 'DOUBLE'], { count: 2, bytes: bytes.subarray(0, bytes.length - 1) }),
      { code: 'PROTOCOL_ERROR' });
    assert.throws(() => pgDataRowsBinaryOfWire(['STRING', 'DOUBLE'], { count: 1, bytes }), { code: 'PROTOCOL_ERROR' });
    assert.throws(() => pgDataRowsBinaryOfWire(['STRING', 'DOUBLE'], { count: 3, bytes }), { code: 'PROTOCOL_ERROR' });
  });

  it('takes binary-format columns of its types only', () => {
    const columns = [columnOf('DOUBLE', 0), columnOf('TIMESTAMP', 1)];
    const types: SqlType[] = ['DOUBLE', 'TIMESTAMP'];
    assert.ok(pgDataRowsBinaryFits(types, columns, [1, 1]));
    assert.ok(!pgDataRowsBinaryFits(types, columns, [1, 0]), 'a text column');
    assert.ok(!pgDataRowsBinaryFits(types, columns, [0, 0]), 'text');
    assert.ok(!pgDataRowsBinaryFits(['DOUBLE', 'TIMESTAMP(6)'], columns, [1, 1]), 'a precision not the column\'s');
    assert.ok(pgDataRowsBinaryFits(['TIMESTAMP(9)'], [columnOf('TIMESTAMP(9)', 0)], [1]));
    assert.ok(!pgDataRowsBinaryFits(['GEOMETRY' as SqlType], [{ ...columns[0]!, type: 'GEOMETRY' }], [1]), 'GEOMETRY');
    assert.ok(!pgDataRowsBinaryFits(['DOUBLE'], [{ ...columns[0]!, array: true }], [1]), 'an array');
    assert.ok(!pgDataRowsBinaryFits(['STRING'], [columns[0]!], [1]), 'a type not the column\'s');
  });
});
