// RowStore's large values: values above a quarter of the block size live out of line, in whole
// blocks of the BlockSpace that come back on replace, remove, clear and drop.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import { containerId } from '../../../lib/base/ids.ts';
import {
  decodeLargeValue, decodeRowBlock, encodeLargeValueBlocks, encodeRowBlock,
} from '../../../lib/block/block-format.ts';
import { BlockSpace } from '../../../lib/block/block-space.ts';
import { largeValueChunkBytesMax } from '../../../lib/block/large-value.ts';
import { blockLargeValues } from '../../../lib/block/large-value-store.ts';
import { RowStore } from '../../../lib/block/row-store.ts';
import { largeValueInlineBytesMax } from '../../../lib/block/row-store-put.ts';
import type { Row, Value } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

const column = (name: string, type: ColumnSchema['type'], array = false): ColumnSchema =>
  ({ name, type, array, notNull: false });

const schema: ContainerSchema = {
  name: 'large', type: 'COLLECTION', rowKeyColumnCount: 1, indexes: [], schemaVersion: 1,
  columns: [
    { name: 'k', type: 'INTEGER', array: false, notNull: true },
    column('b', 'BLOB'), column('s', 'STRING'), column('a', 'LONG', true),
  ],
};

function open(blockSizeBytes: number, store = schema) {
  const space = new BlockSpace({ blockSizeBytes });
  const rows = new RowStore({ containerId: containerId(5), schema: store, blockSizeBytes, space });
  return { space, store: rows };
}

/** A BLOB whose bytes depend on a seed, so a mix-up between two shows. */
function blobOf(sizeBytes: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(sizeBytes);
  for (let i = 0; i < sizeBytes; i++) bytes[i] = (i * 31 + seed) & 255;
  return bytes;
}

/** Blocks a value of sizeBytes takes at this block size. */
const chainBlocks = (sizeBytes: number, blockSizeBytes: number) =>
  Math.ceil(sizeBytes / largeValueChunkBytesMax(blockSizeBytes));

function checkSpace(space: BlockSpace, store: RowStore): void {
  store.checkInvariants();
  space.checkInvariants();
  assert.equal(space.bytesInUse,
    store.usedBytes + store.largeValueBlockCount * space.blockSizeBytes);
  assert.equal(space.blockCount, store.blockIds().length);
}

describe('row-store large values', () => {
  it('a 5 MB BLOB round-trips through put, get, scan and remove with 64 KB blocks', () => {
    const { space, store } = open(64 * KiB);
    const blob = blobOf(5 * MiB, 7);
    const rows: Row[] = [
      [1, new Uint8Array([1]), 'a', [1n]], [2, blob, 'b', null], [3, null, 'c', []],
    ];
    store.put(rows);
    checkSpace(space, store);
    const blocks = chainBlocks(5 * MiB, 64 * KiB);
    assert.equal(blocks, 81);
    assert.equal(store.largeValueCount, 1);
    assert.equal(store.largeValueBlockCount, blocks);
    assert.equal(space.blockCount, 1 + blocks, 'one row block and the chain');
    assert.ok(store.usedBytes < 200, 'the row block counts the reference, not the value');
    assert.deepStrictEqual(store.get(2), rows[1]);
    assert.deepStrictEqual(store.scan({ direction: 'desc' }), [...rows].reverse());
    const [batch] = [...store.scanBatches({ direction: 'asc', columnIndexes: [1] })];
    assert.deepStrictEqual(batch!.columns[0]!.values[1], blob);
    assert.equal(store.remove([2]), 1);
    checkSpace(space, store);
    assert.equal(store.largeValueBlockCount, 0);
    assert.equal(space.blockCount, 1);
    store.drop();
    assert.equal(space.blockCount, 0);
  });

  it('gives a replaced large value\'s blocks back, and drop gives every block back', () => {
    const { space, store } = open(32 * KiB);
    store.put([[1, blobOf(100 * KiB, 1), null, null], [2, blobOf(10 * KiB, 2), null, null]]);
    const countOf = (sizeBytes: number) => chainBlocks(sizeBytes, 32 * KiB);
    assert.equal(store.largeValueBlockCount, countOf(100 * KiB) + countOf(10 * KiB));
    // Out of order: the merge path replaces both rows.
    store.put([[2, null, 'x'.repeat(40 * KiB), null], [1, new Uint8Array(3), null, null]]);
    checkSpace(space, store);
    assert.equal(store.largeValueCount, 1, 'only the new string is out of line');
    assert.equal(store.largeValueBlockCount, countOf(40 * KiB));
    // In order, above the last key: the append path.
    store.put([[3, blobOf(70 * KiB, 3), null, null], [4, blobOf(9 * KiB, 4), null, null]]);
    checkSpace(space, store);
    assert.equal(store.largeValueCount, 3);
    assert.deepStrictEqual(store.get(4)![1], blobOf(9 * KiB, 4));
    store.drop();
    assert.equal(space.blockCount, 0);
  });

  it('keeps values at the threshold inline and moves larger ones of every kind out of line', () => {
    const blockSizeBytes = 32 * KiB;
    const { space, store } = open(blockSizeBytes);
    const inlineMax = largeValueInlineBytesMax(blockSizeBytes);
    assert.equal(inlineMax, 8 * KiB);
    const longs = Array.from({ length: 2000 }, (_, i) => BigInt(i) * -7n); // 4 + 16000 bytes
    store.put([
      [1, new Uint8Array(inlineMax), 'é'.repeat(inlineMax / 2), null],
      [2, new Uint8Array(inlineMax + 1), 'é'.repeat(inlineMax / 2 + 1), longs],
    ]);
    checkSpace(space, store);
    assert.equal(store.largeValueCount, 3, 'row 2: BLOB, STRING and array');
    assert.deepStrictEqual(store.get(2), [2, new Uint8Array(inlineMax + 1),
      'é'.repeat(inlineMax / 2 + 1), longs]);
  });

  it('moves smaller values out too, largest first, when a row overflows a block', () => {
    const strings = Array.from({ length: 6 }, (_, i) => column(`s${i}`, 'STRING'));
    const wide: ContainerSchema = { ...schema, columns: [schema.columns[0]!, ...strings] };
    const blockSizeBytes = 32 * KiB;
    const { space, store } = open(blockSizeBytes, wide);
    // Six values of about 7 KB: each under 8 KB, together over a block; the two largest go out.
    const texts = [7000, 7100, 7200, 7300, 7400, 7500].map((n, i) => String(i).repeat(n));
    store.put([[1, ...texts]]);
    checkSpace(space, store);
    assert.equal(store.largeValueCount, 2);
    assert.deepStrictEqual(store.get(1), [1, ...texts]);
  });

  it('places only the last of a batch\'s rows with one key, and owns a copy of the value', () => {
    const { space, store } = open(32 * KiB);
    const blob = blobOf(50 * KiB, 9);
    store.put([[5, blobOf(60 * KiB, 1), null, null], [4, null, null, null], [5, blob, null, null]]);
    checkSpace(space, store);
    assert.equal(store.largeValueBlockCount, chainBlocks(50 * KiB, 32 * KiB));
    blob[0] = 255 - blob[0]!;
    assert.deepStrictEqual(store.get(5)![1], blobOf(50 * KiB, 9));
  });

  it('survives encode / decode of its row blocks and chains into a new store', () => {
    const blockSizeBytes = 32 * KiB;
    const { store } = open(blockSizeBytes);
    const rows: Row[] = Array.from({ length: 60 }, (_, i) => [
      i, i % 7 === 0 ? blobOf(20 * KiB + i, i) : new Uint8Array([i]),
      i % 11 === 0 ? 'é'.repeat(5000 + i) : `s${i}`,
      i % 13 === 0 ? Array.from({ length: 1200 }, (_, j) => BigInt(j * i)) : null,
    ]);
    store.put([...rows].reverse());
    const chains = new Map<number, Uint8Array[]>();
    for (const block of store.blocksInOrder()) {
      for (const value of blockLargeValues([block])) {
        const owner = { containerId: containerId(5), blockSizeBytes };
        chains.set(value.blockIds[0]!, encodeLargeValueBlocks(value, owner));
      }
    }
    const restored = open(blockSizeBytes);
    let resolved = 0;
    for (const block of store.blocksInOrder()) {
      const image = encodeRowBlock(block);
      restored.store.restoreBlock(decodeRowBlock(schema, image, block.blockId, (ref) => {
        resolved++;
        return decodeLargeValue(chains.get(ref.firstBlockId!)!, ref);
      }));
    }
    assert.equal(resolved, store.largeValueCount);
    checkSpace(restored.space, restored.store);
    assert.equal(restored.store.largeValueBlockCount, store.largeValueBlockCount);
    assert.deepStrictEqual(restored.store.scan({ direction: 'asc' }), rows);
  });

  it('decodeRowBlock needs a resolver and rejects a value unlike its reference', () => {
    const { store } = open(32 * KiB);
    store.put([[1, blobOf(40 * KiB, 1), null, null]]);
    const image = encodeRowBlock([...store.blocksInOrder()][0]!);
    assert.throws(() => decodeRowBlock(schema, image), /needs a resolver/);
    const wrong = (value: Value) => () => decodeRowBlock(schema, image, undefined, () => value);
    for (const value of [blobOf(40 * KiB - 1, 1), 'text', null]) {
      assert.throws(wrong(value), (error) => isStorageError(error, 'CORRUPTION'));
    }
  });
});
