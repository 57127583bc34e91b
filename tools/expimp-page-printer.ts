// The export's printer of a whole page of rows straight from the bytes the node sent (the row
// codec's 'wire' form, lib/encoding/row-codec.ts, via RowSet.nextPageEncoded): the same bytes as
// rowPrinterOf (expimp-row-printer.ts) prints from decoded rows, without making a row array, a
// value per cell or a string per line. Each cell is written into one Buffer: numbers as the ASCII
// of their JavaScript text (copied by char code, no encoding pass), a millisecond TIMESTAMP as the
// cached bytes of its day plus the time of day by arithmetic, a STRING without `@` first, CR, LF,
// `"` or `\` as its UTF-8 bytes as received. Anything else in such a STRING cell goes through the
// row printer's cell printer. Schemas with other column types (arrays, BLOB, GEOMETRY,
// TIMESTAMP(6|9)) are not printable here: pagePrintable says so and the export prints rows.
// test/unit/tools/expimp-page-printer.test.ts compares it with rowPrinterOf on random rows.

import { Buffer } from 'node:buffer';
import { TIMESTAMP_MS_MAX, type ScalarValue } from '../lib/schema/column-type.ts';
import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import { cellPrinterOf, type LinePlace } from './expimp-row-printer.ts';
import { printScalar } from './expimp-values.ts';

const MS_PER_S = 1000;
const MS_PER_DAY = 86_400_000;
const TWO_TO_32 = 2 ** 32;
/** The printer's Buffer starts this large and doubles when a page needs more. */
const PAGE_BUFFER_BYTES_INITIAL = 1 << 20;
/** Bytes a fixed-width cell prints at most, quotes and comma included ("-1.7976931348623157e+308"). */
const FIXED_CELL_BYTES_MAX = 40;
const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const BACKSLASH = 0x5c;
const AT = 0x40;

const enum Kind { BOOL, BYTE, SHORT, INTEGER, LONG, FLOAT, DOUBLE, TIMESTAMP_MS, STRING }

/** The column's kind for the page printer, or undefined when it is printed from rows only. */
function kindOf(column: ColumnSchema): Kind | undefined {
  if (column.array) return undefined;
  switch (column.type) {
    case 'BOOL': return Kind.BOOL;
    case 'BYTE': return Kind.BYTE;
    case 'SHORT': return Kind.SHORT;
    case 'INTEGER': return Kind.INTEGER;
    case 'LONG': return Kind.LONG;
    case 'FLOAT': return Kind.FLOAT;
    case 'DOUBLE': return Kind.DOUBLE;
    case 'TIMESTAMP': return (column.timePrecision ?? 'MILLISECOND') === 'MILLISECOND' ? Kind.TIMESTAMP_MS : undefined;
    case 'STRING': return Kind.STRING;
    default: return undefined;
  }
}

/**
 * Whether every column is one the page printer prints, and the result's columns (whose codec
 * encoded the bytes) are the container's, type for type.
 */
export function pagePrintable(
  columns: readonly ColumnSchema[],
  resultColumns: readonly ColumnSchema[] = columns,
): boolean {
  return columns.length > 0 && columns.length === resultColumns.length &&
    columns.every((column, i) => {
      const result = resultColumns[i]!;
      return kindOf(column) !== undefined && kindOf(result) === kindOf(column);
    });
}

/**
 * A printer of pages: `count` rows encoded in `bytes` to their lines (each ending with LF), as
 * one Buffer of its own. `place.rowIndex` is set to each row's index, from `firstRowIndex`, for
 * the cells printed to files (STRING with CR or LF, or starting with `@`). Malformed bytes throw.
 */
export function pagePrinterOf(
  columns: readonly ColumnSchema[],
  place: LinePlace,
): (bytes: Uint8Array, count: number, firstRowIndex: number) => Buffer {
  if (!pagePrintable(columns)) throw new Error('the page printer cannot print these columns');
  const kinds = columns.map((column) => kindOf(column)!);
  const nullables = columns.map((column) => column.notNull !== true);
  const stringPrinters = columns.map((column, i) => column.type === 'STRING' ? cellPrinterOf(column, i) : undefined);
  const columnCount = columns.length;
  const bitmapBytes = (columnCount + 7) >> 3;
  const timestampColumn = columns.find((column) => column.type === 'TIMESTAMP');
  let out = Buffer.allocUnsafe(PAGE_BUFFER_BYTES_INITIAL);
  let dayLast = -1;
  let dayBytesLast: Uint8Array = new Uint8Array(0);

  /** Room for `sizeBytes` more bytes at `at`. */
  const ensure = (at: number, sizeBytes: number): void => {
    if (at + sizeBytes <= out.length) return;
    let length = out.length * 2;
    while (at + sizeBytes > length) length *= 2;
    const grown = Buffer.allocUnsafe(length);
    out.copy(grown, 0, 0, at);
    out = grown;
  };

  /** The ASCII text as `"text"` at `at`; returns the offset past it. */
  const quotedAscii = (text: string, at: number): number => {
    const target = out;
    target[at++] = QUOTE;
    for (let i = 0; i < text.length; i++) target[at++] = text.charCodeAt(i);
    target[at++] = QUOTE;
    return at;
  };

  const timestampMs = (ms: number, at: number): number => {
    const day = Math.floor(ms / MS_PER_DAY);
    if (day !== dayLast) {
      // printScalar's own text of the day's first instant, as the row printer takes it.
      const text = printScalar(timestampColumn!, day * MS_PER_DAY as ScalarValue)
        .slice(0, -'00:00:00.000+0000'.length);
      dayBytesLast = Buffer.from(text, 'latin1');
      dayLast = day;
    }
    const target = out;
    target[at++] = QUOTE;
    target.set(dayBytesLast, at);
    at += dayBytesLast.length;
    let rest = ms - day * MS_PER_DAY;
    const milli = rest % MS_PER_S;
    rest = (rest - milli) / MS_PER_S;
    const second = rest % 60;
    rest = (rest - second) / 60;
    const minute = rest % 60;
    const hour = (rest - minute) / 60;
    at = twoDigits(target, at, hour);
    target[at++] = 0x3a;
    at = twoDigits(target, at, minute);
    target[at++] = 0x3a;
    at = twoDigits(target, at, second);
    target[at++] = 0x2e;
    target[at++] = 0x30 + Math.floor(milli / 100);
    target[at++] = 0x30 + Math.floor(milli / 10) % 10;
    target[at++] = 0x30 + milli % 10;
    target[at++] = 0x2b; // +0000
    target[at++] = 0x30;
    target[at++] = 0x30;
    target[at++] = 0x30;
    target[at++] = 0x30;
    target[at++] = QUOTE;
    return at;
  };

  return (bytes, count, firstRowIndex) => {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const end = bytes.length;
    let offset = 0;
    let at = 0;
    const need = (sizeBytes: number) => {
      if (offset + sizeBytes > end) throw new Error(`the page ends within row ${place.rowIndex}`);
    };
    for (let r = 0; r < count; r++) {
      place.rowIndex = firstRowIndex + r;
      need(bitmapBytes);
      const bitmapAt = offset;
      offset += bitmapBytes;
      for (let i = 0; i < columnCount; i++) {
        if (i > 0) {
          ensure(at, 1);
          out[at++] = COMMA;
        }
        if ((bytes[bitmapAt + (i >> 3)]! & (1 << (i & 7))) !== 0) {
          if (!nullables[i]) throw new Error(`NULL in the NOT NULL column ${i + 1} of row ${place.rowIndex}`);
          continue;
        }
        const kind = kinds[i]!;
        if (kind === Kind.STRING) {
          at = stringCell(view, bytes, i, at);
          continue;
        }
        ensure(at, FIXED_CELL_BYTES_MAX);
        switch (kind) {
          case Kind.DOUBLE: {
            need(8);
            const number = view.getFloat64(offset, true);
            offset += 8;
            at = number === 0 && 1 / number < 0 ? quotedAscii('-0.0', at) : quotedAscii(String(number), at);
            break;
          }
          case Kind.TIMESTAMP_MS: {
            need(8);
            const ms = view.getUint32(offset, true) + view.getUint32(offset + 4, true) * TWO_TO_32;
            offset += 8;
            if (ms > TIMESTAMP_MS_MAX) throw new Error(`timestamp ${ms} out of range in row ${place.rowIndex}`);
            at = timestampMs(ms, at);
            break;
          }
          case Kind.FLOAT: {
            need(4);
            const number = view.getFloat32(offset, true);
            offset += 4;
            at = number === 0 && 1 / number < 0 ? quotedAscii('-0.0', at) : quotedAscii(String(number), at);
            break;
          }
          case Kind.LONG:
            need(8);
            at = quotedAscii(String(view.getBigInt64(offset, true)), at);
            offset += 8;
            break;
          case Kind.INTEGER:
            need(4);
            at = quotedAscii(String(view.getInt32(offset, true)), at);
            offset += 4;
            break;
          case Kind.SHORT:
            need(2);
            at = quotedAscii(String(view.getInt16(offset, true)), at);
            offset += 2;
            break;
          case Kind.BYTE:
            need(1);
            at = quotedAscii(String(view.getInt8(offset)), at);
            offset += 1;
            break;
          case Kind.BOOL: {
            need(1);
            const byte = bytes[offset++]!;
            if (byte > 1) throw new Error(`BOOL byte ${byte} in row ${place.rowIndex}`);
            at = quotedAscii(byte === 1 ? 'true' : 'false', at);
            break;
          }
        }
      }
      ensure(at, 1);
      out[at++] = LF;
    }
    if (offset !== end) throw new Error(`${end - offset} bytes after the page's ${count} rows`);
    const page = Buffer.allocUnsafe(at);
    out.copy(page, 0, 0, at);
    return page;

    /** A STRING cell: varuint size, UTF-8. */
    function stringCell(view: DataView, bytes: Uint8Array, columnIndex: number, atStart: number): number {
      let sizeBytes = 0;
      let scale = 1;
      for (;;) {
        need(1);
        const byte = bytes[offset++]!;
        sizeBytes += (byte & 0x7f) * scale;
        if (byte < 0x80) break;
        scale *= 0x80;
        if (scale > 2 ** 35) throw new Error(`a string size too long in row ${place.rowIndex}`);
      }
      need(sizeBytes);
      const start = offset;
      offset += sizeBytes;
      let plain = sizeBytes === 0 || bytes[start] !== AT;
      for (let b = start; plain && b < offset; b++) {
        const byte = bytes[b]!;
        plain = byte !== QUOTE && byte !== BACKSLASH && byte !== LF && byte !== CR;
      }
      let at = atStart;
      if (plain) {
        ensure(at, sizeBytes + 2);
        out[at++] = QUOTE;
        out.set(bytes.subarray(start, offset), at);
        at += sizeBytes;
        out[at++] = QUOTE;
        return at;
      }
      const text = stringPrinters[columnIndex]!(Buffer.from(view.buffer, view.byteOffset + start, sizeBytes)
        .toString('utf8'), place);
      const textBytes = Buffer.byteLength(text, 'utf8');
      ensure(at, textBytes);
      out.write(text, at, 'utf8');
      return at + textBytes;
    }
  };
}

function twoDigits(target: Uint8Array, at: number, value: number): number {
  target[at] = 0x30 + Math.floor(value / 10);
  target[at + 1] = 0x30 + value % 10;
  return at + 2;
}
