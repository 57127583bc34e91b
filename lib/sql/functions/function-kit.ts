// What the scalar functions of §5.8 share: the errors a value can raise while a statement runs,
// the NULL rule most functions follow (any NULL argument → NULL, checked before evaluate), and
// the type tests of their argument checks. One place, so every function words its errors alike.

import { StorageError } from '../../base/errors.ts';
import type { TimePrecision } from '../../schema/column-type.ts';
import {
  SQL_FLOATING_TYPES, SQL_INTEGER_TYPES, SQL_TIMESTAMP_TYPES, type SqlType, type SqlValue,
} from '../value.ts';
import type { SqlEvalContext, SqlResultType, SqlScalarFunction } from './scalar-function.ts';

export function valueOverflow(message: string): StorageError {
  return new StorageError('SQL_PROC_VALUE_OVERFLOW', message);
}

export function valueSyntaxError(message: string): StorageError {
  return new StorageError('SQL_PROC_VALUE_SYNTAX_ERROR', message);
}

export function invalidInput(message: string): StorageError {
  return new StorageError('SQL_PROC_INVALID_EXPRESSION_INPUT', message);
}

export const LONG_MIN = -(2n ** 63n);
export const LONG_MAX = 2n ** 63n - 1n;

/** A LONG result, or SQL_PROC_VALUE_OVERFLOW when it leaves the 64-bit range. */
export function checkedLong(value: bigint, what: string): bigint {
  if (value < LONG_MIN || value > LONG_MAX) throw valueOverflow(`${what}: ${value} is beyond LONG`);
  return value;
}

export function isInteger(type: SqlType): boolean {
  return SQL_INTEGER_TYPES.has(type);
}

export function isFloating(type: SqlType): boolean {
  return SQL_FLOATING_TYPES.has(type);
}

export function isNumeric(type: SqlType): boolean {
  return isInteger(type) || isFloating(type);
}

export function isTimestamp(type: SqlType): boolean {
  return SQL_TIMESTAMP_TYPES.has(type);
}

/** UNKNOWN (a bare NULL) fits every argument. */
export function fits(type: SqlType, test: (type: SqlType) => boolean): boolean {
  return type === 'UNKNOWN' || test(type);
}

export function isStringType(type: SqlType): boolean {
  return type === 'STRING';
}

export function precisionOf(type: SqlType): TimePrecision {
  return type === 'TIMESTAMP(9)' ? 'NANOSECOND'
    : type === 'TIMESTAMP(6)' ? 'MICROSECOND' : 'MILLISECOND';
}

export function timestampTypeOf(precision: TimePrecision): SqlType {
  return precision === 'NANOSECOND' ? 'TIMESTAMP(9)'
    : precision === 'MICROSECOND' ? 'TIMESTAMP(6)' : 'TIMESTAMP';
}

/** A number of an integer or floating argument as a double (LONG may lose precision). */
export function toDouble(value: SqlValue): number {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new TypeError(`not a number: ${String(value)}`);
}

/** An integer argument as a bigint (a double is truncated toward zero, after a range check). */
export function toBigint(value: SqlValue, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (Number.isNaN(value) || value >= 2 ** 63 || value < -(2 ** 63)) {
      throw valueOverflow(`${what}: ${value} is beyond LONG`);
    }
    return BigInt(Math.trunc(value));
  }
  if (typeof value === 'boolean') return value ? 1n : 0n;
  throw new TypeError(`not an integer: ${String(value)}`);
}

export function problem(text: string): SqlResultType {
  return { problem: text };
}

/** Checks every argument against one test and names the first that fails. */
export function argumentsProblem(
  name: string,
  argTypes: readonly SqlType[],
  tests: readonly ((type: SqlType) => boolean)[],
  expected: readonly string[],
): SqlResultType | undefined {
  for (let i = 0; i < argTypes.length; i++) {
    const test = tests[Math.min(i, tests.length - 1)]!;
    if (!fits(argTypes[i]!, test)) {
      const what = expected[Math.min(i, expected.length - 1)]!;
      return problem(`${name}: argument ${i + 1} must be ${what}, not ${argTypes[i]}`);
    }
  }
  return undefined;
}

interface StrictDefinition {
  readonly name: string;
  readonly minArgs: number;
  readonly maxArgs: number;
  readonly volatile?: boolean;
  readonly resultType: SqlScalarFunction['resultType'];
  /** Called only when no argument is NULL. */
  readonly evaluate: (
    args: readonly Exclude<SqlValue, null>[],
    argTypes: readonly SqlType[],
    context: SqlEvalContext,
  ) => SqlValue;
  readonly evaluateColumns?: SqlScalarFunction['evaluateColumns'];
}

/** A function whose value is NULL as soon as one argument is NULL (most of §5.8). */
export function strictFunction(definition: StrictDefinition): SqlScalarFunction {
  return {
    name: definition.name,
    minArgs: definition.minArgs,
    maxArgs: definition.maxArgs,
    ...(definition.volatile === true ? { volatile: true } : {}),
    resultType: definition.resultType,
    ...(definition.evaluateColumns === undefined ? {} : { evaluateColumns: definition.evaluateColumns }),
    evaluate(args, argTypes, context) {
      for (const arg of args) if (arg === null) return null;
      return definition.evaluate(args as readonly Exclude<SqlValue, null>[], argTypes, context);
    },
  };
}

/** An alias: the same function under another name. */
export function aliasOf(name: string, target: SqlScalarFunction): SqlScalarFunction {
  return { ...target, name };
}
