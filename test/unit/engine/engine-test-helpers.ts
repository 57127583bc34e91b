// Helpers of the engine unit tests: a store on an in-memory SimFileSystem whose time is virtual (an
// rxjs VirtualTimeScheduler and a clock reading it), so lock waits and transaction timeouts fire
// exactly when a test advances the time, and never on their own.

import assert from 'node:assert/strict';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { VirtualTimeScheduler } from 'rxjs';
import { StorageError, type StorageErrorCode } from '../../../lib/base/errors.ts';
import { storageOptions, type StorageOptions } from '../../../lib/base/options.ts';
import { Store } from '../../../lib/engine/store.ts';
import type { Clock } from '../../../lib/io/clock.ts';
import type { ContainerDefinition } from '../../../lib/schema/container-schema.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

export const HOME = '/h';
/** Macrotask turns that let a commit finish: group commit, a SimFileSystem datasync, the apply. */
const SETTLE_TURN_COUNT = 10;

/** A collection keyed by a STRING `id`, with a LONG `value`. */
export const SENSORS: ContainerDefinition = {
  name: 'sensors', type: 'COLLECTION', rowKey: true,
  columns: [{ name: 'id', type: 'STRING' }, { name: 'value', type: 'LONG' }],
};

export interface TestStore {
  store: Store;
  fileSystem: SimFileSystem;
  scheduler: VirtualTimeScheduler;
  options: StorageOptions;
  /** Closes the store cleanly and opens it again (same files, same virtual time). */
  reopen(): Promise<Store>;
  /** Moves virtual time forward, running the timers due, then lets promise chains settle. */
  advanceMs(ms: number): Promise<void>;
}

export async function openTestStore(overrides: Partial<StorageOptions> = {},
  extra: { wallClockMs?: () => number } = {}): Promise<TestStore> {
  const fileSystem = new SimFileSystem({ seed: 1 });
  fileSystem.mkdirp(HOME);
  await fileSystem.syncDirectory('/');
  const scheduler = new VirtualTimeScheduler();
  // The wall clock may be the test's own (expiry tests move it by days without running timers).
  const clock: Clock = { nowMs: extra.wallClockMs ?? (() => scheduler.now()), monotonicMs: () => scheduler.now() };
  const options = storageOptions({
    partitionNum: 4, concurrency: 2, logWriteMode: 0, transactionTimeoutLimitMs: 1_000,
    ...overrides,
  });
  const open = () => Store.open({ home: HOME, options, fileSystem, clock, scheduler });
  const test: TestStore = {
    store: await open(),
    fileSystem,
    scheduler,
    options,
    async reopen() {
      await test.store.close();
      test.store = await open();
      return test.store;
    },
    async advanceMs(ms: number) {
      assert.ok(ms >= 0);
      const targetMs = scheduler.now() + ms;
      scheduler.maxFrames = targetMs;
      scheduler.flush();
      scheduler.frame = targetMs;
      await settle();
    },
  };
  return test;
}

/** Lets every request that can finish without virtual time passing finish. */
export async function settle(): Promise<void> {
  for (let turn = 0; turn < SETTLE_TURN_COUNT; turn++) await nextMacrotask();
}

/**
 * Watches a promise: `settled` turns true once it resolves or rejects. The promise can still be
 * awaited, and a rejection before that no longer counts as unhandled.
 */
export function track(promise: Promise<unknown>): { readonly settled: boolean } {
  const state = { settled: false };
  void promise.then(() => (state.settled = true), () => (state.settled = true));
  return state;
}

/** For assert.rejects: a StorageError with this code (and a message matching `message`). */
export function storageError(code: StorageErrorCode, message?: RegExp) {
  return (error: unknown): true => {
    assert.ok(error instanceof StorageError, `expected StorageError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}: ${error.message}`);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  };
}
