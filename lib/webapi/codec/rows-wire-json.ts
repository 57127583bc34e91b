// Pages of rows as the node sent them (the row codec's 'wire' form, lib/encoding/row-codec.ts, via
// RowSet.nextPageEncoded) → the web API's JSON rows text, with no row arrays in between: each
// value is read from the page's bytes and written as text, the doubles spliced in by the native
// formatter (spliceJsonDoubles, as rows-double-splice.ts does for decoded rows). A range scan's
// 4,320 rows of 11 columns were first decoded into 4,320 arrays of boxed values, then read back.
//
// The text and the estimated size are byte for byte those of splicedRowsText on the decoded rows
// (a property test compares them), so it takes the same pages: BOOL, BYTE, SHORT, INTEGER, DOUBLE
// and TIMESTAMP(ms) columns, no arrays, UTC, the addon built; rowsWireJsonFits says so. Bytes that
// do not hold `count` rows of those columns are the node's bug or a damaged frame: PROTOCOL_ERROR,
// as RowBatch.decode says for them.

import { Buffer } from 'node:buffer';
import type { DoubleTextAddon } from '../../io/double-text.ts';
import { protocolError } from '../../protocol/frame.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import type { TimeZone } from '../config/time-zone.ts';
import { isoTextOfMs } from './timestamp-text.ts';

/** Value bytes and estimated size (GridDB's, as rows-double-splice.ts) of each type taken. */
const WIRE_SIZE_BYTES: Readonly<Record<string, number>> = {
  BOOL: 1, BYTE: 1, SHORT: 2, INTEGER: 4, DOUBLE: 8, TIMESTAMP: 8,
};
const ESTIMATED_SIZE_BYTES: Readonly<Record<string, number>> = {
  BOOL: 1, BYTE: 8, SHORT: 2, INTEGER: 4, DOUBLE: 8, TIMESTAMP: 8,
};
const TYPE_BOOL = 0;
const TYPE_BYTE = 1;
const TYPE_SHORT = 2;
const TYPE_INTEGER = 3;
const TYPE_DOUBLE = 4;
const TYPE_TIMESTAMP = 5;
const TYPE_CODES: Readonly<Record<string, number>> = {
  BOOL: TYPE_BOOL, BYTE: TYPE_BYTE, SHORT: TYPE_SHORT, INTEGER: TYPE_INTEGER, DOUBLE: TYPE_DOUBLE,
  TIMESTAMP: TYPE_TIMESTAMP,
};

/** A page as received: `count` rows in the 'wire' form of the result's columns. */
export interface WirePage {
  count: number;
  bytes: Uint8Array;
}

/** Whether pages of these columns can be written from their bytes here (else decode them). */
export function rowsWireJsonFits(
  columns: readonly ColumnSchema[],
  zone: TimeZone,
  addon: DoubleTextAddon | undefined,
): boolean {
  if (addon?.spliceJsonDoubles === undefined) return false;
  if (zone.kind !== 'offset' || zone.offsetMinutes !== 0) return false;
  let doubleColumnCount = 0;
  for (const column of columns) {
    if (column.array || TYPE_CODES[column.type] === undefined) return false;
    if (column.type === 'TIMESTAMP' && (column.timePrecision ?? 'MILLISECOND') !== 'MILLISECOND') {
      return false;
    }
    if (column.type === 'DOUBLE') doubleColumnCount++;
  }
  // Without doubles, the decoded path is as fast (nothing to splice): keep one writer for them.
  return doubleColumnCount > 0;
}

/** The rows of `pages`, in order, as one JSON array text, and its estimated size. */
export function rowsWireJson(
  columns: readonly ColumnSchema[],
  pages: readonly WirePage[],
  addon: DoubleTextAddon,
): { text: string; sizeBytes: number } {
  const columnCount = columns.length;
  const types = columns.map((column) => TYPE_CODES[column.type]!);
  const doubleColumnCount = types.filter((type) => type === TYPE_DOUBLE).length;
  const bitmapBytes = (columnCount + 7) >> 3;
  let rowCount = 0;
  for (const page of pages) rowCount += page.count;
  const at = new Uint32Array(rowCount * doubleColumnCount);
  const values = new Float64Array(rowCount * doubleColumnCount);
  let count = 0;
  let sizeBytes = 0;
  let text = '[';
  let first = true;
  for (const page of pages) {
    const { bytes } = page;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let offset = 0;
    for (let r = 0; r < page.count; r++) {
      if (offset + bitmapBytes > bytes.length) throw malformed('a row past the page end');
      const bitmapAt = offset;
      offset += bitmapBytes;
      text += first ? '[' : ',[';
      first = false;
      for (let c = 0; c < columnCount; c++) {
        if (c > 0) text += ',';
        if ((bytes[bitmapAt + (c >> 3)]! & (1 << (c & 7))) !== 0) {
          text += 'null';
          continue;
        }
        const type = types[c]!;
        const typeName = columns[c]!.type;
        if (offset + WIRE_SIZE_BYTES[typeName]! > bytes.length) {
          throw malformed('a value past the page end');
        }
        sizeBytes += ESTIMATED_SIZE_BYTES[typeName]!;
        switch (type) {
          case TYPE_BOOL: {
            const value = bytes[offset]!;
            if (value > 1) throw malformed(`a BOOL of ${value}`);
            text += value === 1 ? 'true' : 'false';
            offset += 1;
            break;
          }
          case TYPE_BYTE:
            text += String(view.getInt8(offset));
            offset += 1;
            break;
          case TYPE_SHORT:
            text += String(view.getInt16(offset, true));
            offset += 2;
            break;
          case TYPE_INTEGER:
            text += String(view.getInt32(offset, true));
            offset += 4;
            break;
          case TYPE_DOUBLE:
            at[count] = text.length;
            values[count++] = view.getFloat64(offset, true);
            offset += 8;
            break;
          default: {
            // TIMESTAMP(ms): a u64 of ms, at most 9999-12-31 (below 2^53: exact as a number).
            const ms = view.getUint32(offset, true) + view.getUint32(offset + 4, true) * 2 ** 32;
            if (!Number.isSafeInteger(ms)) throw malformed(`a TIMESTAMP of ${ms} ms`);
            text += `"${isoTextOfMs(ms)}"`;
            offset += 8;
          }
        }
      }
      text += ']';
    }
    if (offset !== bytes.length) throw malformed(`${bytes.length - offset} bytes after the rows`);
  }
  text += ']';
  if (count === 0) return { text, sizeBytes };
  const textBytes = Buffer.from(text, 'latin1');
  return {
    text: addon.spliceJsonDoubles!(textBytes, textBytes.length, at, values, count)
      .toString('latin1'),
    sizeBytes,
  };
}

function malformed(what: string) {
  return protocolError(`malformed rows page: ${what}`);
}
