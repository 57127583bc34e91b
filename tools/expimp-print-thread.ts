// gs_export's print threads, the main thread's side: row files whose pages are printed and
// written on PRINT_THREAD_COUNT worker threads (expimp-print-worker.ts) while the main thread
// fetches the next pages from the node. A file belongs to one thread for its whole life (files
// go to the threads in turn), so its pages are printed and written in the order sent; two files
// exported at once are printed by two threads side by side. Memory stays bounded: a file has at
// most PAGES_IN_FLIGHT_MAX pages sent and not yet written (page() waits for room), each the
// page's bytes moved (or copied) to its thread. A failure (a malformed page, a write error, a
// thread gone) makes that file's next page() or close() throw it, naming the file; the caller then
// treats the file as incomplete (gs_export removes it and does not list the container).

import { Worker } from 'node:worker_threads';
import { assert } from '../lib/base/assert.ts';
import type { ColumnSchema } from '../lib/schema/container-schema.ts';
import type { PrintReply, PrintRequest } from './expimp-print-messages.ts';

/**
 * Pages of one file sent to the thread and not yet written: one is printed while the next waits,
 * and the client fetches one more ahead (lib/client/client-query.ts), so about 3 pages a file.
 */
export const PAGES_IN_FLIGHT_MAX = 2;
/**
 * Worker threads printing: printing (mostly the DOUBLE cells' digits) kept one thread busy for
 * 0.65 s of a 0.95 s export of the TSBS day and set its pace; with two, the containers exported
 * at once (gs_export's EXPORTS_IN_FLIGHT_MAX) print side by side. More would only contend for
 * the cores with the node on a small machine.
 */
export const PRINT_THREAD_COUNT = 2;

const WORKER_URL = import.meta.url.endsWith('.js')
  ? new URL('./expimp-print-worker.js', import.meta.url)
  : new URL('./expimp-print-worker-boot.mjs', import.meta.url);

export interface PrintedFileOptions {
  path: string;
  /** Written first (the row file's header lines). */
  header: string;
  columns: readonly ColumnSchema[];
  /** Where cells printed to files go (expimp-row-file.ts). */
  directory: string;
  stem: string;
  /** Rows written since the last call. */
  onRows?: (count: number) => void;
}

export class PrintThread {
  /** Started on first use (or by start()); index = file id % PRINT_THREAD_COUNT. */
  private readonly workers: Array<Worker | undefined> = Array.from({ length: PRINT_THREAD_COUNT });
  private readonly files = new Map<number, PrintedFile>();
  private nextFile = 0;
  /** Why the thread is gone, once it is. */
  private stopped: Error | undefined;

  /** A row file written by the thread; pages go through its page(), then close(). */
  open(options: PrintedFileOptions): PrintedFile {
    if (this.stopped !== undefined) throw this.stopped;
    const id = this.nextFile++;
    const worker = this.started(id % PRINT_THREAD_COUNT);
    const file = new PrintedFile(id, options, (request, transfer) => worker.postMessage(request, transfer),
      () => this.forget(id));
    this.files.set(id, file);
    if (this.files.size === 1) for (const each of this.workers) each?.ref();
    worker.postMessage({
      kind: 'open', file: id, path: options.path, header: options.header, columns: options.columns,
      directory: options.directory, stem: options.stem,
    } satisfies PrintRequest);
    return file;
  }

  /**
   * Starts the threads now, so that they load their modules while the caller connects and lists
   * containers instead of when the first page is ready; they keep no process alive while idle.
   */
  start(): void {
    for (let index = 0; index < PRINT_THREAD_COUNT; index++) this.started(index);
  }

  /** Ends the threads; files still open fail. */
  async stop(): Promise<void> {
    const workers = [...this.workers];
    this.workers.fill(undefined);
    this.stopped ??= new Error('the print thread was stopped');
    await Promise.all(workers.map((worker) => worker?.terminate()));
  }

  private started(index: number): Worker {
    assert(index >= 0 && index < PRINT_THREAD_COUNT);
    const running = this.workers[index];
    if (running !== undefined) return running;
    // Not the main thread's --import hooks: the boot file registers the loader it needs.
    const worker = new Worker(WORKER_URL, { execArgv: [] });
    worker.on('message', (reply: PrintReply) => this.files.get(reply.file)?.answer(reply));
    const gone = (why: Error) => {
      this.stopped ??= why;
      for (const file of [...this.files.values()]) file.fail(`the print thread stopped: ${why.message}`);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`it exited with code ${code}`)));
    worker.unref();
    this.workers[index] = worker;
    return worker;
  }

  private forget(id: number): void {
    this.files.delete(id);
    if (this.files.size === 0) for (const worker of this.workers) worker?.unref();
  }
}

export class PrintedFile {
  private inFlight = 0;
  /** The most pages ever in flight at once (tests check the bound). */
  inFlightPeak = 0;
  private failure: Error | undefined;
  private closing = false;
  /** Woken by every answer of the thread. */
  private wake: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly id: number,
    private readonly options: PrintedFileOptions,
    private readonly post: (request: PrintRequest, transfer: ArrayBuffer[]) => void,
    private readonly forget: () => void,
  ) {}

  /**
   * Sends `count` rows encoded in `bytes` (the row codec's 'wire' form); `bytes` is copied, the
   * caller may reuse it. Waits while PAGES_IN_FLIGHT_MAX pages of this file are unwritten.
   */
  async page(bytes: Uint8Array, count: number, firstRowIndex: number): Promise<void> {
    await this.send(new Uint8Array(bytes), count, firstRowIndex); // its own ArrayBuffer
  }

  /**
   * As page(), but the caller hands `bytes` over: when they are the whole of their ArrayBuffer
   * (a page as the client received it, lib/encoding/byte-reader.ts's copy) that buffer moves to
   * the thread without a copy and `bytes` is left detached (length 0); a view of a larger buffer
   * is copied, since the rest of that buffer is not the caller's to give. The copies were 86 MB
   * of short-lived buffers for the TSBS day, and the main thread's largest item in a profile (GC).
   */
  async pageHandedOver(bytes: Uint8Array, count: number, firstRowIndex: number): Promise<void> {
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength &&
      bytes.buffer instanceof ArrayBuffer;
    await this.send(whole ? bytes : new Uint8Array(bytes), count, firstRowIndex);
  }

  private async send(own: Uint8Array, count: number, firstRowIndex: number): Promise<void> {
    assert(!this.closing, 'page() after close()');
    this.throwFailure();
    this.post({ kind: 'page', file: this.id, bytes: own, count, firstRowIndex }, [own.buffer as ArrayBuffer]);
    this.inFlight++;
    this.inFlightPeak = Math.max(this.inFlightPeak, this.inFlight);
    while (this.inFlight >= PAGES_IN_FLIGHT_MAX && this.failure === undefined) await this.answered();
    this.throwFailure();
  }

  /** Waits until every page is written and the file is closed; throws the file's failure. */
  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      this.post({ kind: 'close', file: this.id }, []);
    }
    while (!this.closed && this.failure === undefined) await this.answered();
    this.forget();
    this.throwFailure();
  }

  /** From the thread. */
  answer(reply: PrintReply): void {
    switch (reply.kind) {
      case 'printed':
        this.inFlight--;
        assert(this.inFlight >= 0);
        this.options.onRows?.(reply.count);
        break;
      case 'closed':
        this.closed = true;
        break;
      case 'failed':
        this.failure ??= new Error(reply.message);
        break;
    }
    this.wakeUp();
  }

  fail(message: string): void {
    this.failure ??= new Error(`${this.options.path}: ${message}`);
    this.wakeUp();
  }

  private answered(): Promise<void> {
    return new Promise((resolve) => { this.wake = resolve; });
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
