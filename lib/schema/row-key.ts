// Row keys of one container: how to take the key of a row, order two keys, turn a key into a Map
// key, and normalise a key that came from outside (a query, the web API) to the shape the engine
// stores.
//
// Ordering: numbers numerically, bigints numerically, strings by UTF-16 code units (JS `<`), and
// composite keys lexicographically by column. Key values of one column always have one JS type (see
// column-type.ts), so `<` never compares a number with a bigint once a key is normalised.
//
// A keyless collection (rowKeyColumnCount 0) is ordered by its internal rowId, a non-negative
// integer number the row store assigns; for such a schema a "key" is that rowId, and keyOf() is not
// available.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { KeyValue, Row, RowKey } from './column-type.ts';
import type { ColumnSchema, ContainerSchema } from './container-schema.ts';

export interface RowKeyOps {
  /** Key columns: 0 for a keyless collection (keys are rowIds). */
  readonly columnCount: number;
  /** The key of a validated row: a scalar for one key column, an array for a composite key. */
  keyOf(row: Row): RowKey;
  /** Orders two normalised keys: negative, 0 or positive. */
  compare(a: RowKey, b: RowKey): number;
  /** Orders the keys of two validated rows without allocating. */
  compareRows(a: Row, b: Row): number;
  /** A canonical string, equal for equal keys and different for different keys of this schema. */
  keyString(key: RowKey): string;
  /** Checks a key from outside and returns it in stored shape; TYPE_MISMATCH, KEY_REQUIRED. */
  normalizeKey(key: RowKey): RowKey;
}

type KeyKind = 'string' | 'number' | 'bigint';

/** Precomputes the key operations of a schema; call once per schema version. */
export function rowKeyOps(schema: ContainerSchema): RowKeyOps {
  const count = schema.rowKeyColumnCount;
  assert(count >= 0);
  assert(count <= schema.columns.length);
  if (count === 0) return rowIdKeyOps();
  const columns = schema.columns.slice(0, count);
  const kinds = columns.map(keyKind);
  if (count === 1) return singleKeyOps(columns[0]!, kinds[0]!);
  return compositeKeyOps(columns, kinds);
}

function keyKind(column: ColumnSchema): KeyKind {
  assert(!column.array);
  switch (column.type) {
    case 'STRING': return 'string';
    case 'INTEGER': return 'number';
    case 'LONG': return 'bigint';
    case 'TIMESTAMP':
      return (column.timePrecision ?? 'MILLISECOND') === 'MILLISECOND' ? 'number' : 'bigint';
    default:
      assert(false, `column ${column.name}: ${column.type} cannot be a row key`);
  }
}

/** Scalars of one kind: `<` orders numbers and bigints numerically and strings by code units. */
export function compareKeyValues(a: KeyValue, b: KeyValue): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function rowIdKeyOps(): RowKeyOps {
  return {
    columnCount: 0,
    keyOf() {
      assert(false, 'a keyless collection has no row key; rows are ordered by rowId');
    },
    compare: (a, b) => compareKeyValues(a as number, b as number),
    compareRows() {
      assert(false, 'a keyless collection has no row key');
    },
    keyString: (key) => String(key),
    normalizeKey(key) {
      const value = Array.isArray(key) && key.length === 1 ? key[0] : key;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        throw new StorageError('TYPE_MISMATCH',
          `rowId ${String(value)} is not a non-negative integer`);
      }
      return value === 0 ? 0 : value; // -0 → 0
    },
  };
}

function singleKeyOps(column: ColumnSchema, kind: KeyKind): RowKeyOps {
  return {
    columnCount: 1,
    keyOf: (row) => row[0] as KeyValue,
    compare: (a, b) => compareKeyValues(a as KeyValue, b as KeyValue),
    compareRows: (a, b) => compareKeyValues(a[0] as KeyValue, b[0] as KeyValue),
    // One JS type per column, so the plain text of the value cannot collide.
    keyString: (key) => String(key),
    normalizeKey(key) {
      if (Array.isArray(key)) {
        if (key.length !== 1) throw keyArityError(1, key.length);
        return normalizeKeyValue(column, kind, key[0]);
      }
      return normalizeKeyValue(column, kind, key);
    },
  };
}

function compositeKeyOps(columns: ColumnSchema[], kinds: KeyKind[]): RowKeyOps {
  const count = columns.length;
  const compare = (a: RowKey, b: RowKey): number => {
    const x = a as KeyValue[];
    const y = b as KeyValue[];
    for (let i = 0; i < count; i++) {
      const order = compareKeyValues(x[i]!, y[i]!);
      if (order !== 0) return order;
    }
    return 0;
  };
  return {
    columnCount: count,
    keyOf: (row) => row.slice(0, count) as KeyValue[],
    compare,
    compareRows(a, b) {
      for (let i = 0; i < count; i++) {
        const order = compareKeyValues(a[i] as KeyValue, b[i] as KeyValue);
        if (order !== 0) return order;
      }
      return 0;
    },
    keyString: (key) => compositeKeyString(key as KeyValue[], kinds),
    normalizeKey(key) {
      if (!Array.isArray(key) || key.length !== count) {
        throw keyArityError(count, Array.isArray(key) ? key.length : 1);
      }
      return key.map((value, i) => normalizeKeyValue(columns[i]!, kinds[i]!, value));
    },
  };
}

/**
 * Strings are length-prefixed (`<length>:<text>`) and numbers are plain digits, joined by `|`; a
 * digit string never holds `|` and a prefixed string says where it ends, so parsing is unambiguous.
 */
function compositeKeyString(key: KeyValue[], kinds: KeyKind[]): string {
  assert(key.length === kinds.length);
  let text = '';
  for (let i = 0; i < key.length; i++) {
    const value = key[i]!;
    if (i > 0) text += '|';
    text += kinds[i] === 'string'
      ? `${(value as string).length}:${value as string}`
      : String(value);
  }
  return text;
}

function keyArityError(expectedCount: number, actualCount: number): StorageError {
  return new StorageError(
    'KEY_REQUIRED', `row key needs ${expectedCount} value(s), got ${actualCount}`,
  );
}

/**
 * Exact conversions only: an integer number for a bigint column and a safe bigint for a number
 * column (JSON and the web API have no bigint). Out-of-domain integers stay allowed: they are valid
 * scan bounds.
 */
function normalizeKeyValue(column: ColumnSchema, kind: KeyKind, value: unknown): KeyValue {
  if (kind === 'string') {
    if (typeof value === 'string') return value;
  } else if (kind === 'number') {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value === 0 ? 0 : value;
    if (typeof value === 'bigint') {
      if (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) {
        return Number(value);
      }
      throw new StorageError('VALUE_OUT_OF_RANGE',
        `row key column ${column.name}: ${value} too large`);
    }
  } else {
    if (typeof value === 'bigint') return value;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  }
  throw new StorageError(
    'TYPE_MISMATCH',
    `row key column ${column.name} (${column.type}): ` +
      `${typeof value} ${String(value)} is not a key value`,
  );
}
