// A page of a result as the engine sent it (the row codec's 'wire' form, lib/encoding/row-codec.ts)
// → its DataRow messages in binary format (result format code 1, what node-postgres asks for with
// `binary: true`), written as bytes into one buffer with no row arrays or values in between. Binary
// cells are the page's own values with the byte order turned: no formatting at all, where the text
// DataRows (pg-data-rows-wire.ts) format every double and timestamp.
//
// The bytes are those writeDataRows (pg-results.ts, pgBinaryOf) writes for the decoded rows (a
// property test compares them). It takes pages whose every column is in binary format, not an
// array, of BOOL, BYTE, SHORT, INTEGER, LONG, FLOAT, DOUBLE, TIMESTAMP (ms, µs, ns), STRING or BLOB
// (pgDataRowsBinaryFits says so). A DataRow is
//
//   | 'D' | int32 length (itself and what follows) | int16 column count |
//   | per column: int32 -1 (NULL) or int32 byte count, then the cell's bytes |
//
// Cells (PostgreSQL's send functions, big-endian), from the page's little-endian values:
//
//   page (wire form)                      cell
//   BOOL u8 0/1                           bool    1 byte 0/1
//   BYTE i8, SHORT i16                    int2    2 bytes (BYTE sign-extended)
//   INTEGER i32                           int4    4 bytes
//   LONG i64                              int8    8 bytes
//   FLOAT f32, DOUBLE f64                 float4, float8: the same IEEE bits (-0, NaN kept)
//   TIMESTAMP(ms) u64 ms since 1970       timestamptz int64 µs since 2000-01-01 00:00 UTC:
//   TIMESTAMP(µs) i64 µs since 1970         ms × 1000 − 946,684,800,000,000, or µs − the same;
//   TIMESTAMP(ns) i64 µs since 1970,        ns: the whole µs (the u16 of ns within it dropped,
//                 u16 ns within it          as pgBinaryOf floors them)
//   STRING, BLOB varuint size, bytes      text, bytea: the bytes
//
// Times are done in two 32-bit halves: µs past 2^53 (after year 2255) are not exact as a number.
// Bytes that do not hold `count` rows of the columns are the node's bug or a damaged frame:
// PROTOCOL_ERROR, as RowBatch.decode says for them.

import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import type { SqlType } from '../sql/value.ts';
import {
  PG_CELL_LENGTH_BYTES, PG_DATA_ROW_HEADER_BYTES, pgDataRowBegin, pgDataRowEnd, pgWireMalformed, pgWireVaruintAt,
  pgWriteInt32,
  type PgWirePage,
} from './pg-data-rows-wire.ts';

const TYPE_BOOL = 0;
const TYPE_BYTE = 1;
const TYPE_SHORT = 2;
const TYPE_INTEGER = 3;
const TYPE_LONG = 4;
const TYPE_FLOAT = 5;
const TYPE_DOUBLE = 6;
const TYPE_TIMESTAMP_MS = 7;
const TYPE_TIMESTAMP_US = 8;
const TYPE_TIMESTAMP_NS = 9;
const TYPE_BYTES = 10; // STRING and BLOB
/** The column schema each SQL type is taken from: its type and time precision. */
const TYPE_OF_SQL: Readonly<Partial<Record<string, [code: number, columnType: string, precision?: string]>>> = {
  BOOL: [TYPE_BOOL, 'BOOL'], BYTE: [TYPE_BYTE, 'BYTE'], SHORT: [TYPE_SHORT, 'SHORT'],
  INTEGER: [TYPE_INTEGER, 'INTEGER'], LONG: [TYPE_LONG, 'LONG'], FLOAT: [TYPE_FLOAT, 'FLOAT'],
  DOUBLE: [TYPE_DOUBLE, 'DOUBLE'], TIMESTAMP: [TYPE_TIMESTAMP_MS, 'TIMESTAMP', 'MILLISECOND'],
  'TIMESTAMP(6)': [TYPE_TIMESTAMP_US, 'TIMESTAMP', 'MICROSECOND'],
  'TIMESTAMP(9)': [TYPE_TIMESTAMP_NS, 'TIMESTAMP', 'NANOSECOND'],
  STRING: [TYPE_BYTES, 'STRING'], BLOB: [TYPE_BYTES, 'BLOB'],
};
/** Value bytes in the page of each fixed-size type (0: varuint size, then the bytes). */
const WIRE_SIZE_BYTES = [1, 1, 2, 4, 8, 4, 8, 8, 8, 10, 0];
/** Cell bytes of each fixed-size type. */
const CELL_SIZE_BYTES = [1, 2, 2, 4, 8, 4, 8, 8, 8, 8, 0];
const CELL_SIZE_BYTES_MAX = 8;
const TWO_32 = 0x1_0000_0000;
/** 2000-01-01 00:00 UTC in µs since 1970 (946,684,800,000,000), in 32-bit halves. */
const PG_EPOCH_US_HIGH = 220_417;
const PG_EPOCH_US_LOW = 946_684_800_000_000 - PG_EPOCH_US_HIGH * TWO_32;
assert(PG_EPOCH_US_LOW >= 0);
assert(PG_EPOCH_US_LOW < TWO_32);

/** Whether pages of these columns in these formats can be written from their bytes here. */
export function pgDataRowsBinaryFits(types: readonly SqlType[], columns: readonly ColumnSchema[],
  formats: readonly number[]): boolean {
  if (types.length !== columns.length) return false;
  for (let i = 0; i < types.length; i++) {
    const column = columns[i]!;
    const taken = TYPE_OF_SQL[types[i]!];
    if (formats[i] !== 1 || column.array || taken === undefined || column.type !== taken[1]) return false;
    if (taken[2] !== undefined && (column.timePrecision ?? 'MILLISECOND') !== taken[2]) return false;
  }
  return true;
}

/** The page's `size` little-endian bytes at `from`, big-endian at `at`. */
function writeSwapped(out: Buffer, at: number, bytes: Uint8Array, from: number, size: number): void {
  for (let i = 0; i < size; i++) out[at + i] = bytes[from + size - 1 - i]!;
}

/** µs since 1970 (as 32-bit halves, `high` signed) → µs since 2000 as a big-endian int64 at `at`. */
function writePgMicros(out: Buffer, at: number, high: number, low: number): void {
  let lowPg = low - PG_EPOCH_US_LOW;
  let borrow = 0;
  if (lowPg < 0) {
    lowPg += TWO_32;
    borrow = 1;
  }
  pgWriteInt32(out, at, (high - PG_EPOCH_US_HIGH - borrow) | 0);
  pgWriteInt32(out, at + 4, lowPg);
}

/**
 * The DataRows of `page` (rows of `types`, for which pgDataRowsBinaryFits), in one new buffer
 * that nothing else holds: the session hands it to the socket without a copy.
 */
export function pgDataRowsBinaryOfWire(types: readonly SqlType[], page: PgWirePage): Buffer {
  const columnCount = types.length;
  const codes = types.map((type) => TYPE_OF_SQL[type]![0]);
  const bitmapBytes = (columnCount + 7) >> 3;
  const { bytes, count } = page;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // A STRING's or BLOB's cell is at most its bytes in the page.
  const out = Buffer.allocUnsafe(
    count * (PG_DATA_ROW_HEADER_BYTES + columnCount * (PG_CELL_LENGTH_BYTES + CELL_SIZE_BYTES_MAX)) + bytes.length);
  let offset = 0;
  let at = 0;
  for (let r = 0; r < count; r++) {
    if (offset + bitmapBytes > bytes.length) throw pgWireMalformed('a row past the page end');
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
      const code = codes[c]!;
      if (code === TYPE_BYTES) {
        let size = bytes[offset]!;
        let next = offset + 1;
        if (size >= 0x80) [size, next] = pgWireVaruintAt(bytes, offset);
        if (next + size > bytes.length) throw pgWireMalformed('a string past the page end');
        pgWriteInt32(out, at, size);
        at += PG_CELL_LENGTH_BYTES;
        for (let i = 0; i < size; i++) out[at + i] = bytes[next + i]!;
        at += size;
        offset = next + size;
        continue;
      }
      if (offset + WIRE_SIZE_BYTES[code]! > bytes.length) throw pgWireMalformed('a value past the page end');
      pgWriteInt32(out, at, CELL_SIZE_BYTES[code]!);
      at += PG_CELL_LENGTH_BYTES;
      switch (code) {
        case TYPE_BOOL: {
          const value = bytes[offset]!;
          if (value > 1) throw pgWireMalformed(`a BOOL of ${value}`);
          out[at] = value;
          break;
        }
        case TYPE_BYTE: {
          const value = view.getInt8(offset);
          out[at] = (value >> 8) & 0xff;
          out[at + 1] = value & 0xff;
          break;
        }
        case TYPE_TIMESTAMP_MS: { // ms × 1000 in halves: low × 1000 < 2^42, its carry into the high half
          const lowProduct = view.getUint32(offset, true) * 1000;
          const carry = Math.floor(lowProduct / TWO_32);
          writePgMicros(out, at, view.getUint32(offset + 4, true) * 1000 + carry, lowProduct - carry * TWO_32);
          break;
        }
        case TYPE_TIMESTAMP_US: case TYPE_TIMESTAMP_NS:
          writePgMicros(out, at, view.getInt32(offset + 4, true), view.getUint32(offset, true));
          break;
        default: // SHORT, INTEGER, LONG, FLOAT, DOUBLE: the same bytes, big-endian
          writeSwapped(out, at, bytes, offset, WIRE_SIZE_BYTES[code]!);
      }
      at += CELL_SIZE_BYTES[code]!;
      offset += WIRE_SIZE_BYTES[code]!;
    }
    pgDataRowEnd(out, rowAt, at);
  }
  if (offset !== bytes.length) throw pgWireMalformed('bytes after the last row');
  return out.subarray(0, at);
}
