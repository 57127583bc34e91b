// Schema changes applied to a container's row blocks: columns added at the end (existing rows get
// NULL, or the empty value of a NOT NULL column), and renames (the layout is the same, only names
// differ). Column types, keys and order never change; the catalog validated that, we assert it.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { RowBlock } from './row-block.ts';
import {
  columnEmptyValue, rowBlockUsedBytes, varPayloadBytes, type BlockLayout,
} from './row-block-layout.ts';

/**
 * Adds the new layout's extra columns to every block, splitting blocks that grew past their size.
 * Throws LIMIT_EXCEEDED, changing nothing, if some row would no longer fit in a block by itself.
 */
export function rowStoreAddColumns(
  from: BlockLayout, to: BlockLayout,
  store: {
    blocks: readonly RowBlock[]; split: (block: RowBlock) => RowBlock;
    willChange: (block: RowBlock) => void;
  },
): void {
  assert(to.columns.length > from.columns.length);
  rowStoreAssertColumnsKept(from, to);
  const added = to.columns.slice(from.columns.length);
  const values = added.map(columnEmptyValue);
  let addedPayloadBytes = 0;
  added.forEach((column, i) => {
    if (column.storage === 'var') addedPayloadBytes += varPayloadBytes(column, values[i]!);
  });
  for (const block of store.blocks) {
    const rowBytes = rowBlockUsedBytes(to, 1,
      rowStoreRowPayloadBytesMax(to, block, addedPayloadBytes) + addedPayloadBytes);
    if (rowBytes > block.blockSizeBytes) {
      throw new StorageError('LIMIT_EXCEEDED',
        `a row would take ${rowBytes} bytes with the new columns, more than a block holds`);
    }
  }
  for (const block of store.blocks) {
    store.willChange(block);
    block.addColumns(to, values);
    const work = [block];
    for (let b = work.pop(); b !== undefined; b = work.pop()) {
      if (b.usedBytes <= b.blockSizeBytes) continue;
      const right = store.split(b);
      work.push(b, right);
    }
  }
}

/**
 * The largest variable-length payload of one row, or the block's whole payload when even that
 * would fit in one row: an upper bound that spares walking the rows in the common case.
 */
function rowStoreRowPayloadBytesMax(to: BlockLayout, block: RowBlock, addedBytes: number): number {
  if (rowBlockUsedBytes(to, 1, block.varPayloadBytes + addedBytes) <= block.blockSizeBytes) {
    return block.varPayloadBytes;
  }
  let bytesMax = 0;
  for (let i = 0; i < block.rowCount; i++) bytesMax = Math.max(bytesMax, block.rowPayloadBytes(i));
  return bytesMax;
}

/** Renames change names only: the two layouts must be column-for-column the same. */
export function rowStoreRenameColumns(from: BlockLayout, to: BlockLayout): void {
  assert(to.columns.length === from.columns.length);
  rowStoreAssertColumnsKept(from, to);
}

function rowStoreAssertColumnsKept(from: BlockLayout, to: BlockLayout): void {
  assert(to.keyColumnCount === from.keyColumnCount, 'row key columns changed');
  from.columns.forEach((column, i) => {
    const next = to.columns[i]!;
    assert(next.type === column.type && next.array === column.array, `column ${i} changed type`);
    assert(next.nullable === column.nullable && next.bigintTime === column.bigintTime,
      `column ${i} changed`);
  });
}
