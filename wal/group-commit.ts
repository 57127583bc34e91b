// Group commit for one partition group (logWriteMode 0): a commit is acknowledged only once its
// record is durable, and one fdatasync per file covers every commit waiting at that moment.
//
// Sync rounds run one at a time. A waiter that arrives with no round running starts one at once;
// waiters that arrive while a round runs wait for the next, which starts as soon as the current one
// ends and covers all of them. A round flushes and datasyncs, in parallel, every registered writer
// with records not yet durable, then settles its waiters: those whose LSN is now durable resolve;
// the others (their writer's datasync failed, which also broke the writer) reject with that error.

import { assert } from '../lib/base/assert.ts';
import { StorageError } from '../lib/base/errors.ts';
import type { Lsn } from '../lib/base/ids.ts';
import { GROUP_COMMIT_WAITER_COUNT_MAX } from '../lib/base/limits.ts';
import type { Clock } from '../lib/io/clock.ts';
import type { XlogWriter } from './xlog-writer.ts';

export interface GroupCommitOptions {
  clock: Clock;
  /** Waiters at most, queued and in a round; defaults to GROUP_COMMIT_WAITER_COUNT_MAX. */
  waiterCountMax?: number;
}

interface Waiter {
  writer: XlogWriter;
  lsn: Lsn;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  private readonly clock: Clock;
  private readonly waiterCountMax: number;
  private readonly writers = new Set<XlogWriter>();
  /** Waiters for the next round. */
  private waitersNext: Waiter[] = [];
  private waiterCountInRound = 0;
  private roundsRunning = false;
  /** The last run of rounds; it never rejects (errors go to the waiters). */
  private rounds: Promise<void> = Promise.resolve();
  private syncRoundCountTotal = 0;
  private fileSyncCountTotal = 0;
  private syncTimeMsSum = 0;

  constructor(options: GroupCommitOptions) {
    this.clock = options.clock;
    this.waiterCountMax = options.waiterCountMax ?? GROUP_COMMIT_WAITER_COUNT_MAX;
    assert(Number.isInteger(this.waiterCountMax));
    assert(this.waiterCountMax >= 1);
  }

  /** Rounds that synced at least one file. */
  get syncRoundCount(): number {
    return this.syncRoundCountTotal;
  }

  /** Writer datasyncs started by rounds, failed ones included. */
  get fileSyncCount(): number {
    return this.fileSyncCountTotal;
  }

  /** Time spent in rounds that synced, by the clock's monotonic time. */
  get syncTimeMsTotal(): number {
    return this.syncTimeMsSum;
  }

  /** Waiters queued or in a round now. */
  get waiterCount(): number {
    return this.waitersNext.length + this.waiterCountInRound;
  }

  addWriter(writer: XlogWriter): void {
    assert(!this.writers.has(writer));
    this.writers.add(writer);
  }

  /** The writer must have no waiters queued. */
  removeWriter(writer: XlogWriter): void {
    assert(this.writers.has(writer));
    assert(!this.waitersNext.some((waiter) => waiter.writer === writer));
    this.writers.delete(writer);
  }

  /**
   * Resolves once writer.syncedLsn >= lsn. Rejects with the writer's IO error if it is or becomes
   * broken first, and with LIMIT_EXCEEDED if waiterCountMax commits are already waiting.
   */
  waitDurable(writer: XlogWriter, lsn: Lsn): Promise<void> {
    assert(this.writers.has(writer));
    assert(lsn <= writer.lastLsn);
    if (writer.syncedLsn >= lsn) return Promise.resolve();
    if (writer.brokenError !== undefined) return Promise.reject(writer.brokenError);
    if (this.waiterCount >= this.waiterCountMax) {
      return Promise.reject(new StorageError('LIMIT_EXCEEDED', `${this.waiterCount} commits ` +
        `already wait for the xlog sync (maximum ${this.waiterCountMax})`));
    }
    const durable = new Promise<void>((resolve, reject) => {
      this.waitersNext.push({ writer, lsn, resolve, reject });
    });
    if (!this.roundsRunning) this.rounds = this.runRounds();
    return durable;
  }

  /** Makes every registered writer durable up to its lastLsn of now (periodic mode). */
  async syncAll(): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const writer of this.writers) {
      if (writer.lastLsn > writer.syncedLsn) waits.push(this.waitDurable(writer, writer.lastLsn));
    }
    await Promise.all(waits);
  }

  /** Resolves when no round is running (for shutdown and tests). */
  async idle(): Promise<void> {
    while (this.roundsRunning) await this.rounds;
  }

  private async runRounds(): Promise<void> {
    this.roundsRunning = true;
    try {
      while (this.waitersNext.length > 0) {
        const waiters = this.waitersNext;
        this.waitersNext = [];
        this.waiterCountInRound = waiters.length;
        await this.runRound(waiters);
        this.waiterCountInRound = 0;
      }
    } finally {
      this.roundsRunning = false;
    }
  }

  private async runRound(waiters: Waiter[]): Promise<void> {
    const failures = new Map<XlogWriter, unknown>();
    const writers = [...this.writers].filter(
      (writer) => writer.lastLsn > writer.syncedLsn && writer.brokenError === undefined,
    );
    if (writers.length > 0) {
      const startMs = this.clock.monotonicMs();
      const results = await Promise.allSettled(writers.map((writer) => writer.datasync()));
      this.syncRoundCountTotal += 1;
      this.fileSyncCountTotal += writers.length;
      this.syncTimeMsSum += this.clock.monotonicMs() - startMs;
      for (const [index, result] of results.entries()) {
        if (result.status === 'rejected') failures.set(writers[index]!, result.reason);
      }
    }
    for (const waiter of waiters) settleWaiter(waiter, failures.get(waiter.writer));
  }
}

function settleWaiter(waiter: Waiter, failure: unknown): void {
  if (waiter.writer.syncedLsn >= waiter.lsn) {
    waiter.resolve();
  } else if (failure !== undefined) {
    waiter.reject(failure);
  } else {
    // Not synced without a failure of its own: its writer was broken before the round began.
    assert(waiter.writer.brokenError !== undefined);
    waiter.reject(waiter.writer.brokenError);
  }
}
