// Locks of one partition group. The group is single-threaded, so a lock is bookkeeping, not a mutex:
// a request that conflicts is parked on a promise and woken when the holder lets go, or rejected with
// LOCK_TIMEOUT when its deadline passes (GridDB parks conflicting requests the same way; there is no
// deadlock detector, timeouts resolve cycles).
//
// Three kinds of resource:
// - row locks (container id + canonical key string), held by a manual transaction from its first write
//   of the row until commit or abort;
// - a container's exclusive lock, held by DDL (drop, add/rename column) while it runs; it waits until no
//   other owner holds row locks or a write in flight on the container (the "intents");
// - name locks (a lower-cased container name), serialising create/drop of one name.
// Auto-commit writes take no row locks: they wait until none of their rows is locked by another owner
// and then append at once, without yielding, so nothing can slip in between.

import type { SchedulerLike, Subscription } from 'rxjs';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { ContainerId } from '../base/ids.ts';
import { LOCK_WAITER_COUNT_MAX } from '../base/limits.ts';

/** A transaction or a single auto-commit operation: whoever holds locks. */
export type LockOwner = number & { readonly __brand: 'LockOwner' };

interface Waiter {
  wake(): void;
}

interface ContainerLockState {
  /** Owner → number of row locks plus in-flight writes it holds on the container. */
  intents: Map<LockOwner, number>;
  exclusiveOwner: LockOwner | undefined;
  rowOwners: Map<string, LockOwner>;
  waiters: Set<Waiter>;
}

export interface LockTableOptions {
  scheduler: SchedulerLike;
}

export class LockTable {
  private readonly containers = new Map<ContainerId, ContainerLockState>();
  private readonly nameOwners = new Map<string, LockOwner>();
  private readonly nameWaiters = new Set<Waiter>();
  private readonly ownerRows = new Map<LockOwner, Array<{ containerId: ContainerId; key: string }>>();
  private readonly ownerNames = new Map<LockOwner, string[]>();
  private nextOwner = 1;
  conflictCount = 0;

  constructor(private readonly options: LockTableOptions) {}

  newOwner(): LockOwner {
    return this.nextOwner++ as LockOwner;
  }

  /** True when no other owner holds a row lock or the exclusive lock of the container. */
  private rowsFree(state: ContainerLockState, owner: LockOwner, keys: readonly string[]): boolean {
    if (state.exclusiveOwner !== undefined && state.exclusiveOwner !== owner) return false;
    if (state.rowOwners.size === 0) return true;
    for (const key of keys) {
      const holder = state.rowOwners.get(key);
      if (holder !== undefined && holder !== owner) return false;
    }
    return true;
  }

  /**
   * True when another owner holds the container's exclusive lock, or anyone holds one of its row
   * locks: then a write must look at its keys one by one (lockRows) before it may go ahead.
   */
  busy(containerId: ContainerId, owner: LockOwner): boolean {
    const state = this.containers.get(containerId);
    if (state === undefined) return false;
    if (state.exclusiveOwner !== undefined && state.exclusiveOwner !== owner) return true;
    return state.rowOwners.size > 0;
  }

  /**
   * Waits until none of `keys` is locked by another owner and the container is not exclusively
   * locked, then (if `hold`) locks them for `owner`. Resolves synchronously (returns undefined)
   * when nothing conflicts, so the hot path allocates no promise.
   */
  lockRows(
    owner: LockOwner,
    containerId: ContainerId,
    keys: readonly string[],
    options: { hold: boolean; timeoutMs: number },
  ): Promise<void> | undefined {
    const state = this.container(containerId);
    if (this.rowsFree(state, owner, keys)) {
      if (options.hold) this.holdRows(owner, containerId, state, keys);
      return undefined;
    }
    this.conflictCount++;
    return this.waitFor(state.waiters, () => {
      if (!this.rowsFree(state, owner, keys)) return false;
      if (options.hold) this.holdRows(owner, containerId, state, keys);
      return true;
    }, options.timeoutMs, `row lock on container ${containerId}`);
  }

  private holdRows(
    owner: LockOwner,
    containerId: ContainerId,
    state: ContainerLockState,
    keys: readonly string[],
  ): void {
    let held = this.ownerRows.get(owner);
    if (held === undefined) {
      held = [];
      this.ownerRows.set(owner, held);
    }
    for (const key of keys) {
      if (state.rowOwners.get(key) === owner) continue;
      assert(!state.rowOwners.has(key));
      state.rowOwners.set(key, owner);
      held.push({ containerId, key });
      state.intents.set(owner, (state.intents.get(owner) ?? 0) + 1);
    }
  }

  /** Marks a write of `owner` in flight on the container, so DDL waits for it. */
  beginIntent(owner: LockOwner, containerId: ContainerId): void {
    const state = this.container(containerId);
    state.intents.set(owner, (state.intents.get(owner) ?? 0) + 1);
  }

  endIntent(owner: LockOwner, containerId: ContainerId): void {
    const state = this.containers.get(containerId);
    assert(state !== undefined);
    const count = state.intents.get(owner);
    assert(count !== undefined && count > 0);
    if (count === 1) state.intents.delete(owner);
    else state.intents.set(owner, count - 1);
    this.wakeAll(state.waiters);
    this.collect(containerId, state);
  }

  /** Exclusive lock of a container, for DDL: waits for every other owner's rows and writes. */
  lockContainer(owner: LockOwner, containerId: ContainerId, timeoutMs: number): Promise<void> {
    const state = this.container(containerId);
    const free = () =>
      (state.exclusiveOwner === undefined || state.exclusiveOwner === owner) &&
      [...state.intents.keys()].every((holder) => holder === owner);
    const take = () => {
      state.exclusiveOwner = owner;
    };
    const tryTake = () => free() && (take(), true);
    if (tryTake()) return Promise.resolve();
    this.conflictCount++;
    return this.waitFor(state.waiters, tryTake, timeoutMs, `container ${containerId}`);
  }

  unlockContainer(owner: LockOwner, containerId: ContainerId): void {
    const state = this.containers.get(containerId);
    assert(state !== undefined);
    assert(state.exclusiveOwner === owner);
    state.exclusiveOwner = undefined;
    this.wakeAll(state.waiters);
    this.collect(containerId, state);
  }

  /** Serialises create/drop of one container name (lower-cased). */
  lockName(owner: LockOwner, nameKey: string, timeoutMs: number): Promise<void> {
    const free = () => {
      const holder = this.nameOwners.get(nameKey);
      return holder === undefined || holder === owner;
    };
    const take = () => {
      if (this.nameOwners.get(nameKey) === owner) return;
      this.nameOwners.set(nameKey, owner);
      const names = this.ownerNames.get(owner) ?? [];
      names.push(nameKey);
      this.ownerNames.set(owner, names);
    };
    const tryTake = () => free() && (take(), true);
    if (tryTake()) return Promise.resolve();
    this.conflictCount++;
    return this.waitFor(this.nameWaiters, tryTake, timeoutMs, `container name "${nameKey}"`);
  }

  /** Releases every row and name lock of `owner` (commit, abort, end of a DDL). */
  releaseAll(owner: LockOwner): void {
    const rows = this.ownerRows.get(owner);
    if (rows !== undefined) {
      this.ownerRows.delete(owner);
      const touched = new Set<ContainerId>();
      for (const { containerId, key } of rows) {
        const state = this.containers.get(containerId);
        assert(state !== undefined);
        assert(state.rowOwners.get(key) === owner);
        state.rowOwners.delete(key);
        touched.add(containerId);
      }
      for (const containerId of touched) {
        const state = this.containers.get(containerId)!;
        const count = rows.filter((row) => row.containerId === containerId).length;
        const intents = (state.intents.get(owner) ?? 0) - count;
        assert(intents >= 0);
        if (intents === 0) state.intents.delete(owner);
        else state.intents.set(owner, intents);
        this.wakeAll(state.waiters);
        this.collect(containerId, state);
      }
    }
    const names = this.ownerNames.get(owner);
    if (names !== undefined) {
      this.ownerNames.delete(owner);
      for (const name of names) this.nameOwners.delete(name);
      this.wakeAll(this.nameWaiters);
    }
  }

  holdsRowLocks(owner: LockOwner): boolean {
    return (this.ownerRows.get(owner)?.length ?? 0) > 0;
  }

  private container(containerId: ContainerId): ContainerLockState {
    let state = this.containers.get(containerId);
    if (state === undefined) {
      state = { intents: new Map(), exclusiveOwner: undefined, rowOwners: new Map(), waiters: new Set() };
      this.containers.set(containerId, state);
    }
    return state;
  }

  /** Forgets the state of an idle container so the table does not grow with every container. */
  private collect(containerId: ContainerId, state: ContainerLockState): void {
    const idle = state.intents.size === 0 && state.exclusiveOwner === undefined &&
      state.rowOwners.size === 0 && state.waiters.size === 0;
    if (idle) this.containers.delete(containerId);
  }

  /** Parks until `tryAcquire` succeeds (it checks and takes in one synchronous step). */
  private waitFor(
    waiters: Set<Waiter>,
    tryAcquire: () => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<void> {
    if (waiters.size >= LOCK_WAITER_COUNT_MAX) {
      return Promise.reject(new StorageError('LIMIT_EXCEEDED',
        `too many requests waiting for a lock (${LOCK_WAITER_COUNT_MAX})`));
    }
    return new Promise<void>((resolve, reject) => {
      let timer: Subscription | undefined;
      const waiter: Waiter = {
        wake: () => {
          if (!tryAcquire()) return;
          waiters.delete(waiter);
          timer?.unsubscribe();
          resolve();
        },
      };
      waiters.add(waiter);
      timer = this.options.scheduler.schedule(() => {
        if (!waiters.delete(waiter)) return;
        reject(new StorageError('LOCK_TIMEOUT',
          `transaction timed out by lock conflict: waited ${timeoutMs} ms for the ${what}`));
      }, timeoutMs);
    });
  }

  private wakeAll(waiters: Set<Waiter>): void {
    // Copy first: a woken waiter removes itself, and may take locks that re-park others.
    for (const waiter of [...waiters]) waiter.wake();
  }
}
