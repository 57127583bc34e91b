// TIMESTAMP values for TQL: parsing GridDB's timestamp text, and calendar arithmetic in UTC for
// TIMESTAMPADD and TIMESTAMPDIFF. The calendar is the proleptic Gregorian one, with no leap
// seconds.
//
//   YYYY-MM-DDThh:mm:ss[.fraction](Z | ±hh:mm | ±hhmm)
//   YYYY: 4 digits or more; MM DD hh mm ss: exactly 2; the fraction: 3 digits for a millisecond
//   result, 3 or 6 for a microsecond one, 3, 6 or 9 for a nanosecond one
//
// Dates are checked against the calendar (no February 30th). A value may lie outside what a column
// can store (before 1970, say): queries may compare with such times. Millisecond values are
// numbers, finer ones bigints (types.ts).

import { assert } from '../../base/assert.ts';
import type { TimePrecision } from '../../schema/column-type.ts';
import { unitsPerMs } from './types.ts';

const MS_PER_SECOND = 1000;
const MS_PER_MINUTE = 60 * MS_PER_SECOND;
const MS_PER_HOUR = 60 * MS_PER_MINUTE;
export const MS_PER_DAY = 24 * MS_PER_HOUR;
/** JavaScript's Date range, ±100,000,000 days: keeps every millisecond value a safe integer. */
export const TQL_TIME_MS_LIMIT = 8.64e15;

export const TIME_UNITS = [
  'YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND',
] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

const FIXED_UNIT_MS: Record<Exclude<TimeUnit, 'YEAR' | 'MONTH'>, number> = {
  DAY: MS_PER_DAY, HOUR: MS_PER_HOUR, MINUTE: MS_PER_MINUTE, SECOND: MS_PER_SECOND, MILLISECOND: 1,
};

const TIMESTAMP_TEXT =
  /^(\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/;

const FRACTION_DIGITS: Record<TimePrecision, readonly number[]> = {
  MILLISECOND: [3], MICROSECOND: [3, 6], NANOSECOND: [3, 6, 9],
};

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (month 1-12). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const shiftedMonth = month > 2 ? month - 3 : month + 9; // March = 0
  const dayOfYear = Math.floor((153 * shiftedMonth + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) +
    dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The date of a day count from 1970-01-01. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) +
    Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) -
    Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Parses timestamp text to a value of `precision` (a number of ms, or a bigint of µs or ns), or
 * says why the text is not a valid timestamp.
 */
export function parseTimestamp(
  text: string,
  precision: TimePrecision,
): { value: number | bigint } | { reason: string } {
  const match = TIMESTAMP_TEXT.exec(text);
  if (match === null) {
    return { reason: 'expected YYYY-MM-DDThh:mm:ss[.SSS] and Z, +hh:mm or -hh:mm' };
  }
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as
    [number, number, number, number, number, number];
  const fraction = match[7] ?? '000';
  if (!FRACTION_DIGITS[precision].includes(fraction.length)) {
    const digits = FRACTION_DIGITS[precision].join(' or ');
    return { reason: `the fraction of a second must have ${digits} digits` };
  }
  if (month < 1 || month > 12) return { reason: `month ${month} is not 1-12` };
  if (day < 1 || day > daysInMonth(year, month)) {
    const yearMonth = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
    return { reason: `day ${day} is not in ${yearMonth}` };
  }
  if (hour > 23 || minute > 59 || second > 59) return { reason: 'the time of day is out of range' };
  let offsetMs = 0;
  if (match[8] === undefined) {
    const offsetHours = Number(match[10]);
    const offsetMinutes = Number(match[11]);
    if (offsetHours > 23 || offsetMinutes > 59) return { reason: 'the time zone is out of range' };
    const sign = match[9] === '-' ? -1 : 1;
    offsetMs = sign * (offsetHours * MS_PER_HOUR + offsetMinutes * MS_PER_MINUTE);
  }
  const wholeMs = daysFromCivil(year, month, day) * MS_PER_DAY + hour * MS_PER_HOUR +
    minute * MS_PER_MINUTE + second * MS_PER_SECOND - offsetMs;
  if (Math.abs(wholeMs) > TQL_TIME_MS_LIMIT) return { reason: 'the year is out of range' };
  const units = unitsPerMs(precision);
  const fractionUnits = Number(fraction.padEnd(9, '0')) / (1_000_000_000 / (units * 1000));
  assert(Number.isInteger(fractionUnits));
  if (precision === 'MILLISECOND') return { value: wholeMs + fractionUnits };
  return { value: BigInt(wholeMs) * BigInt(units) + BigInt(fractionUnits) };
}

/** Splits a TIMESTAMP value into whole ms (floor) and the units below a ms. */
function splitMs(value: number | bigint, precision: TimePrecision): { ms: number; rest: bigint } {
  if (typeof value === 'number') return { ms: value, rest: 0n };
  const units = BigInt(unitsPerMs(precision));
  let ms = value / units;
  let rest = value % units;
  if (rest < 0n) {
    ms -= 1n;
    rest += units;
  }
  return { ms: Number(ms), rest };
}

/**
 * TIMESTAMPADD: `amount` units added in UTC. YEAR and MONTH keep the day of the month when the
 * target month has it, else take its last day. Undefined when the result leaves the time range.
 */
export function timestampAdd(
  unit: TimeUnit,
  value: number | bigint,
  amount: bigint,
  precision: TimePrecision,
): number | bigint | undefined {
  const { ms, rest } = splitMs(value, precision);
  let resultMs: bigint;
  if (unit === 'YEAR' || unit === 'MONTH') {
    const months = unit === 'YEAR' ? amount * 12n : amount;
    if (months > 12n * 300_000n || months < -12n * 300_000n) return undefined;
    resultMs = BigInt(addMonths(ms, Number(months)));
  } else {
    resultMs = BigInt(ms) + amount * BigInt(FIXED_UNIT_MS[unit]);
  }
  const limitMs = BigInt(TQL_TIME_MS_LIMIT);
  if (resultMs > limitMs || resultMs < -limitMs) return undefined;
  if (precision === 'MILLISECOND') return Number(resultMs);
  return resultMs * BigInt(unitsPerMs(precision)) + rest;
}

function addMonths(ms: number, months: number): number {
  const days = Math.floor(ms / MS_PER_DAY);
  const msOfDay = ms - days * MS_PER_DAY;
  const date = civilFromDays(days);
  const monthIndex = date.year * 12 + (date.month - 1) + months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12 + 1;
  const day = Math.min(date.day, daysInMonth(year, month));
  return daysFromCivil(year, month, day) * MS_PER_DAY + msOfDay;
}

/**
 * TIMESTAMPDIFF: value1 − value2 in whole units, truncated toward zero. Both values are in the
 * units of `precision` (the finer precision of the two). YEAR and MONTH count calendar months that
 * have fully passed, as SQL's TIMESTAMPDIFF does.
 */
export function timestampDiff(
  unit: TimeUnit,
  value1: bigint,
  value2: bigint,
  precision: TimePrecision,
): bigint {
  const units = BigInt(unitsPerMs(precision));
  if (unit !== 'YEAR' && unit !== 'MONTH') {
    return (value1 - value2) / (BigInt(FIXED_UNIT_MS[unit]) * units);
  }
  const a = monthAndRest(value1, precision);
  const b = monthAndRest(value2, precision);
  let months = a.monthIndex - b.monthIndex;
  if (months > 0 && a.rest < b.rest) months--;
  if (months < 0 && a.rest > b.rest) months++;
  return BigInt(unit === 'YEAR' ? Math.trunc(months / 12) : months);
}

/** A time as (months since year 0, time since the start of its month in precision units). */
function monthAndRest(
  value: bigint,
  precision: TimePrecision,
): { monthIndex: number; rest: bigint } {
  const { ms, rest } = splitMs(value, precision);
  const days = Math.floor(ms / MS_PER_DAY);
  const date = civilFromDays(days);
  const monthStartMs = daysFromCivil(date.year, date.month, 1) * MS_PER_DAY;
  const units = BigInt(unitsPerMs(precision));
  return {
    monthIndex: date.year * 12 + date.month - 1,
    rest: BigInt(ms - monthStartMs) * units + rest,
  };
}
