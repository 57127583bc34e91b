// Every scalar SQL function by its upper-case name (aliases are entries of their own), for the
// planner to resolve calls. Aggregates and window functions are the executor's operators and are
// not here; CAST is not a function call either (lib/sql/functions/cast.ts). MAX and MIN here are
// the scalar forms (two or more arguments); with one argument they are aggregates. A time unit
// keyword argument (EXTRACT, TIMESTAMP_ADD/DIFF/TRUNC) reaches a function as a constant STRING of
// its upper-case name; `x LIKE p ESCAPE e` is LIKE(p, x, e) and `x GLOB p` is GLOB(p, x).

import { assert } from '../../base/assert.ts';
import { ABS, HEX_TO_DEC, LOG, RANDOM, ROUND, SCALAR_MAX, SCALAR_MIN, SQRT, TRUNC } from './math.ts';
import { COALESCE, HEX, IFNULL, NULLIF, RANDOMBLOB, TYPEOF, ZEROBLOB } from './other.ts';
import { GLOB, LIKE } from './pattern.ts';
import { PRINTF } from './printf.ts';
import type { SqlScalarFunction } from './scalar-function.ts';
import {
  CHAR, INSTR, LENGTH, LOWER, LTRIM, QUOTE, REPLACE, RTRIM, SUBSTR, TRANSLATE, TRIM, UNICODE, UPPER,
} from './string.ts';
import {
  EXTRACT, MAKE_TIMESTAMP, NOW, STRFTIME, TIMESTAMP, TIMESTAMP_ADD, TIMESTAMP_DIFF, TIMESTAMP_MS,
  TIMESTAMP_NS, TIMESTAMP_TRUNC, TIMESTAMP_US, TIMESTAMPADD, TIMESTAMPDIFF, TO_EPOCH_MS,
  TO_TIMESTAMP_MS,
} from './time.ts';

const FUNCTIONS: readonly SqlScalarFunction[] = [
  // mathematical
  ABS, ROUND, TRUNC, SQRT, LOG, RANDOM, HEX_TO_DEC, SCALAR_MAX, SCALAR_MIN,
  // string
  LENGTH, LOWER, UPPER, SUBSTR, REPLACE, INSTR, LIKE, GLOB, TRIM, LTRIM, RTRIM, QUOTE, UNICODE,
  CHAR, PRINTF, TRANSLATE,
  // time
  NOW, TIMESTAMP, TIMESTAMP_MS, TIMESTAMP_US, TIMESTAMP_NS, TIMESTAMP_ADD, TIMESTAMPADD,
  TIMESTAMP_DIFF, TIMESTAMPDIFF, TO_TIMESTAMP_MS, TO_EPOCH_MS, EXTRACT, STRFTIME, MAKE_TIMESTAMP,
  TIMESTAMP_TRUNC,
  // other
  COALESCE, IFNULL, NULLIF, RANDOMBLOB, ZEROBLOB, HEX, TYPEOF,
];

const BY_NAME: ReadonlyMap<string, SqlScalarFunction> =
  new Map(FUNCTIONS.map((definition) => [definition.name, definition]));
assert(BY_NAME.size === FUNCTIONS.length); // no name twice

/** Every registered name, for docs and tests. */
export function sqlScalarFunctionNames(): string[] {
  return [...BY_NAME.keys()];
}

/** The function called `name` (any case), or undefined when SQL has none of that name. */
export function sqlScalarFunction(name: string): SqlScalarFunction | undefined {
  return BY_NAME.get(name.toUpperCase());
}
