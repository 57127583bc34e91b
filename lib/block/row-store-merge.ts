// The out-of-order put: a batch is sorted once, then merged block by block in key order, each
// block's run in one pass per column (RowBlock.mergeRows), instead of one shifting insert per row.
//
// A run that does not fit its block peels off the rows below the block's first key (only the first
// block gets those) and, in the last block or when they are at least as many as the block holds,
// those above its last key: they fill the block first and then go to new full blocks, as an
// ordered ingest would. The rest is merged in place, or the
// block is split in half and each half takes its part of the run, recursively; between two blocks
// splits leave room for later inserts rather than full blocks. Each level halves the rows, and a
// block of one row peels off everything but a replacement of that row, which fits.

import { assert } from '../base/assert.ts';
import { ROW_STORE_MERGE_DEPTH_MAX } from '../base/limits.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { RowKeyOps } from '../schema/row-key.ts';
import type { RowBlock } from './row-block.ts';
import type { StoredRow } from './row-block-column.ts';
import type { RowStoreBlocks } from './row-store-blocks.ts';

/** A batch sorted by key with one row per key, and scratch for the merge plans of its runs. */
export interface SortedBatch {
  readonly count: number;
  readonly rows: StoredRow[];
  readonly keys: RowKey[];
  /** Each row's variable-length payload; undefined when the schema has none. */
  readonly payloadBytes: Float64Array | undefined;
  readonly positions: Int32Array;
  readonly replaces: Uint8Array;
  readonly targets: Int32Array;
}

export interface RowStoreMergeContext {
  readonly blocks: RowStoreBlocks;
  readonly keys: RowKeyOps;
  /** Called for each stored row a batch row replaces, just before it goes. */
  readonly onReplace: ((block: RowBlock, index: number) => void) | undefined;
}

/** Sorts a batch by key, stably: of rows with equal keys the last one stays. */
export function rowStoreSortBatch(
  rows: readonly StoredRow[], keys: RowKeyOps, payloadBytes: Float64Array | undefined,
): SortedBatch {
  const n = rows.length;
  const rowKeys: RowKey[] = new Array<RowKey>(n);
  for (let i = 0; i < n; i++) rowKeys[i] = keys.keyOf(rows[i] as Row);
  // A batch already in key order without repeats (a host's next rows) needs no sort.
  let ascending = true;
  for (let i = 1; i < n && ascending; i++) ascending = keys.compare(rowKeys[i - 1]!, rowKeys[i]!) < 0;
  if (ascending) return sortedBatchOf(rows.slice(), rowKeys, payloadBytes?.slice());
  const order: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const compare = keys.compare;
  order.sort((a, b) => compare(rowKeys[a]!, rowKeys[b]!) || a - b);
  const sortedRows: StoredRow[] = [];
  const sortedKeys: RowKey[] = [];
  const sortedPayloadBytes = payloadBytes === undefined ? undefined : new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const index = order[i]!;
    // Equal keys sort by position, so the last of them is the one the batch means.
    if (i + 1 < n && compare(rowKeys[index]!, rowKeys[order[i + 1]!]!) === 0) continue;
    if (sortedPayloadBytes !== undefined) {
      sortedPayloadBytes[sortedRows.length] = payloadBytes![index]!;
    }
    sortedRows.push(rows[index]!);
    sortedKeys.push(rowKeys[index]!);
  }
  return sortedBatchOf(sortedRows, sortedKeys, sortedPayloadBytes);
}

/**
 * The one constructor of a sorted batch, for the in-order fast path and the sorting path alike:
 * the merge plan's scratch (positions, replaces, targets) is sized by the rows kept.
 */
function sortedBatchOf(
  rows: StoredRow[], keys: RowKey[], payloadBytes: Float64Array | undefined,
): SortedBatch {
  const count = rows.length;
  assert(keys.length === count, 'sorted batch keys differ from its rows');
  assert(payloadBytes === undefined || payloadBytes.length >= count,
    'sorted batch payload sizes shorter than its rows');
  return {
    count, rows, keys, payloadBytes,
    positions: new Int32Array(count), replaces: new Uint8Array(count),
    targets: new Int32Array(count),
  };
}

/** Upserts a sorted batch, walking the blocks in key order; returns how many rows are new. */
export function rowStoreMergeSorted(context: RowStoreMergeContext, batch: SortedBatch): number {
  const { blocks, keys } = context;
  let insertedCount = 0;
  let from = 0;
  while (from < batch.count) {
    const block = blocks.blockFor(batch.keys[from]!);
    if (block === undefined) {
      blocks.appendRun(undefined, batch.rows, { from, to: batch.count },
        { payloadBytes: batch.payloadBytes });
      return insertedCount + batch.count - from;
    }
    // This block's run: the rows below the next block's first key.
    const next = blocks.tree.higher(block.firstKey());
    let to = from + 1;
    if (next === undefined) to = batch.count;
    else while (to < batch.count && keys.compare(batch.keys[to]!, next.key) < 0) to++;
    insertedCount += mergeIntoBlock(context, batch, block, { from, to, depth: 0 });
    from = to;
  }
  return insertedCount;
}

interface Run {
  readonly from: number;
  readonly to: number;
  /** Splits above this run. */
  readonly depth: number;
}

function mergeIntoBlock(
  context: RowStoreMergeContext, batch: SortedBatch, block: RowBlock, run: Run,
): number {
  const { from, to } = run;
  assert(from < to);
  assert(run.depth <= ROW_STORE_MERGE_DEPTH_MAX, 'merge split too deep');
  const plan = mergePlan(batch, block, run);
  if (block.fits(plan.insertCount, plan.payloadBytes)) {
    mergeApply(context, batch, block, run);
    return plan.insertCount;
  }
  const { positions, replaces } = batch;
  let head = from;
  while (head < to && positions[head] === 0 && replaces[head] === 0) head++;
  let tail = to;
  while (tail > head && positions[tail - 1] === block.rowCount) tail--;
  // The rows above the block's last key: in the last block (or a block of one row) they always
  // go on in new blocks. Between two blocks they do only when there are at least as many as the
  // block holds (a host's next rows in a table keyed by host, then time): splitting would leave
  // a trail of half, quarter, … full blocks, re-planning the run at each level. Fewer stay in the
  // merge, so a split leaves room between the blocks for later inserts.
  const peelTail = block.rowCount < 2 || to - tail >= block.rowCount ||
    context.blocks.tree.higher(block.firstKey()) === undefined;
  if (!peelTail) tail = to;
  let insertedCount = 0;
  if (head < tail) {
    const middle = { from: head, to: tail, depth: run.depth + 1 };
    insertedCount += head === from && tail === to
      ? mergeSplit(context, batch, block, middle)
      : mergeIntoBlock(context, batch, block, middle);
  }
  const extra = { payloadBytes: batch.payloadBytes };
  if (tail < to) {
    // Above every key the block had: after its last piece, then in new blocks.
    const last = context.blocks.blockFor(batch.keys[tail]!);
    context.blocks.appendRun(last, batch.rows, { from: tail, to }, extra);
    insertedCount += to - tail;
  }
  if (from < head) {
    context.blocks.appendRun(undefined, batch.rows, { from, to: head }, extra);
    insertedCount += head - from;
  }
  return insertedCount;
}

/**
 * Splits block in half, or where the whole run goes in when that is one gap between two of its
 * rows (a host's next rows, in a block that goes on with the next host's): the left part then
 * takes the run at its end, by the tail peel when it is long. Each part merges the part of the
 * run in its key range.
 */
function mergeSplit(
  context: RowStoreMergeContext, batch: SortedBatch, block: RowBlock, run: Run,
): number {
  assert(block.rowCount >= 2, 'a one-row block takes any run');
  const gap = batch.positions[run.from]!;
  const oneGap = gap > 0 && gap < block.rowCount && batch.positions[run.to - 1] === gap;
  const right = context.blocks.split(block, oneGap ? gap : block.rowCount >> 1);
  const rightKey = right.firstKey();
  let cut = run.from;
  while (cut < run.to && context.keys.compare(batch.keys[cut]!, rightKey) < 0) cut++;
  let insertedCount = 0;
  if (run.from < cut) {
    insertedCount += mergeIntoBlock(context, batch, block, { ...run, to: cut });
  }
  if (cut < run.to) {
    insertedCount += mergeIntoBlock(context, batch, right, { ...run, from: cut });
  }
  return insertedCount;
}

/** Fills positions and replaces for the run; returns what the merged block would add. */
function mergePlan(
  batch: SortedBatch, block: RowBlock, run: Run,
): { insertCount: number; payloadBytes: number } {
  const { positions, replaces, payloadBytes: rowPayloadBytes } = batch;
  let insertCount = 0;
  let payloadBytes = 0;
  let low = 0;
  for (let k = run.from; k < run.to; k++) {
    const key = batch.keys[k]!;
    const position = block.lowerBound(key, low);
    const replace = position < block.rowCount && block.compareAt(position, key) === 0;
    positions[k] = position;
    replaces[k] = replace ? 1 : 0;
    low = replace ? position + 1 : position;
    if (rowPayloadBytes !== undefined) {
      payloadBytes += rowPayloadBytes[k]!;
      if (replace) payloadBytes -= block.rowPayloadBytes(position);
    }
    if (!replace) insertCount++;
  }
  return { insertCount, payloadBytes };
}

function mergeApply(
  context: RowStoreMergeContext, batch: SortedBatch, block: RowBlock, run: Run,
): void {
  const { from, to } = run;
  const { positions, replaces, targets } = batch;
  // Before the replaced rows' large values go: a snapshot image of the block still names them.
  context.blocks.willChange(block);
  if (context.onReplace !== undefined) {
    for (let k = from; k < to; k++) if (replaces[k] === 1) context.onReplace(block, positions[k]!);
  }
  let payloadBytes = 0;
  if (batch.payloadBytes !== undefined) {
    for (let k = from; k < to; k++) payloadBytes += batch.payloadBytes[k]!;
  }
  const firstKey = block.firstKey();
  block.mergeRows(batch.rows, { from, to, positions, replaces, targets }, payloadBytes);
  if (positions[from] === 0 && replaces[from] === 0) context.blocks.rekey(block, firstKey);
  context.blocks.touch(block);
}
