// A query result's rows held as the bytes a reply carries (row-codec.ts format), not as rows:
// encoded once, straight from a row block's columns (RowCodec.writeColumnRow), when the query
// runs, and handed out page by page as views of those bytes. A row kept this way costs its
// encoded size plus 4 bytes, outside the JavaScript heap; as a Row it was an array and a value
// object per column on the heap, which a large result promoted to the old generation.
//
//   chunks   | row | row | ... |  about ENCODED_ROWS_CHUNK_BYTES each (a chunk ends after the row
//            that reaches it), with rowEnds[i] = the offset just past row i in its chunk
//
// A page takes rows while it has fewer than its row count and fewer bytes than its target, as
// the server has always cut pages of rows (result-sets.ts), so the pages are the same. A chunk is
// dropped once its last row is taken.

import { assert } from '../base/assert.ts';
import { ENCODED_ROWS_CHUNK_BYTES } from '../base/limits.ts';
import { ByteWriter } from './byte-writer.ts';
import type { RowCodec, RowColumn } from './row-codec.ts';

/** A builder's writer starts this large (a small result stays small) and grows by doubling. */
const BUILDER_WRITER_BYTES_INITIAL = 64 * 1024;

interface Chunk {
  readonly bytes: Uint8Array;
  /** Offset just past each row of the chunk. */
  readonly rowEnds: Uint32Array;
}

/** Rows taken for one page: their bytes, as views of the result's chunks, in order. */
export interface EncodedRowsPage {
  readonly count: number;
  readonly sizeBytes: number;
  readonly parts: readonly Uint8Array[];
}

export class EncodedRows {
  private readonly chunks: Array<Chunk | undefined>;
  private chunkIndex = 0;
  /** Next row to take, within chunks[chunkIndex]. */
  private rowIndex = 0;
  private takenCount = 0;

  constructor(chunks: readonly Chunk[], readonly count: number) {
    assert(chunks.reduce((sum, chunk) => sum + chunk.rowEnds.length, 0) === count);
    this.chunks = [...chunks];
  }

  /** Rows not taken yet. */
  get remainingCount(): number {
    return this.count - this.takenCount;
  }

  /**
   * The next rows: while fewer than rowCountMax and fewer than bytesTarget bytes (so a page ends
   * with the row that reaches the target, and has at least one row when any remain).
   */
  take(rowCountMax: number, bytesTarget: number): EncodedRowsPage {
    assert(rowCountMax >= 0 && bytesTarget > 0);
    const parts: Uint8Array[] = [];
    let count = 0;
    let sizeBytes = 0;
    while (count < rowCountMax && sizeBytes < bytesTarget && this.remainingCount > 0) {
      const chunk = this.chunks[this.chunkIndex]!;
      const first = this.rowIndex;
      const startAt = first === 0 ? 0 : chunk.rowEnds[first - 1]!;
      const sizeBytesBefore = sizeBytes;
      let end = first;
      while (end < chunk.rowEnds.length && count < rowCountMax && sizeBytes < bytesTarget) {
        sizeBytes = sizeBytesBefore + chunk.rowEnds[end]! - startAt;
        end++;
        count++;
      }
      parts.push(chunk.bytes.subarray(startAt, chunk.rowEnds[end - 1]!));
      this.takenCount += end - first;
      if (end === chunk.rowEnds.length) {
        this.chunks[this.chunkIndex++] = undefined;
        this.rowIndex = 0;
      } else {
        this.rowIndex = end;
      }
    }
    return { count, sizeBytes, parts };
  }

  /** Lets the bytes go (the result is closed). */
  release(): void {
    this.chunks.fill(undefined);
    this.takenCount = this.count;
  }
}

/** Encodes rows from columns into an EncodedRows. */
export class EncodedRowsBuilder {
  private readonly writer: ByteWriter;
  private readonly chunks: Chunk[] = [];
  private rowEnds: number[] = [];
  private count = 0;

  constructor(
    private readonly codec: RowCodec,
    /** Tests set a small one. */
    private readonly chunkBytesTarget = ENCODED_ROWS_CHUNK_BYTES,
  ) {
    assert(chunkBytesTarget > 0);
    this.writer = new ByteWriter(Math.min(chunkBytesTarget, BUILDER_WRITER_BYTES_INITIAL));
  }

  get rowCount(): number {
    return this.count;
  }

  /** Appends row `index` of `columns`. */
  add(columns: readonly RowColumn[], index: number): void {
    this.codec.writeColumnRow(this.writer, columns, index);
    this.rowEnds.push(this.writer.lengthBytes);
    this.count++;
    if (this.writer.lengthBytes >= this.chunkBytesTarget) this.seal();
  }

  finish(): EncodedRows {
    this.seal();
    return new EncodedRows(this.chunks, this.count);
  }

  private seal(): void {
    if (this.rowEnds.length === 0) return;
    const bytes = this.writer.finish().slice();
    this.chunks.push({ bytes, rowEnds: Uint32Array.from(this.rowEnds) });
    this.rowEnds = [];
    this.writer.reset();
  }
}
