// A page of a result as the engine sent it (the row codec's 'wire' form, lib/encoding/row-codec.ts)
// → its DataRow messages in text format, written as bytes into one buffer with no row arrays or
// cell strings in between. Before, a page was decoded into rows (an array of boxed values per
// row), and writeDataRows (pg-results.ts) made a string per cell and copied it into the frame: the
// scan's cost on the node through the port was 2.5–3.5× the same scan by the store client.
//
// The bytes are those writeDataRows writes for the decoded rows (a property test compares them),
// so it takes the same pages only: every column in text format, of BOOL, BYTE, SHORT, INTEGER,
// LONG, DOUBLE, TIMESTAMP (ms) or STRING, no arrays, the double formatter built
// (pgDataRowsWireFits says so). A DataRow is
//
//   | 'D' | int32 length (itself and what follows) | int16 column count |
//   | per column: int32 -1 (NULL) or int32 byte count, then the text's bytes |
//
// Cell texts: BOOL t/f; integers as String(n); DOUBLE as String(x) with -0 as 0 (pg-double-cells.ts,
// all of a column's cells of the page in one native call); TIMESTAMP `YYYY-MM-DD hh:mm:ss[.fff]+00`
// with the date made once per day met; STRING its UTF-8 bytes copied from the page. Bytes that do
// not hold `count` rows of the columns are the node's bug or a damaged frame: PROTOCOL_ERROR, as
// RowBatch.decode says for them.
//
// The whole page is written in one native call when the addon has pgTextDataRows
// (lib/io/native/double-text/double_text.cc, the same bytes: a property test compares both with
// the general writer): this file's loop, even with a page's doubles formatted natively, took
// 12 to 14 ms of CPU for the 17,280 rows of the TSBS scan, 10 of them the formatter's call per
// column and the copy of its quoted texts. Without it (an addon built before), the loop below.

import { Buffer } from 'node:buffer';
import { MsTimestampSplit } from '../base/ms-timestamp-split.ts';
import { doubleText, type DoubleTextAddon } from '../io/double-text.ts';
import { protocolError } from '../protocol/frame.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import type { SqlType } from '../sql/value.ts';

/** A page as the engine sent it: `count` rows in the 'wire' form of the result's columns. */
export interface PgWirePage {
  count: number;
  bytes: Uint8Array;
}

const TYPE_BOOL = 0;
const TYPE_BYTE = 1;
const TYPE_SHORT = 2;
const TYPE_INTEGER = 3;
const TYPE_LONG = 4;
const TYPE_DOUBLE = 5;
const TYPE_TIMESTAMP = 6;
const TYPE_STRING = 7;
const TYPE_CODES: Readonly<Partial<Record<string, number>>> = {
  BOOL: TYPE_BOOL, BYTE: TYPE_BYTE, SHORT: TYPE_SHORT, INTEGER: TYPE_INTEGER, LONG: TYPE_LONG,
  DOUBLE: TYPE_DOUBLE, TIMESTAMP: TYPE_TIMESTAMP, STRING: TYPE_STRING,
};
/** Value bytes in the page of each fixed-size type. */
const WIRE_SIZE_BYTES = [1, 1, 2, 4, 8, 8, 8, 0];
/**
 * The longest cell text of each type but STRING (whose text is its bytes in the page):
 * -9223372036854775808, -1.2345678901234567e-308, 9999-12-31 23:59:59.999+00.
 */
const CELL_TEXT_BYTES_MAX = 26;
/**
 * A DataRow message, as both page writers (text here, binary in pg-data-rows-binary.ts) frame it:
 *
 *   'D' | int32 length (itself and what follows) | int16 column count | per column:
 *   int32 cell length (-1: NULL, no bytes) | cell bytes
 */
export const PG_DATA_ROW_HEADER_BYTES = 7;
export const PG_CELL_LENGTH_BYTES = 4;
const QUOTE = 0x22;
const C_0 = 0x30;
const C_SPACE = 0x20;
const C_COLON = 0x3a;
const C_DOT = 0x2e;
const C_PLUS = 0x2b;
const C_T = 0x74;
const C_F = 0x66;

/** Whether pages of these columns in these formats can be written from their bytes here. */
export function pgDataRowsWireFits(types: readonly SqlType[], columns: readonly ColumnSchema[],
  formats: readonly number[], addonLoaded = doubleText !== undefined): boolean {
  if (!addonLoaded || types.length !== columns.length) return false;
  for (let i = 0; i < types.length; i++) {
    const column = columns[i]!;
    if (formats[i] === 1 || column.array || TYPE_CODES[types[i]!] === undefined || column.type !== types[i]) {
      return false;
    }
    if (column.type === 'TIMESTAMP' && (column.timePrecision ?? 'MILLISECOND') !== 'MILLISECOND') return false;
  }
  return true;
}

export function pgWireMalformed(reason: string): Error {
  return protocolError(`malformed rows of a query result: ${reason}`);
}

/** The last timestamp written, whose date text (YYYY-MM-DD) `dateBytes` holds: made once a day. */
const shown = new MsTimestampSplit('');
const dateBytes = new Uint8Array(10);

function writeTimestamp(out: Buffer, at: number, ms: number): number {
  if (shown.split(ms)) dateBytes.set(Buffer.from(shown.dateText, 'latin1'));
  out.set(dateBytes, at);
  at += 10;
  const { hour, minute, second, milli } = shown;
  out[at] = C_SPACE;
  out[at + 1] = C_0 + ((hour / 10) | 0);
  out[at + 2] = C_0 + (hour % 10);
  out[at + 3] = C_COLON;
  out[at + 4] = C_0 + ((minute / 10) | 0);
  out[at + 5] = C_0 + (minute % 10);
  out[at + 6] = C_COLON;
  out[at + 7] = C_0 + ((second / 10) | 0);
  out[at + 8] = C_0 + (second % 10);
  at += 9;
  if (milli !== 0) { // '.5', '.25', '.125': trailing zeros dropped, as PostgreSQL shows them
    out[at++] = C_DOT;
    out[at++] = C_0 + ((milli / 100) | 0);
    if (milli % 100 !== 0) {
      out[at++] = C_0 + (((milli / 10) | 0) % 10);
      if (milli % 10 !== 0) out[at++] = C_0 + (milli % 10);
    }
  }
  out[at] = C_PLUS;
  out[at + 1] = C_0;
  out[at + 2] = C_0;
  return at + 3;
}

/** `value` as a big-endian int32 at `at` (no range check: callers write lengths and -1). */
export function pgWriteInt32(out: Buffer, at: number, value: number): void {
  out[at] = value >>> 24;
  out[at + 1] = (value >>> 16) & 0xff;
  out[at + 2] = (value >>> 8) & 0xff;
  out[at + 3] = value & 0xff;
}

function writeAscii(out: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  return at + text.length;
}

/** Writes a DataRow's 'D' and column count at `at`; its length is written by pgDataRowEnd. */
export function pgDataRowBegin(out: Buffer, at: number, columnCount: number): number {
  out[at] = 0x44; // 'D'
  out[at + 5] = columnCount >>> 8;
  out[at + 6] = columnCount & 0xff;
  return at + PG_DATA_ROW_HEADER_BYTES;
}

/** Writes the length of the DataRow begun at `rowAt` and ending before `at`. */
export function pgDataRowEnd(out: Buffer, rowAt: number, at: number): void {
  pgWriteInt32(out, rowAt + 1, at - rowAt - 1);
}

/** A varuint (LEB128, least significant group first) of the page at `offset`: [value, next offset]. */
export function pgWireVaruintAt(bytes: Uint8Array, offset: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 8; i++) {
    if (offset >= bytes.length) throw pgWireMalformed('a length past the page end');
    const byte = bytes[offset++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, offset];
    scale *= 0x80;
  }
  throw pgWireMalformed('a length longer than 8 bytes');
}

/**
 * The DataRows of `page` (rows of `types`, for which pgDataRowsWireFits), in one new buffer that
 * nothing else holds: the session hands it to the socket without a copy.
 */
export function pgDataRowsOfWire(types: readonly SqlType[], page: PgWirePage,
  addon: DoubleTextAddon = doubleText!): Buffer {
  if (addon.pgTextDataRows !== undefined) {
    const written = addon.pgTextDataRows(page.bytes, page.count, Uint8Array.from(types, (type) => TYPE_CODES[type]!));
    if (typeof written === 'string') throw pgWireMalformed(written);
    return written;
  }
  const columnCount = types.length;
  const codes = types.map((type) => TYPE_CODES[type]!);
  const bitmapBytes = (columnCount + 7) >> 3;
  const { bytes, count } = page;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Pass 1: each row's start, and the DOUBLE cells of each DOUBLE column, NULLs left out.
  const rowStarts = new Uint32Array(count + 1);
  const doubleColumns: number[] = [];
  for (let c = 0; c < columnCount; c++) if (codes[c] === TYPE_DOUBLE) doubleColumns.push(c);
  /** Slot of column c among the DOUBLE columns, or -1. */
  const doubleSlot = codes.map((code, c) => (code === TYPE_DOUBLE ? doubleColumns.indexOf(c) : -1));
  const values = doubleColumns.map(() => new Float64Array(count));
  const present = new Uint32Array(doubleColumns.length);
  let offset = 0;
  for (let r = 0; r < count; r++) {
    rowStarts[r] = offset;
    if (offset + bitmapBytes > bytes.length) throw pgWireMalformed('a row past the page end');
    const bitmapAt = offset;
    offset += bitmapBytes;
    for (let c = 0; c < columnCount; c++) {
      if ((bytes[bitmapAt + (c >> 3)]! & (1 << (c & 7))) !== 0) continue;
      const code = codes[c]!;
      if (code === TYPE_STRING) {
        const size = bytes[offset]!;
        if (size < 0x80) {
          offset += 1 + size;
        } else {
          const [longSize, next] = pgWireVaruintAt(bytes, offset);
          offset = next + longSize;
        }
        continue;
      }
      if (offset + WIRE_SIZE_BYTES[code]! > bytes.length) throw pgWireMalformed('a value past the page end');
      if (code === TYPE_DOUBLE) {
        const slot = doubleSlot[c]!;
        const value = view.getFloat64(offset, true);
        values[slot]![present[slot]!++] = value === 0 ? 0 : value; // -0 → 0, as String(-0)
      }
      offset += WIRE_SIZE_BYTES[code]!;
    }
  }
  if (offset > bytes.length) throw pgWireMalformed('a value past the page end');
  if (offset !== bytes.length) throw pgWireMalformed('bytes after the last row');
  rowStarts[count] = offset;
  // Each DOUBLE column's texts, quoted one after another ("12.5""NaN"…), in one native call.
  const texts = doubleColumns.map((_c, slot) =>
    addon.spliceDoubles(new Uint8Array(0), 0, new Uint32Array(present[slot]!), values[slot]!, present[slot]!));
  const textAt = new Uint32Array(doubleColumns.length);
  // Pass 2: the DataRows. A STRING's text is at most its bytes in the page.
  const out = Buffer.allocUnsafe(
    count * (PG_DATA_ROW_HEADER_BYTES + columnCount * (PG_CELL_LENGTH_BYTES + CELL_TEXT_BYTES_MAX)) + bytes.length);
  let at = 0;
  for (let r = 0; r < count; r++) {
    offset = rowStarts[r]!;
    const bitmapAt = offset;
    offset += bitmapBytes;
    const rowAt = at;
    at = pgDataRowBegin(out, at, columnCount);
    for (let c = 0; c < columnCount; c++) {
      if ((bytes[bitmapAt + (c >> 3)]! & (1 << (c & 7))) !== 0) {
        pgWriteInt32(out, at, -1);
        at += PG_CELL_LENGTH_BYTES;
        continue;
      }
      const cellAt = at;
      at += PG_CELL_LENGTH_BYTES;
      switch (codes[c]) {
        case TYPE_BOOL: {
          const value = bytes[offset]!;
          if (value > 1) throw pgWireMalformed(`a BOOL of ${value}`);
          out[at++] = value === 1 ? C_T : C_F;
          offset += 1;
          break;
        }
        case TYPE_BYTE:
          at = writeAscii(out, at, String(view.getInt8(offset)));
          offset += 1;
          break;
        case TYPE_SHORT:
          at = writeAscii(out, at, String(view.getInt16(offset, true)));
          offset += 2;
          break;
        case TYPE_INTEGER:
          at = writeAscii(out, at, String(view.getInt32(offset, true)));
          offset += 4;
          break;
        case TYPE_LONG:
          at = writeAscii(out, at, String(view.getBigInt64(offset, true)));
          offset += 8;
          break;
        case TYPE_DOUBLE: {
          const slot = doubleSlot[c]!;
          const text = texts[slot]!;
          let from = textAt[slot]! + 1; // past the opening quote
          for (let b = text[from]; b !== QUOTE; b = text[++from]) out[at++] = b!;
          textAt[slot] = from + 1;
          offset += 8;
          break;
        }
        case TYPE_TIMESTAMP: {
          const ms = view.getUint32(offset, true) + view.getUint32(offset + 4, true) * 0x1_0000_0000;
          at = writeTimestamp(out, at, ms);
          offset += 8;
          break;
        }
        default: { // TYPE_STRING
          let size = bytes[offset]!;
          let next = offset + 1;
          if (size >= 0x80) [size, next] = pgWireVaruintAt(bytes, offset);
          if (next + size > bytes.length) throw pgWireMalformed('a string past the page end');
          for (let i = 0; i < size; i++) out[at + i] = bytes[next + i]!;
          at += size;
          offset = next + size;
        }
      }
      pgWriteInt32(out, cellAt, at - cellAt - PG_CELL_LENGTH_BYTES);
    }
    pgDataRowEnd(out, rowAt, at);
  }
  return out.subarray(0, at);
}
