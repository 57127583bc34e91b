// The outcomes of write statements, so that a request retried with its statement id is answered
// with the first outcome and not applied again (DESIGN.md §4). A client numbers its write requests
// over all its connections; when a connection breaks with a write in flight, the client cannot
// know whether the write was applied, so it sends the very same request again on a new connection.
//
// Keyed by (client, statement id). A retry that arrives while the first attempt still runs waits
// for it. The outcome of a write inside a manual transaction dies with its session: when the
// session has closed (its connection broke, so the transaction was aborted), the entry no longer
// answers, and the retry runs and learns that the session is gone. Commits, aborts and auto-commit
// writes are durable outcomes and keep answering.
//
// Bounded twice: the oldest outcomes overall beyond countMax are forgotten, and a client's own
// oldest beyond countPerClientMax (so one busy client forgets its own, not others'). A client
// retries within seconds; outcomes do not survive a restart. An entry keeps only its key, its
// outcome and its validity, and a forgotten one not even those (it may wait in the queue until
// compaction): at countMax entries that is a few hundred bytes each, where an entry that kept its
// request (rows and bytes, about 1 KB for one row) held 260 MB at twice 131,072 (issue 12's soak).

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { MessageType } from '../protocol/message-types.ts';

/**
 * Whether a remembered outcome is still true, asked at each retry. An object with a method, not a
 * closure: the table keeps one per entry, and a closure kept that long costs its context (every
 * variable its scope shares with other closures: a handler's request, once) and, as tsx compiles
 * named functions, a dictionary of properties (its `name`), about 250 bytes.
 */
export interface OutcomeValidity {
  holds(): boolean;
}

interface StatementEntry {
  clientKey: string;
  statementId: number;
  messageType: MessageType;
  /** FORGOTTEN once forgotten: a slot left in the queue must not keep a value alive. */
  outcome: Promise<unknown>;
  /** The outcome holds only while this says so (a manual session still open). */
  validity: OutcomeValidity | undefined;
}

/** What a forgotten entry holds instead of its outcome; never answered (the entry is not live). */
const FORGOTTEN: Promise<unknown> = Promise.resolve(undefined);

export interface StatementKey {
  /** Who asked: the same for every connection of one client. */
  clientKey: string;
  statementId: number;
  messageType: MessageType;
}

/** The queue is never compacted below this many slots. */
const QUEUE_COMPACT_SLOTS_MIN = 1024;

export class StatementResults {
  /** Each client's entries by statement id, oldest first (a Map keeps insertion order). */
  private readonly byClient = new Map<string, Map<number, StatementEntry>>();
  /**
   * Every entry remembered, oldest first from `queueHead`. An entry forgotten for another reason
   * (its client's bound, an outcome that no longer holds) stays until it is reached or compacted
   * away; it is live while its client's map still holds it.
   */
  private queue: StatementEntry[] = [];
  private queueHead = 0;
  private entryCount = 0;

  constructor(
    private readonly countMax: number,
    private readonly countPerClientMax: number,
    /** Tests make it tiny, so that compaction happens within a few statements. */
    private readonly queueCompactSlotsMin = QUEUE_COMPACT_SLOTS_MIN,
  ) {
    assert(Number.isSafeInteger(countMax) && countMax > 0);
    assert(Number.isSafeInteger(countPerClientMax) && countPerClientMax > 0);
    assert(Number.isSafeInteger(queueCompactSlotsMin) && queueCompactSlotsMin > 0);
  }

  get size(): number {
    return this.entryCount;
  }

  /**
   * Runs `execute` unless this statement ran already, in which case its first outcome (a value or
   * an error) is returned again. `validity` says, when given, whether that outcome is still true.
   */
  async once<T>(
    key: StatementKey,
    execute: () => Promise<T>,
    validity?: OutcomeValidity,
  ): Promise<T> {
    const existing = this.byClient.get(key.clientKey)?.get(key.statementId);
    if (existing !== undefined) {
      if (existing.messageType !== key.messageType) {
        throw new StorageError('PROTOCOL_ERROR',
          `statement id ${key.statementId} was already used by another kind of request`);
      }
      if (existing.validity === undefined || existing.validity.holds()) {
        return existing.outcome as Promise<T>;
      }
      this.forget(existing);
    }
    let outcome: Promise<T>;
    try {
      outcome = execute();
    } catch (error) {
      outcome = Promise.reject(error);
    }
    // The outcome is awaited by the caller; the copy kept here must not count as unhandled.
    outcome.catch(() => undefined);
    this.remember({
      clientKey: key.clientKey, statementId: key.statementId, messageType: key.messageType,
      outcome, validity,
    });
    return outcome;
  }

  /** Whether once() would answer this statement with an outcome it holds, without running it. */
  answers(key: StatementKey): boolean {
    const existing = this.byClient.get(key.clientKey)?.get(key.statementId);
    return existing !== undefined && existing.messageType === key.messageType &&
      (existing.validity === undefined || existing.validity.holds());
  }

  private remember(entry: StatementEntry): void {
    let entries = this.byClient.get(entry.clientKey);
    if (entries === undefined) {
      entries = new Map();
      this.byClient.set(entry.clientKey, entries);
    }
    entries.set(entry.statementId, entry);
    this.entryCount++;
    this.queue.push(entry);
    if (entries.size > this.countPerClientMax) this.forget(entries.values().next().value!);
    while (this.entryCount > this.countMax) this.forget(this.dequeue());
    this.compactQueue();
  }

  /** The oldest queued entry, live or already forgotten, taken off the queue. */
  private dequeue(): StatementEntry {
    const entry = this.queue[this.queueHead++];
    assert(entry !== undefined, 'entries counted but none queued');
    return entry;
  }

  /** Forgets an entry unless it is forgotten already (a newer run may hold its statement id). */
  private forget(entry: StatementEntry): void {
    if (!this.isLive(entry)) return;
    const entries = this.byClient.get(entry.clientKey)!;
    entries.delete(entry.statementId);
    this.entryCount--;
    entry.outcome = FORGOTTEN;
    entry.validity = undefined;
    if (entries.size === 0) this.byClient.delete(entry.clientKey);
  }

  private isLive(entry: StatementEntry): boolean {
    return this.byClient.get(entry.clientKey)?.get(entry.statementId) === entry;
  }

  /**
   * Drops the dequeued and forgotten slots once the queue holds twice the live entries (and at
   * least queueCompactSlotsMin), so it stays bounded at O(1) a remember, amortized.
   */
  private compactQueue(): void {
    if (this.queue.length < Math.max(this.queueCompactSlotsMin, 2 * this.entryCount)) return;
    this.queue = this.queue.slice(this.queueHead).filter((entry) => this.isLive(entry));
    this.queueHead = 0;
  }
}
