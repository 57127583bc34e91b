// Key-range scans over a container's row blocks: which rows of which blocks a range covers, in
// order, trimmed to a limit. RowStore materialises rows from these ranges or hands out column
// views.

import { assert } from '../base/assert.ts';
import type { RowKey } from '../schema/column-type.ts';
import type { RowKeyOps } from '../schema/row-key.ts';
import type { BTree } from './btree.ts';
import type { ColumnVector } from './row-block-column.ts';
import type { RowBlock } from './row-block.ts';

export interface RowScanOptions {
  /** Inclusive lower bound; none: from the first row. A keyless collection's keys are rowIds. */
  from?: RowKey;
  /** Inclusive upper bound; none: to the last row. */
  to?: RowKey;
  direction: 'asc' | 'desc';
  /** Rows at most; none: every row in range. */
  limit?: number;
}

export interface RowBatchScanOptions extends RowScanOptions {
  /** Only these columns, in this order; default every column. */
  columnIndexes?: readonly number[];
}

/**
 * The rows of one block in a scan. Rows inside a batch are always in ascending key order, also in a
 * 'desc' scan, which yields batches from the last block backwards: read a batch from its end then.
 */
export interface RowBatch {
  readonly rowCount: number;
  /** One per requested column; fixed-size columns are zero-copy typed-array views. */
  readonly columns: ColumnVector[];
  /** Keyless collections only: each row's rowId. */
  readonly rowIds: Float64Array | undefined;
  /**
   * The key of the batch's row `index` (its rowId when keyless), read from the block whether or not
   * its key columns were asked for: a pager needs only its last row's key, not a copy of each.
   */
  keyAt(index: number): RowKey;
}

export interface BlockRange {
  readonly block: RowBlock;
  readonly start: number;
  /** Exclusive. */
  readonly end: number;
}

/** The block ranges a scan covers, in scan order; bounds are normalised keys. */
export function* rowStoreRanges(
  tree: BTree<RowKey, RowBlock>, keys: RowKeyOps,
  scan: {
    from: RowKey | undefined; to: RowKey | undefined; direction: 'asc' | 'desc'; limit: number;
  },
  /** Brings a block's rows into memory before they are read (BlockSpace.use). */
  use: (block: RowBlock) => void,
): Generator<BlockRange, undefined, undefined> {
  const { from, to, limit } = scan;
  assert(limit >= 0);
  if (limit === 0) return;
  if (from !== undefined && to !== undefined && keys.compare(from, to) > 0) return;
  let remaining = limit;
  if (scan.direction === 'asc') {
    // Start at the block holding `from`, which may begin below it.
    const startKey = from === undefined ? undefined : tree.floor(from)?.key;
    let first = true;
    for (const { value: block } of tree.entries({ from: startKey, direction: 'asc' })) {
      use(block);
      const start = first && from !== undefined ? block.lowerBound(from) : 0;
      const end = to === undefined ? block.rowCount : block.upperBound(to);
      first = false;
      if (start < end) {
        const count = Math.min(end - start, remaining);
        yield { block, start, end: start + count };
        remaining -= count;
        if (remaining === 0) return;
      }
      if (end < block.rowCount) return; // rows past `to` here, and in every later block
    }
    return;
  }
  for (const { value: block } of tree.entries({ from: to, direction: 'desc' })) {
    use(block);
    const end = to === undefined ? block.rowCount : block.upperBound(to);
    const start = from === undefined ? 0 : block.lowerBound(from);
    if (start < end) {
      const count = Math.min(end - start, remaining);
      yield { block, start: end - count, end };
      remaining -= count;
      if (remaining === 0) return;
    }
    if (start > 0) return; // rows below `from` here, and in every earlier block
  }
}
