// One TREE index of one container in memory: the ordered set of its entries (indexed values…, row
// position) in the row-key B+tree of lib/block/btree.ts, keyed by the whole tuple so that equal
// values stay apart and an entry is found again by the row it came from. Rows are never copied:
// an entry holds the row's values of the indexed columns and its key.
//
// The tree holds committed rows only (container-indexes.ts keeps it equal to them); it counts the
// bytes it holds so that the owner can keep them within the index memory budget.

import { assert } from '../base/assert.ts';
import { BTree } from '../block/btree.ts';
import type { Row, RowKey, Value } from '../schema/column-type.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import {
  indexEntrySizeBytes, indexPrefixCompare, indexTupleCompare, indexValueCompare,
  type IndexTuple, type ValueCompare,
} from '../query/tql/index-order.ts';
import type { TqlIndexRange } from '../query/tql/plan-index.ts';

export class IndexTree {
  private readonly tree: BTree<IndexTuple, true>;
  private readonly compares: ValueCompare[];
  /** What the entries hold, by indexEntrySizeBytes. */
  sizeBytes = 0;

  constructor(
    readonly columnIndexes: readonly number[],
    columns: readonly ColumnSchema[],
    comparePosition: (a: RowKey, b: RowKey) => number,
  ) {
    assert(columnIndexes.length > 0);
    this.compares = columnIndexes.map((c) => indexValueCompare(columns[c]!.type));
    this.tree = new BTree({ compare: indexTupleCompare(this.compares, comparePosition) });
  }

  get entryCount(): number {
    return this.tree.size;
  }

  tupleOf(row: Row, position: RowKey): IndexTuple {
    const tuple: unknown[] = this.columnIndexes.map((c) => row[c] ?? null);
    tuple.push(position);
    return tuple;
  }

  /** Adds the entry of a row; returns the bytes it takes. */
  insert(tuple: IndexTuple): number {
    assert(this.tree.get(tuple) === undefined, 'a row indexed twice');
    this.tree.set(tuple, true);
    const sizeBytes = indexEntrySizeBytes(tuple);
    this.sizeBytes += sizeBytes;
    return sizeBytes;
  }

  /** Removes the entry of a row; returns the bytes it took. */
  delete(tuple: IndexTuple): number {
    const deleted = this.tree.delete(tuple);
    assert(deleted, 'an index entry missing for a committed row');
    const sizeBytes = indexEntrySizeBytes(tuple);
    this.sizeBytes -= sizeBytes;
    return sizeBytes;
  }

  /** Row positions of the entries in `range`, in index order. */
  *positions(range: TqlIndexRange): Generator<RowKey, undefined, undefined> {
    const { low, high } = range;
    const from = low.length === 0 ? undefined : low as IndexTuple;
    for (const { key } of this.tree.entries({ from, direction: 'asc' })) {
      if (!range.lowInclusive && low.length > 0 &&
        indexPrefixCompare(this.compares, key, low) === 0) continue;
      const above = indexPrefixCompare(this.compares, key, high as Value[]);
      if (above > 0 || (above === 0 && !range.highInclusive && high.length > 0)) return;
      yield key[key.length - 1] as RowKey;
    }
  }
}
