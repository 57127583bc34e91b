// Pages written from the node's bytes (lib/webapi/codec/rows-wire-json.ts) are the very text, and
// the same estimated size, that the decoded rows give through the web API's encoder: random pages
// of every type it takes, NULLs, edge doubles, timestamps to 9999-12-31, several pages in one
// answer. Which columns it takes, and malformed pages as PROTOCOL_ERROR.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import { doubleText } from '../../../lib/io/double-text.ts';
import { TIMESTAMP_MS_MAX, type Row, type Value } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { rowsWireJson, rowsWireJsonFits } from '../../../lib/webapi/codec/rows-wire-json.ts';
import { ValueEncoder } from '../../../lib/webapi/codec/value-encode.ts';
import { TIME_ZONE_UTC, type TimeZone } from '../../../lib/webapi/config/time-zone.ts';

const TYPES = ['BOOL', 'BYTE', 'SHORT', 'INTEGER', 'DOUBLE', 'TIMESTAMP'] as const;
const DOUBLE = fc.oneof(fc.double(), fc.constantFrom(-0, 0, NaN, Infinity, -Infinity, 5e-324, 1e21,
  1e-7, 0.1 + 0.2, -1.7976931348623157e308), fc.integer().map((n) => n / 1000));

function scalarOf(type: string): fc.Arbitrary<Value> {
  switch (type) {
    case 'BOOL': return fc.boolean();
    case 'BYTE': return fc.integer({ min: -128, max: 127 });
    case 'SHORT': return fc.integer({ min: -32768, max: 32767 });
    case 'INTEGER': return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'DOUBLE': return DOUBLE;
    default: return fc.oneof(fc.integer({ min: 0, max: TIMESTAMP_MS_MAX }),
      fc.constantFrom(0, 999, 1_451_606_400_000, TIMESTAMP_MS_MAX));
  }
}

// The first column is a DOUBLE, so every table has one (the only tables the path takes).
const TABLE = fc.array(fc.tuple(fc.constantFrom(...TYPES), fc.boolean()), { maxLength: 12 })
  .map((specs) => [['DOUBLE', false] as const, ...specs].map(([type, notNull], i): ColumnSchema => ({
    name: `c${i}`, type, array: false, notNull,
  })))
  .chain((columns) => fc.record({
    columns: fc.constant(columns),
    pages: fc.array(fc.array(fc.tuple(...columns.map((column) =>
      column.notNull ? scalarOf(column.type) : fc.option(scalarOf(column.type), { nil: null, freq: 4 }))),
    { maxLength: 12 }), { minLength: 1, maxLength: 3 }),
  }, { noNullPrototype: true }));

function encoded(columns: ColumnSchema[], rows: readonly Row[]): Uint8Array {
  const schema = { name: 'c', type: 'COLLECTION', columns, rowKeyColumnCount: 0, schemaVersion: 1 } as
    unknown as ContainerSchema;
  const writer = new ByteWriter(64);
  rowCodec(schema, 'wire').writeRows(writer, rows);
  return writer.finish();
}

const COLUMNS = [{ name: 'ts', type: 'TIMESTAMP', array: false, notNull: true },
  { name: 'v', type: 'DOUBLE', array: false, notNull: false }] as ColumnSchema[];

describe('rows written from the wire bytes', { skip: doubleText?.spliceJsonDoubles === undefined
  ? 'the double_text addon is not built (npm run build:native)' : false }, () => {
  it('writes the text and size of the decoded rows through ValueEncoder', () => {
    fc.assert(fc.property(TABLE, ({ columns, pages }) => {
      const wire = pages.map((rows) => ({ count: rows.length, bytes: encoded(columns, rows as Row[]) }));
      const plain = new ValueEncoder(TIME_ZONE_UTC, null);
      const expected = plain.rows(columns, pages.flat() as Row[]);
      const written = rowsWireJson(columns, wire, doubleText!);
      assert.equal(written.bytes.toString('latin1'), expected);
      assert.equal(written.sizeBytes, plain.sizeBytes);
    }), { numRuns: 400 });
  });

  it('takes only pages with a DOUBLE, of fixed-size columns, in UTC, TIMESTAMP in ms', () => {
    const zone: TimeZone = { kind: 'offset', offsetMinutes: 60 };
    assert.equal(rowsWireJsonFits(COLUMNS, TIME_ZONE_UTC, doubleText), true);
    assert.equal(rowsWireJsonFits(COLUMNS, zone, doubleText), false);
    assert.equal(rowsWireJsonFits(COLUMNS, TIME_ZONE_UTC, undefined), false);
    assert.equal(rowsWireJsonFits([COLUMNS[0]!], TIME_ZONE_UTC, doubleText), false);
    for (const column of [{ name: 's', type: 'STRING' }, { name: 'l', type: 'LONG' },
      { name: 'f', type: 'FLOAT' }, { name: 'a', type: 'DOUBLE', array: true },
      { name: 't', type: 'TIMESTAMP', timePrecision: 'MICROSECOND' }]) {
      assert.equal(rowsWireJsonFits([...COLUMNS, { array: false, notNull: false, ...column } as ColumnSchema],
        TIME_ZONE_UTC, doubleText), false, column.name);
    }
  });

  it('refuses a page that does not hold its rows as PROTOCOL_ERROR', () => {
    const bytes = encoded(COLUMNS, [[1000, 1.5], [2000, null]]);
    const isProtocol = (error: unknown) => isStorageError(error, 'PROTOCOL_ERROR');
    assert.throws(() => rowsWireJson(COLUMNS, [{ count: 3, bytes }], doubleText!), isProtocol);
    assert.throws(() => rowsWireJson(COLUMNS, [{ count: 1, bytes }], doubleText!), isProtocol);
    assert.throws(() => rowsWireJson(COLUMNS, [{ count: 2, bytes: bytes.subarray(0, bytes.length - 1) }],
      doubleText!), isProtocol);
    assert.equal(rowsWireJson(COLUMNS, [{ count: 2, bytes }], doubleText!).bytes.toString('latin1'),
      '[["1970-01-01T00:00:01.000Z",1.5],["1970-01-01T00:00:02.000Z",null]]');
  });
});
