// A batch on its way into RowStore.put: each row's variable-length payload, and which values are
// kept out of line as LargeValues (large-value.ts).
//
// The rule: a non-key variable-length value whose payload is above blockSizeBytes /
// LARGE_VALUE_INLINE_BLOCK_FRACTION goes out of line; if its row still does not fit a block, its
// largest remaining non-key values follow, one by one, until it does. Key values always stay
// inline (blocks compare them), so only a row whose key and fixed part alone overflow a block is
// LIMIT_EXCEEDED. Rows that change are copies: the caller's arrays are never written.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { LARGE_VALUE_INLINE_BLOCK_FRACTION } from '../base/limits.ts';
import type { Row, Value } from '../schema/column-type.ts';
import { LARGE_VALUE_REF_BYTES, LargeValue, type StoredValue } from './large-value.ts';
import type { StoredRow } from './row-block-column.ts';
import {
  largeValueKindOf, rowBlockUsedBytes, varPayloadBytes, type BlockLayout,
} from './row-block-layout.ts';

export interface PreparedPut {
  /** The caller's rows, except those with values out of line, which are copies. */
  readonly rows: readonly StoredRow[];
  /** Each row's variable-length payload in its block; undefined when the schema has none. */
  readonly payloadBytes: Float64Array | undefined;
  /** LargeValues made for the batch, not yet placed. */
  readonly largeValueCount: number;
}

/** The payload bytes above which a variable-length value is kept out of line. */
export function largeValueInlineBytesMax(blockSizeBytes: number): number {
  return Math.floor(blockSizeBytes / LARGE_VALUE_INLINE_BLOCK_FRACTION);
}

/** Sizes every row and moves large values out of line; LIMIT_EXCEEDED, changing nothing. */
export function rowStorePreparePut(
  layout: BlockLayout, blockSizeBytes: number, rows: readonly Row[],
): PreparedPut {
  const rowFixedBytes = rowBlockUsedBytes(layout, 1, 0);
  assert(rowFixedBytes <= blockSizeBytes);
  const varColumns = layout.varColumnIndexes;
  if (varColumns.length === 0) return { rows, payloadBytes: undefined, largeValueCount: 0 };
  const inlineBytesMax = largeValueInlineBytesMax(blockSizeBytes);
  const roomBytes = blockSizeBytes - rowFixedBytes;
  const payloadBytes = new Float64Array(rows.length);
  let prepared: StoredRow[] | undefined;
  let largeValueCount = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    let bytes = 0;
    let large = false;
    for (const c of varColumns) {
      const valueBytes = varPayloadBytes(layout.columns[c]!, row[c] ?? null);
      bytes += valueBytes;
      if (valueBytes > inlineBytesMax && c >= layout.keyColumnCount) large = true;
    }
    if (!large && bytes <= roomBytes) {
      payloadBytes[i] = bytes;
      continue;
    }
    const stored = storedRowOf(layout, row, { inlineBytesMax, roomBytes });
    if (stored.payloadBytes > roomBytes) {
      throw new StorageError('LIMIT_EXCEEDED', `row ${i} takes ` +
        `${rowFixedBytes + stored.payloadBytes} bytes even with its large values out of line, ` +
        `more than a ${blockSizeBytes}-byte block holds`);
    }
    prepared ??= rows.slice();
    prepared[i] = stored.row;
    payloadBytes[i] = stored.payloadBytes;
    largeValueCount += stored.largeValueCount;
  }
  return { rows: prepared ?? rows, payloadBytes, largeValueCount };
}

/** A copy of row with its large values out of line, and the payload it then has. */
function storedRowOf(
  layout: BlockLayout, row: Row, limits: { inlineBytesMax: number; roomBytes: number },
): { row: StoredRow; payloadBytes: number; largeValueCount: number } {
  const stored: StoredValue[] = row.slice();
  let payloadBytes = 0;
  let largeValueCount = 0;
  const outOfLine = (c: number, sizeBytes: number) => {
    stored[c] = largeValueOf(layout, c, { value: row[c]!, sizeBytes });
    largeValueCount++;
    payloadBytes += LARGE_VALUE_REF_BYTES;
  };
  // Inline non-key values that would shrink out of line, by size.
  const movable: Array<{ c: number; sizeBytes: number }> = [];
  for (const c of layout.varColumnIndexes) {
    const sizeBytes = varPayloadBytes(layout.columns[c]!, row[c] ?? null);
    const key = c < layout.keyColumnCount;
    if (!key && sizeBytes > limits.inlineBytesMax) {
      outOfLine(c, sizeBytes);
      continue;
    }
    payloadBytes += sizeBytes;
    if (!key && sizeBytes > LARGE_VALUE_REF_BYTES) movable.push({ c, sizeBytes });
  }
  movable.sort((a, b) => b.sizeBytes - a.sizeBytes || a.c - b.c);
  // Bounded by the row's columns: each step moves one value out, largest first.
  for (let i = 0; payloadBytes > limits.roomBytes && i < movable.length; i++) {
    const { c, sizeBytes } = movable[i]!;
    payloadBytes -= sizeBytes;
    outOfLine(c, sizeBytes);
  }
  return { row: stored, payloadBytes, largeValueCount };
}

/** The store's own copy of a value, out of line. */
function largeValueOf(
  layout: BlockLayout, columnIndex: number, of: { value: Value; sizeBytes: number },
): LargeValue {
  const { value, sizeBytes } = of;
  assert(value !== null);
  const column = layout.columns[columnIndex]!;
  // BLOBs and arrays are the caller's mutable objects (row-block-column.ts copies inline ones).
  const owned = value instanceof Uint8Array ? value.slice()
    : Array.isArray(value) ? (value.slice() as Value) : value;
  return new LargeValue(largeValueKindOf(column, value), sizeBytes, owned!);
}
