// COPY's text and CSV formats: the stream of CopyData cut into records (lines; a CSV record may
// span lines inside quotes), a record cut into fields, a field read as a column's value, and the
// other way for COPY TO. Escapes are PostgreSQL's: text format `\N` NULL and backslash escapes
// (\b \f \n \r \t \v \\, octal \ooo, hex \xhh); CSV quotes with QUOTE, doubles or ESCAPEs a quote
// inside, and an unquoted field equal to NULL (default empty) is NULL.

import { isStorageError } from '../base/errors.ts';
import { StringDecoder } from 'node:string_decoder';
import type { Value } from '../schema/column-type.ts';
import { INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../schema/column-type.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import type { PgCopyOptions } from './pg-copy-statement.ts';
import { PgError } from './pg-errors.ts';
import { pgParameter, PgOid, pgTextOf } from './pg-types.ts';
import type { SqlType } from '../sql/value.ts';

export interface PgCopyRecord {
  /** 1-based line of the input where the record starts. */
  line: number;
  text: string;
}

/**
 * Cuts CopyData into records. Holds at most one unfinished record between calls; the caller
 * bounds it (`pendingLength`).
 */
export class PgCopyRecordSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private pendingLine = 1;
  private line = 1;
  private inQuote = false;
  /** Where the scan of `pending` stopped (a CSV record is scanned once, however it arrives). */
  private scanned = 0;
  ended = false;

  constructor(private readonly options: PgCopyOptions) {}

  get pendingLength(): number {
    return this.pending.length;
  }

  push(bytes: Buffer, records: PgCopyRecord[]): void {
    this.pending += this.decoder.write(bytes);
    this.cut(records);
  }

  /** At CopyDone: the last record, when it had no newline. */
  end(records: PgCopyRecord[]): void {
    this.pending += this.decoder.end();
    this.cut(records);
    if (this.pending !== '' && !this.ended) {
      if (this.inQuote) throw copyFormatError(this.pendingLine, 'unterminated CSV quoted field');
      this.emit(this.pending, records);
    }
    this.pending = '';
  }

  private cut(records: PgCopyRecord[]): void {
    const csv = this.options.format === 'csv';
    const { quote, escape } = this.options;
    let start = 0;
    let i = this.scanned;
    const text = this.pending;
    if (!csv) {
      // Text format: a record is a line, found by indexOf in native code.
      for (let end = text.indexOf('\n', i); end >= 0; end = text.indexOf('\n', start)) {
        this.line++;
        if (!this.ended) this.emit(text.slice(start, end), records);
        start = end + 1;
        this.pendingLine = this.line;
      }
      this.pending = text.slice(start);
      this.scanned = 0;
      return;
    }
    while (i < text.length) {
      const c = text[i]!;
      if (csv && this.inQuote) {
        if (c === escape && escape !== quote && (text[i + 1] === quote || text[i + 1] === escape)) { i += 2; continue; }
        if (c === escape && escape !== quote && i + 1 >= text.length) break; // decide when more arrives
        if (c === quote) this.inQuote = false;
        else if (c === '\n') this.line++;
        i++;
        continue;
      }
      if (csv && c === quote) { this.inQuote = true; i++; continue; }
      if (c === '\n') {
        this.line++;
        if (!this.ended) this.emit(text.slice(start, i), records);
        start = i + 1;
        this.pendingLine = this.line;
      }
      i++;
    }
    this.pending = text.slice(start);
    this.scanned = i - start;
  }

  private emit(raw: string, records: PgCopyRecord[]): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text === '\\.') { // the old end-of-data marker psql may still send
      this.ended = true;
      return;
    }
    records.push({ line: this.pendingLine, text });
  }
}

export function copyFormatError(line: number, message: string, column?: string): PgError {
  return new PgError({ severity: 'ERROR', sqlState: '22P04', message,
    where: `COPY, line ${line}${column === undefined ? '' : `, column ${column}`}` });
}

/** A record's fields; null for NULL. */
export function copyFields(record: PgCopyRecord, options: PgCopyOptions): Array<string | null> {
  return options.format === 'csv' ? csvFields(record, options) : textFields(record, options);
}

function textFields(record: PgCopyRecord, options: PgCopyOptions): Array<string | null> {
  const text = record.text;
  if (!text.includes('\\')) {
    // No escapes (the usual line): split does the cutting in native code.
    const fields: Array<string | null> = text.split(options.delimiter);
    for (let i = 0; i < fields.length; i++) if (fields[i] === options.nullText) fields[i] = null;
    return fields;
  }
  const fields: Array<string | null> = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text[i] === '\\') {
      escaped = true;
      i++;
      continue;
    }
    if (i < text.length && text[i] !== options.delimiter) continue;
    const raw = text.slice(start, i);
    start = i + 1;
    if (raw === options.nullText) fields.push(null);
    else fields.push(escaped ? unescapeText(raw) : raw);
    escaped = false;
  }
  return fields;
}

function unescapeText(raw: string): string {
  return raw.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/gs, (_m, e: string) => {
    switch (e[0]) {
      case 'b': return '\b';
      case 'f': return '\f';
      case 'n': return '\n';
      case 'r': return '\r';
      case 't': return '\t';
      case 'v': return '\v';
      case 'x': return e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : 'x';
      default: return /^[0-7]/.test(e) ? String.fromCharCode(parseInt(e, 8) & 0xff) : e;
    }
  });
}

function csvFields(record: PgCopyRecord, options: PgCopyOptions): Array<string | null> {
  const { delimiter, quote, escape, nullText } = options;
  const text = record.text;
  const fields: Array<string | null> = [];
  let i = 0;
  for (;;) {
    let value = '';
    let quoted = false;
    let raw = '';
    while (i < text.length && text[i] !== delimiter) {
      const c = text[i]!;
      if (c === quote) {
        quoted = true;
        i++;
        for (;;) {
          if (i >= text.length) throw copyFormatError(record.line, 'unterminated CSV quoted field');
          const q = text[i]!;
          // Inside quotes ESCAPE makes the next quote or ESCAPE a data character (PostgreSQL's rule).
          if (q === escape && (text[i + 1] === quote || text[i + 1] === escape)) { value += text[i + 1]; i += 2; continue; }
          if (q === quote) { i++; break; }
          value += q;
          i++;
        }
        continue;
      }
      value += c;
      raw += c;
      i++;
    }
    fields.push(!quoted && raw === nullText ? null : value);
    if (i >= text.length) return fields;
    i++; // the delimiter
  }
}

// ---- values ---------------------------------------------------------------------------------

/** A UTC time with at most millisecond digits, in ISO or PostgreSQL's spelling. */
const PLAIN_UTC_MS = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|\+00)$/;

const INTEGER_RANGE: Partial<Record<string, [number, number]>> = {
  BYTE: [-128, 127], SHORT: [-32768, 32767], INTEGER: [-2147483648, 2147483647],
};

function valueError(line: number, column: string, type: string, text: string): PgError {
  return new PgError({ severity: 'ERROR', sqlState: '22P02',
    message: `invalid input syntax for type ${type}: "${text.slice(0, 100)}"`,
    where: `COPY, line ${line}, column ${column}: "${text.slice(0, 100)}"` });
}

function rangeError(line: number, column: string, type: string, text: string): PgError {
  return new PgError({ severity: 'ERROR', sqlState: '22003',
    message: `value "${text.slice(0, 100)}" is out of range for type ${type}`,
    where: `COPY, line ${line}, column ${column}: "${text.slice(0, 100)}"` });
}

/** A text parameter of `oid`, its syntax error as COPY's 22P02 for the column. */
function parsed(column: ColumnSchema, text: string, line: number, oid: number, type: string): unknown {
  try {
    return pgParameter(oid, false, Buffer.from(text, 'utf8')).value;
  } catch (error) {
    if (isStorageError(error)) throw valueError(line, column.name, type, text);
    throw error;
  }
}

/** Reads a field's text (not NULL) as a column's value; made once per column of a COPY. */
export type PgCopyValueReader = (text: string, line: number) => Value;

/** A field's text as the value of a column (the shapes of lib/schema/column-type.ts). */
export function copyValue(column: ColumnSchema, text: string | null, line: number): Value {
  return text === null ? null : copyValueReader(column)(text, line);
}

/**
 * The reader of one column's fields, chosen once per COPY by the column's type (the per-field
 * work is the COPY's main cost on the connection's thread: no dispatch on the type and no
 * closure is made per field).
 */
export function copyValueReader(column: ColumnSchema): PgCopyValueReader {
  switch (column.type) {
    case 'BOOL': return (text, line) => parsed(column, text, line, PgOid.bool, 'boolean') as boolean;
    case 'BYTE': case 'SHORT': case 'INTEGER': {
      const [min, max] = INTEGER_RANGE[column.type]!;
      return (text, line) => {
        if (!INTEGER_TEXT.test(text)) throw valueError(line, column.name, 'integer', text);
        const value = Number(text);
        if (value < min || value > max) throw rangeError(line, column.name, column.type.toLowerCase(), text);
        return value;
      };
    }
    case 'LONG': return (text, line) => {
      if (!INTEGER_TEXT.test(text)) throw valueError(line, column.name, 'bigint', text);
      const value = BigInt(text.trim());
      if (value < INT64_MIN || value > INT64_MAX) throw rangeError(line, column.name, 'bigint', text);
      return value;
    };
    case 'DOUBLE': return (text, line) =>
      plainNumber(text) ?? parsed(column, text, line, PgOid.float8, 'double precision') as number;
    case 'FLOAT': return (text, line) =>
      Math.fround(plainNumber(text) ?? parsed(column, text, line, PgOid.float8, 'real') as number);
    case 'TIMESTAMP': {
      const milliseconds = column.timePrecision !== 'MICROSECOND' && column.timePrecision !== 'NANOSECOND';
      return (text, line) => {
        if (milliseconds && PLAIN_UTC_MS.test(text)) {
          // 2024-01-02T03:04:05.678Z or 2024-01-02 03:04:05.678+00, as COPY TO and toISOString write them.
          const ms = Date.parse(text.endsWith('Z') ? (text[10] === 'T' ? text : `${text.slice(0, 10)}T${text.slice(11)}`)
            : `${text.slice(0, 10)}T${text.slice(11, -3)}Z`);
          if (Number.isInteger(ms) && ms >= TIMESTAMP_MS_MIN && ms <= TIMESTAMP_MS_MAX) return ms;
        }
        return timestampValue(column, text, line);
      };
    }
    case 'STRING': case 'GEOMETRY': return (text) => text;
    case 'BLOB': return (text, line) => {
      if (!/^\\x([0-9a-fA-F]{2})*$/.test(text)) throw valueError(line, column.name, 'bytea', text);
      return new Uint8Array(Buffer.from(text.slice(2), 'hex'));
    };
  }
}

const INTEGER_TEXT = /^\s*[-+]?\d+\s*$/;

const CHAR_0 = 48;
const CHAR_9 = 57;
const CHAR_MINUS = 45;

/**
 * A plain decimal (`-12.5`, `3e-7`: a digit or minus first, a digit last) read by Number; undefined
 * for anything else (NaN, Infinity, spaces, `.5`), which the parameter parser reads as PostgreSQL
 * does. The second character is no radix letter: Number would read `0x1f`, `0b1`, `0o7`.
 */
function plainNumber(text: string): number | undefined {
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  if (!((first >= CHAR_0 && first <= CHAR_9) || first === CHAR_MINUS) || !(last >= CHAR_0 && last <= CHAR_9)) {
    return undefined;
  }
  if (/[xXbBoO]/.test(text[1] ?? '')) return undefined;
  const value = Number(text);
  return Number.isNaN(value) ? undefined : value;
}

/** A TIMESTAMP field in any spelling PostgreSQL's timestamptz input takes, at the column's precision. */
function timestampValue(column: ColumnSchema, text: string, line: number): Value {
  let typed;
  try {
    typed = pgParameter(PgOid.timestamptz, false, Buffer.from(text.trim() === '' ? 'x' : text, 'utf8'));
  } catch (error) {
    if (isStorageError(error)) throw valueError(line, column.name, 'timestamp with time zone', text);
    throw error;
  }
  const ns = typed.type === 'TIMESTAMP' ? BigInt(typed.value as number) * 1_000_000n
    : typed.type === 'TIMESTAMP(6)' ? (typed.value as bigint) * 1000n : typed.value as bigint;
  const ms = Number(ns / 1_000_000n);
  if (ns < 0n || ms > TIMESTAMP_MS_MAX || ms < TIMESTAMP_MS_MIN) {
    throw rangeError(line, column.name, 'timestamp', text);
  }
  if (column.timePrecision === 'MICROSECOND') return ns / 1000n;
  if (column.timePrecision === 'NANOSECOND') return ns;
  return ms;
}

// ---- COPY TO --------------------------------------------------------------------------------

/** One row as a line of output, newline included. */
export function copyLine(types: readonly SqlType[], row: readonly Value[], options: PgCopyOptions): string {
  let line = '';
  for (let i = 0; i < types.length; i++) {
    if (i > 0) line += options.delimiter;
    const value = row[i];
    if (value === null || value === undefined) {
      line += options.nullText;
      continue;
    }
    const text = pgTextOf(types[i]!, value);
    line += options.format === 'csv' ? csvText(text, options) : textText(text, options.delimiter);
  }
  return `${line}\n`;
}

/** A header line of column names (CSV only). */
export function copyHeader(names: readonly string[], options: PgCopyOptions): string {
  return `${names.map((name) => csvText(name, options)).join(options.delimiter)}\n`;
}

function textText(text: string, delimiter: string): string {
  let out = '';
  for (const c of text) {
    switch (c) {
      case '\\': out += '\\\\'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\v': out += '\\v'; break;
      default: out += c === delimiter ? `\\${c}` : c;
    }
  }
  return out;
}

function csvText(text: string, options: PgCopyOptions): string {
  const { quote, escape, delimiter, nullText } = options;
  const needs = text === nullText || text.includes(delimiter) || text.includes(quote) ||
    text.includes('\n') || text.includes('\r') || text === '\\.';
  if (!needs) return text;
  let out = quote;
  for (const c of text) out += c === quote || c === escape ? escape + c : c;
  return out + quote;
}
