// Row and key validation: the gate every ingested value passes (spec/surface.md §4.2–§4.4).
//
// rowValidator(schema, limits) builds, once per schema, a function that checks a row in one loop
// over small integer kinds. Values already in canonical form (the common case: a timestamp and
// doubles) are accepted inline without allocating; anything else goes to row-validate-value.ts,
// which converts it or throws. The row is validated in place: the array passed in is returned,
// with values replaced by their canonical form where needed (FLOAT rounded, a Date or a number
// turned into the column's timestamp or bigint form, -0 → 0 in integer columns). A row that
// cannot be written to (frozen) is copied first. A rejected row may have been partly normalised.
//
// NULL: allowed unless the column is NOT NULL (NULL_NOT_ALLOWED) or part of the row key
// (KEY_REQUIRED). Array elements are never NULL. `undefined` is not NULL: it is a TYPE_MISMATCH.

import { StorageError } from '../base/errors.ts';
import { STORE_BLOCK_SIZES_BYTES, blockSizeLimits, type BlockSizeLimits } from '../base/limits.ts';
import {
  INT64_MAX as INT64_MAX_IMPORTED, INT64_MIN as INT64_MIN_IMPORTED,
  TIMESTAMP_MS_MAX as TIMESTAMP_MS_MAX_IMPORTED, TIMESTAMP_MS_MIN as TIMESTAMP_MS_MIN_IMPORTED,
  ValueKind, columnTypeName, valueKind, type KeyValue, type Row, type RowKey, type Value,
} from './column-type.ts';
import type { ContainerSchema } from './container-schema.ts';
import { describeValue, quote } from './describe-value.ts';
import {
  ELEMENT_NONE, scalarCanonical, stringProblem as stringProblemImported, valueError, valueMismatch,
  type ValueCheck,
} from './row-validate-value.ts';

// The hot loop reads module constants, not imports: a loader (tsx) may turn an imported binding
// into a getter call.
const INT64_MIN = INT64_MIN_IMPORTED;
const INT64_MAX = INT64_MAX_IMPORTED;
const TIMESTAMP_MS_MIN = TIMESTAMP_MS_MIN_IMPORTED;
const TIMESTAMP_MS_MAX = TIMESTAMP_MS_MAX_IMPORTED;
const stringProblem = stringProblemImported;
const NULL_ALLOWED = 0;
const NULL_REFUSED = 1;
const NULL_KEY = 2;

const K_BOOL = ValueKind.BOOL;
const K_INTEGER = ValueKind.INTEGER;
const K_LONG = ValueKind.LONG;
const K_FLOAT = ValueKind.FLOAT;
const K_DOUBLE = ValueKind.DOUBLE;
const K_TIMESTAMP_MS = ValueKind.TIMESTAMP_MS;
const K_STRING = ValueKind.STRING;
const INT32_MIN = -0x8000_0000;
const INT32_MAX = 0x7fff_ffff;

/** Keys of get/remove/scan are checked against the largest limits: a bigger key cannot exist. */
const KEY_LIMITS = blockSizeLimits(STORE_BLOCK_SIZES_BYTES[STORE_BLOCK_SIZES_BYTES.length - 1]!);

/** A function that validates one row of `schema`; build it once per schema and reuse it. */
export function rowValidator(
  schema: ContainerSchema,
  limits: BlockSizeLimits,
): (row: unknown) => Row {
  const checks = valueChecks(schema, limits);
  const columnCount = checks.length;
  const kinds = Uint8Array.from(checks, (check) => (check.array ? 0xff : check.kind));
  const nullModes = Uint8Array.from(schema.columns, (column, i) =>
    i < schema.rowKeyColumnCount ? NULL_KEY : column.notNull ? NULL_REFUSED : NULL_ALLOWED);
  const stringSizeBytesMax = limits.stringSizeBytesMax;
  return (input: unknown): Row => {
    if (!Array.isArray(input) || input.length !== columnCount) rowShapeInvalid(schema, input);
    let row = input as Row;
    for (let i = 0; i < columnCount; i++) {
      const value: unknown = row[i];
      if (value === null) {
        if (nullModes[i] !== NULL_ALLOWED) nullRefused(checks[i]!, nullModes[i]!);
        continue;
      }
      const kind = kinds[i];
      if (kind === K_DOUBLE) {
        if (typeof value === 'number') continue;
      } else if (kind === K_TIMESTAMP_MS) {
        if (typeof value === 'number' && value > TIMESTAMP_MS_MIN && value <= TIMESTAMP_MS_MAX &&
          Number.isInteger(value)) continue;
      } else if (kind === K_STRING) {
        if (typeof value === 'string' && stringProblem(value, stringSizeBytesMax) === undefined) {
          continue;
        }
      } else if (kind === K_INTEGER) {
        if (typeof value === 'number' && value >= INT32_MIN && value <= INT32_MAX &&
          Number.isInteger(value) && value !== 0) continue;
      } else if (kind === K_LONG) {
        if (typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX) continue;
      } else if (kind === K_FLOAT) {
        if (typeof value === 'number' && Math.fround(value) === value) continue;
      } else if (kind === K_BOOL) {
        if (typeof value === 'boolean') continue;
      }
      const check = checks[i]!;
      const canonical = check.array
        ? arrayCanonical(check, value)
        : scalarCanonical(check, value, ELEMENT_NONE);
      if (!Object.is(canonical, value)) row = arraySet(row, i, canonical);
    }
    return row;
  };
}

const validatorCache = new WeakMap<ContainerSchema, {
  limits: BlockSizeLimits;
  validate: (row: unknown) => Row;
}>();

/** Validates one row; prefer rowValidator in loops. Returns the row in canonical form. */
export function validateRow(schema: ContainerSchema, row: unknown, limits: BlockSizeLimits): Row {
  let cached = validatorCache.get(schema);
  if (cached === undefined || cached.limits !== limits) {
    cached = { limits, validate: rowValidator(schema, limits) };
    validatorCache.set(schema, cached);
  }
  return cached.validate(row);
}

/**
 * A function that validates a key argument of get/remove/scan. A one-column key is a single value
 * (a one-element array is accepted too) and comes back as a KeyValue; a composite key is an array
 * of one value per key column and comes back as a new KeyValue[]. KEY_REQUIRED when the container
 * has no row key or a key value is missing; ROW_INVALID for a composite key of the wrong shape.
 */
export function keyValidator(
  schema: ContainerSchema,
  limits: BlockSizeLimits = KEY_LIMITS,
): (key: unknown) => RowKey {
  const checks = valueChecks(schema, limits).slice(0, schema.rowKeyColumnCount);
  const where = `container ${quote(schema.name)}`;
  if (checks.length === 0) {
    return () => {
      throw new StorageError('KEY_REQUIRED', `${where} has no row key`);
    };
  }
  if (checks.length === 1) {
    const check = checks[0]!;
    return (key: unknown): RowKey => {
      const value = Array.isArray(key) && key.length === 1 ? key[0] as unknown : key;
      return keyValueCanonical(check, value);
    };
  }
  return (key: unknown): RowKey => {
    if (!Array.isArray(key) || key.length !== checks.length) {
      throw new StorageError('ROW_INVALID', `${where}: a key is an array of ${checks.length} ` +
        `values, got ${describeValue(key)}`);
    }
    return checks.map((check, i) => keyValueCanonical(check, key[i]));
  };
}

function keyValueCanonical(check: ValueCheck, value: unknown): KeyValue {
  if (value === null || value === undefined) nullRefused(check, NULL_KEY);
  return scalarCanonical(check, value, ELEMENT_NONE) as KeyValue;
}

function valueChecks(schema: ContainerSchema, limits: BlockSizeLimits): ValueCheck[] {
  return schema.columns.map((column) => ({
    containerName: schema.name,
    columnName: column.name,
    typeName: columnTypeName(column.type, { array: false, timePrecision: column.timePrecision }),
    kind: valueKind(column.type, column.timePrecision),
    array: column.array,
    limits,
  }));
}

function arrayCanonical(check: ValueCheck, value: unknown): Value {
  if (!Array.isArray(value)) {
    throw valueError(check, 'TYPE_MISMATCH', ELEMENT_NONE,
      `expected ${check.typeName}_ARRAY, got ${describeValue(value)}`);
  }
  if (value.length > check.limits.arrayLengthMax) {
    throw valueError(check, 'LIMIT_EXCEEDED', ELEMENT_NONE,
      `array of ${value.length} elements, more than ${check.limits.arrayLengthMax}`);
  }
  let elements = value as unknown[];
  for (let i = 0; i < elements.length; i++) {
    const element: unknown = elements[i];
    if (element === null) {
      throw valueError(check, 'NULL_NOT_ALLOWED', i, 'array elements cannot be NULL');
    }
    if (element === undefined) valueMismatch(check, element, i);
    const canonical = scalarCanonical(check, element, i);
    if (!Object.is(canonical, element)) elements = arraySet(elements, i, canonical);
  }
  return elements as Value;
}

/** Sets `array[i]`, or a copy's when the array cannot be written to (frozen). */
function arraySet<T>(array: T[], i: number, value: T): T[] {
  try {
    array[i] = value;
    return array;
  } catch {
    const copy = Array.prototype.slice.call(array) as T[];
    copy[i] = value;
    return copy;
  }
}

function nullRefused(check: ValueCheck, nullMode: number): never {
  if (nullMode === NULL_KEY) {
    throw valueError(check, 'KEY_REQUIRED', ELEMENT_NONE, 'a row key column cannot be NULL');
  }
  throw valueError(check, 'NULL_NOT_ALLOWED', ELEMENT_NONE, 'the column is NOT NULL');
}

function rowShapeInvalid(schema: ContainerSchema, row: unknown): never {
  throw new StorageError('ROW_INVALID', `container ${quote(schema.name)}: a row is an array of ` +
    `${schema.columns.length} values, got ${describeValue(row)}`);
}
