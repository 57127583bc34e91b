// The query results a connection holds open between fetches, and how a page is cut: at most the
// fetch size in rows (and FETCH_ROW_COUNT_MAX), and no more rows once the encoded page reaches
// FETCH_REPLY_BYTES_TARGET, so that a page of wide rows stays a bounded message. Rows the handler
// produced beyond a page wait for the next fetch. A result whose first page holds every row is
// closed at once and never gets an id. A result that comes encoded (QueryResult.encoded: a plain
// SELECT * from the engine's column batches) is cut by the same rules from its bytes, no rows made.

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import {
  CONNECTION_RESULT_SET_COUNT_MAX, FETCH_REPLY_BYTES_TARGET, FETCH_ROW_COUNT_MAX,
} from '../base/limits.ts';
import type { Row } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import type { EncodedRows } from '../encoding/encoded-rows.ts';
import { rowCodec } from '../encoding/row-codec.ts';
import {
  RESULT_SET_ID_NONE, type FetchReply, type QueryReply,
} from '../protocol/messages-query.ts';
import { RowBatch } from '../protocol/wire-rows.ts';
import { resultSchemaOf } from '../protocol/wire-schema.ts';
import type { QueryResult } from './query-handler.ts';

interface OpenResult {
  readonly result: QueryResult;
  readonly schema: ContainerSchema;
  /** Rows produced and not yet sent, from `bufferedIndex` on. */
  buffered: Row[];
  bufferedIndex: number;
  handlerDone: boolean;
}

/** A connection holds CONNECTION_RESULT_SET_COUNT_MAX results open already. */
export function resultSetLimitError(): StorageError {
  return new StorageError('LIMIT_EXCEEDED', `a connection may hold at most ` +
    `${CONNECTION_RESULT_SET_COUNT_MAX} open query results; close one first`);
}

/** A FETCH of a result the connection does not hold (any more). */
export function resultSetClosedError(resultSetId: number): StorageError {
  return new StorageError('CLOSED', `query result ${resultSetId} is closed or does not exist`);
}

export class ResultSets {
  private readonly open = new Map<number, OpenResult>();
  private nextId = RESULT_SET_ID_NONE + 1;
  private closed = false;

  constructor(
    private readonly messageBytesMax: number,
    /** A page takes no more rows once it holds this many bytes (tests set a small one). */
    private readonly pageBytesTarget = FETCH_REPLY_BYTES_TARGET,
  ) {
    assert(pageBytesTarget > 0);
  }

  get openCount(): number {
    return this.open.size;
  }

  /** The first page of a new result; the result stays open (with an id) if rows remain. */
  async first(result: QueryResult, fetchSize: number): Promise<QueryReply> {
    const entry: OpenResult = {
      result, schema: resultSchemaOf(result.columns), buffered: [], bufferedIndex: 0,
      handlerDone: false,
    };
    let page: FetchReply;
    try {
      page = await this.page(entry, fetchSize);
    } catch (error) {
      result.close();
      throw error;
    }
    const reply = { kind: result.kind, columns: result.columns, rows: page.rows };
    if (page.done || this.closed) {
      result.close();
      return { resultSetId: RESULT_SET_ID_NONE, ...reply };
    }
    if (this.open.size >= CONNECTION_RESULT_SET_COUNT_MAX) {
      result.close();
      throw resultSetLimitError();
    }
    const id = this.nextId++;
    this.open.set(id, entry);
    return { resultSetId: id, ...reply };
  }

  async fetch(resultSetId: number, fetchSize: number): Promise<FetchReply> {
    const entry = this.open.get(resultSetId);
    if (entry === undefined) throw resultSetClosedError(resultSetId);
    try {
      const page = await this.page(entry, fetchSize);
      if (page.done) this.close(resultSetId);
      return page;
    } catch (error) {
      this.close(resultSetId);
      throw error;
    }
  }

  close(resultSetId: number): void {
    const entry = this.open.get(resultSetId);
    if (entry === undefined) return;
    this.open.delete(resultSetId);
    entry.result.close();
  }

  closeAll(): void {
    this.closed = true;
    for (const id of [...this.open.keys()]) this.close(id);
  }

  /**
   * The next page: the rows themselves, each measured (rowBytes) but not encoded. They are
   * encoded once, straight into the reply frame (request-runner.ts encodeReply), so a page costs
   * no buffer of its own: a 3.6 MB page used to grow a writer by doubling from 4 KiB (about 8 MB
   * allocated) and then be copied into the frame.
   */
  private async page(entry: OpenResult, fetchSize: number): Promise<FetchReply> {
    const rowCountMax = fetchSize === 0
      ? FETCH_ROW_COUNT_MAX : Math.min(fetchSize, FETCH_ROW_COUNT_MAX);
    const encoded = entry.result.encoded;
    if (encoded !== undefined) return this.encodedPage(encoded, rowCountMax);
    const codec = rowCodec(entry.schema, 'wire');
    const rows: Row[] = [];
    let sizeBytes = 0;
    while (rows.length < rowCountMax && sizeBytes < this.pageBytesTarget) {
      if (entry.bufferedIndex >= entry.buffered.length) {
        if (entry.handlerDone) break;
        const next = await entry.result.next(rowCountMax - rows.length);
        entry.buffered = next.rows;
        entry.bufferedIndex = 0;
        entry.handlerDone = next.done;
        // An empty page that is not the end: send what there is rather than ask again at once.
        if (next.rows.length === 0 && !next.done) break;
        continue;
      }
      const row = entry.buffered[entry.bufferedIndex++]!;
      sizeBytes += codec.rowBytes(row);
      rows.push(row);
    }
    // A page (one huge row) the message could not hold: this result fails and closes.
    if (sizeBytes > this.messageBytesMax) {
      throw new StorageError('LIMIT_EXCEEDED', `a page of ${rows.length} rows takes ` +
        `${sizeBytes} bytes, more than the message limit of ${this.messageBytesMax}`);
    }
    const done = entry.handlerDone && entry.bufferedIndex >= entry.buffered.length;
    assert(rows.length <= rowCountMax);
    return { done, rows: RowBatch.of(entry.schema, rows) };
  }

  /**
   * The next page of a result encoded when it ran: the same rows page() would cut, as views of
   * the result's bytes, so no row of it is ever made.
   */
  private encodedPage(encoded: EncodedRows, rowCountMax: number): FetchReply {
    const { count, sizeBytes, parts } = encoded.take(rowCountMax, this.pageBytesTarget);
    if (sizeBytes > this.messageBytesMax) {
      throw new StorageError('LIMIT_EXCEEDED', `a page of ${count} rows takes ` +
        `${sizeBytes} bytes, more than the message limit of ${this.messageBytesMax}`);
    }
    return { done: encoded.remainingCount === 0, rows: RowBatch.encodedParts(count, parts) };
  }
}
