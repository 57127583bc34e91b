import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { blockId, containerId } from '../../../lib/base/ids.ts';
import { decodeRowBlock, encodeRowBlock } from '../../../lib/block/block-format.ts';
import { RowBlock } from '../../../lib/block/row-block.ts';
import { blockLayout, rowVarPayloadBytes } from '../../../lib/block/row-block-layout.ts';
import { TIMESTAMP_NS_MAX, type Row } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { schemaArbitrary, sortedRowsArbitrary } from './block-test-schemas.ts';

const BLOCK_SIZE_BYTES = 32 * 1024;

/** A block of as many of the rows as fit, in order. */
function blockOf(schema: ContainerSchema, rows: readonly Row[]): RowBlock {
  const layout = blockLayout(schema);
  const block = new RowBlock({
    layout, containerId: containerId(7), blockSizeBytes: BLOCK_SIZE_BYTES,
  });
  const payloadBytes = Float64Array.from(rows, (row) => rowVarPayloadBytes(layout, row));
  const count = block.appendCountFit({ from: 0, to: rows.length }, payloadBytes);
  let bytes = 0;
  for (let i = 0; i < count; i++) bytes += payloadBytes[i]!;
  block.appendRows(rows, { from: 0, to: count }, { payloadBytes: bytes, rowIdFirst: 1000 });
  return block;
}

function rowsOf(block: RowBlock): Row[] {
  return Array.from({ length: block.rowCount }, (_, i) => block.readRow(i));
}

const schemaAndRows = schemaArbitrary({ columnCountMax: 8 })
  .chain((schema) => fc.tuple(fc.constant(schema), sortedRowsArbitrary(schema, 40)));

describe('block-format', () => {
  it('round-trips random schemas and rows, and the image size matches usedBytes', () => {
    fc.assert(fc.property(schemaAndRows, ([schema, rows]) => {
      const block = blockOf(schema, rows);
      block.blockId = blockId(12);
      const image = encodeRowBlock(block);
      assert.equal(image.byteLength, BLOCK_SIZE_BYTES);
      const used = new DataView(image.buffer).getUint32(24, true);
      assert.equal(used, block.usedBytes);
      assert.ok(image.subarray(used).every((byte) => byte === 0), 'tail is zero');
      const decoded = decodeRowBlock(schema, image);
      assert.equal(decoded.rowCount, block.rowCount);
      assert.equal(decoded.usedBytes, block.usedBytes);
      assert.equal(decoded.blockId, 12);
      assert.equal(decoded.containerId, 7);
      assert.deepStrictEqual(rowsOf(decoded), rows.slice(0, block.rowCount));
      if (schema.rowKeyColumnCount === 0) {
        assert.deepStrictEqual([...decoded.rowIds!.subarray(0, decoded.rowCount)],
          Array.from({ length: block.rowCount }, (_, i) => 1000 + i));
      }
      assert.deepStrictEqual(encodeRowBlock(decoded), image, 'encoding is deterministic');
    }), { numRuns: 300 });
  });

  it('keeps int64 extremes, NaN, -0, empty/non-ASCII/lone-surrogate strings, empty arrays', () => {
    const schema: ContainerSchema = {
      name: 'edge', type: 'COLLECTION', rowKeyColumnCount: 1, indexes: [], schemaVersion: 3,
      columns: [
        { name: 'k', type: 'LONG', array: false, notNull: true },
        { name: 'd', type: 'DOUBLE', array: false, notNull: false },
        { name: 's', type: 'STRING', array: false, notNull: false },
        { name: 'a', type: 'LONG', array: true, notNull: false },
        { name: 'sa', type: 'STRING', array: true, notNull: true },
        { name: 'b', type: 'BLOB', array: false, notNull: true },
        { name: 't', type: 'TIMESTAMP', array: false, notNull: false, timePrecision: 'NANOSECOND' },
      ],
    };
    const rows: Row[] = [
      [-(2n ** 63n), Number.NaN, '', [], [], new Uint8Array(0), null],
      [-1n, -0, 'grüße 東京 🚀', [2n ** 63n - 1n, -(2n ** 63n)], ['', 'x\uD800y'],
        new Uint8Array([0, 255]), 0n],
      [2n ** 63n - 1n, null, '\uDC00', null, ['\u{10FFFF}'], new Uint8Array([1]), TIMESTAMP_NS_MAX],
    ];
    const decoded = decodeRowBlock(schema, encodeRowBlock(blockOf(schema, rows)));
    assert.deepStrictEqual(rowsOf(decoded), rows);
    assert.ok(Object.is(decoded.readRow(1)[1], -0));
  });

  it('reports a bad magic, version or checksum as CORRUPTION naming the block', () => {
    fc.assert(fc.property(schemaAndRows, fc.nat(), fc.integer({ min: 1, max: 255 }),
      ([schema, rows], position, flip) => {
        const image = encodeRowBlock(blockOf(schema, rows));
        const used = new DataView(image.buffer).getUint32(24, true);
        const damaged = image.slice();
        damaged[position % used]! ^= flip;
        assert.throws(() => decodeRowBlock(schema, damaged, blockId(99)),
          (error) => isStorageError(error, 'CORRUPTION') && /block 99/.test(error.message));
      }), { numRuns: 200 });
  });

  it('refuses a block written for another column count', () => {
    const schema: ContainerSchema = {
      name: 'x', type: 'TIME_SERIES', rowKeyColumnCount: 1, indexes: [], schemaVersion: 1,
      columns: [{ name: 't', type: 'TIMESTAMP', array: false, notNull: true }],
    };
    const value = { name: 'v', type: 'DOUBLE' as const, array: false, notNull: false };
    const wider = { ...schema, columns: [...schema.columns, value] };
    const image = encodeRowBlock(blockOf(schema, [[1], [2]]));
    assert.throws(() => decodeRowBlock(wider, image),
      (error) => isStorageError(error, 'CORRUPTION'));
  });
});
