// The two places the engine/thread workload runs a Store: in the calling thread (InThreadEngine,
// which calls the EngineHost directly) and in a worker thread (WorkerEngine, which posts each
// request to the worker, transferring the row bytes, and resolves it when the reply with its id
// comes back). Both take the same requests, already encoded, so the difference measured is the
// thread boundary: the messages and the second thread.

import { Worker } from 'node:worker_threads';
import type { StorageOptions } from '../lib/base/options.ts';
import { assert } from '../lib/base/assert.ts';
import { EngineHost } from './engine-thread-host.ts';
import type { EngineReply, EngineRequest } from './engine-thread-messages.ts';

const WORKER_BOOT_URL = new URL('./engine-worker-boot.mjs', import.meta.url);

/** A request without its id: the engine numbers them. */
type EngineCall =
  | Omit<Extract<EngineRequest, { kind: 'open' }>, 'id'>
  | Omit<Extract<EngineRequest, { kind: 'put' }>, 'id'>
  | Omit<Extract<EngineRequest, { kind: 'count' }>, 'id'>
  | Omit<Extract<EngineRequest, { kind: 'logSyncCount' }>, 'id'>
  | Omit<Extract<EngineRequest, { kind: 'close' }>, 'id'>;

/**
 * in-thread: one Store in the calling thread; worker: one Store (every partition group) in one
 * worker. The node's one worker per partition group is measured through the node
 * (node/thread/…).
 */
export type EngineThread = 'in-thread' | 'worker';

export interface EngineTarget {
  readonly thread: EngineThread;
  open(home: string, options: Partial<StorageOptions>, containerNames: string[]): Promise<void>;
  /** Puts the rows encoded in `bytes` into container `containerIndex`; bytes may be detached. */
  put(containerIndex: number, rowCount: number, bytes: ArrayBuffer): Promise<void>;
  count(containerIndex: number): Promise<number>;
  /** The Store's xlog fdatasyncs so far (group commit rounds sync one file per partition). */
  logSyncCount(): Promise<number>;
  /** Closes the Store; it may be opened again (on another home). */
  close(): Promise<void>;
  /** Ends the worker, if any. */
  end(): Promise<void>;
}

export function engineTarget(thread: EngineThread): EngineTarget {
  return thread === 'in-thread' ? new InThreadEngine() : new WorkerEngine();
}

abstract class NumberedEngine implements EngineTarget {
  abstract readonly thread: 'in-thread' | 'worker';
  private nextId = 0;

  protected abstract call(request: EngineRequest): Promise<number | undefined>;
  abstract end(): Promise<void>;

  async open(home: string, options: Partial<StorageOptions>, containerNames: string[]) {
    await this.send({ kind: 'open', home, options, containerNames });
  }

  async put(containerIndex: number, rowCount: number, bytes: ArrayBuffer): Promise<void> {
    await this.send({ kind: 'put', containerIndex, rowCount, bytes });
  }

  async count(containerIndex: number): Promise<number> {
    const value = await this.send({ kind: 'count', containerIndex });
    assert(value !== undefined);
    return value;
  }

  async logSyncCount(): Promise<number> {
    const value = await this.send({ kind: 'logSyncCount' });
    assert(value !== undefined);
    return value;
  }

  async close(): Promise<void> {
    await this.send({ kind: 'close' });
  }

  private send(call: EngineCall): Promise<number | undefined> {
    this.nextId++;
    return this.call({ ...call, id: this.nextId } as EngineRequest);
  }
}

class InThreadEngine extends NumberedEngine {
  readonly thread = 'in-thread';
  private readonly host = new EngineHost();

  protected call(request: EngineRequest): Promise<number | undefined> {
    return this.host.execute(request);
  }

  async end(): Promise<void> {}
}

interface Pending {
  resolve: (value: number | undefined) => void;
  reject: (error: Error) => void;
}

class WorkerEngine extends NumberedEngine {
  readonly thread = 'worker';
  private readonly worker = new Worker(WORKER_BOOT_URL);
  private readonly pending = new Map<number, Pending>();
  private failure: Error | undefined;

  constructor() {
    super();
    this.worker.on('message', (reply: EngineReply) => {
      const pending = this.pending.get(reply.id);
      assert(pending !== undefined);
      this.pending.delete(reply.id);
      if (reply.error === undefined) pending.resolve(reply.value);
      else pending.reject(new Error(`in the worker: ${reply.error}`));
    });
    this.worker.on('error', (error: Error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the worker exited (${code})`)));
  }

  async end(): Promise<void> {
    this.fail(new Error('the worker was ended'));
    await this.worker.terminate();
  }

  protected call(request: EngineRequest): Promise<number | undefined> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      // The row bytes move to the worker: this thread's buffer is detached, never copied.
      this.worker.postMessage(request, request.kind === 'put' ? [request.bytes] : []);
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
