// CREATE TABLE … PARTITION BY and its expiry options (§4.9) checked into the table's partitioning
// (lib/schema/table-partitioning.ts). Every rule is an error at the clause that breaks it:
//
//   HASH           any key type but BLOB; PARTITIONS 1…1024
//   INTERVAL       BYTE 1…2^7−1, SHORT 1…2^15−1, INTEGER 1…2^31−1, LONG ≥ 1000, TIMESTAMP[(3|6|9)] ≥ 1
//                  with DAY or HOUR (required for TIMESTAMP, refused for the others)
//   INTERVAL_HASH  as INTERVAL, SUBPARTITIONS 1…1024; a LONG interval ≥ 1000 × SUBPARTITIONS
//   key rule       with /sql/partitioningRowkeyConstraint (on by default) a partitioning column of
//                  a table with a primary key must be one of its columns
//   expiry         interval kinds on a TIMESTAMP key that is the table's first column;
//                  expiration_time required (a positive INTEGER), expiration_time_unit DAY (default),
//                  HOUR, MINUTE, SECOND, MILLISECOND; expiration_type PARTITION only (ROW is
//                  NOT_SUPPORTED, as GridDB CE's row expiry); expiration_division_count refused
//                  (GridDB takes it with ROW only), "#tables" shows its default 8

import type { Value } from '../schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../schema/container-schema.ts';
import { normalizeName } from '../schema/names.ts';
import {
  EXPIRATION_UNIT_MS, TABLE_HASH_PARTITION_COUNT_MAX, type TableExpiration, type TablePartitioning,
} from '../schema/table-partitioning.ts';
import type { SqlExpression, SqlName, SqlStatement } from './ast.ts';
import type { SqlTableOption } from './ast-statements.ts';
import { SqlError, sqlNotSupported, type SqlPosition } from './errors.ts';

/** expiration_division_count as "#tables" shows it: GridDB's default (EXPIRE_DIVIDE_DEFAULT_NUM). */
export const EXPIRATION_DIVISION_COUNT_DEFAULT = 8;

const INTERVAL_RANGES: Readonly<Partial<Record<ColumnSchema['type'], readonly [bigint, bigint]>>> = {
  BYTE: [1n, 2n ** 7n - 1n], SHORT: [1n, 2n ** 15n - 1n], INTEGER: [1n, 2n ** 31n - 1n],
  LONG: [1000n, 2n ** 63n - 1n], TIMESTAMP: [1n, 2n ** 31n - 1n],
};
const UNIT_MS = { DAY: 86_400_000n, HOUR: 3_600_000n } as const;
const KEY_UNITS_PER_MS = { MILLISECOND: 1n, MICROSECOND: 1000n, NANOSECOND: 1_000_000n } as const;

type CreateTable = Extract<SqlStatement, { kind: 'createTable' }>;

export function sqlTablePartitioning(statement: CreateTable, columns: readonly ColumnSchema[],
  keyCount: number, expiryOptions: readonly SqlTableOption[],
  options: { readonly partitioningRowkeyConstraint: boolean }): TablePartitioning | undefined {
  const spec = statement.partitioning;
  if (spec === undefined) {
    if (expiryOptions.length > 0) {
      throw invalid(`the option ${expiryOptions[0]!.key.text} needs PARTITION BY RANGE (an interval table)`,
        expiryOptions[0]!.key.position);
    }
    return undefined;
  }
  const columnIndex = partitionColumn(spec.column, columns, keyCount, options);
  const column = columns[columnIndex]!;
  if (spec.kind === 'hash') {
    if (column.type === 'BLOB') throw invalid('a BLOB column cannot be a partitioning key', spec.column.position);
    const divisionCount = countIn(spec.partitionCount, 'PARTITIONS', spec.position);
    if (expiryOptions.length > 0) {
      throw invalid('expiry needs an interval table (PARTITION BY RANGE), not HASH', expiryOptions[0]!.key.position);
    }
    return { kind: 'HASH', columnIndex, divisionCount };
  }
  const range = INTERVAL_RANGES[column.type];
  if (range === undefined) {
    throw invalid(`an interval partitioning key must be BYTE, SHORT, INTEGER, LONG or TIMESTAMP, not ` +
      `${column.type}`, spec.column.position);
  }
  if (column.type === 'TIMESTAMP' && spec.unit === undefined) {
    throw invalid('EVERY on a TIMESTAMP key needs a unit: EVERY (n, DAY) or EVERY (n, HOUR)', spec.position);
  }
  if (column.type !== 'TIMESTAMP' && spec.unit !== undefined) {
    throw invalid(`EVERY on a ${column.type} key takes no unit`, spec.position);
  }
  if (spec.interval < range[0] || spec.interval > range[1]) {
    throw invalid(`the interval of a ${column.type} key must be ${range[0]}…${range[1]}, not ${spec.interval}`,
      spec.position);
  }
  // A TIMESTAMP(6)/(9) key is stored in µs/ns, so its interval is kept in the key's own units.
  const interval = spec.unit === undefined ? spec.interval
    : spec.interval * UNIT_MS[spec.unit] * KEY_UNITS_PER_MS[column.timePrecision ?? 'MILLISECOND'];
  const base = {
    columnIndex, interval: String(interval), ...(spec.unit === undefined ? {} : { intervalUnit: spec.unit }),
    ...expiration(expiryOptions, column, columnIndex, spec.position),
  };
  if (spec.subpartition === undefined) return { kind: 'INTERVAL', ...base };
  const subColumnIndex = partitionColumn(spec.subpartition.column, columns, keyCount, options);
  if (columns[subColumnIndex]!.type === 'BLOB') {
    throw invalid('a BLOB column cannot be a partitioning key', spec.subpartition.column.position);
  }
  const divisionCount = countIn(spec.subpartition.count, 'SUBPARTITIONS', spec.position);
  if (column.type === 'LONG' && spec.interval < 1000n * BigInt(divisionCount)) {
    throw invalid(`the interval of a LONG key with ${divisionCount} subpartitions must be at least ` +
      `${1000 * divisionCount}`, spec.position);
  }
  return { kind: 'INTERVAL_HASH', ...base, subColumnIndex, divisionCount };
}

function partitionColumn(name: SqlName, columns: readonly ColumnSchema[], keyCount: number,
  options: { readonly partitioningRowkeyConstraint: boolean }): number {
  const index = columns.findIndex((column) => normalizeName(column.name) === normalizeName(name.text));
  if (index < 0) throw new SqlError('COLUMN_NOT_FOUND', `no column ${name.text} to partition by`, name.position);
  if (options.partitioningRowkeyConstraint && keyCount > 0 && index >= keyCount) {
    throw invalid(`the partitioning column ${name.text} must be a primary key column ` +
      '(/sql/partitioningRowkeyConstraint)', name.position);
  }
  return index;
}

function countIn(count: bigint, what: string, position: SqlPosition): number {
  if (count < 1n || count > BigInt(TABLE_HASH_PARTITION_COUNT_MAX)) {
    throw invalid(`${what} must be 1…${TABLE_HASH_PARTITION_COUNT_MAX}, not ${count}`, position);
  }
  return Number(count);
}

function expiration(options: readonly SqlTableOption[], column: ColumnSchema, columnIndex: number,
  position: SqlPosition): { expiration?: TableExpiration } {
  if (options.length === 0) return {};
  const byKey = new Map<string, SqlTableOption>();
  for (const option of options) {
    const key = option.key.text.toLowerCase();
    if (byKey.has(key)) throw invalid(`the option ${option.key.text} is given twice`, option.key.position);
    byKey.set(key, option);
  }
  for (const [key, option] of byKey) {
    if (!['expiration_type', 'expiration_time', 'expiration_time_unit', 'expiration_division_count'].includes(key)) {
      throw sqlNotSupported(`the table option ${option.key.text} is not supported`, option.key.position);
    }
  }
  if (column.type !== 'TIMESTAMP' || columnIndex !== 0) {
    throw invalid('expiry needs a TIMESTAMP partitioning key that is the first column', position);
  }
  const type = byKey.get('expiration_type');
  if (type !== undefined) {
    const text = type.value.type === 'STRING' ? type.value.value.toUpperCase() : '';
    if (text === 'ROW') throw sqlNotSupported('expiration_type=ROW (only PARTITION)', type.key.position);
    if (text !== 'PARTITION') throw invalid('expiration_type must be PARTITION', type.key.position);
  }
  const time = byKey.get('expiration_time');
  if (time === undefined) throw invalid('expiry needs expiration_time', position);
  const timeValue = integerOption(time, 1, 2 ** 31 - 1);
  const unitOption = byKey.get('expiration_time_unit');
  const unitText = unitOption === undefined ? 'DAY'
    : unitOption.value.type === 'STRING' ? unitOption.value.value.toUpperCase() : '';
  if (!Object.hasOwn(EXPIRATION_UNIT_MS, unitText)) {
    throw invalid('expiration_time_unit must be DAY, HOUR, MINUTE, SECOND or MILLISECOND', unitOption!.key.position);
  }
  const unit = unitText as TableExpiration['unit'];
  // GridDB refuses a division count with PARTITION expiry (nosql_command.cpp: "Division Count must
  // be row expiration"): it splits a ROW expiry period, and a whole data partition has no parts.
  // "#tables" shows GridDB's default, 8.
  const division = byKey.get('expiration_division_count');
  if (division !== undefined) {
    throw invalid('expiration_division_count is for expiration_type=ROW only (GridDB: "Division Count must ' +
      'be row expiration"); PARTITION expiry drops whole data partitions', division.key.position);
  }
  const divisionCount = EXPIRATION_DIVISION_COUNT_DEFAULT;
  return { expiration: { time: timeValue, unit, timeMs: timeValue * EXPIRATION_UNIT_MS[unit], divisionCount } };
}

function integerOption(option: SqlTableOption, min: number, max: number): number {
  const value = option.value;
  if (value.type !== 'INTEGER' || value.value < BigInt(min) || value.value > BigInt(max)) {
    throw invalid(`${option.key.text} must be an integer ${min}…${max}`, option.key.position);
  }
  return Number(value.value);
}

function invalid(detail: string, position: SqlPosition): SqlError {
  return new SqlError('INVALID_SCHEMA', detail, position);
}

/** DROP PARTITION FOR's value as the partitioning column stores it. */
export async function partitionKeyValue(schema: ContainerSchema, expression: SqlExpression,
  valueForColumn: (expression: SqlExpression, schema: ContainerSchema, columnIndex: number) => Promise<Value>):
  Promise<Value> {
  const partitioning = schema.partitioning!;
  const value = await valueForColumn(expression, schema, partitioning.columnIndex);
  if (value === null) throw invalid('DROP PARTITION FOR takes a value, not NULL', expression.position);
  return value;
}
