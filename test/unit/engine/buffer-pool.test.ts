// The buffer pool through the engine: with storeMemoryLimit far below the data, blocks are evicted
// (dirty ones written first: swap writes) and read back on access (swap reads), and every read,
// write, checkpoint, crash and reopen sees exactly the rows a plain model holds.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Store } from '../../../lib/engine/store.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import { openTestStore, SENSORS } from './engine-test-helpers.ts';

const BLOCK_BYTES = 64 * 1024;
/** The pool's floor (BUFFER_POOL_BLOCK_COUNT_MIN) with one partition group. */
const TINY = { concurrency: 1, storeMemoryLimitBytes: 8 * BLOCK_BYTES };

function key(i: number): string {
  return `sensor-${String(i).padStart(7, '0')}`;
}

async function expectRows(store: Store, model: Map<string, bigint>): Promise<void> {
  const sensors = store.session().container('sensors');
  const expected = [...model].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, v]);
  const seen: Row[] = [];
  let from: string | undefined;
  for (;;) {
    const page = await sensors.scan({ ...(from === undefined ? {} : { from }), limit: 20_000 });
    const fresh = from === undefined ? page : page.slice(1);
    seen.push(...fresh);
    if (page.length < 20_000) break;
    from = page.at(-1)![0] as string;
  }
  assert.deepStrictEqual(seen, expected);
}

describe('buffer pool', () => {
  it('holds data several times its size: evicts, swaps out, reads back, all rows exact', async () => {
    const test = await openTestStore(TINY);
    await test.store.createContainer(structuredClone(SENSORS));
    const sensors = test.store.session().container('sensors');
    const model = new Map<string, bigint>();
    // Random order: merges touch blocks all over the container.
    const order = Array.from({ length: 60_000 }, (_, i) => (i * 7919) % 60_000);
    for (let at = 0; at < order.length; at += 3_000) {
      const rows = order.slice(at, at + 3_000).map((i) => [key(i), BigInt(i)]);
      await sensors.multiPut(rows);
      for (const [k, v] of rows) model.set(k as string, v as bigint);
    }
    // A batch spread over the whole container holds all of its blocks while it merges; the next
    // operation evicts back down to the limit.
    await sensors.get(key(1));
    const before = test.store.stats();
    assert.ok(before.swap.writeCount > 0, 'dirty blocks were written out');
    assert.ok(before.memory.residentBytes <= 8 * BLOCK_BYTES, `resident ${before.memory.residentBytes}`);
    await expectRows(test.store, model);
    for (let i = 0; i < 60_000; i += 977) {
      assert.deepStrictEqual(await sensors.get(key(i)), [key(i), BigInt(i)]);
    }
    const after = test.store.stats();
    assert.ok(after.swap.readCount > before.swap.readCount, 'blocks were read back');
    assert.equal(after.memory.overCapacityCount, before.memory.overCapacityCount,
      'reads hold one block at a time');

    await test.store.checkpoint();
    for (let i = 0; i < 60_000; i += 13) {
      await sensors.remove(key(i));
      model.delete(key(i));
    }
    await sensors.put([key(5), -5n]);
    model.set(key(5), -5n);
    await expectRows(test.store, model);
    test.fileSystem.crash();
    const store = await Store.open({
      home: '/h', options: test.options, fileSystem: test.fileSystem, scheduler: test.scheduler,
    });
    await expectRows(store, model);
    await store.close();
    const reopened = await Store.open({
      home: '/h', options: test.options, fileSystem: test.fileSystem, scheduler: test.scheduler,
    });
    assert.equal(reopened.recovery!.recordCount, 0);
    await expectRows(reopened, model);
    await reopened.close();
  });

  it('rows with large values are evicted and read back with the same values', async () => {
    const test = await openTestStore(TINY);
    await test.store.createContainer({
      name: 'images', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'image', type: 'BLOB' }],
    });
    const images = test.store.session().container('images');
    const blob = (i: number) => new Uint8Array(20_000 + i).fill(i % 251);
    for (let i = 0; i < 40; i++) await images.put([i, blob(i)]);
    await test.store.checkpoint();
    for (let i = 0; i < 40; i += 3) await images.put([i, blob(i + 1)]);
    await images.get(0);
    const held = test.store.stats().memory;
    assert.ok(held.largeValue.useBytes >= 40 * BLOCK_BYTES, 'a block per value');
    assert.ok(held.residentBytes <= 8 * BLOCK_BYTES, `resident ${held.residentBytes}`);
    assert.ok(test.store.evictAll() > 0);
    assert.equal(test.store.stats().memory.largeValue.residentBytes, 0);
    const expected = (i: number) => [i, i % 3 === 0 ? blob(i + 1) : blob(i)];
    for (let i = 39; i >= 0; i--) assert.deepStrictEqual(await images.get(i), expected(i));
    assert.ok(test.store.stats().memory.residentBytes <= 8 * BLOCK_BYTES);
    test.fileSystem.crash();
    const store = await Store.open({
      home: '/h', options: test.options, fileSystem: test.fileSystem, scheduler: test.scheduler,
    });
    store.evictAll();
    const rows = await store.session().container('images').scan();
    assert.deepStrictEqual(rows, Array.from({ length: 40 }, (_, i) => expected(i)));
    await store.close();
  });

  for (const storeCompressionMode of ['NO_COMPRESSION', 'COMPRESSION'] as const) {
    it(`gets read rows from evicted blocks' images (${storeCompressionMode}); a write or ` +
      'scan after them decodes the image', async () => {
      const test = await openTestStore({ ...TINY, storeCompressionMode });
      await test.store.createContainer({
        name: 'points', type: 'COLLECTION', rowKey: true, dataAffinity: '#unique',
        columns: [
          { name: 'id', type: 'INTEGER' }, { name: 's', type: 'STRING' },
          { name: 'a', type: 'LONG', array: true },
          { name: 't', type: 'TIMESTAMP', timePrecision: 'NANOSECOND' },
          { name: 'f', type: 'BOOL' }, { name: 'b', type: 'BLOB' },
        ],
      });
      const points = test.store.session().container('points');
      // Every 500th row carries a large value (kept out of line, read through its reference).
      const row = (i: number, version = 0): Row => [
        i, i % 5 === 0 ? null : `s${i}-${version} ✓`, i % 7 === 0 ? null : [BigInt(i), -1n],
        i % 3 === 0 ? null : BigInt(i) * 10n ** 16n, i % 4 === 0 ? null : i % 2 === 0,
        new Uint8Array(i % 500 === 0 ? 20_000 : i % 9).fill(i % 251),
      ];
      const model = new Map<number, Row>();
      for (let at = 0; at < 12_000; at += 2_000) {
        const rows = Array.from({ length: 2_000 }, (_, i) => row(at + i));
        await points.multiPut(rows);
        for (const r of rows) model.set(r[0] as number, r);
      }
      await test.store.checkpoint();
      assert.ok(test.store.evictAll() > 0);
      const readsBefore = test.store.stats().swap.readCount;
      const probes = Array.from({ length: 400 }, (_, n) => (n * 7919) % 12_001);
      for (const i of probes) assert.deepStrictEqual(await points.get(i), model.get(i), `get ${i}`);
      assert.ok(test.store.stats().swap.readCount > readsBefore, 'blocks were read back');
      assert.ok(test.store.stats().memory.residentBytes <= 8 * BLOCK_BYTES);
      // Writes into blocks now held as images, then a scan of every block, then gets again.
      for (const i of probes.slice(0, 40)) {
        await points.put(row(i, 1));
        model.set(i, row(i, 1));
      }
      const expected = [...model.values()].sort((a, b) => (a[0] as number) - (b[0] as number));
      assert.deepStrictEqual(await points.scan(), expected);
      for (const i of probes) assert.deepStrictEqual(await points.get(i), model.get(i), `get ${i}`);
      await test.store.close();
    });
  }

  it('restores a large value of two blocks into a pool of one block', async () => {
    const test = await openTestStore({
      concurrency: 1, partitionNum: 1, storeMemoryLimitBytes: BLOCK_BYTES,
    });
    await test.store.createContainer({
      name: 'b', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'STRING' }, { name: 'v', type: 'BLOB' }],
    });
    const value = new Uint8Array(100_000).fill(7);
    await test.store.session().container('b').put(['', value]);
    const store = await test.reopen();
    assert.deepStrictEqual(await store.session().container('b').get(''), ['', value]);
    await store.close();
  });

  it('swapped blocks are adopted by the next checkpoint and survive a crash', async () => {
    const test = await openTestStore(TINY);
    const names = Array.from({ length: 40 }, (_, i) => `small-${i}`);
    // Small containers share pages: a page is evicted and loaded whole, its tenants by key.
    for (const name of names) await test.store.createContainer({ ...structuredClone(SENSORS), name });
    const model = new Map<string, Map<string, bigint>>();
    for (let round = 0; round < 3; round++) {
      for (const [n, name] of names.entries()) {
        const rows = Array.from({ length: 150 }, (_, i) => [key(round * 1000 + i), BigInt(n)]);
        await test.store.session().container(name).multiPut(rows);
        const rowsOf = model.get(name) ?? new Map<string, bigint>();
        for (const [k, v] of rows) rowsOf.set(k as string, v as bigint);
        model.set(name, rowsOf);
      }
      if (round === 1) await test.store.checkpoint();
    }
    await test.store.dropContainer('small-3');
    model.delete('small-3');
    await test.store.checkpoint();
    test.fileSystem.crash();
    const store = await Store.open({
      home: '/h', options: test.options, fileSystem: test.fileSystem, scheduler: test.scheduler,
    });
    for (const [name, rowsOf] of model) {
      const expected = [...rowsOf].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, v]);
      assert.deepStrictEqual(await store.session().container(name).scan(), expected, name);
    }
    assert.ok(store.stats().memory.residentBytes <= 8 * BLOCK_BYTES);
    await store.close();
  });
});
