// The index structure alone: entries (values…, row key) in index order, ranges of leading values
// (inclusive or not, NULL last) against a brute-force filter, and the bytes it counts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { IndexTree } from '../../../lib/engine/index-tree.ts';
import { indexPrefixCompare, indexValueCompare } from '../../../lib/query/tql/index-order.ts';
import type { TqlIndexRange } from '../../../lib/query/tql/plan-index.ts';
import type { Row, Value } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';

const COLUMNS: ColumnSchema[] = [
  { name: 'id', type: 'INTEGER', array: false, notNull: true },
  { name: 'n', type: 'DOUBLE', array: false, notNull: false },
  { name: 's', type: 'STRING', array: false, notNull: false },
];
const compares = [indexValueCompare('DOUBLE'), indexValueCompare('STRING')];
const byKey = (a: unknown, b: unknown) => (a as number) - (b as number);

const nValue = fc.option(fc.constantFrom(-1, 0, 0.5, 2, Number.NaN, Number.POSITIVE_INFINITY));
const sValue = fc.option(fc.constantFrom('', 'a', 'ab', 'b'));
const bound = fc.tuple(fc.option(fc.tuple(nValue, fc.option(sValue)), { nil: undefined }), fc.boolean())
  .map(([values, inclusive]) => ({
    values: values === undefined ? [] : values[1] === null ? [values[0]] : [values[0], values[1]],
    inclusive,
  }));

describe('index tree', () => {
  it('gives the row keys of a range in index order, as a brute-force filter does', () => {
    fc.assert(fc.property(
      fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 40 }), nValue, sValue), {
        selector: ([id]) => id, maxLength: 40,
      }),
      bound, bound,
      (rows, low, high) => {
        const tree = new IndexTree([1, 2], COLUMNS, byKey);
        for (const row of rows) tree.insert(tree.tupleOf(row as Row, row[0]));
        const range: TqlIndexRange = {
          name: '', columnIndexes: [1, 2], low: low.values as Value[], lowInclusive: low.inclusive,
          high: high.values as Value[], highInclusive: high.inclusive,
        };
        const expected = rows.map((row) => [row[1], row[2], row[0]] as const)
          .filter((tuple) => {
            const fromLow = indexPrefixCompare(compares, tuple, range.low);
            const fromHigh = indexPrefixCompare(compares, tuple, range.high);
            return (fromLow > 0 || (fromLow === 0 && (range.lowInclusive || range.low.length === 0))) &&
              (fromHigh < 0 || (fromHigh === 0 && (range.highInclusive || range.high.length === 0)));
          })
          .sort((a, b) => compares[0]!(a[0], b[0]) || compares[1]!(a[1], b[1]) || a[2] - b[2])
          .map((tuple) => tuple[2]);
        assert.deepStrictEqual([...tree.positions(range)], expected);
      }), { numRuns: 500 });
  });

  it('counts the bytes of its entries, and gives them back as entries go', () => {
    const tree = new IndexTree([2], COLUMNS, byKey);
    const rows: Row[] = [[1, 0, 'abc'], [2, 0, null], [3, 0, 'x'.repeat(100)]];
    let sizeBytes = 0;
    for (const row of rows) sizeBytes += tree.insert(tree.tupleOf(row, row[0] as number));
    assert.equal(tree.sizeBytes, sizeBytes);
    assert.ok(sizeBytes > 3 * 64 + 200, 'a long string counts its characters');
    for (const row of rows) tree.delete(tree.tupleOf(row, row[0] as number));
    assert.equal(tree.sizeBytes, 0);
    assert.equal(tree.entryCount, 0);
  });
});
