// The time scalar functions of §5.8. Calendar work happens on wall-clock time in the call's zone
// (its last argument, else the session's): YEAR and MONTH steps of TIMESTAMP_ADD clamp to the
// month's last day (May 31 + 1 month = Jun 30) and TIMESTAMP_DIFF counts whole months that have
// passed, both through lib/query/tql/timestamp.ts; fixed units (DAY and below) are exact steps of
// ns. Results outside 1970-01-01…9999-12-31 are SQL_PROC_VALUE_OVERFLOW.
//
// EXTRACT's MILLISECOND, MICROSECOND and NANOSECOND are the fraction of the second in those units
// (0…999, 0…999,999, 0…999,999,999); DAY_OF_WEEK is 0 for Sunday. STRFTIME's third argument is a
// zone (GridDB's server reads it so); `%W` is the week of the year with weeks starting on Monday
// (00…53), `%c` the timestamp as CAST writes it, `%z` the zone (Z or ±hh:mm).

import { daysInMonth, timestampAdd, timestampDiff } from '../../query/tql/timestamp.ts';
import type { SqlType, SqlValue } from '../value.ts';
import {
  aliasOf, argumentsProblem, fits, invalidInput, isInteger, isNumeric, isStringType, isTimestamp,
  precisionOf, problem, strictFunction, toBigint, toDouble, valueOverflow,
} from './function-kit.ts';
import type { SqlResultType, SqlScalarFunction } from './scalar-function.ts';
import {
  civilTime, floorDiv, formatTimestamp, formatZone, NS_PER_DAY, NS_PER_HOUR, NS_PER_MINUTE,
  NS_PER_MS, NS_PER_SECOND, nsFromCivil, parseTimestampText, timestampFromNs, timestampNs,
} from './sql-timestamp.ts';
import { unitArgument, unitValue, zoneArgumentProblem, zoneMinutesOf } from './time-zone-arg.ts';

const STEP_UNITS = [
  'YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND',
] as const;
type StepUnit = (typeof STEP_UNITS)[number];
const EXTRACT_FIELDS = [...STEP_UNITS, 'DAY_OF_WEEK', 'DAY_OF_YEAR'] as const;
type ExtractField = (typeof EXTRACT_FIELDS)[number];

const FIXED_UNIT_NS: Record<Exclude<StepUnit, 'YEAR' | 'MONTH'>, bigint> = {
  DAY: NS_PER_DAY, HOUR: NS_PER_HOUR, MINUTE: NS_PER_MINUTE, SECOND: NS_PER_SECOND,
  MILLISECOND: NS_PER_MS, MICROSECOND: 1000n, NANOSECOND: 1n,
};

/** Units of a fixed length in ms, by the exact text a query names them with (upper case). */
const FIXED_UNIT_MS: ReadonlyMap<string, number> = new Map([
  ['DAY', 86_400_000], ['HOUR', 3_600_000], ['MINUTE', 60_000], ['SECOND', 1000], ['MILLISECOND', 1],
]);

function timestampArgProblem(name: string, index: number, type: SqlType | undefined):
  SqlResultType | undefined {
  if (type === undefined || fits(type, isTimestamp)) return undefined;
  return problem(`${name}: argument ${index + 1} must be a TIMESTAMP, not ${type}`);
}

export const NOW: SqlScalarFunction = {
  name: 'NOW', minArgs: 0, maxArgs: 0, volatile: true,
  resultType: () => 'TIMESTAMP',
  evaluate: (_args, _types, context) => context.statementStartMs,
};

function timestampParser(name: string, type: SqlType): SqlScalarFunction {
  return strictFunction({
    name, minArgs: 1, maxArgs: 2,
    resultType: (argTypes, constants) =>
      argumentsProblem(name, argTypes.slice(0, 1), [isStringType], ['a STRING']) ??
      zoneArgumentProblem(name, argTypes[1], constants[1]) ?? type,
    evaluate([text, zone], _types, context) {
      const ns = parseTimestampText(text as string, precisionOf(type), {
        argumentMinutes: zone === undefined ? undefined : zoneMinutesOf(name, zone, context),
        sessionMinutes: context.timeZoneOffsetMinutes,
      });
      return timestampFromNs(ns, type, name);
    },
  });
}

export const TIMESTAMP_MS = timestampParser('TIMESTAMP_MS', 'TIMESTAMP');
export const TIMESTAMP = aliasOf('TIMESTAMP', TIMESTAMP_MS);
export const TIMESTAMP_US = timestampParser('TIMESTAMP_US', 'TIMESTAMP(6)');
export const TIMESTAMP_NS = timestampParser('TIMESTAMP_NS', 'TIMESTAMP(9)');

export const TO_TIMESTAMP_MS = strictFunction({
  name: 'TO_TIMESTAMP_MS', minArgs: 1, maxArgs: 1,
  resultType: (argTypes) =>
    argumentsProblem('TO_TIMESTAMP_MS', argTypes, [isInteger], ['an integer']) ?? 'TIMESTAMP',
  evaluate: ([ms]) => timestampFromNs(toBigint(ms!, 'TO_TIMESTAMP_MS') * NS_PER_MS, 'TIMESTAMP',
    'TO_TIMESTAMP_MS'),
});

export const TO_EPOCH_MS = strictFunction({
  name: 'TO_EPOCH_MS', minArgs: 1, maxArgs: 1,
  resultType: (argTypes) => timestampArgProblem('TO_EPOCH_MS', 0, argTypes[0]) ?? 'LONG',
  evaluate: ([value], [type]) => floorDiv(timestampNs(value!, type!), NS_PER_MS),
});

/** `amount` units added to `ns` on the wall clock of a zone. */
export function addUnits(unit: StepUnit, ns: bigint, amount: bigint, zoneMinutes: number): bigint {
  if (unit === 'YEAR' || unit === 'MONTH') {
    const shift = BigInt(zoneMinutes) * NS_PER_MINUTE;
    const local = timestampAdd(unit, ns + shift, amount, 'NANOSECOND');
    if (local === undefined) throw valueOverflow(`TIMESTAMP_ADD: ${amount} ${unit} is out of range`);
    return (local as bigint) - shift;
  }
  return ns + amount * FIXED_UNIT_NS[unit];
}

export const TIMESTAMP_ADD = strictFunction({
  name: 'TIMESTAMP_ADD', minArgs: 3, maxArgs: 4,
  resultType(argTypes, constants) {
    const unit = unitArgument('TIMESTAMP_ADD', argTypes[0], constants[0], STEP_UNITS);
    if (typeof unit !== 'string') return unit;
    const amountProblem = fits(argTypes[2]!, isInteger) ? undefined
      : problem(`TIMESTAMP_ADD: the amount must be an integer, not ${argTypes[2]}`);
    return timestampArgProblem('TIMESTAMP_ADD', 1, argTypes[1]) ?? amountProblem ??
      zoneArgumentProblem('TIMESTAMP_ADD', argTypes[3], constants[3]) ??
      (argTypes[1] === 'UNKNOWN' ? 'TIMESTAMP' : argTypes[1]!);
  },
  evaluate([unitName, value, amount, zone], argTypes, context) {
    const unit = unitValue('TIMESTAMP_ADD', unitName, STEP_UNITS);
    const ns = addUnits(unit, timestampNs(value!, argTypes[1]!), toBigint(amount!, 'TIMESTAMP_ADD'),
      zoneMinutesOf('TIMESTAMP_ADD', zone, context));
    return timestampFromNs(ns, argTypes[1]!, 'TIMESTAMP_ADD');
  },
});

/** Whole `unit`s from ns2 to ns1 (ns1 − ns2), toward zero, months by the wall clock of a zone. */
export function diffUnits(unit: StepUnit, ns1: bigint, ns2: bigint, zoneMinutes: number): bigint {
  if (unit === 'YEAR' || unit === 'MONTH') {
    const shift = BigInt(zoneMinutes) * NS_PER_MINUTE;
    return timestampDiff(unit, ns1 + shift, ns2 + shift, 'NANOSECOND');
  }
  return (ns1 - ns2) / FIXED_UNIT_NS[unit];
}

export const TIMESTAMP_DIFF = strictFunction({
  name: 'TIMESTAMP_DIFF', minArgs: 3, maxArgs: 4,
  resultType(argTypes, constants) {
    const unit = unitArgument('TIMESTAMP_DIFF', argTypes[0], constants[0], STEP_UNITS);
    if (typeof unit !== 'string') return unit;
    return timestampArgProblem('TIMESTAMP_DIFF', 1, argTypes[1]) ??
      timestampArgProblem('TIMESTAMP_DIFF', 2, argTypes[2]) ??
      zoneArgumentProblem('TIMESTAMP_DIFF', argTypes[3], constants[3]) ?? 'LONG';
  },
  evaluate([unitName, first, second, zone], argTypes, context) {
    const unit = unitValue('TIMESTAMP_DIFF', unitName, STEP_UNITS);
    return diffUnits(unit, timestampNs(first!, argTypes[1]!), timestampNs(second!, argTypes[2]!),
      zoneMinutesOf('TIMESTAMP_DIFF', zone, context));
  },
});

export function extractField(field: ExtractField, ns: bigint, zoneMinutes: number): bigint {
  const time = civilTime(ns, zoneMinutes);
  const values: Record<ExtractField, number> = {
    YEAR: time.year, MONTH: time.month, DAY: time.day, HOUR: time.hour, MINUTE: time.minute,
    SECOND: time.second, MILLISECOND: Math.floor(time.nanosecond / 1_000_000),
    MICROSECOND: Math.floor(time.nanosecond / 1000), NANOSECOND: time.nanosecond,
    DAY_OF_WEEK: time.dayOfWeek, DAY_OF_YEAR: time.dayOfYear,
  };
  return BigInt(values[field]);
}

export const EXTRACT = strictFunction({
  name: 'EXTRACT', minArgs: 2, maxArgs: 3,
  resultType(argTypes, constants) {
    const field = unitArgument('EXTRACT', argTypes[0], constants[0], EXTRACT_FIELDS);
    if (typeof field !== 'string') return field;
    return timestampArgProblem('EXTRACT', 1, argTypes[1]) ??
      zoneArgumentProblem('EXTRACT', argTypes[2], constants[2]) ?? 'LONG';
  },
  evaluate([fieldName, value, zone], argTypes, context) {
    const field = unitValue('EXTRACT', fieldName, EXTRACT_FIELDS);
    return extractField(field, timestampNs(value!, argTypes[1]!),
      zoneMinutesOf('EXTRACT', zone, context));
  },
});

/** `ns` cut down to the start of its `unit` on the wall clock of a zone. */
export function truncUnits(unit: StepUnit, ns: bigint, zoneMinutes: number): bigint {
  if (unit !== 'YEAR' && unit !== 'MONTH') {
    const shift = BigInt(zoneMinutes) * NS_PER_MINUTE;
    const step = FIXED_UNIT_NS[unit];
    return floorDiv(ns + shift, step) * step - shift;
  }
  const time = civilTime(ns, zoneMinutes);
  return nsFromCivil({ year: time.year, month: unit === 'YEAR' ? 1 : time.month, day: 1,
    hour: 0, minute: 0, second: 0, nanosecond: 0 }, zoneMinutes);
}

export const TIMESTAMP_TRUNC = strictFunction({
  name: 'TIMESTAMP_TRUNC', minArgs: 2, maxArgs: 3,
  resultType(argTypes, constants) {
    const unit = unitArgument('TIMESTAMP_TRUNC', argTypes[0], constants[0], STEP_UNITS);
    if (typeof unit !== 'string') return unit;
    return timestampArgProblem('TIMESTAMP_TRUNC', 1, argTypes[1]) ??
      zoneArgumentProblem('TIMESTAMP_TRUNC', argTypes[2], constants[2]) ??
      (argTypes[1] === 'UNKNOWN' ? 'TIMESTAMP' : argTypes[1]!);
  },
  evaluate([unitName, value, zone], argTypes, context) {
    // A millisecond TIMESTAMP to a fixed unit in the session's zone: plain arithmetic, as per row
    // in GROUP BY TIMESTAMP_TRUNC(HOUR, ts) (the same value the general path computes in ns).
    const unitMs = typeof value === 'number' && zone === undefined ? FIXED_UNIT_MS.get(unitName as string) : undefined;
    if (unitMs !== undefined) {
      const shiftMs = context.timeZoneOffsetMinutes * 60_000;
      const truncated = Math.floor(((value as number) + shiftMs) / unitMs) * unitMs - shiftMs;
      if (truncated >= 0) return truncated;
    }
    const unit = unitValue('TIMESTAMP_TRUNC', unitName, STEP_UNITS);
    const ns = truncUnits(unit, timestampNs(value!, argTypes[1]!),
      zoneMinutesOf('TIMESTAMP_TRUNC', zone, context));
    // Before 1970 in a zone east of UTC the start of a day may fall before the epoch.
    return timestampFromNs(ns, argTypes[1]!, 'TIMESTAMP_TRUNC');
  },
  evaluateColumns([unitNames, values, zones], argTypes, context, rowCount) {
    // The fixed-unit arithmetic above over a typed column (no NULLs: a Float64Array has none) of
    // ms timestamps with one unit for the batch; anything else, or a result before the epoch,
    // takes the row path.
    if (!(values instanceof Float64Array) || argTypes[1] !== 'TIMESTAMP' || zones !== undefined || rowCount === 0) {
      return undefined;
    }
    const unitName = unitNames![0];
    for (let i = 1; i < rowCount; i++) if (unitNames![i] !== unitName) return undefined;
    const unitMs = FIXED_UNIT_MS.get(unitName as string);
    if (unitMs === undefined) return undefined;
    const shiftMs = context.timeZoneOffsetMinutes * 60_000;
    const out = new Float64Array(rowCount);
    for (let i = 0; i < rowCount; i++) {
      const truncated = Math.floor((values[i]! + shiftMs) / unitMs) * unitMs - shiftMs;
      if (!(truncated >= 0)) return undefined;
      out[i] = truncated;
    }
    return out;
  },
});

function pad(value: number, digits: number): string {
  return String(value).padStart(digits, '0');
}

export function strftime(format: string, value: SqlValue, type: SqlType, zoneMinutes: number):
  string {
  const ns = timestampNs(value, type);
  const time = civilTime(ns, zoneMinutes);
  let out = '';
  const chars = Array.from(format);
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== '%') {
      out += chars[i];
      continue;
    }
    let key = chars[++i];
    let width: string | undefined;
    if (key !== undefined && /[0-9]/.test(key)) {
      width = key;
      key = chars[++i];
    }
    if (key === undefined) break;
    if (width !== undefined && key !== 'f') {
      throw invalidInput(`STRFTIME: '%${width}${key}' takes no width`);
    }
    switch (key) {
      case 'Y': out += pad(time.year, 4); break;
      case 'm': out += pad(time.month, 2); break;
      case 'd': out += pad(time.day, 2); break;
      case 'H': out += pad(time.hour, 2); break;
      case 'M': out += pad(time.minute, 2); break;
      case 'S': out += pad(time.second, 2); break;
      case 'f':
        if (width !== '3' && width !== '6' && width !== '9') {
          throw invalidInput('STRFTIME: %f takes the width 3, 6 or 9 (%3f, %6f, %9f)');
        }
        out += pad(time.nanosecond, 9).slice(0, Number(width));
        break;
      case 'w': out += String(time.dayOfWeek); break;
      case 'W': {
        const mondayBased = (time.dayOfWeek + 6) % 7;
        out += pad(Math.floor((time.dayOfYear - 1 + 7 - mondayBased) / 7), 2);
        break;
      }
      case 'j': out += pad(time.dayOfYear, 3); break;
      case 'c': out += formatTimestamp(value, type, zoneMinutes); break;
      case 'z': out += formatZone(zoneMinutes); break;
      case '%': out += '%'; break;
      default: throw invalidInput(`STRFTIME: '%${key}' is not a format`);
    }
  }
  return out;
}

export const STRFTIME = strictFunction({
  name: 'STRFTIME', minArgs: 2, maxArgs: 3,
  resultType: (argTypes, constants) =>
    argumentsProblem('STRFTIME', argTypes.slice(0, 1), [isStringType], ['a STRING']) ??
    timestampArgProblem('STRFTIME', 1, argTypes[1]) ??
    zoneArgumentProblem('STRFTIME', argTypes[2], constants[2]) ?? 'STRING',
  evaluate: ([format, value, zone], argTypes, context) => strftime(format as string, value!,
    argTypes[1]!, zoneMinutesOf('STRFTIME', zone, context)),
});

const MILLIS_PER_SECOND = 1000;

/** MAKE_TIMESTAMP(y, m, d[, tz]) or (y, m, d, h, mi, s[, tz]); s may carry milliseconds. */
export const MAKE_TIMESTAMP = strictFunction({
  name: 'MAKE_TIMESTAMP', minArgs: 3, maxArgs: 7,
  resultType(argTypes, constants) {
    const count = argTypes.length;
    if (count === 5) return problem('MAKE_TIMESTAMP takes 3, 4, 6 or 7 arguments, not 5');
    const fieldCount = count === 4 || count === 7 ? count - 1 : count;
    const fields = argTypes.slice(0, fieldCount);
    for (let i = 0; i < fields.length; i++) {
      const ok = i === 5 ? fits(fields[i]!, isNumeric) : fits(fields[i]!, isInteger);
      if (!ok) return problem(`MAKE_TIMESTAMP: argument ${i + 1} must be ${i === 5 ? 'a number' : 'an integer'}, not ${fields[i]}`);
    }
    return fieldCount === count ? 'TIMESTAMP'
      : zoneArgumentProblem('MAKE_TIMESTAMP', argTypes[count - 1], constants[count - 1]) ??
        'TIMESTAMP';
  },
  evaluate(args, _argTypes, context) {
    const count = args.length;
    const fieldCount = count === 4 || count === 7 ? count - 1 : count;
    const zone = fieldCount === count ? undefined : args[count - 1];
    const integer = (i: number) => (i < fieldCount ? toBigint(args[i]!, 'MAKE_TIMESTAMP') : 0n);
    const [year, month, day, hour, minute] = [0, 1, 2, 3, 4].map(integer) as bigint[];
    const seconds = fieldCount > 5 ? toDouble(args[5]!) : 0;
    const totalMs = Math.round(seconds * MILLIS_PER_SECOND);
    const bad = (what: string) => invalidInput(`MAKE_TIMESTAMP: ${what} is out of range`);
    if (year! < 1970n || year! > 9999n) throw bad(`the year ${year}`);
    if (month! < 1n || month! > 12n) throw bad(`the month ${month}`);
    if (day! < 1n || day! > BigInt(daysInMonth(Number(year), Number(month)))) throw bad(`the day ${day}`);
    if (hour! < 0n || hour! > 23n) throw bad(`the hour ${hour}`);
    if (minute! < 0n || minute! > 59n) throw bad(`the minute ${minute}`);
    if (!(totalMs >= 0 && totalMs < 60 * MILLIS_PER_SECOND)) throw bad(`the second ${seconds}`);
    const ns = nsFromCivil({
      year: Number(year), month: Number(month), day: Number(day), hour: Number(hour),
      minute: Number(minute), second: Math.floor(totalMs / MILLIS_PER_SECOND),
      nanosecond: (totalMs % MILLIS_PER_SECOND) * 1_000_000,
    }, zoneMinutesOf('MAKE_TIMESTAMP', zone, context));
    return timestampFromNs(ns, 'TIMESTAMP', 'MAKE_TIMESTAMP');
  },
});

export const TIMESTAMPADD = aliasOf('TIMESTAMPADD', TIMESTAMP_ADD);
export const TIMESTAMPDIFF = aliasOf('TIMESTAMPDIFF', TIMESTAMP_DIFF);

