// The real file system, through node:fs. Errors become StorageError('IO') with the cause attached.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { StorageError } from '../base/errors.ts';
import type { FileHandle, FileSystem, OpenMode } from './file-system.ts';

const fdatasyncAsync = promisify(fs.fdatasync);
const fsyncAsync = promisify(fs.fsync);

function ioError(operation: string, filePath: string, cause: unknown): StorageError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new StorageError('IO', `${operation} ${filePath}: ${detail}`, { cause });
}

class NodeFileHandle implements FileHandle {
  private closed = false;

  constructor(
    readonly path: string,
    private readonly fd: number,
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

export class NodeFileSystem implements FileSystem {
  open(filePath: string, mode: OpenMode): FileHandle {
    try {
      // 'a+' would force appends on Linux even with a position; open O_CREAT without O_APPEND instead.
      const flags = mode === 'create'
        ? fs.constants.O_RDWR | fs.constants.O_CREAT
        : OPEN_FLAGS[mode];
      return new NodeFileHandle(filePath, fs.openSync(filePath, flags, 0o644));
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
