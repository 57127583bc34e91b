// The row block image: what a checkpoint or a swap write puts in a block slot, and reads back.
// Large values kept out of line have images of their own (block-format-large-value.ts, re-exported
// here).
//
/**
 * Row block image, little-endian, exactly blockSizeBytes long:
 *
 *   offset size
 *    0     2   magic 0x5242 ("RB")
 *    2     2   format version (ROW_BLOCK_FORMAT_VERSION)
 *    4     4   checksum: CRC-32C of bytes [8, usedBytes) — the rest of the header and the body
 *    8     1   kind (1 = row block)
 *    9     1   flags (bit 0: keyless; a rowId column leads the body)
 *   10     2   column count
 *   12     4   owner container id
 *   16     4   block id (0xFFFF_FFFF: not placed yet)
 *   20     4   row count
 *   24     4   used bytes (header + body)
 *   28     4   schema version of the owner when written
 *   32         body:
 *     [rowIds   rowCount × f64]                                       keyless only
 *     per column, in schema order:
 *       [null bitmap ⌈rowCount / 8⌉ bytes; bit i % 8 of byte ⌊i / 8⌋ set: row i is NULL]  nullable
 *       fixed: rowCount × value  BOOL u8 (0/1), BYTE i8, SHORT i16, INTEGER i32, LONG i64,
 *                                FLOAT f32, DOUBLE f64, TIMESTAMP(ms) f64, TIMESTAMP(µs) i64,
 *                                TIMESTAMP(ns) i96 = | low u64 | high i32 | (year 9999 > 2^63 ns)
 *       var:   rowCount × | length u32 | payload |
 *              STRING: UTF-8; when the string holds a lone surrogate, UTF-16LE and
 *                bit 31 of length set. GEOMETRY: its binary form, first byte 0x01
 *                (lib/geometry/geometry-binary.ts), or, written before it, WKT text as UTF-8
 *                (first byte a letter; read back as text, block-format-column.ts says why).
 *                BLOB: the bytes. Array: | count u32 | elements | with fixed
 *                elements packed as above and STRING elements each | length u32 | payload |.
 *              A value kept out of line (large-value.ts) is a 16-byte reference instead, bit 30
 *                of length set (version 2):
 *                | length u32 = 0x4000_0010 | value kind u8 | zero u8 × 3 | total size u32 |
 *                | first large-value block id u32 (0xFFFF_FFFF: not placed) | block count u32 |
 *                total size is the payload bytes the value would have inline; block count is
 *                ⌈total size / (blockSizeBytes − 32)⌉, the chain's length.
 *   usedBytes … blockSizeBytes: zero, outside the checksum (a compressed or punched slot drops it).
 *
 * The compact image is the same bytes cut at usedBytes (encodeRowBlockCompact): a shared page
 * (block-format-shared.ts) packs its tenants so. Its block size is the page's, not its length.
 *
 * A NULL is a set bitmap bit with a zero fixed slot or a zero-length var value. Body sizes are the
 * arithmetic of row-block-layout.ts, which RowBlock.usedBytes tracks. Bump ROW_BLOCK_FORMAT_VERSION
 * to change any of this; decodeRowBlock refuses versions it does not know (version 1 never
 * reached a disk: checkpoints did not write blocks yet).
 */

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { containerId as toContainerId, type BlockId, type ContainerId } from '../base/ids.ts';
import { crc32c } from '../encoding/crc32c.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import { RowBlock } from './row-block.ts';
import {
  blockFormatReadColumn, blockFormatWriteColumn, BlockFormatReader,
} from './block-format-column.ts';
import type { LargeValueResolver } from './large-value.ts';
import { blockLayout, ROW_BLOCK_HEADER_BYTES } from './row-block-layout.ts';

export {
  BLOCK_KIND_LARGE_VALUE, decodeLargeValue, encodeLargeValueBlocks, LARGE_VALUE_FORMAT_VERSION,
  LARGE_VALUE_MAGIC,
} from './block-format-large-value.ts';
export type { LargeValueRef, LargeValueResolver } from './large-value.ts';

export const ROW_BLOCK_MAGIC = 0x5242;
/** 2: large-value references. */
export const ROW_BLOCK_FORMAT_VERSION = 2;
export const BLOCK_KIND_ROW = 1;
const FLAG_KEYLESS = 1;
const BLOCK_ID_NONE = 0xffff_ffff;
const CHECKSUM_FROM_OFFSET = 8;

// Fixed columns are copied as raw typed-array bytes, which are little-endian only on such hosts.
const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
assert(HOST_LITTLE_ENDIAN, 'block images need a little-endian host');

/**
 * The image of a row block: exactly blockSizeBytes, zero after usedBytes. Written into `into` (a
 * pooled buffer of blockSizeBytes) when given, else into a new buffer.
 */
export function encodeRowBlock(block: RowBlock, into?: Uint8Array): Uint8Array {
  if (into !== undefined) assert(into.byteLength === block.blockSizeBytes);
  const bytes = into?.fill(0) ?? new Uint8Array(block.blockSizeBytes);
  writeRowBlockImage(block, bytes.subarray(0, block.usedBytes));
  return bytes;
}

/** The compact image, into `into` of exactly usedBytes (a tenant's place in a shared page). */
export function encodeRowBlockCompact(block: RowBlock, into: Uint8Array): Uint8Array {
  assert(into.byteLength === block.usedBytes, 'compact image room is not the used bytes');
  writeRowBlockImage(block, into.fill(0));
  return into;
}

/** Writes the image's used bytes into `bytes`, zeroed and exactly usedBytes long. */
function writeRowBlockImage(block: RowBlock, bytes: Uint8Array): void {
  const usedBytes = block.usedBytes;
  assert(usedBytes <= block.blockSizeBytes, 'row block larger than its block');
  assert(bytes.byteLength === usedBytes);
  assert(block.containerId >= 0 && block.containerId <= 0xffff_ffff);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { layout } = block;
  view.setUint16(0, ROW_BLOCK_MAGIC, true);
  view.setUint16(2, ROW_BLOCK_FORMAT_VERSION, true);
  view.setUint8(8, BLOCK_KIND_ROW);
  view.setUint8(9, layout.keyless ? FLAG_KEYLESS : 0);
  view.setUint16(10, layout.columns.length, true);
  view.setUint32(12, block.containerId, true);
  view.setUint32(16, block.blockId ?? BLOCK_ID_NONE, true);
  view.setUint32(20, block.rowCount, true);
  view.setUint32(24, usedBytes, true);
  view.setUint32(28, layout.schema.schemaVersion, true);
  let offset = ROW_BLOCK_HEADER_BYTES;
  if (block.rowIds !== undefined) {
    offset = copyBytes(bytes, offset, block.rowIds.subarray(0, block.rowCount));
  }
  const blockSizeBytes = block.blockSizeBytes;
  for (let c = 0; c < layout.columns.length; c++) {
    offset = blockFormatWriteColumn(bytes, offset, {
      column: layout.columns[c]!, data: block.columns[c]!, rowCount: block.rowCount,
      blockSizeBytes,
    });
  }
  assert(offset === usedBytes, `row block image is ${offset} bytes, accounted ${usedBytes}`);
  view.setUint32(4, crc32c(bytes.subarray(CHECKSUM_FROM_OFFSET, usedBytes)), true);
}

function copyBytes(bytes: Uint8Array, offset: number, values: Float64Array): number {
  bytes.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), offset);
  return offset + values.byteLength;
}

/** What a row block image's header says, its checksum verified. */
export interface RowBlockImageHeader {
  kind: number;
  keyless: boolean;
  columnCount: number;
  containerId: ContainerId;
  /** undefined: written before the block was placed. */
  blockId: BlockId | undefined;
  rowCount: number;
  usedBytes: number;
  schemaVersion: number;
}

/**
 * Checks an image's magic, version, used bytes and checksum, and reads its header; needs no
 * schema, so recovery can find the owner first. CORRUPTION names the block: blockId when the
 * caller knows it, else the image's own (unverified).
 */
export function rowBlockImageHeader(bytes: Uint8Array, blockId?: BlockId): RowBlockImageHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Before the checksum is verified, the image's own block id is only a hint. The name is built
  // only on failure: every swap read comes here.
  const name = () => (blockId !== undefined ? `block ${blockId}`
    : bytes.byteLength >= ROW_BLOCK_HEADER_BYTES ? `block ${view.getUint32(16, true)} (unverified)`
      : 'block ?');
  const corrupt = (problem: string) => new StorageError('CORRUPTION', `${name()}: ${problem}`);
  if (bytes.byteLength < ROW_BLOCK_HEADER_BYTES) {
    throw corrupt(`${bytes.byteLength} bytes is too short`);
  }
  const magic = view.getUint16(0, true);
  if (magic !== ROW_BLOCK_MAGIC) throw corrupt(`bad magic 0x${magic.toString(16)}`);
  const version = view.getUint16(2, true);
  if (version !== ROW_BLOCK_FORMAT_VERSION) throw corrupt(`unknown format version ${version}`);
  const usedBytes = view.getUint32(24, true);
  if (usedBytes < ROW_BLOCK_HEADER_BYTES || usedBytes > bytes.byteLength) {
    throw corrupt(`used bytes ${usedBytes} outside the ${bytes.byteLength}-byte block`);
  }
  const checksum = crc32c(bytes.subarray(CHECKSUM_FROM_OFFSET, usedBytes));
  if (checksum !== view.getUint32(4, true)) throw corrupt('checksum mismatch');
  const id = view.getUint32(16, true);
  return {
    kind: view.getUint8(8),
    keyless: (view.getUint8(9) & FLAG_KEYLESS) !== 0,
    columnCount: view.getUint16(10, true),
    containerId: toContainerId(view.getUint32(12, true)),
    blockId: id === BLOCK_ID_NONE ? undefined : (id as BlockId),
    rowCount: view.getUint32(20, true),
    usedBytes,
    schemaVersion: view.getUint32(28, true),
  };
}

/**
 * Reads a row block image written for this schema. Anything wrong with the bytes is the disk's
 * fault: StorageError CORRUPTION naming the block (blockId when the caller knows it, else the
 * image's own).
 *
 * A reference to a large value is read through resolveLargeValue, synchronously: the caller reads
 * the chain the reference names (LargeValueRef.firstBlockId, blockCount) and returns
 * decodeLargeValue of it, whose CORRUPTION then propagates. Decoding checks the value against the
 * reference (kind, size), and the block holds it as an unplaced LargeValue, which
 * RowStore.restoreBlock places anew. Without a resolver, an image holding a reference is a
 * programmer error (assert): whoever decodes images of containers with variable-length columns
 * must be able to read their chains.
 */
export function decodeRowBlock(
  schema: ContainerSchema, bytes: Uint8Array, blockId?: BlockId,
  resolveLargeValue?: LargeValueResolver,
): RowBlock {
  return decodeRowBlockImage(schema, bytes,
    { blockSizeBytes: bytes.byteLength, blockId, resolveLargeValue });
}

/** decodeRowBlock of a compact image (exactly its used bytes) of a block of blockSizeBytes. */
export function decodeRowBlockCompact(
  schema: ContainerSchema, bytes: Uint8Array,
  options: { blockSizeBytes: number; blockId?: BlockId; resolveLargeValue?: LargeValueResolver },
): RowBlock {
  assert(bytes.byteLength <= options.blockSizeBytes);
  return decodeRowBlockImage(schema, bytes, options);
}

function decodeRowBlockImage(
  schema: ContainerSchema, bytes: Uint8Array,
  options: {
    blockSizeBytes: number; blockId?: BlockId | undefined;
    resolveLargeValue?: LargeValueResolver | undefined;
  },
): RowBlock {
  const { blockSizeBytes, blockId } = options;
  const header = rowBlockImageHeader(bytes, blockId);
  const imageName = `block ${blockId ?? header.blockId} of container ${header.containerId}`;
  const fail = (problem: string) => new StorageError('CORRUPTION', `${imageName}: ${problem}`);
  const layout = blockLayout(schema);
  if (header.kind !== BLOCK_KIND_ROW) throw fail(`kind ${header.kind} is not a row block`);
  if (header.columnCount !== layout.columns.length || header.keyless !== layout.keyless) {
    throw fail(`${header.columnCount} columns do not match schema ${schema.name}`);
  }
  if (bytes.byteLength !== blockSizeBytes && header.usedBytes !== bytes.byteLength) {
    throw fail(`compact image of ${bytes.byteLength} bytes, header says ${header.usedBytes}`);
  }
  const block = new RowBlock({
    layout, containerId: header.containerId, blockSizeBytes,
    capacityRows: Math.max(1, header.rowCount),
  });
  if (header.rowCount > 0 && !block.fits(header.rowCount, 0)) {
    throw fail(`${header.rowCount} rows cannot fit`);
  }
  const reader = new BlockFormatReader(bytes, header.usedBytes, fail,
    { resolveLargeValue: options.resolveLargeValue, blockSizeBytes });
  decodeRowBlockBody(block, reader, header.rowCount);
  if (block.usedBytes !== header.usedBytes) {
    throw fail(`body is ${block.usedBytes} bytes, header says ${header.usedBytes}`);
  }
  block.blockId = header.blockId;
  for (let i = 1; i < block.rowCount; i++) {
    if (block.compareAt(i - 1, block.keyAt(i)) >= 0) throw fail(`keys not increasing at row ${i}`);
  }
  return block;
}

function decodeRowBlockBody(block: RowBlock, reader: BlockFormatReader, rowCount: number): void {
  const { layout } = block;
  if (block.rowIds !== undefined) {
    const raw = reader.bytes(rowCount * 8);
    new Uint8Array(block.rowIds.buffer, block.rowIds.byteOffset, raw.byteLength).set(raw);
    for (let i = 0; i < rowCount; i++) {
      const rowId = block.rowIds[i]!;
      if (!Number.isSafeInteger(rowId) || rowId < 0) throw reader.fail(`bad rowId at row ${i}`);
    }
  }
  let payloadBytes = 0;
  for (let c = 0; c < layout.columns.length; c++) {
    reader.columnIndex = c;
    payloadBytes += blockFormatReadColumn(reader,
      { column: layout.columns[c]!, data: block.columns[c]!, rowCount });
  }
  block.rowCount = rowCount;
  block.varPayloadBytes = payloadBytes;
}
