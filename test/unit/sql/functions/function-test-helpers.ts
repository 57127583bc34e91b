// Helpers of the SQL function tests: call a registered function (or a CAST) the way the executor
// will (resultType first, then evaluate), and expect a StorageError code.

import assert from 'node:assert/strict';
import { isStorageError, type StorageErrorCode } from '../../../../lib/base/errors.ts';
import { sqlCast } from '../../../../lib/sql/functions/cast.ts';
import { sqlScalarFunction } from '../../../../lib/sql/functions/registry.ts';
import type { SqlEvalContext, SqlScalarFunction } from
  '../../../../lib/sql/functions/scalar-function.ts';
import type { SqlColumnType } from '../../../../lib/sql/sql-types.ts';
import type { SqlType, SqlValue } from '../../../../lib/sql/value.ts';

export const START_MS = Date.UTC(2024, 1, 29, 12, 34, 56, 789);

export function context(timeZoneOffsetMinutes = 0): SqlEvalContext {
  let counter = 0;
  return {
    timeZoneOffsetMinutes,
    statementStartMs: START_MS,
    randomBytes: (count) => {
      const bytes = new Uint8Array(count);
      for (let i = 0; i < count; i++) bytes[i] = (counter++ * 37 + 11) & 0xff;
      return bytes;
    },
  };
}

/** A typed argument: [value, type]. The type of a plain value is guessed from its shape. */
export type Arg = SqlValue | readonly [SqlValue, SqlType];

export function typeOfValue(value: SqlValue): SqlType {
  if (value === null) return 'UNKNOWN';
  if (typeof value === 'boolean') return 'BOOL';
  if (typeof value === 'bigint') return 'LONG';
  if (typeof value === 'number') return 'DOUBLE';
  if (typeof value === 'string') return 'STRING';
  return 'BLOB';
}

function split(args: readonly Arg[]): { values: SqlValue[]; types: SqlType[] } {
  const values: SqlValue[] = [];
  const types: SqlType[] = [];
  for (const arg of args) {
    if (Array.isArray(arg)) {
      values.push(arg[0] as SqlValue);
      types.push(arg[1] as SqlType);
    } else {
      values.push(arg as SqlValue);
      types.push(typeOfValue(arg as SqlValue));
    }
  }
  return { values, types };
}

function definition(name: string): SqlScalarFunction {
  const found = sqlScalarFunction(name);
  assert(found !== undefined, `no function ${name}`);
  return found;
}

/** resultType of a call with every argument given as a constant. */
export function typeOf(name: string, ...args: Arg[]): SqlType | { problem: string } {
  const { values, types } = split(args);
  const fn = definition(name);
  assert(args.length >= fn.minArgs && args.length <= fn.maxArgs, `${name}: argument count`);
  return fn.resultType(types, values);
}

/** Calls `name` after checking its types; fails the test when resultType refuses. */
export function call(name: string, ...args: Arg[]): SqlValue {
  return callIn(0, name, ...args);
}

export function callIn(zoneMinutes: number, name: string, ...args: Arg[]): SqlValue {
  const { values, types } = split(args);
  const fn = definition(name);
  assert(args.length >= fn.minArgs && args.length <= fn.maxArgs, `${name}: argument count`);
  const type = fn.resultType(types, values);
  assert(typeof type === 'string', `${name}: ${JSON.stringify(type)}`);
  return fn.evaluate(values, types, context(zoneMinutes));
}

export function cast(target: SqlColumnType, arg: Arg, zoneMinutes = 0): SqlValue {
  const { values, types } = split([arg]);
  const fn = sqlCast(target);
  const type = fn.resultType(types, values);
  assert.equal(type, target, `CAST(${types[0]} AS ${target}): ${JSON.stringify(type)}`);
  return fn.evaluate(values, types, context(zoneMinutes));
}

export function castProblem(target: SqlColumnType, type: SqlType): boolean {
  return typeof sqlCast(target).resultType([type], [undefined]) !== 'string';
}

export function assertThrowsCode(run: () => unknown, code: StorageErrorCode): void {
  assert.throws(run, (error: unknown) => {
    assert(isStorageError(error, code), `expected ${code}, got ${String(error)}`);
    return true;
  });
}

export function assertProblem(type: SqlType | { problem: string }): void {
  assert(typeof type !== 'string', `expected a type problem, got ${String(type)}`);
}
