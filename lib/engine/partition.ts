// One partition: its catalog, its manual transactions, its locks and its xlog. All of it is owned by
// the partition group's single thread; nothing here is shared.
//
// Every change follows one path: validate (nothing has changed yet, so a bad request leaves the data as
// it was) → take locks → admit into the pipeline → append one xlog record → the pipeline waits for
// durability, applies the record to the block images and answers. Replay at open applies the very same
// records through the same apply functions (partition-apply.ts).

import { rowForOutput, rowsForOutput } from './row-output.ts';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { QUERY_FOR_UPDATE_PASS_COUNT_MAX } from '../base/limits.ts';
import { lsn, type Lsn, type PartitionId } from '../base/ids.ts';
import type { PartitionCheckpointer } from '../../compaction/checkpoint.ts';
import type { ContainerDefinition, ContainerSchema } from '../schema/container-schema.ts';
import type { ColumnSchema } from '../schema/container-schema.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { TablePartitioning } from '../schema/table-partitioning.ts';
import { normalizeName, validateContainerName } from '../schema/names.ts';
import {
  schemasEqual, validateAddColumn, validateAddIndex, validateContainerDefinition,
  validateIndexDefinition, validateIndexSelector, validateRenameColumn,
} from '../schema/schema-validate.ts';
import { XlogRecordType } from '../../wal/xlog-format.ts';
import { Catalog, type ContainerEntry, type ContainerInfo } from './catalog.ts';
import { LockTable, type LockOwner } from './lock-table.ts';
import type { PartitionContext } from './partition-context.ts';
import { applyCommit } from './partition-apply.ts';
import { PartitionLog } from './partition-log.ts';
import {
  forUpdateKeyStrings, partitionQuery, partitionQueryContinue, type TqlQueryOptions,
} from './partition-query.ts';
import type { TqlCursor, TqlResult } from '../query/tql/execute.ts';
import {
  encodeCommit, encodeCreateIndex, encodeDrop, encodeDropIndexes, encodeSchemaRecord,
} from './xlog-payload.ts';
import { TransactionTable, transactionTimedOut } from './transaction-table.ts';
import {
  checkWriteSetRoom, transactionCount, transactionGet, transactionScan, writeSetChanges,
  type ScanRange, type Transaction,
} from './transaction.ts';

/** Who is asking: the session, and whether its container handle is in auto-commit mode. */
export interface RequestContext {
  sessionId: number;
  autoCommit: boolean;
  /** This session's transaction timeout, already capped by transactionTimeoutLimit. */
  transactionTimeoutMs: number;
}

export class Partition {
  readonly catalog: Catalog;
  readonly locks: LockTable;
  readonly log: PartitionLog;
  private readonly transactions: TransactionTable;
  rowsWrittenCount = 0;
  rowsReadCount = 0;
  /** The partition's data files and checkpoints; set by recovery (partition-checkpoint.ts). */
  checkpointer: PartitionCheckpointer | undefined;
  /** The LSN the last complete checkpoint covers. */
  lastCheckpointLsn: Lsn = lsn(0n);

  constructor(
    readonly id: PartitionId,
    private readonly context: PartitionContext,
  ) {
    this.catalog = new Catalog(id, context.limits,
      { pool: context.pool, clock: context.clock, indexMemory: context.indexMemory });
    this.locks = new LockTable({ scheduler: context.scheduler });
    this.transactions = new TransactionTable(this.locks, context.scheduler);
    this.log = new PartitionLog(id, context);
  }

  // ---- catalog -------------------------------------------------------------------------------

  async createContainer(definition: ContainerDefinition, timeoutMs: number): Promise<ContainerInfo> {
    const schema = validateContainerDefinition(definition, this.context.limits);
    const owner = this.locks.newOwner();
    try {
      await this.locks.lockName(owner, normalizeName(schema.name), timeoutMs);
      const existing = this.catalog.lookup(schema.name);
      if (existing?.schema.view !== undefined) {
        throw new StorageError('CONTAINER_EXISTS', `"${existing.schema.name}" is a view: a container cannot take its name`);
      }
      if (existing !== undefined) {
        if (schemasEqual(existing.schema, schema)) return this.catalog.info(existing);
        throw new StorageError('CONTAINER_EXISTS',
          `container "${existing.schema.name}" exists with a different schema`);
      }
      const id = this.catalog.reserveId();
      assert(this.catalog.get(id) === undefined, 'a reserved container id is unused');
      await this.commitRecord(XlogRecordType.CREATE_CONTAINER,
        (writer) => encodeSchemaRecord(writer, id, schema),
        () => this.catalog.add(id, schema));
      const created = this.catalog.get(id);
      assert(created !== undefined, 'a created container is in the catalog');
      return this.catalog.info(created);
    } finally {
      this.locks.releaseAll(owner);
    }
  }

  /**
   * Creates a view (ContainerSchema.view): a catalog entry without rows, written to the
   * xlog as a container is, so it lives through a restart. CONTAINER_EXISTS when the name is taken
   * by a container or a view (the caller tells which, lib/sql/run-view.ts).
   */
  async createView(view: { name: string; definition: string }, timeoutMs: number): Promise<void> {
    const name = validateContainerName(view.name, this.context.limits);
    // One placeholder column: a catalog entry has a row layout, and a layout has a column (GridDB
    // keeps a view as a container of its own meta columns too). No row is ever put there.
    const schema: ContainerSchema = {
      name, type: 'COLLECTION', columns: [{ name: 'view', type: 'STRING', array: false, notNull: false }],
      rowKeyColumnCount: 0, indexes: [], schemaVersion: 1,
      view: { definition: view.definition },
    };
    const owner = this.locks.newOwner();
    try {
      await this.locks.lockName(owner, normalizeName(name), timeoutMs);
      const existing = this.catalog.lookup(name);
      if (existing !== undefined) {
        throw new StorageError('CONTAINER_EXISTS', `"${existing.schema.name}" exists already`);
      }
      const id = this.catalog.reserveId();
      await this.commitRecord(XlogRecordType.CREATE_CONTAINER,
        (writer) => encodeSchemaRecord(writer, id, schema),
        () => this.catalog.add(id, schema));
      assert(this.catalog.get(id)?.schema.view !== undefined, 'a created view is in the catalog');
    } finally {
      this.locks.releaseAll(owner);
    }
  }

  /** Drops a view; false when no view has that name (a container of that name stays). */
  async dropView(name: string, timeoutMs: number): Promise<boolean> {
    const owner = this.locks.newOwner();
    try {
      await this.locks.lockName(owner, normalizeName(name), timeoutMs);
      const entry = this.catalog.lookup(name);
      if (entry?.schema.view === undefined) return false;
      await this.commitRecord(XlogRecordType.DROP_CONTAINER,
        (writer) => encodeDrop(writer, entry.id),
        () => this.catalog.remove(entry.id));
      assert(this.catalog.get(entry.id) === undefined);
      return true;
    } finally {
      this.locks.releaseAll(owner);
    }
  }

  /** The view of that name; undefined when there is none (a container of that name is none). */
  view(name: string): ContainerSchema | undefined {
    const schema = this.catalog.lookup(name)?.schema;
    return schema?.view === undefined ? undefined : schema;
  }

  /** Drops a container; false when there is none by that name (not an error, as GridDB). */
  async dropContainer(name: string, timeoutMs: number): Promise<boolean> {
    return this.withContainerLock(name, timeoutMs, async (entry) => {
      await this.commitRecord(XlogRecordType.DROP_CONTAINER,
        (writer) => encodeDrop(writer, entry.id),
        () => {
          // Its name and container locks are held: nothing else can have dropped or replaced it.
          assert(this.catalog.get(entry.id) === entry, 'a dropped container is in the catalog');
          this.catalog.remove(entry.id);
        });
      assert(this.catalog.get(entry.id) === undefined);
      this.transactions.abortWhere((txn) => txn.containerId === entry.id);
      return true;
    }, false);
  }

  async addColumn(name: string, column: ColumnSchema, timeoutMs: number): Promise<ContainerInfo> {
    return this.alter(name, timeoutMs, (entry) =>
      validateAddColumn(entry.schema, column, this.context.limits));
  }

  /** A partitioned table's partitioning, replaced (DROP PARTITION FOR records its interval). */
  async setPartitioning(name: string, partitioning: TablePartitioning, timeoutMs: number):
    Promise<ContainerInfo> {
    return this.alter(name, timeoutMs, (entry) => {
      assert(entry.schema.partitioning !== undefined);
      assert(entry.schema.partitioning.kind === partitioning.kind);
      // A schema change of a container without rows: the version moves, no block is rewritten.
      return { ...entry.schema, schemaVersion: entry.schema.schemaVersion + 1, partitioning };
    });
  }

  async renameColumn(
    name: string,
    columns: { fromName: string; toName: string },
    timeoutMs: number,
  ): Promise<ContainerInfo> {
    return this.alter(name, timeoutMs, (entry) =>
      validateRenameColumn(entry.schema, columns.fromName, columns.toName, this.context.limits));
  }

  /**
   * Creates a secondary index (`{ columnNames, type, name? }`; type TREE when absent) and builds
   * its structure from the rows. False when the same index exists already (not an error, as
   * GridDB); an index of the same type and columns under another name is INVALID_SCHEMA.
   */
  async createIndex(name: string, definition: unknown, timeoutMs: number): Promise<boolean> {
    const created = await this.withContainerLock(name, timeoutMs, async (entry) => {
      const given = indexDefinitionDefaults(definition);
      const wanted = validateIndexDefinition(entry.schema, given, this.context.limits);
      const same = entry.schema.indexes.find((index) => index.type === wanted.type &&
        index.columnIndexes.join(',') === wanted.columnIndexes.join(','));
      if (same !== undefined) {
        if (wanted.name === '' || normalizeName(wanted.name) === normalizeName(same.name)) return false;
        throw new StorageError('INVALID_SCHEMA', `container "${entry.schema.name}" has this ` +
          `${same.type} index already, named "${same.name}"`);
      }
      const index = validateAddIndex(entry.schema, given, this.context.limits).indexes.at(-1)!;
      await this.commitRecord(XlogRecordType.CREATE_INDEX,
        (writer) => encodeCreateIndex(writer, entry.id, index),
        () => {
          this.catalog.setIndexes(entry.id, [...entry.schema.indexes, index]);
          // Built now, while the creator waits, rather than by the first query.
          if (index.type === 'TREE') entry.indexes.treeFor(index.columnIndexes, entry.rows);
          else entry.indexes.spatialFor(index.columnIndexes[0]!, entry.rows);
        });
      return true;
    }, undefined);
    if (created === undefined) throw notFound(name);
    return created;
  }

  /**
   * Drops the indexes `selector` names (`{ name }`, or `{ columnNames, type? }`); returns how many.
   * None is not an error, as GridDB.
   */
  async dropIndex(name: string, selector: unknown, timeoutMs: number): Promise<number> {
    const dropped = await this.withContainerLock(name, timeoutMs, async (entry) => {
      const matches = validateIndexSelector(entry.schema, selector);
      const indexes = entry.schema.indexes.filter(matches);
      if (indexes.length === 0) return 0;
      await this.commitRecord(XlogRecordType.DROP_INDEX,
        (writer) => encodeDropIndexes(writer, entry.id, indexes),
        () => this.catalog.setIndexes(entry.id,
          entry.schema.indexes.filter((index) => !indexes.includes(index))));
      return indexes.length;
    }, undefined);
    if (dropped === undefined) throw notFound(name);
    return dropped;
  }

  info(name: string): ContainerInfo | undefined {
    const entry = this.catalog.lookup(name);
    return entry === undefined || entry.schema.view !== undefined ? undefined : this.catalog.info(entry);
  }

  private async alter(
    name: string,
    timeoutMs: number,
    change: (entry: ContainerEntry) => ContainerEntry['schema'],
  ): Promise<ContainerInfo> {
    const info = await this.withContainerLock(name, timeoutMs, async (entry) => {
      const schema = change(entry);
      await this.commitRecord(XlogRecordType.ALTER_CONTAINER,
        (writer) => encodeSchemaRecord(writer, entry.id, schema),
        () => this.catalog.alter(entry.id, schema));
      return this.catalog.info(entry);
    }, undefined);
    if (info === undefined) throw notFound(name);
    return info;
  }

  /** Runs DDL on a container under its name lock and its exclusive lock. */
  private async withContainerLock<T, U>(
    name: string,
    timeoutMs: number,
    body: (entry: ContainerEntry) => Promise<T>,
    missing: U,
  ): Promise<T | U> {
    const owner = this.locks.newOwner();
    try {
      await this.locks.lockName(owner, normalizeName(name), timeoutMs);
      const entry = this.catalog.lookup(name);
      // A view is no container: DROP, ALTER and indexes of containers do not reach it.
      if (entry === undefined || entry.schema.view !== undefined) return missing;
      await this.locks.lockContainer(owner, entry.id, timeoutMs);
      try {
        return await body(entry);
      } finally {
        this.locks.unlockContainer(owner, entry.id);
      }
    } finally {
      this.locks.releaseAll(owner);
    }
  }

  // ---- rows ----------------------------------------------------------------------------------

  async put(context: RequestContext, name: string, input: readonly unknown[]): Promise<void> {
    await this.putRows(context, name, input);
  }

  /**
   * Puts one row; whether a row of its key existed, as this session sees it, decided after any
   * lock wait, when the answer can no longer change (GridDB's PUT_ROW answers it). A container
   * without a row key has none: false.
   */
  async putRow(context: RequestContext, name: string, input: unknown): Promise<boolean> {
    return this.putRows(context, name, [input]);
  }

  /** Whether the first row's key existed before the put (see putRow). */
  private async putRows(context: RequestContext, name: string, input: readonly unknown[]):
    Promise<boolean> {
    const entry = this.lookupOrThrow(name);
    // Copies of the caller's arrays: what is committed must not change if the caller reuses them.
    const rows = input.map((row) => entry.validateRow(Array.isArray(row) ? row.slice() : row));
    if (rows.length === 0) return false;
    const keys = entry.keys;
    if (context.autoCommit) {
      let existed = false;
      await this.autoCommit(entry, context, () => rows.map((row) => keys!.keyOf(row)), () => {
        existed = keys !== undefined && entry.rows.has(keys.keyOf(rows[0]!));
        return { puts: rows, removes: [] };
      });
      return existed;
    }
    const txn = this.transactions.begin(this.scope(context, entry));
    assert(txn.state === 'active', 'a transaction takes writes only while active');
    checkWriteSetRoom(txn, rows.length);
    if (keys === undefined) {
      this.holdContainerIntent(txn, entry);
      for (const row of rows) txn.appends.push(row);
      return false;
    }
    const rowKeys = rows.map((row) => keys.keyOf(row));
    const keyStrings = rowKeys.map((key) => keys.keyString(key));
    await this.lockForTransaction(txn, entry, keyStrings, context);
    assert(txn.state === 'active', 'a transaction that waited for locks is still active');
    const existed = transactionGet(entry, txn, rowKeys[0]!) !== undefined;
    for (let i = 0; i < rows.length; i++) txn.writes.set(keyStrings[i]!, { key: rowKeys[i]!, row: rows[i]! });
    return existed;
  }

  /** Removes a row by key; false when there was none. */
  async remove(context: RequestContext, name: string, keyInput: unknown): Promise<boolean> {
    const entry = this.lookupOrThrow(name);
    const key = entry.validateKey(keyInput);
    const keys = entry.keys!;
    if (context.autoCommit) {
      // Whether the row exists is decided after any lock wait, when the answer can no longer change.
      return this.autoCommit(entry, context, () => [key],
        () => (entry.rows.has(key) ? { puts: [], removes: [key] } : undefined));
    }
    const txn = this.transactions.begin(this.scope(context, entry));
    assert(txn.state === 'active', 'a transaction takes writes only while active');
    checkWriteSetRoom(txn, 1);
    const keyString = keys.keyString(key);
    await this.lockForTransaction(txn, entry, [keyString], context);
    assert(txn.state === 'active', 'a transaction that waited for locks is still active');
    const existed = transactionGet(entry, txn, key) !== undefined;
    txn.writes.set(keyString, { key, row: null });
    return existed;
  }

  /**
   * Gets a row by key and locks the key for this session's transaction (GridDB's
   * getRow(forUpdate)): another transaction's write of it waits until this one ends. Auto-commit
   * has no transaction to hold the lock: ILLEGAL_COMMIT_MODE.
   */
  async getForUpdate(context: RequestContext, name: string, keyInput: unknown):
    Promise<Row | undefined> {
    if (context.autoCommit) {
      throw new StorageError('ILLEGAL_COMMIT_MODE', 'get(forUpdate) locks the row for a ' +
        'transaction: turn auto-commit off (setAutoCommit(false)) first');
    }
    const entry = this.lookupOrThrow(name);
    const key = entry.validateKey(keyInput);
    const txn = this.transactions.begin(this.scope(context, entry));
    assert(txn.state === 'active', 'a transaction takes locks only while active');
    await this.lockForTransaction(txn, entry, [entry.keys!.keyString(key)], context);
    assert(txn.state === 'active', 'a transaction that waited for locks is still active');
    const row = transactionGet(entry, txn, key);
    if (row === undefined) return undefined;
    this.rowsReadCount++;
    return rowForOutput(entry.schema, row);
  }

  get(context: RequestContext, name: string, keyInput: unknown): Row | undefined {
    const entry = this.lookupOrThrow(name);
    const key = entry.validateKey(keyInput);
    const row = transactionGet(entry, this.transactions.find(this.scope(context, entry)), key);
    if (row === undefined) return undefined;
    this.rowsReadCount++;
    return rowForOutput(entry.schema, row);
  }

  scan(context: RequestContext, name: string, range: ScanRange): Row[] {
    const entry = this.lookupOrThrow(name);
    const checked = {
      ...range,
      from: range.from === undefined ? undefined : entry.validateKey(range.from),
      to: range.to === undefined ? undefined : entry.validateKey(range.to),
    };
    const rows = transactionScan(entry, this.transactions.find(this.scope(context, entry)), checked);
    this.rowsReadCount += rows.length;
    return rowsForOutput(entry.schema, rows);
  }

  count(context: RequestContext, name: string): number {
    const entry = this.lookupOrThrow(name);
    return transactionCount(entry, this.transactions.find(this.scope(context, entry)));
  }

  // ---- queries (partition-query.ts) ----------------------------------------------------------

  /** Runs a TQL query on a container as this session sees it. */
  query(context: RequestContext, name: string, tql: string, options: TqlQueryOptions): TqlResult {
    const entry = this.lookupOrThrow(name);
    const txn = this.transactions.find(this.scope(context, entry));
    const clock = this.context.clock;
    const result = partitionQuery({ entry, txn, autoCommit: context.autoCommit }, tql,
      { ...options, nowMs: clock.nowMs(), monotonicMs: () => clock.monotonicMs() });
    if (result.kind === 'encodedRows') {
      this.rowsReadCount += result.rows.count;
      return result;
    }
    if (result.kind !== 'rows') return result;
    this.rowsReadCount += result.rows.length;
    return { ...result, rows: rowsForOutput(entry.schema, result.rows) };
  }

  /**
   * fetch(forUpdate): the query's result with its rows locked for the session's transaction until
   * commit or abort, as its own writes lock theirs (a keyless collection's rows cannot be written
   * again: the transaction holds the container against DDL instead). A row another transaction
   * holds is waited for, LOCK_TIMEOUT after the transaction timeout; after a wait the query runs
   * again, so the result is what was committed once its rows were locked, and rows it gained are
   * locked in turn.
   */
  async queryForUpdate(
    context: RequestContext,
    name: string,
    tql: string,
    options: TqlQueryOptions,
  ): Promise<TqlResult> {
    if (context.autoCommit) {
      throw new StorageError('ILLEGAL_COMMIT_MODE', 'fetch(forUpdate) locks rows for a ' +
        'transaction: turn auto-commit off (setAutoCommit(false)) first');
    }
    for (let pass = 1; ; pass++) {
      // The rows themselves, to lock them.
      const result = this.query(context, name, tql, { ...options, encodeRows: false });
      const entry = this.lookupOrThrow(name);
      const keyStrings = forUpdateKeyStrings(entry, result);
      const txn = this.transactions.begin(this.scope(context, entry));
      if (keyStrings === undefined) {
        this.holdContainerIntent(txn, entry);
        return result;
      }
      if (!(await this.lockForTransaction(txn, entry, keyStrings, context))) return result;
      if (pass === QUERY_FOR_UPDATE_PASS_COUNT_MAX) {
        throw new StorageError('LOCK_TIMEOUT', `the rows of the result kept changing while ` +
          `fetch(forUpdate) waited for their locks (${pass} runs); try again`);
      }
    }
  }

  /** The next answer of a query that left a cursor. */
  queryContinue(
    context: RequestContext,
    name: string,
    cursor: TqlCursor,
    options: Pick<TqlQueryOptions, 'fetchSizeRows'>,
  ): TqlResult {
    const entry = this.lookupOrThrow(name);
    const txn = this.transactions.find(this.scope(context, entry));
    const scope = { entry, txn, autoCommit: context.autoCommit };
    const result = partitionQueryContinue(scope, cursor, options);
    if (result.kind !== 'rows') return result;
    this.rowsReadCount += result.rows.length;
    return { ...result, rows: rowsForOutput(entry.schema, result.rows) };
  }

  lookupOrThrow(name: string): ContainerEntry {
    const entry = this.catalog.lookup(name);
    if (entry === undefined || entry.schema.view !== undefined) throw notFound(name);
    return entry;
  }

  // ---- transactions --------------------------------------------------------------------------

  async commit(context: RequestContext, name: string): Promise<void> {
    const entry = this.catalog.lookup(name);
    const txn = entry === undefined ? undefined : this.transactions.find(this.scope(context, entry));
    if (entry === undefined || txn === undefined) return;
    // find() reports a timed-out or committing transaction: only an active one commits.
    assert(txn.state === 'active', 'only an active transaction commits');
    assert(txn.containerId === entry.id);
    txn.state = 'committing';
    try {
      const changes = writeSetChanges(txn);
      if (changes.puts.length + changes.removes.length > 0) {
        await this.commitRows(entry, changes);
      }
    } finally {
      this.transactions.end(txn);
    }
    const endedState: string = txn.state; // not narrowed to the 'committing' set above
    assert(endedState === 'ended', 'a committed transaction has ended');
  }

  abort(context: RequestContext, name: string): void {
    const entry = this.catalog.lookup(name);
    if (entry !== undefined) this.transactions.abort(context.sessionId, entry.id);
  }

  /** Aborts every transaction of a session (the session closed). */
  closeSession(sessionId: number): void {
    this.transactions.abortWhere((txn) => txn.sessionId === sessionId);
  }

  get openTransactionCount(): number {
    return this.transactions.size;
  }

  private scope(context: RequestContext, entry: ContainerEntry) {
    return {
      sessionId: context.sessionId,
      containerId: entry.id,
      transactionTimeoutMs: context.transactionTimeoutMs,
    };
  }

  /** A transaction that holds no row lock on a keyless collection still holds it against DDL. */
  private holdContainerIntent(txn: Transaction, entry: ContainerEntry): void {
    if (txn.appendIntent) return;
    this.locks.beginIntent(txn.owner, entry.id);
    txn.appendIntent = true;
  }

  /** Locks rows for a transaction; true when it had to wait for them. */
  private async lockForTransaction(
    txn: Transaction,
    entry: ContainerEntry,
    keyStrings: string[],
    context: RequestContext,
  ): Promise<boolean> {
    const schemaVersion = entry.schema.schemaVersion;
    const wait = this.locks.lockRows(txn.owner, entry.id, keyStrings,
      { hold: true, timeoutMs: context.transactionTimeoutMs });
    if (wait === undefined) return false;
    try {
      await wait;
    } catch (error) {
      // The lock wait and the transaction ran out together: this error is the one report of it.
      if (txn.state === 'timedOut') this.transactions.end(txn);
      throw error;
    }
    if (txn.state !== 'active') {
      // The transaction ended while this write waited; the lock it was granted belongs to no one.
      const state = txn.state;
      this.transactions.end(txn);
      if (this.catalog.get(entry.id) !== entry) throw notFound(entry.schema.name);
      if (state === 'timedOut') throw transactionTimedOut(context.transactionTimeoutMs);
      throw new StorageError('TRANSACTION_INVALID', 'the transaction was aborted while it waited');
    }
    this.checkUnchanged(entry, schemaVersion);
    return true;
  }

  // ---- the write path ------------------------------------------------------------------------

  /**
   * One auto-commit statement: waits until no other transaction holds its rows, then asks `changesOf`
   * what to commit (undefined: nothing) and commits it. Returns whether it committed.
   */
  private async autoCommit(
    entry: ContainerEntry,
    context: RequestContext,
    keysOf: () => RowKey[],
    changesOf: () => { puts: Row[]; removes: RowKey[] } | undefined,
  ): Promise<boolean> {
    const owner = this.locks.newOwner();
    const schemaVersion = entry.schema.schemaVersion;
    const deadlineMs = this.context.clock.monotonicMs() + context.transactionTimeoutMs;
    let keyStrings: string[] | undefined;
    for (;;) {
      if (!this.locks.busy(entry.id, owner)) break;
      keyStrings ??= entry.keys === undefined ? [] : keysOf().map((key) => entry.keys!.keyString(key));
      const timeoutMs = Math.max(1, deadlineMs - this.context.clock.monotonicMs());
      const wait = this.locks.lockRows(owner, entry.id, keyStrings, { hold: false, timeoutMs });
      if (wait === undefined) break;
      await wait;
      this.checkUnchanged(entry, schemaVersion);
    }
    const changes = changesOf();
    if (changes === undefined) return false;
    assert(this.catalog.get(entry.id) === entry, 'an auto-commit container is in the catalog');
    this.locks.beginIntent(owner, entry.id);
    try {
      await this.commitRows(entry, changes);
    } finally {
      this.locks.endIntent(owner, entry.id);
    }
    return true;
  }

  private commitRows(entry: ContainerEntry, changes: { puts: Row[]; removes: RowKey[] }) {
    const { schema } = entry;
    // An empty commit record would take an LSN and change nothing: callers skip it.
    assert(changes.puts.length + changes.removes.length > 0, 'a commit record changes rows');
    return this.commitRecord(XlogRecordType.COMMIT,
      (writer) => encodeCommit(writer, schema, {
        containerId: entry.id, schemaVersion: schema.schemaVersion, ...changes,
      }),
      () => {
        // The container's locks (a row lock or an intent) keep DDL out until the commit applies.
        assert(this.catalog.get(entry.id) === entry, 'a commit record\'s container is in the catalog');
        applyCommit(entry, changes);
        assert(entry.rows.count() >= 0, 'a row count is never negative');
        this.rowsWrittenCount += changes.puts.length + changes.removes.length;
      });
  }

  /**
   * Appends one record and waits until the pipeline has made it durable and applied it. Encoding and
   * appending happen in one synchronous step after admission, so the shared encode buffer is safe.
   */
  private async commitRecord(
    type: XlogRecordType,
    encode: (writer: PartitionContext['payloadWriter']) => Uint8Array,
    apply: () => void,
  ): Promise<void> {
    const pipeline = this.context.pipeline;
    const logReady = this.log.ready();
    if (logReady !== undefined) await logReady;
    const admitted = pipeline.admit();
    if (admitted !== undefined) await admitted;
    // Admitted from here on: the append is submitted, or its admission cancelled, never neither.
    let sizeBytes: number;
    let durable: Promise<void> | undefined;
    let recordLsn: bigint;
    try {
      const payload = encode(this.context.payloadWriter);
      sizeBytes = payload.length;
      ({ lsn: recordLsn, durable } = this.log.append(type, payload));
    } catch (error) {
      pipeline.cancelAdmission();
      throw error;
    }
    assert(recordLsn === this.log.lastLsn, 'the appended record is the log\'s last');
    assert(recordLsn > this.log.lastAppliedLsn, 'a record is appended before it is applied');
    await pipeline.submit({
      sizeBytes, durable,
      apply: () => {
        // The pipeline applies a partition's records in append order, one LSN after another.
        assert(recordLsn === this.log.lastAppliedLsn + 1n,
          `partition ${this.id}: LSN ${recordLsn} applied after ${this.log.lastAppliedLsn}`);
        apply();
        this.log.lastAppliedLsn = recordLsn;
      },
    });
  }

  private checkUnchanged(entry: ContainerEntry, schemaVersion: number): void {
    if (this.catalog.get(entry.id) !== entry) throw notFound(entry.schema.name);
    if (entry.schema.schemaVersion !== schemaVersion) {
      throw new StorageError('SCHEMA_CHANGED',
        `the schema of "${entry.schema.name}" changed while the request waited; retry`);
    }
  }
}

/** An index definition without a type is a TREE index, as GridDB's default for every column type. */
function indexDefinitionDefaults(definition: unknown): unknown {
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    return definition;
  }
  return Object.hasOwn(definition, 'type') ? definition : { ...definition, type: 'TREE' };
}

function notFound(name: string): StorageError {
  return new StorageError('CONTAINER_NOT_FOUND', `container "${name}" does not exist`);
}

export type { LockOwner };
