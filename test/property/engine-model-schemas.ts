// The four fixed container schemas of the engine model test, with arbitraries for their rows, keys
// and scan bounds, and the model's view of their keys (order, canonical string).
//
// Keys come from small domains so puts, removes and gets collide often. Values cover the awkward
// corners: LONG int64 extremes, DOUBLE/FLOAT NaN, -0 and infinities, empty and non-ASCII strings
// (including a character outside the BMP, which orders differently by UTF-16 code unit than by
// code point), NULLs, arrays and BLOBs. Every generated value is already in canonical form, so the
// engine stores exactly what the model stores.

import fc from 'fast-check';
import type { StorageErrorCode } from '../../lib/base/errors.ts';
import {
  INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, type KeyValue, type Row, type RowKey, type Value,
} from '../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../lib/schema/container-schema.ts';

export const SCHEMA_KINDS = ['series', 'byName', 'composite', 'keyless'] as const;
export type SchemaKind = (typeof SCHEMA_KINDS)[number];

export interface SchemaSpec {
  kind: SchemaKind;
  definition: ContainerDefinition;
  /** The same name with another schema: creating it must fail with CONTAINER_EXISTS. */
  conflicting: ContainerDefinition;
  keyed: boolean;
  row: fc.Arbitrary<Row>;
  /** A key of this schema; for the keyless collection a rowId, which get/remove must refuse. */
  key: fc.Arbitrary<RowKey>;
}

/** UTF-16 code-unit order, as row-key.ts documents. */
export function compareKeys(a: RowKey, b: RowKey): number {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < a.length; i++) {
      const order = compareKeyValue(a[i]!, b[i]!);
      if (order !== 0) return order;
    }
    return 0;
  }
  return compareKeyValue(a as KeyValue, b as KeyValue);
}

function compareKeyValue(a: KeyValue, b: KeyValue): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The model's map key for a row key (keys here hold only numbers and strings). */
export function keyString(key: RowKey): string {
  return JSON.stringify(key);
}

export function keyOfRow(spec: SchemaSpec, row: Row): RowKey {
  if (spec.kind === 'composite') return [row[0] as KeyValue, row[1] as KeyValue];
  return row[0] as KeyValue;
}

// ---- values ------------------------------------------------------------------------------------

const CHARACTERS = [
  'a', 'b', 'Z', ' ', '|', ':', 'é', 'ß', '日', '本', '\u{1F600}', '\uFF61', '\u0301', '\uFFFF',
];
const text = fc.array(fc.constantFrom(...CHARACTERS), { maxLength: 6 })
  .map((chars) => chars.join(''));
const STRING_KEYS = ['', 'a', 'A', 'b', 'é日本', '\u{1F600}', '\uFF61'];
const stringKey = fc.constantFrom(...STRING_KEYS);
const string = fc.oneof(stringKey, text, fc.constant('x'.repeat(300)));

const long = fc.oneof(
  fc.constantFrom(INT64_MIN, INT64_MAX, INT64_MIN + 1n, INT64_MAX - 1n, 0n, -1n, 1n),
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
);
const double = fc.oneof(
  fc.constantFrom(Number.NaN, -0, 0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY,
    Number.MAX_VALUE, Number.MIN_VALUE, -1.5),
  fc.double(),
);
const float = fc.oneof(fc.constantFrom(Number.NaN, -0, 0, Number.POSITIVE_INFINITY), fc.float());
const integer = fc.oneof(fc.constantFrom(-(2 ** 31), 2 ** 31 - 1, 0, -1), fc.integer());
const byte = fc.integer({ min: -128, max: 127 });
const short = fc.integer({ min: -32768, max: 32767 });
const timestamp = fc.oneof(
  fc.constantFrom(0, 1, TIMESTAMP_MS_MAX),
  fc.integer({ min: 0, max: TIMESTAMP_MS_MAX }),
);
/**
 * Mostly tiny; now and then one over a quarter of a block, kept out of line in a chain of one to
 * three large-value blocks, which the buffer pool evicts and reads back whole.
 */
const blob = fc.oneof(
  { weight: 12, arbitrary: fc.uint8Array({ maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 16_400, max: 140_000 }), fc.nat(255))
      .map(([length, byte]) => new Uint8Array(length).fill(byte)),
  },
);
const nullable = <T extends Value>(value: fc.Arbitrary<T>) =>
  fc.option(value, { nil: null, freq: 4 });
const arrayOf = <T>(element: fc.Arbitrary<T>) => fc.array(element, { maxLength: 3 });

const SERIES_KEYS = [0, 1, 59_000, 1_700_000_000_000, TIMESTAMP_MS_MAX];
const COMPOSITE_IDS = [-(2 ** 31), 0, 2 ** 31 - 1];
/** With '|' and ':', the characters row-key.ts builds composite key strings from. */
const COMPOSITE_NAMES = ['', 'a', '1:a|', '\u{1F600}', '\uFF61'];
const compositeKey = fc
  .tuple(fc.constantFrom(...COMPOSITE_IDS), fc.constantFrom(...COMPOSITE_NAMES))
  .map(([id, name]): KeyValue[] => [id, name]);

// ---- schemas -----------------------------------------------------------------------------------

const series: SchemaSpec = {
  kind: 'series',
  definition: {
    name: 'Series1', type: 'TIME_SERIES', columns: [
      { name: 't', type: 'TIMESTAMP' }, { name: 'd', type: 'DOUBLE' }, { name: 'l', type: 'LONG' },
      { name: 'f', type: 'FLOAT' }, { name: 'b', type: 'BOOL' }, { name: 's', type: 'STRING' },
    ],
  },
  conflicting: {
    name: 'series1', type: 'TIME_SERIES',
    columns: [{ name: 't', type: 'TIMESTAMP' }, { name: 'd', type: 'FLOAT' }],
  },
  keyed: true,
  row: fc.tuple(
    fc.constantFrom(...SERIES_KEYS), double, long, float, nullable(fc.boolean()), nullable(string),
  ).map((row): Row => [...row]),
  key: fc.constantFrom(...SERIES_KEYS),
};

const byName: SchemaSpec = {
  kind: 'byName',
  definition: {
    name: 'by_name', type: 'COLLECTION', rowKey: true, columns: [
      { name: 'k', type: 'STRING' }, { name: 'n', type: 'INTEGER', notNull: true },
      { name: 's', type: 'STRING' }, { name: 'blob', type: 'BLOB' },
      { name: 'la', type: 'LONG_ARRAY' }, { name: 'at', type: 'TIMESTAMP' },
    ],
  },
  conflicting: {
    name: 'BY_NAME', type: 'COLLECTION', rowKey: true, columns: [{ name: 'k', type: 'STRING' }],
  },
  keyed: true,
  row: fc.tuple(
    stringKey, integer, nullable(string), nullable(blob), nullable(arrayOf(long)),
    nullable(timestamp),
  ).map((row): Row => [...row]),
  key: stringKey,
};

const composite: SchemaSpec = {
  kind: 'composite',
  definition: {
    name: 'pair.key', type: 'COLLECTION', rowKey: 2, columns: [
      { name: 'id', type: 'INTEGER' }, { name: 'name', type: 'STRING' },
      { name: 'd', type: 'DOUBLE' }, { name: 'sa', type: 'STRING', array: true },
      { name: 'da', type: 'DOUBLE_ARRAY' },
      { name: 'by', type: 'BYTE' }, { name: 'sh', type: 'SHORT' },
    ],
  },
  conflicting: {
    name: 'Pair.Key', type: 'COLLECTION', rowKey: 1, columns: [
      { name: 'id', type: 'INTEGER' }, { name: 'name', type: 'STRING' },
    ],
  },
  keyed: true,
  row: fc.tuple(
    compositeKey, nullable(double), nullable(arrayOf(string)), nullable(arrayOf(double)),
    nullable(byte), nullable(short),
  ).map(([key, ...rest]): Row => [key[0]!, key[1]!, ...rest]),
  key: compositeKey,
};

const keyless: SchemaSpec = {
  kind: 'keyless',
  definition: {
    name: 'log-lines', type: 'COLLECTION', columns: [
      { name: 'l', type: 'LONG', notNull: true }, { name: 's', type: 'STRING' },
      { name: 'd', type: 'DOUBLE' }, { name: 'blob', type: 'BLOB' },
      { name: 'ba', type: 'BOOL_ARRAY' }, { name: 'ta', type: 'TIMESTAMP_ARRAY' },
    ],
  },
  conflicting: {
    name: 'LOG-LINES', type: 'COLLECTION', columns: [{ name: 'l', type: 'LONG', notNull: true }],
  },
  keyed: false,
  row: fc.tuple(
    long, nullable(string), nullable(double), nullable(blob), nullable(arrayOf(fc.boolean())),
    nullable(arrayOf(timestamp)),
  ).map((row): Row => [...row]),
  key: fc.nat(3),
};

export const SCHEMAS: Readonly<Record<SchemaKind, SchemaSpec>> = {
  series, byName, composite, keyless,
};

/** Spellings of a container name: lookups ignore case, so all of them name one container. */
export function nameSpelling(spec: SchemaSpec, variant: number): string {
  const name = spec.definition.name;
  return [name, name.toUpperCase(), name.toLowerCase()][variant % 3]!;
}

// ---- bad rows ----------------------------------------------------------------------------------

export const BAD_ROW_KINDS = ['type', 'length', 'nullKey', 'notNull', 'range'] as const;
export type BadRowKind = (typeof BAD_ROW_KINDS)[number];

/**
 * A copy of a valid row made bad in one way, with the code the engine must answer; undefined when
 * the schema has no column to break that way.
 */
export function badRow(
  spec: SchemaSpec,
  row: Row,
  kind: BadRowKind,
): { row: unknown[]; code: StorageErrorCode } | undefined {
  const bad: unknown[] = structuredClone(row);
  switch (kind) {
    case 'type':
      if (spec.kind === 'series') bad[2] = 1.5; // LONG refuses a fraction
      else if (spec.kind === 'byName') bad[1] = '7'; // INTEGER refuses a string
      else if (spec.kind === 'composite') bad[1] = 7; // STRING refuses a number
      else bad[0] = 'forty-two'; // LONG refuses a string
      return { row: bad, code: 'TYPE_MISMATCH' };
    case 'length':
      return { row: bad.slice(0, -1), code: 'ROW_INVALID' };
    case 'nullKey':
      if (!spec.keyed) return undefined;
      bad[spec.kind === 'composite' ? 1 : 0] = null;
      return { row: bad, code: 'KEY_REQUIRED' };
    case 'notNull':
      if (spec.kind === 'byName') bad[1] = null;
      else if (spec.kind === 'keyless') bad[0] = null;
      else return undefined;
      return { row: bad, code: 'NULL_NOT_ALLOWED' };
    case 'range':
      if (spec.kind === 'byName') bad[1] = 2 ** 31;
      else if (spec.kind === 'keyless') bad[0] = INT64_MAX + 1n;
      else if (spec.kind === 'series') bad[2] = INT64_MIN - 1n;
      else bad[5] = 128; // BYTE
      return { row: bad, code: 'VALUE_OUT_OF_RANGE' };
  }
}
