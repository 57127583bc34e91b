// Operators on single SQL values (§5.7), shared by the vectorised evaluator, aggregates and sort:
// ordering (numbers of any shape exactly, NULL first), LONG arithmetic in bigint with overflow as
// an error and `/` truncating, DOUBLE arithmetic, the widenings the planner inserts, the text `||`
// makes of a value, and a hash key per value for GROUP BY and DISTINCT.

import { StorageError } from '../../base/errors.ts';
import { INT64_MAX, INT64_MIN } from '../../schema/column-type.ts';
import type { SqlArithmeticOperator } from '../plan/bound-expression.ts';
import type { SqlType, SqlValue } from '../value.ts';

/** Orders two values of one comparable family; NULL sorts before everything. */
export function compareSqlValues(a: SqlValue, b: SqlValue): number {
  if (a === null || b === null) return a === null ? (b === null ? 0 : -1) : 1;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'bigint' && typeof b === 'number') return -compareNumberBigint(b, a);
  if (typeof a === 'number' && typeof b === 'bigint') return compareNumberBigint(a, b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  throw new StorageError('INTERNAL_ERROR', `values ${typeof a} and ${typeof b} compared`);
}

/** Exact: a bigint beyond 2^53 still orders right against a double. */
function compareNumberBigint(a: number, b: bigint): number {
  if (Number.isNaN(a)) return 1;
  if (a === Infinity) return 1;
  if (a === -Infinity) return -1;
  const floor = BigInt(Math.floor(a));
  if (floor < b) return -1;
  if (floor > b) return 1;
  return Number.isInteger(a) ? 0 : 1;
}

function checkLong(value: bigint, what: string): bigint {
  if (value > INT64_MAX || value < INT64_MIN) {
    throw new StorageError('SQL_PROC_VALUE_OVERFLOW', `integer overflow: ${what} is beyond LONG`);
  }
  return value;
}

/** LONG arithmetic: operands are integers of any shape. */
export function arithmeticLong(operator: SqlArithmeticOperator, a: number | bigint, b: number | bigint): bigint {
  const x = BigInt(a);
  const y = BigInt(b);
  switch (operator) {
    case '+': return checkLong(x + y, `${x} + ${y}`);
    case '-': return checkLong(x - y, `${x} - ${y}`);
    case '*': return checkLong(x * y, `${x} * ${y}`);
    case '/':
      if (y === 0n) throw new StorageError('SQL_PROC_INVALID_EXPRESSION_INPUT', `division by zero: ${x} / 0`);
      return checkLong(x / y, `${x} / ${y}`);
    case '%':
      if (y === 0n) throw new StorageError('SQL_PROC_INVALID_EXPRESSION_INPUT', `division by zero: ${x} % 0`);
      return x % y;
    case '&': return x & y;
    case '|': return x | y;
    // SQLite's shifts: a negative count shifts the other way; 64 or more gives 0 (or -1).
    case '<<': return shift(x, y);
    case '>>': return shift(x, -y);
  }
}

function shift(x: bigint, count: bigint): bigint {
  if (count >= 64n) return 0n;
  if (count <= -64n) return x < 0n ? -1n : 0n;
  if (count >= 0n) return BigInt.asIntN(64, x << count);
  return x >> -count;
}

export function arithmeticDouble(operator: SqlArithmeticOperator, a: number, b: number): number {
  switch (operator) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
    case '%': return a % b;
    default: throw new StorageError('INTERNAL_ERROR', `${operator} on DOUBLE`);
  }
}

export function negateLong(value: number | bigint): bigint {
  return checkLong(-BigInt(value), `-(${value})`);
}

const TIMESTAMP_SCALE: Partial<Record<SqlType, bigint>> = {
  'TIMESTAMP': 1n, 'TIMESTAMP(6)': 1000n, 'TIMESTAMP(9)': 1_000_000n,
};

/** A value of `from` as `to`, for the widenings of the planner (never narrowing). */
export function widenValue(value: SqlValue, from: SqlType, to: SqlType): SqlValue {
  if (value === null || from === to) return value;
  const fromScale = TIMESTAMP_SCALE[from];
  const toScale = TIMESTAMP_SCALE[to];
  if (fromScale !== undefined && toScale !== undefined) {
    return to === 'TIMESTAMP' ? value : BigInt(value as number | bigint) * (toScale / fromScale);
  }
  if (to === 'LONG') return BigInt(value as number | bigint);
  if (to === 'DOUBLE' || to === 'FLOAT') return Number(value);
  return value;
}

/** The text `||` makes of a value (timestamps in ISO 8601, UTC; BLOB as hex). */
export function concatText(value: Exclude<SqlValue, null>, type: SqlType): string {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex').toUpperCase();
  const scale = TIMESTAMP_SCALE[type];
  if (scale !== undefined) return timestampText(value as number | bigint, scale);
  return String(value);
}

export function timestampText(value: number | bigint, scale: bigint): string {
  const units = BigInt(value);
  const perMs = scale;
  const ms = units / perMs;
  const iso = new Date(Number(ms)).toISOString();
  if (perMs === 1n) return iso;
  const digits = perMs === 1000n ? 3 : 6;
  const extra = (units % perMs).toString().padStart(digits, '0');
  return `${iso.slice(0, -1)}${extra}Z`;
}

/** A key equal for equal values of one column type, for hash grouping and DISTINCT. */
export function valueKey(value: SqlValue): string {
  if (value === null) return 'N';
  switch (typeof value) {
    case 'number': return `n${value}`;
    case 'bigint': return `n${value}`;
    case 'boolean': return value ? 'T' : 'F';
    case 'string': return `s${value}`;
    default: return `x${Buffer.from(value).toString('hex')}`;
  }
}

/** Bytes a value holds on the heap, roughly, for the work memory of an operator. */
export function valueSizeBytes(value: SqlValue): number {
  if (typeof value === 'string') return 16 + 2 * value.length;
  if (value instanceof Uint8Array) return 64 + value.byteLength;
  return 8;
}
