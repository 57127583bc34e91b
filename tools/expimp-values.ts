// Values in GridDB's export row files (spec/surface.md §7.6), printed and parsed by column type.
// A printed value is the text of one CSV cell, before quoting; parsing it back gives the value the
// client returned, exactly (the round trip is lossless):
//
//   BOOL            true | false
//   BYTE … INTEGER  decimal                      LONG  decimal, the full int64 (bigint)
//   FLOAT, DOUBLE   shortest decimal that reads back to the same number; NaN, Infinity,
//                   -Infinity; -0 as -0.0 (Java's spelling, which keeps the sign)
//   TIMESTAMP       yyyy-MM-ddTHH:mm:ss.SSS+0000, with 6 or 9 fraction digits for TIMESTAMP(6|9)
//   STRING          the text;  GEOMETRY  its WKT text;  BLOB  always an external file
//   arrays          [e1,e2,…]: strings as JSON strings, the rest as above
//
// NULL is an empty unquoted cell (expimp-csv-line.ts); parse never sees it. A parse failure is a
// ValueProblem naming what was expected; the caller adds the file, line and column.

import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import type { ScalarValue, Value } from '../lib/schema/column-type.ts';

export class ValueProblem extends Error {}

const INTEGER_TEXT = /^-?\d{1,20}$/;
const FLOAT_TEXT = /^(-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|NaN|-?Infinity)$/;
const TIMESTAMP_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/;
const INTEGER_RANGES = { BYTE: 2 ** 7, SHORT: 2 ** 15, INTEGER: 2 ** 31 } as const;
const FRACTION_DIGITS = { MILLISECOND: 3, MICROSECOND: 6, NANOSECOND: 9 } as const;
const MS_PER_DAY = 86_400_000;

/** The cell text of a non-null scalar (not BLOB: those go to files). */
export function printScalar(column: ColumnSchema, value: ScalarValue): string {
  switch (column.type) {
    case 'FLOAT':
    case 'DOUBLE':
      return printFloat(value as number);
    case 'TIMESTAMP':
      return printTimestamp(column, value as number | bigint);
    default:
      return String(value);
  }
}

/** An array cell: `[e1,e2]`, strings JSON-quoted. */
export function printArray(column: ColumnSchema, values: readonly ScalarValue[]): string {
  const print = column.type === 'STRING'
    ? (value: ScalarValue) => JSON.stringify(value)
    : (value: ScalarValue) => printScalar(column, value);
  return `[${values.map(print).join(',')}]`;
}

export function parseScalar(column: ColumnSchema, text: string): ScalarValue {
  switch (column.type) {
    case 'BOOL':
      if (text === 'true' || text === 'false') return text === 'true';
      throw new ValueProblem(`expected true or false, found ${JSON.stringify(text)}`);
    case 'BYTE':
    case 'SHORT':
    case 'INTEGER':
      return parseSmallInteger(column.type, text);
    case 'LONG':
      return parseLong(text);
    case 'FLOAT':
    case 'DOUBLE':
      return parseFloatText(text);
    case 'TIMESTAMP':
      return parseTimestamp(column, text);
    case 'STRING':
    case 'GEOMETRY':
      return text;
    case 'BLOB':
      throw new ValueProblem('a BLOB cell is a file reference (@BLOB:<file>)');
  }
}

/** `[e1,e2,…]` back to an array of the column's element type. */
export function parseArray(column: ColumnSchema, text: string): Value {
  if (!text.startsWith('[') || !text.endsWith(']')) {
    throw new ValueProblem(`expected an array [...], found ${JSON.stringify(text.slice(0, 40))}`);
  }
  const body = text.slice(1, -1);
  if (body === '') return [];
  if (column.type === 'STRING') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ValueProblem('expected an array of JSON strings');
    }
    if (!Array.isArray(parsed) || !parsed.every((element) => typeof element === 'string')) {
      throw new ValueProblem('expected an array of JSON strings');
    }
    return parsed as string[];
  }
  return body.split(',').map((element) => parseScalar(column, element)) as Value;
}

/** 2^53: integers below it are exact doubles. */
const EXACT_INTEGER_LIMIT = 2 ** 53;
/** 10^0 … 10^22, every one an exact double (10^23 is not). */
const EXACT_POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);
const EXPONENT_DIGITS_MAX = 6;
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const MINUS = 45;
const PLUS = 43;
const DOT = 46;

/**
 * FLOAT_TEXT's number, as Number(text) gives it. A decimal of at most 2^53 - 1 as an integer
 * (15-16 digits) times a power of ten up to 10^22 either way is computed by one multiply or divide
 * of two exact doubles, which rounds correctly as Number(text) does (Clinger's fast path); it is
 * found by one scan that also checks the syntax, because Number(text) and the regular expression
 * were a third of the import's CPU. Anything else (17 digits, NaN, a bad cell) goes the slow way.
 */
function parseFloatText(text: string): number {
  const length = text.length;
  let i = 0;
  const negative = length > 0 && text.charCodeAt(0) === MINUS;
  if (negative) i++;
  let mantissa = 0;
  let exact = true;
  let digitCount = 0;
  let fractionDigitCount = 0;
  let code = 0;
  for (; i < length; i++) {
    code = text.charCodeAt(i);
    if (code < DIGIT_0 || code > DIGIT_9) break;
    mantissa = mantissa * 10 + (code - DIGIT_0);
    digitCount++;
  }
  if (i < length && code === DOT) {
    for (i++; i < length; i++) {
      code = text.charCodeAt(i);
      if (code < DIGIT_0 || code > DIGIT_9) break;
      mantissa = mantissa * 10 + (code - DIGIT_0);
      digitCount++;
      fractionDigitCount++;
    }
  }
  // Past 2^53 the sum above may have rounded: only the slow way is right then.
  if (mantissa >= EXACT_INTEGER_LIMIT) exact = false;
  let exponent = 0;
  if (digitCount > 0 && i < length && (code === 101 || code === 69)) { // e, E
    i++;
    const sign = i < length ? text.charCodeAt(i) : 0;
    if (sign === MINUS || sign === PLUS) i++;
    const start = i;
    for (; i < length; i++) {
      code = text.charCodeAt(i);
      if (code < DIGIT_0 || code > DIGIT_9) break;
      exponent = exponent * 10 + (code - DIGIT_0);
    }
    if (i === start) return parseFloatTextSlowly(text);
    if (i - start > EXPONENT_DIGITS_MAX) exact = false;
    if (sign === MINUS) exponent = -exponent;
  }
  if (digitCount === 0 || i !== length) return parseFloatTextSlowly(text);
  if (!exact) return Number(text);
  const scale = exponent - fractionDigitCount;
  let value: number;
  if (scale >= 0 && scale < EXACT_POWERS_OF_TEN.length) value = mantissa * EXACT_POWERS_OF_TEN[scale]!;
  else if (scale < 0 && -scale < EXACT_POWERS_OF_TEN.length) value = mantissa / EXACT_POWERS_OF_TEN[-scale]!;
  else return Number(text);
  return negative ? -value : value;
}

/** NaN, ±Infinity, or the problem a cell that is not a number has. */
function parseFloatTextSlowly(text: string): number {
  if (!FLOAT_TEXT.test(text)) {
    throw new ValueProblem(`expected a number, found ${JSON.stringify(text)}`);
  }
  return Number(text);
}

function printFloat(value: number): string {
  if (Object.is(value, -0)) return '-0.0';
  return String(value);
}

function parseSmallInteger(type: keyof typeof INTEGER_RANGES, text: string): number {
  const value = INTEGER_TEXT.test(text) ? Number(text) : NaN;
  const bound = INTEGER_RANGES[type];
  if (!Number.isInteger(value) || value < -bound || value >= bound) {
    throw new ValueProblem(`expected ${type} (${-bound} to ${bound - 1}), found ${JSON.stringify(text)}`);
  }
  return value;
}

function parseLong(text: string): bigint {
  const value = INTEGER_TEXT.test(text) ? BigInt(text) : undefined;
  if (value === undefined || value < -(2n ** 63n) || value >= 2n ** 63n) {
    throw new ValueProblem(`expected LONG, found ${JSON.stringify(text)}`);
  }
  return value;
}

/** Units since the epoch (ms as a number, µs and ns as bigint) as text in UTC. */
function printTimestamp(column: ColumnSchema, value: number | bigint): string {
  const digits = FRACTION_DIGITS[column.timePrecision ?? 'MILLISECOND'];
  const units = BigInt(value);
  const perMs = 10n ** BigInt(digits - 3);
  const ms = units / perMs;
  const seconds = new Date(Number(ms)).toISOString().slice(0, 19);
  const fraction = units % (1000n * perMs);
  return `${seconds}.${String(fraction).padStart(digits, '0')}+0000`;
}

/** The day of the last timestamp parsed: rows of a file mostly share their day. */
let dayTextLast = '';
let dayMsLast = 0;

/**
 * The common case, `yyyy-MM-ddTHH:mm:ss.<digits>+0000` as export prints it, without a regular
 * expression or a Date per value; undefined for anything else (the general parser decides).
 */
function parseTimestampUtc(text: string, digits: number): number | bigint | undefined {
  if (text.length !== 25 + digits || !text.endsWith('+0000') || text[10] !== 'T' ||
    text[13] !== ':' || text[16] !== ':' || text[19] !== '.') return undefined;
  const day = text.slice(0, 10);
  if (day !== dayTextLast) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
    const ms = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
    if (new Date(ms).toISOString().slice(0, 10) !== day || ms < 0) return undefined;
    dayTextLast = day;
    dayMsLast = ms;
  }
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (!(hour <= 23 && minute <= 59 && second <= 59)) return undefined;
  const fraction = text.slice(20, 20 + digits);
  if (!/^\d+$/.test(fraction)) return undefined;
  const secondsMs = dayMsLast + ((hour * 60 + minute) * 60 + second) * 1000;
  if (digits === 3) return secondsMs + Number(fraction);
  return BigInt(secondsMs) * 10n ** BigInt(digits - 3) + BigInt(fraction);
}

/** Two decimal digits at `index`; NaN when they are not digits. */
function twoDigits(text: string, index: number): number {
  const high = text.charCodeAt(index) - 48;
  const low = text.charCodeAt(index + 1) - 48;
  return high >= 0 && high <= 9 && low >= 0 && low <= 9 ? high * 10 + low : NaN;
}

function parseTimestamp(column: ColumnSchema, text: string): number | bigint {
  const fast = parseTimestampUtc(text, FRACTION_DIGITS[column.timePrecision ?? 'MILLISECOND']);
  if (fast !== undefined) return fast;
  const match = TIMESTAMP_TEXT.exec(text);
  if (match === null) {
    throw new ValueProblem(`expected a TIMESTAMP yyyy-MM-ddTHH:mm:ss.SSS+0000, found ${JSON.stringify(text)}`);
  }
  const [, year, month, day, hour, minute, second, fraction = '', zone] = match;
  const secondsMs = Date.UTC(Number(year), Number(month) - 1, Number(day),
    Number(hour), Number(minute), Number(second));
  const check = new Date(secondsMs);
  if (check.getUTCDate() !== Number(day) || Number(hour) > 23 || Number(minute) > 59 ||
    Number(second) > 59 || Number(year) < 1970) {
    throw new ValueProblem(`no such instant: ${JSON.stringify(text)}`);
  }
  const offsetMs = zoneOffsetMs(zone!);
  const digits = FRACTION_DIGITS[column.timePrecision ?? 'MILLISECOND'];
  if (fraction.length > digits) {
    throw new ValueProblem(`TIMESTAMP with ${digits} fraction digits at most: ${JSON.stringify(text)}`);
  }
  const units = BigInt(secondsMs - offsetMs) * 10n ** BigInt(digits - 3) +
    BigInt(fraction.padEnd(digits, '0') || '0');
  return digits === 3 ? Number(units) : units;
}

function zoneOffsetMs(zone: string): number {
  if (zone === 'Z') return 0;
  const digits = zone.replace(':', '');
  const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
  const offsetMs = minutes * 60_000;
  if (offsetMs >= MS_PER_DAY) throw new ValueProblem(`time zone offset ${zone} out of range`);
  return zone.startsWith('-') ? -offsetMs : offsetMs;
}
