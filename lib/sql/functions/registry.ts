// Every scalar SQL function by its upper-case name (aliases are entries of their own), for the
// planner to resolve calls. Aggregates and window functions are the executor's operators and are
// not here; CAST is not a function call either (lib/sql/functions/cast.ts).

import type { SqlScalarFunction } from './scalar-function.ts';

const FUNCTIONS: readonly SqlScalarFunction[] = [];

const BY_NAME: ReadonlyMap<string, SqlScalarFunction> =
  new Map(FUNCTIONS.map((definition) => [definition.name, definition]));

/** The function called `name` (any case), or undefined when SQL has none of that name. */
export function sqlScalarFunction(name: string): SqlScalarFunction | undefined {
  return BY_NAME.get(name.toUpperCase());
}
