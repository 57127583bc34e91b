// Merging a sorted run of rows into one column of a row block (RowBlock.mergeRows): the old rows
// move to their places in one pass, from the end, and the run's values fill the slots left open.
// The column invariants of row-block-column.ts hold again once both steps are done.

import { assert } from '../base/assert.ts';
import type { StoredValue } from './large-value.ts';
import { ownedValue, type ColumnData, type StoredRow } from './row-block-column.ts';
import type { ColumnLayout } from './row-block-layout.ts';

/**
 * Where sorted run rows [from, to) go in a block. positions[k] is the first old row whose key is
 * >= run row k's, and replaces[k] = 1 when that row has the same key and is replaced. targets[k],
 * which RowBlock.mergeRows fills in, is where run row k lands in the merged block; old rows
 * [positions[k] + replaces[k], ...) follow it.
 */
export interface ColumnMergePlan {
  readonly from: number;
  readonly to: number;
  readonly positions: Int32Array;
  readonly replaces: Uint8Array;
  readonly targets: Int32Array;
}

/**
 * Moves a column's old rows [0, rowCount) to their places in the merged block, leaving the run's
 * slots to be set. Typed arrays move in place, from the end, one copyWithin per segment; the
 * caller made room for the merged row count.
 */
export function columnMergeOpenSlots(
  column: ColumnLayout, data: ColumnData, plan: ColumnMergePlan, rowCount: number,
): void {
  if (column.jsArray) {
    data.values = columnMergeJsArray(data.values as StoredValue[], plan, rowCount);
  } else {
    columnMergeTyped(data.values as Float64Array, plan, rowCount);
  }
  if (data.nulls !== undefined) columnMergeTyped(data.nulls, plan, rowCount);
}

function columnMergeTyped(
  values: Float64Array | Uint8Array, plan: ColumnMergePlan, rowCount: number,
): void {
  const { from, to, positions, replaces, targets } = plan;
  let sourceEnd = rowCount;
  for (let k = to - 1; k >= from; k--) {
    const sourceStart = positions[k]! + replaces[k]!;
    const target = targets[k]! + 1;
    // copyWithin even for short segments: an element loop here sees every typed-array kind, and
    // such a megamorphic loop is slower than the call.
    if (target !== sourceStart) values.copyWithin(target, sourceStart, sourceEnd);
    sourceEnd = positions[k]!;
  }
  assert(from === to || targets[from]! === sourceEnd, 'merge plan does not line up');
}

/**
 * Stores column `columnIndex` of run rows [from, to) in their slots (targets), after
 * columnMergeOpenSlots; one loop per storage, as columnAppendRows.
 */
export function columnMergeWrite(
  column: ColumnLayout, data: ColumnData, columnIndex: number,
  rows: readonly StoredRow[], plan: ColumnMergePlan,
): void {
  const { from, to, targets } = plan;
  const nulls = data.nulls;
  if (nulls !== undefined) {
    for (let k = from; k < to; k++) {
      nulls[targets[k]!] = (rows[k]![columnIndex] ?? null) === null ? 1 : 0;
    }
  }
  switch (column.storage) {
    case 'var': case 'i96': {
      const values = data.values as StoredValue[];
      for (let k = from; k < to; k++) {
        const value = rows[k]![columnIndex] ?? null;
        values[targets[k]!] = value === null ? null : ownedValue(value);
      }
      return;
    }
    case 'i64': {
      const values = data.values as BigInt64Array;
      for (let k = from; k < to; k++) values[targets[k]!] = (rows[k]![columnIndex] ?? 0n) as bigint;
      return;
    }
    case 'u8': {
      const values = data.values as Uint8Array;
      for (let k = from; k < to; k++) values[targets[k]!] = rows[k]![columnIndex] === true ? 1 : 0;
      return;
    }
    default: {
      const values = data.values as Float64Array;
      for (let k = from; k < to; k++) values[targets[k]!] = (rows[k]![columnIndex] ?? 0) as number;
    }
  }
}

/** JS arrays are rebuilt front to back: holes would turn them into slow dictionary-like arrays. */
function columnMergeJsArray(
  values: StoredValue[], plan: ColumnMergePlan, rowCount: number,
): StoredValue[] {
  const { from, to, positions, replaces } = plan;
  const merged: StoredValue[] = [];
  let sourceStart = 0;
  for (let k = from; k < to; k++) {
    for (let i = sourceStart; i < positions[k]!; i++) merged.push(values[i]!);
    merged.push(null); // the run row's slot
    sourceStart = positions[k]! + replaces[k]!;
  }
  for (let i = sourceStart; i < rowCount; i++) merged.push(values[i]!);
  return merged;
}
