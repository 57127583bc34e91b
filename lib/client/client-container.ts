// A container as the application holds it (GridDB's Container): put, multiPut, get, remove,
// setAutoCommit, commit, abort, query, createIndex, dropIndex, and a time series' queryByTimeRange
// and aggregate.
//
// Rows and keys are checked and made canonical here, with the engine's own validators, before
// anything is sent. When the node says the schema changed (another client added or renamed a
// column), the container reads the info again and sends once more, with a new statement id.
//
// Auto-commit (the default) writes through the connection's auto-commit session, any connection.
// setAutoCommit(false) makes the container open a session of its own at its next request; the
// session lives on one connection, and its transaction with it. If that connection breaks, the
// node aborts the transaction: the next request tells the application (TRANSACTION_INVALID) once,
// when the transaction had changes, and carries on in a new session.

import { assert } from '../base/assert.ts';
import { StorageError, isStorageError } from '../base/errors.ts';
import { normalizeName } from '../schema/names.ts';
import type { Row, RowKey, Value } from '../schema/column-type.ts';
import type { ContainerSchema, IndexType } from '../schema/container-schema.ts';
import { schemasEqual } from '../schema/schema-validate.ts';
import { ByteReader } from '../encoding/byte-reader.ts';
import { rowCodec } from '../encoding/row-codec.ts';
import type { SamplingApi } from '../query/tql/time-series-sampling-api.ts';
import type { MessageCodec } from '../protocol/message-codec.ts';
import { SESSION_CLOSE, SESSION_OPEN } from '../protocol/messages-connection.ts';
import { CREATE_INDEX, DROP_INDEX } from '../protocol/messages-index.ts';
import { QUERY } from '../protocol/messages-query.ts';
import { ROW_GET, ROW_PUT, ROW_REMOVE } from '../protocol/messages-row.ts';
import { ABORT, COMMIT, SET_AUTO_COMMIT } from '../protocol/messages-transaction.ts';
import { AUTO_COMMIT_SESSION_ID, type Statement } from '../protocol/wire-refs.ts';
import { KeyBatch, RowBatch } from '../protocol/wire-rows.ts';
import type { ContainerInfo } from '../protocol/wire-schema.ts';
import { ConnectionLostError, type ClientConnection } from './client-connection.ts';
import type { ConnectionPool } from './client-pool.ts';
import { ClientQuery } from './client-query.ts';
import type { ContainerModel } from './client-schema.ts';
import {
  indexInfoOf, interpolateTql, samplingTql, timeAggregateTql, timeFindTql, timeRangeTql,
  type Aggregation, type IndexInfo, type InterpolationMode, type QueryOrder, type SamplingUnit,
  type TimeInput, type TimeOperator,
} from './client-time-series.ts';

/** Rows encoded with a schema's wire row codec (lib/encoding/row-codec.ts), `count` of them. */
export interface EncodedRowsPut {
  schema: ContainerSchema;
  count: number;
  bytes: Uint8Array;
}

/** What a container needs of its store. */
export interface StoreLink {
  readonly pool: ConnectionPool;
  nextStatementId(): number;
  /** The container's info read again from the node; CONTAINER_NOT_FOUND when it is gone. */
  modelRefresh(name: string): Promise<ContainerModel>;
  /** The model of info the node just sent (after an index change). */
  modelOfInfo(info: ContainerInfo): Promise<ContainerModel>;
}

interface OpenSession {
  id: number;
  connection: ClientConnection;
}

/** Attempts at opening a session when the connection chosen for it breaks at once. */
const SESSION_OPEN_ATTEMPT_COUNT_MAX = 3;

export class ClientContainer {
  private autoCommit = true;
  private session: OpenSession | undefined;
  /** Writes were sent in the current manual transaction: losing the session loses them. */
  private transactionDirty = false;

  constructor(
    private readonly link: StoreLink,
    private model: ContainerModel,
  ) {}

  get name(): string {
    return this.model.info.name;
  }

  /** The info as last read from the node (rowCount is as of then). */
  get info(): ContainerInfo {
    return this.model.info;
  }

  get isAutoCommit(): boolean {
    return this.autoCommit;
  }

  put(row: Row): Promise<void> {
    return this.multiPut([row]);
  }

  async multiPut(rows: readonly Row[]): Promise<void> {
    await this.call(ROW_PUT, true, (model, statement) => {
      const canonical = model.rows(rows);
      assert(canonical.length === rows.length, 'validation keeps every row');
      // Validated rows fit the schema they are encoded with (a mismatch throws before this).
      for (const row of canonical) assert(row.length === model.schema.columns.length);
      return { statement, ref: model.ref, rows: RowBatch.of(model.schema, canonical) };
    });
  }

  /**
   * Puts `count` rows already encoded with the wire row codec of `schema` (gs_import's row file
   * scanner writes them: tools/expimp-row-scan.ts), without a Row per row on this side. The node
   * decodes and validates them as it does every put's. SCHEMA_CHANGED when the container's schema
   * is not `schema` (the bytes would mean other values), before anything is sent.
   */
  async multiPutEncoded(schema: ContainerSchema, count: number, bytes: Uint8Array): Promise<void> {
    await this.call(ROW_PUT, true, (model, statement) => {
      if (!schemasEqual(model.schema, schema)) {
        throw new StorageError('SCHEMA_CHANGED', `container ${JSON.stringify(model.schema.name)}: ` +
          'its schema is not the one the rows were encoded with');
      }
      return { statement, ref: model.ref, rows: RowBatch.encoded(count, bytes) };
    });
  }

  /**
   * The schema rows are encoded with and the validator that makes them canonical (the web API's
   * row PUT encodes its rows itself: lib/webapi/codec/rows-put-batch.ts). The model is replaced
   * when the node says the schema changed; rows encoded with an older one are re-encoded.
   */
  get rowModel(): ContainerModel {
    return this.model;
  }

  /**
   * Rows already encoded with `rows.schema`'s wire row codec (the web API's; gs_import's
   * multiPutEncoded refuses a changed schema instead), canonical as validateRow returns
   * them, sent as one ROW_PUT without decoding them again. When the node has a newer schema, the
   * rows are decoded and put as multiPut puts them (validated against that schema).
   */
  async multiPutEncodedRows(rows: EncodedRowsPut): Promise<void> {
    assert(rows.count > 0);
    await this.call(ROW_PUT, true, (model, statement) => {
      if (model.schema === rows.schema) {
        return { statement, ref: model.ref, rows: RowBatch.encoded(rows.count, rows.bytes) };
      }
      const decoded = rowCodec(rows.schema, 'wire').readRows(new ByteReader(rows.bytes),
        rows.count);
      return { statement, ref: model.ref, rows: RowBatch.of(model.schema, model.rows(decoded)) };
    });
  }

  /**
   * The row with this key, or undefined. With a time operator (a time series only: GridDB's
   * TimeSeries.get(base, TimeOperator)), the row at or after (NEXT), after (NEXT_ONLY), at or
   * before (PREVIOUS), before (PREVIOUS_ONLY) the time; runs as TIME_NEXT and the like.
   */
  async get(key: RowKey | Date, timeOperator?: TimeOperator): Promise<Row | undefined> {
    if (timeOperator !== undefined) {
      const time = key instanceof Date || typeof key === 'number' ? key : Number.NaN;
      return this.firstRow(timeFindTql(this.model.schema, time, timeOperator));
    }
    if (key instanceof Date) key = key.getTime();
    return this.rowOfKey(key);
  }

  /**
   * The value of `column` at `time` on the line between the rows around it, in a row whose other
   * fields are the earlier row's (GridDB's TimeSeries.interpolate); the row itself at its time;
   * undefined without rows on both sides. Runs as TIME_INTERPOLATED.
   */
  async interpolate(time: TimeInput, column: string): Promise<Row | undefined> {
    return this.firstRow(interpolateTql(this.model.schema, time, column));
  }

  /**
   * Sampled rows from start to end every `interval` units (GridDB's TimeSeries.query(start, end,
   * columnSet, InterpolationMode, interval, TimeUnit)): a row's own values at its time; between
   * rows the named columns interpolated and the other fields the earlier row's, or with EMPTY
   * every field but the key empty. GridDB's own statement: TIME_SAMPLING(*, …) with the mode and
   * columns beside it (client-time-series.ts).
   */
  querySampling(
    start: TimeInput,
    end: TimeInput,
    columns: readonly string[],
    mode: InterpolationMode,
    interval: number,
    unit: SamplingUnit,
  ): ClientQuery {
    const { tql, api } = samplingTql(this.model.schema, { start, end },
      { columns, mode, interval, unit });
    return this.queryWith(tql, api);
  }

  private async firstRow(tql: string): Promise<Row | undefined> {
    const rowSet = await this.query(tql).fetch();
    try {
      return rowSet.hasNext() ? await rowSet.next() : undefined;
    } finally {
      await rowSet.close();
    }
  }

  private async rowOfKey(key: RowKey): Promise<Row | undefined> {
    const { reply, model } = await this.call(ROW_GET, false, (model, statement) => ({
      sessionId: statement.sessionId, ref: model.ref,
      keys: KeyBatch.of(model.schema, [model.key(key)]),
    }));
    const rows = reply.decode(model.schema);
    assert(rows.length <= 1, 'a ROW_GET reply holds at most the one row asked for');
    if (rows[0] !== undefined) assert(rows[0].length === model.schema.columns.length);
    return rows[0];
  }

  /** Removes the row with this key; false when there was none. */
  async remove(key: RowKey): Promise<boolean> {
    const { reply } = await this.call(ROW_REMOVE, true, (model, statement) => ({
      statement, ref: model.ref, keys: KeyBatch.of(model.schema, [model.key(key)]),
    }));
    return reply;
  }

  /** Turning auto-commit back on commits what is pending, as GridDB. */
  async setAutoCommit(enabled: boolean): Promise<void> {
    if (typeof enabled !== 'boolean') {
      throw new StorageError('TRANSACTION_INVALID', 'setAutoCommit takes true or false');
    }
    if (enabled === this.autoCommit) return;
    if (!enabled) {
      this.autoCommit = false;
      this.transactionDirty = false;
      return;
    }
    const session = this.session;
    if (session !== undefined && session.connection.isOpen) {
      await this.call(SET_AUTO_COMMIT, true, (model, statement) =>
        ({ statement, ref: model.ref, enabled: true }));
      await this.sessionClose(session);
    } else if (this.transactionDirty) {
      this.reset();
      this.autoCommit = true;
      throw lostTransaction(this.name);
    }
    this.reset();
    this.autoCommit = true;
    // Auto-commit holds no session and no pending changes (the one legal state to return to).
    assert(this.session === undefined);
    assert(!this.transactionDirty);
  }

  async commit(): Promise<void> {
    this.manualCheck('commit');
    if (this.session === undefined && !this.transactionDirty) return;
    await this.call(COMMIT, true, (model, statement) => ({ statement, ref: model.ref }));
    this.transactionDirty = false;
  }

  async abort(): Promise<void> {
    this.manualCheck('abort');
    const session = this.session;
    if (session === undefined || !session.connection.isOpen) {
      // Nothing open, or the node aborted it when the connection broke: either way it is gone.
      this.session = undefined;
      this.transactionDirty = false;
      return;
    }
    await this.call(ABORT, true, (model, statement) => ({ statement, ref: model.ref }));
    this.transactionDirty = false;
  }

  /**
   * Creates a secondary index (GridDB's createIndex): on one column, of `type` (TREE), or as an
   * IndexInfo `{ columnNames, type, name }` (composite: several columns). False when the same index
   * exists already; the container's info then lists the index.
   */
  async createIndex(column: string | IndexInfo, type?: IndexType): Promise<boolean> {
    const definition = indexInfoOf(column, type ?? 'TREE');
    const { reply } = await this.call(CREATE_INDEX, true, (model, statement) =>
      ({ statement, ref: model.ref, json: JSON.stringify(definition) }));
    this.answersThis(reply.info);
    this.model = await this.link.modelOfInfo(reply.info);
    return reply.created;
  }

  /**
   * Drops the indexes that match (GridDB's dropIndex): of one column (and `type`, if given), or
   * every member of an IndexInfo given (`{ name }` alone drops by name). Returns how many went;
   * none is not an error.
   */
  async dropIndex(column: string | IndexInfo, type?: IndexType): Promise<number> {
    const selector = indexInfoOf(column, type);
    const { reply } = await this.call(DROP_INDEX, true, (model, statement) =>
      ({ statement, ref: model.ref, json: JSON.stringify(selector) }));
    this.answersThis(reply.info);
    assert(reply.droppedCount >= 0);
    this.model = await this.link.modelOfInfo(reply.info);
    return reply.droppedCount;
  }

  /**
   * The rows of a time series with start <= time <= end (GridDB's TimeSeries.query(start, end,
   * order)); an undefined end is open. Runs as TQL over the row key (client-time-series.ts).
   */
  queryByTimeRange(start: TimeInput, end: TimeInput, order: QueryOrder = 'ASCENDING'): ClientQuery {
    return this.query(timeRangeTql(this.model.schema, { start, end }, order));
  }

  /**
   * One aggregate of `column` over the rows with start <= time <= end (GridDB's
   * TimeSeries.aggregate): COUNT, SUM, AVG, MIN, MAX, VARIANCE, STDDEV or TIME_AVG (weighted by
   * time, the neighbours within the range only). Undefined when there is
   * nothing to aggregate (COUNT is then 0). Errors are TQL's.
   */
  async aggregate(
    start: TimeInput,
    end: TimeInput,
    column: string,
    aggregation: Aggregation,
  ): Promise<Value | undefined> {
    const tql = timeAggregateTql(this.model.schema, { start, end }, { column, aggregation });
    const rowSet = await this.query(tql).fetch();
    try {
      return rowSet.aggregationValue();
    } finally {
      await rowSet.close();
    }
  }

  /**
   * A TQL query on this container; fetch() runs it. A fetch for update counts as a write of the
   * transaction: its locks are lost with the connection, as changes are.
   */
  query(tql: string): ClientQuery {
    return this.queryWith(tql, undefined);
  }

  /** A query, with GridDB's sampling call beside its TQL when given. */
  private queryWith(tql: string, sampling: SamplingApi | undefined): ClientQuery {
    return new ClientQuery(this.name, tql, (options) => this.call(QUERY, options.forUpdate,
      (model, statement) => ({ sessionId: statement.sessionId, ref: model.ref, tql, ...options,
        ...(sampling === undefined ? {} : { sampling }) })));
  }

  /** Ends the container's session, if any (aborting an open transaction). */
  async close(): Promise<void> {
    const session = this.session;
    this.reset();
    if (session !== undefined && session.connection.isOpen) await this.sessionClose(session);
  }

  /**
   * Sends one request built from the current model and session; `write` gives it a statement id.
   * A SCHEMA_CHANGED answer refreshes the model and sends once more.
   */
  private async call<Request, Reply>(
    codec: MessageCodec<Request, Reply>,
    write: boolean,
    build: (model: ContainerModel, statement: Statement) => Request,
  ): Promise<{ reply: Reply; model: ContainerModel; connection: ClientConnection }> {
    for (let attempt = 0; ; attempt++) {
      const model = this.model;
      // Auto-commit needs no session: no await (a turn of the microtask queue) for it.
      const session = this.autoCommit ? undefined : await this.sessionForRequest();
      // A manual container always sends through its own session, never the auto-commit one.
      if (!this.autoCommit) assert(session !== undefined && session.id !== AUTO_COMMIT_SESSION_ID);
      const statement: Statement = {
        sessionId: session?.id ?? AUTO_COMMIT_SESSION_ID,
        statementId: write ? this.link.nextStatementId() : 0,
      };
      // Statement id 0 means "not a write": a retried write must be recognised by its id.
      if (write) assert(statement.statementId > 0);
      const request = build(model, statement);
      if (write && session !== undefined) this.transactionDirty = true;
      try {
        const { reply, connection } = await this.link.pool.exchange(codec, request,
          session?.connection);
        return { reply, model, connection };
      } catch (error) {
        if (isStorageError(error, 'SCHEMA_CHANGED') && attempt === 0) {
          this.model = await this.link.modelRefresh(this.name);
          continue;
        }
        if (session !== undefined && isStorageError(error, 'TRANSACTION_INVALID')) this.reset();
        throw error;
      }
    }
  }

  /** The session a request goes through: none in auto-commit mode, else this container's own. */
  private async sessionForRequest(): Promise<OpenSession | undefined> {
    if (this.autoCommit) return undefined;
    if (this.session !== undefined && this.session.connection.isOpen) return this.session;
    if (this.session !== undefined || this.transactionDirty) {
      const dirty = this.transactionDirty;
      this.reset();
      if (dirty) throw lostTransaction(this.name);
    }
    this.session = await this.sessionOpen();
    return this.session;
  }

  private async sessionOpen(): Promise<OpenSession> {
    for (let attempt = 1; ; attempt++) {
      const connection = await this.link.pool.acquire();
      try {
        const { sessionId } = await connection.request(SESSION_OPEN, { transactionTimeoutMs: 0 });
        assert(sessionId !== AUTO_COMMIT_SESSION_ID, 'SESSION_OPEN answers a session of its own');
        const session = { id: sessionId, connection };
        try {
          await connection.request(SET_AUTO_COMMIT, {
            statement: { sessionId, statementId: this.link.nextStatementId() },
            ref: this.model.ref, enabled: false,
          });
        } catch (error) {
          await this.sessionClose(session).catch(() => undefined);
          throw error;
        }
        return session;
      } catch (error) {
        if (!(error instanceof ConnectionLostError) || attempt >= SESSION_OPEN_ATTEMPT_COUNT_MAX) {
          throw error;
        }
      }
    }
  }

  private async sessionClose(session: OpenSession): Promise<void> {
    try {
      await session.connection.request(SESSION_CLOSE, { sessionId: session.id });
    } catch (error) {
      // A lost connection closed the session already.
      if (!(error instanceof ConnectionLostError)) throw error;
    }
  }

  private manualCheck(operation: string): void {
    if (this.autoCommit) {
      throw new StorageError('TRANSACTION_INVALID', `cannot ${operation}: container ` +
        `${JSON.stringify(this.name)} is in auto-commit mode (setAutoCommit(false) first)`);
    }
  }

  /** A reply's container info is this container's: the reply answers this request. */
  private answersThis(info: ContainerInfo): void {
    assert(normalizeName(info.name) === normalizeName(this.name),
      `a reply about "${info.name}" answered a request about "${this.name}"`);
  }

  private reset(): void {
    this.session = undefined;
    this.transactionDirty = false;
  }
}

function lostTransaction(name: string): StorageError {
  return new StorageError('TRANSACTION_INVALID', `the connection of the transaction on ` +
    `${JSON.stringify(name)} broke, so the node aborted it; its changes were discarded`);
}
