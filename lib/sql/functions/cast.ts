// CAST(x AS type) (§5.8 "Syntax helpers") as a one-argument function per target type, so the
// planner compiles it like any call. NULL casts to NULL of the target.
//
//   from \ to   BOOL  integers  FLOAT/DOUBLE  TIMESTAMP(p)  STRING  BLOB
//   BOOL         =     1/0       1/0           -             text    -
//   integers    0→F   range     value         -             text    -
//   FLOAT/DOUBLE -    trunc,range value(range) -             text    -
//   TIMESTAMP    -     -         -             precision      text    -
//   STRING      t/f   parse     parse         parse          =       hex
//   BLOB         -     -         -             -             hex     =
//
// '-' is refused when the statement is planned (resultType gives the problem). Values that do
// not fit the target are SQL_PROC_VALUE_OVERFLOW (CAST(128 AS BYTE), CAST(1e300 AS FLOAT),
// CAST(NaN AS LONG)); text that does not read is SQL_PROC_VALUE_SYNTAX_ERROR.

import type { SqlColumnType } from '../sql-types.ts';
import type { SqlType, SqlValue } from '../value.ts';
import {
  isFloating, isInteger, isTimestamp, precisionOf, problem, valueOverflow, valueSyntaxError,
} from './function-kit.ts';
import type { SqlEvalContext, SqlScalarFunction } from './scalar-function.ts';
import { parseTimestampText, timestampFromNs, timestampNs } from './sql-timestamp.ts';
import { valueText } from './value-text.ts';

/** The range of each integer type, as GridDB stores them. */
export const INTEGER_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  BYTE: [-128n, 127n],
  SHORT: [-32_768n, 32_767n],
  INTEGER: [-2_147_483_648n, 2_147_483_647n],
  LONG: [-(2n ** 63n), 2n ** 63n - 1n],
};
const FLOAT_MAX = 3.4028234663852886e38;

/** Whether CAST from `source` to `target` is allowed (GridDB refuses the others). */
export function castAllowed(source: SqlType, target: SqlColumnType): boolean {
  if (source === 'UNKNOWN' || source === target || source === 'STRING' || target === 'STRING') {
    return true;
  }
  if (target === 'BOOL') return source === 'BOOL' || isInteger(source);
  if (isInteger(target) || isFloating(target)) {
    return source === 'BOOL' || isInteger(source) || isFloating(source);
  }
  if (isTimestamp(target)) return isTimestamp(source);
  return false; // BLOB from anything but STRING and BLOB
}

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER_TEXT = /^[+-]?\d+$/;

/** A double from text: decimal with optional exponent, Inf, Infinity, NaN (any case). */
export function parseDoubleText(text: string): number {
  const trimmed = text.trim();
  const word = trimmed.replace(/^[+-]/, '').toLowerCase();
  const negative = trimmed.startsWith('-');
  if (word === 'inf' || word === 'infinity') return negative ? -Infinity : Infinity;
  if (word === 'nan') return NaN;
  if (!NUMBER_TEXT.test(trimmed)) {
    throw valueSyntaxError(`'${text}' is not a number`);
  }
  const value = Number(trimmed);
  if (!Number.isFinite(value)) throw valueOverflow(`'${text}' is beyond DOUBLE`);
  return value;
}

function integerInRange(value: bigint, target: SqlColumnType): bigint {
  const [low, high] = INTEGER_RANGES[target]!;
  if (value < low || value > high) throw valueOverflow(`${value} is beyond ${target}`);
  return value;
}

function toIntegerValue(value: Exclude<SqlValue, null>, source: SqlType, target: SqlColumnType):
  number | bigint {
  let integer: bigint;
  if (typeof value === 'boolean') {
    integer = value ? 1n : 0n;
  } else if (typeof value === 'bigint') {
    integer = value;
  } else if (typeof value === 'string') {
    const trimmed = value.trim();
    if (INTEGER_TEXT.test(trimmed)) {
      integer = BigInt(trimmed);
    } else {
      integer = doubleToInteger(parseDoubleText(value), target);
    }
  } else if (typeof value === 'number') {
    integer = isInteger(source) ? BigInt(value) : doubleToInteger(value, target);
  } else {
    throw new TypeError(`CAST to ${target} of ${source}`);
  }
  integerInRange(integer, target);
  return target === 'LONG' ? integer : Number(integer);
}

function doubleToInteger(value: number, target: SqlColumnType): bigint {
  if (Number.isNaN(value) || !Number.isFinite(value)) {
    throw valueOverflow(`${value} is beyond ${target}`);
  }
  return BigInt(Math.trunc(value));
}

function toFloatingValue(value: Exclude<SqlValue, null>, target: SqlColumnType): number {
  let double: number;
  if (typeof value === 'boolean') double = value ? 1 : 0;
  else if (typeof value === 'bigint') double = Number(value);
  else if (typeof value === 'string') double = parseDoubleText(value);
  else if (typeof value === 'number') double = value;
  else throw new TypeError(`CAST to ${target} of a BLOB`);
  if (target === 'DOUBLE') return double;
  if (Number.isFinite(double) && Math.abs(double) > FLOAT_MAX) {
    throw valueOverflow(`${double} is beyond FLOAT`);
  }
  return Math.fround(double);
}

function toBoolValue(value: Exclude<SqlValue, null>): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (word === 'true') return true;
    if (word === 'false') return false;
    throw valueSyntaxError(`'${value}' is not a BOOL (true or false)`);
  }
  if (typeof value === 'bigint') return value !== 0n;
  if (typeof value === 'number') return value !== 0;
  throw new TypeError('CAST to BOOL of a BLOB');
}

/** Hex text (either case, even length) to bytes. */
export function parseHexText(text: string): Uint8Array {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) {
    throw valueSyntaxError(`'${text}' is not hex text of whole bytes`);
  }
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** The value of one non-NULL `value` of `source` as `target` (the pair castAllowed accepted). */
export function castValue(
  value: Exclude<SqlValue, null>,
  source: SqlType,
  target: SqlColumnType,
  context: SqlEvalContext,
): SqlValue {
  if (target === 'STRING') return valueText(value, source, context.timeZoneOffsetMinutes);
  if (target === 'BOOL') return toBoolValue(value);
  if (isInteger(target)) return toIntegerValue(value, source, target);
  if (isFloating(target)) return toFloatingValue(value, target);
  if (isTimestamp(target)) {
    const ns = typeof value === 'string'
      ? parseTimestampText(value, precisionOf(target),
        { argumentMinutes: undefined, sessionMinutes: context.timeZoneOffsetMinutes })
      : timestampNs(value, source);
    return timestampFromNs(ns, target, `CAST to ${target}`);
  }
  // BLOB
  if (typeof value === 'string') return parseHexText(value);
  return value;
}

const CASTS = new Map<SqlColumnType, SqlScalarFunction>();

/** CAST(x AS target): one argument; resultType refuses the conversions GridDB refuses. */
export function sqlCast(target: SqlColumnType): SqlScalarFunction {
  let cast = CASTS.get(target);
  if (cast === undefined) {
    cast = {
      name: `CAST AS ${target}`,
      minArgs: 1,
      maxArgs: 1,
      resultType(argTypes) {
        const source = argTypes[0]!;
        if (!castAllowed(source, target)) return problem(`CAST from ${source} to ${target} is not supported`);
        return target;
      },
      evaluate(args, argTypes, context) {
        const value = args[0]!;
        if (value === null) return null;
        return castValue(value, argTypes[0]!, target, context);
      },
    };
    CASTS.set(target, cast);
  }
  return cast;
}
