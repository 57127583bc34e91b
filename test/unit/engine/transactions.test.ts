// Transactions through the public API: READ_COMMITTED isolation, abort, atomic commit, durability
// before visibility, row locks (waits, wake-ups, LOCK_TIMEOUT), DDL against open transactions,
// transaction timeouts, setAutoCommit(true) and session close. Time is virtual
// (engine-test-helpers): a lock wait ends only when its holder lets go or when the test moves the
// clock past it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Row } from '../../../lib/schema/column-type.ts';
import {
  openTestStore, SENSORS, settle, storageError, track, type TestStore,
} from './engine-test-helpers.ts';

/** A store with `sensors` holding a = 1 and b = 2, committed. */
async function storeWithSensors(): Promise<TestStore> {
  const test = await openTestStore();
  await test.store.createContainer(SENSORS);
  await test.store.session().container('sensors').multiPut([['a', 1n], ['b', 2n]]);
  return test;
}

async function committedRows(test: TestStore): Promise<Row[]> {
  const session = test.store.session();
  try {
    return await session.container('sensors').scan();
  } finally {
    session.close();
  }
}

describe('transactions: isolation', () => {
  it('hides uncommitted changes from other sessions and shows them to their own', async () => {
    const test = await storeWithSensors();
    const writer = test.store.session().container('sensors');
    const reader = test.store.session().container('sensors');
    await writer.setAutoCommit(false);
    await writer.put(['a', 10n]);
    await writer.put(['c', 3n]);
    assert.equal(await writer.remove('b'), true);
    assert.equal(await writer.remove('b'), false, 'removed already, as the transaction sees it');

    assert.deepStrictEqual(await writer.get('a'), ['a', 10n]);
    assert.equal(await writer.get('b'), undefined);
    assert.deepStrictEqual(await writer.scan(), [['a', 10n], ['c', 3n]]);
    assert.deepStrictEqual(await writer.scan({ direction: 'desc', limit: 1 }), [['c', 3n]]);
    assert.deepStrictEqual(await writer.scan({ from: 'b', to: 'z' }), [['c', 3n]]);
    assert.equal(await writer.count(), 2);

    assert.deepStrictEqual(await reader.get('a'), ['a', 1n]);
    assert.deepStrictEqual(await reader.get('b'), ['b', 2n]);
    assert.equal(await reader.get('c'), undefined);
    assert.deepStrictEqual(await reader.scan({ direction: 'desc' }), [['b', 2n], ['a', 1n]]);
    assert.equal(await reader.count(), 2);
    assert.equal(test.store.getContainerInfo('sensors')?.rowCount, 2);

    await writer.commit();
    assert.deepStrictEqual(await reader.scan(), [['a', 10n], ['c', 3n]]);
    assert.equal(await reader.count(), 2);
    await test.store.close();
  });

  it('keeps a transaction private from the same container handle of another session', async () => {
    const test = await storeWithSensors();
    const first = test.store.session().container('sensors');
    const second = test.store.session().container('sensors');
    await first.setAutoCommit(false);
    await second.setAutoCommit(false);
    await first.put(['x', 1n]);
    await second.put(['y', 2n]);
    assert.deepStrictEqual(await first.scan(), [['a', 1n], ['b', 2n], ['x', 1n]]);
    assert.deepStrictEqual(await second.scan(), [['a', 1n], ['b', 2n], ['y', 2n]]);
    await second.commit();
    assert.deepStrictEqual(await first.scan(), [['a', 1n], ['b', 2n], ['x', 1n], ['y', 2n]],
      'READ_COMMITTED: a later read sees what others committed meanwhile');
    await test.store.close();
  });
});

describe('transactions: abort and commit', () => {
  it('abort discards every change, and the handle goes on with a new transaction', async () => {
    const test = await storeWithSensors();
    const writer = test.store.session().container('sensors');
    await writer.setAutoCommit(false);
    await writer.put(['a', 10n]);
    await writer.remove('b');
    await writer.abort();
    assert.deepStrictEqual(await writer.scan(), [['a', 1n], ['b', 2n]]);
    await writer.put(['c', 3n]);
    await writer.commit();
    assert.deepStrictEqual(await committedRows(test), [['a', 1n], ['b', 2n], ['c', 3n]]);
    await test.reopen();
    assert.deepStrictEqual(await committedRows(test), [['a', 1n], ['b', 2n], ['c', 3n]]);
    await test.store.close();
  });

  it('commit applies all changes in one record, visible together only once durable', async () => {
    const test = await storeWithSensors();
    const writer = test.store.session().container('sensors');
    await writer.setAutoCommit(false);
    await writer.multiPut([['c', 3n], ['d', 4n]]);
    await writer.remove('a');
    const syncsBefore = test.fileSystem.counters.datasyncCount;
    const commit = writer.commit();
    // A SimFileSystem datasync takes a macrotask; until then nothing of the commit may show.
    for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    assert.deepStrictEqual(await committedRows(test), [['a', 1n], ['b', 2n]]);
    await commit;
    assert.ok(test.fileSystem.counters.datasyncCount > syncsBefore, 'acknowledged after datasync');
    assert.deepStrictEqual(await committedRows(test), [['b', 2n], ['c', 3n], ['d', 4n]]);
    const recordsBefore = await recoveredRecordCount(test);
    const again = test.store.session().container('sensors');
    await again.setAutoCommit(false);
    await again.put(['e', 5n]);
    await again.remove('b');
    await again.commit();
    assert.equal(await recoveredRecordCount(test), recordsBefore + 1, 'one xlog record per commit');
    assert.deepStrictEqual(await committedRows(test), [['c', 3n], ['d', 4n], ['e', 5n]]);
    await test.store.close();
  });

  it('an auto-commit write is invisible to others until it is durable', async () => {
    const test = await storeWithSensors();
    const put = test.store.session().container('sensors').put(['c', 3n]);
    for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    assert.equal(await test.store.session().container('sensors').get('c'), undefined);
    await put;
    assert.deepStrictEqual(await test.store.session().container('sensors').get('c'), ['c', 3n]);
    await test.store.close();
  });

  it('setAutoCommit(true) commits the pending changes', async () => {
    const test = await storeWithSensors();
    const writer = test.store.session().container('sensors');
    await writer.setAutoCommit(false);
    assert.equal(writer.isAutoCommit, false);
    await writer.put(['c', 3n]);
    await writer.remove('a');
    assert.deepStrictEqual(await committedRows(test), [['a', 1n], ['b', 2n]]);
    await writer.setAutoCommit(true);
    assert.equal(writer.isAutoCommit, true);
    assert.deepStrictEqual(await committedRows(test), [['b', 2n], ['c', 3n]]);
    await writer.put(['d', 4n]); // auto-commit again: visible at once
    assert.deepStrictEqual(await committedRows(test), [['b', 2n], ['c', 3n], ['d', 4n]]);
    await test.store.close();
  });

  it('a clean close aborts open transactions; what was committed survives the reopen', async () => {
    const test = await storeWithSensors();
    const writer = test.store.session().container('sensors');
    await writer.setAutoCommit(false);
    await writer.put(['c', 3n]);
    await test.reopen();
    assert.deepStrictEqual(await committedRows(test), [['a', 1n], ['b', 2n]]);
    await assert.rejects(writer.get('a'), storageError('CLOSED'));
    await test.store.close();
  });
});

/** The container's partition's last xlog LSN: +1 per record. */
async function recoveredRecordCount(test: TestStore): Promise<number> {
  return Number(test.store.partitionFor('sensors').log.lastLsn);
}

describe('transactions: row locks', () => {
  it('a write to a row another transaction holds waits until the holder commits', async () => {
    const test = await storeWithSensors();
    const holder = test.store.session().container('sensors');
    const waiter = test.store.session().container('sensors');
    await holder.setAutoCommit(false);
    await waiter.setAutoCommit(false);
    await holder.put(['a', 10n]);
    const put = waiter.put(['a', 20n]);
    const wait = track(put);
    await settle();
    assert.equal(wait.settled, false, 'the write waits for the row lock');
    await holder.commit();
    await put;
    assert.deepStrictEqual(await waiter.get('a'), ['a', 20n]);
    assert.deepStrictEqual(await committedRows(test), [['a', 10n], ['b', 2n]]);
    await waiter.commit();
    assert.deepStrictEqual(await committedRows(test), [['a', 20n], ['b', 2n]]);
    await test.store.close();
  });

  it('an auto-commit write waits for a locked row, not for the other rows', async () => {
    const test = await storeWithSensors();
    const holder = test.store.session().container('sensors');
    const other = test.store.session().container('sensors');
    await holder.setAutoCommit(false);
    await holder.put(['a', 10n]);
    await other.put(['b', 22n]); // no conflict: must not wait (virtual time never moves here)
    const put = other.put(['a', 20n]);
    const wait = track(put);
    await settle();
    assert.equal(wait.settled, false);
    await holder.abort();
    await put;
    assert.deepStrictEqual(await committedRows(test), [['a', 20n], ['b', 22n]]);
    await test.store.close();
  });

  it('a lock wait fails with LOCK_TIMEOUT after the session\'s transactionTimeoutMs', async () => {
    const test = await storeWithSensors();
    const holder = test.store.session().container('sensors');
    const waiter = test.store.session({ transactionTimeoutMs: 100 }).container('sensors');
    const autoWaiter = test.store.session({ transactionTimeoutMs: 50 }).container('sensors');
    await holder.setAutoCommit(false);
    await waiter.setAutoCommit(false);
    await holder.put(['a', 10n]);
    const put = waiter.put(['a', 20n]);
    const autoPut = autoWaiter.remove('a');
    const wait = track(put);
    const autoWait = track(autoPut);
    await test.advanceMs(49);
    assert.equal(autoWait.settled, false);
    await test.advanceMs(1);
    await assert.rejects(autoPut, storageError('LOCK_TIMEOUT'));
    await test.advanceMs(49);
    assert.equal(wait.settled, false);
    await test.advanceMs(1);
    await assert.rejects(put, storageError('LOCK_TIMEOUT'));
    // The holder is unaffected; once it commits, the row is free for the former waiter.
    await holder.commit();
    await waiter.put(['a', 20n]);
    await waiter.commit();
    assert.deepStrictEqual(await committedRows(test), [['a', 20n], ['b', 2n]]);
    await test.store.close();
  });

  it('an abandoned transaction times out: its locks go, its changes are dropped', async () => {
    const test = await storeWithSensors();
    const abandoned = test.store.session({ transactionTimeoutMs: 100 }).container('sensors');
    const waiter = test.store.session().container('sensors');
    await abandoned.setAutoCommit(false);
    await abandoned.put(['a', 10n]);
    await abandoned.put(['c', 30n]);
    const put = waiter.put(['a', 20n]);
    const wait = track(put);
    await test.advanceMs(99);
    assert.equal(wait.settled, false);
    await test.advanceMs(1);
    await put;
    assert.deepStrictEqual(await committedRows(test), [['a', 20n], ['b', 2n]]);
    await test.store.close();
  });

  it('a timed-out transaction commits none of its changes, not even later ones', async () => {
    const test = await storeWithSensors();
    const writer = test.store.session({ transactionTimeoutMs: 100 }).container('sensors');
    await writer.setAutoCommit(false);
    await writer.put(['a', 10n]);
    await test.advanceMs(100);
    // Either this put or the commit must report that the transaction is gone.
    const finish = async () => {
      await writer.put(['b', 20n]);
      await writer.commit();
    };
    await assert.rejects(finish(), storageError('TRANSACTION_INVALID'));
    assert.deepStrictEqual(await committedRows(test), [['a', 1n], ['b', 2n]]);
    await test.store.close();
  });

  it('session.close aborts its open transactions and releases their locks', async () => {
    const test = await storeWithSensors();
    const holderSession = test.store.session();
    const holder = holderSession.container('sensors');
    await holder.setAutoCommit(false);
    await holder.put(['a', 10n]);
    await holder.put(['c', 30n]);
    const put = test.store.session().container('sensors').put(['a', 20n]);
    const wait = track(put);
    await settle();
    assert.equal(wait.settled, false);
    holderSession.close();
    await put;
    assert.deepStrictEqual(await committedRows(test), [['a', 20n], ['b', 2n]]);
    await assert.rejects(holder.commit(), storageError('CLOSED'));
    assert.throws(() => holderSession.container('sensors'), storageError('CLOSED'));
    await test.store.close();
  });
});

describe('transactions: a waiting write whose transaction ends', () => {
  // Regression: a parked lock request once outlived its transaction and kept the row locked.

  /** After the dead transaction's request was granted, the row must still be writable. */
  async function rowStillWritable(test: TestStore): Promise<void> {
    const later = test.store.session({ transactionTimeoutMs: 100 }).container('sensors');
    const put = later.put(['a', 30n]);
    track(put); // with the bug, it fails while the clock moves
    await test.advanceMs(100);
    await put;
    assert.deepStrictEqual(await committedRows(test), [['a', 30n], ['b', 2n]]);
  }

  it('session.close while a write waits leaves the row free', async () => {
    const test = await storeWithSensors();
    const holder = test.store.session().container('sensors');
    const closing = test.store.session();
    await holder.setAutoCommit(false);
    await closing.container('sensors').setAutoCommit(false);
    await holder.put(['a', 10n]);
    const put = closing.container('sensors').put(['a', 20n]);
    track(put); // it fails before the test awaits it
    await settle();
    closing.close();
    await holder.commit();
    await assert.rejects(put, (error: unknown) => error instanceof Error);
    await rowStillWritable(test);
    await test.store.close();
  });

  it('a transaction timeout while a write waits leaves the row free', async () => {
    const test = await storeWithSensors();
    const holder = test.store.session().container('sensors');
    const expiring = test.store.session({ transactionTimeoutMs: 100 }).container('sensors');
    await holder.setAutoCommit(false);
    await expiring.setAutoCommit(false);
    await holder.put(['a', 10n]);
    await expiring.put(['b', 20n]); // t = 0: the transaction ends at 100
    await test.advanceMs(50);
    const put = expiring.put(['a', 20n]); // its lock wait would give up at 150
    track(put); // it fails before the test awaits it
    await test.advanceMs(60);
    await holder.commit(); // t = 110: the dead transaction's request is granted
    await assert.rejects(put, (error: unknown) => error instanceof Error);
    await rowStillWritable(test);
    await test.store.close();
  });

  it('an auto-commit remove that waited reports whether the row still existed', async () => {
    const test = await storeWithSensors();
    const holder = test.store.session().container('sensors');
    await holder.setAutoCommit(false);
    await holder.remove('a');
    const remove = test.store.session().container('sensors').remove('a');
    await settle();
    await holder.commit();
    assert.equal(await remove, false);
    await test.store.close();
  });
});

describe('transactions: DDL against open transactions', () => {
  it('drop waits for an open writing transaction and goes through when it commits', async () => {
    const test = await storeWithSensors();
    const writer = test.store.session().container('sensors');
    await writer.setAutoCommit(false);
    await writer.put(['c', 3n]);
    const drop = test.store.dropContainer('SENSORS');
    const wait = track(drop);
    await settle();
    assert.equal(wait.settled, false, 'drop waits for the transaction');
    assert.deepStrictEqual(test.store.listContainers(), ['sensors']);
    await writer.commit();
    assert.equal(await drop, true);
    assert.deepStrictEqual(test.store.listContainers(), []);
    await assert.rejects(writer.get('c'), storageError('CONTAINER_NOT_FOUND'));
    await test.reopen();
    assert.deepStrictEqual(test.store.listContainers(), []);
    await test.store.close();
  });

  it('drop fails with LOCK_TIMEOUT while writing transactions keep it busy', async () => {
    const test = await openTestStore({ transactionTimeoutLimitMs: 200 });
    await test.store.createContainer(SENSORS);
    const first = test.store.session().container('sensors');
    const second = test.store.session().container('sensors');
    await first.setAutoCommit(false);
    await second.setAutoCommit(false);
    await first.put(['a', 1n]); // t = 0: its transaction ends at 200
    await test.advanceMs(50);
    const drop = test.store.dropContainer('sensors'); // gives up at 250
    await settle(); // drop waits for its locks only after a promise turn
    await test.advanceMs(100);
    await second.put(['b', 2n]); // t = 150: ends at 350
    await test.advanceMs(50);
    const wait = track(drop);
    await settle();
    assert.equal(wait.settled, false, 'the first transaction timed out, the second holds on');
    await test.advanceMs(50);
    await assert.rejects(drop, storageError('LOCK_TIMEOUT'));
    assert.deepStrictEqual(test.store.listContainers(), ['sensors']);
    await second.commit();
    assert.deepStrictEqual(await committedRows(test), [['b', 2n]]);
    await test.store.close();
  });

  it('a write that waits while drop runs fails with CONTAINER_NOT_FOUND', async () => {
    const test = await storeWithSensors();
    const drop = test.store.dropContainer('sensors');
    // Let drop take its locks and start its record; it then waits for the datasync.
    for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    assert.equal(track(drop).settled, false);
    assert.deepStrictEqual(test.store.listContainers(), ['sensors'], 'the puts find the container');
    const autoPut = test.store.session().container('sensors').put(['c', 3n]);
    const manual = test.store.session().container('sensors');
    await manual.setAutoCommit(false);
    const manualPut = manual.put(['d', 4n]);
    track(autoPut); // both fail as drop ends, before the test awaits them
    track(manualPut);
    assert.equal(await drop, true);
    await assert.rejects(autoPut, storageError('CONTAINER_NOT_FOUND'));
    await assert.rejects(manualPut, storageError('CONTAINER_NOT_FOUND'));
    await test.reopen();
    assert.deepStrictEqual(test.store.listContainers(), []);
    await test.store.close();
  });
});

describe('transactions: rows belong to the store once written', () => {
  it('a row array changed by the caller after put does not change the stored row', async () => {
    const test = await storeWithSensors();
    const auto = test.store.session().container('sensors');
    const row: Row = ['c', 3n];
    const put = auto.put(row);
    row[1] = 99n; // the caller reuses its array before the put is acknowledged
    await put;
    assert.deepStrictEqual(await auto.get('c'), ['c', 3n], 'in memory');

    const manual = test.store.session().container('sensors');
    await manual.setAutoCommit(false);
    const own = ['d', 4n];
    await manual.put(own);
    own[1] = 98n;
    (await manual.get('d'))![1] = 97n; // nor may a row handed out by get() be a live view
    await manual.commit();
    assert.deepStrictEqual(await auto.get('d'), ['d', 4n]);
    await test.reopen();
    assert.deepStrictEqual(await committedRows(test), [['a', 1n], ['b', 2n], ['c', 3n], ['d', 4n]]);
    await test.store.close();
  });
});
