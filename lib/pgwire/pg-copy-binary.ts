// COPY's binary format (`FORMAT binary`), PostgreSQL's own, both ways: the tuples of a COPY FROM
// cut out of CopyData as it arrives and read into the columns' values, and the rows of a COPY TO
// written as tuples. Each value is what the binary result format sends for the column's type
// (pg-types.ts: int2/int4/int8, float4/float8, bool, text, bytea, timestamptz as µs since
// 2000-01-01), the same mapping as the text formats.
//
//   file     | signature "PGCOPY\n\377\r\n\0" (11 bytes) | flags int32 | extension length int32 |
//            | extension (skipped)                        | tuple ... | trailer int16 -1 |
//   flags    bit 16: OIDs in the tuples (refused); bits 17-31: critical, must be 0; 0-15 ignored
//   tuple    | field count int16 | field ... |
//   field    | length int32 (-1: NULL) | length bytes of the value |
//
// On input a column takes any integer width (2, 4 or 8 bytes) within its type's range, either
// float width, and 8-byte timestamps (timestamp or timestamptz, read as UTC), so that PostgreSQL's
// `COPY ... TO STDOUT (FORMAT binary)` of a table of those types loads as it is. The reader holds
// at most one unfinished tuple (PG_COPY_RECORD_CHARS_MAX bytes, checked by the caller).

import { INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN, type Value } from '../schema/column-type.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import type { SqlType } from '../sql/value.ts';
import { PgError } from './pg-errors.ts';
import type { PgBackendWriter } from './pg-frames.ts';
import { pgBinaryOf } from './pg-types.ts';

export const PG_COPY_BINARY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Signature, flags, extension length. */
const HEADER_FIXED_BYTES = PG_COPY_BINARY_SIGNATURE.byteLength + 8;
/** The longest header extension read (PostgreSQL defines none; a reader skips them). */
export const PG_COPY_BINARY_EXTENSION_BYTES_MAX = 64 * 1024;
const FLAG_OIDS = 1 << 16;
const FLAGS_CRITICAL = 0xffff0000;

/** One tuple of a COPY FROM: its number (from 1, as `line` in errors) and its fields, null for NULL. */
export interface PgBinaryTuple {
  tuple: number;
  fields: (Buffer | null)[];
  byteCount: number;
}

function formatError(tuple: number, message: string, column?: string): PgError {
  return new PgError({ severity: 'ERROR', sqlState: '22P04', message,
    where: `COPY, line ${tuple}${column === undefined ? '' : `, column ${column}`}` });
}

/** Cuts CopyData bytes into tuples: the header first, then whole tuples, then the trailer. */
export class PgCopyBinaryTuples {
  private pending: Buffer = Buffer.alloc(0);
  private headerRead = false;
  private ended = false;
  private tupleNumber = 0;

  constructor(private readonly columnCount: number) {}

  /** Bytes held of an unfinished tuple (or header). */
  get pendingLength(): number {
    return this.pending.byteLength;
  }

  push(chunk: Buffer, tuples: PgBinaryTuple[]): void {
    if (this.ended) {
      if (chunk.byteLength > 0) throw formatError(this.tupleNumber + 1, 'received copy data after EOF marker');
      return;
    }
    const bytes = this.pending.byteLength === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let at = 0;
    if (!this.headerRead) {
      const header = this.header(bytes);
      if (header === 0) {
        this.pending = Buffer.from(bytes);
        return;
      }
      at = header;
      this.headerRead = true;
    }
    while (at + 2 <= bytes.byteLength) {
      const count = bytes.readInt16BE(at);
      if (count === -1) {
        this.ended = true;
        if (at + 2 < bytes.byteLength) throw formatError(this.tupleNumber + 1, 'received copy data after EOF marker');
        this.pending = Buffer.alloc(0);
        return;
      }
      const tuple = this.tupleNumber + 1;
      if (count !== this.columnCount) {
        throw formatError(tuple, `row field count is ${count}, expected ${this.columnCount}`);
      }
      const fields: (Buffer | null)[] = new Array<Buffer | null>(count);
      let p = at + 2;
      let whole = true;
      for (let i = 0; i < count; i++) {
        if (p + 4 > bytes.byteLength) { whole = false; break; }
        const length = bytes.readInt32BE(p);
        p += 4;
        if (length === -1) { fields[i] = null; continue; }
        if (length < 0) throw formatError(tuple, `invalid field size ${length}`);
        if (p + length > bytes.byteLength) { whole = false; break; }
        fields[i] = bytes.subarray(p, p + length);
        p += length;
      }
      if (!whole) break;
      this.tupleNumber = tuple;
      tuples.push({ tuple, fields, byteCount: p - at });
      at = p;
    }
    // The unfinished rest is copied: the tuples handed out keep views of `bytes`, not of it.
    this.pending = at === bytes.byteLength ? Buffer.alloc(0) : Buffer.from(bytes.subarray(at));
  }

  /** CopyDone: the trailer must have come, with nothing after it. */
  end(): void {
    if (!this.headerRead) throw formatError(1, 'COPY file signature not recognized');
    if (!this.ended) throw formatError(this.tupleNumber + 1, 'unexpected EOF in COPY data');
  }

  /** The header's length when it is all there, 0 when more bytes are needed; throws when it is wrong. */
  private header(bytes: Buffer): number {
    const signature = PG_COPY_BINARY_SIGNATURE;
    const compared = Math.min(bytes.byteLength, signature.byteLength);
    if (!bytes.subarray(0, compared).equals(signature.subarray(0, compared))) {
      throw formatError(1, 'COPY file signature not recognized');
    }
    if (bytes.byteLength < HEADER_FIXED_BYTES) return 0;
    const flags = bytes.readUInt32BE(signature.byteLength);
    if ((flags & FLAG_OIDS) !== 0) throw formatError(1, 'invalid COPY file header (WITH OIDS)');
    if ((flags & FLAGS_CRITICAL & ~FLAG_OIDS) !== 0) throw formatError(1, 'unrecognized critical flags in COPY file header');
    const extension = bytes.readInt32BE(signature.byteLength + 4);
    if (extension < 0 || extension > PG_COPY_BINARY_EXTENSION_BYTES_MAX) {
      throw formatError(1, 'invalid COPY file header (wrong length)');
    }
    return bytes.byteLength < HEADER_FIXED_BYTES + extension ? 0 : HEADER_FIXED_BYTES + extension;
  }
}

/** Reads one field's bytes (not NULL) as a column's value; made once per column of a COPY. */
export type PgCopyBinaryReader = (bytes: Buffer, tuple: number) => Value;

const PG_EPOCH_US = 946_684_800_000_000n;
const INTEGER_RANGE: Readonly<Record<string, readonly [number, number, string]>> = {
  BYTE: [-128, 127, 'tinyint'], SHORT: [-32_768, 32_767, 'smallint'], INTEGER: [-(2 ** 31), 2 ** 31 - 1, 'integer'],
};
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function sizeError(tuple: number, column: string, type: string, size: number): PgError {
  return new PgError({ severity: 'ERROR', sqlState: '22P03',
    message: `incorrect binary data format: a ${type} field of ${size} bytes`, where: `COPY, line ${tuple}, column ${column}` });
}

function rangeError(tuple: number, column: string, type: string, value: string): PgError {
  return new PgError({ severity: 'ERROR', sqlState: '22003', message: `value ${value} is out of range for type ${type}`,
    where: `COPY, line ${tuple}, column ${column}` });
}

function integerOf(bytes: Buffer, tuple: number, column: ColumnSchema): bigint | number {
  switch (bytes.byteLength) {
    case 2: return bytes.readInt16BE(0);
    case 4: return bytes.readInt32BE(0);
    case 8: return bytes.readBigInt64BE(0);
    default: throw sizeError(tuple, column.name, 'integer', bytes.byteLength);
  }
}

/** The reader of one column's binary fields, by the column's type. */
export function copyBinaryReader(column: ColumnSchema): PgCopyBinaryReader {
  switch (column.type) {
    case 'BOOL': return (bytes, tuple) => {
      if (bytes.byteLength !== 1) throw sizeError(tuple, column.name, 'bool', bytes.byteLength);
      return bytes[0] !== 0;
    };
    case 'BYTE': case 'SHORT': case 'INTEGER': {
      const [min, max, name] = INTEGER_RANGE[column.type]!;
      return (bytes, tuple) => {
        const value = integerOf(bytes, tuple, column);
        if (value < min || value > max) throw rangeError(tuple, column.name, name, String(value));
        return Number(value);
      };
    }
    case 'LONG': return (bytes, tuple) => {
      const value = BigInt(integerOf(bytes, tuple, column));
      if (value < INT64_MIN || value > INT64_MAX) throw rangeError(tuple, column.name, 'bigint', String(value));
      return value;
    };
    case 'FLOAT': case 'DOUBLE': return (bytes, tuple) => {
      const value = bytes.byteLength === 8 ? bytes.readDoubleBE(0) : bytes.byteLength === 4 ? bytes.readFloatBE(0)
        : Number.NaN;
      if (bytes.byteLength !== 4 && bytes.byteLength !== 8) throw sizeError(tuple, column.name, 'float', bytes.byteLength);
      return column.type === 'FLOAT' ? Math.fround(value) : value;
    };
    case 'TIMESTAMP': return (bytes, tuple) => {
      if (bytes.byteLength !== 8) throw sizeError(tuple, column.name, 'timestamp', bytes.byteLength);
      const ns = (bytes.readBigInt64BE(0) + PG_EPOCH_US) * 1000n;
      const ms = Number(ns / 1_000_000n);
      // As the text formats: no time before 1970 (PostgreSQL's ±infinity are out of range too).
      if (ns < 0n || ms > TIMESTAMP_MS_MAX || ms < TIMESTAMP_MS_MIN) {
        throw rangeError(tuple, column.name, 'timestamp', `${bytes.readBigInt64BE(0)} µs from 2000-01-01`);
      }
      if (column.timePrecision === 'MICROSECOND') return ns / 1000n;
      if (column.timePrecision === 'NANOSECOND') return ns;
      return ms;
    };
    case 'STRING': case 'GEOMETRY': return (bytes, tuple) => {
      try {
        return UTF8.decode(bytes);
      } catch {
        throw new PgError({ severity: 'ERROR', sqlState: '22021', message: 'invalid byte sequence for encoding "UTF8"',
          where: `COPY, line ${tuple}, column ${column.name}` });
      }
    };
    case 'BLOB': return (bytes) => new Uint8Array(bytes);
  }
}

/** COPY TO's first CopyData: the header, no flags, no extension. */
export function writeCopyBinaryHeader(out: PgBackendWriter): void {
  out.begin('d').bytes(PG_COPY_BINARY_SIGNATURE).int32(0).int32(0).end();
}

/** One row as one CopyData of a tuple. */
export function writeCopyBinaryTuple(out: PgBackendWriter, types: readonly SqlType[], row: readonly Value[]): void {
  out.begin('d').int16(types.length);
  for (let i = 0; i < types.length; i++) {
    const value = row[i];
    if (value === null || value === undefined) {
      out.int32(-1);
      continue;
    }
    const bytes = pgBinaryOf(types[i]!, value);
    out.int32(bytes.byteLength).bytes(bytes);
  }
  out.end();
}

/** The trailer, its own CopyData before CopyDone. */
export function writeCopyBinaryTrailer(out: PgBackendWriter): void {
  out.begin('d').int16(-1).end();
}
