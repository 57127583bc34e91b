// Values of a result → JSON text (spec/surface.md §1.4). JSON.stringify cannot write a LONG
// (a bigint) exactly, so rows are written here, value by value:
//   BOOL true/false   STRING, GEOMETRY (WKT) JSON strings   BYTE…INTEGER, DOUBLE numbers
//   LONG its exact digits   FLOAT the shortest decimal that reads back as the same float
//   TIMESTAMP a string in the configured zone (timestamp-text.ts)   BLOB base64   NULL null
//   arrays: JSON arrays of the element encoding
// FLOAT and DOUBLE NaN and infinities, which JSON has no numbers for, are written as the strings
// "NaN", "Infinity" and "-Infinity" (GridDB's web API writes them so), and -0 as -0; the decoder
// reads exactly these back (value-decode.ts), so every value round-trips.
//
// Beside the text, GridDB's estimated size of the values is added up for `maxResponseSize`.
//
// Pages with DOUBLE columns and only ASCII text are written with their doubles made by the native
// formatter (rows-double-splice.ts), when the addon is built: the same text, several times faster.
// Rows whose every value JSON.stringify writes as above (numbers that are finite and not -0,
// strings, booleans, nulls, TIMESTAMP(ms) once made ISO text in UTC) are written by one
// JSON.stringify of the whole page, about twice as fast as value by value; the text is the same.

import { Buffer } from 'node:buffer';
import type { Row, Value } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import type { TimeZone } from '../config/time-zone.ts';
import { doubleText as nativeDoubleText, type DoubleTextAddon } from '../../io/double-text.ts';
import { splicedRowsText } from './rows-double-splice.ts';
import { formatTimestampMs, formatTimestampPrecise, isoTextOfMs } from './timestamp-text.ts';

const FIXED_SIZE_BYTES: Record<string, number> = {
  BOOL: 1, BYTE: 8, SHORT: 2, INTEGER: 4, LONG: 8, FLOAT: 4, DOUBLE: 8, TIMESTAMP: 8,
};

/** Types whose values JSON.stringify may write (see plainRows); FLOAT needs floatText. */
const PLAIN_TYPES = new Set(['BOOL', 'BYTE', 'SHORT', 'INTEGER', 'DOUBLE', 'TIMESTAMP', 'STRING']);

export class ValueEncoder {
  sizeBytes = 0;

  /** `doubles`: the native formatter, the process's if built; null writes without it (tests). */
  constructor(
    private readonly zone: TimeZone,
    private readonly doubles: DoubleTextAddon | null = nativeDoubleText ?? null,
  ) {}

  /** `[[...],[...]]` for the rows. */
  rows(columns: readonly ColumnSchema[], rows: readonly Row[]): string {
    const spliced = splicedRowsText(columns, rows, this.zone, this.doubles ?? undefined);
    if (spliced !== undefined) {
      this.sizeBytes += spliced.sizeBytes;
      return spliced.text;
    }
    const plain = this.plainRows(columns, rows);
    if (plain !== undefined) return JSON.stringify(plain);
    const parts = new Array<string>(rows.length);
    for (let r = 0; r < rows.length; r++) parts[r] = this.row(columns, rows[r]!);
    return `[${parts.join(',')}]`;
  }

  row(columns: readonly ColumnSchema[], row: Row): string {
    const parts = new Array<string>(columns.length);
    for (let c = 0; c < columns.length; c++) parts[c] = this.value(columns[c]!, row[c] ?? null);
    return `[${parts.join(',')}]`;
  }

  value(column: ColumnSchema, value: Value): string {
    if (value === null) return 'null';
    if (column.array) {
      const elements = value as unknown[];
      return `[${elements.map((element) => this.scalar(column, element)).join(',')}]`;
    }
    return this.scalar(column, value);
  }

  private scalar(column: ColumnSchema, value: unknown): string {
    const fixed = FIXED_SIZE_BYTES[column.type];
    if (fixed !== undefined) this.sizeBytes += fixed;
    switch (column.type) {
      case 'BOOL': return value === true ? 'true' : 'false';
      case 'STRING': {
        const text = value as string;
        this.sizeBytes += Buffer.byteLength(text, 'utf8');
        return JSON.stringify(text);
      }
      case 'GEOMETRY': {
        const text = value as string;
        this.sizeBytes += text.length;
        return JSON.stringify(text);
      }
      case 'BYTE': case 'SHORT': case 'INTEGER': return String(value);
      case 'LONG': return String(value);
      case 'FLOAT': return floatText(value as number);
      case 'DOUBLE': return doubleText(value as number);
      case 'TIMESTAMP': return this.timestamp(column, value as number | bigint);
      case 'BLOB': {
        const bytes = value as Uint8Array;
        const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
          .toString('base64');
        this.sizeBytes += text.length;
        return `"${text}"`;
      }
    }
  }

  /**
   * The rows with TIMESTAMP values as their text, when JSON.stringify writes every value of them
   * as value() does (sizes added up meanwhile); undefined, and no size added, when one it does not.
   */
  private plainRows(columns: readonly ColumnSchema[], rows: readonly Row[]): unknown[][] |
    undefined {
    const utc = this.zone.kind === 'offset' && this.zone.offsetMinutes === 0;
    let fixedBytesPerRow = 0;
    for (const column of columns) {
      if (column.array || !PLAIN_TYPES.has(column.type)) return undefined;
      if (column.type === 'TIMESTAMP' && (!utc || (column.timePrecision ?? 'MILLISECOND') !==
        'MILLISECOND')) return undefined;
      fixedBytesPerRow += FIXED_SIZE_BYTES[column.type] ?? 0;
    }
    const out = new Array<unknown[]>(rows.length);
    let sizeBytes = 0;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const copy = new Array<unknown>(columns.length);
      sizeBytes += fixedBytesPerRow;
      for (let c = 0; c < columns.length; c++) {
        const value = row[c] ?? null;
        const type = columns[c]!.type;
        if (value === null) {
          sizeBytes -= FIXED_SIZE_BYTES[type] ?? 0;
        } else if (typeof value === 'number') {
          if (type === 'TIMESTAMP') {
            copy[c] = isoTextOfMs(value);
            continue;
          }
          if (!Number.isFinite(value) || Object.is(value, -0)) return undefined;
        } else if (typeof value === 'string') {
          sizeBytes += Buffer.byteLength(value, 'utf8');
        } else if (typeof value !== 'boolean') {
          return undefined;
        }
        copy[c] = value;
      }
      out[r] = copy;
    }
    this.sizeBytes += sizeBytes;
    return out;
  }

  private timestamp(column: ColumnSchema, value: number | bigint): string {
    if (typeof value === 'number') return `"${formatTimestampMs(value, this.zone)}"`;
    const digits = column.timePrecision === 'NANOSECOND' ? 9 : 6;
    return `"${formatTimestampPrecise(value, digits, this.zone)}"`;
  }
}

function doubleText(value: number): string {
  if (Object.is(value, -0)) return '-0';
  if (Number.isFinite(value)) return String(value);
  return Number.isNaN(value) ? '"NaN"' : value > 0 ? '"Infinity"' : '"-Infinity"';
}

/** The shortest decimal that Math.fround reads back as `value` (Java's Float.toString idea). */
function floatText(value: number): string {
  if (!Number.isFinite(value) || value === 0) return doubleText(value);
  for (let digits = 1; digits < 9; digits++) {
    const text = value.toPrecision(digits);
    if (Math.fround(Number(text)) === value) return String(Number(text));
  }
  return String(value);
}
