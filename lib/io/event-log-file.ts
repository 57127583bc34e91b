// The event log's files: `<directory>/store-YYYYMMDD-<n>.log` (GridDB writes
// `gridstore-YYYYMMDD-<n>.log`), one record a line. Each open begins a new file, numbered one past
// the day's last; a file is closed and the next begun when the next record would take it past
// `fileSizeBytesMax`, or when the date (UTC) changes. Only the newest `fileCount` of these files
// are kept; other files in the directory (command logs, gsstartup.log) are never touched.
//
// Records are written synchronously through the FileSystem: the event log is low-volume and a
// record written before a crash should be in the file. A write that fails (disk full) drops the
// record and is counted; the next record tries a new file. The event log never stops the node.

import { join } from 'node:path';
import { assert } from '../base/assert.ts';
import { isStorageError } from '../base/errors.ts';
import type { Clock } from './clock.ts';
import type { FileHandle, FileSystem } from './file-system.ts';

export interface EventLogFileOptions {
  fileSystem: FileSystem;
  clock: Clock;
  directory: string;
  /** Files kept, the current one included. */
  fileCount: number;
  fileSizeBytesMax: number;
  /** File names begin with this; `store` gives `store-20250101-1.log`. */
  baseName?: string;
}

interface LogFileName {
  name: string;
  date: string;
  sequence: number;
}

const encoder = new TextEncoder();

export class EventLogFile {
  private handle: FileHandle | undefined;
  private date: string;
  private sequence: number;
  private sizeBytes = 0;
  private readonly baseName: string;
  /** Records lost to write errors since open. */
  droppedRecordCount = 0;

  constructor(private readonly options: EventLogFileOptions) {
    assert(options.fileCount >= 1);
    assert(options.fileSizeBytesMax > 0);
    this.baseName = options.baseName ?? 'store';
    assert(/^[A-Za-z0-9_]+$/.test(this.baseName));
    options.fileSystem.mkdirp(options.directory);
    this.date = utcDate(options.clock.nowMs());
    this.sequence = this.lastSequenceOf(this.date);
  }

  /** The file now being written, once a record has been. */
  get currentPath(): string | undefined {
    return this.handle?.path;
  }

  /** Appends one record (pino's destination interface). */
  write(line: string): void {
    const bytes = encoder.encode(line);
    try {
      const date = utcDate(this.options.clock.nowMs());
      const full = this.sizeBytes > 0 &&
        this.sizeBytes + bytes.length > this.options.fileSizeBytesMax;
      let handle = this.handle;
      if (handle === undefined || full || date !== this.date) handle = this.begin(date);
      handle.write(bytes, this.sizeBytes);
      this.sizeBytes += bytes.length;
    } catch (error) {
      if (!isStorageError(error, 'IO')) throw error;
      this.droppedRecordCount += 1;
      this.closeHandle();
    }
  }

  close(): void {
    this.closeHandle();
  }

  /**
   * The whole lines in the last `bytesMax` bytes of the file now being written, oldest first (a
   * line cut by the start of that range is left out); none before the first record, or after a
   * write error closed the file.
   */
  tailLines(bytesMax: number): string[] {
    assert(bytesMax > 0);
    const handle = this.handle;
    if (handle === undefined) return [];
    const startBytes = Math.max(0, this.sizeBytes - bytesMax);
    const bytes = new Uint8Array(this.sizeBytes - startBytes);
    let readBytes = 0;
    try {
      while (readBytes < bytes.length) {
        const count = handle.read(bytes.subarray(readBytes), startBytes + readBytes);
        if (count === 0) break;
        readBytes += count;
      }
    } catch (error) {
      if (!isStorageError(error, 'IO')) throw error;
      return [];
    }
    const lines = new TextDecoder().decode(bytes.subarray(0, readBytes)).split('\n');
    if (startBytes > 0) lines.shift();
    return lines.filter((line) => line !== '');
  }

  /** This log's files in the directory, oldest first. */
  existingFiles(): LogFileName[] {
    const pattern = new RegExp(`^${this.baseName}-(\\d{8})-(\\d+)\\.log$`);
    return this.options.fileSystem.list(this.options.directory).flatMap((name) => {
      const match = pattern.exec(name);
      return match ? [{ name, date: match[1]!, sequence: Number(match[2]) }] : [];
    }).sort((a, b) => a.date.localeCompare(b.date) || a.sequence - b.sequence);
  }

  private begin(date: string): FileHandle {
    this.closeHandle();
    if (date !== this.date) {
      this.date = date;
      this.sequence = this.lastSequenceOf(date);
    }
    this.sequence += 1;
    const path = join(this.options.directory, `${this.baseName}-${date}-${this.sequence}.log`);
    const handle = this.options.fileSystem.open(path, 'create');
    this.handle = handle;
    this.sizeBytes = handle.sizeBytes();
    this.removeOldFiles();
    return handle;
  }

  private lastSequenceOf(date: string): number {
    const sameDay = this.existingFiles().filter((file) => file.date === date);
    return Math.max(0, ...sameDay.map((file) => file.sequence));
  }

  private removeOldFiles(): void {
    const files = this.existingFiles();
    const excess = files.length - this.options.fileCount;
    for (const file of files.slice(0, Math.max(0, excess))) {
      this.options.fileSystem.remove(join(this.options.directory, file.name));
    }
  }

  private closeHandle(): void {
    const handle = this.handle;
    this.handle = undefined;
    this.sizeBytes = 0;
    if (handle === undefined) return;
    try {
      handle.close();
    } catch (error) {
      if (!isStorageError(error, 'IO')) throw error;
    }
  }
}

function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
}
