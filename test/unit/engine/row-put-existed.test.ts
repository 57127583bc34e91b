// The engine's two row calls for GridDB's PUT_ROW and gsGetRowForUpdate: putRow answers whether a
// row of its key existed as the session sees it, decided after any lock wait (so a row another
// transaction commits while the put waits counts); getForUpdate locks the key for the session's
// transaction without writing it, and needs a transaction. Time is virtual.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openTestStore, SENSORS, storageError, track } from './engine-test-helpers.ts';

describe('putRow and getForUpdate', () => {
  it('putRow answers whether the key had a row, in auto-commit and in a transaction', async () => {
    const test = await openTestStore();
    await test.store.createContainer(SENSORS);
    const auto = test.store.session().container('sensors');
    assert.equal(await auto.putRow(['a', 1n]), false);
    assert.equal(await auto.putRow(['a', 2n]), true);
    const manual = test.store.session().container('sensors');
    await manual.setAutoCommit(false);
    assert.equal(await manual.putRow(['b', 1n]), false);
    assert.equal(await manual.putRow(['b', 2n]), true, 'its own uncommitted row');
    await manual.commit();
    assert.deepStrictEqual(await auto.get('b'), ['b', 2n]);
    await test.store.close();
  });

  it('putRow decides after its lock wait: a row committed meanwhile existed', async () => {
    const test = await openTestStore();
    await test.store.createContainer(SENSORS);
    const holder = test.store.session().container('sensors');
    await holder.setAutoCommit(false);
    await holder.put(['a', 1n]);
    const put = test.store.session({ transactionTimeoutMs: 500 }).container('sensors')
      .putRow(['a', 2n]);
    const waited = track(put);
    await test.advanceMs(100);
    assert.equal(waited.settled, false, 'the put waits for the row lock');
    await holder.commit();
    await test.advanceMs(0);
    assert.equal(await put, true);
    await test.store.close();
  });

  it('getForUpdate locks the key until commit, and needs a transaction', async () => {
    const test = await openTestStore();
    await test.store.createContainer(SENSORS);
    const locker = test.store.session().container('sensors');
    await locker.put(['a', 1n]);
    await assert.rejects(locker.getForUpdate('a'), storageError('ILLEGAL_COMMIT_MODE'));
    await locker.setAutoCommit(false);
    assert.deepStrictEqual(await locker.getForUpdate('a'), ['a', 1n]);
    assert.equal(await locker.getForUpdate('z'), undefined);
    const writer = test.store.session({ transactionTimeoutMs: 50 }).container('sensors');
    const blocked = assert.rejects(writer.put(['a', 2n]), storageError('LOCK_TIMEOUT'));
    await test.advanceMs(50);
    await blocked;
    // A key that has no row is locked too.
    const waiting = test.store.session({ transactionTimeoutMs: 500 }).container('sensors')
      .put(['z', 3n]);
    const waited = track(waiting);
    await test.advanceMs(100);
    assert.equal(waited.settled, false);
    await locker.commit();
    await test.advanceMs(0);
    await waiting;
    assert.deepStrictEqual(await writer.get('a'), ['a', 1n]);
    await test.store.close();
  });
});
