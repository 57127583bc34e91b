// BlockPipeline (lib/block/block-pipeline.ts): records are applied in the order they were submitted
// whatever order their durability resolves in; admission is bounded by records and bytes in flight
// (the writer past the bound waits, in arrival order); a failed durability promise or apply halts
// the pipeline and rejects every record in flight and every later admission; drain waits for all.
//
// It lives here rather than in test/unit/block/ only because that directory was being reworked when
// it was written; move it beside the other block tests.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StorageError } from '../../../lib/base/errors.ts';
import { BlockPipeline, type PipelineRecord } from '../../../lib/block/block-pipeline.ts';
import { storageError, track } from './engine-test-helpers.ts';

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function flushMicrotasks(): Promise<void> {
  for (let turn = 0; turn < 20; turn++) await Promise.resolve();
}

interface TestRecord {
  id: number;
  durable: Promise<void> | undefined;
  sizeBytes?: number;
  /** Default: push `id` to the applied list. */
  apply?: () => void;
}

/** Admits (asserting there is room now) and submits one record that logs its apply. */
function submitNow(pipeline: BlockPipeline, applied: number[], record: TestRecord): Promise<void> {
  assert.equal(pipeline.admit(), undefined, `room for record ${record.id}`);
  return submitAdmitted(pipeline, applied, record);
}

function submitAdmitted(pipeline: BlockPipeline, applied: number[], record: TestRecord) {
  const entry: PipelineRecord = {
    sizeBytes: record.sizeBytes ?? 10,
    durable: record.durable,
    apply: record.apply ?? (() => applied.push(record.id)),
  };
  return pipeline.submit(entry);
}

const LIMITS = { recordsInFlightMax: 8, bytesInFlightMax: 1_000 };

describe('BlockPipeline', () => {
  it('applies records in submission order when durability resolves out of order', async () => {
    const pipeline = new BlockPipeline(LIMITS);
    const applied: number[] = [];
    const durable = [deferred(), deferred(), deferred()];
    const done = durable.map((d, id) => submitNow(pipeline, applied, { id, durable: d.promise }));
    const answered: number[] = [];
    done.forEach((promise, id) => void promise.then(() => answered.push(id)));
    durable[2]!.resolve();
    durable[1]!.resolve();
    await flushMicrotasks();
    assert.deepStrictEqual(applied, [], 'nothing before the first record is durable');
    durable[0]!.resolve();
    await Promise.all(done);
    assert.deepStrictEqual(applied, [0, 1, 2]);
    assert.deepStrictEqual(answered, [0, 1, 2], 'answers come in the same order');
    assert.equal(pipeline.appliedRecordCount, 3);
    assert.deepStrictEqual(pipeline.inFlight, { records: 0, bytes: 0 });
    pipeline.close();
  });

  it('applies an already durable record within submit, behind earlier records', async () => {
    const pipeline = new BlockPipeline(LIMITS);
    const applied: number[] = [];
    const first = submitNow(pipeline, applied, { id: 1, durable: undefined });
    assert.deepStrictEqual(applied, [1], 'applied synchronously');
    const slow = deferred();
    const second = submitNow(pipeline, applied, { id: 2, durable: slow.promise });
    const third = submitNow(pipeline, applied, { id: 3, durable: undefined });
    assert.deepStrictEqual(applied, [1], 'record 3 waits for record 2');
    slow.resolve();
    await Promise.all([first, second, third]);
    assert.deepStrictEqual(applied, [1, 2, 3]);
    pipeline.close();
  });

  it('makes the N+1th admission wait until a record is applied, in arrival order', async () => {
    const pipeline = new BlockPipeline({ recordsInFlightMax: 2, bytesInFlightMax: 1_000 });
    const applied: number[] = [];
    const durable = [deferred(), deferred()];
    const done = durable.map((d, id) => submitNow(pipeline, applied, { id, durable: d.promise }));
    const third = pipeline.admit();
    const fourth = pipeline.admit();
    assert.ok(third !== undefined && fourth !== undefined);
    const thirdAdmitted = track(third);
    const fourthAdmitted = track(fourth);
    await flushMicrotasks();
    assert.equal(thirdAdmitted.settled, false);
    assert.deepStrictEqual(pipeline.inFlight.records, 2);
    durable[0]!.resolve();
    await done[0];
    await flushMicrotasks();
    assert.equal(thirdAdmitted.settled, true, 'one record applied: one admission');
    assert.equal(fourthAdmitted.settled, false);
    const thirdDone = submitAdmitted(pipeline, applied, { id: 2, durable: undefined });
    durable[1]!.resolve();
    await Promise.all([done[1], thirdDone, fourth]);
    await submitAdmitted(pipeline, applied, { id: 3, durable: undefined });
    assert.deepStrictEqual(applied, [0, 1, 2, 3]);
    pipeline.close();
  });

  it('bounds the bytes in flight too', async () => {
    const pipeline = new BlockPipeline({ recordsInFlightMax: 8, bytesInFlightMax: 100 });
    const applied: number[] = [];
    const durable = deferred();
    const big = submitNow(pipeline, applied, { id: 0, durable: durable.promise, sizeBytes: 100 });
    const next = pipeline.admit();
    assert.ok(next !== undefined, 'the pipeline holds its byte maximum: the next writer waits');
    const admitted = track(next);
    await flushMicrotasks();
    assert.equal(admitted.settled, false);
    durable.resolve();
    await big;
    await next;
    pipeline.cancelAdmission();
    assert.deepStrictEqual(pipeline.inFlight, { records: 0, bytes: 0 });
    pipeline.close();
  });

  it('halts on a failed durability promise: it and every later record fail', async () => {
    const pipeline = new BlockPipeline(LIMITS);
    const applied: number[] = [];
    const failing = deferred();
    const behind = deferred();
    const first = submitNow(pipeline, applied, { id: 0, durable: failing.promise });
    const second = submitNow(pipeline, applied, { id: 1, durable: behind.promise });
    const third = submitNow(pipeline, applied, { id: 2, durable: undefined });
    behind.resolve();
    const cause = new Error('EIO');
    failing.reject(cause);
    await assert.rejects(first, (error: unknown) => error === cause);
    await assert.rejects(second, storageError('IO', /EIO/));
    await assert.rejects(third, storageError('IO', /EIO/));
    assert.deepStrictEqual(applied, [], 'nothing past the failure is applied');
    assert.equal(pipeline.halted, true);
    await assert.rejects(pipeline.admit()!, storageError('IO'));
    assert.deepStrictEqual(pipeline.inFlight, { records: 0, bytes: 0 });
    await pipeline.drain();
    pipeline.close();
  });

  it('halts on a failed apply and passes a StorageError through unchanged', async () => {
    const pipeline = new BlockPipeline(LIMITS);
    const applied: number[] = [];
    const corruption = new StorageError('CORRUPTION', 'bad block');
    const first = submitNow(pipeline, applied, {
      id: 0, durable: Promise.resolve(), apply: () => {
        throw corruption;
      },
    });
    const second = submitNow(pipeline, applied, { id: 1, durable: Promise.resolve() });
    await assert.rejects(first, (error: unknown) => error === corruption);
    await assert.rejects(second, (error: unknown) => error === corruption);
    assert.deepStrictEqual(applied, []);
    await assert.rejects(pipeline.admit()!, (error: unknown) => error === corruption);
    pipeline.close();
  });

  it('drain resolves at once when idle, else once every record is applied', async () => {
    const pipeline = new BlockPipeline(LIMITS);
    const applied: number[] = [];
    await pipeline.drain();
    const durable = [deferred(), deferred()];
    const done = durable.map((d, id) => submitNow(pipeline, applied, { id, durable: d.promise }));
    const drained = track(pipeline.drain());
    durable[0]!.resolve();
    await done[0];
    await flushMicrotasks();
    assert.equal(drained.settled, false, 'one record is still in flight');
    durable[1]!.resolve();
    await done[1];
    await flushMicrotasks();
    assert.equal(drained.settled, true);
    assert.deepStrictEqual(applied, [0, 1]);
    pipeline.close();
  });

  it('drain resolves when the last admission in flight is cancelled', async () => {
    const pipeline = new BlockPipeline(LIMITS);
    assert.equal(pipeline.admit(), undefined);
    const drained = track(pipeline.drain());
    pipeline.cancelAdmission();
    await flushMicrotasks();
    assert.equal(drained.settled, true);
    pipeline.close();
  });
});
