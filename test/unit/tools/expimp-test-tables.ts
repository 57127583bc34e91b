// Random tables for the export and import tests (the page printer's, the row scanner's): columns
// of the given types, NULL-able unless flagged (the first column never NULL: a one-column NULL row
// is an empty line), their collection schema, values per type, rows of them, and rows as the
// wire bytes the engine sends (the row codec's 'wire' form). Each suite brings its own DOUBLE and
// TIMESTAMP values (the edges it is about) and strings when it takes them.

import fc from 'fast-check';
import { ByteWriter } from '../../../lib/encoding/byte-writer.ts';
import { rowCodec } from '../../../lib/encoding/row-codec.ts';
import { INT64_MAX, INT64_MIN, type Row, type Value } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';

/** A column's type and whether it is NOT NULL. */
export type ColumnSpec = readonly [ColumnSchema['type'], boolean];

/** The values a suite takes for the types whose edges it tests. */
export interface SuiteValues {
  double: fc.Arbitrary<Value>;
  timestampMs: fc.Arbitrary<Value>;
  text?: fc.Arbitrary<Value>;
}

/** Columns c0, c1, … of `specs`; the first is never NULL. */
export function tableColumns(specs: readonly ColumnSpec[]): ColumnSchema[] {
  return specs.map(([type, notNull], i): ColumnSchema => ({
    name: `c${i}`, type, array: false, notNull: notNull || i === 0,
  }));
}

/** A collection `c` of `columns`. */
export function tableSchema(columns: ColumnSchema[], rowKeyColumnCount = 0): ContainerSchema {
  return {
    name: 'c', type: 'COLLECTION', columns, rowKeyColumnCount, schemaVersion: 1,
  } as unknown as ContainerSchema;
}

/** A value of a scalar column: fixed-size types here, DOUBLE, TIMESTAMP and STRING the suite's. */
export function tableScalarOf(column: ColumnSchema, values: SuiteValues): fc.Arbitrary<Value> {
  switch (column.type) {
    case 'BOOL': return fc.boolean();
    case 'BYTE': return fc.integer({ min: -128, max: 127 });
    case 'SHORT': return fc.integer({ min: -32768, max: 32767 });
    case 'INTEGER': return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'LONG':
      return fc.oneof(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), fc.constantFrom(INT64_MIN, INT64_MAX));
    case 'FLOAT': return fc.oneof(fc.float(), fc.constantFrom(-0, NaN, Infinity)).map(Math.fround);
    case 'DOUBLE': return values.double;
    case 'TIMESTAMP': return values.timestampMs;
    default:
      if (values.text === undefined) throw new Error(`no values given for ${column.type}`);
      return values.text;
  }
}

/** Up to `rowCountMax` rows of `columns`, a NULL one time in four where NULL is allowed. */
export function tableRows(columns: readonly ColumnSchema[], values: SuiteValues,
  rowCountMax: number): fc.Arbitrary<Value[][]> {
  return fc.array(fc.tuple(...columns.map((column) => (column.notNull ? tableScalarOf(column, values)
    : fc.option(tableScalarOf(column, values), { nil: null, freq: 4 })))), { maxLength: rowCountMax });
}

/** `rows` of `schema` in the row codec's 'wire' form. */
export function tableWireBytes(schema: ContainerSchema, rows: readonly Row[]): Uint8Array {
  const writer = new ByteWriter(64);
  rowCodec(schema, 'wire').writeRows(writer, rows);
  return writer.finish();
}
