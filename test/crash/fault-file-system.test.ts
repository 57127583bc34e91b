// Power cuts and I/O faults, in process on the SimFileSystem: torn final records (a), the window
// logWriteMode n >= 1 may lose (b), a failed fdatasync (c) and a full disk (d). Each runs many
// fixed seeds; a failure names its seed, and the seed replays it. fault-ledger.ts holds the rules
// the store is checked against after every crash or reopen.
//
// The regression tests at the end guard three engine bugs this suite found: engine directories lost
// at a power cut, an unhandled rejection after a failed sync, and a store that went on acknowledging
// in other partition groups after a failed fdatasync.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { VirtualTimeScheduler } from 'rxjs';
import { isStorageError } from '../../lib/base/errors.ts';
import type { Store } from '../../lib/engine/store.ts';
import { Prng } from '../sim/prng.ts';
import type { SimFileSystem } from '../sim/sim-file-system.ts';
import {
  checkLedger, createFaultContainers, FAULT_CONTAINER_NAMES,
  FaultLedger, formatLedgerProblems, groupIndexOf, makeSimHome, openFaultStore, randomRequest,
  type LedgerCommit,
} from './fault-ledger.ts';

const SEED_COUNT = 40;
const BURST_COUNT_MAX = 6;
/** Macrotasks to let a crashed store's promises settle; a sim sync takes one. */
const SETTLE_MACROTASK_COUNT = 4;
/** Commits tried before the disk fills, at most. */
const DISK_FULL_COMMIT_COUNT_MAX = 400;
const DISK_FULL_AFTER_BYTES_MAX = 20_000;
const PERIODIC_SYNC_MS = 1000;

async function macrotasks(count: number): Promise<void> {
  for (let index = 0; index < count; index++) await nextMacrotask();
}

async function ackedBursts(store: Store, ledger: FaultLedger, prng: Prng): Promise<void> {
  const session = store.session();
  const burstCount = prng.nextIntBetween({ min: 1, max: BURST_COUNT_MAX });
  for (let burst = 0; burst < burstCount; burst++) {
    for (const commit of await ledger.burst(store, session, prng)) {
      assert.equal(commit.state, 'acked', `commit ${commit.index} failed: ${String(commit.error)}`);
    }
  }
  session.close();
}

/** A power cut; the ledger stops taking answers from the dead store. */
async function crash(fileSystem: SimFileSystem, ledger: FaultLedger, tornWrites: boolean) {
  fileSystem.crash({ tornWrites });
  ledger.restarted();
  await macrotasks(SETTLE_MACROTASK_COUNT);
}

async function reopenAndCheck(
  fileSystem: SimFileSystem,
  ledger: FaultLedger,
  run: { seed: number; logWriteMode: number; scheduler?: VirtualTimeScheduler },
): Promise<Store> {
  const store = await openFaultStore(fileSystem, run);
  const problems = await checkLedger(store, ledger);
  if (problems.length > 0) assert.fail(formatLedgerProblems(run.seed, problems));
  return store;
}

function assertIoError(commit: LedgerCommit, seed: number, what: string): void {
  assert.equal(commit.state, 'failed', `seed ${seed}: ${what} was acknowledged`);
  assert.ok(isStorageError(commit.error, 'IO'), `seed ${seed}: ${what}: ${String(commit.error)}`);
}

/** A container in the same partition group as `container` (itself if it is alone there). */
function groupMate(store: Store, container: string, prng: Prng): string {
  const mates = FAULT_CONTAINER_NAMES.filter((name) =>
    groupIndexOf(store, name) === groupIndexOf(store, container));
  return mates[prng.nextIndex(mates.length)]!;
}

/**
 * The file whose fdatasync acknowledges a commit to `container` under logWriteMode 0: its
 * partition group's commit journal (the records these tests write are small enough for it).
 */
function commitSyncPath(store: Store, container: string): string {
  const path = store.partitionGroups[groupIndexOf(store, container)]!.groupCommit.journalPath;
  assert.ok(path !== undefined, 'logWriteMode 0 keeps a commit journal');
  return path;
}

/** Runs the periodic sync's timer one period ahead and waits for the sync it starts. */
async function tick(store: Store, scheduler: VirtualTimeScheduler): Promise<void> {
  scheduler.maxFrames = scheduler.frame + PERIODIC_SYNC_MS;
  scheduler.flush();
  await Promise.all(store.partitionGroups.map((group) => group.groupCommit.idle()));
}

describe('fault file system: power cuts and I/O faults on SimFileSystem', () => {
  it('(a) logWriteMode 0: a torn record is cut; acked and later writes survive', async (t) => {
    let tornSeedCount = 0;
    const inFlightOutcomes = { acked: 0, survived: 0, lost: 0 };
    for (let seed = 1; seed <= SEED_COUNT; seed++) {
      const prng = new Prng(seed);
      const fileSystem = await makeSimHome(seed);
      const ledger = new FaultLedger({ ackIsDurable: true });
      let store = await openFaultStore(fileSystem, { logWriteMode: 0 });
      await createFaultContainers(store);
      await ackedBursts(store, ledger, prng);
      // One commit per partition group left in flight: appended, maybe written, maybe syncing.
      const session = store.session();
      const inFlight = [0, 1].map((group) => FAULT_CONTAINER_NAMES.filter(
        (name) => groupIndexOf(store, name) === group)).map((names) =>
        ledger.start(store, session, randomRequest(prng, names[prng.nextIndex(names.length)])));
      await macrotasks(prng.nextIndex(3));
      await crash(fileSystem, ledger, true);
      store = await reopenAndCheck(fileSystem, ledger, { seed, logWriteMode: 0 });
      const { tornBytes, journalTornBytes } = store.recovery!;
      if (tornBytes + journalTornBytes > 0) tornSeedCount += 1;
      for (const commit of await Promise.all(inFlight)) {
        if (commit.durable) inFlightOutcomes.acked += 1;
        else inFlightOutcomes[commit.survived === true ? 'survived' : 'lost'] += 1;
      }
      await ackedBursts(store, ledger, prng);
      await crash(fileSystem, ledger, true);
      store = await reopenAndCheck(fileSystem, ledger, { seed, logWriteMode: 0 });
      await store.close();
    }
    t.diagnostic(`${SEED_COUNT} seeds: a torn tail cut in ${tornSeedCount}; of the commits in ` +
      `flight, ${inFlightOutcomes.acked} were acked before the crash, ` +
      `${inFlightOutcomes.survived} survived whole without an ack, ` +
      `${inFlightOutcomes.lost} were lost`);
    assert.ok(tornSeedCount > 0, 'no seed tore a record: the test does not test the cut');
  });

  it('(b) logWriteMode 1: a crash loses at most an unsynced suffix per partition', async (t) => {
    let lostCount = 0;
    let unsyncedKeptCount = 0;
    for (let seed = 1; seed <= SEED_COUNT; seed++) {
      const prng = new Prng(seed);
      const fileSystem = await makeSimHome(seed);
      const ledger = new FaultLedger({ ackIsDurable: false });
      let scheduler = new VirtualTimeScheduler();
      let store = await openFaultStore(fileSystem, { logWriteMode: 1, scheduler });
      await createFaultContainers(store);
      await tick(store, scheduler);
      const roundCount = prng.nextIntBetween({ min: 2, max: 6 });
      for (let round = 0; round < roundCount; round++) {
        await ackedBursts(store, ledger, prng);
        if (prng.nextBoolean()) {
          await tick(store, scheduler);
          ledger.markAckedDurable();
        }
      }
      await ackedBursts(store, ledger, prng);
      // Sometimes the power goes while a periodic sync runs.
      if (prng.nextBoolean()) {
        scheduler.maxFrames = scheduler.frame + PERIODIC_SYNC_MS;
        scheduler.flush();
      }
      await crash(fileSystem, ledger, prng.nextBoolean());
      scheduler = new VirtualTimeScheduler();
      store = await reopenAndCheck(fileSystem, ledger, { seed, logWriteMode: 1, scheduler });
      lostCount += ledger.commits.filter((commit) => commit.survived === false).length;
      unsyncedKeptCount += ledger.commits.filter((commit) => commit.survived === true).length;
      await store.close();
    }
    t.diagnostic(`${SEED_COUNT} seeds: ${lostCount} acked, unsynced commits lost; ` +
      `${unsyncedKeptCount} kept`);
    assert.ok(lostCount > 0, 'no crash lost an unsynced commit: the test does not test the window');
  });

  it('(c) logWriteMode 0: a failed fdatasync rejects with IO, later writes too; reopen keeps acks',
    async (t) => {
      let failedCommitKeptCount = 0;
      for (let seed = 1; seed <= SEED_COUNT; seed++) {
        const prng = new Prng(seed);
        const fileSystem = await makeSimHome(seed);
        const ledger = new FaultLedger({ ackIsDurable: true });
        let store = await openFaultStore(fileSystem, { logWriteMode: 0 });
        await createFaultContainers(store);
        await ackedBursts(store, ledger, prng);
        const victim = FAULT_CONTAINER_NAMES[prng.nextIndex(FAULT_CONTAINER_NAMES.length)]!;
        fileSystem.failNextDatasync(commitSyncPath(store, victim));
        const session = store.session();
        const failed = await ledger.start(store, session, randomRequest(prng, victim));
        assertIoError(failed, seed, 'the commit whose fdatasync failed');
        const mate = groupMate(store, victim, prng);
        const later = await ledger.start(store, session, randomRequest(prng, mate));
        assertIoError(later, seed, 'a later commit in the same partition group');
        // Half the seeds restart the process; half cut the power.
        const powerCut = prng.nextBoolean();
        if (powerCut) await crash(fileSystem, ledger, true);
        else {
          await store.close();
          ledger.restarted();
        }
        store = await reopenAndCheck(fileSystem, ledger, { seed, logWriteMode: 0 });
        if (failed.survived) failedCommitKeptCount += 1;
        await ackedBursts(store, ledger, prng);
        await crash(fileSystem, ledger, true);
        store = await reopenAndCheck(fileSystem, ledger, { seed, logWriteMode: 0 });
        await store.close();
      }
      t.diagnostic(`${SEED_COUNT} seeds: the rejected commit was found whole after reopen in ` +
        `${failedCommitKeptCount}, absent in the others`);
    });

  it('(d) logWriteMode 0: a full disk rejects with IO; nothing half-applied', async (t) => {
    let commitsBeforeFullSum = 0;
    for (let seed = 1; seed <= SEED_COUNT; seed++) {
      const prng = new Prng(seed);
      const fileSystem = await makeSimHome(seed);
      const ledger = new FaultLedger({ ackIsDurable: true });
      let store = await openFaultStore(fileSystem, { logWriteMode: 0 });
      await createFaultContainers(store);
      await ackedBursts(store, ledger, prng);
      fileSystem.setDiskFullAfterBytes(prng.nextIndex(DISK_FULL_AFTER_BYTES_MAX));
      const session = store.session();
      let failed: LedgerCommit | undefined;
      for (let index = 0; index < DISK_FULL_COMMIT_COUNT_MAX && failed === undefined; index++) {
        const commit = await ledger.start(store, session, randomRequest(prng));
        if (commit.state === 'failed') failed = commit;
        else commitsBeforeFullSum += 1;
      }
      assert.ok(failed !== undefined, `seed ${seed}: the disk never filled`);
      assertIoError(failed, seed, 'the commit that hit ENOSPC');
      const later = await ledger.start(store, session,
        randomRequest(prng, groupMate(store, failed.container, prng)));
      assertIoError(later, seed, 'a later commit in the same partition group');
      fileSystem.clearFaults();
      if (prng.nextBoolean()) await crash(fileSystem, ledger, true);
      else {
        await store.close();
        ledger.restarted();
      }
      store = await reopenAndCheck(fileSystem, ledger, { seed, logWriteMode: 0 });
      await ackedBursts(store, ledger, prng);
      await crash(fileSystem, ledger, true);
      store = await reopenAndCheck(fileSystem, ledger, { seed, logWriteMode: 0 });
      await store.close();
    }
    t.diagnostic(`${SEED_COUNT} seeds: ${commitsBeforeFullSum} commits acked after the limit was ` +
      'set and before the disk filled');
  });
});

describe('fault file system: regressions', () => {
  it('the directories Store.open creates survive a power cut', async () => {
    const seed = 1;
    const fileSystem = await makeSimHome(seed, { engineDirectories: false });
    const ledger = new FaultLedger({ ackIsDurable: true });
    let store = await openFaultStore(fileSystem, { logWriteMode: 0 });
    await createFaultContainers(store);
    await ackedBursts(store, ledger, new Prng(seed));
    await crash(fileSystem, ledger, false);
    store = await reopenAndCheck(fileSystem, ledger, { seed, logWriteMode: 0 });
    assert.deepEqual(store.listContainers(), [...FAULT_CONTAINER_NAMES].sort());
    await store.close();
  });

  it('a failed fdatasync with several commits in flight leaves no rejection unhandled', async () => {
    const seed = 2;
    const prng = new Prng(seed);
    const fileSystem = await makeSimHome(seed);
    const ledger = new FaultLedger({ ackIsDurable: true });
    let store = await openFaultStore(fileSystem, { logWriteMode: 0 });
    await createFaultContainers(store);
    await ackedBursts(store, ledger, prng);
    fileSystem.failNextDatasync(commitSyncPath(store, 'sim_a'));
    const session = store.session();
    const commits = await Promise.all(['sim_a', 'sim_c', 'sim_a'].map((container) =>
      ledger.start(store, session, randomRequest(prng, container))));
    for (const commit of commits) assertIoError(commit, seed, `commit ${commit.index}`);
    await macrotasks(SETTLE_MACROTASK_COUNT);
    await store.close();
    ledger.restarted();
    store = await reopenAndCheck(fileSystem, ledger, { seed, logWriteMode: 0 });
    await store.close();
  });

  it('a failed fdatasync under logWriteMode 0 stops writes in every partition group', async () => {
    const seed = 3;
    const prng = new Prng(seed);
    const fileSystem = await makeSimHome(seed);
    const ledger = new FaultLedger({ ackIsDurable: true });
    const store = await openFaultStore(fileSystem, { logWriteMode: 0 });
    await createFaultContainers(store);
    assert.notEqual(groupIndexOf(store, 'sim_a'), groupIndexOf(store, 'sim_b'));
    fileSystem.failNextDatasync(commitSyncPath(store, 'sim_a'));
    const session = store.session();
    assertIoError(await ledger.start(store, session, randomRequest(prng, 'sim_a')), seed, 'sim_a');
    const other = await ledger.start(store, session, randomRequest(prng, 'sim_b'));
    await store.close();
    assertIoError(other, seed, 'a commit in the other partition group');
  });
});
