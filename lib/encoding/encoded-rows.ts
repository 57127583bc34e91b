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
import type { ColumnRange } from './row-codec-column-range.ts';

/** A builder's writer starts this large (a small result stays small) and grows by doubling. */
const BUILDER_WRITER_BYTES_INITIAL = 64 * 1024;
/** A finished builder's writer is kept for the next builder when it holds no more than this. */
const BUILDER_WRITER_BYTES_KEPT_MAX = 2 * ENCODED_ROWS_CHUNK_BYTES;

/**
 * The writer the last finished builder left, for the next one. A result is encoded in one
 * synchronous call, so one kept writer serves them all: a full export's 100 queries grew a fresh
 * writer from 64 KiB to 1 MiB each, memory outside the heap that set off the collector.
 */
let writerKept: ByteWriter | undefined;

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
  /** finish() was called: the writer may be another builder's now. */
  private finished = false;

  constructor(
    private readonly codec: RowCodec,
    /** Tests set a small one. */
    private readonly chunkBytesTarget = ENCODED_ROWS_CHUNK_BYTES,
    /** The codec's schema's column-at-a-time encoder (row-codec-column-range.ts), if it has one. */
    private readonly range: ColumnRange | undefined = undefined,
  ) {
    assert(chunkBytesTarget > 0);
    if (writerKept !== undefined) {
      this.writer = writerKept;
      writerKept = undefined;
      this.writer.reset();
    } else {
      this.writer = new ByteWriter(Math.min(chunkBytesTarget, BUILDER_WRITER_BYTES_INITIAL));
    }
  }

  get rowCount(): number {
    return this.count;
  }

  /** Appends row `index` of `columns`. */
  add(columns: readonly RowColumn[], index: number): void {
    assert(!this.finished);
    this.codec.writeColumnRow(this.writer, columns, index);
    this.rowEnds.push(this.writer.lengthBytes);
    this.count++;
    if (this.writer.lengthBytes >= this.chunkBytesTarget) this.seal();
  }

  /**
   * Appends rows from .. from + count − 1 of `columns`, in that order: a column at a time where
   * the range encoder takes them, else row by row. Chunks end as add() ends them.
   */
  addRange(columns: readonly RowColumn[], from: number, count: number): void {
    assert(from >= 0 && count >= 0);
    assert(!this.finished);
    const { range } = this;
    let done = 0;
    while (range !== undefined && done < count) {
      // The rows up to the one that reaches the chunk's target, as add() would end the chunk.
      const roomBytes = this.chunkBytesTarget - this.writer.lengthBytes;
      const take = Math.min(count - done, Math.max(1, Math.ceil(roomBytes / range.rowBytes)));
      const startBytes = this.writer.lengthBytes;
      if (!range.write(this.writer, columns, from + done, take)) break;
      for (let k = 1; k <= take; k++) this.rowEnds.push(startBytes + k * range.rowBytes);
      this.count += take;
      done += take;
      if (this.writer.lengthBytes >= this.chunkBytesTarget) this.seal();
    }
    for (; done < count; done++) this.add(columns, from + done);
  }

  /** The rows added; the builder is done with (its writer goes to the next one). */
  finish(): EncodedRows {
    assert(!this.finished);
    this.seal();
    this.finished = true;
    if (this.writer.capacityBytes <= BUILDER_WRITER_BYTES_KEPT_MAX) writerKept = this.writer;
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
