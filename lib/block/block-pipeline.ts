// The pipeline from the xlog to the block images of one partition group.
//
// A committed record enters after it has been appended to its partition's xlog. The pipeline waits
// until the record is durable as the log write mode requires (group commit for logWriteMode 0; at once
// otherwise), then applies it to the block images, strictly in the order records entered (concatMap),
// which is LSN order per partition. Only after the apply does the committer get its answer, so a row is
// visible to others exactly when its commit is acknowledged.
//
// Bounded: at most PIPELINE_RECORDS_IN_FLIGHT_MAX records and PIPELINE_BYTES_IN_FLIGHT_MAX bytes sit
// between append and apply. A writer must `admit()` before it appends; when the pipeline is full it
// waits, so a slow stage (a slow disk under group commit, a slow apply) slows the writers instead of
// letting a queue grow. rxjs has no backpressure of its own: the bound is at the source, here.
//
// A failed sync or apply halts the pipeline: the record may or may not be on disk, so the engine cannot
// answer for its state any more. Every record in flight and every later one is rejected with the error;
// restarting the node recovers from the xlog.

import { concatMap, defer, EMPTY, Subject, type Subscription } from 'rxjs';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';

export interface PipelineRecord {
  sizeBytes: number;
  /** Resolves when the record is durable as required; undefined when it already is (logWriteMode n >= 1). */
  durable: Promise<void> | undefined;
  /** Applies the record to the block images. Synchronous: one record is applied whole or not at all. */
  apply(): void;
}

interface Entry {
  record: PipelineRecord;
  resolve(): void;
  reject(error: unknown): void;
}

export interface BlockPipelineLimits {
  recordsInFlightMax: number;
  bytesInFlightMax: number;
  /** Told once when the pipeline halts, so the owner can stop taking requests. */
  onHalt?: (error: unknown) => void;
}

export class BlockPipeline {
  private readonly input = new Subject<Entry>();
  private readonly subscription: Subscription;
  private recordsInFlight = 0;
  private bytesInFlight = 0;
  /** Writers waiting for room, in arrival order. */
  private readonly admitWaiters: Array<() => void> = [];
  private idleWaiters: Array<() => void> = [];
  private haltError: unknown = undefined;
  appliedRecordCount = 0;

  constructor(private readonly limits: BlockPipelineLimits) {
    assert(limits.recordsInFlightMax > 0);
    assert(limits.bytesInFlightMax > 0);
    this.subscription = this.input
      .pipe(concatMap((entry) => this.stage(entry)))
      .subscribe();
  }

  /** Waits for room for one more record. Returns undefined (no promise) when there is room now. */
  admit(): Promise<void> | undefined {
    if (this.haltError !== undefined) return Promise.reject(this.haltError);
    if (this.hasRoom() && this.admitWaiters.length === 0) {
      this.recordsInFlight++;
      return undefined;
    }
    return new Promise<void>((resolve) => {
      this.admitWaiters.push(() => {
        this.recordsInFlight++;
        resolve();
      });
    });
  }

  /** Hands an admitted, appended record to the pipeline; resolves once it is applied. */
  submit(record: PipelineRecord): Promise<void> {
    assert(this.recordsInFlight > 0, 'submit without admit');
    this.bytesInFlight += record.sizeBytes;
    // Once halted, the stage no longer awaits durability; mark the promise handled so its rejection
    // is not an unhandled one (the committer still gets the error through its own entry).
    record.durable?.catch(() => undefined);
    return new Promise<void>((resolve, reject) => {
      this.input.next({ record, resolve, reject });
    });
  }

  /** Gives back an admission that was never submitted (the append failed). */
  cancelAdmission(): void {
    assert(this.recordsInFlight > 0);
    this.recordsInFlight--;
    this.wakeWriters();
    this.wakeIdle();
  }

  /** Resolves when every submitted record has been applied (or rejected). */
  drain(): Promise<void> {
    if (this.recordsInFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  get halted(): boolean {
    return this.haltError !== undefined;
  }

  get inFlight(): { records: number; bytes: number } {
    return { records: this.recordsInFlight, bytes: this.bytesInFlight };
  }

  close(): void {
    this.subscription.unsubscribe();
  }

  private stage(entry: Entry) {
    const { record } = entry;
    if (this.haltError === undefined && record.durable === undefined) {
      // Durable already: apply within this call, no promise turn (the hot path of logWriteMode >= 1).
      this.applyEntry(entry);
      return EMPTY;
    }
    return defer(async () => {
      try {
        if (this.haltError !== undefined) throw this.haltError;
        await record.durable;
      } catch (error) {
        this.halt(error);
        this.finish(entry, error);
        return;
      }
      this.applyEntry(entry);
    });
  }

  private applyEntry(entry: Entry): void {
    try {
      entry.record.apply();
      this.appliedRecordCount++;
    } catch (error) {
      this.halt(error);
      this.finish(entry, error);
      return;
    }
    this.finish(entry, undefined);
  }

  private finish(entry: Entry, error: unknown): void {
    this.recordsInFlight--;
    this.bytesInFlight -= entry.record.sizeBytes;
    assert(this.recordsInFlight >= 0 && this.bytesInFlight >= 0);
    if (error === undefined) entry.resolve();
    else entry.reject(error);
    this.wakeWriters();
    this.wakeIdle();
  }

  private wakeIdle(): void {
    if (this.recordsInFlight !== 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  private halt(error: unknown): void {
    if (this.haltError !== undefined) return;
    this.haltError = error instanceof StorageError
      ? error
      : new StorageError('IO', `block pipeline halted: ${String(error)}`, { cause: error });
    this.limits.onHalt?.(this.haltError);
  }

  private hasRoom(): boolean {
    return this.recordsInFlight < this.limits.recordsInFlightMax &&
      this.bytesInFlight < this.limits.bytesInFlightMax;
  }

  private wakeWriters(): void {
    while (this.admitWaiters.length > 0 && this.hasRoom()) this.admitWaiters.shift()!();
  }
}
