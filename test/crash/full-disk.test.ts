// A full disk, in process on the SimFileSystem with a space quota (issue 12, point 4): the disk
// fills at a random point of a random workload (a commit's xlog or journal write, the journal's
// preallocation, a checkpoint), the store stops, restarts are tried while the disk is still full,
// then space is given back. Over many seeds:
// - the commit that hit ENOSPC and every later one in its group are refused with IO;
// - a restart while the disk is (nearly) full either starts with every acknowledged row, or fails
//   with IO (ENOSPC) leaving no more space used than before it;
// - once space is back, the store opens with every acknowledged row (the ledger of fault-ledger.ts),
//   takes new writes, and keeps them through a power cut.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { isStorageError } from '../../lib/base/errors.ts';
import type { Store } from '../../lib/engine/store.ts';
import { Prng } from '../sim/prng.ts';
import type { SimFileSystem } from '../sim/sim-file-system.ts';
import {
  checkLedger, createFaultContainers, FAULT_CONTAINER_NAMES, FaultLedger, formatLedgerProblems,
  groupIndexOf, makeSimHome, openFaultStore, randomRequest, type LedgerCommit,
} from './fault-ledger.ts';

const SEED_COUNT = 30;
/** Space for the containers' records; then up to HEADROOM_BYTES_MAX more for the commits. */
const CONTAINERS_ROOM_BYTES = 32 * 1024;
/** The disk fills within a few dozen commits. */
const HEADROOM_BYTES_MAX = 256 * 1024;
const FILL_COMMIT_COUNT_MAX = 400;
/** One in this many steps of the fill is a requested checkpoint instead of a commit. */
const CHECKPOINT_ONE_IN = 6;
const RESTART_WHILE_FULL_COUNT_MAX = 3;
/** Space given back before a restart while full, at most: often less than the start needs. */
const FREED_WHILE_FULL_BYTES_MAX = 24 * 1024;
const BURST_COUNT_MAX = 4;
const SETTLE_MACROTASK_COUNT = 4;

async function macrotasks(count: number): Promise<void> {
  for (let index = 0; index < count; index++) await nextMacrotask();
}

async function ackedBursts(store: Store, ledger: FaultLedger, prng: Prng, seed: number) {
  const session = store.session();
  const burstCount = prng.nextIntBetween({ min: 1, max: BURST_COUNT_MAX });
  for (let burst = 0; burst < burstCount; burst++) {
    for (const commit of await ledger.burst(store, session, prng)) {
      assert.equal(commit.state, 'acked', `seed ${seed}: commit ${commit.index} failed: ` +
        String(commit.error));
    }
  }
  session.close();
}

/** The store goes away: a power cut (torn writes), or the process ends after a close. */
async function stop(store: Store, fileSystem: SimFileSystem, ledger: FaultLedger, powerCut: boolean) {
  if (powerCut) fileSystem.crash({ tornWrites: true });
  else await store.close().catch(() => undefined);
  ledger.restarted();
  await macrotasks(SETTLE_MACROTASK_COUNT);
}

async function reopenAndCheck(fileSystem: SimFileSystem, ledger: FaultLedger, seed: number) {
  const store = await openFaultStore(fileSystem, { logWriteMode: 0 });
  const problems = await checkLedger(store, ledger);
  if (problems.length > 0) assert.fail(formatLedgerProblems(seed, problems));
  return store;
}

function assertNoSpaceError(error: unknown, seed: number, what: string): void {
  assert.ok(isStorageError(error, 'IO'), `seed ${seed}: ${what}: ${String(error)}`);
  assert.match((error as Error).message, /ENOSPC/, `seed ${seed}: ${what}`);
}

/** Commits (and now and then a checkpoint) until one commit is refused; returns it. */
async function fillDisk(store: Store, ledger: FaultLedger, prng: Prng, seed: number) {
  const session = store.session();
  for (let step = 0; step < FILL_COMMIT_COUNT_MAX; step++) {
    if (prng.nextIndex(CHECKPOINT_ONE_IN) === 0) {
      // A checkpoint without room is refused before it writes (or fails on the disk): IO.
      await store.checkpoint().catch((error: unknown) =>
        assert.ok(isStorageError(error, 'IO'), `seed ${seed}: checkpoint: ${String(error)}`));
      continue;
    }
    const commit = await ledger.start(store, session, randomRequest(prng));
    if (commit.state === 'failed') return { session, failed: commit };
  }
  assert.fail(`seed ${seed}: the disk never filled`);
}

describe('full disk: the store stops at ENOSPC, and starts again once there is room', () => {
  it('fails cleanly while full, takes no space doing so, then serves every acked row', async (t) => {
    const outcomes = { failedStarts: 0, startsWhileFull: 0, ackedBeforeFull: 0 };
    for (let seed = 1; seed <= SEED_COUNT; seed++) {
      const prng = new Prng(seed);
      const fileSystem = await makeSimHome(seed);
      const ledger = new FaultLedger({ ackIsDurable: true });
      // A small disk from the start: the commit journal finds no room to preallocate either.
      fileSystem.setSpaceQuota(fileSystem.usedBytes() + CONTAINERS_ROOM_BYTES +
        prng.nextIndex(HEADROOM_BYTES_MAX));
      let store = await openFaultStore(fileSystem, { logWriteMode: 0 });
      await createFaultContainers(store);

      const { session, failed } = await fillDisk(store, ledger, prng, seed);
      outcomes.ackedBeforeFull += ledger.commits.filter((commit) => commit.state === 'acked').length;
      assertNoSpaceError(failed.error, seed, 'the commit that hit the full disk');
      const mate = sameGroupContainer(store, failed, prng);
      const later = await ledger.start(store, session, randomRequest(prng, mate));
      assert.equal(later.state, 'failed', `seed ${seed}: a later commit in the group was acked`);
      assert.ok(isStorageError(later.error, 'IO'), `seed ${seed}: ${String(later.error)}`);
      await stop(store, fileSystem, ledger, prng.nextBoolean());

      const restartCount = prng.nextIntBetween({ min: 1, max: RESTART_WHILE_FULL_COUNT_MAX });
      for (let restart = 0; restart < restartCount; restart++) {
        // The operator frees a little, maybe not enough: a start may get partway, then fail.
        const usedBytesBefore = fileSystem.usedBytes();
        fileSystem.setSpaceQuota(usedBytesBefore + prng.nextIndex(FREED_WHILE_FULL_BYTES_MAX));
        try {
          store = await reopenAndCheck(fileSystem, ledger, seed);
          outcomes.startsWhileFull += 1;
          await stop(store, fileSystem, ledger, prng.nextBoolean());
        } catch (error) {
          if (error instanceof assert.AssertionError) throw error;
          assertNoSpaceError(error, seed, 'a start on the full disk');
          outcomes.failedStarts += 1;
          const usedBytesAfter = fileSystem.usedBytes();
          assert.ok(usedBytesAfter <= usedBytesBefore, `seed ${seed}: a failed start on the ` +
            `full disk took space: ${usedBytesBefore} → ${usedBytesAfter} bytes used`);
        }
      }

      fileSystem.setSpaceQuota(undefined);
      store = await reopenAndCheck(fileSystem, ledger, seed);
      await ackedBursts(store, ledger, prng, seed);
      await stop(store, fileSystem, ledger, true);
      store = await reopenAndCheck(fileSystem, ledger, seed);
      await store.close();
    }
    t.diagnostic(`${SEED_COUNT} seeds: ${outcomes.ackedBeforeFull} commits acked before the ` +
      `disk filled; on the full disk ${outcomes.failedStarts} starts failed with ENOSPC and ` +
      `${outcomes.startsWhileFull} started`);
    assert.ok(outcomes.failedStarts > 0, 'no start failed: the test does not test a failed start');
  });
});

/** A container of the failed commit's partition group (itself, or another of the group). */
function sameGroupContainer(store: Store, failed: LedgerCommit, prng: Prng): string {
  const mates = FAULT_CONTAINER_NAMES.filter((name) =>
    groupIndexOf(store, name) === groupIndexOf(store, failed.container));
  return mates[prng.nextIndex(mates.length)]!;
}
