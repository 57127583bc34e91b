// A page of rows with DOUBLE columns → its JSON text, the doubles written by the native formatter
// (lib/io/double-text.ts, spliceJsonDoubles) instead of V8's number-to-text. That is most of a
// range scan's answer: 4,320 rows of 10 TSBS doubles took 18 ms by JSON.stringify on the 2-core
// machine (random 15–17 digit doubles take V8's slow path), against 0.7 ms for small integers.
//
// The page is first written without its doubles, each double's byte offset noted, then one native
// call splices their text in (the shortest round-trip digits, laid out as String(x)).
// The text is byte for byte what ValueEncoder writes value by value (value-encode.ts): finite
// doubles bare, -0 as -0, NaN and the infinities as JSON strings. Only pages whose every byte is
// ASCII take this path (BOOL, BYTE, SHORT, INTEGER, DOUBLE and TIMESTAMP(ms) columns in UTC, no
// arrays), so a string's length is its byte count; any other page, a page of fewer than
// SPLICE_DOUBLE_COUNT_MIN doubles (an aggregate's answer), or no addon, is undefined and the caller
// writes it as before.

import { Buffer } from 'node:buffer';
import type { DoubleTextAddon } from '../../io/double-text.ts';
import type { Row } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import type { TimeZone } from '../config/time-zone.ts';
import { isoTextOfMs } from './timestamp-text.ts';

/**
 * Fewer doubles than this are written value by value: the splice's fixed cost (its arrays, the
 * latin1 copies, the native call) is about 6 µs, against 0.2 µs for an aggregate's one double by
 * V8; at 10 doubles (one TSBS row) the splice is ahead (best of 5, 3.1 against 4.4 µs).
 */
const SPLICE_DOUBLE_COUNT_MIN = 8;

/** The estimated size of one value of these types (GridDB's), for `maxResponseSize`. */
const SPLICE_SIZE_BYTES: Readonly<Record<string, number>> = {
  BOOL: 1, BYTE: 8, SHORT: 2, INTEGER: 4, DOUBLE: 8, TIMESTAMP: 8,
};

/** The page's text and estimated size, or undefined when it does not take this path. */
export function splicedRowsText(
  columns: readonly ColumnSchema[],
  rows: readonly Row[],
  zone: TimeZone,
  addon: DoubleTextAddon | undefined,
): { text: string; sizeBytes: number } | undefined {
  if (addon?.spliceJsonDoubles === undefined) return undefined;
  if (zone.kind !== 'offset' || zone.offsetMinutes !== 0) return undefined;
  let doubleColumnCount = 0;
  for (const column of columns) {
    if (column.array || SPLICE_SIZE_BYTES[column.type] === undefined) return undefined;
    if (column.type === 'TIMESTAMP' && (column.timePrecision ?? 'MILLISECOND') !== 'MILLISECOND') {
      return undefined;
    }
    if (column.type === 'DOUBLE') doubleColumnCount++;
  }
  const slotCount = rows.length * doubleColumnCount;
  if (slotCount < SPLICE_DOUBLE_COUNT_MIN) return undefined;
  const at = new Uint32Array(slotCount);
  const values = new Float64Array(slotCount);
  let count = 0;
  let sizeBytes = 0;
  let text = '[';
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    text += r === 0 ? '[' : ',[';
    for (let c = 0; c < columns.length; c++) {
      if (c > 0) text += ',';
      const value = row[c] ?? null;
      if (value === null) {
        text += 'null';
        continue;
      }
      const type = columns[c]!.type;
      sizeBytes += SPLICE_SIZE_BYTES[type]!;
      if (type === 'BOOL') {
        text += value === true ? 'true' : 'false';
        continue;
      }
      if (typeof value !== 'number') return undefined;
      if (type === 'DOUBLE') {
        at[count] = text.length;
        values[count++] = value;
      } else if (type === 'TIMESTAMP') {
        text += `"${isoTextOfMs(value)}"`;
      } else {
        text += String(value);
      }
    }
    text += ']';
  }
  text += ']';
  const bytes = Buffer.from(text, 'latin1');
  return {
    text: addon.spliceJsonDoubles(bytes, bytes.length, at, values, count).toString('latin1'),
    sizeBytes,
  };
}
