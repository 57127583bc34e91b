// The open transactions of one partition, by (session, container), and their life: begin on the
// first write of a manual session, end at commit or abort, and time out when abandoned. A timed-out
// transaction lets go of its locks at once but stays in the table until its session's next call, which
// learns of it (TRANSACTION_INVALID) exactly once.

import type { SchedulerLike } from 'rxjs';
import { StorageError } from '../base/errors.ts';
import type { ContainerId } from '../base/ids.ts';
import type { LockTable } from './lock-table.ts';
import type { Transaction } from './transaction.ts';

export interface TransactionScope {
  sessionId: number;
  containerId: ContainerId;
  /** The session's transaction timeout, already capped by transactionTimeoutLimit. */
  transactionTimeoutMs: number;
}

export class TransactionTable {
  private readonly transactions = new Map<string, Transaction>();

  constructor(
    private readonly locks: LockTable,
    private readonly scheduler: SchedulerLike,
  ) {}

  get size(): number {
    return this.transactions.size;
  }

  /** The session's transaction on the container, begun now if there is none. */
  begin(scope: TransactionScope): Transaction {
    const existing = this.find(scope);
    if (existing !== undefined) return existing;
    const txn: Transaction = {
      owner: this.locks.newOwner(),
      sessionId: scope.sessionId,
      containerId: scope.containerId,
      writes: new Map(),
      appends: [],
      state: 'active',
      appendIntent: false,
      timer: undefined,
    };
    // An abandoned transaction must not hold its locks forever.
    txn.timer = this.scheduler.schedule(() => {
      if (txn.state === 'active') this.timeOut(txn);
    }, scope.transactionTimeoutMs);
    this.transactions.set(transactionKey(scope.sessionId, scope.containerId), txn);
    return txn;
  }

  /** The open transaction, if any; reports (once) one that timed out, and one mid-commit. */
  find(scope: TransactionScope): Transaction | undefined {
    const txn = this.transactions.get(transactionKey(scope.sessionId, scope.containerId));
    if (txn === undefined) return undefined;
    if (txn.state === 'committing') {
      throw new StorageError('TRANSACTION_INVALID', 'the transaction is being committed');
    }
    if (txn.state === 'timedOut') {
      this.end(txn);
      throw transactionTimedOut(scope.transactionTimeoutMs);
    }
    return txn;
  }

  /** Aborts the session's transaction on the container, whatever its state but mid-commit. */
  abort(sessionId: number, containerId: ContainerId): void {
    const txn = this.transactions.get(transactionKey(sessionId, containerId));
    if (txn !== undefined && txn.state !== 'committing') this.end(txn);
  }

  /** Ends every transaction matching `filter` (a session closed, a container dropped). */
  abortWhere(filter: (txn: Transaction) => boolean): void {
    for (const txn of [...this.transactions.values()]) {
      if (txn.state !== 'committing' && filter(txn)) this.end(txn);
    }
  }

  end(txn: Transaction): void {
    txn.state = 'ended';
    txn.timer?.unsubscribe();
    this.releaseLocks(txn);
    const key = transactionKey(txn.sessionId, txn.containerId);
    if (this.transactions.get(key) === txn) this.transactions.delete(key);
  }

  /** The timeout fired: let go of everything, but remember it until the session hears of it. */
  private timeOut(txn: Transaction): void {
    txn.state = 'timedOut';
    txn.timer = undefined;
    this.releaseLocks(txn);
    txn.writes.clear();
    txn.appends.length = 0;
  }

  private releaseLocks(txn: Transaction): void {
    if (txn.appendIntent) this.locks.endIntent(txn.owner, txn.containerId);
    txn.appendIntent = false;
    this.locks.releaseAll(txn.owner);
  }
}

export function transactionTimedOut(timeoutMs: number): StorageError {
  return new StorageError('TRANSACTION_INVALID',
    `the transaction timed out after ${timeoutMs} ms and was aborted; its changes were discarded`);
}

function transactionKey(sessionId: number, containerId: ContainerId): string {
  return `${sessionId}/${containerId}`;
}
