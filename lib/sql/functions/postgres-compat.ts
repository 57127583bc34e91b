// Scalar functions that PostgreSQL tools put into the SQL they generate and GridDB's §5.8 has not:
// FLOOR and CEIL (CEILING), which Grafana's `$__timeGroup` expands to
// (`floor(extract(epoch from ts)/60)*60`). They exist only for statements that come over the
// PostgreSQL protocol (the `postgres` dialect, run-statement.ts): a GridDB client gets §5.8's
// functions and nothing else, as from GridDB. An integer argument comes back as it is (LONG), a
// floating one as DOUBLE, as PostgreSQL's floor(float8) does.

import { argumentsProblem, isFloating, isNumeric, strictFunction, toBigint } from './function-kit.ts';
import { sqlScalarFunction } from './registry.ts';
import type { SqlScalarFunction } from './scalar-function.ts';

function rounding(name: string, round: (value: number) => number): SqlScalarFunction {
  return strictFunction({
    name, minArgs: 1, maxArgs: 1,
    resultType: (argTypes) => argumentsProblem(name, argTypes, [isNumeric], ['a number']) ??
      (isFloating(argTypes[0]!) ? 'DOUBLE' : 'LONG'),
    evaluate([value], [type]) {
      return isFloating(type!) ? round(value as number) : toBigint(value!, name);
    },
  });
}

const POSTGRES_FUNCTIONS: ReadonlyMap<string, SqlScalarFunction> = new Map([
  ['FLOOR', rounding('FLOOR', Math.floor)],
  ['CEIL', rounding('CEIL', Math.ceil)],
  ['CEILING', rounding('CEILING', Math.ceil)],
]);

/** §5.8's function called `name`, else PostgreSQL's of this file; undefined when neither has one. */
export function postgresScalarFunction(name: string): SqlScalarFunction | undefined {
  return sqlScalarFunction(name) ?? POSTGRES_FUNCTIONS.get(name.toUpperCase());
}
