// GridDB's row encoding for row statements (protocol v15: the C client's RowMapper in
// MODE_ROWWISE_SEPARATED_V2, its OutputCursor / InputCursor). n rows of one schema are a fixed
// area of n equal-sized parts, then a variable area:
//
//   fixed part of a row | varOffset i64, if the schema has var columns | nulls | fixed fields |
//   variable area       | per row: varColumnCount varsize | var fields, in column order |
//
// varOffset is where the row's var block starts, counted from the start of the variable area.
// nulls has one bit per column (LSB first), ceil(columns / 8) bytes; a null column's field is
// still written (zeros, an empty string) and ignored. Fixed fields, little-endian: BOOL, BYTE 1,
// SHORT 2, INTEGER 4, FLOAT 4, LONG 8, DOUBLE 8, TIMESTAMP 8 (ms), TIMESTAMP(6) 8 (µs),
// TIMESTAMP(9) 9 (an i64 of 250 ns units, then a u8 of the nanoseconds left, < 250). Var fields
// (varsize = griddbVarSizeRead): STRING, BLOB | size varsize | bytes |; an array of fixed
// elements | bytes varsize (count's varsize + elements) | count varsize | elements |; a STRING
// array | bytes varsize | count varsize | (size varsize | UTF-8)... |.
//
// GEOMETRY has no encoding here: the C client refuses to encode it ("GEOMETRY is not a
// supported type"), so a row statement on a container with a GEOMETRY column is refused.
// A key alone (GET_ROW, DELETE_ROW) is the key column's field without nulls or offsets: INTEGER
// 4, LONG 8, TIMESTAMP 8 (or 8 / 9 for TIMESTAMP(6/9)), STRING | size varsize | UTF-8 |.

import { Buffer } from 'node:buffer';
import { ByteReader } from '../../encoding/byte-reader.ts';
import { ByteWriter } from '../../encoding/byte-writer.ts';
import type { KeyValue, Row, Value } from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';
import { griddbVarSizeRead, griddbVarSizeWrite } from './griddb-container-key.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError } from './griddb-frame.ts';

/** A var field longer than this is malformed here (the frame limit bounds it anyway). */
const VAR_FIELD_BYTES_MAX = 2 ** 30;
const NANOS_PER_HIGH_UNIT = 250n;
const NANO_TIMESTAMP_BYTES = 9;

type Kind = 'BOOL' | 'BYTE' | 'SHORT' | 'INTEGER' | 'LONG' | 'FLOAT' | 'DOUBLE' | 'TS_MS' |
  'TS_US' | 'TS_NS' | 'STRING' | 'BLOB';

const FIXED_BYTES: Record<Kind, number> = {
  BOOL: 1, BYTE: 1, SHORT: 2, INTEGER: 4, LONG: 8, FLOAT: 4, DOUBLE: 8, TS_MS: 8, TS_US: 8,
  TS_NS: NANO_TIMESTAMP_BYTES, STRING: 0, BLOB: 0,
};

function kindOf(column: ColumnSchema): Kind {
  switch (column.type) {
    case 'TIMESTAMP':
      return column.timePrecision === 'MICROSECOND' ? 'TS_US'
        : column.timePrecision === 'NANOSECOND' ? 'TS_NS' : 'TS_MS';
    case 'GEOMETRY':
      throw new GriddbError(GriddbErrorCode.TXN_STATEMENT_TYPE_UNKNOWN,
        `column "${column.name}" is a GEOMETRY: GridDB's client has no row encoding for it`);
    default:
      return column.type;
  }
}

function isVar(column: ColumnSchema): boolean {
  return column.array || column.type === 'STRING' || column.type === 'BLOB';
}

function layoutOf(columns: readonly ColumnSchema[]): { kinds: Kind[]; varCount: number;
  nullsBytes: number; fixedRowBytes: number } {
  const kinds = columns.map(kindOf);
  const varCount = columns.filter(isVar).length;
  const nullsBytes = Math.ceil(columns.length / 8);
  let fixedRowBytes = (varCount > 0 ? 8 : 0) + nullsBytes;
  columns.forEach((column, i) => {
    if (!isVar(column)) fixedRowBytes += FIXED_BYTES[kinds[i]!];
  });
  return { kinds, varCount, nullsBytes, fixedRowBytes };
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function utf8(bytes: Uint8Array, what: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new GriddbFrameError(`${what}: invalid UTF-8`);
  }
}

function fixedRead(reader: ByteReader, kind: Kind): Value {
  switch (kind) {
    case 'BOOL': return reader.u8() !== 0;
    case 'BYTE': return reader.i8();
    case 'SHORT': return reader.i16();
    case 'INTEGER': return reader.i32();
    case 'LONG': return reader.i64();
    case 'FLOAT': return reader.f32();
    case 'DOUBLE': return reader.f64();
    case 'TS_MS': return Number(reader.i64());
    case 'TS_US': return reader.i64();
    case 'TS_NS': {
      const high = reader.i64();
      const low = reader.u8();
      if (high < 0n || BigInt(low) >= NANOS_PER_HIGH_UNIT) {
        throw new GriddbFrameError(`TIMESTAMP(9) ${high}/${low} is malformed`);
      }
      return high * NANOS_PER_HIGH_UNIT + BigInt(low);
    }
    default: throw new GriddbFrameError(`${kind} is not a fixed-size type`);
  }
}

function fixedWrite(writer: ByteWriter, kind: Kind, value: Value): void {
  const zero = value === null;
  switch (kind) {
    case 'BOOL': writer.u8(!zero && value === true ? 1 : 0); return;
    case 'BYTE': writer.i8(zero ? 0 : value as number); return;
    case 'SHORT': writer.i16(zero ? 0 : value as number); return;
    case 'INTEGER': writer.i32(zero ? 0 : value as number); return;
    case 'LONG': writer.i64(zero ? 0n : value as bigint); return;
    case 'FLOAT': writer.f32(zero ? 0 : value as number); return;
    case 'DOUBLE': writer.f64(zero ? 0 : value as number); return;
    case 'TS_MS': writer.i64(BigInt(zero ? 0 : value as number)); return;
    case 'TS_US': writer.i64(zero ? 0n : value as bigint); return;
    case 'TS_NS': {
      const nanos = zero ? 0n : value as bigint;
      writer.i64(nanos / NANOS_PER_HIGH_UNIT);
      writer.u8(Number(nanos % NANOS_PER_HIGH_UNIT));
      return;
    }
    default: throw new GriddbFrameError(`${kind} is not a fixed-size type`);
  }
}

function varRead(reader: ByteReader, column: ColumnSchema, kind: Kind): Value {
  const size = griddbVarSizeRead(reader, `column "${column.name}"`, VAR_FIELD_BYTES_MAX);
  if (size > reader.remainingBytes) {
    throw new GriddbFrameError(`column "${column.name}": ${size} bytes run past the body`);
  }
  if (!column.array) {
    const bytes = reader.bytes(size);
    return kind === 'STRING' ? utf8(bytes, `column "${column.name}"`) : Uint8Array.from(bytes);
  }
  const end = reader.offsetBytes + size;
  const count = griddbVarSizeRead(reader, `column "${column.name}" count`, size);
  const values: Value[] = [];
  for (let i = 0; i < count; i++) {
    if (kind === 'STRING') {
      const length = griddbVarSizeRead(reader, `column "${column.name}" element`, size);
      if (reader.offsetBytes + length > end) {
        throw new GriddbFrameError(`column "${column.name}": element ${i} runs past its array`);
      }
      values.push(utf8(reader.bytes(length), `column "${column.name}"`));
    } else {
      if (reader.offsetBytes + FIXED_BYTES[kind] > end) {
        throw new GriddbFrameError(`column "${column.name}": element ${i} runs past its array`);
      }
      values.push(fixedRead(reader, kind));
    }
  }
  if (reader.offsetBytes !== end) {
    throw new GriddbFrameError(`column "${column.name}": array of ${size} bytes holds ` +
      `${reader.offsetBytes - (end - size)}`);
  }
  return values as Value;
}

function varWrite(writer: ByteWriter, column: ColumnSchema, kind: Kind, value: Value): void {
  if (!column.array) {
    const bytes = kind === 'STRING' ? Buffer.from((value ?? '') as string, 'utf8')
      : (value ?? new Uint8Array(0)) as Uint8Array;
    griddbVarSizeWrite(writer, bytes.byteLength);
    writer.bytes(bytes);
    return;
  }
  const elements = (value ?? []) as Value[];
  const countBytes = varSizeBytes(elements.length);
  if (kind === 'STRING') {
    const encoded = elements.map((element) => Buffer.from(element as string, 'utf8'));
    const total = countBytes + encoded.reduce(
      (sum, bytes) => sum + varSizeBytes(bytes.byteLength) + bytes.byteLength, 0);
    griddbVarSizeWrite(writer, total);
    griddbVarSizeWrite(writer, elements.length);
    for (const bytes of encoded) {
      griddbVarSizeWrite(writer, bytes.byteLength);
      writer.bytes(bytes);
    }
    return;
  }
  griddbVarSizeWrite(writer, countBytes + FIXED_BYTES[kind] * elements.length);
  griddbVarSizeWrite(writer, elements.length);
  for (const element of elements) fixedWrite(writer, kind, element);
}

function varSizeBytes(size: number): number {
  return size < 128 ? 1 : size < 2 ** 30 ? 4 : 8;
}

/** Reads `count` rows laid out as drawn above; they must fill `bytes` exactly. */
export function griddbRowsRead(bytes: Uint8Array, columns: readonly ColumnSchema[],
  count: number): Row[] {
  const { kinds, varCount, nullsBytes, fixedRowBytes } = layoutOf(columns);
  if (count * fixedRowBytes > bytes.byteLength) {
    throw new GriddbFrameError(`${count} rows of ${fixedRowBytes} fixed bytes run past the body`);
  }
  const reader = new ByteReader(bytes.subarray(0, count * fixedRowBytes));
  const varReader = new ByteReader(bytes.subarray(count * fixedRowBytes));
  const rows: Row[] = [];
  for (let r = 0; r < count; r++) {
    if (varCount > 0) {
      const offset = reader.i64();
      if (offset !== BigInt(varReader.offsetBytes)) {
        throw new GriddbFrameError(`row ${r}: variable part at ${offset}, expected ` +
          `${varReader.offsetBytes}`);
      }
      const fieldCount = griddbVarSizeRead(varReader, `row ${r} var count`, columns.length);
      if (fieldCount !== varCount) {
        throw new GriddbFrameError(`row ${r}: ${fieldCount} var fields, expected ${varCount}`);
      }
    }
    const nulls = reader.bytes(nullsBytes);
    const row: Row = [];
    columns.forEach((column, c) => {
      const value = isVar(column) ? varRead(varReader, column, kinds[c]!)
        : fixedRead(reader, kinds[c]!);
      row.push((nulls[c >>> 3]! & (1 << (c & 7))) !== 0 ? null : value);
    });
    rows.push(row);
  }
  if (varReader.remainingBytes !== 0) {
    throw new GriddbFrameError(`${varReader.remainingBytes} bytes after the rows`);
  }
  return rows;
}

/**
 * Writes rows laid out as drawn above; with `rowIds` (one per row), each fixed part starts with
 * the row's id (i64), as GET_ROW and a query's row set answer a collection. Store has no row ids:
 * GET_ROW sends 0, a row set the ids its connection gave (griddb-row-sets.ts).
 */
export function griddbRowsWrite(writer: ByteWriter, columns: readonly ColumnSchema[],
  rows: readonly Row[], rowIds?: readonly bigint[]): void {
  const { kinds, varCount, nullsBytes } = layoutOf(columns);
  const fixedParts: ByteWriter[] = [];
  const varArea = new ByteWriter(64);
  for (const [r, row] of rows.entries()) {
    const fixed = new ByteWriter(64);
    if (rowIds !== undefined) fixed.i64(rowIds[r]!);
    if (varCount > 0) {
      fixed.i64(BigInt(varArea.lengthBytes));
      griddbVarSizeWrite(varArea, varCount);
    }
    const nulls = new Uint8Array(nullsBytes);
    row.forEach((value, c) => {
      if (value === null) nulls[c >>> 3]! |= 1 << (c & 7);
    });
    fixed.bytes(nulls);
    columns.forEach((column, c) => {
      if (isVar(column)) varWrite(varArea, column, kinds[c]!, row[c] ?? null);
      else fixedWrite(fixed, kinds[c]!, row[c] ?? null);
    });
    fixedParts.push(fixed);
  }
  for (const fixed of fixedParts) writer.bytes(fixed.finish());
  writer.bytes(varArea.finish());
}

/** One fixed-size field (an aggregation's value); a var type is a GriddbFrameError. */
export function griddbFixedFieldWrite(writer: ByteWriter, column: ColumnSchema,
  value: Value): void {
  if (isVar(column)) throw new GriddbFrameError(`column "${column.name}" is not fixed-size`);
  fixedWrite(writer, kindOf(column), value);
}

/** Reads a single-column key (GET_ROW, DELETE_ROW). */
export function griddbKeyRead(reader: ByteReader, column: ColumnSchema): KeyValue {
  const kind = kindOf(column);
  if (kind === 'STRING') {
    const size = griddbVarSizeRead(reader, 'row key', VAR_FIELD_BYTES_MAX);
    if (size > reader.remainingBytes) throw new GriddbFrameError('row key runs past the body');
    return utf8(reader.bytes(size), 'row key');
  }
  return fixedRead(reader, kind) as KeyValue;
}
