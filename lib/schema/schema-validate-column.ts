// One column of a container definition → ColumnSchema (spec/surface.md §4.2).
//
// Type names are the GSType enum names, case-insensitive: STRING, BOOL, BYTE, SHORT, INTEGER, LONG,
// FLOAT, DOUBLE, TIMESTAMP, GEOMETRY, BLOB, and `<ELEMENT>_ARRAY` for arrays. An array may also be
// asked for with `array: true`; `X_ARRAY` with `array: false` is a contradiction and refused.
// `TIMESTAMP(3|6|9)` (the SQL spelling) is accepted as TIMESTAMP with that precision.
// TIMESTAMP arrays are millisecond only: GridDB's precise timestamps (5.3+) are scalar columns.

import { StorageError } from '../base/errors.ts';
import {
  ARRAY_ELEMENT_TYPES, COLUMN_TYPES, FIXED_SIZE_BYTES, TIME_PRECISIONS,
  type ColumnType, type TimePrecision,
} from './column-type.ts';
import type { ColumnSchema } from './container-schema.ts';
import { quote } from './describe-value.ts';
import { validateColumnName } from './names.ts';
import {
  definitionBoolean, definitionEnumText, definitionMember, definitionObject, schemaInvalid,
} from './schema-validate-json.ts';

const COLUMN_MEMBERS = new Set(['name', 'type', 'array', 'notNull', 'timePrecision']);
const COLUMN_TYPE_SET: ReadonlySet<string> = new Set(COLUMN_TYPES);
const TIME_PRECISION_SET: ReadonlySet<string> = new Set(TIME_PRECISIONS);
const TIMESTAMP_DIGITS_PRECISION: ReadonlyMap<string, TimePrecision> = new Map([
  ['TIMESTAMP(3)', 'MILLISECOND'], ['TIMESTAMP(6)', 'MICROSECOND'], ['TIMESTAMP(9)', 'NANOSECOND'],
]);
const TYPE_NAMES_ALLOWED = `${COLUMN_TYPES.join(', ')}, or <type>_ARRAY`;

interface ColumnTypeParsed {
  type: ColumnType;
  array: boolean;
  timePrecision: TimePrecision | undefined;
}

/**
 * Validates column `position` of container `containerName`. The result is not yet a key column:
 * the caller marks key columns notNull once it knows the key.
 */
export function columnFromDefinition(
  column: unknown,
  position: number,
  containerName: string,
): ColumnSchema {
  const where = `column ${position} of ${quote(containerName)}`;
  const object = definitionObject(column, where, COLUMN_MEMBERS);
  const name = validateColumnName(definitionMember(object, 'name'), containerName);
  const whereNamed = `column ${quote(name)} of ${quote(containerName)}`;
  const parsed = columnTypeParse(definitionMember(object, 'type'), whereNamed);
  const array = definitionBoolean(object, 'array', whereNamed);
  if (array === false && parsed.array) {
    throw schemaInvalid(`${whereNamed}: type says an array but array is false`);
  }
  const isArray = parsed.array || array === true;
  if (isArray && !ARRAY_ELEMENT_TYPES.includes(parsed.type)) {
    throw schemaInvalid(`${whereNamed}: ${parsed.type} arrays do not exist`);
  }
  const notNull = definitionBoolean(object, 'notNull', whereNamed) ?? false;
  const timePrecision = columnTimePrecision(object, parsed, whereNamed);
  if (isArray && timePrecision !== undefined && timePrecision !== 'MILLISECOND') {
    throw new StorageError('NOT_SUPPORTED',
      `${whereNamed}: TIMESTAMP arrays are millisecond only, got ${timePrecision}`);
  }
  const result: ColumnSchema = { name, type: parsed.type, array: isArray, notNull };
  if (timePrecision !== undefined) result.timePrecision = timePrecision;
  return result;
}

/** Bytes the columns take in a row's fixed-length part (arrays are variable-length). */
export function columnsFixedPartBytes(columns: readonly ColumnSchema[]): number {
  let sizeBytes = 0;
  for (const column of columns) {
    if (!column.array) sizeBytes += FIXED_SIZE_BYTES[column.type];
  }
  return sizeBytes;
}

function columnTypeParse(type: unknown, where: string): ColumnTypeParsed {
  if (typeof type !== 'string') {
    throw schemaInvalid(`${where}: type must be one of ${TYPE_NAMES_ALLOWED}`);
  }
  const upper = type.toUpperCase();
  const array = upper.endsWith('_ARRAY');
  const base = array ? upper.slice(0, -'_ARRAY'.length) : upper;
  const digitsPrecision = TIMESTAMP_DIGITS_PRECISION.get(base);
  if (digitsPrecision !== undefined) {
    return { type: 'TIMESTAMP', array, timePrecision: digitsPrecision };
  }
  if (!COLUMN_TYPE_SET.has(base)) {
    throw schemaInvalid(`${where}: type ${quote(type)} is not one of ${TYPE_NAMES_ALLOWED}`);
  }
  return { type: base as ColumnType, array, timePrecision: undefined };
}

function columnTimePrecision(
  object: Readonly<Record<string, unknown>>,
  parsed: ColumnTypeParsed,
  where: string,
): TimePrecision | undefined {
  const text = definitionEnumText(object, 'timePrecision', where);
  if (text !== undefined && !TIME_PRECISION_SET.has(text)) {
    throw schemaInvalid(`${where}: timePrecision ${quote(text)} is not one of ` +
      TIME_PRECISIONS.join(', '));
  }
  const precision = text as TimePrecision | undefined;
  if (parsed.type !== 'TIMESTAMP') {
    if (precision !== undefined) {
      throw schemaInvalid(`${where}: timePrecision is for TIMESTAMP only`);
    }
    return undefined;
  }
  if (precision !== undefined && parsed.timePrecision !== undefined &&
    precision !== parsed.timePrecision) {
    throw schemaInvalid(`${where}: type says ${parsed.timePrecision}, timePrecision says ` +
      precision);
  }
  return precision ?? parsed.timePrecision ?? 'MILLISECOND';
}
