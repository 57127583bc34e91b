// The result of the last `tql` or `sql` query (spec/surface.md §6.2): the query runs and its rows
// are counted (`{n} results. ({ms} ms)`), reading the node's result a page of `setfetchsize` rows
// at a time and keeping none; `get`, `getcsv`, `getnoprint` and `getval` then run it again and take
// the rows a page at a time from where the previous one stopped, so that a result of any size is
// never held in memory whole. (The rows are those of the second run: a write between the two
// shows.) Uncounted (`sqlcount FALSE`), the first run's rows are kept open for get instead.
// Ctrl-C stops between rows, closes the result on the node and leaves the shell as it was.

import { assert } from '../../lib/base/assert.ts';
import { isStorageError } from '../../lib/base/errors.ts';
import type { RowSet } from '../../lib/client/store-factory.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../lib/schema/container-schema.ts';
import { MESSAGES, ShellError } from './shell-messages.ts';
import type { Shell } from './shell.ts';

export interface ResultPage {
  columns: readonly ColumnSchema[];
  rows: Row[];
}

/** Rows of a query read from the node: a TQL RowSet or an SQL row set. */
export interface ResultRows {
  readonly columns: readonly ColumnSchema[];
  hasNext(): boolean;
  next(): Promise<Row>;
  close(): Promise<void>;
}

/** Runs the query on the node (again). */
export type OpenRows = (shell: Shell) => Promise<ResultRows>;

export class QueryResult {
  /** Rows handed out by get and friends. */
  delivered = 0;
  /** An EXPLAIN's rows print as CSV whatever the result format (GridDB's rule). */
  alwaysCsv = false;

  private constructor(private readonly open: OpenRows,
    /** Rows of the result; undefined when not counted (sqlcount FALSE). */
    readonly count: number | undefined,
    private rowSet: ResultRows | undefined) {}

  /** A result whose rows are not counted: `rowSet`, already open, is read by get. */
  static uncounted(open: OpenRows, rowSet: ResultRows): QueryResult {
    return new QueryResult(open, undefined, rowSet);
  }

  /** Runs the query and counts its rows; `rowSet` is the query's first run when it is open already. */
  static async run(shell: Shell, open: OpenRows, opened?: ResultRows): Promise<QueryResult> {
    const rowSet = opened ?? await open(shell);
    let count = 0;
    try {
      while (rowSet.hasNext()) {
        shell.checkCancel();
        await shell.guard(rowSet.next());
        count++;
      }
    } finally {
      await rowSet.close().catch(() => undefined);
    }
    assert(count >= 0);
    return new QueryResult(open, count, undefined);
  }

  /** Rows not handed out yet; Infinity when not counted (get then reads until the end). */
  get remaining(): number {
    return this.count === undefined ? Infinity : Math.max(0, this.count - this.delivered);
  }

  /** The next rows, `rowsMax` at most; none when the result is used up. */
  async page(shell: Shell, rowsMax: number): Promise<ResultPage> {
    assert(Number.isSafeInteger(rowsMax));
    assert(rowsMax >= 1);
    if (this.rowSet === undefined) {
      this.rowSet = await this.open(shell);
      // Rows already handed out by an earlier get are skipped.
      for (let skipped = 0; skipped < this.delivered && this.rowSet.hasNext(); skipped++) {
        shell.checkCancel();
        await shell.guard(this.rowSet.next());
      }
    }
    const rows: Row[] = [];
    try {
      while (rows.length < rowsMax && this.delivered < (this.count ?? Infinity) && this.rowSet.hasNext()) {
        shell.checkCancel();
        rows.push(await shell.guard(this.rowSet.next()));
        this.delivered++;
      }
    } catch (error) {
      await this.close();
      throw error;
    }
    return { columns: this.rowSet.columns, rows };
  }

  /** Lets go of the result on the node; a later get runs the query again. */
  async close(): Promise<void> {
    const rowSet = this.rowSet;
    this.rowSet = undefined;
    await rowSet?.close().catch(() => undefined);
  }
}

export async function openRowSet(shell: Shell, container: string, tql: string): Promise<RowSet> {
  const store = await shell.guard(shell.connection.require());
  try {
    const query = await shell.guard(store.queryByName(container, tql));
    query.setFetchOption('SIZE', shell.settings.fetchSize);
    return await shell.guard(query.fetch());
  } catch (error) {
    if (isStorageError(error) && error.code === 'CONTAINER_NOT_FOUND') {
      throw new ShellError(MESSAGES.containerMissing(container));
    }
    throw error;
  }
}
