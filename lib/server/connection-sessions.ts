// The engine sessions of one connection. Session 0 is the connection's auto-commit session, made
// at authentication; SESSION_OPEN makes manual ones, numbered by the engine's session ids (never
// 0).
// A session belongs to its connection: another connection cannot name it, and when the connection
// closes every session closes and its open transactions are aborted (a commit already under way
// still completes).

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { CONNECTION_SESSION_COUNT_MAX } from '../base/limits.ts';
import type { Session } from '../engine/session.ts';
import type { Store } from '../engine/store.ts';
import { AUTO_COMMIT_SESSION_ID } from '../protocol/wire-refs.ts';

export class ConnectionSessions {
  private readonly manual = new Map<number, Session>();
  private closed = false;

  constructor(
    private readonly store: Store,
    readonly autoCommit: Session,
  ) {}

  get manualCount(): number {
    return this.manual.size;
  }

  /** A new manual session; `transactionTimeoutMs` 0 takes the auto-commit session's. */
  open(transactionTimeoutMs: number): Session {
    assert(!this.closed);
    if (this.manual.size >= CONNECTION_SESSION_COUNT_MAX) {
      throw new StorageError('LIMIT_EXCEEDED',
        `a connection may hold at most ${CONNECTION_SESSION_COUNT_MAX} open sessions`);
    }
    const session = this.store.session({
      transactionTimeoutMs: transactionTimeoutMs === 0
        ? this.autoCommit.transactionTimeoutMs : transactionTimeoutMs,
    });
    assert(session.id !== AUTO_COMMIT_SESSION_ID);
    this.manual.set(session.id, session);
    return session;
  }

  /** The session `sessionId` names; TRANSACTION_INVALID when this connection has none by it. */
  get(sessionId: number): Session {
    if (sessionId === AUTO_COMMIT_SESSION_ID) return this.autoCommit;
    const session = this.manual.get(sessionId);
    if (session === undefined) {
      throw new StorageError('TRANSACTION_INVALID', `session ${sessionId} is not open on this ` +
        'connection: a session ends with its connection, and its transaction is aborted');
    }
    return session;
  }

  /** A manual session: session 0 has no transactions to commit, abort or switch. */
  getManual(sessionId: number): Session {
    if (sessionId === AUTO_COMMIT_SESSION_ID) {
      throw new StorageError('TRANSACTION_INVALID', 'session 0 is the auto-commit session; ' +
        'open a session for manual transactions');
    }
    return this.get(sessionId);
  }

  isOpen(sessionId: number): boolean {
    return !this.closed &&
      (sessionId === AUTO_COMMIT_SESSION_ID || this.manual.has(sessionId));
  }

  /** Closes a manual session (aborting its transactions); an unknown id is already closed. */
  close(sessionId: number): void {
    if (sessionId === AUTO_COMMIT_SESSION_ID) {
      throw new StorageError('TRANSACTION_INVALID', 'session 0 closes with its connection');
    }
    this.manual.get(sessionId)?.close();
    this.manual.delete(sessionId);
  }

  closeAll(): void {
    if (this.closed) return;
    this.closed = true;
    for (const session of this.manual.values()) session.close();
    this.manual.clear();
    this.autoCommit.close();
  }
}
