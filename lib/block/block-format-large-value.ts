// Large-value block images: the chain of blocks a value kept out of line takes (large-value.ts);
// what a checkpoint will write for it and read back.
//
/**
 * Large-value block image, little-endian, exactly blockSizeBytes long. A value of total size S
 * takes a chain of ⌈S / (blockSizeBytes − 32)⌉ of them, each holding the next chunk of its payload:
 *
 *   offset size
 *    0     2   magic 0x564C ("LV")
 *    2     2   format version (LARGE_VALUE_FORMAT_VERSION)
 *    4     4   checksum: CRC-32C of bytes [8, 32 + chunk bytes) — the rest of the header and chunk
 *    8     1   kind (2 = large value; 1 is a row block)
 *    9     1   value kind (LargeValueKind: how the payload decodes)
 *   10     2   zero
 *   12     4   owner container id
 *   16     4   sequence number: this block's place in the chain, from 0
 *   20     4   total size: payload bytes of the whole value
 *   24     4   this block's id (0xFFFF_FFFF: not placed)
 *   28     4   next block id in the chain (0xFFFF_FFFF: the last block, or not placed)
 *   32         chunk: payload bytes [sequence × (blockSizeBytes − 32), +chunk bytes); every chunk
 *              but the last is full
 *   32 + chunk bytes … blockSizeBytes: zero, outside the checksum (a compressed slot drops it)
 *
 * The payload is what the value would be inline after its length prefix (block-format.ts): BLOB
 * the bytes; GEOMETRY its binary encoding (geometry-binary.ts); STRING_UTF8 / STRING_UTF16 the
 * string as UTF-8 / UTF-16LE (and a GEOMETRY's WKT text, as chains held it before); ARRAY_* | count u32 |
 * elements |, elements packed as in a row block. The value's row holds a reference naming value
 * kind, total size, first block id and block count. Bump LARGE_VALUE_FORMAT_VERSION to change this.
 */

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { ContainerId } from '../base/ids.ts';
import { crc32c } from '../encoding/crc32c.ts';
import {
  geometryValueFromBytes, isGeometryValue, type GeometryValue,
} from '../geometry/geometry-value.ts';
import type { Value } from '../schema/column-type.ts';
import {
  blockFormatReadArray, blockFormatWriteArray, BlockFormatReader,
} from './block-format-column.ts';
import {
  LARGE_VALUE_BLOCK_HEADER_BYTES, largeValueBlockCount, largeValueChunkBytesMax, LargeValueKind,
  type LargeValue, type LargeValueRef,
} from './large-value.ts';
import { largeValueArrayColumn } from './row-block-layout.ts';

export const LARGE_VALUE_MAGIC = 0x564c;
export const LARGE_VALUE_FORMAT_VERSION = 1;
export const BLOCK_KIND_LARGE_VALUE = 2;
const BLOCK_ID_NONE = 0xffff_ffff;
const CHECKSUM_FROM_OFFSET = 8;

/**
 * The chain of block images of a large value, first to last, each exactly blockSizeBytes. Block ids
 * are the value's chain when it was placed, else "not placed".
 */
export function encodeLargeValueBlocks(
  value: LargeValue, owner: { containerId: ContainerId; blockSizeBytes: number },
): Uint8Array[] {
  const payload = largeValuePayload(value);
  const blockCount = largeValueBlockCount(value.sizeBytes, owner.blockSizeBytes);
  const images: Uint8Array[] = [];
  for (let sequence = 0; sequence < blockCount; sequence++) {
    images.push(encodeLargeValueBlock(value, { ...owner, sequence, payload }));
  }
  return images;
}

/**
 * Block `sequence` of a large value's chain, exactly blockSizeBytes. payload is
 * largeValuePayload(value), which a caller encoding several blocks of one value computes once.
 */
export function encodeLargeValueBlock(
  value: LargeValue,
  at: { containerId: ContainerId; blockSizeBytes: number; sequence: number; payload: Uint8Array },
): Uint8Array {
  const { containerId, blockSizeBytes, sequence, payload } = at;
  assert(containerId >= 0 && containerId <= 0xffff_ffff);
  assert(payload.byteLength === value.sizeBytes, 'large value payload is not its size');
  const blockCount = largeValueBlockCount(value.sizeBytes, blockSizeBytes);
  if (value.blockIds.length > 0) assert(value.blockIds.length === blockCount);
  assert(sequence >= 0 && sequence < blockCount);
  const chunkBytesMax = largeValueChunkBytesMax(blockSizeBytes);
  const chunk = payload.subarray(sequence * chunkBytesMax, (sequence + 1) * chunkBytesMax);
  const bytes = new Uint8Array(blockSizeBytes);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, LARGE_VALUE_MAGIC, true);
  view.setUint16(2, LARGE_VALUE_FORMAT_VERSION, true);
  view.setUint8(8, BLOCK_KIND_LARGE_VALUE);
  view.setUint8(9, value.kind);
  view.setUint32(12, containerId, true);
  view.setUint32(16, sequence, true);
  view.setUint32(20, value.sizeBytes, true);
  view.setUint32(24, value.blockIds[sequence] ?? BLOCK_ID_NONE, true);
  view.setUint32(28, value.blockIds[sequence + 1] ?? BLOCK_ID_NONE, true);
  bytes.set(chunk, LARGE_VALUE_BLOCK_HEADER_BYTES);
  const usedBytes = LARGE_VALUE_BLOCK_HEADER_BYTES + chunk.byteLength;
  view.setUint32(4, crc32c(bytes.subarray(CHECKSUM_FROM_OFFSET, usedBytes)), true);
  return bytes;
}

/** The bytes a large value's chain holds: what the value would be inline after its length. */
export function largeValuePayload(large: LargeValue): Uint8Array {
  const { kind, value } = large;
  if (kind === LargeValueKind.BLOB) return value as Uint8Array;
  if (kind === LargeValueKind.GEOMETRY) return (value as GeometryValue).bytes;
  // A GEOMETRY whose chain was written as WKT text before the binary encoding keeps it.
  if (kind === LargeValueKind.STRING_UTF8) {
    return Buffer.from(isGeometryValue(value) ? value.wkt : value as string, 'utf8');
  }
  if (kind === LargeValueKind.STRING_UTF16) return Buffer.from(value as string, 'utf16le');
  const column = largeValueArrayColumn(kind);
  assert(column !== undefined, `large value kind ${kind}`);
  const bytes = new Uint8Array(large.sizeBytes);
  const image = {
    view: new DataView(bytes.buffer), buffer: Buffer.from(bytes.buffer, 0, bytes.byteLength),
  };
  const end = blockFormatWriteArray(image, 0, column, value as unknown[]);
  assert(end === large.sizeBytes);
  return bytes;
}

/**
 * The value a chain of large-value block images holds, checked against the reference that named
 * it when given. Anything wrong with the bytes, or a chain that does not match, is CORRUPTION.
 */
export function decodeLargeValue(blocks: readonly Uint8Array[], ref?: LargeValueRef): Value {
  if (blocks.length === 0) throw new StorageError('CORRUPTION', 'large value: empty block chain');
  const first = largeValueBlockHeader(blocks[0]!, 0);
  const blockSizeBytes = blocks[0]!.byteLength;
  const name = `large value at block ${idName(first.blockId)} of container ${first.containerId}`;
  const fail = (problem: string) => new StorageError('CORRUPTION', `${name}: ${problem}`);
  if (blocks.length !== largeValueBlockCount(first.sizeBytes, blockSizeBytes)) {
    throw fail(`${blocks.length} blocks for ${first.sizeBytes} bytes`);
  }
  if (ref !== undefined) {
    const firstMatches = ref.firstBlockId === undefined || ref.firstBlockId === first.blockId;
    if (ref.kind !== first.kind || ref.sizeBytes !== first.sizeBytes || !firstMatches ||
      ref.blockCount !== blocks.length) {
      throw fail('the chain does not match its reference');
    }
  }
  const payload = new Uint8Array(first.sizeBytes);
  const chunkBytesMax = largeValueChunkBytesMax(blockSizeBytes);
  for (let sequence = 0; sequence < blocks.length; sequence++) {
    const bytes = blocks[sequence]!;
    if (bytes.byteLength !== blockSizeBytes) throw fail(`block ${sequence} is another size`);
    const header = sequence === 0 ? first : largeValueBlockHeader(bytes, sequence);
    if (header.kind !== first.kind || header.sizeBytes !== first.sizeBytes ||
      header.containerId !== first.containerId) {
      throw fail(`block ${sequence} belongs to another value`);
    }
    const next = blocks[sequence + 1];
    const nextId = next === undefined ? BLOCK_ID_NONE : readU32(next, 24);
    if (header.nextBlockId !== nextId) throw fail(`block ${sequence} does not link to the next`);
    payload.set(header.chunk, sequence * chunkBytesMax);
  }
  return largeValueOfPayload(first.kind, payload, fail);
}

interface LargeValueBlockHeader {
  kind: number;
  containerId: number;
  sizeBytes: number;
  blockId: number;
  nextBlockId: number;
  chunk: Uint8Array;
}

/** Header and chunk of one image, its checksum verified, as block `sequence` of a chain. */
function largeValueBlockHeader(bytes: Uint8Array, sequence: number): LargeValueBlockHeader {
  const hint = bytes.byteLength >= LARGE_VALUE_BLOCK_HEADER_BYTES
    ? readU32(bytes, 24)
    : BLOCK_ID_NONE;
  const fail = (problem: string) => new StorageError('CORRUPTION',
    `large-value block ${idName(hint)} (unverified), chain position ${sequence}: ${problem}`);
  if (bytes.byteLength <= LARGE_VALUE_BLOCK_HEADER_BYTES) {
    throw fail(`${bytes.byteLength} bytes is too short`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint16(0, true);
  if (magic !== LARGE_VALUE_MAGIC) throw fail(`bad magic 0x${magic.toString(16)}`);
  const version = view.getUint16(2, true);
  if (version !== LARGE_VALUE_FORMAT_VERSION) throw fail(`unknown format version ${version}`);
  const sizeBytes = view.getUint32(20, true);
  const chunkBytesMax = largeValueChunkBytesMax(bytes.byteLength);
  const chunkBytes = Math.min(chunkBytesMax, sizeBytes - sequence * chunkBytesMax);
  if (chunkBytes <= 0) throw fail(`no chunk of a ${sizeBytes}-byte value here`);
  const usedBytes = LARGE_VALUE_BLOCK_HEADER_BYTES + chunkBytes;
  if (crc32c(bytes.subarray(CHECKSUM_FROM_OFFSET, usedBytes)) !== view.getUint32(4, true)) {
    throw fail('checksum mismatch');
  }
  if (view.getUint8(8) !== BLOCK_KIND_LARGE_VALUE || view.getUint16(10, true) !== 0) {
    throw fail(`kind ${view.getUint8(8)} is not a large-value block`);
  }
  if (view.getUint32(16, true) !== sequence) {
    throw fail(`sequence number ${view.getUint32(16, true)} out of place`);
  }
  return {
    kind: view.getUint8(9), containerId: view.getUint32(12, true), sizeBytes,
    blockId: view.getUint32(24, true), nextBlockId: view.getUint32(28, true),
    chunk: bytes.subarray(LARGE_VALUE_BLOCK_HEADER_BYTES, usedBytes),
  };
}

function largeValueOfPayload(
  kind: number, payload: Uint8Array, fail: (problem: string) => StorageError,
): Value {
  if (kind === LargeValueKind.BLOB) return payload;
  if (kind === LargeValueKind.GEOMETRY) {
    const geometry = geometryValueFromBytes(payload); // copied into the value
    if (!isGeometryValue(geometry)) throw fail(geometry.problem);
    return geometry;
  }
  const text = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (kind === LargeValueKind.STRING_UTF8) return text.toString('utf8');
  if (kind === LargeValueKind.STRING_UTF16) {
    if (payload.byteLength % 2 !== 0) throw fail('odd UTF-16 string length');
    return text.toString('utf16le');
  }
  const column = largeValueArrayColumn(kind as LargeValueKind);
  if (column === undefined) throw fail(`unknown value kind ${kind}`);
  const reader = new BlockFormatReader(payload, payload.byteLength, fail, { offset: 0 });
  const value = blockFormatReadArray(reader, column);
  if (reader.offset !== payload.byteLength) throw fail('array shorter than its size');
  return value;
}

function readU32(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(offset, true);
}

function idName(blockId: number): string {
  return blockId === BLOCK_ID_NONE ? '(not placed)' : String(blockId);
}
