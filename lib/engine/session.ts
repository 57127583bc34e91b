// Sessions and container handles: the client-facing shape of transactions.
//
// A transaction belongs to one session and one container (ACID per container, as GridDB). A container
// handle is in auto-commit mode until setAutoCommit(false); then its writes stay private to the
// session until commit() or abort(). Turning auto-commit back on commits what is pending, as GridDB.

import { StorageError } from '../base/errors.ts';
import { SCAN_ROW_COUNT_MAX } from '../base/limits.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { TqlCursor, TqlResult } from '../query/tql/execute.ts';
import type { RequestContext } from './partition.ts';
import type { TqlQueryOptions } from './partition-query.ts';
import type { Store } from './store.ts';
import type { ScanRange } from './transaction.ts';
import {
  partitionedCall, partitionedCount, partitionedQuery, partitionedTableOf,
} from './session-partitioned.ts';

export interface SessionOptions {
  /** Lock waits and open transactions end after this; capped by transactionTimeoutLimit. */
  transactionTimeoutMs?: number;
}

export class Session {
  private readonly handles = new Map<string, ContainerHandle>();
  private closed = false;

  constructor(
    readonly store: Store,
    readonly id: number,
    readonly transactionTimeoutMs: number,
    private readonly onClose: () => void,
  ) {}

  /** A handle on a container by name. No I/O: a missing container is reported by the first call. */
  container(name: string): ContainerHandle {
    this.checkOpen();
    let handle = this.handles.get(name);
    if (handle === undefined) {
      handle = new ContainerHandle(this, name);
      this.handles.set(name, handle);
    }
    return handle;
  }

  /** Aborts every open transaction of the session. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.store.closeSessionTransactions(this.id);
    this.onClose();
  }

  checkOpen(): void {
    if (this.closed) throw new StorageError('CLOSED', `session ${this.id} is closed`);
  }
}

export class ContainerHandle {
  private autoCommit = true;
  /** A partitioned table's data partitions written with auto-commit off (session-partitioned.ts). */
  private readonly pending = new Map<string, ContainerHandle>();

  constructor(
    private readonly session: Session,
    readonly name: string,
  ) {}

  get isAutoCommit(): boolean {
    return this.autoCommit;
  }

  async setAutoCommit(enabled: boolean): Promise<void> {
    if (enabled && !this.autoCommit) await this.commit();
    this.autoCommit = enabled;
  }

  async put(row: Row): Promise<void> {
    await this.multiPut([row]);
  }

  /** Puts one row; whether a row of its key existed (Partition.putRow). */
  async putRow(row: Row): Promise<boolean> {
    return this.partition().putRow(this.context(), this.name, row);
  }

  async multiPut(rows: readonly Row[]): Promise<void> {
    if (!Array.isArray(rows)) throw new StorageError('ROW_INVALID', 'multiPut takes an array of rows');
    const table = this.partitionedTable();
    if (table !== undefined) {
      await partitionedCall(this.session, table, this, (txn) => txn.put(rows));
      return;
    }
    await this.partition().put(this.context(), this.name, rows);
  }

  async get(key: RowKey): Promise<Row | undefined> {
    const table = this.partitionedTable();
    if (table !== undefined) return partitionedCall(this.session, table, this, (txn) => txn.get(key));
    return this.partition().get(this.context(), this.name, key);
  }

  /** Gets a row and locks its key for this handle's transaction (Partition.getForUpdate). */
  async getForUpdate(key: RowKey): Promise<Row | undefined> {
    return this.partition().getForUpdate(this.context(), this.name, key);
  }

  async remove(key: RowKey): Promise<boolean> {
    const table = this.partitionedTable();
    if (table !== undefined) return partitionedCall(this.session, table, this, (txn) => txn.remove(key));
    return this.partition().remove(this.context(), this.name, key);
  }

  async scan(range: Partial<ScanRange> = {}): Promise<Row[]> {
    return this.partition().scan(this.context(), this.name, checkRange(range));
  }

  async count(): Promise<number> {
    const table = this.partitionedTable();
    if (table !== undefined) return partitionedCount(this.session, table);
    return this.partition().count(this.context(), this.name);
  }

  /**
   * Runs a TQL query (docs/tql.md): the rows it selects, or its one aggregate. When rows remain
   * beyond `fetchSizeRows`, the result has a cursor for queryMore. `forUpdate` locks the rows of
   * the result for this handle's transaction (auto-commit off only: ILLEGAL_COMMIT_MODE).
   */
  async query(tql: string, options: TqlQueryOptions = {}): Promise<TqlResult> {
    const table = this.partitionedTable();
    if (table !== undefined) return partitionedQuery(this.session, table, tql, options);
    if (options.forUpdate === true) {
      return this.partition().queryForUpdate(this.context(), this.name, tql, options);
    }
    return this.partition().query(this.context(), this.name, tql, options);
  }

  /** The next rows of a query whose result had a cursor. */
  async queryMore(
    cursor: TqlCursor,
    options: Pick<TqlQueryOptions, 'fetchSizeRows'> = {},
  ): Promise<TqlResult> {
    return this.partition().queryContinue(this.context(), this.name, cursor, options);
  }

  async commit(): Promise<void> {
    for (const [name, handle] of this.pending) {
      this.pending.delete(name);
      await handle.commit();
    }
    await this.partition().commit(this.context(), this.name);
  }

  async abort(): Promise<void> {
    for (const handle of this.pending.values()) await handle.abort();
    this.pending.clear();
    this.partition().abort(this.context(), this.name);
  }

  get isAutoCommitOn(): boolean {
    return this.autoCommit;
  }

  /** A data partition's handle written with auto-commit off: committed or aborted with this one. */
  pendingAdd(name: string, handle: ContainerHandle): void {
    this.pending.set(name, handle);
  }

  /** The table's schema when this is a partitioned table (its calls go to its data partitions). */
  private partitionedTable() {
    return partitionedTableOf(this.session, this.name);
  }

  private partition() {
    this.session.checkOpen();
    return this.session.store.partitionFor(this.name);
  }

  private context(): RequestContext {
    return {
      sessionId: this.session.id,
      autoCommit: this.autoCommit,
      transactionTimeoutMs: this.session.transactionTimeoutMs,
    };
  }
}

function checkRange(range: Partial<ScanRange>): ScanRange {
  const direction = range.direction ?? 'asc';
  if (direction !== 'asc' && direction !== 'desc') {
    throw new StorageError('ROW_INVALID', `scan direction must be "asc" or "desc", not ${String(direction)}`);
  }
  const limit = range.limit;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
    throw new StorageError('ROW_INVALID', `scan limit must be a non-negative integer, not ${String(limit)}`);
  }
  // An unbounded scan still returns at most SCAN_ROW_COUNT_MAX rows; page with `from` for more.
  const checked: ScanRange = { direction, limit: Math.min(limit ?? SCAN_ROW_COUNT_MAX, SCAN_ROW_COUNT_MAX) };
  if (range.from !== undefined) checked.from = range.from;
  if (range.to !== undefined) checked.to = range.to;
  return checked;
}
