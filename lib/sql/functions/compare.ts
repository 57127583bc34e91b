// Order of two non-NULL SQL values of one type: numbers by value (NaN above every number, as
// GridDB sorts it), strings by Unicode code point (not UTF-16 unit), BOOL false < true, BLOB by
// bytes. Used by the scalar MAX/MIN and by whoever else needs one order for SQL values.

import type { SqlValue } from '../value.ts';

export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (0xD800-0xDFFF) stands for a code point above 0xFFFF: it sorts last.
    const xHigh = x >= 0xd800 && x <= 0xdfff;
    const yHigh = y >= 0xd800 && y <= 0xdfff;
    if (xHigh !== yHigh) return xHigh ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export function compareSqlValues(a: SqlValue, b: SqlValue): number {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number(Number.isNaN(a)) - Number(Number.isNaN(b));
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const length = Math.min(a.length, b.length);
    for (let i = 0; i < length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  }
  throw new TypeError(`values of different shapes: ${typeof a}, ${typeof b}`);
}
