// Every scalar SQL function by its upper-case name (aliases are entries of their own), for the
// planner to resolve calls. Aggregates and window functions are the executor's operators and are
// not here; CAST is not a function call either (lib/sql/functions/cast.ts).

import { assert } from '../../base/assert.ts';
import { GLOB, LIKE } from './pattern.ts';
import type { SqlScalarFunction } from './scalar-function.ts';

const FUNCTIONS: readonly SqlScalarFunction[] = [LIKE, GLOB];

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
