// Rows to the node in batches of COMMIT_ROW_COUNT rows or BATCH_BYTES_MAX estimated bytes, whichever
// comes first, with at most WRITES_IN_FLIGHT_MAX batches sent and not yet acknowledged: the caller
// parses the next batch while the node writes the last, and memory stays at (1 +
// WRITES_IN_FLIGHT_MAX) batches. A batch is one statement, made durable as one (one xlog record
// and, with logWriteMode 0, one sync): large batches spare the node thousands of syncs. When a
// batch fails, nothing more is sent, the first error is thrown, and acknowledgedCount still counts
// exactly the rows the node acknowledged.

import { assert } from '../lib/base/assert.ts';
import type { Row } from '../lib/schema/column-type.ts';

export const COMMIT_ROW_COUNT = 10_000;
/** Estimated bytes of a batch at most: far under a multi-put's XLOG_RECORD_BYTES_MAX (64 MiB). */
export const BATCH_BYTES_MAX = 8 * 1024 * 1024;
export const WRITES_IN_FLIGHT_MAX = 2;
/** The estimate of a value that is not a string or bytes. */
const VALUE_BYTES_FIXED = 8;

export class BatchWriter {
  private batch: Row[] = [];
  private batchBytes = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown;
  acknowledgedCount = 0;

  constructor(private readonly write: (rows: Row[]) => Promise<void>) {}

  /** Adds a row; true when a batch is full (rows or bytes) and flush() is due. */
  add(row: Row): boolean {
    this.batch.push(row);
    this.batchBytes += rowBytesOf(row);
    return this.batch.length >= COMMIT_ROW_COUNT || this.batchBytes >= BATCH_BYTES_MAX;
  }

  /** Sends the batch; waits first while WRITES_IN_FLIGHT_MAX are unacknowledged. */
  async flush(): Promise<void> {
    this.throwFailure();
    if (this.batch.length === 0) return;
    while (this.inFlight.size >= WRITES_IN_FLIGHT_MAX) await Promise.race(this.inFlight);
    this.throwFailure();
    const rows = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    this.send(rows.length, () => this.write(rows));
  }

  /**
   * Sends a batch of `count` rows made elsewhere (already encoded: expimp-row-scan.ts), under the
   * same bound, after any rows added; waits first while WRITES_IN_FLIGHT_MAX are unacknowledged.
   */
  async flushMade(count: number, write: () => Promise<void>): Promise<void> {
    await this.flush();
    while (this.inFlight.size >= WRITES_IN_FLIGHT_MAX) await Promise.race(this.inFlight);
    this.throwFailure();
    this.send(count, write);
  }

  private send(count: number, write: () => Promise<void>): void {
    const sent: Promise<void> = write().then(() => {
      this.acknowledgedCount += count;
    }, (error: unknown) => {
      this.failure ??= error;
    }).finally(() => this.inFlight.delete(sent));
    this.inFlight.add(sent);
    assert(this.inFlight.size <= WRITES_IN_FLIGHT_MAX);
  }

  /** Waits for every batch sent; throws the first failure. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
    this.throwFailure();
  }

  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}

/** A row's bytes, over-estimated: strings at 3 bytes a UTF-16 unit, arrays element by element. */
export function rowBytesOf(row: Row): number {
  let bytes = 0;
  for (const value of row) bytes += valueBytesOf(value);
  return bytes;
}

function valueBytesOf(value: unknown): number {
  if (typeof value === 'string') return VALUE_BYTES_FIXED + 3 * value.length;
  if (value instanceof Uint8Array) return VALUE_BYTES_FIXED + value.byteLength;
  if (Array.isArray(value)) {
    let bytes = VALUE_BYTES_FIXED;
    for (const element of value) bytes += valueBytesOf(element);
    return bytes;
  }
  return VALUE_BYTES_FIXED;
}
