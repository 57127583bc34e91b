// The result of the last `tql` or `sql` query (spec/surface.md §6.2). The query runs once: its
// rows are read from the node a page of `setfetchsize` rows at a time, counted (`{n} results.
// ({ms} ms)`) and kept in a temporary file (shell-spool.ts), never whole in memory; `get`,
// `getcsv`, `getnoprint` and `getval` then take them a page at a time from where the previous one
// stopped. So a slow query is not waited for twice, and get shows the rows that were counted (a
// write after the query does not show). Uncounted (`sqlcount FALSE`), the query's rows stay open
// on the node and get reads them from there; Ctrl-C during such a get drops the connection (shell.ts)
// and with it the rest of the result. Ctrl-C stops between rows and leaves the shell as it was.

import { assert } from '../../lib/base/assert.ts';
import { isStorageError } from '../../lib/base/errors.ts';
import type { RowSet } from '../../lib/client/store-factory.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import type { ColumnSchema } from '../../lib/schema/container-schema.ts';
import { MESSAGES, ShellError } from './shell-messages.ts';
import { ResultSpool } from './shell-spool.ts';
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

export class QueryResult {
  /** Rows handed out by get and friends. */
  delivered = 0;
  /** An EXPLAIN's rows print as CSV whatever the result format (GridDB's rule). */
  alwaysCsv = false;
  /** Rows of the spool's current page not handed out yet, from `bufferedIndex` on. */
  private buffered: Row[] = [];
  private bufferedIndex = 0;
  /** Set when an uncounted result's rows were lost (Ctrl-C or an error during get). */
  private lost = false;

  private constructor(readonly columns: readonly ColumnSchema[],
    /** Rows of the result; undefined when not counted (sqlcount FALSE). */
    readonly count: number | undefined,
    private spool: ResultSpool | undefined,
    private rowSet: ResultRows | undefined) {}

  /** A result whose rows are not counted: `rowSet`, open on the node, is read by get. */
  static uncounted(rowSet: ResultRows): QueryResult {
    return new QueryResult(rowSet.columns, undefined, undefined, rowSet);
  }

  /** Reads the rows of `rowSet` (the query's one run) to its end: counts them and keeps them. */
  static async run(shell: Shell, rowSet: ResultRows): Promise<QueryResult> {
    let spool: ResultSpool | undefined;
    let count = 0;
    try {
      spool = new ResultSpool(rowSet.columns);
      const page: Row[] = [];
      while (rowSet.hasNext()) {
        shell.checkCancel();
        page.push(await shell.guard(rowSet.next()));
        if (page.length >= shell.settings.fetchSize) {
          spool.append(page);
          count += page.length;
          page.length = 0;
        }
      }
      spool.append(page);
      count += page.length;
    } catch (error) {
      spool?.close();
      throw error;
    } finally {
      await rowSet.close().catch(() => undefined);
    }
    assert(count >= 0);
    return new QueryResult(rowSet.columns, count, spool, undefined);
  }

  /** Rows not handed out yet; Infinity when not counted (get then reads until the end). */
  get remaining(): number {
    return this.count === undefined ? Infinity : Math.max(0, this.count - this.delivered);
  }

  /** The next rows, `rowsMax` at most; none when the result is used up. */
  async page(shell: Shell, rowsMax: number): Promise<ResultPage> {
    assert(Number.isSafeInteger(rowsMax));
    assert(rowsMax >= 1);
    if (this.lost) {
      throw new ShellError('The rest of the result was lost with the connection (Ctrl-C or an error): ' +
        'run the query again.');
    }
    const rows: Row[] = [];
    if (this.spool !== undefined) {
      while (rows.length < rowsMax) {
        if (this.bufferedIndex >= this.buffered.length) {
          this.buffered = this.spool.readPage();
          this.bufferedIndex = 0;
          if (this.buffered.length === 0) break;
        }
        rows.push(this.buffered[this.bufferedIndex++]!);
      }
      this.delivered += rows.length;
      assert(this.delivered <= this.count!);
    } else if (this.rowSet !== undefined) {
      try {
        while (rows.length < rowsMax && this.rowSet.hasNext()) {
          shell.checkCancel();
          rows.push(await shell.guard(this.rowSet.next()));
          this.delivered++;
        }
      } catch (error) {
        this.lost = true;
        await this.close();
        throw error;
      }
    }
    return { columns: this.columns, rows };
  }

  /** Lets go of the result: its file is removed, or its rows closed on the node. */
  async close(): Promise<void> {
    const { spool, rowSet } = this;
    this.spool = undefined;
    this.rowSet = undefined;
    this.buffered = [];
    spool?.close();
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
