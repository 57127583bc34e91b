// Random valid container schemas of every column type and canonical rows for them (as
// lib/schema/row-validate.ts returns them), with the extremes that break naive codecs: LONG at
// ±2^63, NaN and -0, empty strings and BLOBs, nanosecond timestamps beyond an i64, nulls. For the
// property tests of the row codec and of what carries rows (result sets, protocol messages, the
// client).

import {
  geometryValueFromWkt, isGeometryValue, type GeometryValue,
} from '../../../lib/geometry/geometry-value.ts';
import fc from 'fast-check';
import { blockSizeLimits } from '../../../lib/base/limits.ts';
import {
  INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_NS_MAX, TIMESTAMP_US_MAX,
  type ColumnType, type Row, type RowKey, type Value,
} from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { validateContainerDefinition } from '../../../lib/schema/schema-validate.ts';

export const limits = blockSizeLimits(64 * 1024);

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
export const schemaArbitrary: fc.Arbitrary<ContainerSchema> = fc.record({
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
export const textArbitrary = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary-ascii', maxLength: 100 }),
  fc.constantFrom('', '😀', '\uFEFF', 'é', 'a'.repeat(42), '€'.repeat(43), '𝄞x', 'a'.repeat(200)),
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
    case 'STRING': return textArbitrary;
    // Canonical GEOMETRY is its binary form (the validator parses WKT into a GeometryValue).
    case 'GEOMETRY': return fc.constantFrom('POINT(1 2)', 'POLYGON((0 0,1 0,1 1,0 0))',
      'POINT(EMPTY)', 'LINESTRING(0 0 0,1.5 -2 3e+20)', 'POINT(1 2;4326)')
      .map((wkt) => geometryValueFromWkt(wkt) as GeometryValue);
    case 'BLOB': return fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.constant(new Uint8Array(0)));
  }
}

function valueArbitrary(column: ColumnSchema, isKey: boolean): fc.Arbitrary<Value> {
  const value = column.array
    ? fc.array(scalarArbitrary(column), { maxLength: 6 }) as fc.Arbitrary<Value>
    : scalarArbitrary(column);
  return column.notNull || isKey ? value : fc.option(value, { nil: null, freq: 3 });
}

export const rowsArbitrary = (
  schema: ContainerSchema,
  maxLength = 5,
): fc.Arbitrary<Row[]> => fc.array(
  fc.tuple(...schema.columns.map((c, i) => valueArbitrary(c, i < schema.rowKeyColumnCount))),
  { maxLength },
) as fc.Arbitrary<Row[]>;

export const schemaAndRows = schemaArbitrary.chain((schema) =>
  rowsArbitrary(schema).map((rows) => ({ schema, rows })));

export function keysOf(schema: ContainerSchema, rows: readonly Row[]): RowKey[] {
  const n = schema.rowKeyColumnCount;
  return rows.map((row) => (n === 1 ? row[0] : row.slice(0, n)) as RowKey);
}

/** Rows as the wire form reads them (row-codec.ts 'wire'): a GEOMETRY is its WKT text. */
export function wireRows(rows: readonly Row[]): Row[] {
  return rows.map((row) => row.map((value) => (isGeometryValue(value) ? value.wkt : value)));
}
