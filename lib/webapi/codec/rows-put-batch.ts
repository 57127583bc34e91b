// The rows of a single-container PUT between two sends to the node, held encoded with the wire
// row codec of the container's schema (lib/encoding/row-codec.ts draws the layout), so that a
// batch is sent as its bytes (ClientContainer.multiPutEncoded) without a JavaScript array per row
// on the way. Rows come two ways:
//   - written straight into `writer` by the fast reader of the body (rows-json-scan.ts), which
//     takes only values that are already canonical (nothing for the validator to refuse);
//   - as decoded rows from the general path (value-decode.ts decodeRow), validated by the
//     client's validator and encoded here.
// A row the validator refuses is not encoded; its error is kept and thrown when the batch is
// sent, which is when the client's multiPut threw it (a later conversion error of the same batch
// still comes first, as it did).
//
// mark()/rollback() undo what the fast reader wrote of a piece of body it then hands to the
// general path: the rows, their count and their estimated size.
//
// The writer (and the fast reader's number arrays) are a scratch the caller takes from the web
// API's pool (rows-put-scratch.ts) and gives back when the PUT ends; a batch sends a copy of its
// bytes, so nothing of the scratch is held once a send returns.

import { assert } from '../../base/assert.ts';
import type { ClientContainer } from '../../client/client-container.ts';
import type { ContainerModel } from '../../client/client-schema.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { rowCodec, type RowCodec } from '../../encoding/row-codec.ts';
import type { Row } from '../../schema/column-type.ts';
import { RowsPutScratch } from './rows-put-scratch.ts';
import type { ValueDecoder } from './value-decode.ts';

export interface RowsPutMark {
  offsetBytes: number;
  rowCount: number;
  sizeBytes: number;
}

export class RowsPutBatch {
  readonly writer: ByteWriter;
  readonly model: ContainerModel;
  /** Rows in this batch. */
  rowCount = 0;
  /** Rows of the request so far, sent or not: the index of the next row in the body. */
  rowIndex = 0;
  private readonly codec: RowCodec;
  /** The first row the validator refused in this batch: thrown when it is sent. */
  private refused: unknown;
  private refusedSet = false;

  constructor(
    private readonly container: ClientContainer,
    /** The request's decoder: its running estimated size is shared by both ways in. */
    readonly decoder: ValueDecoder,
    /** The buffers it writes in: the pool's, or one of its own. */
    readonly scratch: RowsPutScratch = new RowsPutScratch(),
  ) {
    assert(scratch.writer.lengthBytes === 0);
    assert(scratch.numbers.count === 0);
    this.writer = scratch.writer;
    this.model = container.rowModel;
    this.codec = rowCodec(this.model.schema, 'wire');
  }

  /** A row of the general path: validated, then encoded (or its error kept). */
  addDecoded(row: unknown[]): void {
    this.rowIndex++;
    if (this.refusedSet) return;
    let canonical: Row;
    try {
      [canonical] = this.model.rows([row]) as [Row];
    } catch (error) {
      this.refused = error;
      this.refusedSet = true;
      return;
    }
    this.codec.writeRows(this.writer, [canonical]);
    this.rowCount++;
  }

  /** Where the fast reader starts a piece of body. */
  mark(): RowsPutMark {
    return { offsetBytes: this.writer.lengthBytes, rowCount: this.rowCount,
      sizeBytes: this.decoder.sizeBytes };
  }

  /** Undoes the rows written since `mark` (nothing of the general path comes between). */
  rollback(mark: RowsPutMark): void {
    assert(mark.offsetBytes <= this.writer.lengthBytes);
    assert(mark.rowCount <= this.rowCount);
    this.rowIndex -= this.rowCount - mark.rowCount;
    this.rowCount = mark.rowCount;
    this.decoder.sizeBytes = mark.sizeBytes;
    this.writer.reset();
    this.writer.advanceTo(mark.offsetBytes);
  }

  /** Sends the rows held as one ROW_PUT; first throws the refused row's error, if any. */
  async flush(): Promise<void> {
    if (this.refusedSet) throw this.refused;
    if (this.rowCount === 0) return;
    const bytes = this.writer.finish().slice();
    const count = this.rowCount;
    this.writer.reset();
    this.rowCount = 0;
    await this.container.multiPutEncodedRows({ schema: this.model.schema, count, bytes });
  }
}
