// gs_import's fast reader of a whole row file (expimp-row-file.ts) of fixed-size columns (BOOL,
// BYTE, SHORT, INTEGER, LONG, FLOAT, DOUBLE, TIMESTAMP(3)), the TSBS shape: the file's bytes are
// scanned once and its rows written as batches of the wire row codec's bytes
// (lib/encoding/row-codec.ts), ready to be sent (ClientContainer.multiPutEncoded), with no string
// per line, no array per row kept and no second validation by the client. A profile of the TSBS
// day's import had a quarter of the command's CPU in the garbage collector, most of it the checked
// rows kept as arrays between the check and the write.
//
// Same rows as the line reader (expimp-row-reader.ts), by construction: a cell's value comes from
// expimp-values.ts's own parsers (a DOUBLE or TIMESTAMP in export's own spelling through a byte
// scan that gives what they give), the row goes through the engine's validator in one reused
// array, and the codec writes it. DOUBLE cells the byte scan leaves (17 digits: half the TSBS
// day's, where Number(text) was most of the parse) are read a batch at a time by the double_text
// addon's parseDoubles (std::from_chars, correctly rounded as Number(text) is; lib/io/double-text.ts),
// or by parseScalar without the addon. It only takes files as gs_export writes them and says no
// (undefined) to anything else: a backslash, a byte past ASCII or a CR in a data line, an empty
// line, a cell count or a cell the parsers or the validator refuse. The caller then reads the file
// the line reader's way, which names the file, line and column of a problem.
// test/unit/tools/expimp-row-scan.test.ts compares the two on random files.

import { Buffer } from 'node:buffer';
import type { Row, ScalarValue } from '../lib/schema/column-type.ts';
import type { ContainerSchema } from '../lib/schema/container-schema.ts';
import { ByteWriter } from '../lib/encoding/byte-writer.ts';
import { rowCodec } from '../lib/encoding/row-codec.ts';
import { doubleText, type DoubleTextAddon } from '../lib/io/double-text.ts';
import { parseScalar } from './expimp-values.ts';

/** One batch of rows as the wire row codec's bytes, and the file's line of its last row. */
export interface ScannedBatch {
  count: number;
  bytes: Uint8Array;
  lastLineNumber: number;
}

export interface ScannedFile {
  rowCount: number;
  batches: ScannedBatch[];
}

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const HASH = 0x23;
const PERCENT = 0x25;
const DOLLAR = 0x24;
const ASCII_END = 0x80;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const MINUS = 0x2d;
const DOT = 0x2e;
/** The writer of a batch starts this large (it doubles as needed). */
const BATCH_WRITER_BYTES_INITIAL = 1 << 20;
/** 2^53: integers below it are exact doubles (as expimp-values.ts's fast path). */
const EXACT_INTEGER_LIMIT = 2 ** 53;
/** 10^0 … 10^22, every one an exact double. */
const EXACT_POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);
/** `yyyy-MM-ddTHH:mm:ss.SSS+0000`. */
const TIMESTAMP_MS_TEXT_BYTES = 28;
const DAY_TEXT_BYTES = 10;
/** The noted DOUBLE cells of a batch start with room for this many, and double. */
const NOTED_CELL_COUNT_INITIAL = 1 << 14;
const MS_PER_S = 1000;

const enum Kind { OTHER, DOUBLE, TIMESTAMP_MS }

/**
 * Memory every scan reuses: the row arrays of a batch (by column count) and the noted cells' arrays.
 * A scan runs to its end without yielding, so one at a time. A scanner of its own per file made
 * 864,000 row arrays for the TSBS day's 100 files and grew its noted cells' arrays 300 times.
 */
const scratch = {
  rowsByColumnCount: new Map<number, Row[]>(),
  notedRows: new Uint32Array(NOTED_CELL_COUNT_INITIAL),
  notedColumns: new Uint32Array(NOTED_CELL_COUNT_INITIAL),
  notedStarts: new Uint32Array(NOTED_CELL_COUNT_INITIAL),
  notedEnds: new Uint32Array(NOTED_CELL_COUNT_INITIAL),
  notedValues: new Float64Array(NOTED_CELL_COUNT_INITIAL),
  notedOk: new Uint8Array(NOTED_CELL_COUNT_INITIAL),
};

/** Whether the scanner takes a container of these columns. */
export function rowScanTakes(schema: ContainerSchema): boolean {
  return schema.columns.length > 0 && schema.columns.every((column) => !column.array && (
    column.type === 'BOOL' || column.type === 'BYTE' || column.type === 'SHORT' ||
    column.type === 'INTEGER' || column.type === 'LONG' || column.type === 'FLOAT' ||
    column.type === 'DOUBLE' ||
    (column.type === 'TIMESTAMP' && (column.timePrecision ?? 'MILLISECOND') === 'MILLISECOND')));
}

/**
 * The rows of a whole row file in batches of `batchRowCount` rows or about `batchBytesMax` bytes
 * (whichever comes first), validated by `validateRow`; undefined when the file is not one the
 * scanner takes (see the top of the file), and the caller reads it the line reader's way.
 */
export function scanRowFile(
  file: Uint8Array,
  schema: ContainerSchema,
  validateRow: (row: unknown) => Row,
  batchRowCount: number,
  batchBytesMax: number,
  doubles: DoubleTextAddon | null = doubleText ?? null,
): ScannedFile | undefined {
  if (!rowScanTakes(schema)) return undefined;
  const parseDoubles = doubles?.parseDoubles?.bind(doubles);
  const scanner = new RowScanner(file, schema, validateRow, parseDoubles);
  return scanner.scan(batchRowCount, batchBytesMax);
}

type ParseDoubles = NonNullable<DoubleTextAddon['parseDoubles']>;

class RowScanner {
  private readonly columnCount: number;
  private readonly kinds: Kind[];
  private readonly codec;
  /** The last day text parsed (as its bytes) and its first instant in ms. */
  private readonly dayBytes = new Uint8Array(DAY_TEXT_BYTES);
  private dayMs = -1;
  /** The file as a Buffer, for the latin1 text of a cell. */
  private readonly text: Buffer;
  /**
   * With the addon: the batch's DOUBLE cells the byte scan left (17 digits and the like), parsed
   * in one native call when the batch is complete; their row in the batch, column and bytes.
   * Shared by every scan (scratch, below), grown as needed.
   */
  private notedRows = scratch.notedRows;
  private notedColumns = scratch.notedColumns;
  private notedStarts = scratch.notedStarts;
  private notedEnds = scratch.notedEnds;
  private notedValues = scratch.notedValues;
  private notedOk = scratch.notedOk;
  private notedCount = 0;
  /** The row in the batch the line being scanned goes to. */
  private rowInBatch = 0;

  constructor(
    private readonly file: Uint8Array,
    private readonly schema: ContainerSchema,
    private readonly validateRow: (row: unknown) => Row,
    private readonly parseDoubles: ParseDoubles | undefined,
  ) {
    this.text = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
    this.columnCount = schema.columns.length;
    this.kinds = schema.columns.map((column) => column.type === 'DOUBLE' ? Kind.DOUBLE
      : column.type === 'TIMESTAMP' ? Kind.TIMESTAMP_MS : Kind.OTHER);
    this.codec = rowCodec(schema, 'wire');
  }

  scan(batchRowCount: number, batchBytesMax: number): ScannedFile | undefined {
    const { file } = this;
    const length = file.length;
    const header = this.header();
    if (header === undefined) return undefined;
    let { at, lineNumber } = header;
    const batches: ScannedBatch[] = [];
    const writer = new ByteWriter(BATCH_WRITER_BYTES_INITIAL);
    // Rows of the batch in arrays reused from batch to batch and file to file.
    let rows = scratch.rowsByColumnCount.get(this.columnCount);
    if (rows === undefined) {
      rows = [];
      scratch.rowsByColumnCount.set(this.columnCount, rows);
    }
    let count = 0;
    let rowCount = 0;
    // A row's bytes at most: its bitmap and 8 bytes a value.
    const rowBytesMax = ((this.columnCount + 7) >> 3) + 8 * this.columnCount;
    // The batch's rows completed (noted doubles), validated and written; false when one is refused.
    const flush = (): boolean => {
      const batch = count === rows.length ? rows : rows.slice(0, count);
      if (!this.notedResolve(batch)) return false;
      for (let r = 0; r < count; r++) {
        try {
          if (this.validateRow(batch[r]) !== batch[r]) return false;
        } catch {
          return false;
        }
      }
      this.codec.writeRows(writer, batch);
      batches.push({ count, bytes: writer.finish().slice(), lastLineNumber: lineNumber });
      writer.reset();
      count = 0;
      return true;
    };
    while (at < length) {
      lineNumber++;
      if (count === rows.length) rows.push(new Array(this.columnCount));
      this.rowInBatch = count;
      const next = this.line(at, rows[count]!);
      if (next < 0) return undefined;
      at = next;
      count++;
      rowCount++;
      // The rows' bytes are known only once written: the batch's bound is checked on its estimate.
      if ((count >= batchRowCount || count * rowBytesMax >= batchBytesMax) && !flush()) return undefined;
    }
    if (count > 0 && !flush()) return undefined;
    return { rowCount, batches };
  }

  /**
   * The noted DOUBLE cells into their rows: by the addon where it parses them, else (NaN,
   * Infinity, out of range) by parseScalar; false when a cell is not a number.
   */
  private notedResolve(rows: Row[]): boolean {
    const count = this.notedCount;
    this.notedCount = 0;
    if (count === 0) return true;
    this.parseDoubles!(this.file, this.notedStarts, this.notedEnds, this.notedValues, this.notedOk, count);
    for (let k = 0; k < count; k++) {
      const column = this.notedColumns[k]!;
      let value: ScalarValue = this.notedValues[k]!;
      if (this.notedOk[k] === 0) {
        try {
          value = parseScalar(this.schema.columns[column]!, this.latin1(this.notedStarts[k]!, this.notedEnds[k]!));
        } catch {
          return false;
        }
      }
      rows[this.notedRows[k]!]![column] = value;
    }
    return true;
  }

  /** Notes a DOUBLE cell for notedResolve; its row holds 0 until then. */
  private note(column: number, start: number, end: number): number {
    if (this.notedCount === this.notedRows.length) this.notedGrow();
    const k = this.notedCount++;
    this.notedRows[k] = this.rowInBatch;
    this.notedColumns[k] = column;
    this.notedStarts[k] = start;
    this.notedEnds[k] = end;
    return 0;
  }

  private notedGrow(): void {
    const grown = <T extends Uint32Array | Float64Array | Uint8Array>(array: T): T => {
      const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
      bigger.set(array);
      return bigger;
    };
    scratch.notedRows = this.notedRows = grown(this.notedRows);
    scratch.notedColumns = this.notedColumns = grown(this.notedColumns);
    scratch.notedStarts = this.notedStarts = grown(this.notedStarts);
    scratch.notedEnds = this.notedEnds = grown(this.notedEnds);
    scratch.notedValues = this.notedValues = grown(this.notedValues);
    scratch.notedOk = this.notedOk = grown(this.notedOk);
  }

  /**
   * The header's lines (`"#…`, `"%"`, up to and with the `"$"` line), as the line reader takes
   * them: where the rows start and the header's line count; undefined when the file has anything
   * else before its rows, or a CR in its header.
   */
  private header(): { at: number; lineNumber: number } | undefined {
    const { file } = this;
    let at = 0;
    let lineNumber = 0;
    for (;;) {
      if (at >= file.length) return undefined;
      const end = file.indexOf(LF, at);
      const lineEnd = end < 0 ? file.length : end;
      const cr = file.indexOf(CR, at);
      if (cr >= 0 && cr < lineEnd) return undefined;
      lineNumber++;
      if (lineEnd - at < 3 || file[at] !== QUOTE) return undefined;
      const second = file[at + 1]!;
      const third = file[at + 2]!;
      const isDollar = second === DOLLAR && third === QUOTE;
      if (!isDollar && second !== HASH && !(second === PERCENT && third === QUOTE)) return undefined;
      at = lineEnd + 1;
      if (isDollar) return { at: Math.min(at, file.length), lineNumber };
    }
  }

  /**
   * One data line from `at` into `row` (its values, not yet validated); the start of the next
   * line, or -1 when the line is not one the scanner takes.
   */
  private line(start: number, row: Row): number {
    const { file, columnCount } = this;
    const length = file.length;
    let at = start;
    for (let i = 0; i < columnCount; i++) {
      if (i > 0) {
        if (at >= length || file[at] !== COMMA) return -1;
        at++;
      }
      if (at >= length || file[at] === COMMA || file[at] === LF) {
        row[i] = null;
        continue;
      }
      if (file[at] !== QUOTE) return -1;
      const textStart = at + 1;
      let end = textStart;
      for (; end < length; end++) {
        const byte = file[end]!;
        if (byte === QUOTE) break;
        if (byte === BACKSLASH || byte === LF || byte === CR || byte >= ASCII_END) return -1;
      }
      if (end >= length) return -1;
      const value = this.value(i, textStart, end);
      if (value === undefined) return -1;
      row[i] = value;
      at = end + 1;
    }
    if (at === start) return -1; // an empty line
    if (at < length) {
      if (file[at] !== LF) return -1;
      at++;
    }
    return at;
  }

  /** The value of column `i`'s cell text at [start, end), as expimp-values.ts parses it. */
  private value(i: number, start: number, end: number): ScalarValue | undefined {
    const kind = this.kinds[i]!;
    if (kind === Kind.DOUBLE) {
      const fast = this.doubleFast(start, end);
      if (fast !== undefined) return fast;
      if (this.parseDoubles !== undefined) return this.note(i, start, end);
    } else if (kind === Kind.TIMESTAMP_MS) {
      const fast = this.timestampFast(start, end);
      if (fast !== undefined) return fast;
    }
    try {
      return parseScalar(this.schema.columns[i]!, this.latin1(start, end));
    } catch {
      return undefined;
    }
  }

  /** The ASCII text at [start, end). */
  private latin1(start: number, end: number): string {
    return this.text.toString('latin1', start, end);
  }

  /**
   * expimp-values.ts's fast path on bytes: `-?digits(.digits)?` (no exponent) whose digits make
   * an integer under 2^53, scaled by an exact power of ten; undefined for anything else.
   */
  private doubleFast(start: number, end: number): number | undefined {
    const { file } = this;
    let i = start;
    const negative = i < end && file[i] === MINUS;
    if (negative) i++;
    let mantissa = 0;
    let digitCount = 0;
    let fractionDigitCount = 0;
    for (; i < end; i++) {
      const code = file[i]!;
      if (code < DIGIT_0 || code > DIGIT_9) break;
      mantissa = mantissa * 10 + (code - DIGIT_0);
      digitCount++;
    }
    if (i < end && file[i] === DOT) {
      for (i++; i < end; i++) {
        const code = file[i]!;
        if (code < DIGIT_0 || code > DIGIT_9) break;
        mantissa = mantissa * 10 + (code - DIGIT_0);
        digitCount++;
        fractionDigitCount++;
      }
    }
    if (i !== end || digitCount === 0 || mantissa >= EXACT_INTEGER_LIMIT ||
      fractionDigitCount >= EXACT_POWERS_OF_TEN.length) return undefined;
    const value = mantissa / EXACT_POWERS_OF_TEN[fractionDigitCount]!;
    return negative ? -value : value;
  }

  /**
   * `yyyy-MM-ddTHH:mm:ss.SSS+0000` as parseTimestamp reads it: the day's first instant from
   * parseScalar once per day, the time of day by arithmetic; undefined for any other spelling.
   */
  private timestampFast(start: number, end: number): number | undefined {
    const { file } = this;
    if (end - start !== TIMESTAMP_MS_TEXT_BYTES || file[start + 10] !== 0x54 /* T */ ||
      file[start + 13] !== 0x3a || file[start + 16] !== 0x3a || file[start + 19] !== DOT ||
      file[start + 23] !== 0x2b /* + */ || file[start + 24] !== DIGIT_0 ||
      file[start + 25] !== DIGIT_0 || file[start + 26] !== DIGIT_0 || file[start + 27] !== DIGIT_0) {
      return undefined;
    }
    let sameDay = this.dayMs >= 0;
    for (let k = 0; sameDay && k < DAY_TEXT_BYTES; k++) sameDay = file[start + k] === this.dayBytes[k];
    if (!sameDay) {
      let dayMs: ScalarValue;
      try {
        dayMs = parseScalar(this.schema.columns[this.kinds.indexOf(Kind.TIMESTAMP_MS)]!,
          `${this.latin1(start, start + DAY_TEXT_BYTES)}T00:00:00.000+0000`);
      } catch {
        return undefined;
      }
      if (typeof dayMs !== 'number') return undefined;
      this.dayBytes.set(file.subarray(start, start + DAY_TEXT_BYTES));
      this.dayMs = dayMs;
    }
    const hour = digits(file, start + 11, 2);
    const minute = digits(file, start + 14, 2);
    const second = digits(file, start + 17, 2);
    const milli = digits(file, start + 20, 3);
    if (!(hour <= 23 && minute <= 59 && second <= 59 && milli >= 0)) return undefined;
    return this.dayMs + ((hour * 60 + minute) * 60 + second) * MS_PER_S + milli;
  }
}

/** `count` decimal digits at `at`; NaN when they are not all digits. */
function digits(bytes: Uint8Array, at: number, count: number): number {
  let value = 0;
  for (let k = 0; k < count; k++) {
    const digit = bytes[at + k]! - DIGIT_0;
    if (!(digit >= 0 && digit <= 9)) return NaN;
    value = value * 10 + digit;
  }
  return value;
}

