// StepFaultFileSystem: a FileSystem over another (a SimFileSystem) that numbers every call that
// can fail on a real disk (open, list, mkdirp, remove, rename, syncDirectory, and on handles
// write, read, datasync, truncate, punchHole, close) and fails the one numbered `failAtStep` with
// an injected IO error. With recording on, it keeps each call's name and path, so a test can run
// an operation once cleanly to learn its steps, then once per step with that step failing.
// exists(), freeBytes(), sizeBytes() and allocatedBytes() are not steps: they read metadata the engine already
// holds and do not fail on a real disk once the file is open.

import { StorageError } from '../../lib/base/errors.ts';
import type { FileHandle, FileSystem, OpenMode } from '../../lib/io/file-system.ts';

export interface FileSystemStep {
  /** 'open', 'remove', 'syncDirectory', 'write', 'datasync', 'close', ... */
  call: string;
  path: string;
}

export class StepFaultFileSystem implements FileSystem {
  /** Calls counted since the last arm(). */
  stepCount = 0;
  /** The step numbers count from 0 at arm(); undefined fails nothing. */
  private failAtStep: number | undefined;
  private recording: FileSystemStep[] | undefined;
  /** The error thrown at failAtStep, once it was. */
  injected: StorageError | undefined;

  constructor(private readonly inner: FileSystem) {}

  /** Starts counting from 0; fails the call numbered `failAtStep` (if given); records if asked. */
  arm(options: { failAtStep?: number; record?: boolean }): void {
    this.stepCount = 0;
    this.failAtStep = options.failAtStep;
    this.recording = options.record === true ? [] : undefined;
    this.injected = undefined;
  }

  /** Stops failing and recording; returns what was recorded. */
  disarm(): FileSystemStep[] {
    const steps = this.recording ?? [];
    this.failAtStep = undefined;
    this.recording = undefined;
    return steps;
  }

  /** Counts one call; throws if it is the one to fail. */
  step(call: string, path: string): void {
    const index = this.stepCount++;
    this.recording?.push({ call, path });
    if (index !== this.failAtStep) return;
    this.injected = new StorageError('IO', `${call} ${path}: EIO (injected at step ${index})`);
    throw this.injected;
  }

  open(path: string, mode: OpenMode): FileHandle {
    this.step('open', path);
    return new StepFaultFileHandle(this.inner.open(path, mode), this);
  }

  exists(path: string): boolean {
    return this.inner.exists(path);
  }

  freeBytes(path: string): number {
    return this.inner.freeBytes(path);
  }

  list(directory: string): string[] {
    this.step('list', directory);
    return this.inner.list(directory);
  }

  mkdirp(directory: string): void {
    this.step('mkdirp', directory);
    this.inner.mkdirp(directory);
  }

  remove(path: string): void {
    this.step('remove', path);
    this.inner.remove(path);
  }

  rename(fromPath: string, toPath: string): void {
    this.step('rename', `${fromPath} -> ${toPath}`);
    this.inner.rename(fromPath, toPath);
  }

  async syncDirectory(directory: string): Promise<void> {
    this.step('syncDirectory', directory);
    await this.inner.syncDirectory(directory);
  }
}

class StepFaultFileHandle implements FileHandle {
  readonly path: string;

  constructor(private readonly inner: FileHandle, private readonly steps: StepFaultFileSystem) {
    this.path = inner.path;
  }

  sizeBytes(): number {
    return this.inner.sizeBytes();
  }

  write(bytes: Uint8Array, offsetBytes: number): void {
    this.steps.step('write', this.path);
    this.inner.write(bytes, offsetBytes);
  }

  async writeAsync(bytes: Uint8Array, offsetBytes: number): Promise<void> {
    this.steps.step('write', this.path);
    await this.inner.writeAsync(bytes, offsetBytes);
  }

  read(into: Uint8Array, offsetBytes: number): number {
    this.steps.step('read', this.path);
    return this.inner.read(into, offsetBytes);
  }

  async datasync(): Promise<void> {
    this.steps.step('datasync', this.path);
    await this.inner.datasync();
  }

  truncate(sizeBytes: number): void {
    this.steps.step('truncate', this.path);
    this.inner.truncate(sizeBytes);
  }

  punchHole(offsetBytes: number, lengthBytes: number): boolean {
    this.steps.step('punchHole', this.path);
    return this.inner.punchHole(offsetBytes, lengthBytes);
  }

  allocatedBytes(): number {
    return this.inner.allocatedBytes();
  }

  close(): void {
    // A failed close still releases the descriptor (close(2) does, whatever it returns).
    this.inner.close();
    this.steps.step('close', this.path);
  }
}
