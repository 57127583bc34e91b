// The mathematical scalar functions of §5.8: ABS, ROUND, TRUNC, SQRT, LOG, RANDOM, HEX_TO_DEC and
// the scalar (two or more argument) MAX and MIN. Integer arguments give LONG results (bigint,
// exact), FLOAT and DOUBLE give DOUBLE. Where the spec is silent, GridDB's server settles it:
//   ROUND(n, m): an integer n comes back as it is; a negative m counts as 0; halves round away
//     from zero (floor(x·10^m + 0.5) for x ≥ 0).
//   TRUNC(n, m): m in −307…308 for DOUBLE, else SQL_PROC_INVALID_EXPRESSION_INPUT; an integer n
//     with m < 0 loses its last −m digits (0 past 18 digits).
//   SQRT of a negative number, LOG with base ≤ 0, base 1 or x ≤ 0: SQL_PROC_INVALID_EXPRESSION_INPUT.
//   HEX_TO_DEC: spaces around the digits are skipped; 16 digits at most, and below 8 in the first
//     of 16 (no negative results): beyond is SQL_PROC_VALUE_OVERFLOW.

import type { SqlType, SqlValue } from '../value.ts';
import {
  argumentsProblem, checkedLong, invalidInput, isFloating, isInteger, isNumeric, isStringType,
  isTimestamp, problem, strictFunction, toBigint, toDouble, valueOverflow,
} from './function-kit.ts';
import type { SqlResultType, SqlScalarFunction } from './scalar-function.ts';
import { timestampNs } from './sql-timestamp.ts';
import { compareSqlValues } from './compare.ts';

const DOUBLE_EXPONENT10_MAX = 308;
const DOUBLE_EXPONENT10_MIN = -307;
/** Past 18 digits every LONG truncates to 0. */
const LONG_DIGITS_MAX = 18;
const HEX_DIGITS_MAX = 16;

/** LONG for an integer argument, DOUBLE for a floating one (UNKNOWN gives LONG). */
function numericResult(name: string, argTypes: readonly SqlType[]): SqlResultType {
  const first = argTypes[0]!;
  const bad = argumentsProblem(name, argTypes, [isNumeric, isInteger],
    ['a number', 'an integer']);
  if (bad !== undefined) return bad;
  return isFloating(first) ? 'DOUBLE' : 'LONG';
}

export const ABS: SqlScalarFunction = strictFunction({
  name: 'ABS', minArgs: 1, maxArgs: 1,
  resultType: (argTypes) => numericResult('ABS', argTypes),
  evaluate([value], [type]) {
    if (isFloating(type!)) return Math.abs(value as number);
    const integer = toBigint(value!, 'ABS');
    return checkedLong(integer < 0n ? -integer : integer, 'ABS');
  },
});

/** GridDB's ROUND of a double to `digits` places, halves away from zero. */
export function roundDouble(value: number, digits: number): number {
  if (!Number.isFinite(value) || digits > DOUBLE_EXPONENT10_MAX) return value;
  const scale = 10 ** digits;
  if (!Number.isFinite(scale)) return value;
  const shifted = value * scale;
  const rounded = value < 0 ? Math.ceil(shifted - 0.5) : Math.floor(shifted + 0.5);
  return rounded / scale;
}

export const ROUND: SqlScalarFunction = strictFunction({
  name: 'ROUND', minArgs: 1, maxArgs: 2,
  resultType: (argTypes) => numericResult('ROUND', argTypes),
  evaluate([value, digits], [type]) {
    if (!isFloating(type!)) return toBigint(value!, 'ROUND');
    const places = digits === undefined ? 0n : toBigint(digits, 'ROUND');
    return roundDouble(value as number, places < 0n ? 0 : Number(places));
  },
});

/** GridDB's TRUNC of a double at `radix` places (negative: left of the point). */
export function truncDouble(value: number, radix: number): number {
  if (value === 0) return value; // before the range check, as in GridDB
  if (radix > DOUBLE_EXPONENT10_MAX || radix < DOUBLE_EXPONENT10_MIN) {
    throw invalidInput(`TRUNC: the places ${radix} are outside ${DOUBLE_EXPONENT10_MIN}…` +
      `${DOUBLE_EXPONENT10_MAX}`);
  }
  if (!Number.isFinite(value)) return value;
  if (radix === 0) return Math.trunc(value);
  // Scaling by a power of ten that is exact (10^|radix| up to 10^22) keeps 2.789 → 2.78, where
  // GridDB multiplies by 10^-radix and gets 2.7800000000000002.
  const scale = 10 ** Math.abs(radix);
  return radix > 0 ? Math.trunc(value * scale) / scale : Math.trunc(value / scale) * scale;
}

export const TRUNC: SqlScalarFunction = strictFunction({
  name: 'TRUNC', minArgs: 1, maxArgs: 2,
  resultType: (argTypes) => numericResult('TRUNC', argTypes),
  evaluate([value, places], [type]) {
    const radix = places === undefined ? 0n : toBigint(places, 'TRUNC');
    if (isFloating(type!)) {
      const clamped = radix > 10_000n ? 10_000 : radix < -10_000n ? -10_000 : Number(radix);
      return truncDouble(value as number, clamped);
    }
    const integer = toBigint(value!, 'TRUNC');
    if (radix >= 0n) return integer;
    if (-radix > BigInt(LONG_DIGITS_MAX)) return 0n;
    const unit = 10n ** -radix;
    return integer - (integer % unit);
  },
});

export const SQRT: SqlScalarFunction = strictFunction({
  name: 'SQRT', minArgs: 1, maxArgs: 1,
  resultType: (argTypes) => argumentsProblem('SQRT', argTypes, [isNumeric], ['a number']) ??
    'DOUBLE',
  evaluate([value]) {
    const double = toDouble(value!);
    if (double < 0) throw invalidInput(`SQRT: ${double} is negative`);
    return Math.sqrt(double);
  },
});

export const LOG: SqlScalarFunction = strictFunction({
  name: 'LOG', minArgs: 2, maxArgs: 2,
  resultType: (argTypes) => argumentsProblem('LOG', argTypes, [isNumeric], ['a number']) ??
    'DOUBLE',
  evaluate([baseValue, value]) {
    const base = toDouble(baseValue!);
    const x = toDouble(value!);
    if (base <= 0 || base === 1) throw invalidInput(`LOG: the base ${base} is ≤ 0 or 1`);
    if (x <= 0) throw invalidInput(`LOG: ${x} is ≤ 0`);
    return Math.log(x) / Math.log(base);
  },
});

export const RANDOM: SqlScalarFunction = {
  name: 'RANDOM', minArgs: 0, maxArgs: 0, volatile: true,
  resultType: () => 'LONG',
  evaluate(_args, _types, context) {
    const bytes = context.randomBytes(8);
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigInt64(0);
  },
};

export const HEX_TO_DEC: SqlScalarFunction = strictFunction({
  name: 'HEX_TO_DEC', minArgs: 1, maxArgs: 1,
  resultType: (argTypes) =>
    argumentsProblem('HEX_TO_DEC', argTypes, [isStringType], ['a STRING']) ?? 'LONG',
  evaluate([value]) {
    const digits = (value as string).trim();
    if (digits.length === 0) throw invalidInput('HEX_TO_DEC: no hex digits');
    if (!/^[0-9a-fA-F]+$/.test(digits)) {
      throw invalidInput(`HEX_TO_DEC: '${String(value)}' holds a character that is not a hex digit`);
    }
    if (digits.length > HEX_DIGITS_MAX ||
      (digits.length === HEX_DIGITS_MAX && parseInt(digits[0]!, 16) >= 8)) {
      throw valueOverflow(`HEX_TO_DEC: '${digits}' is beyond LONG`);
    }
    return BigInt(`0x${digits}`);
  },
});

/** The common type of MAX/MIN's arguments (and COALESCE's, IFNULL's): problem when none. */
export function commonType(name: string, argTypes: readonly SqlType[]): SqlResultType {
  const known = argTypes.filter((type) => type !== 'UNKNOWN');
  if (known.length === 0) return 'UNKNOWN';
  if (known.every((type) => type === known[0])) return known[0]!;
  if (known.every(isInteger)) return 'LONG';
  if (known.every(isNumeric)) return 'DOUBLE';
  if (known.every(isTimestamp)) {
    return known.includes('TIMESTAMP(9)') ? 'TIMESTAMP(9)'
      : known.includes('TIMESTAMP(6)') ? 'TIMESTAMP(6)' : 'TIMESTAMP';
  }
  return problem(`${name}: the arguments ${known.join(', ')} have no common type`);
}

/** A value of `type` converted to `target` (a common type of commonType). */
export function convertToCommon(value: SqlValue, type: SqlType, target: SqlType): SqlValue {
  if (value === null || type === target) return value;
  if (target === 'LONG') return toBigint(value, 'conversion');
  if (target === 'DOUBLE') return toDouble(value);
  if (isTimestamp(target)) {
    const ns = timestampNs(value, type);
    return target === 'TIMESTAMP(9)' ? ns : target === 'TIMESTAMP(6)' ? ns / 1000n : Number(ns / 1_000_000n);
  }
  return value;
}

function extreme(name: 'MAX' | 'MIN'): SqlScalarFunction {
  return strictFunction({
    name, minArgs: 2, maxArgs: Infinity,
    resultType: (argTypes) => {
      const type = commonType(name, argTypes);
      if (type === 'BLOB') return problem(`${name}: BLOB values are not ordered`);
      return type;
    },
    evaluate(args, argTypes) {
      const target = commonType(name, argTypes) as SqlType;
      let best = convertToCommon(args[0]!, argTypes[0]!, target);
      for (let i = 1; i < args.length; i++) {
        const value = convertToCommon(args[i]!, argTypes[i]!, target);
        const order = compareSqlValues(value, best);
        if (name === 'MAX' ? order > 0 : order < 0) best = value;
      }
      return best;
    },
  });
}

export const SCALAR_MAX = extreme('MAX');
export const SCALAR_MIN = extreme('MIN');
