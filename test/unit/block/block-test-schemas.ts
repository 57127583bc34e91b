// Random schemas and rows for the block layer's property tests. Not a test file itself.
//
// Keys come from an integer "key index" mapped monotonically to each key type, so a test can ask
// for keys above the current maximum, or pick them from a small domain to collide on purpose.

import { geometryValueFromWkt, type GeometryValue } from '../../../lib/geometry/geometry-value.ts';
import fc from 'fast-check';
import {
  ARRAY_ELEMENT_TYPES, COLUMN_TYPES, INT64_MAX, INT64_MIN, ROW_KEY_TYPES, TIMESTAMP_MS_MAX,
  TIMESTAMP_NS_MAX, TIMESTAMP_US_MAX,
  type ColumnType, type KeyValue, type Row, type TimePrecision, type Value,
} from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';

const PRECISIONS: readonly TimePrecision[] = ['MILLISECOND', 'MICROSECOND', 'NANOSECOND'];

function columnArbitrary(name: string, key: boolean): fc.Arbitrary<ColumnSchema> {
  const types = key ? ROW_KEY_TYPES : COLUMN_TYPES;
  return fc.record({
    type: fc.constantFrom(...types),
    array: key ? fc.constant(false) : fc.boolean(),
    notNull: key ? fc.constant(true) : fc.boolean(),
    precision: fc.constantFrom(...PRECISIONS),
  }, { noNullPrototype: true }).map(({ type, array, notNull, precision }): ColumnSchema => {
    const isArray = array && ARRAY_ELEMENT_TYPES.includes(type);
    const column: ColumnSchema = { name, type, array: isArray, notNull };
    if (type === 'TIMESTAMP') column.timePrecision = precision;
    return column;
  });
}

export interface SchemaShape {
  /** Key columns: undefined = any of 0 (keyless) .. 3. */
  keyColumnCount?: number;
  columnCountMax?: number;
  /** Adds a nullable variable-length column last, for big rows that force block splits. */
  payloadColumn?: boolean;
}

export function schemaArbitrary(shape: SchemaShape = {}): fc.Arbitrary<ContainerSchema> {
  const keyCount = shape.keyColumnCount === undefined
    ? fc.integer({ min: 0, max: 3 })
    : fc.constant(shape.keyColumnCount);
  return keyCount.chain((rowKeyColumnCount) =>
    fc.integer({ min: 0, max: shape.columnCountMax ?? 5 }).chain((valueCount) => {
      const columns = [
        ...Array.from({ length: rowKeyColumnCount }, (_, i) => columnArbitrary(`k${i}`, true)),
        ...Array.from({ length: Math.max(valueCount, rowKeyColumnCount === 0 ? 1 : 0) },
          (_, i) => columnArbitrary(`v${i}`, false)),
      ];
      return fc.tuple(...columns, fc.constantFrom('BLOB', 'STRING') as fc.Arbitrary<ColumnType>)
        .map((generated): ContainerSchema => {
          const payloadType = generated.pop() as ColumnType;
          const list = generated as ColumnSchema[];
          if (shape.payloadColumn === true) {
            list.push({ name: 'payload', type: payloadType, array: false, notNull: false });
          }
          return {
            name: 'c', type: 'COLLECTION', columns: list, rowKeyColumnCount,
            indexes: [], schemaVersion: 1,
          };
        });
    }));
}

const isBigintTime = (column: ColumnSchema) =>
  column.type === 'TIMESTAMP' && (column.timePrecision ?? 'MILLISECOND') !== 'MILLISECOND';

/** The key value of key index `index` for a key column; strictly increasing in index. */
export function keyValueOf(column: ColumnSchema, index: number): KeyValue {
  switch (column.type) {
    case 'STRING': return `key-${String(index).padStart(8, '0')}`;
    case 'INTEGER': return index - 1000;
    case 'LONG': return BigInt(index) * 1_000_000_000_007n - 2n ** 62n;
    case 'TIMESTAMP': return isBigintTime(column) ? BigInt(index) * 1000n : index;
    default: throw new Error(`${column.type} is not a key type`);
  }
}

function elementArbitrary(column: ColumnSchema, type: ColumnType): fc.Arbitrary<unknown> {
  switch (type) {
    case 'BOOL': return fc.boolean();
    case 'STRING': return fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constant(''));
    case 'BYTE': return fc.integer({ min: -128, max: 127 });
    case 'SHORT': return fc.integer({ min: -32768, max: 32767 });
    case 'INTEGER': return fc.integer();
    case 'LONG':
      return fc.oneof(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
        fc.constantFrom(INT64_MIN, INT64_MAX, 0n));
    case 'FLOAT': return fc.float();
    case 'DOUBLE': return fc.double();
    case 'TIMESTAMP': {
      if (!isBigintTime(column)) return fc.integer({ min: 0, max: TIMESTAMP_MS_MAX });
      const max = column.timePrecision === 'NANOSECOND' ? TIMESTAMP_NS_MAX : TIMESTAMP_US_MAX;
      return fc.oneof(fc.bigInt({ min: 0n, max }), fc.constantFrom(0n, max));
    }
    case 'GEOMETRY':
      return fc.constantFrom('POINT(EMPTY)', 'POINT(1 2)', 'POLYGON((0 0,1 0,1 1,0 0))')
        .map((wkt) => geometryValueFromWkt(wkt) as GeometryValue);
    case 'BLOB': return fc.uint8Array({ maxLength: 24 });
  }
}

export function valueArbitrary(column: ColumnSchema): fc.Arbitrary<Value> {
  const value = column.array
    ? fc.array(elementArbitrary(column, column.type), { maxLength: 4 })
    : elementArbitrary(column, column.type);
  return (column.notNull ? value : fc.option(value, { nil: null })) as fc.Arbitrary<Value>;
}

/** Rows of a schema, with distinct keys, sorted by key (keyless: any rows). */
export function sortedRowsArbitrary(
  schema: ContainerSchema, rowCountMax: number,
): fc.Arbitrary<Row[]> {
  const keyCount = schema.rowKeyColumnCount;
  const valueColumns = schema.columns.slice(keyCount);
  const keyIndexes = keyCount === 0
    ? fc.array(fc.constant([] as number[]), { maxLength: rowCountMax, size: 'medium' })
    : fc.uniqueArray(fc.array(fc.nat({ max: 1000 }), { minLength: keyCount, maxLength: keyCount }),
      { maxLength: rowCountMax, size: 'medium', selector: (key) => key.join(',') });
  return keyIndexes.chain((keys) => {
    const sorted = [...keys].sort(compareIndexTuples);
    return fc.tuple(...sorted.map(() => fc.tuple(...valueColumns.map(valueArbitrary))))
      .map((values) => values.map((rest, r) => [
        ...sorted[r]!.map((index, c) => keyValueOf(schema.columns[c]!, index)), ...rest,
      ] as Row));
  });
}

export function compareIndexTuples(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
