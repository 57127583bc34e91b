// LockTable (lib/engine/lock-table.ts) on virtual time: grants without a promise when nothing
// conflicts, parks conflicting requests and wakes them in arrival order when the holder lets go,
// rejects them with LOCK_TIMEOUT at their deadline, and keeps a container's exclusive (DDL) lock
// apart from row locks and in-flight writes (intents). Name locks serialise DDL on one name.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Subscription, VirtualTimeScheduler, type SchedulerLike } from 'rxjs';
import { containerId } from '../../../lib/base/ids.ts';
import { LOCK_WAITER_COUNT_MAX } from '../../../lib/base/limits.ts';
import { LockTable } from '../../../lib/engine/lock-table.ts';
import { storageError, track } from './engine-test-helpers.ts';

const C1 = containerId(1);
const C2 = containerId(2);
const HOLD = { hold: true, timeoutMs: 1_000 };

function newTable() {
  const scheduler = new VirtualTimeScheduler();
  const table = new LockTable({ scheduler });
  /** Runs the timers due in the next `ms` of virtual time, then lets promise callbacks run. */
  const advanceMs = async (ms: number) => {
    scheduler.maxFrames = scheduler.now() + ms;
    scheduler.flush();
    scheduler.frame = scheduler.maxFrames;
    await flushMicrotasks();
  };
  return { table, scheduler, advanceMs };
}

async function flushMicrotasks(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await Promise.resolve();
}

describe('LockTable: row locks', () => {
  it('grants free rows at once, without a promise, and again to their holder', () => {
    const { table } = newTable();
    const a = table.newOwner();
    assert.equal(table.holdsRowLocks(a), false);
    assert.equal(table.lockRows(a, C1, ['k1', 'k2'], HOLD), undefined);
    assert.equal(table.lockRows(a, C1, ['k1', 'k3'], HOLD), undefined, 'its own rows are free');
    assert.equal(table.holdsRowLocks(a), true);
    assert.equal(table.lockRows(table.newOwner(), C1, ['k4'], HOLD), undefined, 'other rows');
    assert.equal(table.lockRows(table.newOwner(), C2, ['k1'], HOLD), undefined, 'other containers');
    assert.equal(table.conflictCount, 0);
  });

  it('parks a conflicting request until the holder releases, then grants it', async () => {
    const { table } = newTable();
    const [a, b, c] = [table.newOwner(), table.newOwner(), table.newOwner()];
    table.lockRows(a, C1, ['k'], HOLD);
    const wait = table.lockRows(b, C1, ['k'], HOLD);
    assert.ok(wait !== undefined);
    const waiting = track(wait);
    await flushMicrotasks();
    assert.equal(waiting.settled, false);
    assert.equal(table.conflictCount, 1);
    table.releaseAll(a);
    await wait;
    assert.equal(table.holdsRowLocks(b), true);
    assert.ok(table.lockRows(c, C1, ['k'], HOLD) !== undefined, 'b holds it now');
    table.releaseAll(b);
    table.releaseAll(c);
  });

  it('wakes waiters in arrival order', async () => {
    const { table } = newTable();
    const [a, b, c] = [table.newOwner(), table.newOwner(), table.newOwner()];
    const order: string[] = [];
    table.lockRows(a, C1, ['k'], HOLD);
    const waitB = table.lockRows(b, C1, ['k'], HOLD)!.then(() => order.push('b'));
    const waitC = table.lockRows(c, C1, ['k'], HOLD)!.then(() => order.push('c'));
    table.releaseAll(a);
    await waitB;
    await flushMicrotasks();
    assert.deepStrictEqual(order, ['b'], 'c still waits: b holds the row');
    table.releaseAll(b);
    await waitC;
    assert.deepStrictEqual(order, ['b', 'c']);
  });

  it('takes all of a request\'s rows or none of them', async () => {
    const { table } = newTable();
    const [a, b, c, d] = [table.newOwner(), table.newOwner(), table.newOwner(), table.newOwner()];
    table.lockRows(a, C1, ['k1'], HOLD);
    const wait = table.lockRows(b, C1, ['k1', 'k2'], HOLD)!;
    const waiting = track(wait);
    assert.equal(table.lockRows(c, C1, ['k2'], HOLD), undefined, 'a waiter holds nothing yet');
    table.releaseAll(a);
    await flushMicrotasks();
    assert.equal(waiting.settled, false, 'k2 is still taken');
    assert.equal(table.lockRows(d, C1, ['k1'], HOLD), undefined, 'b did not keep k1 alone');
    table.releaseAll(c);
    table.releaseAll(d);
    await wait;
    assert.equal(table.holdsRowLocks(b), true);
  });

  it('waits without taking the rows when hold is false (an auto-commit write)', async () => {
    const { table } = newTable();
    const [a, b, c] = [table.newOwner(), table.newOwner(), table.newOwner()];
    table.lockRows(a, C1, ['k'], HOLD);
    const wait = table.lockRows(b, C1, ['k'], { hold: false, timeoutMs: 1_000 })!;
    table.releaseAll(a);
    await wait;
    assert.equal(table.holdsRowLocks(b), false);
    assert.equal(table.busy(C1, c), false);
  });

  it('rejects a waiter with LOCK_TIMEOUT at its deadline, and only then', async () => {
    const { table, advanceMs } = newTable();
    const [a, b, c] = [table.newOwner(), table.newOwner(), table.newOwner()];
    table.lockRows(a, C1, ['k'], HOLD);
    const wait = table.lockRows(b, C1, ['k'], { hold: true, timeoutMs: 100 })!;
    const waiting = track(wait);
    await advanceMs(99);
    assert.equal(waiting.settled, false);
    await advanceMs(1);
    await assert.rejects(wait, storageError('LOCK_TIMEOUT', /timed out by lock conflict/));
    table.releaseAll(a);
    assert.equal(table.holdsRowLocks(b), false, 'a timed-out waiter is never granted later');
    assert.equal(table.lockRows(c, C1, ['k'], HOLD), undefined);
  });

  it('releaseAll frees every row in every container and wakes their waiters', async () => {
    const { table } = newTable();
    const [a, b, c] = [table.newOwner(), table.newOwner(), table.newOwner()];
    table.lockRows(a, C1, ['k1', 'k2'], HOLD);
    table.lockRows(a, C2, ['k1'], HOLD);
    const waits = [table.lockRows(b, C1, ['k2'], HOLD)!, table.lockRows(c, C2, ['k1'], HOLD)!];
    table.releaseAll(a);
    await Promise.all(waits);
    assert.equal(table.holdsRowLocks(a), false);
    table.releaseAll(b);
    table.releaseAll(c);
    for (const container of [C1, C2]) assert.equal(table.busy(container, a), false);
  });

  it('refuses more than LOCK_WAITER_COUNT_MAX waiters with LIMIT_EXCEEDED', async () => {
    // Timers are never due here: a scheduler that only hands out subscriptions keeps this fast.
    const scheduler = {
      now: () => 0, schedule: () => new Subscription(),
    } as unknown as SchedulerLike;
    const table = new LockTable({ scheduler });
    table.lockRows(table.newOwner(), C1, ['k'], HOLD);
    for (let i = 0; i < LOCK_WAITER_COUNT_MAX; i++) {
      const wait = table.lockRows(table.newOwner(), C1, ['k'], HOLD);
      assert.ok(wait !== undefined);
    }
    const refused = table.lockRows(table.newOwner(), C1, ['k'], HOLD);
    assert.ok(refused !== undefined);
    await assert.rejects(refused, storageError('LIMIT_EXCEEDED'));
  });
});

describe('LockTable: container exclusive lock and intents', () => {
  it('the exclusive lock waits for other owners\' row locks', async () => {
    const { table } = newTable();
    const [a, ddl] = [table.newOwner(), table.newOwner()];
    table.lockRows(a, C1, ['k'], HOLD);
    assert.equal(table.busy(C1, ddl), true);
    const exclusive = table.lockContainer(ddl, C1, 1_000);
    const waiting = track(exclusive);
    await flushMicrotasks();
    assert.equal(waiting.settled, false);
    table.releaseAll(a);
    await exclusive;
    table.unlockContainer(ddl, C1);
  });

  it('the exclusive lock waits for writes in flight (intents) and ignores its own', async () => {
    const { table } = newTable();
    const [writer, ddl] = [table.newOwner(), table.newOwner()];
    table.beginIntent(ddl, C1);
    table.beginIntent(writer, C1);
    table.beginIntent(writer, C1);
    const exclusive = table.lockContainer(ddl, C1, 1_000);
    const waiting = track(exclusive);
    table.endIntent(writer, C1);
    await flushMicrotasks();
    assert.equal(waiting.settled, false, 'one of the two writes is still in flight');
    table.endIntent(writer, C1);
    await exclusive;
    table.unlockContainer(ddl, C1);
    table.endIntent(ddl, C1);
  });

  it('row requests wait while another owner holds the exclusive lock', async () => {
    const { table } = newTable();
    const [ddl, a, b] = [table.newOwner(), table.newOwner(), table.newOwner()];
    await table.lockContainer(ddl, C1, 1_000);
    assert.equal(table.busy(C1, a), true);
    assert.equal(table.busy(C1, ddl), false, 'its own exclusive lock does not make it busy');
    assert.equal(table.lockRows(ddl, C1, ['k'], HOLD), undefined, 'the holder may lock rows');
    table.releaseAll(ddl);
    const rowWait = table.lockRows(a, C1, ['other'], HOLD)!;
    const autoWait = table.lockRows(b, C1, [], { hold: false, timeoutMs: 1_000 })!;
    assert.ok(rowWait !== undefined && autoWait !== undefined);
    const second = track(table.lockContainer(b, C1, 1_000));
    table.unlockContainer(ddl, C1);
    await Promise.all([rowWait, autoWait]);
    await flushMicrotasks();
    assert.equal(second.settled, false, 'a now holds a row: the next exclusive lock waits for it');
    table.releaseAll(a);
    await flushMicrotasks();
    assert.equal(second.settled, true);
    table.unlockContainer(b, C1);
  });

  it('an exclusive lock wait times out with LOCK_TIMEOUT', async () => {
    const { table, advanceMs } = newTable();
    const [a, ddl] = [table.newOwner(), table.newOwner()];
    table.lockRows(a, C1, ['k'], HOLD);
    const exclusive = table.lockContainer(ddl, C1, 200);
    const waiting = track(exclusive);
    await advanceMs(199);
    assert.equal(waiting.settled, false);
    await advanceMs(1);
    await assert.rejects(exclusive, storageError('LOCK_TIMEOUT', /container 1/));
    table.releaseAll(a);
    assert.equal(table.busy(C1, a), false);
  });
});

describe('LockTable: name locks', () => {
  it('serialises DDL on one name and leaves other names free', async () => {
    const { table, advanceMs } = newTable();
    const [a, b, c] = [table.newOwner(), table.newOwner(), table.newOwner()];
    await table.lockName(a, 'sensors', 1_000);
    await table.lockName(a, 'sensors', 1_000); // re-entrant
    await table.lockName(b, 'other', 1_000);
    const wait = table.lockName(b, 'sensors', 1_000);
    const timesOut = table.lockName(c, 'sensors', 50);
    const waiting = track(wait);
    await advanceMs(50);
    await assert.rejects(timesOut, storageError('LOCK_TIMEOUT', /sensors/));
    assert.equal(waiting.settled, false);
    table.releaseAll(a);
    await wait;
    const third = track(table.lockName(c, 'sensors', 1_000));
    await flushMicrotasks();
    assert.equal(third.settled, false, 'b holds the name now');
    table.releaseAll(b);
    await flushMicrotasks();
    assert.equal(third.settled, true);
    table.releaseAll(c);
  });
});
