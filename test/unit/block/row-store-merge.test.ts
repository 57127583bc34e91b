import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { rowStoreSortBatch } from '../../../lib/block/row-store-merge.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { rowKeyOps } from '../../../lib/schema/row-key.ts';

const column = (name: string, type: ColumnSchema['type'], notNull = false): ColumnSchema =>
  ({ name, type, array: false, notNull });

const schema: ContainerSchema = {
  name: 's', type: 'COLLECTION', columns: [column('k', 'INTEGER', true), column('v', 'STRING')],
  rowKeyColumnCount: 1, indexes: [], schemaVersion: 1,
};

describe('rowStoreSortBatch', () => {
  it('gives the in-order and the sorting path the same batch shape (fast-check)', () => {
    const keys = rowKeyOps(schema);
    fc.assert(fc.property(
      fc.array(fc.integer({ min: -20, max: 20 }), { maxLength: 40 }), fc.boolean(),
      (rawKeys, inOrder) => {
        // In order and without repeats takes the fast path; anything else the sort.
        const batchKeys = inOrder ? [...new Set(rawKeys)].sort((a, b) => a - b) : rawKeys;
        const rows = batchKeys.map((k, i) => [k, `r${i}`]);
        const payloadBytes = Float64Array.from(rows, (_, i) => i + 1);
        const batch = rowStoreSortBatch(rows, keys, payloadBytes);
        // Model: the last row of each key, in key order.
        const last = new Map<number, number>();
        batchKeys.forEach((k, i) => last.set(k, i));
        const expected = [...last.entries()].sort((a, b) => a[0] - b[0]).map(([, i]) => i);
        assert.equal(batch.count, expected.length);
        assert.deepStrictEqual(batch.rows, expected.map((i) => rows[i]));
        assert.deepStrictEqual(batch.keys, expected.map((i) => batchKeys[i]));
        assert.deepStrictEqual([...batch.payloadBytes!].slice(0, batch.count),
          expected.map((i) => i + 1));
        assert.equal(batch.positions.length, batch.count);
        assert.equal(batch.replaces.length, batch.count);
        assert.equal(batch.targets.length, batch.count);
        assert.ok(batch.positions.every((p) => p === 0) && batch.replaces.every((r) => r === 0) &&
          batch.targets.every((t) => t === 0), 'merge scratch starts zeroed');
        // The batch owns its arrays: the caller's rows and sizes may change after.
        assert.notStrictEqual(batch.rows, rows);
        assert.notStrictEqual(batch.payloadBytes, payloadBytes);
      },
    ), { numRuns: 300 });
  });
});
