// The checkpoint side of a BlockSpace: dirty and freed sets, copy-on-write while a set is in
// flight, shared page images, and restoring a partition from images under the same block ids.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import { containerId, type BlockId, type ContainerId } from '../../../lib/base/ids.ts';
import { decodeRowBlock } from '../../../lib/block/block-format.ts';
import { decodeSharedPage } from '../../../lib/block/block-format-shared.ts';
import { BlockKind, BlockSpace } from '../../../lib/block/block-space.ts';
import { restorePartition } from '../../../lib/block/block-space-restore.ts';
import { RowStore } from '../../../lib/block/row-store.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';

const BLOCK_SIZE_BYTES = 32 * 1024;

function series(name: string, dataAffinity?: string): ContainerSchema {
  return {
    name, type: 'TIME_SERIES', rowKeyColumnCount: 1, indexes: [], schemaVersion: 1,
    ...(dataAffinity === undefined ? {} : { dataAffinity }),
    columns: [
      { name: 't', type: 'TIMESTAMP', array: false, notNull: true },
      { name: 'v', type: 'DOUBLE', array: false, notNull: false },
      { name: 'b', type: 'BLOB', array: false, notNull: false },
    ],
  };
}

type Stores = Map<ContainerId, RowStore>;

function open(space: BlockSpace, schemas: ReadonlyMap<number, ContainerSchema>): Stores {
  const stores: Stores = new Map();
  for (const [id, schema] of schemas) {
    stores.set(containerId(id), new RowStore({
      containerId: containerId(id), schema, blockSizeBytes: BLOCK_SIZE_BYTES, space,
    }));
  }
  return stores;
}

const rowsOf = (from: number, count: number): Row[] =>
  Array.from({ length: count }, (_, i) => [from + i, (from + i) / 2, null]);

/** A whole checkpoint into `dataFile`: every block of the set encoded at once. */
function checkpoint(space: BlockSpace, dataFile: Map<BlockId, Uint8Array>): void {
  const set = space.takeCheckpointSet();
  for (const id of [...set.dirty, ...set.relogged]) dataFile.set(id, space.encodeBlock(id));
  for (const id of set.freed) dataFile.delete(id);
  space.finishCheckpointSet();
}

function restore(
  dataFile: ReadonlyMap<BlockId, Uint8Array>, schemas: Map<number, ContainerSchema>,
) {
  const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
  const stores = open(space, schemas);
  const result = restorePartition(space, { images: dataFile, rowStoreOf: (id) => stores.get(id) });
  space.checkInvariants();
  for (const store of stores.values()) store.checkInvariants();
  return { space, stores, result };
}

describe('block-space checkpoint', () => {
  it('round-trips a shared page of three tenants, one with a large value', () => {
    const schemas = new Map([[1, series('a')], [2, series('b')], [3, series('c')]]);
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const stores = open(space, schemas);
    stores.get(containerId(1))!.put(rowsOf(0, 3));
    stores.get(containerId(2))!.put(rowsOf(10, 1));
    const blob = new Uint8Array(20_000).map((_, i) => i & 255);
    stores.get(containerId(3))!.put([[5, 1.5, blob], [6, null, new Uint8Array([1, 2])]]);
    const [pageId] = stores.get(containerId(1))!.blockIds();
    const lvIds = stores.get(containerId(3))!.blockIds().slice(1);
    for (const store of stores.values()) assert.equal(store.blockIds()[0], pageId);
    assert.equal(space.blockKind(pageId!), BlockKind.SHARED);
    assert.deepStrictEqual(lvIds.map((id) => space.blockKind(id)), [BlockKind.LARGE_VALUE]);
    const dataFile = new Map<BlockId, Uint8Array>();
    const set = space.takeCheckpointSet();
    assert.deepStrictEqual(set.dirty, [pageId!, ...lvIds].sort((a, b) => a - b));
    for (const id of set.dirty) dataFile.set(id, space.encodeBlock(id));
    space.finishCheckpointSet();
    const tenants = decodeSharedPage(dataFile.get(pageId!)!, pageId!);
    assert.deepStrictEqual(tenants.map((t) => [t.containerId, t.rowCount]),
      [[1, 3], [2, 1], [3, 2]]);
    const restored = restore(dataFile, schemas);
    assert.deepStrictEqual(restored.result,
      { rowBlockCount: 3, largeValueCount: 1, orphanBlockIds: [] });
    for (const [id, store] of stores) {
      const copy = restored.stores.get(id)!;
      assert.deepStrictEqual(copy.scan({ direction: 'asc' }), store.scan({ direction: 'asc' }));
      assert.deepStrictEqual(copy.blockIds(), store.blockIds());
    }
    assert.deepStrictEqual(restored.space.liveBlockIds(), space.liveBlockIds());
    assert.equal(restored.space.blockKind(pageId!), BlockKind.SHARED);
    assert.equal(restored.space.dirtyBlockCount, 0, 'restored blocks are clean');
    // The page has room: a new tiny container joins it; a big one gets an id above the highest.
    const more = open(restored.space, new Map([[4, series('d')], [5, series('e', '#unique')]]));
    more.get(containerId(4))!.put(rowsOf(0, 1));
    more.get(containerId(5))!.put(rowsOf(0, 1));
    assert.equal(more.get(containerId(4))!.blockIds()[0], pageId);
    const newId = more.get(containerId(5))!.blockIds()[0];
    assert.equal(newId, Math.max(...dataFile.keys()) + 1);
    assert.deepStrictEqual(restored.space.takeCheckpointSet().dirty, [pageId, newId]);
  });

  it('reuses a block id freed in the interval it was born, and quarantines an older one', () => {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const store = open(space, new Map([[1, series('u', '#unique')]])).get(containerId(1))!;
    store.put(rowsOf(0, 10));
    const [x] = store.blockIds();
    store.clear();
    assert.equal(space.isDirty(x!), false);
    store.put(rowsOf(0, 10));
    assert.deepStrictEqual(store.blockIds(), [x], 'born and freed in one interval: reused');
    assert.deepStrictEqual(space.takeCheckpointSet(), { dirty: [x], freed: [], relogged: [], swapped: [] });
    space.encodeBlock(x!);
    space.finishCheckpointSet();
    store.clear();
    store.put(rowsOf(0, 10));
    const [y] = store.blockIds();
    assert.notEqual(y, x, 'x is in a checkpoint: quarantined');
    const set = space.takeCheckpointSet();
    assert.deepStrictEqual(set, { dirty: [y], freed: [x], relogged: [], swapped: [] });
    store.clear();
    store.put(rowsOf(0, 10));
    const [z] = store.blockIds();
    assert.ok(z !== x && z !== y, 'x waits for its FREE to be durable; y is pending');
    // y was freed after the take: encoded as it was then, and its kind still answered.
    assert.equal(decodeRowBlock(series('u', '#unique'), space.encodeBlock(y!)).rowCount, 10);
    assert.equal(space.isLive(y!), false);
    assert.equal(space.blockKind(y!), BlockKind.ROW);
    space.finishCheckpointSet();
    assert.throws(() => space.blockKind(y!), /neither live nor in the checkpoint set/);
    store.clear();
    store.put(rowsOf(0, 10));
    const [w] = store.blockIds();
    assert.equal(w, z, 'z was born in this interval');
    store.clear();
    store.put(rowsOf(100, 3000));
    assert.ok(store.blockIds().includes(x!), 'x reusable once its set finished');
    const next = space.takeCheckpointSet();
    assert.deepStrictEqual(next.freed, [y]);
    assert.ok(next.dirty.includes(x!));
    assert.equal(next.dirty.filter((id) => next.freed.includes(id)).length, 0);
  });

  it('copies a pending block once, on its first change after the take', () => {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const schema = series('u', '#unique');
    const store = open(space, new Map([[1, schema]])).get(containerId(1))!;
    store.put(rowsOf(0, 10));
    checkpoint(space, new Map());
    store.put(rowsOf(10, 1));
    const [x] = store.blockIds();
    assert.deepStrictEqual(space.takeCheckpointSet().dirty, [x]);
    assert.equal(space.copyOnWriteCount, 0);
    store.put(rowsOf(11, 1));
    assert.equal(space.copyOnWriteCount, 1);
    store.put(rowsOf(12, 1));
    store.remove([0]);
    assert.equal(space.copyOnWriteCount, 1, 'one copy per block');
    const snapshot = decodeRowBlock(schema, space.encodeBlock(x!));
    assert.deepStrictEqual(snapshot.readRow(0), [0, 0, null]);
    assert.equal(snapshot.rowCount, 11);
    store.put(rowsOf(13, 1));
    assert.equal(space.copyOnWriteCount, 1, 'encoded: no longer pending');
    assert.equal(decodeRowBlock(schema, space.encodeBlock(x!)).rowCount, 13, 'now: live');
    space.finishCheckpointSet();
    assert.deepStrictEqual(space.takeCheckpointSet().dirty, [x]);
    space.abandonCheckpointSet();
    assert.ok(space.isDirty(x!), 'an abandoned set is covered by the next');
    const relog = space.takeCheckpointSet({ relogIds: space.liveBlockIds() });
    assert.deepStrictEqual(relog, { dirty: [x], freed: [], relogged: [], swapped: [] }, 'dirty is not relogged');
    space.encodeBlock(x!);
    space.finishCheckpointSet();
  });

  it('copies the untouched neighbour a small block merges into', () => {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const schema = series('u', '#unique');
    const store = open(space, new Map([[1, schema]])).get(containerId(1))!;
    store.put(rowsOf(0, 4000));
    const blocks = [...store.blocksInOrder()];
    assert.equal(blocks.length, 3);
    const [, middle, last] = blocks;
    const middleKeys = [middle!.firstKey(), middle!.lastKey()] as number[];
    store.remove(Array.from({ length: 600 }, (_, i) => middleKeys[0]! + i));
    checkpoint(space, new Map());
    const snapshotRowCount = middle!.rowCount;
    space.takeCheckpointSet({ relogIds: space.liveBlockIds() });
    const lastKeys = [last!.firstKey(), last!.lastKey()] as number[];
    const removedCount = lastKeys[1]! - lastKeys[0]! - 10;
    store.remove(Array.from({ length: removedCount }, (_, i) => lastKeys[0]! + i));
    assert.equal(store.blockCount, 2, 'the last block merged into the middle one');
    assert.equal(middle!.rowCount, snapshotRowCount + 11);
    const image = space.encodeBlock(middle!.blockId!);
    assert.equal(decodeRowBlock(schema, image).rowCount, snapshotRowCount, 'as of the take');
  });

  it('re-logs cold blocks as of the take', () => {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const schema = series('u', '#unique');
    const store = open(space, new Map([[1, schema]])).get(containerId(1))!;
    store.put(rowsOf(0, 3000));
    checkpoint(space, new Map());
    const set = space.takeCheckpointSet({ relogIds: space.liveBlockIds() });
    assert.deepStrictEqual(set.relogged, store.blockIds());
    store.remove([0]);
    assert.equal(space.copyOnWriteCount, 1);
    const first = decodeRowBlock(schema, space.encodeBlock(set.relogged[0]!));
    assert.deepStrictEqual(first.firstKey(), 0);
    for (const id of set.relogged.slice(1)) space.encodeBlock(id);
    space.finishCheckpointSet();
  });

  it('reports blocks of a container that no longer exists, and frees them next', () => {
    const schemas = new Map([[1, series('a')], [2, series('b')], [3, series('c', '#unique')]]);
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    const stores = open(space, schemas);
    stores.get(containerId(1))!.put(rowsOf(0, 2));
    stores.get(containerId(2))!.put(rowsOf(0, 2));
    stores.get(containerId(3))!.put([[1, 1, new Uint8Array(40_000)]]);
    const dataFile = new Map<BlockId, Uint8Array>();
    checkpoint(space, dataFile);
    const gone = [2, 3];
    const restored = restore(dataFile,
      new Map([...schemas].filter(([id]) => !gone.includes(id))));
    const [pageId] = stores.get(containerId(1))!.blockIds();
    const orphanIds = stores.get(containerId(3))!.blockIds().sort((a, b) => a - b);
    assert.deepStrictEqual(restored.result.orphanBlockIds, orphanIds);
    assert.deepStrictEqual(restored.space.takeCheckpointSet(),
      { dirty: [pageId], freed: orphanIds, relogged: [], swapped: [] }, 'the page lost a tenant');
  });

  it('names the block of a damaged, foreign or misfiled image', () => {
    const schemas = new Map([[1, series('a', '#unique')]]);
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    open(space, schemas).get(containerId(1))!.put(rowsOf(0, 100));
    const dataFile = new Map<BlockId, Uint8Array>();
    checkpoint(space, dataFile);
    const [id, image] = [...dataFile][0]!;
    const corrupt = (images: Map<BlockId, Uint8Array>, pattern: RegExp) =>
      assert.throws(() => restore(images, schemas),
        (error) => isStorageError(error, 'CORRUPTION') && pattern.test(error.message));
    const damaged = image.slice();
    damaged[200]! ^= 1;
    corrupt(new Map([[id, damaged]]), new RegExp(`block ${id}: checksum`));
    corrupt(new Map([[id, new Uint8Array(BLOCK_SIZE_BYTES)]]), new RegExp(`block ${id}: unknown`));
    corrupt(new Map([[id, image.subarray(0, 4096)]]), new RegExp(`block ${id}: image of 4096`));
    corrupt(new Map([[7 as BlockId, image]]), /block 7 of container 1: the image is of block 0/);
    const renamed = new Map([[1, { ...series('a', '#unique'), schemaVersion: 2 }]]);
    assert.throws(() => restore(dataFile, renamed), /written under schema version 1/);
  });
});
