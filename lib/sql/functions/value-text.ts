// Values as SQL writes them in text: CAST(x AS STRING), `||`, QUOTE, PRINTF's %s. BOOL is
// 'true'/'false'; integers in decimal; FLOAT and DOUBLE in the shortest text that reads back as the
// same value ('1.5', '1e+21', 'Infinity', '-Infinity', 'NaN'; a FLOAT by its 32-bit value, so
// CAST(CAST(0.1 AS FLOAT) AS STRING) is '0.1'); timestamps by sql-timestamp.ts in the session's
// zone; BLOB in upper-case hex.

import type { SqlType, SqlValue } from '../value.ts';
import { isTimestamp } from './function-kit.ts';
import { formatTimestamp } from './sql-timestamp.ts';

const FLOAT_DIGITS_MAX = 9;

export function doubleText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return String(value);
}

export function floatText(value: number): string {
  if (!Number.isFinite(value)) return doubleText(value);
  for (let digits = 1; digits <= FLOAT_DIGITS_MAX; digits++) {
    const candidate = Number(value.toPrecision(digits));
    if (Math.fround(candidate) === value) return String(candidate);
  }
  return String(value);
}

export function hexText(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += byte.toString(16).toUpperCase().padStart(2, '0');
  return text;
}

/** The text of a non-NULL value of `type`. */
export function valueText(value: Exclude<SqlValue, null>, type: SqlType, zoneMinutes: number):
  string {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Uint8Array) return hexText(value);
  if (typeof value === 'string') return value;
  if (isTimestamp(type)) return formatTimestamp(value, type, zoneMinutes);
  if (typeof value === 'bigint') return String(value);
  if (type === 'FLOAT') return floatText(value);
  if (type === 'DOUBLE') return doubleText(value);
  return String(value);
}
