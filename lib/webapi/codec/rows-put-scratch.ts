// The buffers a single-container row PUT works in: the batch's row writer (rows-put-batch.ts) and
// the scanner's number arrays (rows-json-numbers.ts), together a "scratch", and the pool the web
// API server keeps them in between requests (one pool per server: WebApiDependencies).
//
// Why a pool: made per request, these were 152 KiB of ArrayBuffers for a PUT of 10 rows (1 KB of
// body); at the soak's web API load (perf/webapi-soak-memory.ts, 140 PUTs a second) 21 MB/s freed
// only by the next collection. The process's arrayBuffers swung 0-32 MiB between collections and
// malloc kept what they had touched, so its RSS swung 15-29 MiB with them (docs/benchmarks.md,
// Soak). Taken from the pool, a PUT allocates none of them once as many as run at once are made.
//
// Bounds: at most WEBAPI_ROWS_PUT_SCRATCH_KEPT_COUNT_MAX scratches are kept; one whose buffers
// grew beyond WEBAPI_ROWS_PUT_SCRATCH_KEPT_BYTES_MAX (its PUT had large batches: a 1 MB batch of
// TSBS rows grows them to about 2 MB) is dropped when given back, for the collector, rather than
// kept at its largest. So the pool holds at most COUNT_MAX × BYTES_MAX, whatever bodies came.

import { assert } from '../../base/assert.ts';
import {
  WEBAPI_ROWS_PUT_SCRATCH_KEPT_BYTES_MAX, WEBAPI_ROWS_PUT_SCRATCH_KEPT_COUNT_MAX,
} from '../../base/limits.ts';
import { ByteWriter } from '../../encoding/byte-writer.ts';
import { SlowNumbers } from './rows-json-numbers.ts';

/** The writer's first size; it grows by doubling (a 5000-row TSBS batch is 445 KB). */
const BATCH_WRITER_BYTES_INITIAL = 64 * 1024;

export class RowsPutScratch {
  readonly writer = new ByteWriter(BATCH_WRITER_BYTES_INITIAL);
  readonly numbers = new SlowNumbers();

  /** Bytes of memory its buffers hold now. */
  get capacityBytes(): number {
    return this.writer.capacityBytes + this.numbers.capacityBytes;
  }
}

/** A new scratch is this large: the pool must be able to keep one. */
assert(new RowsPutScratch().capacityBytes <= WEBAPI_ROWS_PUT_SCRATCH_KEPT_BYTES_MAX);

export class RowsPutScratchPool {
  private readonly kept: RowsPutScratch[] = [];

  constructor(
    private readonly keptCountMax = WEBAPI_ROWS_PUT_SCRATCH_KEPT_COUNT_MAX,
    private readonly keptBytesMax = WEBAPI_ROWS_PUT_SCRATCH_KEPT_BYTES_MAX,
  ) {
    assert(keptCountMax >= 0);
    assert(keptBytesMax >= 0);
  }

  /** Scratches kept now. */
  get keptCount(): number {
    return this.kept.length;
  }

  /** Bytes the kept scratches hold: at most keptCountMax × keptBytesMax. */
  get keptBytes(): number {
    return this.kept.reduce((sum, scratch) => sum + scratch.capacityBytes, 0);
  }

  /** A kept scratch, or a new one when none is (more PUTs at once than ever before). */
  take(): RowsPutScratch {
    return this.kept.pop() ?? new RowsPutScratch();
  }

  /** Back from a PUT that ended (its bytes sent or dropped): kept if small and room, else dropped. */
  give(scratch: RowsPutScratch): void {
    assert(!this.kept.includes(scratch));
    if (scratch.capacityBytes > this.keptBytesMax) return;
    if (this.kept.length >= this.keptCountMax) return;
    scratch.writer.reset();
    scratch.numbers.clear();
    this.kept.push(scratch);
  }
}
