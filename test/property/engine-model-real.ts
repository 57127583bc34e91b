// The real side of the engine model test: a Store on a crashable SimFileSystem, three sessions, and
// the checks that compare everything committed with the model (after every restart and every run).
//
// Time is virtual (an rxjs VirtualTimeScheduler that is never flushed): the model never lets a
// request wait for a lock, so no timer may ever fire, and a crashed store left behind holds no real
// timers. A request that waits anyway would hang, so every command runs under a real-time watchdog
// that turns a hang into a failure fast-check can shrink.
//
// A crashed store is abandoned, not closed, and its requests in flight carry on. A real process
// would be gone, so each life of the store sees the disk through a ProcessFileSystem that refuses
// every call once its process "crashed"; otherwise a request parked before the crash could create
// files in the disk's next life, next to the store recovering from it.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { VirtualTimeScheduler } from 'rxjs';
import { isStorageError, StorageError, type StorageErrorCode } from '../../lib/base/errors.ts';
import { storageOptions } from '../../lib/base/options.ts';
import type { ContainerHandle, Session } from '../../lib/engine/session.ts';
import { Store } from '../../lib/engine/store.ts';
import type { FileHandle, FileSystem, OpenMode } from '../../lib/io/file-system.ts';
import { SimFileSystem } from '../sim/sim-file-system.ts';
import { MANUAL_SESSION_INDEX, SESSION_COUNT, type EngineModel } from './engine-model.ts';
import { SCHEMA_KINDS, SCHEMAS, type SchemaKind } from './engine-model-schemas.ts';

export const HOME = '/h';
const WATCHDOG_MS = 5_000;

/**
 * storeMemoryLimit of one 64KB block per partition group: nearly every block is evicted (swapped
 * out when dirty) between two commands and read back by the next one that needs it.
 */
const OPTIONS = storageOptions({
  partitionNum: 8, concurrency: 2, logWriteMode: 0, transactionTimeoutLimitMs: 60_000,
  storeMemoryLimitBytes: 2 * 64 * 1024,
});

/** The disk as one process life sees it. */
class ProcessFileSystem implements FileSystem {
  private alive = true;

  constructor(private readonly disk: SimFileSystem) {}

  kill(): void {
    this.alive = false;
  }

  open(path: string, mode: OpenMode): FileHandle {
    this.checkAlive('open');
    return this.disk.open(path, mode);
  }

  exists(path: string): boolean {
    this.checkAlive('exists');
    return this.disk.exists(path);
  }

  list(directory: string): string[] {
    this.checkAlive('list');
    return this.disk.list(directory);
  }

  mkdirp(directory: string): void {
    this.checkAlive('mkdirp');
    this.disk.mkdirp(directory);
  }

  remove(path: string): void {
    this.checkAlive('remove');
    this.disk.remove(path);
  }

  rename(fromPath: string, toPath: string): void {
    this.checkAlive('rename');
    this.disk.rename(fromPath, toPath);
  }

  async syncDirectory(directory: string): Promise<void> {
    this.checkAlive('syncDirectory');
    await this.disk.syncDirectory(directory);
  }

  freeBytes(path: string): number {
    this.checkAlive('freeBytes');
    return this.disk.freeBytes(path);
  }

  private checkAlive(operation: string): void {
    if (!this.alive) throw new StorageError('IO', `${operation}: the process crashed`);
  }
}

export class RealStore {
  store!: Store;
  sessions: Session[] = [];
  /** A checkpoint started by CheckpointCommand, running beside the commands that follow. */
  checkpointRunning: Promise<void> = Promise.resolve();
  private process: ProcessFileSystem | undefined;

  private constructor(readonly fileSystem: SimFileSystem) {}

  /** A store in a new home whose own entry (and its parents') is durable. */
  static async create(seed: number): Promise<RealStore> {
    const fileSystem = new SimFileSystem({ seed });
    fileSystem.mkdirp(HOME);
    await fileSystem.syncDirectory('/');
    const real = new RealStore(fileSystem);
    await real.open();
    return real;
  }

  async open(): Promise<void> {
    this.process = new ProcessFileSystem(this.fileSystem);
    this.store = await Store.open({
      home: HOME, options: OPTIONS, fileSystem: this.process, scheduler: new VirtualTimeScheduler(),
    });
    this.sessions = [];
    for (let index = 0; index < SESSION_COUNT; index++) {
      this.sessions.push(await this.newSession(index));
    }
  }

  /** A new session; the model's session MANUAL_SESSION_INDEX starts in manual mode everywhere. */
  async newSession(index: number): Promise<Session> {
    const session = this.store.session();
    if (index !== MANUAL_SESSION_INDEX) return session;
    for (const kind of SCHEMA_KINDS) {
      await session.container(SCHEMAS[kind].definition.name).setAutoCommit(false);
    }
    return session;
  }

  handle(sessionIndex: number, kind: SchemaKind): ContainerHandle {
    return this.sessions[sessionIndex]!.container(SCHEMAS[kind].definition.name);
  }

  /** Clean restart: close (open transactions are aborted), then open again. */
  async reopen(): Promise<void> {
    await this.store.close();
    await this.open();
  }

  /** Power cut: the store's process is gone; its Store object is abandoned. */
  crash(tornWrites: boolean): void {
    this.process?.kill();
    this.fileSystem.crash({ tornWrites });
  }

  async crashAndReopen(tornWrites: boolean): Promise<void> {
    this.crash(tornWrites);
    await this.open();
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

/** Everything committed, as a session without a transaction sees it, equals the model. */
export async function verifyCommitted(model: EngineModel, real: RealStore): Promise<void> {
  assert.deepStrictEqual(real.store.listContainers(), model.containerNames(), 'listContainers');
  const session = real.store.session();
  try {
    for (const kind of SCHEMA_KINDS) {
      const name = SCHEMAS[kind].definition.name;
      const info = real.store.getContainerInfo(name);
      if (!model.containers.has(kind)) {
        assert.equal(info, undefined, `getContainerInfo(${name}) of a dropped container`);
        continue;
      }
      const expected = model.visibleRows(undefined, kind);
      const handle = session.container(name);
      assert.deepStrictEqual(await handle.scan(), expected, `committed rows of ${name}`);
      assert.equal(await handle.count(), expected.length, `count of ${name}`);
      assert.equal(info?.rowCount, expected.length, `info.rowCount of ${name}`);
    }
  } finally {
    session.close();
  }
}

export async function expectStorageError(
  promise: Promise<unknown>,
  code: StorageErrorCode,
  what: string,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isStorageError(error), `${what}: expected StorageError ${code}: ${String(error)}`);
    assert.equal(error.code, code, `${what}: ${error.message}`);
    return true;
  }, `${what}: expected StorageError ${code}`);
}

/**
 * A command of the model test. run() compares the store's answers with the model's and updates the
 * model; check() keeps out commands that would wait for a lock.
 */
export abstract class EngineCommand implements fc.AsyncCommand<EngineModel, RealStore> {
  abstract check(model: Readonly<EngineModel>): boolean;
  abstract toString(): string;
  protected abstract execute(model: EngineModel, real: RealStore): Promise<void>;

  async run(model: EngineModel, real: RealStore): Promise<void> {
    await withinWatchdog(this.execute(model, real), this.toString());
  }
}

/** The engine may normalise a row in place: it gets a copy, the model keeps what was generated. */
export const copy = <T>(value: T): T => structuredClone(value);
export const show = (value: unknown): string => fc.stringify(value);

/** Fails instead of hanging when `promise` takes longer than the watchdog allows. */
export async function withinWatchdog<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${WATCHDOG_MS} ms ` +
      '(a lock wait the model did not expect?)')), WATCHDOG_MS);
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
}
