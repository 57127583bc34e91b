import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AssertionError } from '../../../lib/base/assert.ts';
import { isStorageError } from '../../../lib/base/errors.ts';
import { containerId } from '../../../lib/base/ids.ts';
import { decodeRowBlock, encodeRowBlock } from '../../../lib/block/block-format.ts';
import { BlockSpace } from '../../../lib/block/block-space.ts';
import { RowStore } from '../../../lib/block/row-store.ts';
import { INT64_MAX, INT64_MIN, type Row } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';

const column = (name: string, type: ColumnSchema['type'], notNull = false): ColumnSchema =>
  ({ name, type, array: false, notNull });

function schemaOf(columns: ColumnSchema[], rowKeyColumnCount: number): ContainerSchema {
  return {
    name: 's', type: 'COLLECTION', columns, rowKeyColumnCount, indexes: [], schemaVersion: 1,
  };
}

const tsbs = schemaOf([
  column('ts', 'TIMESTAMP', true),
  ...Array.from({ length: 10 }, (_, i) => column(`usage_${i}`, 'DOUBLE')),
], 1);

function open(schema: ContainerSchema, blockSizeBytes = 32 * 1024) {
  const space = new BlockSpace({ blockSizeBytes });
  const store = new RowStore({ containerId: containerId(1), schema, blockSizeBytes, space });
  return { space, store };
}

const tsbsRow = (ms: number): Row =>
  [ms, ...Array.from({ length: 10 }, (_, c) => (c === 3 ? null : ms / 7 + c))];

describe('row-store', () => {
  it('appends in-order time series into full blocks', () => {
    const { store, space } = open(tsbs);
    for (let batch = 0; batch < 4; batch++) {
      store.put(Array.from({ length: 5000 }, (_, i) => tsbsRow((batch * 5000 + i) * 1000)));
    }
    store.checkInvariants();
    assert.equal(store.count(), 20_000);
    const blocks = [...store.blocksInOrder()];
    // 8 B key + 10 × 8 B values + 10 null bits per row: about 370 rows in a 32 KB block.
    for (const block of blocks.slice(0, -1)) {
      assert.ok(block.usedBytes > 32 * 1024 - 100, 'blocks are full');
    }
    assert.equal(space.bytesInUse, store.usedBytes);
    assert.deepStrictEqual(store.get(7_000_000), tsbsRow(7_000_000));
    assert.deepStrictEqual(store.scan({ from: 5000, to: 9999, direction: 'desc' }),
      [9000, 8000, 7000, 6000, 5000].map(tsbsRow));
  });

  it('puts each host\'s next rows between two hosts\' blocks into full blocks, as an ordered ingest', () => {
    // Keyed by host, then time, written as TSBS does: every host's next 1,000 rows in turn, so
    // each batch goes between the blocks of the host before and of the host after.
    const schema = schemaOf([column('host', 'STRING', true), ...tsbs.columns], 2);
    const { store, space } = open(schema);
    const hostCount = 12;
    const rowsPerBatch = 1000;
    const passCount = 4;
    for (let pass = 0; pass < passCount; pass++) {
      for (let h = 0; h < hostCount; h++) {
        store.put(Array.from({ length: rowsPerBatch }, (_, i) =>
          [`host_${h}`, ...tsbsRow((pass * rowsPerBatch + i) * 1000)]));
      }
    }
    store.checkInvariants();
    const rowCount = hostCount * rowsPerBatch * passCount;
    assert.equal(store.count(), rowCount);
    assert.deepStrictEqual(store.get(['host_3', 2_500_000]), ['host_3', ...tsbsRow(2_500_000)]);
    // About 350 rows fill a 32 KB block: 138 blocks at the least (156 here). Splitting in half
    // each block that a host's rows go into left a trail of half, quarter, … full blocks (339).
    const blocksFullCount = Math.ceil(rowCount / 350);
    assert.ok(store.blockCount <= blocksFullCount + 2 * hostCount,
      `${store.blockCount} blocks for ${rowCount} rows (${blocksFullCount} full ones)`);
    assert.equal(space.bytesInUse, store.usedBytes);
  });

  it('upserts out-of-order rows and replaces by key', () => {
    const { store } = open(tsbs);
    store.put([tsbsRow(30), tsbsRow(10), tsbsRow(20)]);
    store.put([tsbsRow(20).map((v, c) => (c === 1 ? -1 : v)), tsbsRow(5), tsbsRow(5)]);
    store.checkInvariants();
    assert.equal(store.count(), 4);
    assert.deepStrictEqual(store.scan({ direction: 'asc' }).map((row) => row[0]), [5, 10, 20, 30]);
    assert.equal(store.get(20)![1], -1);
    assert.equal(store.remove([10, 11, 10]), 1);
    assert.equal(store.has(10), false);
  });

  it('merges shuffled batches block by block; the last row of a key in a batch wins', () => {
    const { store, space } = open(tsbs);
    const model = new Map<number, Row>();
    let seed = 1;
    const random = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    store.put(Array.from({ length: 3000 }, (_, i) => tsbsRow(i * 100)));
    for (let i = 0; i < 3000; i++) model.set(i * 100, tsbsRow(i * 100));
    for (let batch = 0; batch < 8; batch++) {
      // Keys below, among and above the stored ones, with many repeats inside the batch.
      const rows = Array.from({ length: 2500 }, (_, i): Row => {
        const ms = Math.floor(random() * 340_000) - 20_000;
        return [ms, ...tsbsRow(ms).slice(1, 10), batch * 10_000 + i];
      });
      store.put(rows);
      for (const row of rows) model.set(row[0] as number, row);
      store.checkInvariants();
      assert.equal(store.count(), model.size);
    }
    const expected = [...model.keys()].sort((a, b) => a - b).map((key) => model.get(key)!);
    assert.deepStrictEqual(store.scan({ direction: 'asc' }), expected);
    assert.equal(space.bytesInUse, store.usedBytes);
    const fullPercent = (store.usedBytes / store.blockCount / (32 * 1024)) * 100;
    assert.ok(fullPercent > 60, `blocks ${fullPercent.toFixed(0)}% full on average`);
  });

  it('supports LONG keys at the int64 extremes, STRING keys and composite keys', () => {
    const long = open(schemaOf([column('k', 'LONG', true), column('v', 'STRING')], 1)).store;
    long.put([[INT64_MAX, 'max'], [0n, 'zero'], [INT64_MIN, 'min']]);
    const values = long.scan({ direction: 'asc' }).map((row) => row[1]);
    assert.deepStrictEqual(values, ['min', 'zero', 'max']);
    assert.deepStrictEqual(long.get([INT64_MIN]), [INT64_MIN, 'min']);
    assert.deepStrictEqual(long.get(0), [0n, 'zero'], 'a safe number finds a LONG key');

    const text = open(schemaOf([column('k', 'STRING', true)], 1)).store;
    text.put([['b'], ['\u{10000}'], ['\uFFFF'], [''], ['a']]);
    const keys = text.scan({ direction: 'asc' }).map((row) => row[0]);
    assert.deepStrictEqual(keys, ['', 'a', 'b', '\u{10000}', '\uFFFF']);

    const composite = open(schemaOf([column('a', 'STRING', true), column('b', 'INTEGER', true),
      column('v', 'DOUBLE')], 2)).store;
    composite.put([['x', 2, 1], ['x', 1, 2], ['w', 9, 3], ['y', 0, 4]]);
    const inX = composite.scan({ from: ['x', 0], to: ['x', 9], direction: 'asc' });
    assert.deepStrictEqual(inX.map((row) => row[2]), [2, 1]);
    assert.equal(composite.rowCountInRange({ from: ['x', 2] }), 2);
    assert.equal(composite.remove([['x', 1]]), 1);
    composite.checkInvariants();
  });

  it('keyless collections append with rowIds that keep counting after clear', () => {
    const schema = schemaOf([column('v', 'STRING')], 0);
    const { store } = open(schema);
    store.put([['a'], ['b'], ['c']]);
    const copy = open(schema).store;
    copy.restoreBlock(decodeRowBlock(schema, encodeRowBlock([...store.blocksInOrder()][0]!)));
    copy.put([['d']]);
    assert.deepStrictEqual(copy.get(3), ['d'], 'rowIds continue after restored blocks');
    assert.equal(store.remove([1]), 1);
    assert.deepStrictEqual(store.get(2), ['c']);
    const batches = [...store.scanBatches({ direction: 'asc' })];
    assert.deepStrictEqual(batches.flatMap((batch) => [...batch.rowIds!]), [0, 2]);
    store.clear();
    store.put([['d']]);
    assert.equal(store.nextRowId, 4);
    assert.deepStrictEqual(store.get(3), ['d']);
  });

  it('refuses a row whose key alone is larger than a block, changing nothing', () => {
    const schema = schemaOf([column('a', 'STRING', true), column('b', 'STRING', true),
      column('v', 'BLOB')], 2);
    const { store, space } = open(schema);
    store.put([['a', 'b', new Uint8Array(10)]]);
    // Keys stay inline (blocks compare them); the BLOB would go out of line, the key cannot.
    const big = 'x'.repeat(17_000);
    assert.throws(() => store.put([['c', 'd', new Uint8Array(50_000)], [big, big, null]]),
      (error) => isStorageError(error, 'LIMIT_EXCEEDED'));
    assert.equal(store.count(), 1);
    assert.equal(store.largeValueBlockCount, 0);
    assert.equal(space.blockCount, 1);
    store.checkInvariants();
  });

  it('copies BLOBs and arrays on the way in', () => {
    const { store } = open(schemaOf([column('k', 'INTEGER', true), column('b', 'BLOB'),
      { name: 'a', type: 'INTEGER', array: true, notNull: false }], 1));
    const blob = new Uint8Array([1, 2]);
    const array = [1, 2];
    store.put([[1, blob, array]]);
    blob[0] = 9;
    array[0] = 9;
    assert.deepStrictEqual(store.get(1), [1, new Uint8Array([1, 2]), [1, 2]]);
  });

  it('adds columns (NULL or the empty value), splitting blocks that outgrow their size', () => {
    const { store } = open(tsbs);
    store.put(Array.from({ length: 3000 }, (_, i) => tsbsRow(i)));
    const blockCount = store.blockCount;
    const added = [column('tag', 'STRING', true), column('n', 'LONG')];
    const wider = { ...tsbs, schemaVersion: 2, columns: [...tsbs.columns, ...added] };
    store.addColumn(wider);
    store.checkInvariants();
    assert.ok(store.blockCount > blockCount, 'full blocks split');
    assert.deepStrictEqual(store.get(42), [...tsbsRow(42), '', null]);
    store.put([[...tsbsRow(5000), 'x', 7n]]);
    const columns = wider.columns.map((c) => (c.name === 'tag' ? { ...c, name: 'label' } : c));
    const renamed = { ...wider, schemaVersion: 3, columns };
    store.renameColumn(renamed);
    assert.equal(store.schema.columns[11]!.name, 'label');
    assert.deepStrictEqual(store.get(5000), [...tsbsRow(5000), 'x', 7n]);
  });

  it('refuses addColumn when a row would no longer fit, changing nothing', () => {
    const schema = schemaOf([column('k', 'STRING', true), column('b', 'BLOB')], 1);
    const { store } = open(schema);
    // Header, two length prefixes, null bitmap: the key (inline always) fills the block.
    const keyBytesMax = 32 * 1024 - 32 - 4 - 4 - 1;
    store.put([['k'.repeat(keyBytesMax), null]]);
    const columns = [...schema.columns, column('n', 'LONG', true)];
    const wider = { ...schema, schemaVersion: 2, columns };
    assert.throws(() => store.addColumn(wider), (error) => isStorageError(error, 'LIMIT_EXCEEDED'));
    assert.equal(store.schema, schema);
    store.checkInvariants();
  });

  it('scanBatches hands out typed-array views, projected, in blocks from the end for desc', () => {
    const { store } = open(tsbs);
    store.put(Array.from({ length: 1000 }, (_, i) => tsbsRow(i)));
    let sum = 0;
    let rowCount = 0;
    const firstKeys: number[] = [];
    for (const batch of store.scanBatches({ direction: 'desc', columnIndexes: [1, 0, 4] })) {
      const [usage0, ts, usage3] = batch.columns;
      assert.ok(usage0!.values instanceof Float64Array);
      assert.equal(usage3!.nulls![0], 1);
      sum += (usage0!.values as Float64Array).reduce((a, b) => a + b, 0);
      rowCount += batch.rowCount;
      const keys = ts!.values as Float64Array;
      assert.ok(keys[0]! < keys[keys.length - 1]!, 'ascending inside a batch');
      firstKeys.push(keys[0]!);
    }
    assert.equal(rowCount, 1000);
    const fromTheEnd = firstKeys.every((key, i) => i === 0 || key < firstKeys[i - 1]!);
    assert.ok(fromTheEnd, 'batches from the end');
    const expected = Array.from({ length: 1000 }, (_, i) => i / 7).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - expected) < 1e-6);
  });

  it('asserts when changed during a scan', () => {
    const { store } = open(tsbs);
    store.put(Array.from({ length: 1000 }, (_, i) => tsbsRow(i)));
    assert.throws(() => {
      for (const batch of store.scanBatches({ direction: 'asc' })) {
        store.put([tsbsRow(batch.rowCount + 5000)]);
      }
    }, AssertionError);
  });

  it('merges nearly empty blocks after removes and gives space back', () => {
    const { store, space } = open(tsbs);
    store.put(Array.from({ length: 4000 }, (_, i) => tsbsRow(i)));
    const blockCount = store.blockCount;
    store.remove(Array.from({ length: 4000 }, (_, i) => i).filter((i) => i % 20 !== 0));
    store.checkInvariants();
    assert.equal(store.count(), 200);
    assert.ok(store.blockCount < blockCount / 4, `${store.blockCount} of ${blockCount} left`);
    assert.equal(space.bytesInUse, store.usedBytes);
    store.drop();
    assert.equal(space.blockCount, 0);
  });

  it('its blocks survive an encode / decode round trip into a new store', () => {
    const schema = schemaOf(
      [column('k', 'STRING', true), column('v', 'LONG'), column('b', 'BLOB')], 1);
    const { store } = open(schema);
    store.put(Array.from({ length: 500 },
      (_, i) => [`k${i}`, BigInt(i) - 250n, new Uint8Array(i % 200)]));
    const space = new BlockSpace({ blockSizeBytes: 32 * 1024 });
    const restored = new RowStore({
      containerId: containerId(1), schema, blockSizeBytes: 32 * 1024, space,
    });
    const pooled = new Uint8Array(32 * 1024);
    for (const block of store.blocksInOrder()) {
      restored.restoreBlock(decodeRowBlock(schema, encodeRowBlock(block, pooled), block.blockId));
    }
    restored.checkInvariants();
    assert.deepStrictEqual(restored.scan({ direction: 'asc' }), store.scan({ direction: 'asc' }));
    assert.equal(space.bytesInUse, store.usedBytes);
  });
});
