// One column's region of a row block image (block-format.ts draws the whole image): the null
// bitmap, then the fixed values packed little-endian, or each variable-length value as
// | length u32 | payload |, or as a reference to a large value kept out of line.
// Writing is our bug if it goes wrong (assert); reading is the disk's (BlockFormatReader.fail).

import { assert } from '../base/assert.ts';
import type { StorageError } from '../base/errors.ts';
import { blockId as toBlockId } from '../base/ids.ts';
import { GEOMETRY_BINARY_TAG } from '../geometry/geometry-binary.ts';
import {
  geometryValueFromBytes, isGeometryValue, legacyGeometry, type GeometryValue,
} from '../geometry/geometry-value.ts';
import type { Value } from '../schema/column-type.ts';
import {
  LARGE_VALUE_REF_BYTES, LargeValue, largeValueBlockCount, LargeValueKind,
  type LargeValueResolver, type StoredValue,
} from './large-value.ts';
import type { ColumnData } from './row-block-column.ts';
import {
  arrayElementBytes, largeValueKindFits, largeValueKindOf, stringIsUtf16Stored, varPayloadBytes,
  VAR_LENGTH_LARGE_FLAG, VAR_LENGTH_MASK, VAR_LENGTH_PREFIX_BYTES, VAR_LENGTH_UTF16_FLAG,
  ROW_BLOCK_HEADER_BYTES, type ColumnLayout,
} from './row-block-layout.ts';

/** A reference's block id when its large value was not placed. */
const LARGE_VALUE_BLOCK_ID_NONE = 0xffff_ffff;

interface ColumnRegion {
  column: ColumnLayout;
  data: ColumnData;
  rowCount: number;
}

/**
 * Writes a column's region at offset; returns the offset after it. blockSizeBytes is the block's
 * size, which sets a large value's chain length: a compact image (a shared page's tenant) is
 * shorter than its block.
 */
export function blockFormatWriteColumn(
  bytes: Uint8Array, offset: number, region: ColumnRegion & { blockSizeBytes: number },
): number {
  const { column, data, rowCount } = region;
  if (column.nullable) {
    const nulls = data.nulls!;
    for (let i = 0; i < rowCount; i++) {
      if (nulls[i] === 1) bytes[offset + (i >> 3)]! |= 1 << (i & 7);
    }
    offset += Math.ceil(rowCount / 8);
  }
  if (column.storage === 'i96') {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const values = data.values as Array<bigint | null>;
    for (let i = 0; i < rowCount; i++, offset += 12) setInt96(view, offset, values[i] ?? 0n);
    return offset;
  }
  if (column.storage !== 'var') {
    const values = (data.values as Float64Array).subarray(0, rowCount);
    bytes.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), offset);
    return offset + values.byteLength;
  }
  const image: ImageWriter = {
    view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
  };
  const values = data.values as StoredValue[];
  for (let i = 0; i < rowCount; i++) {
    const value = values[i] ?? null;
    offset = value instanceof LargeValue
      ? writeLargeValueRef(image.view, offset, { value, blockSizeBytes: region.blockSizeBytes })
      : writeVarValue(image, offset, column, value);
  }
  return offset;
}

/**
 * | length u32 = VAR_LENGTH_LARGE_FLAG | 16 | kind u8 | zero u8 × 3 | sizeBytes u32 |
 * | first block id u32 (0xFFFF_FFFF: not placed) | block count u32 |. The block size sets the
 * chain's block count.
 */
function writeLargeValueRef(
  view: DataView, offset: number, ref: { value: LargeValue; blockSizeBytes: number },
): number {
  const { value } = ref;
  const blockCount = largeValueBlockCount(value.sizeBytes, ref.blockSizeBytes);
  if (value.blockIds.length > 0) assert(value.blockIds.length === blockCount);
  view.setUint32(offset, (VAR_LENGTH_LARGE_FLAG | LARGE_VALUE_REF_BYTES) >>> 0, true);
  view.setUint8(offset + 4, value.kind);
  view.setUint32(offset + 8, value.sizeBytes, true);
  view.setUint32(offset + 12, value.blockIds[0] ?? LARGE_VALUE_BLOCK_ID_NONE, true);
  view.setUint32(offset + 16, blockCount, true);
  return offset + VAR_LENGTH_PREFIX_BYTES + LARGE_VALUE_REF_BYTES;
}

/** Two views of one image: DataView for numbers, Buffer for strings. */
export interface ImageWriter {
  view: DataView;
  buffer: Buffer;
}

function writeVarValue(
  image: ImageWriter, offset: number, column: ColumnLayout, value: Value,
): number {
  const { view } = image;
  const payloadBytes = varPayloadBytes(column, value);
  if (value === null) {
    view.setUint32(offset, 0, true);
    return offset + VAR_LENGTH_PREFIX_BYTES;
  }
  if (!column.array) {
    if (column.type === 'BLOB') {
      view.setUint32(offset, payloadBytes, true);
      image.buffer.set(value as Uint8Array, offset + 4);
      return offset + 4 + payloadBytes;
    }
    if (column.type === 'GEOMETRY' && typeof value !== 'string') {
      view.setUint32(offset, payloadBytes, true);
      (value as GeometryValue).writeTo(image.buffer, offset + 4);
      return offset + 4 + payloadBytes;
    }
    return writeString(image, offset, value as string);
  }
  view.setUint32(offset, payloadBytes, true);
  const end = blockFormatWriteArray(image, offset + 4, column, value as unknown[]);
  assert(end === offset + 4 + payloadBytes);
  return end;
}

function writeString(image: ImageWriter, offset: number, text: string): number {
  const utf16 = stringIsUtf16Stored(text);
  const written = image.buffer.write(text, offset + 4, utf16 ? 'utf16le' : 'utf8');
  // buffer.write stops short when space runs out; the accounting said it would not.
  assert(written === (utf16 ? text.length * 2 : Buffer.byteLength(text, 'utf8')));
  image.view.setUint32(offset, (written | (utf16 ? VAR_LENGTH_UTF16_FLAG : 0)) >>> 0, true);
  return offset + 4 + written;
}

/** Writes | count u32 | elements | at offset; returns the offset after it. */
export function blockFormatWriteArray(
  image: ImageWriter, offset: number, column: ColumnLayout, elements: readonly unknown[],
): number {
  image.view.setUint32(offset, elements.length, true);
  offset += 4;
  if (column.type === 'STRING') {
    for (const element of elements as string[]) offset = writeString(image, offset, element);
    return offset;
  }
  const elementBytes = arrayElementBytes(column);
  for (const element of elements) {
    writeArrayElement(image.view, offset, column, element);
    offset += elementBytes;
  }
  return offset;
}

function writeArrayElement(view: DataView, offset: number, column: ColumnLayout, element: unknown) {
  switch (column.type) {
    case 'BOOL': view.setUint8(offset, element === true ? 1 : 0); return;
    case 'BYTE': view.setInt8(offset, element as number); return;
    case 'SHORT': view.setInt16(offset, element as number, true); return;
    case 'INTEGER': view.setInt32(offset, element as number, true); return;
    case 'FLOAT': view.setFloat32(offset, element as number, true); return;
    case 'DOUBLE': view.setFloat64(offset, element as number, true); return;
    case 'LONG': view.setBigInt64(offset, element as bigint, true); return;
    case 'TIMESTAMP':
      if (column.timePrecision === 'NANOSECOND') setInt96(view, offset, element as bigint);
      else if (column.bigintTime) view.setBigInt64(offset, element as bigint, true);
      else view.setFloat64(offset, element as number, true);
      return;
    default: assert(false, `${column.type} cannot be an array element`);
  }
}

/** Bounds-checked reads over [0, endBytes) of an image; any overrun is corruption. */
export class BlockFormatReader {
  offset: number;
  readonly view: DataView;
  /** Reads the value of a large-value reference (decodeRowBlock's caller provides it). */
  readonly resolveLargeValue: LargeValueResolver | undefined;
  /** The column being read, for the resolver. */
  columnIndex = 0;
  /** The size of the block the image is of (a compact image is shorter). */
  readonly blockSizeBytes: number;

  constructor(
    readonly image: Uint8Array,
    private readonly endBytes: number,
    readonly fail: (problem: string) => StorageError,
    options: {
      offset?: number; resolveLargeValue?: LargeValueResolver | undefined; blockSizeBytes?: number;
    } = {},
  ) {
    this.view = new DataView(image.buffer, image.byteOffset, image.byteLength);
    this.offset = options.offset ?? ROW_BLOCK_HEADER_BYTES;
    this.resolveLargeValue = options.resolveLargeValue;
    this.blockSizeBytes = options.blockSizeBytes ?? image.byteLength;
  }

  take(sizeBytes: number): number {
    const at = this.offset;
    if (sizeBytes < 0 || at + sizeBytes > this.endBytes) {
      throw this.fail(`value at byte ${at} runs past the used bytes`);
    }
    this.offset += sizeBytes;
    return at;
  }

  bytes(sizeBytes: number): Uint8Array {
    const at = this.take(sizeBytes);
    return this.image.subarray(at, at + sizeBytes);
  }

  u32(): number {
    return this.view.getUint32(this.take(4), true);
  }
}

/** Reads a column's region into data (allocated for rowCount rows); returns its payload bytes. */
export function blockFormatReadColumn(reader: BlockFormatReader, region: ColumnRegion): number {
  const { column, data, rowCount } = region;
  if (column.nullable) {
    const bitmap = reader.bytes(Math.ceil(rowCount / 8));
    const nulls = data.nulls!;
    // The null map starts zeroed; most bitmap bytes are 0 (no NULL among their 8 rows).
    for (let byte = 0; byte < bitmap.length; byte++) {
      const bits = bitmap[byte]!;
      if (bits === 0) continue;
      const end = Math.min(rowCount, byte * 8 + 8);
      for (let i = byte * 8; i < end; i++) nulls[i] = (bits >> (i & 7)) & 1;
    }
  }
  if (column.storage === 'i96') {
    const at = reader.take(rowCount * 12);
    const values = data.values as Array<bigint | null>;
    for (let i = 0; i < rowCount; i++) {
      const isNull = data.nulls !== undefined && data.nulls[i] === 1;
      values.push(isNull ? null : getInt96(reader.view, at + i * 12));
    }
    return 0;
  }
  if (column.storage !== 'var') {
    const values = data.values as Float64Array;
    const raw = reader.bytes(rowCount * values.BYTES_PER_ELEMENT);
    new Uint8Array(values.buffer, values.byteOffset, raw.byteLength).set(raw);
    if (column.storage === 'u8' && raw.some((byte) => byte > 1)) {
      throw reader.fail('bad BOOL value');
    }
    return 0;
  }
  const values = data.values as StoredValue[];
  let payloadBytes = 0;
  for (let i = 0; i < rowCount; i++) {
    const isNull = data.nulls !== undefined && data.nulls[i] === 1;
    const value = blockFormatReadVarValue(reader, column, { isNull, rowIndex: i });
    values.push(value);
    payloadBytes += varPayloadBytes(column, value);
  }
  return payloadBytes;
}

/** Reads one | length u32 | payload | of a 'var' column at the reader's offset. */
export function blockFormatReadVarValue(
  reader: BlockFormatReader, column: ColumnLayout, at: { isNull: boolean; rowIndex: number },
): StoredValue {
  const prefix = reader.u32();
  if (at.isNull) {
    if (prefix !== 0) throw reader.fail('NULL with a payload');
    return null;
  }
  if ((prefix & VAR_LENGTH_LARGE_FLAG) !== 0) {
    return readLargeValueRef(reader, column, { prefix, rowIndex: at.rowIndex });
  }
  return readVarValue(reader, column, prefix);
}

function readVarValue(reader: BlockFormatReader, column: ColumnLayout, prefix: number): Value {
  if (!column.array) {
    if (column.type === 'BLOB') return reader.bytes(prefix).slice();
    if (column.type === 'GEOMETRY') return readGeometry(reader, prefix);
    return readString(reader, prefix);
  }
  const lengthBytes = prefix;
  const end = reader.offset + lengthBytes;
  const value = blockFormatReadArray(reader, column);
  if (reader.offset !== end) throw reader.fail(`array of ${lengthBytes} bytes misread`);
  return value;
}

/** A reference (writeLargeValueRef draws it): the resolver reads the value of its chain. */
function readLargeValueRef(
  reader: BlockFormatReader, column: ColumnLayout, at: { prefix: number; rowIndex: number },
): LargeValue {
  if ((at.prefix & ~VAR_LENGTH_LARGE_FLAG) !== LARGE_VALUE_REF_BYTES) {
    throw reader.fail(`large-value reference of ${at.prefix & VAR_LENGTH_MASK} bytes`);
  }
  const offset = reader.take(LARGE_VALUE_REF_BYTES);
  const { view } = reader;
  const kind = view.getUint8(offset) as LargeValueKind;
  const sizeBytes = view.getUint32(offset + 4, true);
  const firstBlockId = view.getUint32(offset + 8, true);
  const blockCount = view.getUint32(offset + 12, true);
  const where = `column ${reader.columnIndex} row ${at.rowIndex}`;
  if (!largeValueKindFits(column, kind) || view.getUint8(offset + 1) !== 0 ||
    view.getUint16(offset + 2, true) !== 0) {
    throw reader.fail(`${where}: bad large-value reference kind ${kind}`);
  }
  if (sizeBytes <= LARGE_VALUE_REF_BYTES ||
    blockCount !== largeValueBlockCount(sizeBytes, reader.blockSizeBytes)) {
    throw reader.fail(`${where}: large value of ${sizeBytes} bytes in ${blockCount} blocks`);
  }
  assert(reader.resolveLargeValue !== undefined,
    'decoding a row block with large-value references needs a resolver');
  const value = reader.resolveLargeValue({
    kind, sizeBytes, blockCount, columnIndex: reader.columnIndex, rowIndex: at.rowIndex,
    firstBlockId: firstBlockId === LARGE_VALUE_BLOCK_ID_NONE ? undefined : toBlockId(firstBlockId),
  });
  if (value instanceof LargeValue) {
    // A block reloaded from its image: the value is the one its chain's blocks hold in memory.
    if (value.kind !== kind || value.sizeBytes !== sizeBytes) {
      throw reader.fail(`${where}: the large value in memory does not match its reference`);
    }
    return value;
  }
  if (column.type === 'GEOMETRY' && !column.array && value !== null) {
    // Legacy text keeps its chain: the LargeValue turns it into a GeometryValue when read.
    const read = largeGeometry(reader, kind, value);
    if (read.sizeBytes !== sizeBytes) {
      throw reader.fail(`${where}: the large value read does not match its reference`);
    }
    return new LargeValue(kind, sizeBytes, read.geometry, kind !== LargeValueKind.GEOMETRY);
  }
  if (value === null || largeValueKindOf(column, value) !== kind ||
    varPayloadBytes(column, value) !== sizeBytes) {
    throw reader.fail(`${where}: the large value read does not match its reference`);
  }
  return new LargeValue(kind, sizeBytes, value);
}

/**
 * A GEOMETRY payload: the binary encoding (first byte 0x01), or WKT text as blocks held it before
 * (first byte a letter). The text stays a string: the block's sizes, and the space its image takes
 * in a shared page, are those of the text, and a block must read back to the sizes it was written
 * with. Its rows take the binary form when they are written again; until then a query parses the
 * text, as it always did (spatial-value.ts geometryArgument, index-spatial.ts).
 */
function readGeometry(reader: BlockFormatReader, prefix: number): GeometryValue | string {
  const raw = reader.bytes(prefix & VAR_LENGTH_MASK);
  if (raw[0] !== GEOMETRY_BINARY_TAG || (prefix & VAR_LENGTH_UTF16_FLAG) !== 0) {
    return textOf(reader, prefix, raw);
  }
  const value = geometryValueFromBytes(raw); // copied into the value
  if (!isGeometryValue(value)) throw reader.fail(`column ${reader.columnIndex}: ${value.problem}`);
  return value;
}

/** The geometry a large value's chain held: binary, or WKT text (STRING_UTF8) written before. */
function largeGeometry(
  reader: BlockFormatReader, kind: LargeValueKind, value: Value,
): { geometry: GeometryValue | string; sizeBytes: number } {
  if (kind === LargeValueKind.GEOMETRY) {
    if (!isGeometryValue(value)) throw reader.fail('a large GEOMETRY that is not one');
    return { geometry: value, sizeBytes: value.sizeBytes };
  }
  if (typeof value !== 'string') throw reader.fail('a large GEOMETRY text that is not text');
  return { geometry: legacyGeometry(value), sizeBytes: Buffer.byteLength(value, 'utf8') };
}

function textOf(reader: BlockFormatReader, prefix: number, raw: Uint8Array): string {
  const utf16 = (prefix & VAR_LENGTH_UTF16_FLAG) !== 0;
  const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (utf16 && raw.byteLength % 2 !== 0) throw reader.fail('odd UTF-16 string length');
  return buffer.toString(utf16 ? 'utf16le' : 'utf8');
}

function readString(reader: BlockFormatReader, prefix = reader.u32()): string {
  const utf16 = (prefix & VAR_LENGTH_UTF16_FLAG) !== 0;
  const raw = reader.bytes(prefix & VAR_LENGTH_MASK);
  const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (utf16 && raw.byteLength % 2 !== 0) throw reader.fail('odd UTF-16 string length');
  return buffer.toString(utf16 ? 'utf16le' : 'utf8');
}

/** Reads | count u32 | elements | (an array column's payload). */
export function blockFormatReadArray(reader: BlockFormatReader, column: ColumnLayout): Value {
  const count = reader.u32();
  if (column.type === 'STRING') {
    const strings: string[] = [];
    for (let i = 0; i < count; i++) strings.push(readString(reader));
    return strings;
  }
  const elementBytes = arrayElementBytes(column);
  const at = reader.take(count * elementBytes);
  const elements: unknown[] = [];
  for (let i = 0; i < count; i++) {
    elements.push(readArrayElement(reader.view, at + i * elementBytes, column));
  }
  return elements as Value;
}

function readArrayElement(view: DataView, offset: number, column: ColumnLayout): unknown {
  switch (column.type) {
    case 'BOOL': return view.getUint8(offset) !== 0;
    case 'BYTE': return view.getInt8(offset);
    case 'SHORT': return view.getInt16(offset, true);
    case 'INTEGER': return view.getInt32(offset, true);
    case 'FLOAT': return view.getFloat32(offset, true);
    case 'DOUBLE': return view.getFloat64(offset, true);
    case 'LONG': return view.getBigInt64(offset, true);
    case 'TIMESTAMP':
      if (column.timePrecision === 'NANOSECOND') return getInt96(view, offset);
      return column.bigintTime ? view.getBigInt64(offset, true) : view.getFloat64(offset, true);
    default: assert(false, `${column.type} cannot be an array element`);
  }
}

/** TIMESTAMP(ns): a 96-bit two's complement integer, | low u64 | high i32 |, little-endian. */
function setInt96(view: DataView, offset: number, value: bigint): void {
  view.setBigUint64(offset, BigInt.asUintN(64, value), true);
  view.setInt32(offset + 8, Number(value >> 64n), true);
}

export function getInt96(view: DataView, offset: number): bigint {
  return (BigInt(view.getInt32(offset + 8, true)) << 64n) | view.getBigUint64(offset, true);
}
