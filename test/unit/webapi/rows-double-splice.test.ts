// Pages with DOUBLE columns written with the native formatter (lib/webapi/codec/rows-double-
// splice.ts) are the very text, and the same estimated size, that the value-by-value encoder
// writes: every double (the shortest round trip, exponents both ways, subnormals, -0, NaN and the
// infinities), beside timestamps, integers, booleans and nulls. And the native path is taken: a
// page of doubles gives a different call count to the addon than a page without.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { doubleText } from '../../../lib/io/double-text.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import { ValueEncoder } from '../../../lib/webapi/codec/value-encode.ts';
import { splicedRowsText } from '../../../lib/webapi/codec/rows-double-splice.ts';
import { TIME_ZONE_UTC } from '../../../lib/webapi/config/time-zone.ts';

const COLUMNS: ColumnSchema[] = [
  { name: 'ts', type: 'TIMESTAMP' }, { name: 'a', type: 'DOUBLE' }, { name: 'n', type: 'INTEGER' },
  { name: 'b', type: 'BOOL' }, { name: 'd', type: 'DOUBLE' },
] as ColumnSchema[];

const double = fc.oneof(fc.double(), fc.constantFrom(-0, 0, NaN, Infinity, -Infinity, 5e-324,
  1e21, 1e-7, 123456789012345680000, 0.1 + 0.2, -1.7976931348623157e308));
const row = fc.tuple(
  fc.option(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 })),
  fc.option(double), fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
  fc.option(fc.boolean()), double);

describe('rows with DOUBLE columns, native text', { skip: doubleText?.spliceJsonDoubles === undefined
  ? 'the double_text addon is not built (npm run build:native)' : false }, () => {
  it('writes the text and size the value-by-value encoder writes', () => {
    fc.assert(fc.property(fc.array(row, { maxLength: 40 }), (rows) => {
      const native = new ValueEncoder(TIME_ZONE_UTC);
      const plain = new ValueEncoder(TIME_ZONE_UTC, null);
      const text = native.rows(COLUMNS, rows as Row[]);
      assert.equal(text, plain.rows(COLUMNS, rows as Row[]));
      assert.equal(native.sizeBytes, plain.sizeBytes);
    }), { numRuns: 300 });
  });

  it('takes the native path for pages of 8 doubles or more only', () => {
    const rows = Array.from({ length: 4 }, () => [0, 1.5, 1, true, 0.1]) as Row[];
    assert.notEqual(splicedRowsText(COLUMNS, rows, TIME_ZONE_UTC, doubleText), undefined);
    assert.equal(splicedRowsText(COLUMNS, rows, TIME_ZONE_UTC, undefined), undefined);
    assert.equal(splicedRowsText(COLUMNS, rows, { kind: 'offset', offsetMinutes: 60 },
      doubleText), undefined);
    const strings = [...COLUMNS, { name: 's', type: 'STRING' }] as ColumnSchema[];
    assert.equal(splicedRowsText(strings, rows.map((r) => [...r, 'x']), TIME_ZONE_UTC,
      doubleText), undefined);
    // An aggregate's one double, or a page of a few, is written faster by V8 than by the splice.
    assert.equal(splicedRowsText(COLUMNS, rows.slice(0, 3), TIME_ZONE_UTC, doubleText), undefined);
    const aggregate = [{ name: 'aggregationResult', type: 'DOUBLE' }] as ColumnSchema[];
    assert.equal(splicedRowsText(aggregate, [[0.1]] as Row[], TIME_ZONE_UTC, doubleText),
      undefined);
    assert.equal(new ValueEncoder(TIME_ZONE_UTC).rows(aggregate, [[0.1 + 0.2]] as Row[]),
      '[[0.30000000000000004]]');
  });
});
