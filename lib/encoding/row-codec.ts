// The binary row format: rows and row keys of one container schema, as xlog records carry them.
//
// Rows, one after another, each:
//   | null bitmap: ceil(columnCount / 8) bytes | value of each non-NULL column, in column order |
// Bit i of the bitmap (byte i >> 3, bit i & 7, least significant bit first) set means column i is
// NULL and has no value bytes; bits past the last column are 0. Values, little-endian:
//   BOOL u8 (0 or 1)   BYTE i8   SHORT i16   INTEGER i32   LONG i64   FLOAT f32   DOUBLE f64
//   TIMESTAMP(ms)      u64 of the ms since the epoch, exact (ByteWriter.u64Number, no float)
//   TIMESTAMP(µs)      i64 of the µs since the epoch
//   TIMESTAMP(ns)      i64 of the whole µs since the epoch, then u16 of the ns within it (0..999):
//                      9999-12-31 in ns is about 2^67, beyond an i64
//   STRING             varuint UTF-8 size in bytes, then UTF-8
//   GEOMETRY           varuint size in bytes, then, by form (below):
//                        'storage'  the binary encoding, first byte 0x01 (geometry-binary.ts)
//                        'wire'     the WKT text as GridDB prints it, UTF-8 (first byte a letter)
//                      Either reader takes both: xlog records written before the binary encoding
//                      hold WKT text, which 'storage' parses into a GeometryValue once, at replay.
//                      A text that does not parse (written before values were checked) stays a
//                      string, and is written back as text: queries fail on it as they did.
//   BLOB               varuint size in bytes, then the bytes
//   arrays             varuint element count, then each element as its scalar type (never NULL)
// Keys: the key columns' values only, in column order, no bitmap (key values are never NULL).
//
// Two forms differ in GEOMETRY only. 'storage' (xlog records) keeps the engine's GeometryValue;
// 'wire' (client protocol, lib/protocol/wire-rows.ts) carries WKT text both ways, as GridDB's
// clients and web API read and write it, and reads a GEOMETRY as a string (the node's engine
// parses it when it validates the row; the client hands it to the caller as is).
//
// The format has no version or column count of its own: the record around it names the schema
// version, and only that schema can read it. Bump ROW_FORMAT_VERSION (and teach the reader the
// old one) to change anything here.
//
// Writing takes rows as validateRow returns them (a bad row is our bug: asserted, and checked in
// full when invariants are on). Reading checks what the bytes can get wrong (a NULL in a NOT NULL
// or key column, a bool that is not 0 or 1, a timestamp out of range, padding bits, counts larger
// than the bytes left) and throws CORRUPTION; it gives back exactly the canonical values
// validateRow produces: bigint for LONG and µs/ns, -0 and NaN kept, a fresh Uint8Array per BLOB.

import { Buffer } from 'node:buffer';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { invariants } from '../base/invariants.ts';
import {
  TIMESTAMP_MS_MAX as TIMESTAMP_MS_MAX_IMPORTED, TIMESTAMP_NS_MAX as TIMESTAMP_NS_MAX_IMPORTED,
  TIMESTAMP_US_MAX as TIMESTAMP_US_MAX_IMPORTED, ValueKind, valueKind,
  type KeyValue, type Row, type RowKey, type ScalarValue, type Value,
} from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import type { ByteReader } from './byte-reader.ts';
import type { ByteWriter } from './byte-writer.ts';
import { rowCodecValueMatches, ROW_CODEC_KIND_GEOMETRY_WKT } from './row-codec-check.ts';
import {
  geometryValueFromBytes, isGeometryValue, legacyGeometry, type GeometryValue,
} from '../geometry/geometry-value.ts';
import { GEOMETRY_BINARY_TAG } from '../geometry/geometry-binary.ts';

// Module constants: case labels are evaluated at every switch, and a loader (tsx) may turn an
// imported binding into a getter call.
const TIMESTAMP_MS_MAX = TIMESTAMP_MS_MAX_IMPORTED;
const TIMESTAMP_US_MAX = TIMESTAMP_US_MAX_IMPORTED;
const TIMESTAMP_NS_MAX = TIMESTAMP_NS_MAX_IMPORTED;
const K_BLOB = ValueKind.BLOB;
const K_BOOL = ValueKind.BOOL;
const K_BYTE = ValueKind.BYTE;
const K_DOUBLE = ValueKind.DOUBLE;
const K_FLOAT = ValueKind.FLOAT;
const K_GEOMETRY = ValueKind.GEOMETRY;
const K_GEOMETRY_WKT = ROW_CODEC_KIND_GEOMETRY_WKT;
const K_INTEGER = ValueKind.INTEGER;
const K_LONG = ValueKind.LONG;
const K_SHORT = ValueKind.SHORT;
const K_STRING = ValueKind.STRING;
const K_TIMESTAMP_MS = ValueKind.TIMESTAMP_MS;
const K_TIMESTAMP_NS = ValueKind.TIMESTAMP_NS;
const K_TIMESTAMP_US = ValueKind.TIMESTAMP_US;

export const ROW_FORMAT_VERSION = 1;

export interface RowCodec {
  /** Appends the rows (validated, canonical) to the writer. */
  writeRows(writer: ByteWriter, rows: readonly Row[]): void;
  /** The bytes writeRows appends for `row` (validated, canonical), without encoding it. */
  rowBytes(row: Row): number;
  /**
   * The bytes writeColumnRow appends for row `index` of `columns`, without encoding it: the same
   * as rowBytes of that row.
   */
  columnRowBytes(columns: readonly RowColumn[], index: number): number;
  /**
   * Appends row `index` of `columns` (one per schema column, as a row block holds them), byte for
   * byte what writeRows appends for the row they stand for, without making the row.
   */
  writeColumnRow(writer: ByteWriter, columns: readonly RowColumn[], index: number): void;
  /** Reads `count` rows; CORRUPTION on malformed bytes. */
  readRows(reader: ByteReader, count: number): Row[];
  /** Appends keys as keyValidator returns them: a KeyValue, or KeyValue[] for composite keys. */
  writeKeys(writer: ByteWriter, keys: readonly RowKey[]): void;
  readKeys(reader: ByteReader, count: number): RowKey[];
}

/**
 * One column of a run of rows as a row block keeps it (lib/block/row-block-column.ts): values[i]
 * is row i's canonical value, except that a scalar BOOL is 0 or 1 (a Uint8Array); where nulls[i]
 * is 1 the row's value is NULL whatever values[i] holds.
 */
export interface RowColumn {
  readonly values: ArrayLike<unknown>;
  /** 1 = NULL; undefined: no NULLs. */
  readonly nulls: Uint8Array | undefined;
}

/** 'storage': GEOMETRY as its binary encoding; 'wire': as WKT text (the header draws both). */
export type RowForm = 'storage' | 'wire';

const codecCaches: Record<RowForm, WeakMap<ContainerSchema, RowCodec>> = {
  storage: new WeakMap(), wire: new WeakMap(),
};

/** The codec of `schema` in `form`, built once per schema object. */
export function rowCodec(schema: ContainerSchema, form: RowForm): RowCodec {
  const cache = codecCaches[form];
  let codec = cache.get(schema);
  if (codec === undefined) {
    codec = new SchemaRowCodec(schema, form);
    cache.set(schema, codec);
  }
  return codec;
}

class SchemaRowCodec implements RowCodec {
  private readonly columnCount: number;
  private readonly keyColumnCount: number;
  private readonly kinds: Uint8Array;
  private readonly arrays: Uint8Array;
  /** 1 where NULL may be stored. */
  private readonly nullables: Uint8Array;
  private readonly bitmap: Uint8Array;
  private readonly containerName: string;
  private readonly columnNames: readonly string[];
  /** Largest encoded row when every column is a fixed-width scalar; undefined otherwise. */
  private readonly fixedRowBytesMax: number | undefined;
  /** Each column's encoded size when it is a fixed-width scalar, else 0. */
  private readonly fixedBytes: Uint8Array;

  constructor(schema: ContainerSchema, form: RowForm) {
    assert(schema.columns.length > 0);
    assert(schema.rowKeyColumnCount <= schema.columns.length);
    this.columnCount = schema.columns.length;
    this.keyColumnCount = schema.rowKeyColumnCount;
    // The wire form's GEOMETRY is a kind of its own, so the hot loops switch once per value.
    this.kinds = Uint8Array.from(schema.columns, (c) => {
      const kind = valueKind(c.type, c.timePrecision);
      return kind === K_GEOMETRY && form === 'wire' ? K_GEOMETRY_WKT : kind;
    });
    this.arrays = Uint8Array.from(schema.columns, (c) => (c.array ? 1 : 0));
    this.nullables = Uint8Array.from(schema.columns, (c, i) =>
      (c.notNull || i < schema.rowKeyColumnCount ? 0 : 1));
    this.bitmap = new Uint8Array(Math.ceil(this.columnCount / 8));
    this.containerName = schema.name;
    this.columnNames = schema.columns.map((c) => c.name);
    const fixedSizes = schema.columns.map((c, i) =>
      (c.array ? undefined : FIXED_VALUE_BYTES[this.kinds[i]!]));
    this.fixedRowBytesMax = fixedSizes.every((size) => size !== undefined)
      ? this.bitmap.length + fixedSizes.reduce((sum: number, size) => sum + size!, 0)
      : undefined;
    this.fixedBytes = Uint8Array.from(fixedSizes, (size) => size ?? 0);
  }

  rowBytes(row: Row): number {
    const { columnCount, kinds, arrays, fixedBytes } = this;
    assert(row.length === columnCount);
    let sizeBytes = this.bitmap.length;
    for (let i = 0; i < columnCount; i++) {
      const value = row[i]!;
      if (value === null) continue;
      const fixed = fixedBytes[i]!;
      if (fixed !== 0) sizeBytes += fixed;
      else if (arrays[i] === 1) sizeBytes += arrayBytes(kinds[i]!, value as ScalarValue[]);
      else sizeBytes += scalarBytes(kinds[i]!, value as ScalarValue);
    }
    return sizeBytes;
  }

  columnRowBytes(columns: readonly RowColumn[], index: number): number {
    const { columnCount, kinds, arrays, fixedBytes } = this;
    assert(columns.length === columnCount);
    let sizeBytes = this.bitmap.length;
    for (let i = 0; i < columnCount; i++) {
      const column = columns[i]!;
      if (column.nulls !== undefined && column.nulls[index] === 1) continue;
      const fixed = fixedBytes[i]!;
      const value = column.values[index];
      if (fixed !== 0) sizeBytes += fixed;
      else if (arrays[i] === 1) sizeBytes += arrayBytes(kinds[i]!, value as ScalarValue[]);
      else sizeBytes += scalarBytes(kinds[i]!, value as ScalarValue);
    }
    return sizeBytes;
  }

  writeColumnRow(writer: ByteWriter, columns: readonly RowColumn[], index: number): void {
    const { columnCount, kinds, arrays, nullables } = this;
    assert(columns.length === columnCount);
    for (let start = 0; start < columnCount; start += 8) {
      const end = Math.min(start + 8, columnCount);
      let bits = 0;
      for (let i = start; i < end; i++) {
        const nulls = columns[i]!.nulls;
        if (nulls !== undefined && nulls[index] === 1) {
          assert(nullables[i] === 1, `NULL in NOT NULL column ${i}`);
          bits |= 1 << (i - start);
        }
      }
      writer.u8(bits);
    }
    const invariantsEnabled = invariants.enabled;
    for (let i = 0; i < columnCount; i++) {
      const column = columns[i]!;
      if (column.nulls !== undefined && column.nulls[index] === 1) continue;
      const kind = kinds[i]!;
      const value = column.values[index];
      if (arrays[i] === 1) {
        if (invariantsEnabled) {
          assert(Array.isArray(value));
          for (const element of value) assert(rowCodecValueMatches(kind, element));
        }
        arrayWrite(writer, kind, value as ScalarValue[]);
      } else if (kind === K_DOUBLE) {
        writer.f64(value as number); // the common case, kept out of the big switch
      } else if (kind === K_BOOL) {
        // A block keeps BOOL as a byte.
        assert(value === 0 || value === 1);
        writer.u8(value as number);
      } else {
        if (invariantsEnabled) {
          assert(rowCodecValueMatches(kind, value), `column ${i} value of the wrong kind`);
        }
        scalarWrite(writer, kind, value as ScalarValue);
      }
    }
  }

  writeRows(writer: ByteWriter, rows: readonly Row[]): void {
    if (this.fixedRowBytesMax !== undefined) {
      this.writeFixedRows(writer, rows, this.fixedRowBytesMax);
      return;
    }
    const { columnCount, kinds, arrays } = this;
    const invariantsEnabled = invariants.enabled;
    // Indexed loops: for-of wraps the body in an iterator-closing try, which V8 optimises less.
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      assert(row.length === columnCount);
      if (invariantsEnabled) this.rowAssert(row);
      for (let start = 0; start < columnCount; start += 8) {
        const end = Math.min(start + 8, columnCount);
        let bits = 0;
        for (let i = start; i < end; i++) {
          if (row[i] === null) bits |= 1 << (i - start);
        }
        writer.u8(bits);
      }
      for (let i = 0; i < columnCount; i++) {
        const value = row[i]!;
        if (value === null) continue;
        // DOUBLE is the common case: kept out of the big switch.
        if (kinds[i] === K_DOUBLE && arrays[i] === 0) writer.f64(value as number);
        else if (arrays[i] === 1) arrayWrite(writer, kinds[i]!, value as ScalarValue[]);
        else scalarWrite(writer, kinds[i]!, value as ScalarValue);
      }
    }
  }

  /**
   * The same bytes as the general path, for schemas of fixed-width scalars only (the time-series
   * shape): room is claimed once per FIXED_ROWS_CLAIMED_MAX rows, and values go straight into the
   * DataView, with no call and no bounds check per value.
   */
  private writeFixedRows(writer: ByteWriter, rows: readonly Row[], rowBytesMax: number): void {
    const { columnCount, kinds } = this;
    const bitmapBytes = this.bitmap.length;
    const invariantsEnabled = invariants.enabled;
    if (rows.length === 0) return;
    let offset = 0;
    let view = writer.dataView;
    let bytes = writer.bytesView;
    for (let r = 0; r < rows.length; r++) {
      // Room for a run of rows at a time: the largest size of a whole page of rows with NULLs can
      // be more than a writer bounded by the message limit holds, though the rows fit.
      if (r % FIXED_ROWS_CLAIMED_MAX === 0) {
        if (r > 0) writer.advanceTo(offset);
        offset = writer.claim(Math.min(rows.length - r, FIXED_ROWS_CLAIMED_MAX) * rowBytesMax);
        view = writer.dataView;
        bytes = writer.bytesView;
      }
      const row = rows[r]!;
      assert(row.length === columnCount);
      if (invariantsEnabled) this.rowAssert(row);
      // One pass: a NULL sets its bit (validated rows hold NULL only where it may be stored).
      const bitmapAt = offset;
      for (let b = 0; b < bitmapBytes; b++) bytes[bitmapAt + b] = 0;
      offset += bitmapBytes;
      for (let i = 0; i < columnCount; i++) {
        const value = row[i]!;
        const kind = kinds[i]!;
        if (value === null) {
          bytes[bitmapAt + (i >> 3)] = bytes[bitmapAt + (i >> 3)]! | (1 << (i & 7));
        } else if (kind === K_DOUBLE) {
          // The common case, kept out of the switch.
          view.setFloat64(offset, value as number, true);
          offset += 8;
        } else {
          offset = fixedValueWrite(view, offset, kind, value as ScalarValue);
        }
      }
    }
    writer.advanceTo(offset);
  }

  readRows(reader: ByteReader, count: number): Row[] {
    assert(Number.isSafeInteger(count) && count >= 0);
    this.countCheck(reader, count, 'rows');
    const { columnCount, kinds, arrays, nullables, bitmap } = this;
    const rows: Row[] = [];
    for (let r = 0; r < count; r++) {
      for (let b = 0; b < bitmap.length; b++) bitmap[b] = reader.u8();
      this.bitmapPaddingCheck();
      const row: Value[] = new Array(columnCount);
      for (let i = 0; i < columnCount; i++) {
        if ((bitmap[i >> 3]! & (1 << (i & 7))) !== 0) {
          if (nullables[i] === 0) throw this.corruption(i, 'NULL in a NOT NULL or key column');
          row[i] = null;
        } else if (kinds[i] === K_DOUBLE && arrays[i] === 0) {
          row[i] = reader.f64(); // the common case, kept out of the big switch
        } else if (arrays[i] === 1) {
          row[i] = this.arrayRead(reader, i);
        } else {
          row[i] = this.scalarRead(reader, kinds[i]!, i);
        }
      }
      rows.push(row);
    }
    return rows;
  }

  writeKeys(writer: ByteWriter, keys: readonly RowKey[]): void {
    const { keyColumnCount, kinds } = this;
    assert(keyColumnCount > 0);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      if (keyColumnCount === 1) {
        assert(!Array.isArray(key));
        if (invariants.enabled) assert(rowCodecValueMatches(kinds[0]!, key));
        scalarWrite(writer, kinds[0]!, key as KeyValue);
        continue;
      }
      assert(Array.isArray(key) && key.length === keyColumnCount);
      for (let i = 0; i < keyColumnCount; i++) {
        if (invariants.enabled) assert(rowCodecValueMatches(kinds[i]!, key[i]));
        scalarWrite(writer, kinds[i]!, key[i]!);
      }
    }
  }

  readKeys(reader: ByteReader, count: number): RowKey[] {
    assert(Number.isSafeInteger(count) && count >= 0);
    const { keyColumnCount, kinds } = this;
    assert(keyColumnCount > 0);
    this.countCheck(reader, count, 'keys');
    const keys: RowKey[] = [];
    for (let k = 0; k < count; k++) {
      if (keyColumnCount === 1) {
        keys.push(this.scalarRead(reader, kinds[0]!, 0) as KeyValue);
        continue;
      }
      const key: KeyValue[] = [];
      for (let i = 0; i < keyColumnCount; i++) {
        key.push(this.scalarRead(reader, kinds[i]!, i) as KeyValue);
      }
      keys.push(key);
    }
    return keys;
  }

  private scalarRead(reader: ByteReader, kind: number, columnIndex: number): ScalarValue {
    switch (kind) {
      case K_DOUBLE: return reader.f64();
      case K_TIMESTAMP_MS: {
        const ms = reader.u64Number();
        if (ms > TIMESTAMP_MS_MAX) {
          throw this.corruption(columnIndex, `timestamp ${ms} out of range`);
        }
        return ms;
      }
      case K_BOOL: {
        const byte = reader.u8();
        if (byte > 1) throw this.corruption(columnIndex, `BOOL byte ${byte}`);
        return byte === 1;
      }
      case K_BYTE: return reader.i8();
      case K_SHORT: return reader.i16();
      case K_INTEGER: return reader.i32();
      case K_LONG: return reader.i64();
      case K_FLOAT: return reader.f32();
      case K_TIMESTAMP_US: return this.timestampUsRead(reader, columnIndex);
      case K_TIMESTAMP_NS: return this.timestampNsRead(reader, columnIndex);
      case K_STRING: return reader.string();
      case K_GEOMETRY: return this.geometryRead(reader, columnIndex);
      case K_GEOMETRY_WKT: return this.geometryWktRead(reader, columnIndex);
      case K_BLOB: return reader.bytes(reader.varuint());
      default: return assertNever(kind);
    }
  }

  /**
   * Binary (tag 0x01), or WKT text written before the binary encoding: a GeometryValue, or the
   * text itself when it does not parse.
   */
  private geometryRead(reader: ByteReader, columnIndex: number): GeometryValue | string {
    const bytes = reader.bytes(reader.varuint());
    if (bytes[0] !== GEOMETRY_BINARY_TAG) return legacyGeometry(this.utf8(bytes, columnIndex));
    const value = geometryValueFromBytes(bytes);
    if (!isGeometryValue(value)) throw this.corruption(columnIndex, value.problem);
    return value;
  }

  /** WKT text, or a binary value printed as WKT: a string, checked by whoever takes the row. */
  private geometryWktRead(reader: ByteReader, columnIndex: number): string {
    const bytes = reader.bytes(reader.varuint());
    if (bytes[0] !== GEOMETRY_BINARY_TAG) return this.utf8(bytes, columnIndex);
    const value = geometryValueFromBytes(bytes);
    if (!isGeometryValue(value)) throw this.corruption(columnIndex, value.problem);
    return value.wkt;
  }

  private utf8(bytes: Uint8Array, columnIndex: number): string {
    try {
      return utf8Decoder.decode(bytes);
    } catch (cause) {
      throw this.corruption(columnIndex, `GEOMETRY text is not valid UTF-8 (${String(cause)})`);
    }
  }

  private timestampUsRead(reader: ByteReader, columnIndex: number): bigint {
    const us = reader.i64();
    if (us < 0n || us > TIMESTAMP_US_MAX) {
      throw this.corruption(columnIndex, `timestamp ${us} µs out of range`);
    }
    return us;
  }

  private timestampNsRead(reader: ByteReader, columnIndex: number): bigint {
    const us = reader.i64();
    const nsWithinUs = reader.u16();
    const ns = us * 1000n + BigInt(nsWithinUs);
    if (nsWithinUs > 999 || us < 0n || ns > TIMESTAMP_NS_MAX) {
      throw this.corruption(columnIndex, `timestamp ${us} µs + ${nsWithinUs} ns out of range`);
    }
    return ns;
  }

  private arrayRead(reader: ByteReader, columnIndex: number): Value {
    const count = reader.varuint();
    // Every element takes at least one byte: a larger count is damage, not a reason to allocate.
    if (count > reader.remainingBytes) {
      throw this.corruption(columnIndex,
        `array of ${count} elements in ${reader.remainingBytes} bytes`);
    }
    const kind = this.kinds[columnIndex]!;
    const elements: ScalarValue[] = [];
    for (let i = 0; i < count; i++) elements.push(this.scalarRead(reader, kind, columnIndex));
    return elements as Value;
  }

  /** Every row and key takes at least one byte: a larger count (read from disk) is damage. */
  private countCheck(reader: ByteReader, count: number, what: string): void {
    if (count > reader.remainingBytes) {
      throw new StorageError('CORRUPTION', `${count} ${what} of ` +
        `${JSON.stringify(this.containerName)} in ${reader.remainingBytes} bytes`);
    }
  }

  private bitmapPaddingCheck(): void {
    const usedBits = this.columnCount & 7;
    if (usedBits === 0) return;
    const last = this.bitmap[this.bitmap.length - 1]!;
    if ((last >> usedBits) !== 0) {
      throw this.corruption(this.columnCount - 1, 'null bitmap padding');
    }
  }

  private rowAssert(row: Row): void {
    for (let i = 0; i < this.columnCount; i++) {
      const value = row[i];
      if (value === null) {
        assert(this.nullables[i] === 1, `NULL in NOT NULL column ${i}`);
      } else if (this.arrays[i] === 1) {
        assert(Array.isArray(value));
        for (const element of value) assert(rowCodecValueMatches(this.kinds[i]!, element));
      } else {
        assert(rowCodecValueMatches(this.kinds[i]!, value), `column ${i} value of the wrong kind`);
      }
    }
  }

  private corruption(columnIndex: number, problem: string): StorageError {
    return new StorageError('CORRUPTION', `row of ${JSON.stringify(this.containerName)}, column ` +
      `${JSON.stringify(this.columnNames[columnIndex])}: ${problem}`);
  }
}

function scalarWrite(writer: ByteWriter, kind: number, value: ScalarValue): void {
  switch (kind) {
    case K_DOUBLE: writer.f64(value as number); return;
    case K_TIMESTAMP_MS: writer.u64Number(value as number); return;
    case K_BOOL: writer.u8(value === true ? 1 : 0); return;
    case K_BYTE: writer.i8(value as number); return;
    case K_SHORT: writer.i16(value as number); return;
    case K_INTEGER: writer.i32(value as number); return;
    case K_LONG:
    case K_TIMESTAMP_US: writer.i64(value as bigint); return;
    case K_TIMESTAMP_NS: {
      const ns = value as bigint;
      writer.i64(ns / 1000n); // never negative, so division truncates as floor
      writer.u16(Number(ns % 1000n));
      return;
    }
    case K_FLOAT: writer.f32(value as number); return;
    case K_STRING: writer.string(value as string); return;
    case K_GEOMETRY: {
      if (typeof value === 'string') { writer.string(value); return; } // legacy text, kept
      const bytes = (value as GeometryValue).bytes;
      writer.varuint(bytes.byteLength);
      writer.bytes(bytes);
      return;
    }
    case K_GEOMETRY_WKT: writer.string(geometryText(value)); return;
    case K_BLOB: {
      const bytes = value as Uint8Array;
      writer.varuint(bytes.byteLength);
      writer.bytes(bytes);
      return;
    }
    default: assertNever(kind);
  }
}

/** A wire GEOMETRY (or a STRING) as text: a client's validated GeometryValue is printed. */
function geometryText(value: ScalarValue): string {
  return isGeometryValue(value) ? value.wkt : value as string;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** writeFixedRows claims room for this many rows at a time. */
const FIXED_ROWS_CLAIMED_MAX = 1024;

/** The bytes scalarWrite takes for a value of a variable-width kind (a fixed one: its size). */
function scalarBytes(kind: number, value: ScalarValue): number {
  switch (kind) {
    case K_STRING:
    case K_GEOMETRY_WKT: {
      const sizeBytes = Buffer.byteLength(geometryText(value), 'utf8');
      return varuintBytes(sizeBytes) + sizeBytes;
    }
    case K_GEOMETRY: {
      const sizeBytes = typeof value === 'string'
        ? Buffer.byteLength(value, 'utf8') : (value as GeometryValue).sizeBytes;
      return varuintBytes(sizeBytes) + sizeBytes;
    }
    case K_BLOB: {
      const sizeBytes = (value as Uint8Array).byteLength;
      return varuintBytes(sizeBytes) + sizeBytes;
    }
    default: {
      const fixed = FIXED_VALUE_BYTES[kind];
      assert(fixed !== undefined, `unknown value kind ${kind}`);
      return fixed;
    }
  }
}

/** The bytes arrayWrite takes. */
function arrayBytes(kind: number, elements: readonly ScalarValue[]): number {
  let sizeBytes = varuintBytes(elements.length);
  for (let e = 0; e < elements.length; e++) sizeBytes += scalarBytes(kind, elements[e]!);
  return sizeBytes;
}

/** The bytes ByteWriter.varuint takes for `value`: 7 bits a byte. */
function varuintBytes(value: number): number {
  let sizeBytes = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) sizeBytes++;
  return sizeBytes;
}

/** Encoded size of each fixed-width value kind (index: ValueKind); undefined for variable ones. */
const FIXED_VALUE_BYTES: Array<number | undefined> = [];
FIXED_VALUE_BYTES[K_BOOL] = 1;
FIXED_VALUE_BYTES[K_BYTE] = 1;
FIXED_VALUE_BYTES[K_SHORT] = 2;
FIXED_VALUE_BYTES[K_INTEGER] = 4;
FIXED_VALUE_BYTES[K_LONG] = 8;
FIXED_VALUE_BYTES[K_FLOAT] = 4;
FIXED_VALUE_BYTES[K_DOUBLE] = 8;
FIXED_VALUE_BYTES[K_TIMESTAMP_MS] = 8;
FIXED_VALUE_BYTES[K_TIMESTAMP_US] = 8;
FIXED_VALUE_BYTES[K_TIMESTAMP_NS] = 10;

const TWO_POW_32 = 2 ** 32;

/** One fixed-width value at `offset` (room already claimed); returns the offset after it. */
function fixedValueWrite(view: DataView, offset: number, kind: number, value: ScalarValue): number {
  switch (kind) {
    case K_DOUBLE: view.setFloat64(offset, value as number, true); return offset + 8;
    case K_TIMESTAMP_MS: {
      const ms = value as number;
      const low = ms % TWO_POW_32;
      view.setUint32(offset, low, true);
      view.setUint32(offset + 4, (ms - low) / TWO_POW_32, true);
      return offset + 8;
    }
    case K_BOOL: view.setUint8(offset, value === true ? 1 : 0); return offset + 1;
    case K_BYTE: view.setInt8(offset, value as number); return offset + 1;
    case K_SHORT: view.setInt16(offset, value as number, true); return offset + 2;
    case K_INTEGER: view.setInt32(offset, value as number, true); return offset + 4;
    case K_LONG:
    case K_TIMESTAMP_US: view.setBigInt64(offset, value as bigint, true); return offset + 8;
    case K_TIMESTAMP_NS: {
      const ns = value as bigint;
      view.setBigInt64(offset, ns / 1000n, true); // never negative: division truncates as floor
      view.setUint16(offset + 8, Number(ns % 1000n), true);
      return offset + 10;
    }
    case K_FLOAT: view.setFloat32(offset, value as number, true); return offset + 4;
    default: return assertNever(kind);
  }
}

function arrayWrite(writer: ByteWriter, kind: number, elements: readonly ScalarValue[]): void {
  writer.varuint(elements.length);
  for (const element of elements) scalarWrite(writer, kind, element);
}

function assertNever(kind: number): never {
  assert(false, `unknown value kind ${kind}`);
}
