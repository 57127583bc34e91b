// Rows to the node in batches of COMMIT_ROW_COUNT (GridDB's commitCount), with at most
// WRITES_IN_FLIGHT_MAX batches sent and not yet acknowledged: the caller parses the next batch
// while the node writes the last, and memory stays at (1 + WRITES_IN_FLIGHT_MAX) batches. When a
// batch fails, nothing more is sent, the first error is thrown, and acknowledgedCount still counts
// exactly the rows the node acknowledged.

import { assert } from '../lib/base/assert.ts';
import type { Row } from '../lib/schema/column-type.ts';

export const COMMIT_ROW_COUNT = 1000;
export const WRITES_IN_FLIGHT_MAX = 2;

export class BatchWriter {
  private batch: Row[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown;
  acknowledgedCount = 0;

  constructor(private readonly write: (rows: Row[]) => Promise<void>) {}

  /** Adds a row; true when a batch is full and flush() is due. */
  add(row: Row): boolean {
    this.batch.push(row);
    return this.batch.length >= COMMIT_ROW_COUNT;
  }

  /** Sends the batch; waits first while WRITES_IN_FLIGHT_MAX are unacknowledged. */
  async flush(): Promise<void> {
    this.throwFailure();
    if (this.batch.length === 0) return;
    while (this.inFlight.size >= WRITES_IN_FLIGHT_MAX) await Promise.race(this.inFlight);
    this.throwFailure();
    const rows = this.batch;
    this.batch = [];
    const sent: Promise<void> = this.write(rows).then(() => {
      this.acknowledgedCount += rows.length;
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
