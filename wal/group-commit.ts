// Group commit for one partition group (logWriteMode 0): a commit is acknowledged only once its
// record is durable, and one round of syncs covers every commit waiting at that moment.
//
// Where a record becomes durable: each partition has its own xlog, so syncing every xlog a round's
// commits touched would cost one fdatasync per partition (64 clients on 64 partitions: 64 syncs a
// round, and the disk runs them one after another). So a small record (at most
// JOURNAL_RECORD_PAYLOAD_BYTES_MAX) is also copied into the group's commit journal
// (journal-writer.ts), and the round makes all of them durable with the journal's one fdatasync. A
// larger record syncs its own xlog, as does every record while the group has no journal (before
// recovery ends, under logWriteMode n >= 1, or after the journal failed).
//
// The rule that keeps recovery exact: a partition's records are durable as a prefix. A journaled
// record is acknowledged only when the journal holds it AND the partition's xlog is synced up to
// the last record before it that went to the xlog alone (xlogOnlyLsn). Recovery replays the xlog,
// then the journal's records that continue it without a gap (partition-log.ts).
//
// Sync rounds run one at a time. A waiter that arrives with no round running starts one at once;
// waiters that arrive while a round runs wait for the next, which starts as soon as the current one
// ends and covers all of them. A round first retires the journal file if it grew past
// JOURNAL_FILE_BYTES_MAX, then runs in parallel the journal's sync and the syncs of the xlogs its
// waiters need, then settles them: durable ones resolve; the others reject with the failure of the
// sync they needed. A failed sync breaks its file for good (the kernel may have dropped the pages
// it failed to write), so its waiters and every later commit on it fail with IO.

import { dirname } from 'node:path';
import { assert } from '../lib/base/assert.ts';
import { StorageError } from '../lib/base/errors.ts';
import type { Lsn, PartitionId } from '../lib/base/ids.ts';
import {
  GROUP_COMMIT_WAITER_COUNT_MAX, JOURNAL_FILE_BYTES_MAX, JOURNAL_RECORD_PAYLOAD_BYTES_MAX,
} from '../lib/base/limits.ts';
import type { Clock } from '../lib/io/clock.ts';
import type { FileSystem } from '../lib/io/file-system.ts';
import { JournalWriter } from './journal-writer.ts';
import type { XlogRecordType } from './xlog-format.ts';
import type { XlogWriter } from './xlog-writer.ts';

export interface GroupCommitOptions {
  clock: Clock;
  /** Waiters at most, queued and in a round; defaults to GROUP_COMMIT_WAITER_COUNT_MAX. */
  waiterCountMax?: number;
  /** Retire the journal file past this size; defaults to JOURNAL_FILE_BYTES_MAX. */
  journalFileBytesMax?: number;
}

interface Waiter {
  writer: XlogWriter;
  lsn: Lsn;
  /** The writer must be synced up to here (0n: no xlog sync needed). */
  xlogLsn: Lsn;
  /** The journal must be durable up to this ticket (0: not in the journal). */
  ticket: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  private readonly clock: Clock;
  private readonly waiterCountMax: number;
  private readonly journalFileBytesMax: number;
  private readonly writers = new Set<XlogWriter>();
  /** Per writer, the LSN of its last record not copied into the journal. */
  private readonly xlogOnlyLsns = new Map<XlogWriter, Lsn>();
  private journal: { writer: JournalWriter; fileSystem: FileSystem } | undefined;
  /** The journal file is retired at the first round after it reaches this size. */
  private journalRetireAtBytes = 0;
  /** Records copied into the journal so far (each gets the next ticket), and how many are durable. */
  private journalTicketLast = 0;
  private journalTicketDurable = 0;
  /** Waiters for the next round. */
  private waitersNext: Waiter[] = [];
  private waiterCountInRound = 0;
  private roundsRunning = false;
  /** The last run of rounds; it never rejects (errors go to the waiters). */
  private rounds: Promise<void> = Promise.resolve();
  private syncRoundCountTotal = 0;
  private fileSyncCountTotal = 0;
  private journalSyncCountTotal = 0;
  private syncTimeMsSum = 0;
  private journalErrorLast: unknown = undefined;

  constructor(options: GroupCommitOptions) {
    this.clock = options.clock;
    this.waiterCountMax = options.waiterCountMax ?? GROUP_COMMIT_WAITER_COUNT_MAX;
    this.journalFileBytesMax = options.journalFileBytesMax ?? JOURNAL_FILE_BYTES_MAX;
    assert(Number.isInteger(this.waiterCountMax));
    assert(this.waiterCountMax >= 1);
  }

  /** Rounds that synced at least one file. */
  get syncRoundCount(): number {
    return this.syncRoundCountTotal;
  }

  /** Datasyncs started by rounds (xlogs and the journal), failed ones included. */
  get fileSyncCount(): number {
    return this.fileSyncCountTotal;
  }

  /** Journal datasyncs among fileSyncCount. */
  get journalSyncCount(): number {
    return this.journalSyncCountTotal;
  }

  /** Time spent in rounds that synced, by the clock's monotonic time. */
  get syncTimeMsTotal(): number {
    return this.syncTimeMsSum;
  }

  /** Waiters queued or in a round now. */
  get waiterCount(): number {
    return this.waitersNext.length + this.waiterCountInRound;
  }

  /** The journal file in use; undefined without one. */
  get journalPath(): string | undefined {
    return this.journal?.writer.path;
  }

  /** The last failure of the journal; undefined if none. */
  get journalError(): unknown {
    return this.journalErrorLast;
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
    this.xlogOnlyLsns.delete(writer);
  }

  /** From now on small records are journaled (recovery calls this once the journal file exists). */
  attachJournal(writer: JournalWriter, fileSystem: FileSystem): void {
    assert(this.journal === undefined);
    this.journal = { writer, fileSystem };
    this.journalRetireAtBytes = this.journalFileBytesMax;
  }

  /**
   * A record just appended to `writer` at `lsn` (logWriteMode 0): resolves once it is durable, in
   * the journal or in its xlog. Rejects as waitDurable does.
   */
  commit(
    writer: XlogWriter,
    record: { partitionId: PartitionId; lsn: Lsn; type: XlogRecordType; payload: Uint8Array },
  ): Promise<void> {
    assert(record.lsn === writer.lastLsn);
    const limited = this.refuseOverLimit();
    if (limited !== undefined) return limited;
    let ticket: number;
    try {
      ticket = this.journalCopy(record);
    } catch (error) {
      return Promise.reject(error);
    }
    if (ticket === 0) {
      this.xlogOnlyLsns.set(writer, record.lsn);
      return this.enqueue(writer, record.lsn, record.lsn, 0);
    }
    return this.enqueue(writer, record.lsn, this.xlogOnlyLsns.get(writer) ?? (0n as Lsn), ticket);
  }

  /**
   * Resolves once writer.syncedLsn >= lsn (its xlog itself, never the journal). Rejects with the
   * writer's IO error if it is or becomes broken first, and with LIMIT_EXCEEDED if waiterCountMax
   * commits are already waiting.
   */
  waitDurable(writer: XlogWriter, lsn: Lsn): Promise<void> {
    assert(this.writers.has(writer));
    assert(lsn <= writer.lastLsn);
    if (writer.syncedLsn >= lsn) return Promise.resolve();
    if (writer.brokenError !== undefined) return Promise.reject(writer.brokenError);
    return this.refuseOverLimit() ?? this.enqueue(writer, lsn, lsn, 0);
  }

  /** Makes every registered writer durable up to its lastLsn of now (periodic mode, shutdown). */
  async syncAll(): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const writer of this.writers) {
      if (writer.lastLsn > writer.syncedLsn) waits.push(this.waitDurable(writer, writer.lastLsn));
    }
    await Promise.all(waits);
  }

  /**
   * Shutdown, after syncAll: every record is in a synced xlog, so the journal file goes (a clean
   * restart then reads none). Later commits sync their xlogs.
   */
  async retireJournal(): Promise<void> {
    await this.idle();
    const journal = this.closeJournal();
    if (journal === undefined) return;
    journal.fileSystem.remove(journal.writer.path);
    await journal.fileSystem.syncDirectory(dirname(journal.writer.path));
  }

  /**
   * Closes the journal file and keeps it (a shutdown after a failure: recovery reads it). Later
   * commits sync their xlogs.
   */
  closeJournal(): { writer: JournalWriter; fileSystem: FileSystem } | undefined {
    const journal = this.journal;
    this.journal = undefined;
    journal?.writer.close();
    return journal;
  }

  /** Resolves when no round is running (for shutdown and tests). */
  async idle(): Promise<void> {
    while (this.roundsRunning) await this.rounds;
  }

  /** The record's journal ticket, or 0 when it goes to its xlog alone. Throws IO when broken. */
  private journalCopy(
    record: { partitionId: PartitionId; lsn: Lsn; type: XlogRecordType; payload: Uint8Array },
  ): number {
    const journal = this.journal?.writer;
    if (journal === undefined || record.payload.length > JOURNAL_RECORD_PAYLOAD_BYTES_MAX) return 0;
    journal.append(record);
    return ++this.journalTicketLast;
  }

  private refuseOverLimit(): Promise<void> | undefined {
    if (this.waiterCount < this.waiterCountMax) return undefined;
    return Promise.reject(new StorageError('LIMIT_EXCEEDED', `${this.waiterCount} commits ` +
      `already wait for the xlog sync (maximum ${this.waiterCountMax})`));
  }

  private enqueue(writer: XlogWriter, lsn: Lsn, xlogLsn: Lsn, ticket: number): Promise<void> {
    const durable = new Promise<void>((resolve, reject) => {
      this.waitersNext.push({ writer, lsn, xlogLsn, ticket, resolve, reject });
    });
    if (!this.roundsRunning) this.rounds = this.runRounds();
    return durable;
  }

  private async runRounds(): Promise<void> {
    this.roundsRunning = true;
    try {
      // Commits queued in the same synchronous run (syncAll, a burst of requests) share the round.
      await Promise.resolve();
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
    const journal = this.journal?.writer;
    if (journal !== undefined && journal.brokenError === undefined &&
        journal.sizeBytes >= this.journalRetireAtBytes) {
      await this.retireJournalFile();
    }
    const needed = new Set<XlogWriter>();
    let ticketTarget = 0;
    for (const waiter of waiters) {
      if (waiter.writer.syncedLsn < waiter.xlogLsn && waiter.writer.brokenError === undefined) {
        needed.add(waiter.writer);
      }
      ticketTarget = Math.max(ticketTarget, waiter.ticket);
    }
    const writers = [...needed];
    const syncs: Promise<void>[] = writers.map((writer) => writer.datasync());
    const failures = new Map<XlogWriter, unknown>();
    // A broken journal is not synced again; its waiters reject with its failure (settle).
    const journalUsable = this.journal !== undefined && this.journal.writer.brokenError === undefined;
    if (ticketTarget > this.journalTicketDurable && journalUsable) syncs.push(this.syncJournal());
    if (syncs.length > 0) {
      const startMs = this.clock.monotonicMs();
      const results = await Promise.allSettled(syncs);
      this.syncRoundCountTotal += 1;
      this.fileSyncCountTotal += syncs.length;
      this.syncTimeMsSum += this.clock.monotonicMs() - startMs;
      for (const [index, writer] of writers.entries()) {
        const result = results[index]!;
        if (result.status === 'rejected') failures.set(writer, result.reason);
      }
    }
    for (const waiter of waiters) this.settle(waiter, failures.get(waiter.writer));
  }

  /** Syncs the journal; a failure is kept (journalError) for the waiters, never thrown. */
  private async syncJournal(): Promise<void> {
    const journal = this.journal!.writer;
    const ticket = this.journalTicketLast;
    this.journalSyncCountTotal++;
    try {
      await journal.sync();
      this.journalTicketDurable = Math.max(this.journalTicketDurable, ticket);
    } catch (error) {
      this.journalErrorLast = error;
    }
  }

  /**
   * Starts the next journal file, then makes the old one redundant: it and every xlog with unsynced
   * records are synced, and its waiters are durable once either succeeds; once the xlogs are, it
   * is deleted. If the next file cannot be created the old one stays in use.
   */
  private async retireJournalFile(): Promise<void> {
    const current = this.journal!;
    let next: JournalWriter;
    try {
      next = await JournalWriter.create({
        ...current.writer.options, sequence: current.writer.sequence + 1,
      });
    } catch (error) {
      // The old file stays in use; try again once it has grown as much once more.
      this.journalErrorLast = error;
      this.journalRetireAtBytes = current.writer.sizeBytes + this.journalFileBytesMax;
      return;
    }
    this.journal = { writer: next, fileSystem: current.fileSystem };
    this.journalRetireAtBytes = this.journalFileBytesMax;
    const ticketAtSwitch = this.journalTicketLast;
    const dirty = [...this.writers].filter((writer) =>
      writer.lastLsn > writer.syncedLsn && writer.brokenError === undefined);
    const [oldSynced, ...xlogsSynced] = await Promise.allSettled(
      [current.writer.sync(), ...dirty.map((writer) => writer.datasync())]);
    this.fileSyncCountTotal += 1 + dirty.length;
    this.journalSyncCountTotal++;
    const xlogsDurable = xlogsSynced.every((result) => result.status === 'fulfilled');
    if (oldSynced!.status === 'rejected') this.journalErrorLast = oldSynced!.reason;
    // Either way every record the old file took is durable.
    if (oldSynced!.status === 'fulfilled' || xlogsDurable) {
      this.journalTicketDurable = Math.max(this.journalTicketDurable, ticketAtSwitch);
    }
    current.writer.close();
    // Kept if an xlog sync failed: recovery still needs its records.
    if (xlogsDurable) current.fileSystem.remove(current.writer.path);
  }

  private settle(waiter: Waiter, failure: unknown): void {
    const { writer } = waiter;
    if (writer.syncedLsn >= waiter.xlogLsn && this.journalTicketDurable >= waiter.ticket) {
      waiter.resolve();
    } else if (failure !== undefined) {
      waiter.reject(failure);
    } else if (writer.syncedLsn < waiter.xlogLsn) {
      // Not synced without a failure of its own: its writer was broken before the round began.
      assert(writer.brokenError !== undefined);
      waiter.reject(writer.brokenError);
    } else {
      const journalError = this.journal?.writer.brokenError ?? this.journalErrorLast;
      assert(journalError !== undefined);
      waiter.reject(journalError);
    }
  }
}
