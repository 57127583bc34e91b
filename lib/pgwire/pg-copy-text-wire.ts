// COPY FROM's text format read straight from the CopyData bytes into the MULTI_PUT's row encoding
// (the row codec's 'wire' form, lib/encoding/row-codec.ts), typed by the table's schema: no string
// per line or field, no row array, no second encoding. The general path (pg-copy-text.ts: decode
// the stream, split records and fields, read each value, check the row, encode the batch) made
// about 15 objects per row of the TSBS day and its profile had a second of GC in 172,800 rows.
//
// Only what is certainly a valid row takes this path; any other line goes the general way, line by
// line, so that values and errors (SQLSTATE, message, line, column) stay exactly the general
// path's (a property test compares both). A line is taken here when it has no backslash and its
// fields are, column by column in the table's order:
//   - NULL (the NULL text) in a column that allows NULL;
//   - DOUBLE, FLOAT: a plain decimal (a digit or minus first, a digit last, only digits . e E + -)
//     that Number reads (FLOAT then rounded to single, as the general reader does);
//   - BYTE, SHORT, INTEGER, LONG: [-]digits, at most 15 of them, within the type's range;
//   - TIMESTAMP (ms): YYYY-MM-DD{T| }hh:mm:ss[.f{1,3}]{Z|+00}, a real date and time after the epoch;
//   - STRING: printable ASCII (0x20–0x7e), at most STRING_FAST_BYTES_MAX bytes: valid by any
//     block size's limit, and its bytes are its UTF-8.
// Tables with other column types (BOOL, BLOB, GEOMETRY, arrays, µs/ns timestamps) or a COPY that
// names its columns use the general path for every line.
//
// A record of the general path (its line's bytes decoded as UTF-8: a newline is never inside a
// UTF-8 sequence, so line by line gives the text the stream's decoding gave) is read, checked and
// appended here by the row codec, so a batch holds the rows of both in line order.

import { Buffer } from 'node:buffer';
import { ByteWriter } from '../encoding/byte-writer.ts';
import { doubleText } from '../io/double-text.ts';
import { rowCodec, type RowCodec } from '../encoding/row-codec.ts';
import type { Row } from '../schema/column-type.ts';
import { TIMESTAMP_MS_MAX } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import type { PgCopyOptions } from './pg-copy-statement.ts';

/** Longest STRING field taken here: below the smallest block size's string limit (15 KiB). */
export const STRING_FAST_BYTES_MAX = 4096;
/** DOUBLE and FLOAT fields read in one call at first; the arrays grow by doubling. */
const PENDING_DOUBLES_INITIAL = 16 * 1024;
/** The first batch buffer's size; it grows by doubling up to the batch's bound. */
const BATCH_BYTES_INITIAL = 256 * 1024;

const K_DOUBLE = 0;
const K_FLOAT = 1;
const K_BYTE = 2;
const K_SHORT = 3;
const K_INTEGER = 4;
const K_LONG = 5;
const K_TIMESTAMP = 6;
const K_STRING = 7;
const INTEGER_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0, 0], [0, 0], [-128, 127], [-32768, 32767], [-2147483648, 2147483647],
  [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
];
/** Digits of an integer field taken here: exact in a double, and within LONG. */
const INTEGER_DIGITS_MAX = 15;
const C_NEWLINE = 0x0a;
const C_CR = 0x0d;
const C_SPACE = 0x20;
const C_PLUS = 0x2b;
const C_MINUS = 0x2d;
const C_DOT = 0x2e;
const C_0 = 0x30;
const C_9 = 0x39;
const C_COLON = 0x3a;
const C_E_UPPER = 0x45;
const C_T_UPPER = 0x54;
const C_Z_UPPER = 0x5a;
const C_BACKSLASH = 0x5c;
const C_E_LOWER = 0x65;
const C_TILDE = 0x7e;
const MS_PER_DAY = 86_400_000;
const TWO_POW_32 = 0x1_0000_0000;

/** The kinds of a schema's columns for this path, or undefined when one has none. */
function kindsOf(schema: ContainerSchema): Uint8Array | undefined {
  const kinds = new Uint8Array(schema.columns.length);
  for (let i = 0; i < kinds.length; i++) {
    const column = schema.columns[i]!;
    if (column.array) return undefined;
    switch (column.type) {
      case 'DOUBLE': kinds[i] = K_DOUBLE; break;
      case 'FLOAT': kinds[i] = K_FLOAT; break;
      case 'BYTE': kinds[i] = K_BYTE; break;
      case 'SHORT': kinds[i] = K_SHORT; break;
      case 'INTEGER': kinds[i] = K_INTEGER; break;
      case 'LONG': kinds[i] = K_LONG; break;
      case 'STRING': kinds[i] = K_STRING; break;
      case 'TIMESTAMP':
        if ((column.timePrecision ?? 'MILLISECOND') !== 'MILLISECOND') return undefined;
        kinds[i] = K_TIMESTAMP;
        break;
      default: return undefined;
    }
  }
  return kinds;
}

/** Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Digits bytes[at, at + count) as a number, or -1 when one is not a digit. */
function digitsAt(bytes: Uint8Array, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const c = bytes[i]! - C_0;
    if (c < 0 || c > 9) return -1;
    value = value * 10 + c;
  }
  return value;
}

/**
 * A TIMESTAMP field bytes[from, to) as ms since the epoch, or -1 when it is not in the one plain
 * spelling taken here (then the general reader decides).
 */
export function plainTimestampMs(bytes: Uint8Array, from: number, to: number): number {
  const length = to - from;
  if (length < 20 || length > 26) return -1;
  if (bytes[from + 4] !== C_MINUS || bytes[from + 7] !== C_MINUS || bytes[from + 13] !== C_COLON ||
    bytes[from + 16] !== C_COLON) return -1;
  const separator = bytes[from + 10];
  if (separator !== C_T_UPPER && separator !== C_SPACE) return -1;
  const year = digitsAt(bytes, from, 4);
  const month = digitsAt(bytes, from + 5, 2);
  const day = digitsAt(bytes, from + 8, 2);
  const hour = digitsAt(bytes, from + 11, 2);
  const minute = digitsAt(bytes, from + 14, 2);
  const second = digitsAt(bytes, from + 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 ||
    second < 0 || second > 59 || day > daysInMonth(year, month)) return -1;
  let at = from + 19;
  let milli = 0;
  if (bytes[at] === C_DOT) {
    at++;
    let scale = 100;
    const digitsFrom = at;
    while (at < to && bytes[at]! >= C_0 && bytes[at]! <= C_9) {
      milli += (bytes[at]! - C_0) * scale;
      scale /= 10;
      at++;
    }
    if (at === digitsFrom || at - digitsFrom > 3) return -1;
  }
  // The zone: Z, or +00 only with a space, as COPY TO and toISOString write them.
  if (at + 1 === to && bytes[at] === C_Z_UPPER) {
    // fine
  } else if (at + 3 === to && bytes[at] === C_PLUS && bytes[at + 1] === C_0 && bytes[at + 2] === C_0) {
    // fine
  } else {
    return -1;
  }
  const ms = daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + milli;
  return ms > 0 && ms <= TIMESTAMP_MS_MAX ? ms : -1;
}

/** Where the digits from `at` end (at itself when there are none). */
function digitsEnd(bytes: Uint8Array, at: number, to: number): number {
  while (at < to && bytes[at]! >= C_0 && bytes[at]! <= C_9) at++;
  return at;
}

/**
 * Whether bytes[from, to) is a plain decimal, [-]digits[.digits][(e|E)[+|-]digits]: Number and
 * std::from_chars read it alike (correctly rounded); the general reader reads it by Number.
 */
export function isPlainDecimal(bytes: Uint8Array, from: number, to: number): boolean {
  let at = bytes[from] === C_MINUS ? from + 1 : from;
  let end = digitsEnd(bytes, at, to);
  if (end === at) return false;
  at = end;
  if (at < to && bytes[at] === C_DOT) {
    end = digitsEnd(bytes, at + 1, to);
    if (end === at + 1) return false;
    at = end;
  }
  if (at < to && (bytes[at] === C_E_LOWER || bytes[at] === C_E_UPPER)) {
    at++;
    if (at < to && (bytes[at] === C_PLUS || bytes[at] === C_MINUS)) at++;
    end = digitsEnd(bytes, at, to);
    if (end === at) return false;
    at = end;
  }
  return at === to;
}

/** A field's decimal as Number reads it (the addon's misses and a build without it). */
function numberOf(bytes: Buffer, from: number, to: number): number {
  return Number(bytes.toString('latin1', from, to));
}

/** Rows of one COPY's batch in the row codec's 'wire' form, appended line by line. */
export class PgCopyTextWireBatch {
  private readonly kinds: Uint8Array;
  private readonly nullable: Uint8Array;
  private readonly codec: RowCodec;
  private readonly bitmapBytes: number;
  private readonly nullBytes: Uint8Array;
  private readonly delimiter: number;
  private writer = new ByteWriter(BATCH_BYTES_INITIAL);
  /** Rows in the batch. */
  count = 0;
  /**
   * DOUBLE and FLOAT fields whose value is still to be read, all at once by the addon: the field
   * [starts[k], ends[k]) of `source`, its value to be written at byte at[k] of the batch, as a
   * float32 where single[k]. Read when the source changes and before the batch is taken.
   */
  private readonly parse = doubleText?.parseDoubles;
  private source: Buffer | undefined;
  private pendingCount = 0;
  private starts = new Uint32Array(PENDING_DOUBLES_INITIAL);
  private ends = new Uint32Array(PENDING_DOUBLES_INITIAL);
  private at = new Uint32Array(PENDING_DOUBLES_INITIAL);
  private single = new Uint8Array(PENDING_DOUBLES_INITIAL);
  private values = new Float64Array(PENDING_DOUBLES_INITIAL);
  /** 1 where the addon read values[k]; 0 where the field is for Number (beyond a double's range). */
  private ok = new Uint8Array(PENDING_DOUBLES_INITIAL);

  /** The batch builder for a COPY, or undefined when its lines all go the general way. */
  static for(schema: ContainerSchema, options: PgCopyOptions, namesColumns: boolean): PgCopyTextWireBatch | undefined {
    if (options.format !== 'text' || namesColumns) return undefined;
    const delimiter = options.delimiter.charCodeAt(0);
    if (options.delimiter.length !== 1 || delimiter > 0x7e || delimiter === C_BACKSLASH) return undefined;
    // A backslash in the NULL text escapes the character after it in the general path: taken only
    // where that character is the NULL text's own (not a delimiter, nor past its end).
    if (options.nullText.endsWith('\\') || options.nullText.includes(options.delimiter)) return undefined;
    const kinds = kindsOf(schema);
    return kinds === undefined ? undefined : new PgCopyTextWireBatch(schema, kinds, delimiter, options.nullText);
  }

  private constructor(schema: ContainerSchema, kinds: Uint8Array, delimiter: number, nullText: string) {
    this.kinds = kinds;
    this.nullable = Uint8Array.from(schema.columns, (column, i) =>
      (i < schema.rowKeyColumnCount || column.notNull ? 0 : 1));
    this.codec = rowCodec(schema, 'wire');
    this.bitmapBytes = (kinds.length + 7) >> 3;
    this.nullBytes = Buffer.from(nullText, 'utf8');
    this.delimiter = delimiter;
  }

  /** Bytes held by the batch. */
  get byteCount(): number {
    return this.writer.lengthBytes;
  }

  /**
   * Appends the line bytes[from, to) (no newline) as a row, when it is one taken here (see the
   * header); false, with nothing appended, otherwise.
   */
  tryLine(bytes: Buffer, from: number, to: number): boolean {
    if (bytes !== this.source) {
      this.readDoubles();
      this.source = bytes;
    }
    const pendingAtLine = this.pendingCount;
    if (this.appendLine(bytes, from, to)) return true;
    this.pendingCount = pendingAtLine;
    return false;
  }

  private appendLine(bytes: Buffer, from: number, to: number): boolean {
    const kinds = this.kinds;
    const columnCount = kinds.length;
    const writer = this.writer;
    // Each field takes at most 8 bytes, or a STRING its bytes and a 2-byte size.
    const start = writer.claim(this.bitmapBytes + columnCount * 8 + (to - from) + 2 * columnCount);
    const out = writer.bytesView;
    const view = writer.dataView;
    const bitmapAt = start;
    for (let b = 0; b < this.bitmapBytes; b++) out[bitmapAt + b] = 0;
    let at = start + this.bitmapBytes;
    let fieldFrom = from;
    for (let c = 0; c < columnCount; c++) {
      if (fieldFrom > to) return false; // missing data: the general path says which column
      let fieldTo = fieldFrom;
      // A backslash is never part of a field taken here (below) but the NULL text's: each field
      // ends at the next delimiter as the general path's escapes would end it.
      while (fieldTo < to && bytes[fieldTo] !== this.delimiter) fieldTo++;
      if (this.isNull(bytes, fieldFrom, fieldTo)) {
        if (this.nullable[c] === 0) return false;
        out[bitmapAt + (c >> 3)]! |= 1 << (c & 7);
        fieldFrom = fieldTo + 1;
        continue;
      }
      if (fieldTo === fieldFrom) return false;
      const kind = kinds[c]!;
      switch (kind) {
        case K_DOUBLE: case K_FLOAT: {
          if (!isPlainDecimal(bytes, fieldFrom, fieldTo)) return false;
          if (this.parse !== undefined) {
            this.pendingDouble(fieldFrom, fieldTo, at, kind === K_FLOAT);
          } else if (kind === K_DOUBLE) {
            view.setFloat64(at, numberOf(bytes, fieldFrom, fieldTo), true);
          } else {
            view.setFloat32(at, numberOf(bytes, fieldFrom, fieldTo), true);
          }
          at += kind === K_DOUBLE ? 8 : 4;
          break;
        }
        case K_TIMESTAMP: {
          const ms = plainTimestampMs(bytes, fieldFrom, fieldTo);
          if (ms < 0) return false;
          const low = ms % TWO_POW_32;
          view.setUint32(at, low, true);
          view.setUint32(at + 4, (ms - low) / TWO_POW_32, true);
          at += 8;
          break;
        }
        case K_STRING: {
          const size = fieldTo - fieldFrom;
          if (size > STRING_FAST_BYTES_MAX) return false;
          for (let i = fieldFrom; i < fieldTo; i++) {
            const b = bytes[i]!;
            if (b < C_SPACE || b > C_TILDE || b === C_BACKSLASH) return false;
          }
          if (size >= 0x80) {
            out[at++] = (size & 0x7f) | 0x80;
            out[at++] = size >> 7;
          } else {
            out[at++] = size;
          }
          out.set(bytes.subarray(fieldFrom, fieldTo), at);
          at += size;
          break;
        }
        default: { // the integers
          let i = fieldFrom;
          const negative = bytes[i] === C_MINUS;
          if (negative) i++;
          if (fieldTo - i < 1 || fieldTo - i > INTEGER_DIGITS_MAX) return false;
          const magnitude = digitsAt(bytes, i, fieldTo - i);
          if (magnitude < 0) return false;
          const value = negative ? -magnitude : magnitude;
          const [min, max] = INTEGER_RANGES[kind]!;
          if (value < min || value > max) return false;
          if (kind === K_BYTE) {
            view.setInt8(at, value);
            at += 1;
          } else if (kind === K_SHORT) {
            view.setInt16(at, value, true);
            at += 2;
          } else if (kind === K_INTEGER) {
            view.setInt32(at, value, true);
            at += 4;
          } else {
            view.setBigInt64(at, BigInt(value), true);
            at += 8;
          }
        }
      }
      fieldFrom = fieldTo + 1;
    }
    if (fieldFrom <= to) return false; // extra data: the general path says so
    writer.advanceTo(at);
    this.count++;
    return true;
  }

  private pendingDouble(from: number, to: number, at: number, single: boolean): void {
    if (this.pendingCount === this.starts.length) {
      const grown = (array: Uint32Array) => {
        const bigger = new Uint32Array(array.length * 2);
        bigger.set(array);
        return bigger;
      };
      this.starts = grown(this.starts);
      this.ends = grown(this.ends);
      this.at = grown(this.at);
      const single = new Uint8Array(this.single.length * 2);
      single.set(this.single);
      this.single = single;
      this.values = new Float64Array(this.values.length * 2);
      this.ok = new Uint8Array(this.ok.length * 2);
    }
    const k = this.pendingCount++;
    this.starts[k] = from;
    this.ends[k] = to;
    this.at[k] = at;
    this.single[k] = single ? 1 : 0;
  }

  /** Reads the pending DOUBLE and FLOAT fields in one call and writes them into their rows. */
  private readDoubles(): void {
    const count = this.pendingCount;
    if (count === 0) return;
    const source = this.source!;
    const { values, ok, starts, ends, at, single } = this;
    this.parse!(source, starts, ends, values, ok, count);
    const view = this.writer.dataView;
    for (let k = 0; k < count; k++) {
      let value = values[k]!;
      if (ok[k] !== 1) value = numberOf(source, starts[k]!, ends[k]!); // beyond a double's range
      if (single[k] === 1) view.setFloat32(at[k]!, value, true);
      else view.setFloat64(at[k]!, value, true);
    }
    this.pendingCount = 0;
  }

  private isNull(bytes: Uint8Array, from: number, to: number): boolean {
    const nullBytes = this.nullBytes;
    if (to - from !== nullBytes.length) return false;
    for (let i = 0; i < nullBytes.length; i++) if (bytes[from + i] !== nullBytes[i]) return false;
    return true;
  }

  /** Appends a row of the general path (checked, canonical). */
  appendRow(row: Row): void {
    this.codec.writeRows(this.writer, [row]);
    this.count++;
  }

  /** The batch's rows and bytes; the builder starts an empty batch. */
  take(): { count: number; bytes: Uint8Array } {
    this.readDoubles();
    this.source = undefined;
    const taken = { count: this.count, bytes: this.writer.finish() };
    this.writer = new ByteWriter(BATCH_BYTES_INITIAL);
    this.count = 0;
    return taken;
  }
}

/**
 * Cuts text-format CopyData into lines as bytes: the lines of each push, in order, as offsets into
 * one buffer (the pushed bytes, with the unfinished line before them in front). Holds the
 * unfinished line's pieces between pushes.
 */
export class PgCopyLineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  get pendingByteCount(): number {
    return this.pendingBytes;
  }

  /** The unfinished line, as the general splitter would have it (its UTF-8 text). */
  pendingText(): string {
    return Buffer.concat(this.pending).toString('utf8');
  }

  /**
   * The complete lines of what has come so far: `bytes` holds them, line k is
   * [starts[k], ends[k]) without its newline or a carriage return before it.
   */
  push(chunk: Buffer): { bytes: Buffer; starts: number[]; ends: number[] } {
    const starts: number[] = [];
    const ends: number[] = [];
    let bytes = chunk;
    let end = chunk.indexOf(C_NEWLINE);
    if (end < 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      return { bytes, starts, ends };
    }
    if (this.pendingBytes > 0) {
      bytes = Buffer.concat([...this.pending, chunk]);
      end += this.pendingBytes;
      this.pending = [];
      this.pendingBytes = 0;
    }
    let start = 0;
    for (; end >= 0; end = bytes.indexOf(C_NEWLINE, start)) {
      starts.push(start);
      ends.push(end > start && bytes[end - 1] === C_CR ? end - 1 : end);
      start = end + 1;
    }
    if (start < bytes.length) {
      const rest = bytes.subarray(start);
      this.pending.push(rest);
      this.pendingBytes = rest.length;
    }
    return { bytes, starts, ends };
  }

  /** At CopyDone: the last line when it had no newline, or undefined. */
  end(): { bytes: Buffer; start: number; end: number } | undefined {
    if (this.pendingBytes === 0) return undefined;
    const bytes = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    return { bytes, start: 0, end: bytes[bytes.length - 1] === C_CR ? bytes.length - 1 : bytes.length };
  }
}
