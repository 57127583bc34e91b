// One engine thread (a worker holding the Store of its partition groups), from the main thread's
// side: each call and request is a message with an id (engine-messages.ts), answered by a message
// with the same id. Request bodies and reply frames are transferred, not copied. The node runs
// one per partition group behind the routing runner (group-workers-engine.ts).
//
// If the worker dies (an uncaught exception in the engine, which is how it stops on a broken
// invariant: engine-worker.ts), every pending call fails with that error, later ones fail at once,
// and the node is told (events.failed) so it stops (fail-stop): what was acknowledged is durable
// as logWriteMode says, and the next start recovers it. A thread that only exited (terminated)
// fails them with CLOSED.

import { Worker } from 'node:worker_threads';
import { StorageError, STORAGE_ERROR_NUMBERS, type StorageErrorCode } from '../../base/errors.ts';
import type { RecoveryReport } from '../../engine/partition-group.ts';
import type { RequestFrame } from '../../server/reply-frames.ts';
import type { ConnectionSetup, EngineInfo, RunOutcome } from '../../server/request-runner.ts';
import type { GroupRequestRunner } from '../../server/routing-request-runner.ts';
import type { SqlPeerCall } from '../../server/sql-peers.ts';
import {
  errorData, type EngineCall, type EngineOpenSettings, type EngineOpened, type ErrorData, type FromEngine,
  type ToEngine,
} from './engine-messages.ts';
import { EngineCalls } from './engine-calls.ts';
import type { NodeEngineEvents } from './node-engine.ts';

/**
 * The worker's entry. Compiled (dist/), the worker runs engine-worker.js as it is; from source it
 * starts at the boot file, which registers tsx for the TypeScript (a worker has no loader of its
 * own), and which the compiler does not copy to dist/.
 */
const WORKER_BOOT_URL = import.meta.url.endsWith('.js')
  ? new URL('./engine-worker.js', import.meta.url)
  : new URL('./engine-worker-boot.mjs', import.meta.url);

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export class WorkerEngine extends EngineCalls implements GroupRequestRunner {
  /** Answers this engine's SQL asking the other groups (group-workers-engine.ts sets it). */
  onSqlPeer: ((call: SqlPeerCall) => Promise<unknown>) | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: unknown;
  private opened: EngineOpened | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly events: NodeEngineEvents,
  ) {
    super();
    worker.on('message', (message: FromEngine) => this.received(message));
    worker.on('error', (error) => this.died(error));
    worker.on('exit', (exitCode) => this.died(new StorageError('CLOSED',
      `the engine thread exited (code ${exitCode})`)));
  }

  static async open(settings: EngineOpenSettings, events: NodeEngineEvents): Promise<WorkerEngine> {
    const engine = new WorkerEngine(new Worker(WORKER_BOOT_URL, {
      // Not the main thread's --import hooks: the boot file registers the loader it needs.
      execArgv: [],
    }),
      events);
    try {
      engine.opened = await engine.call({ kind: 'open', settings }) as EngineOpened;
    } catch (error) {
      await engine.end(error);
      throw error;
    }
    return engine;
  }

  get info(): EngineInfo {
    return this.openedReport().info;
  }

  get recovery(): RecoveryReport {
    return this.openedReport().recovery;
  }

  connectionOpened(connectionId: number, setup: ConnectionSetup): void {
    this.post({ kind: 'connectionOpened', connectionId, setup });
  }

  run(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    return this.request(connectionId, frame, false);
  }

  check(connectionId: number, frame: RequestFrame): Promise<RunOutcome> {
    return this.request(connectionId, frame, true);
  }

  connectionClosed(connectionId: number): void {
    this.post({ kind: 'connectionClosed', connectionId });
  }

  /** Another group's SQL asks this group (sql-peers.ts). */
  sqlPeer(call: SqlPeerCall): Promise<unknown> {
    return this.call({ kind: 'sqlPeer', call });
  }

  async close(options: { abandon?: boolean } = {}): Promise<void> {
    if (this.failure !== undefined) return;
    try {
      await this.call({ kind: 'close', abandon: options.abandon ?? false });
    } finally {
      await this.end(new StorageError('CLOSED', 'the engine is closed'));
    }
  }

  /**
   * Stops the thread at once, as a crash of the engine in it would: nothing is checkpointed or
   * synced, pending and later calls fail with CLOSED, and the node is told (events.failed). For
   * fault tests; the next open recovers the group from its logs.
   */
  async crash(): Promise<void> {
    await this.worker.terminate();
  }

  /** Ends the thread on purpose: later calls fail with `reason`, and the node is not told. */
  private async end(reason: unknown): Promise<void> {
    this.failure ??= reason;
    await this.worker.terminate();
  }

  protected call(call: EngineCall): Promise<unknown> {
    return this.track((id) => this.post({ ...call, id }));
  }

  private request(connectionId: number, frame: RequestFrame, check: boolean): Promise<RunOutcome> {
    // A copy of the body (a view of the connection's read buffer) that the transfer can take.
    const owned = new Uint8Array(frame.body);
    return this.track((id) => this.post({
      kind: 'request', id, connectionId, messageType: frame.messageType,
      requestId: frame.requestId, body: owned, ...(check ? { check: true } : {}),
    }, [owned.buffer as ArrayBuffer])) as Promise<RunOutcome>;
  }

  private track(send: (id: number) => void): Promise<unknown> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      send(id);
    });
  }

  private post(message: ToEngine, transfer: ArrayBuffer[] = []): void {
    if (this.failure === undefined) this.worker.postMessage(message, transfer);
  }

  private received(message: FromEngine): void {
    switch (message.kind) {
      case 'checkpoint':
        this.events.checkpoint(message.notice);
        return;
      case 'warning':
        this.events.warning(message.message);
        return;
      case 'slowQuery':
        this.events.slowQuery?.(message.record);
        return;
      case 'sqlPeer':
        this.answerSqlPeer(message.id, message.call);
        return;
      default: {
        const pending = this.pending.get(message.id);
        if (pending === undefined) return;
        this.pending.delete(message.id);
        if (message.kind === 'failed') pending.reject(errorFromData(message.error));
        else if (message.kind === 'reply') pending.resolve(message);
        else pending.resolve(message.value);
      }
    }
  }

  private answerSqlPeer(id: number, call: SqlPeerCall): void {
    const asked = this.onSqlPeer === undefined
      ? Promise.reject(new StorageError('NOT_SUPPORTED', 'this engine has no other partition groups'))
      : this.onSqlPeer(call);
    asked.then((value) => this.post({ kind: 'sqlPeerAnswer', id, value }),
      (error: unknown) => this.post({ kind: 'sqlPeerAnswer', id, error: errorData(error) }));
  }

  private died(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    this.events.failed(error);
  }

  private openedReport(): EngineOpened {
    if (this.opened === undefined) throw new StorageError('CLOSED', 'the engine is not open');
    return this.opened;
  }
}

/** The Error a failed call rejects with: a StorageError of the same code when it was one. */
export function errorFromData(data: ErrorData): Error {
  const code = data.code;
  const error = code !== undefined && Object.hasOwn(STORAGE_ERROR_NUMBERS, code)
    ? new StorageError(code as StorageErrorCode, data.message) : new Error(data.message);
  if (data.stack !== undefined) error.stack = data.stack;
  return error;
}
