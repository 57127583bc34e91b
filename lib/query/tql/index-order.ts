// The order of a secondary index's entries (lib/engine/index-tree.ts), shared with the planner
// (plan-index.ts) so that its bounds mean what the index means; and what an entry costs in memory.
//
// An entry is a tuple (indexed values…, row position): the values of the index's columns in index
// order, then the row key (a keyless collection's rowId). Values of one column order as TQL compares
// them, so that a range of the index is exactly a range of a WHERE condition:
//   numbers (BYTE…DOUBLE)  as doubles, NaN above every number (compareDoubles)
//   LONG, TIMESTAMP        as integers (a number or a bigint, whichever the row holds)
//   STRING                 by UTF-16 code units;  BOOL  FALSE before TRUE
//   NULL                   above every value, as ORDER BY puts it: `IS NULL` is a range too
// Probes (bounds of a range) are shorter tuples: a tuple that is a prefix of another sorts first.

import { assert } from '../../base/assert.ts';
import type { ColumnType, RowKey, Value } from '../../schema/column-type.ts';
import { compareDoubles, compareIntegrals, type Integral } from './arithmetic.ts';

/** Indexed values, then the row position (only in stored entries, never in probes). */
export type IndexTuple = readonly unknown[];

export type ValueCompare = (a: Value, b: Value) => number;

/** The order of one column's values, NULL last. */
export function indexValueCompare(type: ColumnType): ValueCompare {
  const order = nonNullOrder(type);
  return (a, b) => {
    if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
    return order(a, b);
  };
}

function nonNullOrder(type: ColumnType): ValueCompare {
  switch (type) {
    case 'BYTE': case 'SHORT': case 'INTEGER': case 'FLOAT': case 'DOUBLE':
      return (a, b) => compareDoubles(a as number, b as number);
    case 'LONG': case 'TIMESTAMP':
      return (a, b) => compareIntegrals(a as Integral, b as Integral);
    case 'STRING':
      return (a, b) => (a === b ? 0 : (a as string) < (b as string) ? -1 : 1);
    case 'BOOL':
      return (a, b) => Number(a) - Number(b);
    default:
      assert(false, `${type} columns are not TREE-indexed`);
  }
}

/**
 * Compares tuples element by element with `compares` (one per indexed column), then by row
 * position; a tuple that ends first (a probe) sorts before the longer one it is a prefix of.
 */
export function indexTupleCompare(
  compares: readonly ValueCompare[],
  comparePosition: (a: RowKey, b: RowKey) => number,
): (a: IndexTuple, b: IndexTuple) => number {
  const valueCount = compares.length;
  return (a, b) => {
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) {
      const order = i < valueCount
        ? compares[i]!(a[i] as Value, b[i] as Value)
        : comparePosition(a[i] as RowKey, b[i] as RowKey);
      if (order !== 0) return order;
    }
    return a.length - b.length;
  };
}

/**
 * Compares the leading `bound.length` values of an entry with a bound: negative when the entry is
 * below the bound's range, 0 inside it, positive above.
 */
export function indexPrefixCompare(
  compares: readonly ValueCompare[],
  entry: IndexTuple,
  bound: readonly Value[],
): number {
  for (let i = 0; i < bound.length; i++) {
    const order = compares[i]!(entry[i] as Value, bound[i]!);
    if (order !== 0) return order;
  }
  return 0;
}

/** Bytes one entry holds: the tuple, its slot in a tree node, and each value (an estimate). */
export const INDEX_ENTRY_OVERHEAD_BYTES = 64;

export function indexEntrySizeBytes(tuple: IndexTuple): number {
  let sizeBytes = INDEX_ENTRY_OVERHEAD_BYTES;
  for (const value of tuple) sizeBytes += valueSizeBytes(value);
  return sizeBytes;
}

function valueSizeBytes(value: unknown): number {
  if (typeof value === 'string') return 16 + 2 * value.length;
  if (typeof value === 'bigint') return 24;
  if (Array.isArray(value)) {
    let sizeBytes = 16;
    for (const item of value) sizeBytes += valueSizeBytes(item);
    return sizeBytes;
  }
  return 8;
}
