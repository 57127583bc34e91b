// A checkpoint with an I/O error at every step of its order (compaction/checkpoint.ts): one run
// learns the steps (each call to the file system), then one run per step fails that step alone.
// Before the cplog END is durable a failure fails the checkpoint, as it always did; after it
// (closing the cplog, deleting old cplog, xlog and catalog files) the checkpoint is done, the
// error is reported as 'cleanupFailed', and the next checkpoint deletes what was left. Either way
// nothing asserts, and every row is there after a power cut and a reopen.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualTimeScheduler } from 'rxjs';
import { isStorageError } from '../../../lib/base/errors.ts';
import { storageOptions } from '../../../lib/base/options.ts';
import type { CheckpointEvent } from '../../../lib/engine/partition-group.ts';
import { Store } from '../../../lib/engine/store.ts';
import type { Clock } from '../../../lib/io/clock.ts';
import type { FileSystem } from '../../../lib/io/file-system.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';
import { StepFaultFileSystem, type FileSystemStep } from '../../sim/step-fault-file-system.ts';
import { HOME, SENSORS } from './engine-test-helpers.ts';

/** Checkpoints before the one under test: enough that it deletes an old cplog, xlog and catalog. */
const EARLIER_CHECKPOINT_COUNT = 5;
const ROWS_PER_ROUND = 40;

interface Scenario {
  sim: SimFileSystem;
  faults: StepFaultFileSystem;
  store: Store;
  events: CheckpointEvent[];
}

function openStore(fileSystem: FileSystem, events: CheckpointEvent[]): Promise<Store> {
  const scheduler = new VirtualTimeScheduler();
  const clock: Clock = { nowMs: () => scheduler.now(), monotonicMs: () => scheduler.now() };
  const options = storageOptions({
    partitionNum: 1, concurrency: 1, logWriteMode: 0, partialCheckpointInterval: 2,
  });
  return Store.open({
    home: HOME, options, fileSystem, clock, scheduler, onCheckpoint: (event) => events.push(event),
  });
}

/** A store with EARLIER_CHECKPOINT_COUNT checkpoints behind it and rows written since the last. */
async function scenario(): Promise<Scenario> {
  const sim = new SimFileSystem({ seed: 1 });
  sim.mkdirp(HOME);
  await sim.syncDirectory('/');
  const faults = new StepFaultFileSystem(sim);
  const events: CheckpointEvent[] = [];
  const store = await openStore(faults, events);
  await store.createContainer(structuredClone(SENSORS));
  for (let round = 0; round <= EARLIER_CHECKPOINT_COUNT; round++) {
    const sensors = store.session().container('sensors');
    await sensors.multiPut(Array.from({ length: ROWS_PER_ROUND },
      (_, i) => [`r${round}-${i}`, BigInt(round * 1000 + i)]));
    await sensors.put([`r0-${round}`, BigInt(-round)]);
    if (round > 0) await sensors.remove(`r${round - 1}-3`);
    if (round < EARLIER_CHECKPOINT_COUNT) await store.checkpoint();
  }
  events.length = 0;
  return { sim, faults, store, events };
}

async function allRows(store: Store) {
  return store.session().container('sensors').scan();
}

/** Every file under the home, with its size: what a checkpoint left on disk. */
function filesUnder(sim: SimFileSystem, directory = HOME): string[] {
  const files: string[] = [];
  for (const name of sim.list(directory)) {
    const path = `${directory}/${name}`;
    const bytes = sim.fileBytes(path);
    if (bytes === undefined) files.push(...filesUnder(sim, path));
    else files.push(path);
  }
  return files;
}

/**
 * The step that makes END durable: the cplog's fdatasync. Its directory entry was synced before,
 * between its create and that fdatasync.
 */
function durableStepIndex(steps: readonly FileSystemStep[]): number {
  const cplogCreate = steps.findIndex((step) => step.call === 'open' &&
    step.path.endsWith('.cplog'));
  const cplogSync = steps.findIndex((step) => step.call === 'datasync' &&
    step.path.endsWith('.cplog'));
  assert.ok(cplogCreate >= 0 && cplogSync > cplogCreate, 'the checkpoint makes and syncs a cplog');
  const directorySync = steps.findIndex((step, index) => index > cplogCreate &&
    step.call === 'syncDirectory');
  assert.ok(directorySync > cplogCreate && directorySync < cplogSync,
    'the cplog\'s directory is synced after its create, before its END is');
  return cplogSync;
}

/** A power cut, then a reopen on the plain file system: every row must be there. */
async function reopenAfterPowerCut(run: Scenario, expected: unknown, what: string) {
  run.sim.crash();
  const store = await openStore(run.sim, []).catch((error: unknown) => {
    throw new Error(`${what}: the reopen failed: ${String(error)}`, { cause: error });
  });
  assert.deepStrictEqual(await allRows(store), expected, `${what}: rows after the reopen`);
  await store.close();
}

describe('checkpoint: an I/O error at every step', () => {
  it('before END is durable fails the checkpoint; after it, the checkpoint is done and ' +
    'a later one cleans up', async () => {
    const clean = await scenario();
    const expected = await allRows(clean.store);
    const before = filesUnder(clean.sim);
    clean.faults.arm({ record: true });
    await clean.store.checkpoint();
    const steps = clean.faults.disarm();
    const after = filesUnder(clean.sim);
    await clean.store.close();
    const durableAt = durableStepIndex(steps);
    // The order drawn in checkpoint.ts, step by step, is all there: else this test proves less.
    const calls = steps.map((step) => `${step.call} ${step.path}`);
    for (const pattern of [/^write .*\.dat$/, /^datasync .*\.dat$/, /^write .*\.cplog$/,
      /^datasync .*\.xlog$/, /^datasync .*\.catalog$/, /^close .*\.cplog$/,
      /^remove .*\.cplog$/, /^remove .*\.xlog$/, /^remove .*\.catalog$/]) {
      assert.ok(calls.some((call) => pattern.test(call)), `no step matches ${pattern}`);
    }
    assert.ok(steps.slice(durableAt + 1).some((step) => step.call === 'remove'));
    assert.notDeepStrictEqual(after, before, 'the clean checkpoint deleted and made files');

    for (let index = 0; index < steps.length; index++) {
      const what = `step ${index} (${steps[index]!.call} ${steps[index]!.path})`;
      const run = await scenario();
      run.faults.arm({ failAtStep: index });
      const outcome = await run.store.checkpoint().then(() => 'done', (error: unknown) => error);
      run.faults.disarm();
      const injected = run.faults.injected;
      assert.ok(injected !== undefined, `${what} was not reached`);
      const group = run.store.partitionGroups[0]!;
      const counters = group.partitions[0]!.checkpointer!.counters;
      if (index > durableAt) {
        assert.equal(outcome, 'done', `${what}: after END is durable: ${String(outcome)}`);
        assert.equal(counters.failedCount, 0, what);
        const logged = run.events.find((event) => event.kind === 'cleanupFailed');
        assert.ok(logged !== undefined && logged.error === injected, `${what}: not reported`);
        assert.ok(run.events.some((event) => event.kind === 'completed'), what);
        // Nothing new to checkpoint: the retry alone runs, and leaves what a clean run leaves.
        await run.store.checkpoint();
        assert.deepStrictEqual(filesUnder(run.sim), after, `${what}: leftovers not cleaned up`);
        assert.equal(run.events.filter((event) => event.kind === 'cleanupFailed').length, 1);
      } else {
        assert.ok(isStorageError(outcome, 'IO'), `${what}: ${String(outcome)}`);
        assert.equal(counters.completedCount, EARLIER_CHECKPOINT_COUNT, what);
        assert.ok(run.events.some((event) => event.kind === 'failed'), what);
        // A later checkpoint succeeds unless the fault stopped the store (a broken xlog).
        await run.store.checkpoint().catch((error: unknown) => {
          assert.ok(isStorageError(error, 'IO'), `${what}: the next checkpoint: ${String(error)}`);
        });
      }
      await reopenAfterPowerCut(run, expected, what);
    }
  });
});
