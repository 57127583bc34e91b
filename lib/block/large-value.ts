// A large value: a variable-length value (BLOB, STRING, GEOMETRY, array) kept out of line. Its row
// holds this object in place of the value; the row block counts only the fixed-size reference
// (LARGE_VALUE_REF_BYTES), and the value's bytes live in a chain of large-value blocks of the
// partition's BlockSpace (large-value-store.ts places them; block-format-large-value.ts draws
// them).
//
// In memory the value itself stays a JS value, shared and read-only like any value read from a
// block. The object moves with its row between blocks (splits, merges), so it is never copied.

import { assert } from '../base/assert.ts';
import type { BlockId } from '../base/ids.ts';
import { StorageError } from '../base/errors.ts';
import { isGeometryValue, legacyGeometry, type GeometryValue } from '../geometry/geometry-value.ts';
import type { Value } from '../schema/column-type.ts';

/**
 * How a large value's payload bytes decode into a JS value; a reference and every block of its
 * chain carry it. Arrays carry their element type, so a chain decodes without its schema.
 */
export const LargeValueKind = {
  BLOB: 1,
  STRING_UTF8: 2,
  /** A string holding a lone surrogate, which UTF-8 cannot hold. */
  STRING_UTF16: 3,
  /** A GEOMETRY's binary encoding (geometry-binary.ts). Written before it: STRING_UTF8 WKT. */
  GEOMETRY: 4,
  ARRAY_BOOL: 0x10,
  ARRAY_BYTE: 0x11,
  ARRAY_SHORT: 0x12,
  ARRAY_INTEGER: 0x13,
  ARRAY_LONG: 0x14,
  ARRAY_FLOAT: 0x15,
  ARRAY_DOUBLE: 0x16,
  ARRAY_TIMESTAMP_MS: 0x17,
  ARRAY_TIMESTAMP_US: 0x18,
  ARRAY_TIMESTAMP_NS: 0x19,
  ARRAY_STRING: 0x1a,
} as const;
export type LargeValueKind = (typeof LargeValueKind)[keyof typeof LargeValueKind];

/** Bytes of a reference in a row block, after its length prefix: kind, size, first block, count. */
export const LARGE_VALUE_REF_BYTES = 16;
/** The header of each large-value block (block-format-large-value.ts); the rest holds payload. */
export const LARGE_VALUE_BLOCK_HEADER_BYTES = 32;

/** Payload bytes one large-value block holds. */
export function largeValueChunkBytesMax(blockSizeBytes: number): number {
  assert(blockSizeBytes > LARGE_VALUE_BLOCK_HEADER_BYTES);
  return blockSizeBytes - LARGE_VALUE_BLOCK_HEADER_BYTES;
}

/** Blocks in the chain of a large value of sizeBytes. */
export function largeValueBlockCount(sizeBytes: number, blockSizeBytes: number): number {
  assert(sizeBytes > 0);
  return Math.ceil(sizeBytes / largeValueChunkBytesMax(blockSizeBytes));
}

/** Reads an evicted value back from its chain's images (BlockSpace, a swap read per block). */
export type LargeValueLoader = (value: LargeValue) => Exclude<Value, null>;

export class LargeValue {
  /** The chain the LargeValueStore placed the value in, first to last; empty until placed. */
  blockIds: BlockId[] = [];
  private held: Exclude<Value, null> | undefined;
  /** Set while the value is evicted: how to read it back. */
  private loader: LargeValueLoader | undefined;

  constructor(
    readonly kind: LargeValueKind,
    /** Payload bytes of the value: what an inline value's length prefix would say. */
    readonly sizeBytes: number,
    value: Exclude<Value, null>,
    /**
     * A GEOMETRY whose chain holds WKT text (STRING_UTF8), written before the binary encoding:
     * the chain stays as it is, and the text it reads back becomes a GeometryValue.
     */
    readonly geometryText = false,
  ) {
    assert(Number.isSafeInteger(sizeBytes));
    assert(sizeBytes > LARGE_VALUE_REF_BYTES, 'a value this small stays inline');
    this.held = value;
  }

  /** The value; read back from its chain first when it was evicted. */
  get value(): Exclude<Value, null> {
    if (this.held === undefined) {
      // The loader stays until it succeeds: a failed read is retried by the next access.
      const loaded = this.loader!(this);
      this.held = this.geometryText ? geometryOfText(loaded) : loaded;
      this.loader = undefined;
    }
    return this.held;
  }

  get resident(): boolean {
    return this.held !== undefined;
  }

  /** Drops the value, whose chain is on disk; `loader` reads it back on the next access. */
  evict(loader: LargeValueLoader): void {
    assert(this.held !== undefined, 'evicting an evicted large value');
    this.held = undefined;
    this.loader = loader;
  }
}

/** Legacy GEOMETRY text read back from its chain, as its row block's read made it. */
function geometryOfText(value: Exclude<Value, null>): GeometryValue | string {
  if (isGeometryValue(value)) return value;
  if (typeof value !== 'string') {
    throw new StorageError('CORRUPTION', 'a large GEOMETRY text that is not text');
  }
  return legacyGeometry(value);
}

/** What a reference in a row block image says; decodeRowBlock hands it to the resolver. */
export interface LargeValueRef {
  readonly kind: LargeValueKind;
  readonly sizeBytes: number;
  /** The first block of the chain; undefined when the value was not placed when written. */
  readonly firstBlockId: BlockId | undefined;
  readonly blockCount: number;
  /** Where the reference sits, for error messages. */
  readonly columnIndex: number;
  readonly rowIndex: number;
}

/**
 * Reads a large-value chain into its value (decodeLargeValue of the chain's block images), or
 * returns the LargeValue already in memory for that chain.
 */
export type LargeValueResolver = (ref: LargeValueRef) => Value | LargeValue;

/** A column slot: a value, or a large value kept out of line. */
export type StoredValue = Value | LargeValue;

/** The value a slot stands for. */
export function storedValue(stored: StoredValue): Value {
  return stored instanceof LargeValue ? stored.value : stored;
}
