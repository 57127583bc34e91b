// The real file system, through node:fs. Errors become StorageError('IO') with the cause attached.
// Punching holes goes through punch-hole.ts (a native addon); a NodeFileSystem can be given another
// HolePuncher, which is how tests run the fallback without the addon.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import type { FileHandle, FileSystem, OpenMode } from './file-system.ts';
import { holePuncher as holePuncherDefault, type HolePuncher } from './punch-hole.ts';
import { writeThread } from './write-thread.ts';

const fdatasyncAsync = promisify(fs.fdatasync);
const fsyncAsync = promisify(fs.fsync);

function ioError(operation: string, filePath: string, cause: unknown): StorageError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new StorageError('IO', `${operation} ${filePath}: ${detail}`, { cause });
}

class NodeFileHandle implements FileHandle {
  private closed = false;
  /** Set once the file system answers EOPNOTSUPP, so later punches cost no system call. */
  private punchHoleRefused = false;

  constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly readOnly: boolean,
    private readonly holePuncher: HolePuncher,
  ) {}

  sizeBytes(): number {
    try {
      return fs.fstatSync(this.fd).size;
    } catch (cause) {
      throw ioError('stat', this.path, cause);
    }
  }

  write(bytes: Uint8Array, offsetBytes: number): void {
    try {
      let writtenBytes = 0;
      while (writtenBytes < bytes.length) {
        writtenBytes += fs.writeSync(this.fd, bytes, writtenBytes, bytes.length - writtenBytes,
          offsetBytes + writtenBytes);
      }
    } catch (cause) {
      throw ioError('write', this.path, cause);
    }
  }

  /** Through the write thread (write-thread.ts): the bytes are copied at the call. */
  async writeAsync(bytes: Uint8Array, offsetBytes: number): Promise<void> {
    // Checked here: the thread writes by descriptor, which a closed handle's may now be another's.
    if (this.closed) throw ioError('write', this.path, 'EBADF: handle closed');
    if (this.readOnly) throw ioError('write', this.path, 'EBADF: opened read-only');
    try {
      await writeThread().write(this.fd, bytes, offsetBytes);
    } catch (cause) {
      if (cause instanceof StorageError) throw cause;
      throw ioError('write', this.path, cause);
    }
  }

  read(into: Uint8Array, offsetBytes: number): number {
    try {
      let readBytes = 0;
      while (readBytes < into.length) {
        const n = fs.readSync(this.fd, into, readBytes, into.length - readBytes, offsetBytes + readBytes);
        if (n === 0) break;
        readBytes += n;
      }
      return readBytes;
    } catch (cause) {
      throw ioError('read', this.path, cause);
    }
  }

  async datasync(): Promise<void> {
    try {
      await fdatasyncAsync(this.fd);
    } catch (cause) {
      throw ioError('fdatasync', this.path, cause);
    }
  }

  truncate(sizeBytes: number): void {
    try {
      fs.ftruncateSync(this.fd, sizeBytes);
    } catch (cause) {
      throw ioError('truncate', this.path, cause);
    }
  }

  punchHole(offsetBytes: number, lengthBytes: number): boolean {
    // Checked here, not left to the kernel, so that the fallback without the addon fails alike.
    if (this.closed) throw ioError('punch hole', this.path, 'EBADF: handle closed');
    if (this.readOnly) throw ioError('punch hole', this.path, 'EBADF: opened read-only');
    assert(offsetBytes >= 0);
    assert(lengthBytes > 0);
    if (this.punchHoleRefused) return false;
    const range = { path: this.path, offsetBytes, lengthBytes };
    const punched = this.holePuncher.punchHole(this.fd, range);
    if (!punched) this.punchHoleRefused = true;
    return punched;
  }

  allocatedBytes(): number {
    if (this.closed) throw ioError('stat', this.path, 'EBADF: handle closed');
    return this.holePuncher.allocatedBytes(this.fd, this.path);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      fs.closeSync(this.fd);
    } catch (cause) {
      throw ioError('close', this.path, cause);
    }
  }
}

const OPEN_FLAGS: Record<OpenMode, string> = { read: 'r', readWrite: 'r+', create: 'a+' };

export interface NodeFileSystemOptions {
  /** Defaults to the native addon if it is built, else the fallback that punches nothing. */
  holePuncher?: HolePuncher;
}

export class NodeFileSystem implements FileSystem {
  private readonly holePuncher: HolePuncher;

  constructor(options: NodeFileSystemOptions = {}) {
    this.holePuncher = options.holePuncher ?? holePuncherDefault;
  }

  prepareAsyncWrites(): void {
    writeThread().start();
  }

  open(filePath: string, mode: OpenMode): FileHandle {
    try {
      // 'a+' would force appends on Linux even with a position; open O_CREAT without O_APPEND instead.
      const flags = mode === 'create'
        ? fs.constants.O_RDWR | fs.constants.O_CREAT
        : OPEN_FLAGS[mode];
      const fd = fs.openSync(filePath, flags, 0o644);
      return new NodeFileHandle(filePath, fd, mode === 'read', this.holePuncher);
    } catch (cause) {
      throw ioError('open', filePath, cause);
    }
  }

  exists(filePath: string): boolean {
    return fs.existsSync(filePath);
  }

  list(directory: string): string[] {
    try {
      return fs.readdirSync(directory).sort();
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw ioError('readdir', directory, cause);
    }
  }

  mkdirp(directory: string): void {
    try {
      fs.mkdirSync(directory, { recursive: true });
    } catch (cause) {
      throw ioError('mkdir', directory, cause);
    }
  }

  remove(filePath: string): void {
    try {
      fs.rmSync(filePath, { force: true, recursive: true });
    } catch (cause) {
      throw ioError('remove', filePath, cause);
    }
  }

  rename(fromPath: string, toPath: string): void {
    try {
      fs.renameSync(fromPath, toPath);
    } catch (cause) {
      throw ioError('rename', fromPath, cause);
    }
  }

  freeBytes(filePath: string): number {
    try {
      const stats = fs.statfsSync(filePath);
      return stats.bavail * stats.bsize;
    } catch (cause) {
      throw ioError('statfs', filePath, cause);
    }
  }

  async syncDirectory(directory: string): Promise<void> {
    let fd: number | undefined;
    try {
      fd = fs.openSync(path.resolve(directory), 'r');
      await fsyncAsync(fd);
    } catch (cause) {
      throw ioError('fsync directory', directory, cause);
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }
}
