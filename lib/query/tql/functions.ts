// Every function name TQL knows, by kind: scalar functions (usable in WHERE), aggregates (only as
// the select expression; the time-series ones are in time-series-bind.ts, the spatial ones in
// function-spatial.ts), and the functions that store does not have (the geometry constructors,
// undocumented ones of GridDB's server), which are refused with NOT_SUPPORTED rather than
// "unknown function".

import { STRING_FUNCTIONS } from './function-string.ts';
import type { ScalarFunctionSpec } from './function-spec.ts';
import { OTHER_FUNCTIONS } from './function-other.ts';
import { SPATIAL_FUNCTIONS } from './function-spatial.ts';
import { TIME_FUNCTIONS } from './function-time.ts';

export const SCALAR_FUNCTIONS: ReadonlyMap<string, ScalarFunctionSpec> = new Map(Object.entries({
  ...STRING_FUNCTIONS, ...TIME_FUNCTIONS, ...OTHER_FUNCTIONS, ...SPATIAL_FUNCTIONS,
}));

export const AGGREGATE_FUNCTIONS = [
  'COUNT', 'SUM', 'AVG', 'MIN', 'MAX', 'VARIANCE', 'STDDEV',
  'VARIANCE_SAMP', 'STDDEV_SAMP', 'VARIANCE_POP', 'STDDEV_POP',
] as const;
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

export function isAggregateFunction(name: string): name is AggregateFunction {
  return (AGGREGATE_FUNCTIONS as readonly string[]).includes(name);
}

const UNDOCUMENTED = "an undocumented function of GridDB's server, which store does not implement";

/** Functions of GridDB's TQL that store does not have yet. */
const LATER_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  // GridDB's server registers TIME_WINDOW_AGG; its manual does not document it.
  ['TIME_WINDOW_AGG', UNDOCUMENTED] as const,
  ...[
    'POINT', 'LINESTRING', 'POLYGON', 'POLYHEDRALSURFACE', 'QUADRATICSURFACE',
  ].map((name) => [name, 'geometry constructors (use ST_GeomFromText)'] as const),
  ...['STRING', 'FROM_TIMESTAMP', 'TO_TIMESTAMP', 'TO_EPOCH']
    .map((name) => [name, UNDOCUMENTED] as const),
]);

/** Which group a not-yet-supported function belongs to, or undefined. */
export function laterFunctionGroup(name: string): string | undefined {
  return LATER_FUNCTIONS.get(name);
}
