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
// retries within seconds; outcomes do not survive a restart.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { MessageType } from '../protocol/message-types.ts';

interface StatementEntry {
  clientKey: string;
  messageType: MessageType;
  outcome: Promise<unknown>;
  /** The outcome holds only while this returns true (a manual session still open). */
  stillHolds: (() => boolean) | undefined;
}

export interface StatementKey {
  /** Who asked: the same for every connection of one client. */
  clientKey: string;
  statementId: number;
  messageType: MessageType;
}

export class StatementResults {
  /** By `client#statementId`, oldest first. */
  private readonly entries = new Map<string, StatementEntry>();
  /** Each client's entry keys, oldest first. */
  private readonly byClient = new Map<string, Set<string>>();

  constructor(
    private readonly countMax: number,
    private readonly countPerClientMax: number,
  ) {
    assert(Number.isSafeInteger(countMax) && countMax > 0);
    assert(Number.isSafeInteger(countPerClientMax) && countPerClientMax > 0);
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Runs `execute` unless this statement ran already, in which case its first outcome (a value or
   * an error) is returned again. `stillHolds` says, when given, whether that outcome is still true.
   */
  async once<T>(
    key: StatementKey,
    execute: () => Promise<T>,
    stillHolds?: () => boolean,
  ): Promise<T> {
    const entryKey = `${key.clientKey}#${key.statementId}`;
    const existing = this.entries.get(entryKey);
    if (existing !== undefined) {
      if (existing.messageType !== key.messageType) {
        throw new StorageError('PROTOCOL_ERROR',
          `statement id ${key.statementId} was already used by another kind of request`);
      }
      if (existing.stillHolds === undefined || existing.stillHolds()) {
        return existing.outcome as Promise<T>;
      }
      this.forget(entryKey);
    }
    let outcome: Promise<T>;
    try {
      outcome = execute();
    } catch (error) {
      outcome = Promise.reject(error);
    }
    // The outcome is awaited by the caller; the copy kept here must not count as unhandled.
    outcome.catch(() => undefined);
    this.remember(entryKey, {
      clientKey: key.clientKey, messageType: key.messageType, outcome, stillHolds,
    });
    return outcome;
  }

  /** Whether once() would answer this statement with an outcome it holds, without running it. */
  answers(key: StatementKey): boolean {
    const existing = this.entries.get(`${key.clientKey}#${key.statementId}`);
    return existing !== undefined && existing.messageType === key.messageType &&
      (existing.stillHolds === undefined || existing.stillHolds());
  }

  private remember(entryKey: string, entry: StatementEntry): void {
    this.entries.set(entryKey, entry);
    let keys = this.byClient.get(entry.clientKey);
    if (keys === undefined) {
      keys = new Set();
      this.byClient.set(entry.clientKey, keys);
    }
    keys.add(entryKey);
    if (keys.size > this.countPerClientMax) this.forget(keys.values().next().value!);
    while (this.entries.size > this.countMax) this.forget(this.entries.keys().next().value!);
  }

  private forget(entryKey: string): void {
    const entry = this.entries.get(entryKey);
    if (entry === undefined) return;
    this.entries.delete(entryKey);
    const keys = this.byClient.get(entry.clientKey)!;
    keys.delete(entryKey);
    if (keys.size === 0) this.byClient.delete(entry.clientKey);
  }
}
