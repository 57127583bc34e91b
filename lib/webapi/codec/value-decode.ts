// Values of a request → the client library's values, by the rules of GridDB's web API
// (spec/surface.md §1.4). Two readings of a body:
//   'text'  the single-container PUT: every JSON number and string is taken as its text, so a
//           number is accepted wherever a numeric string is (and a STRING column stores it as
//           text); booleans stay booleans
//   'json'  the multi-container and BLOB PUTs: ordinary JSON types, then the same conversions
// Arrays are one level deep; an object, or an array inside an array, is `Parse error`. A value
// that does not convert is `The specified data cannot be converted to <TYPE> type: row <r>,
// column "<name>": <value> is not a <TYPE>.` (400, codec/value-conversion-error.ts).
//
// While it converts, the decoder adds up GridDB's estimated size of the values (STRING its UTF-8
// bytes, BYTE counted as 8, GEOMETRY and BLOB their text length), for `maxRequestSize`.

import { Buffer } from 'node:buffer';
import type { Value } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import { badRequest, MESSAGES } from '../errors/webapi-error.ts';
import { ValueConversionError, type ValueLocation } from './value-conversion-error.ts';
import { parseTimestampMs, parseTimestampPrecise } from './timestamp-text.ts';

export type DecodeMode = 'text' | 'json';

/** Estimated bytes of one scalar of a fixed-size type, as GridDB's web API counts them. */
const ESTIMATED_SIZE_BYTES: Record<string, number> = {
  BOOL: 1, BYTE: 8, SHORT: 2, INTEGER: 4, LONG: 8, FLOAT: 4, DOUBLE: 8, TIMESTAMP: 8,
};

const INTEGER_RANGES: Record<string, readonly [bigint, bigint]> = {
  BYTE: [-128n, 127n],
  SHORT: [-32_768n, 32_767n],
  INTEGER: [-2_147_483_648n, 2_147_483_647n],
  LONG: [-(2n ** 63n), 2n ** 63n - 1n],
};

const INTEGER_TEXT = /^[+-]?\d+$/;
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** FLOAT and DOUBLE values JSON has no number for, as value-encode.ts writes them. */
const SPECIAL_FLOAT_TEXTS = new Set(['NaN', 'Infinity', '-Infinity']);
const BASE64_TEXT = /^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)?$/;
const WKT_KINDS = ['POINT', 'LINESTRING', 'POLYGON', 'POLYHEDRALSURFACE', 'QUADRATICSURFACE',
  'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON', 'GEOMETRYCOLLECTION'];
/** A WKT kind and its opening; the node's spatial functions read the rest. */
const WKT_TEXT = new RegExp(`^\\s*(${WKT_KINDS.join('|')})\\s*(Z\\s*)?(\\(|EMPTY)`, 'i');

/** Converts one column's values; holds the running estimated size of everything it converted. */
export class ValueDecoder {
  sizeBytes = 0;

  /**
   * `blobFiles`: the files of a BLOB upload's zip; a BLOB cell then names its file (a blank name
   * is NULL) instead of holding base64.
   */
  constructor(
    private readonly mode: DecodeMode,
    private readonly blobFiles?: ReadonlyMap<string, Uint8Array>,
  ) {}

  value(column: ColumnSchema, raw: unknown): Value {
    if (raw === null) return null;
    if (this.blobFiles !== undefined && column.type === 'BLOB' && !column.array) {
      return this.blobFile(raw);
    }
    if (column.array) {
      if (!Array.isArray(raw)) {
        if (typeof raw === 'object') throw badRequest(MESSAGES.parseError);
        throw cannotConvert(column, raw);
      }
      return raw.map((element: unknown, elementIndex: number) => {
        if (typeof element === 'object') {
          if (element === null) throw cannotConvert(column, element, '', elementIndex);
          throw badRequest(MESSAGES.parseError);
        }
        try {
          return this.scalar(column, element);
        } catch (error) {
          if (!(error instanceof ValueConversionError)) throw error;
          throw cannotConvert(column, element, error.detail, elementIndex);
        }
      }) as Value;
    }
    if (typeof raw === 'object') {
      if (Array.isArray(raw) && raw.every((element) => typeof element !== 'object')) {
        throw cannotConvert(column, raw);
      }
      throw badRequest(MESSAGES.parseError);
    }
    return this.scalar(column, raw);
  }

  /** One non-null scalar (a column's value or an array element). */
  private scalar(column: ColumnSchema, raw: unknown): Exclude<Value, null | unknown[]> {
    const type = column.type;
    if (type === 'DOUBLE' && typeof raw === 'number') {
      // The hot path of ingestion: a JSON number for a DOUBLE column.
      if (!Number.isFinite(raw)) throw cannotConvert(column, raw);
      this.sizeBytes += 8;
      return raw;
    }
    const text = this.textOf(raw);
    switch (type) {
      case 'BOOL':
        this.sizeBytes += 1;
        if (typeof raw === 'boolean') return raw;
        if (text === undefined || (this.mode === 'json' && typeof raw !== 'string')) {
          throw cannotConvert(column, raw);
        }
        return text.toLowerCase() === 'true';
      case 'STRING':
        if (text === undefined) throw cannotConvert(column, raw);
        this.sizeBytes += Buffer.byteLength(text, 'utf8');
        return text;
      case 'BYTE': case 'SHORT': case 'INTEGER': case 'LONG':
        return this.integer(column, raw, text);
      case 'FLOAT': case 'DOUBLE':
        return this.float(column, raw, text);
      case 'TIMESTAMP':
        return this.timestamp(column, raw);
      case 'GEOMETRY':
        if (text === undefined || !WKT_TEXT.test(text)) throw cannotConvert(column, raw);
        this.sizeBytes += text.length;
        return text;
      case 'BLOB':
        if (text === undefined || !BASE64_TEXT.test(text)) throw cannotConvert(column, raw);
        this.sizeBytes += text.length;
        return new Uint8Array(Buffer.from(text, 'base64'));
    }
  }

  private blobFile(raw: unknown): Uint8Array | null {
    if (typeof raw !== 'string') throw badRequest(MESSAGES.parseError);
    if (raw.trim() === '') return null;
    const file = this.blobFiles!.get(raw);
    if (file === undefined) throw badRequest(`File not found in list BLOB data: ${raw}`);
    this.sizeBytes += file.byteLength;
    return file;
  }

  /** A string's or a number's text; undefined for anything else (booleans). */
  private textOf(raw: unknown): string | undefined {
    if (typeof raw === 'string') return raw;
    if (typeof raw === 'number') return String(raw);
    return undefined;
  }

  private integer(column: ColumnSchema, raw: unknown, text: string | undefined): number | bigint {
    this.sizeBytes += ESTIMATED_SIZE_BYTES[column.type]!;
    let value: bigint;
    if (typeof raw === 'number') {
      if (!Number.isInteger(raw)) throw cannotConvert(column, raw);
      value = BigInt(raw);
    } else {
      if (text === undefined || !INTEGER_TEXT.test(text)) throw cannotConvert(column, raw);
      value = BigInt(text);
    }
    const [min, max] = INTEGER_RANGES[column.type]!;
    if (value < min) throw cannotConvert(column, raw, ' (lower limit over)');
    if (value > max) throw cannotConvert(column, raw, ' (upper limit over)');
    return column.type === 'LONG' ? value : Number(value);
  }

  /**
   * The special values are read as value-encode.ts writes them, the one rule both ways: the
   * strings "NaN", "Infinity", "-Infinity"; -0 (number or text) stays -0. A decimal too large
   * for the column (1e999, or 1e39 for a FLOAT) is refused, as GridDB refuses infinities.
   */
  private float(column: ColumnSchema, raw: unknown, text: string | undefined): number {
    this.sizeBytes += ESTIMATED_SIZE_BYTES[column.type]!;
    if (typeof raw === 'string' && SPECIAL_FLOAT_TEXTS.has(raw)) {
      return column.type === 'FLOAT' ? Math.fround(Number(raw)) : Number(raw);
    }
    let value: number;
    if (typeof raw === 'number') value = raw;
    else if (text !== undefined && DECIMAL_TEXT.test(text)) value = Number(text);
    else throw cannotConvert(column, raw);
    if (column.type === 'FLOAT') value = Math.fround(value);
    if (value === Infinity || value === -Infinity) throw cannotConvert(column, raw);
    return value;
  }

  private timestamp(column: ColumnSchema, raw: unknown): number | bigint {
    this.sizeBytes += 8;
    const text = typeof raw === 'string' ? raw : undefined;
    const precision = column.timePrecision ?? 'MILLISECOND';
    const value = text === undefined ? undefined
      : precision === 'MILLISECOND' ? parseTimestampMs(text)
      : parseTimestampPrecise(text, precision === 'MICROSECOND' ? 6 : 9);
    if (value === undefined) throw cannotConvert(column, raw);
    return value;
  }
}

function cannotConvert(column: ColumnSchema, raw: unknown, detail = '',
  elementIndex?: number): ValueConversionError {
  return new ValueConversionError(column, raw, detail, elementIndex);
}

/**
 * Rows of a PUT body: an array of arrays, one value per column. Throws the spec's messages:
 * `Rows data is empty`, `Row data is invalid`, `Too many rows data`, conversions.
 */
export function decodeRows(
  columns: readonly ColumnSchema[],
  body: unknown,
  options: { mode: DecodeMode; sizeBytesMax: number; decoder?: ValueDecoder },
): unknown[][] {
  rowsBodyCheck(body);
  const decoder = options.decoder ?? new ValueDecoder(options.mode);
  const rows: unknown[][] = new Array<unknown[]>(body.length);
  for (let r = 0; r < body.length; r++) {
    rows[r] = decodeRow(columns, body[r], decoder, options.sizeBytesMax, { rowIndex: r });
  }
  return rows;
}

/**
 * One row of a PUT body; the decoder's running size over `sizeBytesMax` is `Too many rows data`.
 * `location` (the row's index in the body, from 0) is named by the errors of its values.
 */
export function decodeRow(
  columns: readonly ColumnSchema[],
  input: unknown,
  decoder: ValueDecoder,
  sizeBytesMax: number,
  location: ValueLocation,
): unknown[] {
  const columnCount = columns.length;
  if (!Array.isArray(input) || input.length !== columnCount) {
    throw badRequest(`${MESSAGES.rowDataInvalid}: ${locationText(location)} ` +
      (Array.isArray(input) ? `has ${input.length} values, the container has ${columnCount} ` +
        'columns' : 'is not an array of values'));
  }
  const row = new Array<unknown>(columnCount);
  try {
    for (let c = 0; c < columnCount; c++) row[c] = decoder.value(columns[c]!, input[c]);
  } catch (error) {
    if (error instanceof ValueConversionError) throw error.locatedAt(location);
    throw error;
  }
  if (decoder.sizeBytes > sizeBytesMax) throw badRequest(MESSAGES.tooManyRowsData);
  return row;
}

function locationText(location: ValueLocation): string {
  return (location.containerName === undefined ? '' : `container "${location.containerName}", `) +
    `row ${location.rowIndex}`;
}

/** A rows body is a non-empty array: `Rows data is empty` or `Parse error` otherwise. */
export function rowsBodyCheck(body: unknown): asserts body is unknown[] {
  if (!Array.isArray(body)) {
    throw badRequest(body === null || body === undefined ? MESSAGES.rowsDataEmpty
      : MESSAGES.parseError);
  }
  if (body.length === 0) throw badRequest(MESSAGES.rowsDataEmpty);
}
