// The commit journal through the engine (logWriteMode 0): commits acknowledged on the journal's sync
// survive a power cut that takes every unsynced xlog byte; recovery moves them into the xlogs; a
// clean close leaves no journal; a restart with another concurrency or log write mode still finds
// them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storageOptions } from '../../../lib/base/options.ts';
import { Store } from '../../../lib/engine/store.ts';
import { HOME, openTestStore, SENSORS, type TestStore } from './engine-test-helpers.ts';

const CONTAINER_COUNT = 8;
const JOURNAL_DIRECTORY = `${HOME}/txnlog/journal`;

function name(index: number): string {
  return `sensors_${index}`;
}

/** Puts `count` rows into each container, all at once, and waits for every acknowledgement. */
async function putRows(store: Store, from: number, count: number): Promise<void> {
  const session = store.session();
  await Promise.all(Array.from({ length: CONTAINER_COUNT }, async (_, c) => {
    const container = session.container(name(c));
    for (let i = from; i < from + count; i++) await container.put([`k${i}`, BigInt(c * 1000 + i)]);
  }));
}

async function expectRows(store: Store, count: number): Promise<void> {
  for (let c = 0; c < CONTAINER_COUNT; c++) {
    const rows = await store.session().container(name(c)).scan();
    assert.equal(rows.length, count, name(c));
    for (const [key, value] of rows) {
      assert.equal(value, BigInt(c * 1000 + Number(String(key).slice(1))));
    }
  }
}

async function storeWithRows(): Promise<TestStore> {
  const test = await openTestStore({ partitionNum: 8, concurrency: 2 });
  for (let c = 0; c < CONTAINER_COUNT; c++) {
    await test.store.createContainer({ ...structuredClone(SENSORS), name: name(c) });
  }
  // Containers exist durably in the data files from here; the rows live only in logs.
  await test.store.checkpoint();
  await putRows(test.store, 0, 20);
  return test;
}

function reopen(test: TestStore, overrides: Parameters<typeof storageOptions>[0] = {}) {
  return Store.open({
    home: HOME, options: storageOptions({ ...test.options, ...overrides }),
    fileSystem: test.fileSystem, scheduler: test.scheduler,
  });
}

describe('commit journal', () => {
  it('keeps every acknowledged commit through a power cut, with the xlogs never synced', async () => {
    const test = await storeWithRows();
    const syncs = test.store.stats().log;
    assert.ok(syncs.flushCount < 8 * 20, `${syncs.flushCount} syncs for 160 commits`);
    test.fileSystem.crash({ tornWrites: true });
    const store = await reopen(test);
    assert.ok(store.recovery!.journaledRecordCount > 0);
    await expectRows(store, 20);
    // Recovery wrote them into the xlogs: a second power cut right away loses nothing either.
    test.fileSystem.crash({ tornWrites: true });
    const again = await reopen(test);
    await expectRows(again, 20);
    await putRows(again, 20, 5);
    await again.close();
    assert.deepEqual(test.fileSystem.list(JOURNAL_DIRECTORY), [], 'a clean close removes it');
    const clean = await reopen(test);
    assert.equal(clean.recovery!.journaledRecordCount, 0);
    await expectRows(clean, 25);
    await clean.close();
  });

  it('recovers with another concurrency, then removes the other layout\'s files', async () => {
    const test = await storeWithRows();
    test.fileSystem.crash();
    assert.deepEqual(test.fileSystem.list(JOURNAL_DIRECTORY), ['0-3_1.journal', '4-7_1.journal']);
    const store = await reopen(test, { concurrency: 1 });
    await expectRows(store, 20);
    assert.deepEqual(test.fileSystem.list(JOURNAL_DIRECTORY), ['0-7_1.journal']);
    await store.close();
  });

  it('recovers under logWriteMode 1, which keeps no journal', async () => {
    const test = await storeWithRows();
    test.fileSystem.crash();
    const store = await reopen(test, { logWriteMode: 1 });
    await expectRows(store, 20);
    assert.deepEqual(test.fileSystem.list(JOURNAL_DIRECTORY), []);
    await store.close();
  });
});
