// Checkpoints through the engine: after a checkpoint, recovery restores the blocks and replays only
// the xlog records after the checkpoint LSN; a clean close checkpoints, so the next open replays
// nothing; a crash right after a checkpoint loses nothing acknowledged.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Store } from '../../../lib/engine/store.ts';
import { openTestStore, SENSORS } from './engine-test-helpers.ts';

async function rows(store: Store) {
  return store.session().container('sensors').scan();
}

describe('checkpoints', () => {
  it('recovery after a checkpoint replays only the xlog tail', async () => {
    const test = await openTestStore();
    await test.store.createContainer(structuredClone(SENSORS));
    const sensors = test.store.session().container('sensors');
    for (let i = 0; i < 10; i++) await sensors.put([`k${i}`, BigInt(i)]);
    await test.store.checkpoint();
    await sensors.put(['k3', 33n]);
    await sensors.remove('k4');
    await sensors.put(['z', -1n]);
    const expected = await rows(test.store);
    test.fileSystem.crash();
    const store = await Store.open({
      home: '/h', options: test.options, fileSystem: test.fileSystem, scheduler: test.scheduler,
    });
    assert.equal(store.recovery!.recordCount, 3, 'only the three records after the checkpoint');
    assert.deepStrictEqual(await rows(store), expected);
    await store.close();
  });

  it('a clean close checkpoints: the next open replays nothing and has every row', async () => {
    const test = await openTestStore({ partialCheckpointInterval: 2 });
    await test.store.createContainer(structuredClone(SENSORS));
    for (let round = 0; round < 4; round++) {
      const sensors = test.store.session().container('sensors');
      await sensors.multiPut(Array.from({ length: 50 }, (_, i) => [`r${round}-${i}`, BigInt(i)]));
      if (round % 2 === 1) await sensors.remove(`r${round - 1}-7`);
      const expected = await rows(test.store);
      const store = await test.reopen();
      assert.equal(store.recovery!.recordCount, 0);
      assert.deepStrictEqual(await rows(store), expected);
    }
    await test.store.close();
  });

  it('a dropped container stays dropped, and a new one reuses nothing of it', async () => {
    const test = await openTestStore();
    await test.store.createContainer(structuredClone(SENSORS));
    await test.store.session().container('sensors').put(['a', 1n]);
    await test.store.checkpoint();
    await test.store.dropContainer('sensors');
    await test.store.checkpoint();
    await test.store.createContainer(structuredClone(SENSORS));
    await test.store.session().container('sensors').put(['b', 2n]);
    test.fileSystem.crash();
    const store = await Store.open({
      home: '/h', options: test.options, fileSystem: test.fileSystem, scheduler: test.scheduler,
    });
    assert.deepStrictEqual(await rows(store), [['b', 2n]]);
    await store.close();
  });
});
