// DataRows written from a page's wire bytes are byte for byte those writeDataRows writes for the
// decoded rows (the old path), for random tables of every type taken, NULLs, edge values, pages
// below and above the native formatter's threshold; and which columns and formats are taken.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { doubleText, doubleTextSupport, type DoubleTextAddon } from '../../../lib/io/double-text.ts';
import { pgDataRowsOfWire, pgDataRowsWireFits } from '../../../lib/pgwire/pg-data-rows-wire.ts';
import { TIMESTAMP_MS_MAX, type Row, type Value } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import { generalDataRows, wireBytes } from './pg-wire-pages.ts';

type Taken = 'BOOL' | 'BYTE' | 'SHORT' | 'INTEGER' | 'LONG' | 'DOUBLE' | 'TIMESTAMP' | 'STRING';
const TAKEN: Taken[] = ['BOOL', 'BYTE', 'SHORT', 'INTEGER', 'LONG', 'DOUBLE', 'TIMESTAMP', 'STRING'];

function valueOf(type: Taken): fc.Arbitrary<Value> {
  switch (type) {
    case 'BOOL': return fc.boolean();
    case 'BYTE': return fc.integer({ min: -128, max: 127 });
    case 'SHORT': return fc.integer({ min: -32768, max: 32767 });
    case 'INTEGER': return fc.integer({ min: -2147483648, max: 2147483647 });
    case 'LONG': return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'DOUBLE': return fc.oneof(fc.double(), fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1e21, 5e-324,
      -1.7976931348623157e308, 0.1 + 0.2, 43.21890547857493));
    case 'TIMESTAMP': return fc.oneof(fc.integer({ min: 0, max: TIMESTAMP_MS_MAX }),
      fc.constantFrom(0, TIMESTAMP_MS_MAX, 1_451_606_400_000, 1_451_606_400_500, 1_451_606_400_120, 1_451_606_400_007),
      // many rows of few days, as a scan has them
      fc.integer({ min: 0, max: 3 * 86_400_000 }).map((ms) => 1_451_606_400_000 + ms));
    case 'STRING': return fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\t', '\\', '"', 'x'), maxLength: 12 });
  }
}

const table = fc.array(fc.constantFrom(...TAKEN), { minLength: 1, maxLength: 12 }).chain((types) => fc.record({
  types: fc.constant(types),
  rows: fc.array(fc.tuple(...types.map((type) => fc.option(valueOf(type), { nil: null, freq: 6 }))),
    { maxLength: 150 }),
}, { noNullPrototype: true }));

function columnsOf(types: readonly string[]): ColumnSchema[] {
  return types.map((type, i) => ({ name: `c${i}`, type: type as ColumnSchema['type'], array: false, notNull: false }));
}


/**
 * The two writers: the addon's one call per page (pgTextDataRows), and this file's loop, used with
 * an addon built before that call.
 */
const WRITERS: Array<[string, DoubleTextAddon | undefined]> = [
  ['the native page writer', doubleText],
  ['the loop over the page', doubleText === undefined ? undefined : { spliceDoubles: doubleText.spliceDoubles }],
];

describe('pg-data-rows-wire', { skip: doubleTextSupport.available ? undefined : doubleTextSupport.reason }, () => {
  it('has the native page writer in the addon built here', () => {
    assert.equal(typeof doubleText?.pgTextDataRows, 'function');
  });

  for (const [name, addon] of WRITERS) {
    it(`writes the bytes writeDataRows writes for the decoded rows: ${name}`, () => {
      fc.assert(fc.property(table, ({ types, rows }) => {
        const columns = columnsOf(types);
        const bytes = wireBytes(columns, rows as Row[]);
        const old = generalDataRows(types, columns, bytes, rows.length, 0);
        assert.ok(pgDataRowsWireFits(types, columns, types.map(() => 0)));
        const written = pgDataRowsOfWire(types, { count: rows.length, bytes }, addon);
        assert.deepEqual(written, old);
      }), { numRuns: 300 });
    });

    it(`refuses a page that does not hold its rows, as RowBatch.decode does: ${name}`, () => {
      const columns = columnsOf(['STRING', 'DOUBLE']);
      const bytes = wireBytes(columns, [['abc', 1.5], [null, 2.5]]);
      assert.throws(() => pgDataRowsOfWire(['STRING', 'DOUBLE'], { count: 2, bytes: bytes.subarray(0, bytes.length - 1) },
        addon), { code: 'PROTOCOL_ERROR' });
      assert.throws(() => pgDataRowsOfWire(['STRING', 'DOUBLE'], { count: 1, bytes }, addon), { code: 'PROTOCOL_ERROR' });
      assert.throws(() => pgDataRowsOfWire(['STRING', 'DOUBLE'], { count: 3, bytes }, addon), { code: 'PROTOCOL_ERROR' });
      assert.throws(() => pgDataRowsOfWire(['BOOL'], { count: 1, bytes: Uint8Array.of(0, 2) }, addon),
        { code: 'PROTOCOL_ERROR' });
      // A STRING length whose varuint runs past the page, and one longer than 8 bytes.
      assert.throws(() => pgDataRowsOfWire(['STRING'], { count: 1, bytes: Uint8Array.of(0, 0x80) }, addon),
        { code: 'PROTOCOL_ERROR' });
      assert.throws(() => pgDataRowsOfWire(['STRING'], { count: 1, bytes: Uint8Array.of(0, ...new Array<number>(9).fill(0x80)) },
        addon), { code: 'PROTOCOL_ERROR' });
    });
  }

  it('takes text-format columns of its types only', () => {
    const columns = columnsOf(['DOUBLE', 'TIMESTAMP']);
    assert.ok(pgDataRowsWireFits(['DOUBLE', 'TIMESTAMP'], columns, [0, 0]));
    assert.ok(!pgDataRowsWireFits(['DOUBLE', 'TIMESTAMP'], columns, [0, 1]), 'a binary column');
    assert.ok(!pgDataRowsWireFits(['DOUBLE', 'TIMESTAMP(6)'], columnsOf(['DOUBLE', 'TIMESTAMP']).map((c, i) =>
      (i === 1 ? { ...c, timePrecision: 'MICROSECOND' as const } : c)), [0, 0]), 'a µs timestamp');
    assert.ok(!pgDataRowsWireFits(['FLOAT'], columnsOf(['FLOAT']), [0]), 'FLOAT');
    assert.ok(!pgDataRowsWireFits(['BLOB'], columnsOf(['BLOB']), [0]), 'BLOB');
    assert.ok(!pgDataRowsWireFits(['DOUBLE'], [{ ...columnsOf(['DOUBLE'])[0]!, array: true }], [0]), 'an array');
    assert.ok(!pgDataRowsWireFits(['DOUBLE'], columns.slice(0, 1), [0], false), 'no addon');
  });
});
