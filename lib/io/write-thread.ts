// The write thread: one worker thread per JavaScript thread that uses it, which does the bulk
// pwrites of checkpoints (NodeFileHandle.writeAsync) instead of the event loop or the libuv thread
// pool. Why not the pool: each write there is a dispatch from the engine thread that wakes a pool
// thread, which on a busy machine preempts the engine thread (the kernel favours the woken), and
// it holds one of the pool's four threads that the commit journal's fdatasync needs. The write
// thread runs at nice WRITE_THREAD_NICE (Linux: that thread only), so the engine thread goes first
// whenever both want a core; the checkpoint then takes what the commits leave.
//
// A write's bytes are copied at the call into a buffer that is transferred to the thread and back
// (no copy either way), so the caller may reuse its own at once. Buffers come back into a free
// list kept to WRITE_THREAD_FREE_BUFFER_BYTES_MAX. The thread starts when data files open
// (FileSystem.prepareAsyncWrites: starting one takes 50-500 ms) or at the first write, and does
// not keep the process alive while no write is pending; if it dies, the writes pending get an IO
// error and the next write starts a new one.

import { Worker } from 'node:worker_threads';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { MiB } from '../base/units.ts';
import {
  WRITE_THREAD_SOURCE, type WriteAnswer, type WriteRequest, type WriteThreadData,
} from './write-thread-worker.ts';

/** The write thread's nice value: below every commit's thread, above idle. */
export const WRITE_THREAD_NICE = 10;
/** Bytes of returned buffers kept for the next writes; more are left to the collector. */
export const WRITE_THREAD_FREE_BUFFER_BYTES_MAX = 2 * MiB;

interface Pending {
  resolve(): void;
  reject(error: unknown): void;
}

/** What the write thread did since this JavaScript thread started it (tests, benchmarks). */
export interface WriteThreadCounters {
  writeCount: number;
  writtenBytes: number;
  /** Threads started: 1 after the first write, more only after one died. */
  startCount: number;
}

class WriteThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly freeBuffers: ArrayBuffer[] = [];
  private freeBufferBytes = 0;
  readonly counters: WriteThreadCounters = { writeCount: 0, writtenBytes: 0, startCount: 0 };

  /** pwrites all of `bytes` to `fd` at `offsetBytes`; rejects with the system error. */
  write(fd: number, bytes: Uint8Array, offsetBytes: number): Promise<void> {
    assert(Number.isSafeInteger(offsetBytes) && offsetBytes >= 0);
    const buffer = this.takeBuffer(bytes.length);
    new Uint8Array(buffer, 0, bytes.length).set(bytes);
    const id = this.nextId++;
    const request: WriteRequest = { id, fd, buffer, lengthBytes: bytes.length, offsetBytes };
    const worker = this.start();
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage(request, [buffer]);
      this.counters.writeCount++;
      this.counters.writtenBytes += bytes.length;
    });
  }

  /** Starts the thread if it is not running (at the first write otherwise). */
  start(): Worker {
    if (this.worker !== undefined) return this.worker;
    const data: WriteThreadData = { nice: WRITE_THREAD_NICE };
    // Plain JavaScript: not the parent's --import hooks (a TypeScript loader it does not need).
    const worker = new Worker(WRITE_THREAD_SOURCE, { eval: true, workerData: data, execArgv: [] });
    worker.on('message', (answer: WriteAnswer) => this.answered(answer));
    worker.on('error', (error) => this.died(worker, error));
    worker.on('exit', (exitCode) => this.died(worker, `exited with code ${exitCode}`));
    // After the listeners: adding a 'message' listener refs the thread again, and an idle one
    // started ahead (prepareAsyncWrites) would then keep the process alive.
    worker.unref();
    this.worker = worker;
    this.counters.startCount++;
    return worker;
  }

  private answered(answer: WriteAnswer): void {
    const pending = this.pending.get(answer.id);
    assert(pending !== undefined, `write thread answered unknown write ${answer.id}`);
    this.pending.delete(answer.id);
    if (this.pending.size === 0) this.worker?.unref();
    this.giveBack(answer.buffer);
    if (answer.error === undefined) pending.resolve();
    else {
      const cause = Object.assign(new Error(answer.error.message), { code: answer.error.code });
      pending.reject(cause);
    }
  }

  /** Every pending write fails; the next write starts a new thread. */
  private died(worker: Worker, reason: unknown): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const error = new StorageError('IO', `the write thread died: ${String(reason)}`,
      { cause: reason });
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const write of pending) write.reject(error);
  }

  private takeBuffer(lengthBytes: number): ArrayBuffer {
    const index = this.freeBuffers.findIndex((buffer) => buffer.byteLength >= lengthBytes);
    if (index < 0) return new ArrayBuffer(lengthBytes);
    const [buffer] = this.freeBuffers.splice(index, 1);
    this.freeBufferBytes -= buffer!.byteLength;
    return buffer!;
  }

  private giveBack(buffer: ArrayBuffer): void {
    if (this.freeBufferBytes + buffer.byteLength > WRITE_THREAD_FREE_BUFFER_BYTES_MAX) return;
    this.freeBuffers.push(buffer);
    this.freeBufferBytes += buffer.byteLength;
  }
}

let thread: WriteThread | undefined;

/** The write thread of this JavaScript thread, started at its first write. */
export function writeThread(): WriteThread {
  thread ??= new WriteThread();
  return thread;
}
