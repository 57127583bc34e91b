import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compressSync, uncompressSync } from 'snappy';
import { isStorageError } from '../../../lib/base/errors.ts';
import { blockId, containerId } from '../../../lib/base/ids.ts';
import { decodeRowBlock, encodeRowBlock } from '../../../lib/block/block-format.ts';
import { RowBlockImage } from '../../../lib/block/block-format-row-image.ts';
import { RowBlock } from '../../../lib/block/row-block.ts';
import { blockLayout, rowVarPayloadBytes } from '../../../lib/block/row-block-layout.ts';
import type { KeyValue, Row, RowKey } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { keyValueOf, schemaArbitrary, sortedRowsArbitrary } from './block-test-schemas.ts';

const BLOCK_SIZE_BYTES = 32 * 1024;
const ROW_ID_FIRST = 1000;

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
  block.appendRows(rows, { from: 0, to: count }, { payloadBytes: bytes, rowIdFirst: ROW_ID_FIRST });
  block.blockId = blockId(12);
  return block;
}

/** The image as a swap read hands it over: stored raw, or snappy-compressed and uncompressed. */
function storedImage(block: RowBlock, compressed: boolean): Uint8Array {
  const image = encodeRowBlock(block);
  if (!compressed) return image;
  return new Uint8Array(uncompressSync(compressSync(Buffer.from(image))) as Buffer);
}

/** Keys to look up: absent ones around and between the rows' (from key indexes). */
function probeKeys(schema: ContainerSchema, keyIndexes: readonly number[][]): RowKey[] {
  const keyCount = schema.rowKeyColumnCount;
  if (keyCount === 0) return keyIndexes.map((indexes) => ROW_ID_FIRST - 2 + indexes[0]!);
  return keyIndexes.map((indexes) => {
    const parts = Array.from({ length: keyCount },
      (_, c) => keyValueOf(schema.columns[c]!, indexes[c % indexes.length]!));
    return keyCount === 1 ? parts[0]! : parts as KeyValue[];
  });
}

const cases = schemaArbitrary({ columnCountMax: 8 }).chain((schema) => fc.tuple(
  fc.constant(schema), sortedRowsArbitrary(schema, 40), fc.boolean(),
  fc.array(fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 3 }), { maxLength: 8 }),
));

describe('block-format-row-image', () => {
  it('reads row i, its key and its index as the full decode does, compressed or not', () => {
    fc.assert(fc.property(cases, ([schema, rows, compressed, probeIndexes]) => {
      const block = blockOf(schema, rows);
      const bytes = storedImage(block, compressed);
      const decoded = decodeRowBlock(schema, bytes);
      const image = new RowBlockImage(blockLayout(schema), bytes,
        { blockSizeBytes: BLOCK_SIZE_BYTES, blockId: blockId(12) });
      assert.equal(image.rowCount, decoded.rowCount);
      // Backwards, so that no read leans on the one before it.
      for (let i = decoded.rowCount - 1; i >= 0; i--) {
        assert.deepStrictEqual(image.readRow(i), decoded.readRow(i), `row ${i}`);
        assert.deepStrictEqual(image.keyAt(i), decoded.keyAt(i), `key ${i}`);
        assert.equal(image.search(decoded.keyAt(i)), i, `search ${i}`);
      }
      const keys = decoded.layout.keys;
      for (const probe of probeKeys(schema, probeIndexes)) {
        const key = keys.normalizeKey(probe);
        assert.equal(image.search(key), decoded.search(key), `search ${String(probe)}`);
      }
    }), { numRuns: 300 });
  });

  it('keeps int64 extremes, NaN, -0, lone surrogates, empty arrays and TIMESTAMP(9) NULLs', () => {
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
        { name: 'f', type: 'BOOL', array: false, notNull: false },
      ],
    };
    const rows: Row[] = [
      [-(2n ** 63n), Number.NaN, '', [], [], new Uint8Array(0), null, true],
      [-1n, -0, 'grüße 東京 🚀', [2n ** 63n - 1n], ['', 'x\uD800y'], new Uint8Array([0, 255]),
        -(2n ** 70n), null],
      [2n ** 63n - 1n, null, '\uDC00', null, ['\u{10FFFF}'], new Uint8Array([1]), 2n ** 67n, false],
    ];
    const image = new RowBlockImage(blockLayout(schema), encodeRowBlock(blockOf(schema, rows)),
      { blockSizeBytes: BLOCK_SIZE_BYTES });
    assert.deepStrictEqual([0, 1, 2].map((i) => image.readRow(i)), rows);
    assert.ok(Object.is(image.readRow(1)[1], -0));
    assert.equal(image.search(0n), -3, "between rows 1 and 2");
  });

  it('reports a damaged image as CORRUPTION naming the block', () => {
    const schema: ContainerSchema = {
      name: 'd', type: 'COLLECTION', rowKeyColumnCount: 1, indexes: [], schemaVersion: 1,
      columns: [
        { name: 'k', type: 'INTEGER', array: false, notNull: true },
        { name: 's', type: 'STRING', array: false, notNull: false },
      ],
    };
    const bytes = encodeRowBlock(blockOf(schema, [[1, 'a'], [2, null], [3, 'ccc']]));
    bytes[40]! ^= 0x10;
    assert.throws(() => new RowBlockImage(blockLayout(schema), bytes,
      { blockSizeBytes: BLOCK_SIZE_BYTES, blockId: blockId(99) }),
    (error) => isStorageError(error, 'CORRUPTION') && /block 99/.test(error.message));
  });
});
