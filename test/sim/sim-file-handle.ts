// A handle on a SimFileSystem file. It holds the file's node, not its path, so like a real file
// descriptor it keeps working after the file is renamed or removed. A crash invalidates it: the
// process that held it is gone.

import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { assert } from '../../lib/base/assert.ts';
import { StorageError } from '../../lib/base/errors.ts';
import type { FileHandle, OpenMode } from '../../lib/io/file-system.ts';

/** One file's contents: `bytes` has spare capacity past `sizeBytes`, always zero. */
export interface SimFile {
  kind: 'file';
  bytes: Uint8Array;
  sizeBytes: number;
  /** The contents as of the last datasync: what survives a crash. */
  durableBytes: Uint8Array;
}

/** State shared by a SimFileSystem and its handles. */
export interface SimDisk {
  /** Bumped by every crash; a handle from an older epoch is dead. */
  epoch: number;
  counters: {
    datasyncCount: number;
    syncDirectoryCount: number;
    writeCount: number;
    writtenBytes: number;
  };
  datasyncCountByPath: Map<string, number>;
  /** Pending injected EIOs; undefined matches any file. */
  datasyncFaultPaths: Array<string | undefined>;
  diskFull: { limitBytes: number; writtenBytes: number } | undefined;
  failingReadPaths: Set<string>;
}

const CAPACITY_BYTES_MIN = 256;

export class SimFileHandle implements FileHandle {
  private closed = false;
  private readonly epoch: number;

  constructor(
    readonly path: string,
    private readonly file: SimFile,
    private readonly mode: OpenMode,
    private readonly disk: SimDisk,
  ) {
    this.epoch = disk.epoch;
  }

  sizeBytes(): number {
    this.checkUsable('stat');
    return this.file.sizeBytes;
  }

  write(bytes: Uint8Array, offsetBytes: number): void {
    this.checkUsable('write');
    assert(Number.isSafeInteger(offsetBytes));
    assert(offsetBytes >= 0);
    if (this.mode === 'read') throw this.ioError('write', 'EBADF: opened read-only');
    this.chargeDiskSpace(bytes.length);
    this.disk.counters.writeCount += 1;
    this.disk.counters.writtenBytes += bytes.length;
    const endBytes = offsetBytes + bytes.length;
    this.reserve(endBytes);
    this.file.bytes.set(bytes, offsetBytes);
    this.file.sizeBytes = Math.max(this.file.sizeBytes, endBytes);
  }

  read(into: Uint8Array, offsetBytes: number): number {
    this.checkUsable('read');
    assert(offsetBytes >= 0);
    if (this.disk.failingReadPaths.has(this.path)) throw this.ioError('read', 'EIO (injected)');
    const readBytes = Math.max(0, Math.min(into.length, this.file.sizeBytes - offsetBytes));
    into.set(this.file.bytes.subarray(offsetBytes, offsetBytes + readBytes));
    return readBytes;
  }

  async datasync(): Promise<void> {
    this.checkUsable('fdatasync');
    this.disk.counters.datasyncCount += 1;
    const countByPath = this.disk.datasyncCountByPath;
    countByPath.set(this.path, (countByPath.get(this.path) ?? 0) + 1);
    const faults = this.disk.datasyncFaultPaths;
    const faultIndex = faults.findIndex((path) => path === undefined || path === this.path);
    if (faultIndex >= 0) faults.splice(faultIndex, 1);
    // fdatasync makes durable what was written before the call; later writes may or may not be.
    const snapshot = this.file.bytes.slice(0, this.file.sizeBytes);
    // Take a turn of the event loop, as a real disk flush does, so commits can pile up behind it.
    await nextMacrotask();
    if (this.disk.epoch !== this.epoch) throw this.ioError('fdatasync', 'crashed during the sync');
    if (faultIndex >= 0) throw this.ioError('fdatasync', 'EIO (injected)');
    this.file.durableBytes = snapshot;
  }

  truncate(sizeBytes: number): void {
    this.checkUsable('truncate');
    assert(sizeBytes >= 0);
    if (this.mode === 'read') throw this.ioError('truncate', 'EINVAL: opened read-only');
    this.reserve(sizeBytes);
    // Keep the spare capacity zero, so extending the file later reads zeros.
    if (sizeBytes < this.file.sizeBytes) this.file.bytes.fill(0, sizeBytes, this.file.sizeBytes);
    this.file.sizeBytes = sizeBytes;
  }

  close(): void {
    this.closed = true;
  }

  private checkUsable(operation: string): void {
    if (this.closed) throw this.ioError(operation, 'EBADF: handle closed');
    if (this.disk.epoch !== this.epoch) {
      throw this.ioError(operation, 'handle lost in a simulated crash');
    }
  }

  private chargeDiskSpace(sizeBytes: number): void {
    const diskFull = this.disk.diskFull;
    if (diskFull === undefined) return;
    if (diskFull.writtenBytes + sizeBytes > diskFull.limitBytes) {
      throw this.ioError('write', 'ENOSPC: no space left on device (injected)');
    }
    diskFull.writtenBytes += sizeBytes;
  }

  private reserve(sizeBytes: number): void {
    if (sizeBytes <= this.file.bytes.length) return;
    const capacityBytes = Math.max(sizeBytes, 2 * this.file.bytes.length, CAPACITY_BYTES_MIN);
    const bytes = new Uint8Array(capacityBytes);
    bytes.set(this.file.bytes.subarray(0, this.file.sizeBytes));
    this.file.bytes = bytes;
  }

  private ioError(operation: string, detail: string): StorageError {
    return new StorageError('IO', `${operation} ${this.path}: ${detail}`);
  }
}
