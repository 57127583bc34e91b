// Pages of rows as the node sent them (the row codec's 'wire' form, lib/encoding/row-codec.ts, via
// RowSet.nextPageEncoded) → the web API's JSON rows as bytes, with no row arrays or strings in
// between: each value is read from the page's bytes and written as ASCII into one buffer, the
// doubles spliced in by the native formatter (spliceJsonDoubles, as rows-double-splice.ts does
// for decoded rows). A range scan's 4,320 rows of 11 columns were first decoded into 4,320 arrays
// of boxed values, written into a 0.9 MB string, copied to bytes for the splice and back.
//
// The text and the estimated size are byte for byte those of splicedRowsText on the decoded rows
// (a property test compares them), so it takes the same pages: BOOL, BYTE, SHORT, INTEGER, DOUBLE
// and TIMESTAMP(ms) columns, no arrays, UTC, the addon built; rowsWireJsonFits says so. Bytes that
// do not hold `count` rows of those columns are the node's bug or a damaged frame: PROTOCOL_ERROR,
// as RowBatch.decode says for them.

import { Buffer } from 'node:buffer';
import { assert } from '../../base/assert.ts';
import type { DoubleTextAddon } from '../../io/double-text.ts';
import { protocolError } from '../../protocol/frame.ts';
import { TIMESTAMP_MS_MAX } from '../../schema/column-type.ts';
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

/** The longest text of a value of each type taken (a DOUBLE's text is spliced in later). */
const TEXT_BYTES_MAX: Readonly<Record<string, number>> = {
  BOOL: 5, BYTE: 4, SHORT: 6, INTEGER: 11, DOUBLE: 0, TIMESTAMP: 26,
};
const NULL_TEXT_BYTES = 4;
const C_COMMA = 0x2c;
const C_OPEN = 0x5b;
const C_CLOSE = 0x5d;
const C_QUOTE = 0x22;

/**
 * The rows of `pages`, in order, as one JSON array (ASCII, so also its UTF-8), and its estimated
 * size. The text is written as bytes into one buffer sized for the longest rows, with no string
 * in between: a range scan's text went through a 0.9 MB string, then its latin1 bytes, then back.
 */
export function rowsWireJson(
  columns: readonly ColumnSchema[],
  pages: readonly WirePage[],
  addon: DoubleTextAddon,
): { bytes: Buffer; sizeBytes: number } {
  const columnCount = columns.length;
  const types = columns.map((column) => TYPE_CODES[column.type]!);
  const doubleColumnCount = types.filter((type) => type === TYPE_DOUBLE).length;
  const bitmapBytes = (columnCount + 7) >> 3;
  let rowTextBytesMax = 2 + columnCount - 1;
  for (const column of columns) {
    rowTextBytesMax += Math.max(TEXT_BYTES_MAX[column.type]!, NULL_TEXT_BYTES);
  }
  let rowCount = 0;
  for (const page of pages) rowCount += page.count;
  const at = new Uint32Array(rowCount * doubleColumnCount);
  const values = new Float64Array(rowCount * doubleColumnCount);
  const out = Buffer.allocUnsafe(2 + rowCount * (rowTextBytesMax + 1));
  let count = 0;
  let sizeBytes = 0;
  let length = 0;
  out[length++] = C_OPEN;
  for (const page of pages) {
    const { bytes } = page;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let offset = 0;
    for (let r = 0; r < page.count; r++) {
      if (offset + bitmapBytes > bytes.length) throw malformed('a row past the page end');
      const bitmapAt = offset;
      offset += bitmapBytes;
      if (length > 1) out[length++] = C_COMMA;
      out[length++] = C_OPEN;
      for (let c = 0; c < columnCount; c++) {
        if (c > 0) out[length++] = C_COMMA;
        if ((bytes[bitmapAt + (c >> 3)]! & (1 << (c & 7))) !== 0) {
          length += out.write('null', length, 'latin1');
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
            length += out.write(value === 1 ? 'true' : 'false', length, 'latin1');
            offset += 1;
            break;
          }
          case TYPE_BYTE:
            length += out.write(String(view.getInt8(offset)), length, 'latin1');
            offset += 1;
            break;
          case TYPE_SHORT:
            length += out.write(String(view.getInt16(offset, true)), length, 'latin1');
            offset += 2;
            break;
          case TYPE_INTEGER:
            length += out.write(String(view.getInt32(offset, true)), length, 'latin1');
            offset += 4;
            break;
          case TYPE_DOUBLE:
            at[count] = length;
            values[count++] = view.getFloat64(offset, true);
            offset += 8;
            break;
          default: {
            // TIMESTAMP(ms): a u64 of ms, at most 9999-12-31 (below 2^53: exact as a number, 24
            // characters of text).
            const ms = view.getUint32(offset, true) + view.getUint32(offset + 4, true) * 2 ** 32;
            if (ms > TIMESTAMP_MS_MAX) throw malformed(`a TIMESTAMP of ${ms} ms`);
            out[length++] = C_QUOTE;
            length += out.write(isoTextOfMs(ms), length, 'latin1');
            out[length++] = C_QUOTE;
            offset += 8;
          }
        }
      }
      out[length++] = C_CLOSE;
    }
    if (offset !== bytes.length) throw malformed(`${bytes.length - offset} bytes after the rows`);
  }
  out[length++] = C_CLOSE;
  assert(length <= out.length);
  if (count === 0) return { bytes: out.subarray(0, length), sizeBytes };
  return { bytes: addon.spliceJsonDoubles!(out, length, at, values, count), sizeBytes };
}

function malformed(what: string) {
  return protocolError(`malformed rows page: ${what}`);
}
