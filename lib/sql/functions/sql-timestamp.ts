// SQL TIMESTAMP values as text and as calendar fields in a time zone (§5.8 time functions, CAST).
// Every precision is handled as a bigint of ns since the epoch inside this file; values come in
// and go out in the engine's shapes (TIMESTAMP: number of ms; (6)/(9): bigint of µs/ns).
//
//   text read:   YYYY-MM-DDThh:mm:ss[.f{1,3|6|9}][Z|±hh:mm|±hhmm]   (a space may stand for T)
//                YYYY-MM-DD        (midnight)        hh:mm:ss[.f]   (on 1970-01-01)
//   text written: YYYY-MM-DDThh:mm:ss.SSS[SSS[SSS]](Z|±hh:mm)
//   time zone:   Z, ±hh:mm or ±hhmm (GridDB's forms without a region database)
//
// What a column can store is the range of TIMESTAMP_NS_MIN..MAX (1970-01-01 to 9999-12-31,
// GridDB's); results outside it are SQL_PROC_VALUE_OVERFLOW.

import type { TimePrecision } from '../../schema/column-type.ts';
import { civilFromDays, daysFromCivil, daysInMonth } from '../../query/tql/timestamp.ts';
import type { SqlType, SqlValue } from '../value.ts';
import { precisionOf, valueOverflow, valueSyntaxError } from './function-kit.ts';

export const NS_PER_MS = 1_000_000n;
export const NS_PER_SECOND = 1_000_000_000n;
export const NS_PER_MINUTE = 60n * NS_PER_SECOND;
export const NS_PER_HOUR = 60n * NS_PER_MINUTE;
export const NS_PER_DAY = 24n * NS_PER_HOUR;
export const TIMESTAMP_NS_MIN = 0n;
/** 9999-12-31T23:59:59.999999999Z. */
export const TIMESTAMP_NS_MAX = BigInt(daysFromCivil(10_000, 1, 1)) * NS_PER_DAY - 1n;
const ZONE_MINUTES_MAX = 24 * 60 - 1;

const NS_PER_UNIT: Record<TimePrecision, bigint> = {
  MILLISECOND: NS_PER_MS, MICROSECOND: 1000n, NANOSECOND: 1n,
};
const FRACTION_DIGITS_MAX: Record<TimePrecision, number> = {
  MILLISECOND: 3, MICROSECOND: 6, NANOSECOND: 9,
};

/** a ÷ b rounded toward −∞ (bigint division truncates). */
export function floorDiv(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? quotient - 1n : quotient;
}

export function timestampNs(value: SqlValue, type: SqlType): bigint {
  if (typeof value === 'number') return BigInt(value) * NS_PER_MS;
  if (typeof value === 'bigint') return value * NS_PER_UNIT[precisionOf(type)];
  throw new TypeError(`not a timestamp: ${String(value)}`);
}

/** The value of `type` at `ns` (finer digits cut toward −∞), checked against the range. */
export function timestampFromNs(ns: bigint, type: SqlType, what: string): number | bigint {
  if (ns < TIMESTAMP_NS_MIN || ns > TIMESTAMP_NS_MAX) {
    throw valueOverflow(`${what}: the timestamp is outside 1970-01-01 to 9999-12-31`);
  }
  const units = floorDiv(ns, NS_PER_UNIT[precisionOf(type)]);
  return type === 'TIMESTAMP' ? Number(units) : units;
}

/** Minutes east of UTC of a zone text, or undefined when it is not one. */
export function parseZone(text: string): number | undefined {
  if (text === 'Z' || text === 'z') return 0;
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (match === null) return undefined;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  if (Number(match[3]) > 59 || minutes > ZONE_MINUTES_MAX) return undefined;
  return match[1] === '-' ? -minutes : minutes;
}

export function formatZone(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'Z';
  const sign = offsetMinutes < 0 ? '-' : '+';
  const minutes = Math.abs(offsetMinutes);
  return `${sign}${pad(Math.floor(minutes / 60), 2)}:${pad(minutes % 60, 2)}`;
}

function pad(value: number | bigint, digits: number): string {
  return String(value).padStart(digits, '0');
}

export interface CivilTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  /** Below the second, 0 … 999,999,999. */
  readonly nanosecond: number;
  /** 0 = Sunday. */
  readonly dayOfWeek: number;
  /** 1 … 366. */
  readonly dayOfYear: number;
}

/** The wall-clock fields of `ns` in a zone `offsetMinutes` east of UTC. */
export function civilTime(ns: bigint, offsetMinutes: number): CivilTime {
  const local = ns + BigInt(offsetMinutes) * NS_PER_MINUTE;
  const days = floorDiv(local, NS_PER_DAY);
  const inDay = local - days * NS_PER_DAY;
  const date = civilFromDays(Number(days));
  const secondOfDay = Number(inDay / NS_PER_SECOND);
  return {
    ...date,
    hour: Math.floor(secondOfDay / 3600),
    minute: Math.floor(secondOfDay / 60) % 60,
    second: secondOfDay % 60,
    nanosecond: Number(inDay % NS_PER_SECOND),
    dayOfWeek: (((Number(days) + 4) % 7) + 7) % 7, // 1970-01-01 was a Thursday
    dayOfYear: Number(days) - daysFromCivil(date.year, 1, 1) + 1,
  };
}

/** ns since the epoch of wall-clock fields in a zone (fields already checked). */
export function nsFromCivil(
  fields: { year: number; month: number; day: number; hour: number; minute: number;
    second: number; nanosecond: number },
  offsetMinutes: number,
): bigint {
  const days = BigInt(daysFromCivil(fields.year, fields.month, fields.day));
  return days * NS_PER_DAY + BigInt(fields.hour) * NS_PER_HOUR +
    BigInt(fields.minute) * NS_PER_MINUTE + BigInt(fields.second) * NS_PER_SECOND +
    BigInt(fields.nanosecond) - BigInt(offsetMinutes) * NS_PER_MINUTE;
}

/** `YYYY-MM-DDThh:mm:ss.SSS[SSS[SSS]](Z|±hh:mm)` in the zone, digits by the type's precision. */
export function formatTimestamp(value: SqlValue, type: SqlType, offsetMinutes: number): string {
  const time = civilTime(timestampNs(value, type), offsetMinutes);
  const digits = FRACTION_DIGITS_MAX[precisionOf(type)];
  const fraction = pad(time.nanosecond, 9).slice(0, digits);
  return `${pad(time.year, 4)}-${pad(time.month, 2)}-${pad(time.day, 2)}T` +
    `${pad(time.hour, 2)}:${pad(time.minute, 2)}:${pad(time.second, 2)}.${fraction}` +
    formatZone(offsetMinutes);
}

const DATE_TIME_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?)?(Z|z|[+-]\d{2}:?\d{2})?$/;
const TIME_TEXT = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:?\d{2})?$/;

/**
 * TIMESTAMP_MS/US/NS and CAST of text: ns since the epoch. A zone in the text and `zoneMinutes`
 * (the function's argument) must agree when both are given; text without a zone is read in
 * `zoneMinutes` or else the session's zone.
 */
export function parseTimestampText(
  text: string,
  precision: TimePrecision,
  zone: { readonly argumentMinutes: number | undefined; readonly sessionMinutes: number },
): bigint {
  const what = `timestamp '${text}'`;
  let fields: { year: number; month: number; day: number; hour: number; minute: number;
    second: number; fraction: string; zoneText: string | undefined };
  const dateTime = DATE_TIME_TEXT.exec(text);
  const time = dateTime === null ? TIME_TEXT.exec(text) : null;
  if (dateTime !== null) {
    fields = {
      year: Number(dateTime[1]), month: Number(dateTime[2]), day: Number(dateTime[3]),
      hour: Number(dateTime[4] ?? 0), minute: Number(dateTime[5] ?? 0),
      second: Number(dateTime[6] ?? 0), fraction: dateTime[7] ?? '', zoneText: dateTime[8],
    };
  } else if (time !== null) {
    fields = {
      year: 1970, month: 1, day: 1, hour: Number(time[1]), minute: Number(time[2]),
      second: Number(time[3]), fraction: time[4] ?? '', zoneText: time[5],
    };
  } else {
    throw syntax(what, 'expected YYYY-MM-DDThh:mm:ss[.SSS][Z|±hh:mm], YYYY-MM-DD or hh:mm:ss');
  }
  const digitsMax = FRACTION_DIGITS_MAX[precision];
  if (fields.fraction.length > digitsMax) {
    throw syntax(what, `at most ${digitsMax} fractional digits for this precision`);
  }
  if (fields.year < 1970) throw syntax(what, 'the year must be 1970 or later');
  if (fields.month < 1 || fields.month > 12) throw syntax(what, `month ${fields.month} is not 1-12`);
  if (fields.day < 1 || fields.day > daysInMonth(fields.year, fields.month)) {
    throw syntax(what, `day ${fields.day} is not in that month`);
  }
  if (fields.hour > 23 || fields.minute > 59 || fields.second > 59) {
    throw syntax(what, 'the time of day is out of range');
  }
  let offsetMinutes = zone.argumentMinutes ?? zone.sessionMinutes;
  if (fields.zoneText !== undefined) {
    const textMinutes = parseZone(fields.zoneText);
    if (textMinutes === undefined) throw syntax(what, 'the time zone is out of range');
    if (zone.argumentMinutes !== undefined && zone.argumentMinutes !== textMinutes) {
      throw syntax(what, 'its time zone differs from the time zone argument');
    }
    offsetMinutes = textMinutes;
  }
  const ns = nsFromCivil({ ...fields, nanosecond: Number(fields.fraction.padEnd(9, '0')) },
    offsetMinutes);
  if (ns < TIMESTAMP_NS_MIN || ns > TIMESTAMP_NS_MAX) {
    throw valueOverflow(`${what}: outside 1970-01-01 to 9999-12-31`);
  }
  return ns;
}

function syntax(what: string, reason: string): Error {
  return valueSyntaxError(`${what}: ${reason}`);
}
