// The export's printer of a whole page of rows straight from the bytes the node sent (the row
// codec's 'wire' form, lib/encoding/row-codec.ts, via RowSet.nextPageEncoded): the same bytes as
// rowPrinterOf (expimp-row-printer.ts) prints from decoded rows, without making a row array, a
// value per cell or a string per line. Each cell is written into one Buffer: numbers as the ASCII
// of their JavaScript text (copied by char code, no encoding pass), a millisecond TIMESTAMP as the
// cached bytes of its day plus the time of day by arithmetic, a STRING without `@` first, CR, LF,
// `"` or `\` as its UTF-8 bytes as received. Anything else in such a STRING cell goes through the
// row printer's cell printer. Schemas with other column types (arrays, BLOB, GEOMETRY,
// TIMESTAMP(6|9)) are not printable here: pagePrintable says so and the export prints rows.
// DOUBLE and FLOAT cells: with the double_text addon (lib/io/double-text.ts) the page is printed
// without them, their places and values noted, and the addon splices in their text in one call at
// the end (String(x) is the export's slowest step on 17-digit doubles); without it, String(x) here.
// A page of fixed-size columns only (no STRING) goes to the addon's printPage whole when it has it
// (double_text_page.h: the same text, 0.45 → 0.25 s of CPU for the TSBS day), written into the
// thread's one buffer; a page printPage calls malformed is printed here, which names the problem.
// test/unit/tools/expimp-page-printer.test.ts compares it with rowPrinterOf on random rows.

import { Buffer } from 'node:buffer';
import { assert } from '../lib/base/assert.ts';
import { doubleText, type DoubleTextAddon } from '../lib/io/double-text.ts';
import { TIMESTAMP_MS_MAX, type ScalarValue } from '../lib/schema/column-type.ts';
import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import { cellPrinterOf, type CellPrinter, type LinePlace } from './expimp-row-printer.ts';
import { printScalar } from './expimp-values.ts';

const MS_PER_S = 1000;
const MS_PER_DAY = 86_400_000;
const TWO_TO_32 = 2 ** 32;
/** The printer's Buffer starts this large and doubles when a page needs more. */
const PAGE_BUFFER_BYTES_INITIAL = 1 << 20;
/**
 * The most room printPage may ask for (a page's rows × (columns × FIXED_CELL_BYTES_MAX + 1)): a
 * 10,000-row TSBS page asks for 4.4 MB. A larger page (wide rows) is printed a cell at a time,
 * its buffer grown only as far as its text needs.
 */
const PAGE_WHOLE_BYTES_MAX = 16 << 20;
/** The noted DOUBLE and FLOAT cells of a page start with room for this many, and double. */
const NOTED_CELL_COUNT_INITIAL = 1 << 14;
/** Bytes a fixed-width cell prints at most, with quotes and comma: "-1.7976931348623157e+308". */
const FIXED_CELL_BYTES_MAX = 40;
const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const BACKSLASH = 0x5c;
const AT = 0x40;
/** `+0000`: times are printed in UTC. */
const ZONE_UTC = Buffer.from('+0000', 'latin1');

/**
 * The buffer pages are printed into: one per thread, shared by its printers, since a thread
 * prints one page at a time. A printer's own (one per container) would be 100 buffers of 1 MiB
 * for the TSBS day, grown to 4 MiB each for its 10,000-row pages.
 */
const pageOut: { buffer: Buffer } = { buffer: Buffer.allocUnsafe(PAGE_BUFFER_BYTES_INITIAL) };

/** Numbered as double_text_page.h's PageKind, which takes all but STRING. */
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
    case 'TIMESTAMP':
      return (column.timePrecision ?? 'MILLISECOND') === 'MILLISECOND'
        ? Kind.TIMESTAMP_MS : undefined;
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
 * `doubles` is the addon that prints DOUBLE and FLOAT cells, or null for String(x) (what the addon
 * falls back to when it is not built; tests pass null to check it). The Buffer returned may be
 * the thread's print buffer: it holds the page's lines until the next page printed by any printer
 * of this thread, so write it before that.
 */
export function pagePrinterOf(
  columns: readonly ColumnSchema[],
  place: LinePlace,
  doubles: DoubleTextAddon | null = doubleText ?? null,
): (bytes: Uint8Array, count: number, firstRowIndex: number) => Buffer {
  if (!pagePrintable(columns)) throw new Error('the page printer cannot print these columns');
  const printer = new PagePrinter(columns, place, doubles);
  return (bytes, count, firstRowIndex) => printer.print(bytes, count, firstRowIndex);
}

class PagePrinter {
  private readonly kinds: Kind[];
  private readonly nullables: boolean[];
  /** The row printer's cell printers of the STRING columns, for the cells it escapes or files. */
  private readonly stringPrinters: Array<CellPrinter | undefined>;
  private readonly bitmapBytes: number;
  private readonly timestampColumn: ColumnSchema | undefined;
  private get out(): Buffer {
    return pageOut.buffer;
  }

  private set out(buffer: Buffer) {
    pageOut.buffer = buffer;
  }
  /** Where the next byte goes in `out`. */
  private at = 0;
  private bytes: Uint8Array = new Uint8Array(0);
  private view: DataView = new DataView(this.bytes.buffer);
  /** Where the next value is read in `bytes`. */
  private offset = 0;
  private dayLast = -1;
  private dayBytesLast: Uint8Array = new Uint8Array(0);
  /** With the addon: where in `out` each DOUBLE or FLOAT cell of the page goes, and its value. */
  private notedAt = new Uint32Array(NOTED_CELL_COUNT_INITIAL);
  private notedValues = new Float64Array(NOTED_CELL_COUNT_INITIAL);
  private notedCount = 0;
  /** For the addon's printPage, when it has it and no column is a STRING: kinds and NOT NULLs. */
  private readonly whole: { kinds: Uint8Array; notNulls: Uint8Array } | undefined;

  constructor(
    columns: readonly ColumnSchema[],
    private readonly place: LinePlace,
    private readonly doubles: DoubleTextAddon | null,
  ) {
    this.kinds = columns.map((column) => kindOf(column)!);
    this.nullables = columns.map((column) => column.notNull !== true);
    this.stringPrinters = columns.map((column, i) =>
      (column.type === 'STRING' ? cellPrinterOf(column, i) : undefined));
    this.bitmapBytes = (columns.length + 7) >> 3;
    this.timestampColumn = columns.find((column) => column.type === 'TIMESTAMP');
    this.whole = doubles?.printPage === undefined || this.kinds.includes(Kind.STRING) ? undefined : {
      kinds: Uint8Array.from(this.kinds),
      notNulls: Uint8Array.from(this.nullables, (nullable) => (nullable ? 0 : 1)),
    };
  }

  print(bytes: Uint8Array, count: number, firstRowIndex: number): Buffer {
    const wholeBytes = count * (this.kinds.length * FIXED_CELL_BYTES_MAX + 1);
    if (this.whole !== undefined && wholeBytes <= PAGE_WHOLE_BYTES_MAX) {
      this.at = 0;
      this.ensure(wholeBytes);
      const { kinds, notNulls } = this.whole;
      const written = this.doubles!.printPage!(bytes, count, kinds, notNulls, this.out);
      assert(written <= this.out.length);
      if (written >= 0) return this.out.subarray(0, written);
      // Malformed: printed below, which throws naming the row and the problem.
    }
    return this.printCells(bytes, count, firstRowIndex);
  }

  private printCells(bytes: Uint8Array, count: number, firstRowIndex: number): Buffer {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.offset = 0;
    this.at = 0;
    this.notedCount = 0;
    const columnCount = this.kinds.length;
    for (let r = 0; r < count; r++) {
      this.place.rowIndex = firstRowIndex + r;
      this.need(this.bitmapBytes);
      const bitmapAt = this.offset;
      this.offset += this.bitmapBytes;
      for (let i = 0; i < columnCount; i++) {
        this.ensure(FIXED_CELL_BYTES_MAX);
        if (i > 0) this.out[this.at++] = COMMA;
        if ((bytes[bitmapAt + (i >> 3)]! & (1 << (i & 7))) === 0) this.cell(i);
        else if (!this.nullables[i]) throw this.malformed(`NULL in the NOT NULL column ${i + 1}`);
      }
      this.ensure(1);
      this.out[this.at++] = LF;
    }
    if (this.offset !== bytes.length) {
      throw new Error(`${bytes.length - this.offset} bytes after the page's ${count} rows`);
    }
    if (this.doubles !== null) {
      return this.doubles.spliceDoubles(this.out, this.at, this.notedAt, this.notedValues,
        this.notedCount);
    }
    const page = Buffer.allocUnsafe(this.at);
    this.out.copy(page, 0, 0, this.at);
    return page;
  }

  /** A non-NULL cell of column `i`, with FIXED_CELL_BYTES_MAX bytes of room. */
  private cell(i: number): void {
    const { view } = this;
    switch (this.kinds[i]!) {
      case Kind.DOUBLE:
        this.need(8);
        this.float(view.getFloat64(this.offset, true));
        this.offset += 8;
        return;
      case Kind.TIMESTAMP_MS: {
        this.need(8);
        const ms = view.getUint32(this.offset, true) +
          view.getUint32(this.offset + 4, true) * TWO_TO_32;
        this.offset += 8;
        if (ms > TIMESTAMP_MS_MAX) throw this.malformed(`timestamp ${ms} out of range`);
        this.timestampMs(ms);
        return;
      }
      case Kind.STRING: return this.string(i);
      case Kind.FLOAT:
        this.need(4);
        this.float(view.getFloat32(this.offset, true));
        this.offset += 4;
        return;
      case Kind.LONG:
        this.need(8);
        this.quotedAscii(String(view.getBigInt64(this.offset, true)));
        this.offset += 8;
        return;
      case Kind.INTEGER:
        this.need(4);
        this.quotedAscii(String(view.getInt32(this.offset, true)));
        this.offset += 4;
        return;
      case Kind.SHORT:
        this.need(2);
        this.quotedAscii(String(view.getInt16(this.offset, true)));
        this.offset += 2;
        return;
      case Kind.BYTE:
        this.need(1);
        this.quotedAscii(String(view.getInt8(this.offset)));
        this.offset += 1;
        return;
      case Kind.BOOL: {
        this.need(1);
        const byte = this.bytes[this.offset++]!;
        if (byte > 1) throw this.malformed(`BOOL byte ${byte}`);
        this.quotedAscii(byte === 1 ? 'true' : 'false');
        return;
      }
    }
  }

  /** As the row printer: JavaScript's shortest text, -0 as -0.0; noted for the addon if loaded. */
  private float(number: number): void {
    if (this.doubles === null) {
      this.quotedAscii(number === 0 && 1 / number < 0 ? '-0.0' : String(number));
      return;
    }
    if (this.notedCount === this.notedAt.length) {
      const at = new Uint32Array(this.notedCount * 2);
      at.set(this.notedAt);
      this.notedAt = at;
      const values = new Float64Array(this.notedCount * 2);
      values.set(this.notedValues);
      this.notedValues = values;
    }
    this.notedAt[this.notedCount] = this.at;
    this.notedValues[this.notedCount++] = number;
  }

  /** `"text"` for an ASCII text, copied by char code (no encoding pass). */
  private quotedAscii(text: string): void {
    const { out } = this;
    let at = this.at;
    out[at++] = QUOTE;
    for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
    out[at++] = QUOTE;
    this.at = at;
  }

  /** The cached bytes of the day, then the time of day by arithmetic, as the row printer. */
  private timestampMs(ms: number): void {
    const day = Math.floor(ms / MS_PER_DAY);
    if (day !== this.dayLast) {
      // printScalar's own text of the day's first instant, as the row printer takes it.
      const text = printScalar(this.timestampColumn!, day * MS_PER_DAY as ScalarValue)
        .slice(0, -'00:00:00.000+0000'.length);
      this.dayBytesLast = Buffer.from(text, 'latin1');
      this.dayLast = day;
    }
    const { out } = this;
    let at = this.at;
    out[at++] = QUOTE;
    out.set(this.dayBytesLast, at);
    at += this.dayBytesLast.length;
    let rest = ms - day * MS_PER_DAY;
    const milli = rest % MS_PER_S;
    rest = (rest - milli) / MS_PER_S;
    const second = rest % 60;
    rest = (rest - second) / 60;
    const minute = rest % 60;
    const hour = (rest - minute) / 60;
    at = twoDigits(out, at, hour);
    out[at++] = 0x3a; // :
    at = twoDigits(out, at, minute);
    out[at++] = 0x3a;
    at = twoDigits(out, at, second);
    out[at++] = 0x2e; // .
    out[at++] = 0x30 + Math.floor(milli / 100);
    out[at++] = 0x30 + Math.floor(milli / 10) % 10;
    out[at++] = 0x30 + milli % 10;
    out.set(ZONE_UTC, at);
    at += ZONE_UTC.length;
    out[at++] = QUOTE;
    this.at = at;
  }

  /** varuint size, UTF-8: copied as received unless the row printer escapes it or files it. */
  private string(columnIndex: number): void {
    const { bytes } = this;
    let sizeBytes = 0;
    let scale = 1;
    for (;;) {
      this.need(1);
      const byte = bytes[this.offset++]!;
      sizeBytes += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
      if (scale > 2 ** 35) throw this.malformed('a string size too long');
    }
    this.need(sizeBytes);
    const start = this.offset;
    const end = start + sizeBytes;
    this.offset = end;
    let plain = sizeBytes === 0 || bytes[start] !== AT;
    for (let b = start; plain && b < end; b++) {
      const byte = bytes[b]!;
      plain = byte !== QUOTE && byte !== BACKSLASH && byte !== LF && byte !== CR;
    }
    if (plain) {
      this.ensure(sizeBytes + 2);
      this.out[this.at++] = QUOTE;
      this.out.set(bytes.subarray(start, end), this.at);
      this.at += sizeBytes;
      this.out[this.at++] = QUOTE;
      return;
    }
    const value = Buffer.from(bytes.buffer, bytes.byteOffset + start, sizeBytes).toString('utf8');
    const text = this.stringPrinters[columnIndex]!(value, this.place);
    const textBytes = Buffer.byteLength(text, 'utf8');
    this.ensure(textBytes);
    this.out.write(text, this.at, 'utf8');
    this.at += textBytes;
  }

  /** Room for `sizeBytes` more bytes in `out`: doubled (its bytes kept) when short. */
  private ensure(sizeBytes: number): void {
    if (this.at + sizeBytes <= this.out.length) return;
    let length = this.out.length * 2;
    while (this.at + sizeBytes > length) length *= 2;
    const grown = Buffer.allocUnsafe(length);
    this.out.copy(grown, 0, 0, this.at);
    this.out = grown;
  }

  /** `sizeBytes` more bytes to read, or the page is malformed. */
  private need(sizeBytes: number): void {
    if (this.offset + sizeBytes > this.bytes.length) {
      throw this.malformed('the page ends within it');
    }
  }

  private malformed(problem: string): Error {
    return new Error(`row ${this.place.rowIndex} of the page as received: ${problem}`);
  }
}

function twoDigits(target: Uint8Array, at: number, value: number): number {
  target[at] = 0x30 + Math.floor(value / 10);
  target[at + 1] = 0x30 + value % 10;
  return at + 2;
}
