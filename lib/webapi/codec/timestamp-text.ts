// TIMESTAMP values as the web API writes and reads them.
//
// Written: `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` in the configured zone (UTC → `Z`, else `+09:00`),
// with 6 or 9 fraction digits for TIMESTAMP(6) and TIMESTAMP(9) columns.
// Read: TIMESTAMP(ms) only as `yyyy-MM-ddTHH:mm:ss.SSSZ` (three digits, a literal Z), as GridDB's
// web API; TIMESTAMP(6)/(9) as the client library's precise form: 0 to 9 fraction digits and `Z`
// or an offset. Dates are checked (no 2016-02-30) where GridDB's lenient parser would roll over.

import { MsTimestampSplit } from '../../base/ms-timestamp-split.ts';
import type { TimeZone } from '../config/time-zone.ts';

const MS_TEXT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;
const PRECISE_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):(\d{2}))$/;

const DAY_MS = 86_400_000;
/** `00`…`99` and `000`…`999`: the time fields of a formatted timestamp. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/**
 * The day last parsed, as `yyyy-MM-ddT` and its first ms: rows of a series share their day, so
 * its date part is checked once, not per value (six times faster than the regular expression).
 */
let lastDayMs = Number.NaN;
let lastDayText = '';

function dayTextOf(dayMs: number): string {
  if (dayMs !== lastDayMs) {
    const text = new Date(dayMs).toISOString();
    lastDayText = text.slice(0, text.indexOf('T') + 1);
    lastDayMs = dayMs;
  }
  return lastDayText;
}

/** The last value formatted: its date made once per day met (six times faster than toISOString). */
const formatted = new MsTimestampSplit('T');

/** `new Date(ms).toISOString()`, faster. */
export function isoTextOfMs(ms: number): string {
  formatted.split(ms);
  const { dateText, hour, minute, second } = formatted;
  return `${dateText}${TWO_DIGITS[hour]!}:${TWO_DIGITS[minute]!}:${TWO_DIGITS[second]!}.` +
    `${THREE_DIGITS[formatted.milli]!}Z`;
}

/** Milliseconds since the epoch of `text`, or undefined when it is not the ms form. */
export function parseTimestampMs(text: string): number | undefined {
  if (text.length === 24 && lastDayMs >= 0 && lastDayText.length === 11 &&
    text.startsWith(lastDayText)) {
    const timeMs = timeOfDayMs(text);
    if (timeMs !== undefined) return lastDayMs + timeMs;
  }
  const match = MS_TEXT.exec(text);
  if (match === null) return undefined;
  const ms = instantMs(match, 0);
  // A valid text of this form names its day as dayTextOf writes it: the next rows of it parse
  // by the fast path.
  if (ms !== undefined) dayTextOf(Math.floor(ms / DAY_MS) * DAY_MS);
  return ms;
}

/** `HH:mm:ss.SSSZ` at offset 11 of a 24-character text, in ms; undefined when not that. */
function timeOfDayMs(text: string): number | undefined {
  const hour = twoDigitsAt(text, 11);
  const minute = twoDigitsAt(text, 14);
  const second = twoDigitsAt(text, 17);
  const milli = twoDigitsAt(text, 20) * 10 + digitAt(text, 22);
  if (text.charCodeAt(13) !== COLON || text.charCodeAt(16) !== COLON ||
    text.charCodeAt(19) !== DOT || text.charCodeAt(23) !== LETTER_Z) return undefined;
  // NaN (a character not a digit) fails every comparison.
  if (!(hour <= 23 && minute <= 59 && second <= 59 && milli >= 0)) return undefined;
  return ((hour * 60 + minute) * 60 + second) * 1000 + milli;
}

const COLON = 0x3a;
const DOT = 0x2e;
const LETTER_Z = 0x5a;

function digitAt(text: string, index: number): number {
  const code = text.charCodeAt(index) - 0x30;
  return code >= 0 && code <= 9 ? code : Number.NaN;
}

function twoDigitsAt(text: string, index: number): number {
  return digitAt(text, index) * 10 + digitAt(text, index + 1);
}

/** Units (10^-digits s) since the epoch of `text`, or undefined. `digits` is 6 or 9. */
export function parseTimestampPrecise(text: string, digits: 6 | 9): bigint | undefined {
  const match = PRECISE_TEXT.exec(text);
  if (match === null) return undefined;
  let offsetMinutes = 0;
  if (match[8] !== 'Z') {
    const hours = Number(match[10]);
    const minutes = Number(match[11]);
    if (hours > 18 || minutes > 59) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const wholeMs = instantMs(match, offsetMinutes);
  if (wholeMs === undefined) return undefined;
  const fraction = (match[7] ?? '').padEnd(9, '0');
  const sub = BigInt(fraction.slice(0, digits));
  return BigInt(wholeMs / 1000) * (digits === 6 ? 1_000_000n : 1_000_000_000n) + sub;
}

/** ms of the date and time fields (the fraction of MS_TEXT included); undefined if invalid. */
function instantMs(match: RegExpExecArray, offsetMinutes: number): number | undefined {
  const [year, month, day, hour, minute, second] =
    [1, 2, 3, 4, 5, 6].map((i) => Number(match[i]));
  if (month! < 1 || month! > 12 || day! < 1 || hour! > 23 || minute! > 59 || second! > 59) {
    return undefined;
  }
  const dayMs = Date.UTC(year!, month! - 1, day!);
  if (new Date(dayMs).getUTCDate() !== day) return undefined;
  const millis = match[7] !== undefined && match[7].length === 3 && match[8] === undefined
    ? Number(match[7]) : 0;
  const ms = dayMs + ((hour! * 60 + minute! - offsetMinutes) * 60 + second!) * 1000 + millis;
  // Date.UTC maps years 0-99 to 1900-1999; the range check below refuses them anyway.
  return year! < 1970 || ms < 0 ? undefined : ms;
}

/** A TIMESTAMP(ms) value as written in responses. */
export function formatTimestampMs(ms: number, zone: TimeZone): string {
  const offsetMinutes = zone.kind === 'offset' ? zone.offsetMinutes
    : -new Date(ms).getTimezoneOffset();
  if (offsetMinutes === 0) return isoTextOfMs(ms);
  const local = isoTextOfMs(ms + offsetMinutes * 60_000);
  return local.slice(0, -1) + offsetText(offsetMinutes);
}

/** A TIMESTAMP(6) or (9) value (µs or ns since the epoch) as written in responses. */
export function formatTimestampPrecise(units: bigint, digits: 6 | 9, zone: TimeZone): string {
  const perMs = digits === 6 ? 1000n : 1_000_000n;
  const ms = Number(units / perMs);
  const subMs = (units % perMs).toString().padStart(digits - 3, '0');
  const text = formatTimestampMs(ms, zone);
  // 2016-01-16T10:25:00.253Z → insert the digits after the milliseconds.
  return text.slice(0, 23) + subMs + text.slice(23);
}

function offsetText(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  const hours = String(Math.floor(absolute / 60)).padStart(2, '0');
  return `${sign}${hours}:${String(absolute % 60).padStart(2, '0')}`;
}
