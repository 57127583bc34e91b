// A manual transaction: one session's changes to one container, kept private until commit.
//
// The write set is redo-only: uncommitted rows never touch a block image, so abort is "forget the write
// set" and there is no undo. Reads inside the transaction see its own changes laid over the committed
// rows (read your writes); other sessions see only committed rows (READ_COMMITTED).

import type { Subscription } from 'rxjs';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { ContainerId } from '../base/ids.ts';
import { TRANSACTION_WRITE_SET_ROW_COUNT_MAX } from '../base/limits.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { ContainerEntry } from './catalog.ts';
import type { LockOwner } from './lock-table.ts';

export interface WriteSetEntry {
  key: RowKey;
  /** null: the row is removed. */
  row: Row | null;
}

/**
 * active → committing → ended, or active → timedOut (locks released, write set dropped; the entry
 * stays so the session's next call learns of it with TRANSACTION_INVALID) → ended.
 */
export type TransactionState = 'active' | 'committing' | 'timedOut' | 'ended';

export interface Transaction {
  readonly owner: LockOwner;
  readonly sessionId: number;
  readonly containerId: ContainerId;
  /** Keyed by the canonical key string (row-key.ts), in first-write order. */
  readonly writes: Map<string, WriteSetEntry>;
  /** Rows put into a collection without a row key: they only append. */
  readonly appends: Row[];
  state: TransactionState;
  /**
   * Holds a container intent (so DDL waits) while it has keyless appends or rows of a keyless
   * collection fetched for update, which take no row lock.
   */
  appendIntent: boolean;
  /** Aborts the transaction when it outlives its timeout. */
  timer: Subscription | undefined;
}

export function writeSetSize(txn: Transaction): number {
  return txn.writes.size + txn.appends.length;
}

export function checkWriteSetRoom(txn: Transaction, addedRowCount: number): void {
  if (writeSetSize(txn) + addedRowCount > TRANSACTION_WRITE_SET_ROW_COUNT_MAX) {
    throw new StorageError('LIMIT_EXCEEDED',
      `a transaction may change at most ${TRANSACTION_WRITE_SET_ROW_COUNT_MAX} rows before commit`);
  }
}

/** The commit record's content: the last change of every row, puts and removes disjoint by key. */
export function writeSetChanges(txn: Transaction): { puts: Row[]; removes: RowKey[] } {
  const puts: Row[] = [];
  const removes: RowKey[] = [];
  for (const { key, row } of txn.writes.values()) {
    if (row === null) removes.push(key);
    else puts.push(row);
  }
  for (const row of txn.appends) puts.push(row);
  return { puts, removes };
}

/** The row a transaction sees for `key`: its own change if any, else the committed row. */
export function transactionGet(
  entry: ContainerEntry,
  txn: Transaction | undefined,
  key: RowKey,
): Row | undefined {
  if (txn !== undefined && txn.writes.size > 0) {
    assert(entry.keys !== undefined);
    const own = txn.writes.get(entry.keys.keyString(key));
    // A copy: the caller may change what it gets without changing what will be committed.
    if (own !== undefined) return own.row === null ? undefined : own.row.slice();
  }
  return entry.rows.get(key);
}

export interface ScanRange {
  from?: RowKey;
  to?: RowKey;
  direction: 'asc' | 'desc';
  limit?: number;
}

/** A scan inside a transaction: committed rows in range, merged with the transaction's changes. */
export function transactionScan(entry: ContainerEntry, txn: Transaction | undefined, range: ScanRange) {
  const changed = txn !== undefined && writeSetSize(txn) > 0;
  if (!changed) return entry.rows.scan(range);
  if (entry.keys === undefined) {
    // Keyless: own appends come after every committed row, in rowId order.
    const all = [...entry.rows.scan({ direction: 'asc' }), ...txn.appends.map((row) => row.slice())];
    if (range.direction === 'desc') all.reverse();
    return range.limit === undefined ? all : all.slice(0, range.limit);
  }
  const keys = entry.keys;
  // Each own change can hide at most one committed row, so this many committed rows are enough.
  const committedLimit = range.limit === undefined ? undefined : range.limit + txn.writes.size;
  const merged = new Map<string, Row>();
  for (const row of entry.rows.scan({ ...range, limit: committedLimit })) {
    merged.set(keys.keyString(keys.keyOf(row)), row);
  }
  for (const [keyString, change] of txn.writes) {
    if (!inRange(keys.compare, change.key, range)) continue;
    if (change.row === null) merged.delete(keyString);
    else merged.set(keyString, change.row.slice());
  }
  const sign = range.direction === 'asc' ? 1 : -1;
  const rows = [...merged.values()].sort((a, b) => sign * keys.compare(keys.keyOf(a), keys.keyOf(b)));
  return range.limit === undefined ? rows : rows.slice(0, range.limit);
}

function inRange(compare: (a: RowKey, b: RowKey) => number, key: RowKey, range: ScanRange): boolean {
  if (range.from !== undefined && compare(key, range.from) < 0) return false;
  if (range.to !== undefined && compare(key, range.to) > 0) return false;
  return true;
}

/** Row count seen inside a transaction. */
export function transactionCount(entry: ContainerEntry, txn: Transaction | undefined): number {
  let count = entry.rows.count();
  if (txn === undefined) return count;
  for (const { key, row } of txn.writes.values()) {
    const committed = entry.rows.has(key);
    if (row === null && committed) count--;
    if (row !== null && !committed) count++;
  }
  return count + txn.appends.length;
}
