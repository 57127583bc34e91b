// How gs_sh prints values and results (spec/surface.md §6.3): TIMESTAMP as ISO 8601 in the shell's
// time zone (UTC unless settimezone: `2018-11-07T12:30:00.417Z`, `2019-05-01T09:30:00.000+09:00`,
// 6 or 9 fraction digits for TIMESTAMP(6|9)), NULL as `(NULL)` on screen and as an empty unquoted
// field in CSV, BLOB as hex, arrays as `[e1,e2]`. Results print as a TABLE (`+----+` boxes, each
// column as wide as its widest cell up to the result max width, longer cells cut with `...`) or as
// CSV (a header line of column names, then a line per row).

import { assert } from '../../lib/base/assert.ts';
import type { ColumnSchema } from '../../lib/schema/container-schema.ts';
import type { Value } from '../../lib/schema/column-type.ts';
import { ShellError } from './shell-messages.ts';

/** `setresultmaxwidth`'s default (GridDB's). */
export const RESULT_WIDTH_DEFAULT = 31;
export const RESULT_WIDTH_MAX = 1024;
export const NULL_TEXT = '(NULL)';
const TRUNCATION = '...';

/** Minutes east of UTC, or 'auto': this machine's zone at each instant. */
export type TimeZone = number | 'auto';

/** `Z`, `±hh:mm`, `±hhmm` or `auto` (settimezone). */
export function parseTimeZone(text: string): TimeZone {
  if (text === 'Z' || text === 'z') return 0;
  if (text.toLowerCase() === 'auto') return 'auto';
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(text);
  const hours = Number(match?.[2]);
  const minutes = Number(match?.[3]);
  if (match === null || hours > 18 || minutes > 59) {
    throw new ShellError(`settimezone takes ±hh:mm, ±hhmm, Z or auto; not "${text}".`);
  }
  return (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

export function timeZoneText(zone: TimeZone): string {
  if (zone === 'auto') return 'auto';
  return zone === 0 ? 'Z' : offsetText(zone);
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${sign}${two(Math.floor(absolute / 60))}:${two(absolute % 60)}`;
}

const FRACTION_DIGITS = { MILLISECOND: 3, MICROSECOND: 6, NANOSECOND: 9 } as const;
const UNITS_PER_MS = { MILLISECOND: 1n, MICROSECOND: 1000n, NANOSECOND: 1_000_000n } as const;

/** A TIMESTAMP value (ms number, or µs/ns bigint) as ISO 8601 in `zone`. */
export function timestampText(value: number | bigint, precision: keyof typeof FRACTION_DIGITS,
  zone: TimeZone): string {
  const units = BigInt(value);
  const perMs = UNITS_PER_MS[precision];
  const ms = units / perMs - (units % perMs < 0n ? 1n : 0n);
  const below = units - ms * perMs;
  const msNumber = Number(ms);
  const offsetMinutes = zone === 'auto' ? -new Date(msNumber).getTimezoneOffset() : zone;
  const shifted = new Date(msNumber + offsetMinutes * 60_000).toISOString();
  const digits = FRACTION_DIGITS[precision];
  const fraction = `${shifted.slice(20, 23)}${below.toString().padStart(digits - 3, '0')}`
    .slice(0, digits);
  return `${shifted.slice(0, 19)}.${fraction}${offsetMinutes === 0 ? 'Z' : offsetText(offsetMinutes)}`;
}

/** One value as text; undefined for NULL (the caller prints `(NULL)` or an empty field). */
export function valueText(column: ColumnSchema, value: Value, zone: TimeZone): string | undefined {
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    const elements = (value as unknown[]).map((element) => column.type === 'STRING'
      ? JSON.stringify(element) : scalarText(column, element, zone));
    return `[${elements.join(',')}]`;
  }
  return scalarText(column, value, zone);
}

function scalarText(column: ColumnSchema, value: unknown, zone: TimeZone): string {
  if (column.type === 'TIMESTAMP' && (typeof value === 'number' || typeof value === 'bigint')) {
    return timestampText(value, column.timePrecision ?? 'MILLISECOND', zone);
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (typeof value === 'number' && Object.is(value, -0)) return '-0.0';
  return String(value);
}

/** One CSV field: quoted only when it holds a comma, a quote or a line break; NULL empty. */
export function csvField(text: string | undefined): string {
  if (text === undefined) return '';
  return /[",\r\n]/.test(text) || text === '' ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(cells: ReadonlyArray<string | undefined>): string {
  return cells.map(csvField).join(',');
}

/** A result's rows as a TABLE (`+----+` boxes); NULL shows as (NULL). */
export function tableText(names: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | undefined>>,
  widthMax: number): string {
  assert(widthMax >= 1);
  assert(rows.every((row) => row.length === names.length));
  const cut = (text: string) => text.length <= widthMax ? text
    : `${text.slice(0, Math.max(0, widthMax - TRUNCATION.length))}${TRUNCATION}`.slice(0, widthMax);
  const cells = rows.map((row) => row.map((cell) => cut(cell ?? NULL_TEXT)));
  const header = names.map(cut);
  const widths = header.map((name, i) => Math.max(name.length, ...cells.map((row) => row[i]!.length)));
  const rule = `+${widths.map((width) => '-'.repeat(width + 2)).join('+')}+`;
  const line = (row: readonly string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [rule, line(header), rule, ...cells.map(line), rule].join('\n');
}

/** Fixed-width columns for the listings of showcontainer and friends. */
export function columnsText(rows: ReadonlyArray<readonly string[]>, widths: readonly number[]): string {
  return rows.map((row) => row.map((cell, i) => i === row.length - 1 ? cell : cell.padEnd(widths[i]!))
    .join(' ').trimEnd()).join('\n');
}
