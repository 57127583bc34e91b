// The optional time zone argument of §5.8's time functions and the time unit argument they take
// first. The planner hands a unit keyword (the parser's `timeUnit` node) over as a constant STRING
// holding its upper-case name, so units are checked once, at plan time; a zone is any STRING
// (checked at plan time when it is a constant, else per row). Zones are Z, ±hh:mm or ±hhmm.

import type { SqlType, SqlValue } from '../value.ts';
import { fits, invalidInput, isStringType, problem } from './function-kit.ts';
import type { SqlEvalContext, SqlResultType } from './scalar-function.ts';
import { parseZone } from './sql-timestamp.ts';

/** The problem with a zone argument at plan time, if any. */
export function zoneArgumentProblem(name: string, type: SqlType | undefined,
  constant: SqlValue | undefined): SqlResultType | undefined {
  if (type === undefined) return undefined;
  if (!fits(type, isStringType)) return problem(`${name}: the time zone must be a STRING, not ${type}`);
  if (typeof constant === 'string' && parseZone(constant) === undefined) {
    return problem(`${name}: '${constant}' is not a time zone (Z, +hh:mm or -hh:mm)`);
  }
  return undefined;
}

/** The zone of one call: its argument when given, else the session's. */
export function zoneMinutesOf(name: string, zone: SqlValue | undefined, context: SqlEvalContext):
  number {
  if (zone === undefined) return context.timeZoneOffsetMinutes;
  const minutes = parseZone(zone as string);
  if (minutes === undefined) {
    throw invalidInput(`${name}: '${String(zone)}' is not a time zone (Z, +hh:mm or -hh:mm)`);
  }
  return minutes;
}

/** The unit named by a constant first argument, or the problem with it. */
export function unitArgument<U extends string>(name: string, type: SqlType | undefined,
  constant: SqlValue | undefined, units: readonly U[]): U | { problem: string } {
  if (type !== 'STRING' || typeof constant !== 'string') {
    return { problem: `${name}: the first argument must be a time unit (${units.join(', ')})` };
  }
  const unit = constant.toUpperCase() as U;
  if (!units.includes(unit)) {
    return { problem: `${name}: ${constant} is not one of ${units.join(', ')}` };
  }
  return unit;
}

/** The unit of one call (resultType checked it when the call was planned). */
export function unitValue<U extends string>(name: string, value: SqlValue | undefined,
  units: readonly U[]): U {
  const unit = String(value).toUpperCase() as U;
  if (!units.includes(unit)) throw invalidInput(`${name}: ${String(value)} is not a time unit`);
  return unit;
}
