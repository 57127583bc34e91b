import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { asyncScheduler, map, throwError, timer, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { lsn, partitionId } from '../../../lib/base/ids.ts';
import { systemClock } from '../../../lib/io/clock.ts';
import { GroupCommit } from '../../../wal/group-commit.ts';
import { XlogRecordType } from '../../../wal/xlog-format.ts';
import { logWriteModeSyncPeriodMs, startPeriodicSync } from '../../../wal/periodic-sync.ts';
import { XlogWriter } from '../../../wal/xlog-writer.ts';
import { BLOCK_SIZE_BYTES, bytesOf, G1, newSimLog, ROOT } from './xlog-test-helpers.ts';

function failOnError(error: unknown): void {
  assert.fail(String(error));
}

function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => assert.deepEqual(actual, expected));
}

/** A sync target whose syncs take `syncMs` of virtual time; `failing` call numbers fail. */
function fakeTarget(scheduler: TestScheduler, syncMs: number, failing: number[] = []) {
  const startsMs: number[] = [];
  return {
    startsMs,
    syncAll(): Observable<void> {
      startsMs.push(scheduler.now());
      const callNumber = startsMs.length;
      if (failing.includes(callNumber)) return throwError(() => new Error(`sync ${callNumber}`));
      return timer(syncMs, scheduler).pipe(map(() => undefined));
    },
  };
}

describe('startPeriodicSync', () => {
  it('syncs every period and never overlaps a slow sync', () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const target = fakeTarget(scheduler, 250);
      const subscription = startPeriodicSync(target, 100, scheduler, failOnError);
      scheduler.schedule(() => subscription.unsubscribe(), 950);
      scheduler.flush();
      // Ticks at 200 and 300 come while the first sync (100..350) runs, and are dropped.
      assert.deepEqual(target.startsMs, [100, 400, 700]);
    });
  });

  it('reports a failed sync and keeps going', () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const target = fakeTarget(scheduler, 10, [2]);
      const errors: string[] = [];
      const subscription = startPeriodicSync(target, 100, scheduler,
        (error) => errors.push(String(error)));
      scheduler.schedule(() => subscription.unsubscribe(), 450);
      scheduler.flush();
      assert.deepEqual(target.startsMs, [100, 200, 300, 400]);
      assert.deepEqual(errors, ['Error: sync 2']);
    });
  });

  it('drives a real GroupCommit', async () => {
    const fileSystem = await newSimLog();
    const writer = await XlogWriter.create({
      fileSystem, root: ROOT, partitionId: partitionId(0), blockSizeBytes: BLOCK_SIZE_BYTES,
      generation: G1, lastLsn: lsn(0n),
    });
    const groupCommit = new GroupCommit({ clock: systemClock });
    groupCommit.addWriter(writer);
    const subscription = startPeriodicSync(groupCommit, 2, asyncScheduler, failOnError);
    try {
      writer.append(XlogRecordType.COMMIT, bytesOf(1));
      for (let i = 0; i < 200 && writer.syncedLsn < 1n; i++) await sleep(2);
      assert.equal(writer.syncedLsn, 1n);
    } finally {
      subscription.unsubscribe();
    }
    await groupCommit.idle();
  });

  it('maps logWriteMode to a period', () => {
    assert.equal(logWriteModeSyncPeriodMs(0), undefined);
    assert.equal(logWriteModeSyncPeriodMs(-1), undefined);
    assert.equal(logWriteModeSyncPeriodMs(1), 1000);
    assert.equal(logWriteModeSyncPeriodMs(5), 5000);
  });
});
