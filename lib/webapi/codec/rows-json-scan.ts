// The fast reader of a single-container row PUT's body, `[[v, ...], [v, ...], ...]`: it reads
// the bytes of complete rows once and writes each value straight into the batch's row encoding
// (rows-put-batch.ts, the wire row codec: null bitmap, then the values), typed by column, with
// no JavaScript value or array per row. It takes the common shape only:
//   TIMESTAMP (ms)     "yyyy-MM-ddTHH:mm:ss.SSSZ", exactly the form parseTimestampMs reads
//   DOUBLE, FLOAT      a JSON number (finite once converted)
//   LONG, INTEGER,     a JSON integer of at most 15 digits, in the column's range
//   SHORT, BYTE
//   BOOL               true, false
//   any of them        null, in a column that may be NULL
// Anything else in a piece of body (a string for a number, an escape, a value the general path
// refuses, a row of the wrong length, the size budget reached) makes it give the piece up: what
// it wrote of that piece is rolled back and the general path (JSON.parse, decodeRow, the
// client's validator) reads the very same piece, so a malformed body gets the same error, at
// the same position, as before. The reader never decides an error itself.
//
// Numbers: a literal of at most 15 significant digits and a decimal exponent within ±22 is
// exactly m × 10^e or m / 10^-e (both operands exact doubles, one rounding: correctly rounded,
// as JSON.parse). Any other (most TSBS doubles have 16-17 digits) is noted and converted when
// the piece is read, all in one call of double_text.node's parseDoubles (std::from_chars,
// correctly rounded too), or by Number() of its text without the addon.

import { Buffer } from 'node:buffer';
import {
  TIMESTAMP_MS_MAX as TIMESTAMP_MS_MAX_IMPORTED,
} from '../../schema/column-type.ts';
import type { ContainerSchema } from '../../schema/container-schema.ts';
import { doubleText } from '../../io/double-text.ts';
import type { RowsPutBatch } from './rows-put-batch.ts';
import type { ParseDoubles, SlowNumbers } from './rows-json-numbers.ts';
import { parseTimestampMs } from './timestamp-text.ts';

const TIMESTAMP_MS_MAX = TIMESTAMP_MS_MAX_IMPORTED;

const KIND_TIMESTAMP_MS = 1;
const KIND_DOUBLE = 2;
const KIND_FLOAT = 3;
const KIND_LONG = 4;
const KIND_INTEGER = 5;
const KIND_SHORT = 6;
const KIND_BYTE = 7;
const KIND_BOOL = 8;

/** Encoded bytes and GridDB's estimated bytes (value-decode.ts) of a value of each kind. */
const ENCODED_BYTES = [0, 8, 8, 4, 8, 4, 2, 1, 1];
const ESTIMATED_BYTES = [0, 8, 8, 4, 8, 4, 2, 8, 1];
const INTEGER_MIN = [0, 0, 0, 0, -(2 ** 53), -(2 ** 31), -(2 ** 15), -(2 ** 7), 0];
const INTEGER_MAX = [0, 0, 0, 0, 2 ** 53, 2 ** 31 - 1, 2 ** 15 - 1, 2 ** 7 - 1, 0];

/** scan()'s answer when it gives a piece up. */
export const SCAN_GIVEN_UP = -1;

const TWO_POW_32 = 2 ** 32;
/** Digits a mantissa may have and stay an exact double below 2^53. */
const EXACT_DIGITS_MAX = 15;
/** Powers of ten that are exact doubles: 10^0 … 10^22. */
const EXACT_POWERS = Array.from({ length: 23 }, (_, i) => 10 ** i);
const DAY_MS = 86_400_000;

const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const LETTER_E = 0x45;
const LETTER_T = 0x54;
const LETTER_Z = 0x5a;
const LOWER_E = 0x65;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const LOWER_T = 0x74;

/**
 * The reader of one schema's rows, or undefined when a column is of a kind it does not take.
 * `parseDoubles`: the addon's, if loaded (tests give undefined: Number() of the text instead).
 * The numbers it notes go in the batch's scratch (rows-put-scratch.ts).
 */
export function rowsJsonScanner(
  schema: ContainerSchema,
  batch: RowsPutBatch,
  parseDoubles: ParseDoubles | undefined = doubleText?.parseDoubles,
): RowsJsonScanner | undefined {
  const kinds = new Uint8Array(schema.columns.length);
  for (let i = 0; i < schema.columns.length; i++) {
    const column = schema.columns[i]!;
    if (column.array) return undefined;
    const kind = column.type === 'TIMESTAMP'
      ? ((column.timePrecision ?? 'MILLISECOND') === 'MILLISECOND' ? KIND_TIMESTAMP_MS : 0)
      : KINDS_BY_TYPE[column.type] ?? 0;
    if (kind === 0) return undefined;
    kinds[i] = kind;
  }
  const nullables = Uint8Array.from(schema.columns, (column, i) =>
    (column.notNull || i < schema.rowKeyColumnCount ? 0 : 1));
  return new RowsJsonScanner(kinds, nullables, batch, parseDoubles);
}

const KINDS_BY_TYPE: Partial<Record<string, number>> = {
  DOUBLE: KIND_DOUBLE, FLOAT: KIND_FLOAT, LONG: KIND_LONG, INTEGER: KIND_INTEGER,
  SHORT: KIND_SHORT, BYTE: KIND_BYTE, BOOL: KIND_BOOL,
};

export class RowsJsonScanner {
  private readonly bitmapBytes: number;
  private readonly rowBytesMax: number;
  /** The date part (`yyyy-MM-dd`) of the last timestamp read, and the ms its day starts at. */
  private readonly dayBytes = new Uint8Array(10);
  private dayMs = -1;
  /** Where the number just read ends, and its value (scanNumber). */
  private numberEnd = 0;
  private numberValue = 0;
  /** Numbers of the piece whose values are converted at its end, in one call. */
  private readonly slowNumbers: SlowNumbers;
  /** Of those, the ones in rows taken. */
  private slowTakenCount = 0;

  constructor(
    private readonly kinds: Uint8Array,
    private readonly nullables: Uint8Array,
    private readonly batch: RowsPutBatch,
    private readonly parseDoubles: ParseDoubles | undefined,
  ) {
    this.slowNumbers = batch.scratch.numbers;
    this.bitmapBytes = (kinds.length + 7) >> 3;
    this.rowBytesMax = this.bitmapBytes + 8 * kinds.length;
  }

  /**
   * Rows of `data`, which starts where a row may start (after the array's '[' or a comma between
   * rows). `whole`: data is a piece of complete rows separated by commas, all to be taken; else
   * it runs to a chunk's end, and the rows before its last comma are taken, the rest left.
   * Returns the index after the last comma taken (data.length when whole), or SCAN_GIVEN_UP
   * having written nothing.
   */
  scan(data: Uint8Array, whole: boolean, sizeBytesMax: number): number {
    const mark = this.batch.mark();
    this.slowNumbers.clear();
    this.slowTakenCount = 0;
    let restAt = this.scanRows(data, whole, sizeBytesMax);
    if (restAt !== SCAN_GIVEN_UP &&
      !this.slowNumbers.write(data, this.slowTakenCount, this.batch.writer.dataView,
        this.parseDoubles)) {
      restAt = SCAN_GIVEN_UP;
    }
    if (restAt === SCAN_GIVEN_UP) this.batch.rollback(mark);
    return restAt;
  }

  private scanRows(data: Uint8Array, whole: boolean, sizeBytesMax: number): number {
    const { batch, kinds, nullables, bitmapBytes } = this;
    const writer = batch.writer;
    const decoder = batch.decoder;
    const end = data.length;
    const columnCount = kinds.length;
    let i = 0;
    let restAt = 0;
    for (;;) {
      i = skipWhiteSpace(data, i, end);
      if (i === end) return whole ? SCAN_GIVEN_UP : restAt;
      if (data[i] !== OPEN_BRACKET) return SCAN_GIVEN_UP;
      i++;
      const rowAt = writer.claim(this.rowBytesMax);
      const bytes = writer.bytesView;
      const view = writer.dataView;
      for (let b = 0; b < bitmapBytes; b++) bytes[rowAt + b] = 0;
      let at = rowAt + bitmapBytes;
      let sizeBytes = 0;
      for (let c = 0; c < columnCount; c++) {
        i = skipWhiteSpace(data, i, end);
        if (i === end) return whole ? SCAN_GIVEN_UP : restAt;
        const kind = kinds[c]!;
        const first = data[i]!;
        if (first === LOWER_N) {
          if (i + 4 > end) return cutIn(data, i, end, NULL_BYTES) && !whole ? restAt : SCAN_GIVEN_UP;
          if (data[i + 1] !== 0x75 || data[i + 2] !== 0x6c || data[i + 3] !== 0x6c ||
            nullables[c] === 0) return SCAN_GIVEN_UP;
          bytes[rowAt + (c >> 3)]! |= 1 << (c & 7);
          i += 4;
        } else if (kind === KIND_TIMESTAMP_MS) {
          if (first !== QUOTE) return SCAN_GIVEN_UP;
          if (i + 26 > end) return stringCut(data, i + 1, end) && !whole ? restAt : SCAN_GIVEN_UP;
          const ms = this.timestampAt(data, i + 1);
          if (ms <= 0 || ms > TIMESTAMP_MS_MAX || data[i + 25] !== QUOTE) return SCAN_GIVEN_UP;
          view.setUint32(at, ms % TWO_POW_32, true);
          view.setUint32(at + 4, Math.floor(ms / TWO_POW_32), true);
          at += 8;
          sizeBytes += 8;
          i += 26;
        } else if (kind === KIND_BOOL) {
          if (first === LOWER_T && i + 4 <= end && data[i + 1] === 0x72 && data[i + 2] === 0x75 &&
            data[i + 3] === LOWER_E) {
            bytes[at] = 1;
            i += 4;
          } else if (first === LOWER_F && i + 5 <= end && data[i + 1] === 0x61 &&
            data[i + 2] === 0x6c && data[i + 3] === 0x73 && data[i + 4] === LOWER_E) {
            bytes[at] = 0;
            i += 5;
          } else {
            const cut = cutIn(data, i, end, TRUE_BYTES) || cutIn(data, i, end, FALSE_BYTES);
            return cut && !whole ? restAt : SCAN_GIVEN_UP;
          }
          at += 1;
          sizeBytes += 1;
        } else {
          const status = this.scanNumber(data, i, end, kind >= KIND_LONG);
          if (status === NUMBER_CUT) return whole ? SCAN_GIVEN_UP : restAt;
          if (status === NUMBER_BAD) return SCAN_GIVEN_UP;
          const value = this.numberValue;
          const start = i;
          i = this.numberEnd;
          if (status === NUMBER_SLOW) {
            this.slowNumbers.note(start, i, at, kind === KIND_FLOAT);
          } else if (kind === KIND_DOUBLE) {
            if (!Number.isFinite(value)) return SCAN_GIVEN_UP;
            view.setFloat64(at, value, true);
          } else if (kind === KIND_FLOAT) {
            const rounded = Math.fround(value);
            if (!Number.isFinite(rounded)) return SCAN_GIVEN_UP;
            view.setFloat32(at, rounded, true);
          } else {
            if (value < INTEGER_MIN[kind]! || value > INTEGER_MAX[kind]!) return SCAN_GIVEN_UP;
            writeInteger(view, at, kind, value);
          }
          at += ENCODED_BYTES[kind]!;
          sizeBytes += ESTIMATED_BYTES[kind]!;
        }
        i = skipWhiteSpace(data, i, end);
        if (i === end) return whole ? SCAN_GIVEN_UP : restAt;
        if (data[i] !== (c === columnCount - 1 ? CLOSE_BRACKET : COMMA)) return SCAN_GIVEN_UP;
        i++;
      }
      // The row is complete; it is taken with the comma after it (or the piece's end, whole).
      i = skipWhiteSpace(data, i, end);
      // The array's closing bracket: its last row is left, with the bracket, for the general
      // path (json-array-stream.ts reads the end of the body as before).
      if ((i === end || data[i] === CLOSE_BRACKET) && !whole) return restAt;
      if (i < end && data[i] !== COMMA) return SCAN_GIVEN_UP;
      decoder.sizeBytes += sizeBytes;
      if (decoder.sizeBytes > sizeBytesMax) return SCAN_GIVEN_UP;
      writer.advanceTo(at);
      this.slowTakenCount = this.slowNumbers.count;
      batch.rowCount++;
      batch.rowIndex++;
      if (i === end) return end;
      i++;
      restAt = i;
    }
  }

  /**
   * ms of the 24 bytes `yyyy-MM-ddTHH:mm:ss.SSSZ` at `at`, or -1 when they are not that form
   * of a valid instant. The date part is compared with the last one read; a new one is read by
   * parseTimestampMs itself, so both paths take the very same texts.
   */
  private timestampAt(data: Uint8Array, at: number): number {
    const day = this.dayBytes;
    let sameDay = this.dayMs >= 0;
    for (let k = 0; k < 10 && sameDay; k++) sameDay = data[at + k] === day[k];
    if (!sameDay) {
      for (let k = 0; k < 24; k++) if (data[at + k]! >= 0x80 || data[at + k] === 0x5c) return -1;
      const ms = parseTimestampMs(Buffer.from(data.buffer, data.byteOffset + at, 24)
        .toString('latin1'));
      if (ms === undefined) return -1;
      day.set(data.subarray(at, at + 10));
      this.dayMs = Math.floor(ms / DAY_MS) * DAY_MS;
      return ms;
    }
    if (data[at + 10] !== LETTER_T || data[at + 13] !== COLON || data[at + 16] !== COLON ||
      data[at + 19] !== DOT || data[at + 23] !== LETTER_Z) return -1;
    const hour = digitsAt(data, at + 11, 2);
    const minute = digitsAt(data, at + 14, 2);
    const second = digitsAt(data, at + 17, 2);
    const milli = digitsAt(data, at + 20, 3);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 ||
      milli < 0) return -1;
    return this.dayMs + ((hour * 60 + minute) * 60 + second) * 1000 + milli;
  }

  /**
   * A JSON number at `start` (RFC 8259: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?): its value in
   * numberValue, its end in numberEnd. `integer`: only -?(0|[1-9]\d*) of at most 15 digits.
   */
  private scanNumber(data: Uint8Array, start: number, end: number, integer: boolean): number {
    let i = start;
    const negative = data[i] === MINUS;
    if (negative) i++;
    if (i === end) return NUMBER_CUT;
    let mantissa = 0;
    let digits = 0;
    let exponent = 0;
    let byte = data[i]!;
    if (byte === ZERO) {
      i++;
    } else if (byte > ZERO && byte <= ZERO + 9) {
      for (; i < end; i++) {
        byte = data[i]! - ZERO;
        if (byte < 0 || byte > 9) break;
        mantissa = mantissa * 10 + byte;
        digits++;
      }
    } else {
      return NUMBER_BAD;
    }
    if (i === end) return NUMBER_CUT;
    byte = data[i]!;
    if (integer) {
      if (byte === DOT || byte === LOWER_E || byte === LETTER_E || digits > EXACT_DIGITS_MAX) {
        return NUMBER_BAD;
      }
      this.numberEnd = i;
      this.numberValue = negative ? -mantissa : mantissa;
      return NUMBER_OK;
    }
    if (byte === DOT) {
      i++;
      const fractionStart = i;
      for (; i < end; i++) {
        const digit = data[i]! - ZERO;
        if (digit < 0 || digit > 9) break;
        // Leading zeros of the value are not significant digits.
        if (digits > 0 || digit > 0) digits++;
        mantissa = mantissa * 10 + digit;
      }
      if (i === fractionStart) return i === end ? NUMBER_CUT : NUMBER_BAD;
      exponent = fractionStart - i;
      if (i === end) return NUMBER_CUT;
      byte = data[i]!;
    }
    if (byte === LOWER_E || byte === LETTER_E) {
      i++;
      if (i === end) return NUMBER_CUT;
      const sign = data[i] === MINUS ? -1 : 1;
      if (data[i] === MINUS || data[i] === PLUS) i++;
      const exponentStart = i;
      let written = 0;
      for (; i < end; i++) {
        const digit = data[i]! - ZERO;
        if (digit < 0 || digit > 9) break;
        written = written * 10 + digit;
      }
      if (i === exponentStart) return i === end ? NUMBER_CUT : NUMBER_BAD;
      if (i - exponentStart > 6) digits = EXACT_DIGITS_MAX + 1;
      exponent += sign * written;
      if (i === end) return NUMBER_CUT;
    }
    this.numberEnd = i;
    if (digits > EXACT_DIGITS_MAX || exponent < -22 || exponent > 22) return NUMBER_SLOW;
    const value = exponent < 0 ? mantissa / EXACT_POWERS[-exponent]!
      : mantissa * EXACT_POWERS[exponent]!;
    this.numberValue = negative ? -value : value;
    return NUMBER_OK;
  }

}

const NUMBER_OK = 0;
/** A JSON number whose value needs its text converted (SlowNumbers). */
const NUMBER_SLOW = 3;
/** The number may go on past the data's end. */
const NUMBER_CUT = 1;
/** Not a JSON number of the form taken. */
const NUMBER_BAD = 2;

const NULL_BYTES = Buffer.from('null');
const TRUE_BYTES = Buffer.from('true');
const FALSE_BYTES = Buffer.from('false');

/**
 * Whether the data's end cuts `literal` at `from`: the bytes left are a proper start of it. Only
 * then may the reader stop there and take the rows before: the bytes left hold no comma.
 */
function cutIn(data: Uint8Array, from: number, end: number, literal: Uint8Array): boolean {
  if (end - from >= literal.length) return false;
  for (let k = from; k < end; k++) if (data[k] !== literal[k - from]) return false;
  return true;
}

/** Whether the data's end cuts a string whose text starts at `from` (no quote or escape left). */
function stringCut(data: Uint8Array, from: number, end: number): boolean {
  for (let k = from; k < end; k++) if (data[k] === QUOTE || data[k] === 0x5c) return false;
  return true;
}

function skipWhiteSpace(data: Uint8Array, from: number, end: number): number {
  let i = from;
  for (; i < end; i++) {
    const byte = data[i];
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) break;
  }
  return i;
}

/** The decimal of `count` digits at `at`, or -1 when one is not a digit. */
function digitsAt(data: Uint8Array, at: number, count: number): number {
  let value = 0;
  for (let k = 0; k < count; k++) {
    const digit = data[at + k]! - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** An integer of the column's kind, little-endian, as the row codec writes it. */
function writeInteger(view: DataView, at: number, kind: number, value: number): void {
  if (kind === KIND_LONG) {
    const high = Math.floor(value / TWO_POW_32);
    view.setUint32(at, value - high * TWO_POW_32, true);
    view.setInt32(at + 4, high, true);
  } else if (kind === KIND_INTEGER) {
    view.setInt32(at, value, true);
  } else if (kind === KIND_SHORT) {
    view.setInt16(at, value, true);
  } else {
    view.setInt8(at, value);
  }
}
