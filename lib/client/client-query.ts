// Queries (GridDB's Query and RowSet): container.query(tql) makes a query, setFetchOption sets how
// it is fetched, fetch() runs it and returns a RowSet that pages through the node's result.
//
// A result lives on the connection that ran the query; the RowSet fetches its pages there. If that
// connection breaks, the rest of the result is gone (CONNECTION_FAILED): run the query again.
// RowSet.hasNext() is exact: when a page is used up, next() fetches the following one before it
// returns the page's last row.
//
// fetch(true) (GridDB's fetch(forUpdate)) locks every row of the result for the container's
// transaction until commit or abort; with auto-commit on the node refuses it (ILLEGAL_COMMIT_MODE).
// The LIMIT fetch option goes to the node, which limits a SELECT * result before it locks, so only
// the rows returned are locked; the row set also stops at it (aggregates and EXPLAIN results).
//
// EXPLAIN [ANALYZE] statements are queries like any other: their plan comes as a result of kind
// EXPLAIN, rows of ID, DEPTH, TYPE, VALUE_TYPE, VALUE and STATEMENT (lib/query/tql/explain.ts).

import { StorageError } from '../base/errors.ts';
import type { Row, Value } from '../schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../schema/container-schema.ts';
import {
  FETCH, RESULT_CLOSE, RESULT_SET_ID_NONE, type QueryReply, type QueryResultKind,
} from '../protocol/messages-query.ts';
import type { RowBatch } from '../protocol/wire-rows.ts';
import { resultSchemaOf } from '../protocol/wire-schema.ts';
import { resultColumnsCache } from './result-columns.ts';
import { ConnectionLostError, type ClientConnection } from './client-connection.ts';

export const FETCH_SIZE_DEFAULT = 10_000;
export type FetchOption = 'LIMIT' | 'SIZE' | 'PARTIAL_EXECUTION';

export interface QueryRunOptions {
  fetchSize: number;
  partialExecution: boolean;
  forUpdate: boolean;
  rowLimit: number | undefined;
}

type QueryRunner = (options: QueryRunOptions) =>
  Promise<{ reply: QueryReply; connection: ClientConnection }>;

export class ClientQuery {
  private fetchSize = FETCH_SIZE_DEFAULT;
  private limit: number | undefined;
  private partialExecution = false;

  constructor(
    readonly containerName: string,
    readonly tql: string,
    private readonly run: QueryRunner,
  ) {}

  /** LIMIT (rows at most), SIZE (rows per page), PARTIAL_EXECUTION (boolean), as GridDB. */
  setFetchOption(option: FetchOption, value: number | boolean): this {
    if (option === 'PARTIAL_EXECUTION') {
      if (typeof value !== 'boolean') throw optionInvalid(option, value, 'true or false');
      this.partialExecution = value;
      return this;
    }
    if (option !== 'LIMIT' && option !== 'SIZE') {
      throw new StorageError('NOT_SUPPORTED', `fetch option ${JSON.stringify(option)} does not ` +
        'exist (LIMIT, SIZE, PARTIAL_EXECUTION)');
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw optionInvalid(option, value, 'a whole number of rows, at least 1');
    }
    if (option === 'LIMIT') this.limit = value;
    else this.fetchSize = value;
    return this;
  }

  /**
   * Runs the query. `forUpdate` locks the rows of the result for the container's transaction
   * until commit or abort (auto-commit off only).
   */
  async fetch(forUpdate = false): Promise<RowSet> {
    if (typeof forUpdate !== 'boolean') {
      throw new StorageError('CONFIG_INVALID',
        `fetch takes forUpdate true or false, not ${JSON.stringify(forUpdate)}`);
    }
    const fetchSize = Math.min(this.fetchSize, this.limit ?? Infinity);
    const { reply, connection } = await this.run({
      fetchSize, partialExecution: this.partialExecution, forUpdate, rowLimit: this.limit,
    });
    const rowSet = new RowSet(reply, connection, fetchSize, this.limit);
    await rowSet.ready();
    return rowSet;
  }
}

export class RowSet implements AsyncIterable<Row> {
  readonly kind: QueryResultKind;
  readonly columns: readonly ColumnSchema[];
  private readonly schema: ContainerSchema;
  private page: Row[] = [];
  /** The current page as received, until a caller takes its rows (decoded then, once). */
  private pageBatch: RowBatch | undefined;
  private pageCount = 0;
  private pageIndex = 0;
  private resultSetId: number;
  /** Rows the application may still take (the LIMIT option). */
  private rowsLeft: number;
  /** The next page's FETCH, sent by nextPage() before its caller works through the page it got. */
  private pending: ReturnType<RowSet['fetchRequest']> | undefined;

  constructor(
    reply: QueryReply,
    private readonly connection: ClientConnection,
    private readonly fetchSize: number,
    limit: number | undefined,
  ) {
    this.kind = reply.kind;
    const columns = resultColumnsCache.intern(reply.columns);
    this.columns = columns;
    this.schema = resultSchemaOf(columns as ColumnSchema[]);
    this.pageSet(reply.rows);
    this.resultSetId = reply.resultSetId;
    this.rowsLeft = limit ?? Infinity;
  }

  /** Column names, in order. */
  get columnNames(): string[] {
    return this.columns.map((column) => column.name);
  }

  hasNext(): boolean {
    return this.rowsLeft > 0 && this.pageIndex < this.pageCount;
  }

  async next(): Promise<Row> {
    if (!this.hasNext()) throw new StorageError('CLOSED', 'the row set has no more rows');
    const row = this.pageRows()[this.pageIndex++]!;
    this.rowsLeft--;
    if (this.rowsLeft === 0) await this.close();
    else await this.ready();
    return row;
  }

  /**
   * The rows left of the current page at once (empty when none remain), for a reader that takes
   * a page at a time. The next page's FETCH is sent before this returns, so the node reads it
   * while the caller works through these rows: one page ahead at most.
   */
  async nextPage(): Promise<Row[]> {
    await this.ready();
    if (!this.hasNext()) {
      await this.close();
      return [];
    }
    const page = this.pageRows();
    const end = Math.min(page.length, this.pageIndex + this.rowsLeft);
    const rows = this.pageIndex === 0 && end === page.length ? page : page.slice(this.pageIndex, end);
    this.rowsLeft -= rows.length;
    this.pageSet(undefined);
    await this.fetchAhead();
    return rows;
  }

  /**
   * nextPage's rows as the node sent them, not decoded: `count` rows in the row codec's 'wire'
   * form of the result's columns (lib/encoding/row-codec.ts), for a reader that prints the bytes
   * itself (gs_export, tools/expimp-page-printer.ts); undefined when no rows remain. Only for
   * whole pages: not after next(), nor with a LIMIT that ends within a page (NOT_SUPPORTED).
   */
  async nextPageEncoded(): Promise<{ count: number; bytes: Uint8Array } | undefined> {
    await this.ready();
    if (!this.hasNext()) {
      await this.close();
      return undefined;
    }
    const batch = this.pageBatch;
    const bytes = batch?.encodedBytes;
    if (batch === undefined || bytes === undefined || this.pageIndex !== 0 || this.rowsLeft < batch.count) {
      throw new StorageError('NOT_SUPPORTED', 'nextPageEncoded takes whole pages only: not after next(), ' +
        'nor with a LIMIT that ends within a page');
    }
    this.rowsLeft -= batch.count;
    this.pageSet(undefined);
    await this.fetchAhead();
    return { count: batch.count, bytes };
  }

  private pageSet(batch: RowBatch | undefined): void {
    this.pageBatch = batch;
    this.page = [];
    this.pageCount = batch?.count ?? 0;
    this.pageIndex = 0;
  }

  private pageRows(): Row[] {
    if (this.pageBatch !== undefined) {
      this.page = this.pageBatch.decode(this.schema);
      this.pageBatch = undefined;
    }
    return this.page;
  }

  /** Closes a result taken in full, else sends the next page's FETCH ahead. */
  private async fetchAhead(): Promise<void> {
    if (this.rowsLeft === 0) {
      await this.close();
    } else if (this.resultSetId !== RESULT_SET_ID_NONE) {
      this.pending = this.fetchRequest();
      this.pending.catch(() => undefined);
    }
  }

  /** The value of an AGGREGATION result (undefined when it has none). */
  aggregationValue(): Value | undefined {
    if (this.kind !== 'AGGREGATION') {
      throw new StorageError('NOT_SUPPORTED', `a ${this.kind} result has no aggregation value`);
    }
    return this.pageRows()[0]?.[0];
  }

  /** Every remaining row. */
  async toArray(): Promise<Row[]> {
    const rows: Row[] = [];
    while (this.hasNext()) rows.push(await this.next());
    return rows;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Row> {
    try {
      while (this.hasNext()) yield await this.next();
    } finally {
      await this.close();
    }
  }

  /** Lets go of the result on the node (also when not every row was read); no rows remain. */
  async close(): Promise<void> {
    this.rowsLeft = 0;
    if (this.pending !== undefined) {
      // A page fetched ahead may have ended the result on the node: close only what is still open.
      const pending = this.pending;
      this.pending = undefined;
      const reply = await pending.catch(() => undefined);
      if (reply?.done === true) this.resultSetId = RESULT_SET_ID_NONE;
    }
    const resultSetId = this.resultSetId;
    if (resultSetId === RESULT_SET_ID_NONE) return;
    this.resultSetId = RESULT_SET_ID_NONE;
    if (!this.connection.isOpen) return;
    await this.connection.request(RESULT_CLOSE, { resultSetId }).catch((error: unknown) => {
      if (!(error instanceof ConnectionLostError)) throw error;
    });
  }

  /** Fetches pages until there is a row to take or none remain. */
  async ready(): Promise<void> {
    while (this.pageIndex >= this.pageCount && this.resultSetId !== RESULT_SET_ID_NONE) {
      let reply;
      try {
        const pending = this.pending;
        this.pending = undefined;
        reply = await (pending ?? this.fetchRequest());
      } catch (error) {
        if (!(error instanceof ConnectionLostError)) throw error;
        this.resultSetId = RESULT_SET_ID_NONE;
        throw new StorageError('CONNECTION_FAILED', `${error.message}: the rest of the query ` +
          'result was lost with it; run the query again', { cause: error });
      }
      this.pageSet(reply.rows);
      if (reply.done) this.resultSetId = RESULT_SET_ID_NONE;
    }
  }

  private fetchRequest() {
    return this.connection.request(FETCH, { resultSetId: this.resultSetId, fetchSize: this.fetchSize });
  }
}

function optionInvalid(option: string, value: unknown, expected: string): StorageError {
  return new StorageError('CONFIG_INVALID',
    `fetch option ${option} must be ${expected}, not ${JSON.stringify(value)}`);
}
