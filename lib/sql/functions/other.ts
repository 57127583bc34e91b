// The "other" scalar functions of §5.8: COALESCE, IFNULL, NULLIF, RANDOMBLOB, ZEROBLOB, HEX,
// TYPEOF. COALESCE and IFNULL take arguments of one common type (integers widen to LONG, numbers
// to DOUBLE, timestamps to the finest precision; math.ts commonType); NULLIF keeps its first
// argument's type. HEX writes the UTF-8 bytes of a string, the bytes of a BLOB and the text of
// anything else (SQLite's rule), upper-case. RANDOMBLOB(n) and ZEROBLOB(n) take 0 ≤ n ≤
// SQL_FUNCTION_VALUE_BYTES_MAX (SQLite makes one byte of RANDOMBLOB(0); here it is empty).

import { StorageError } from '../../base/errors.ts';
import { SQL_FUNCTION_VALUE_BYTES_MAX } from '../../base/limits.ts';
import type { SqlType } from '../value.ts';
import { compareSqlValues } from './compare.ts';
import {
  argumentsProblem, invalidInput, isInteger, strictFunction, toBigint,
} from './function-kit.ts';
import { commonType, convertToCommon } from './math.ts';
import type { SqlScalarFunction } from './scalar-function.ts';
import { hexText, valueText } from './value-text.ts';

function coalescing(name: string, minArgs: number, maxArgs: number): SqlScalarFunction {
  return {
    name, minArgs, maxArgs,
    resultType: (argTypes) => {
      const type = commonType(name, argTypes);
      return type;
    },
    evaluate(args, argTypes) {
      const target = commonType(name, argTypes) as SqlType;
      for (let i = 0; i < args.length; i++) {
        if (args[i] !== null) return convertToCommon(args[i]!, argTypes[i]!, target);
      }
      return null;
    },
  };
}

export const COALESCE = coalescing('COALESCE', 1, Infinity);
export const IFNULL = coalescing('IFNULL', 2, 2);

export const NULLIF: SqlScalarFunction = {
  name: 'NULLIF', minArgs: 2, maxArgs: 2,
  resultType(argTypes) {
    const common = commonType('NULLIF', argTypes);
    if (typeof common !== 'string') return common;
    return argTypes[0]!;
  },
  evaluate([first, second], argTypes) {
    if (first === null || first === undefined) return null;
    if (second === null || second === undefined) return first;
    const target = commonType('NULLIF', argTypes) as SqlType;
    const a = convertToCommon(first, argTypes[0]!, target);
    const b = convertToCommon(second, argTypes[1]!, target);
    return compareSqlValues(a, b) === 0 ? null : first;
  },
};

function blobSize(name: string, value: Parameters<typeof toBigint>[0]): number {
  const size = toBigint(value, name);
  if (size < 0n) throw invalidInput(`${name}: the size ${size} is negative`);
  if (size > BigInt(SQL_FUNCTION_VALUE_BYTES_MAX)) {
    throw new StorageError('LIMIT_EXCEEDED',
      `${name}: ${size} bytes is over ${SQL_FUNCTION_VALUE_BYTES_MAX}`);
  }
  return Number(size);
}

const INTEGER_ARG = [isInteger];

export const RANDOMBLOB = strictFunction({
  name: 'RANDOMBLOB', minArgs: 1, maxArgs: 1, volatile: true,
  resultType: (argTypes) =>
    argumentsProblem('RANDOMBLOB', argTypes, INTEGER_ARG, ['an integer']) ?? 'BLOB',
  evaluate: ([size], _types, context) => context.randomBytes(blobSize('RANDOMBLOB', size!)),
});

export const ZEROBLOB = strictFunction({
  name: 'ZEROBLOB', minArgs: 1, maxArgs: 1,
  resultType: (argTypes) =>
    argumentsProblem('ZEROBLOB', argTypes, INTEGER_ARG, ['an integer']) ?? 'BLOB',
  evaluate: ([size]) => new Uint8Array(blobSize('ZEROBLOB', size!)),
});

export const HEX = strictFunction({
  name: 'HEX', minArgs: 1, maxArgs: 1,
  resultType: () => 'STRING',
  evaluate([value], [type], context) {
    if (value instanceof Uint8Array) return hexText(value);
    const text = valueText(value!, type!, context.timeZoneOffsetMinutes);
    return hexText(new TextEncoder().encode(text));
  },
});

export const TYPEOF: SqlScalarFunction = {
  name: 'TYPEOF', minArgs: 1, maxArgs: 1,
  resultType: () => 'STRING',
  evaluate: ([value], [type]) => (value === null || type === 'UNKNOWN' ? 'NULL' : type!),
};
