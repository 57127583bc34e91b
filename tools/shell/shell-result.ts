// The result of the last `tql` (spec/surface.md §6.2): `tql` runs the query and counts its rows
// (`{n} results. ({ms} ms)`), reading the node's result a page of `setfetchsize` rows at a time
// and keeping none; `get`, `getcsv`, `getnoprint` and `getval` then run it again and take the
// rows a page at a time from where the previous one stopped, so that a result of any size is
// never held in memory whole. (The rows are those of the second run: a write between the two
// shows.) Ctrl-C stops between rows, closes the result on the node and leaves the shell as it was.

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

export class QueryResult {
  private rowSet: RowSet | undefined;
  /** Rows handed out by get and friends. */
  delivered = 0;

  private constructor(readonly container: string, readonly tql: string, readonly count: number) {}

  /** Runs the query and counts its rows. */
  static async run(shell: Shell, container: string, tql: string): Promise<QueryResult> {
    const rowSet = await openRowSet(shell, container, tql);
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
    return new QueryResult(container, tql, count);
  }

  get remaining(): number {
    return Math.max(0, this.count - this.delivered);
  }

  /** The next rows, `rowsMax` at most; none when the result is used up. */
  async page(shell: Shell, rowsMax: number): Promise<ResultPage> {
    assert(Number.isSafeInteger(rowsMax));
    assert(rowsMax >= 1);
    if (this.rowSet === undefined) {
      this.rowSet = await openRowSet(shell, this.container, this.tql);
      // Rows already handed out by an earlier get are skipped.
      for (let skipped = 0; skipped < this.delivered && this.rowSet.hasNext(); skipped++) {
        shell.checkCancel();
        await shell.guard(this.rowSet.next());
      }
    }
    const rows: Row[] = [];
    try {
      while (rows.length < rowsMax && this.delivered < this.count && this.rowSet.hasNext()) {
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
