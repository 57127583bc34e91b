// The file system the engine sees. Only lib/io/ touches node:fs; everything else takes a FileSystem,
// so tests can swap in the fault-injecting SimFileSystem (test/sim/) that tears writes and forgets
// unsynced data on a simulated crash.
//
// Reads, writes and metadata calls are synchronous: a partition group is single-threaded and owns its
// files, so a short pwrite is cheaper than a round trip through the thread pool. Only datasync is
// asynchronous, because group commit needs the event loop free while the disk flushes, and the
// checkpoint's bulk block writes (writeAsync, on a thread of their own), which would otherwise hold
// the loop while a loaded disk makes the kernel wait.

export interface FileHandle {
  readonly path: string;
  /** Current size in bytes, including data not yet synced. */
  sizeBytes(): number;
  /** Writes all of `bytes` at `offsetBytes` (pwrite). */
  write(bytes: Uint8Array, offsetBytes: number): void;
  /**
   * The same write off the event loop (the write thread, write-thread.ts), so the loop goes on
   * while the kernel takes the bytes (a pwrite can block for tens of ms when the disk is loaded).
   * The bytes are taken at the call: the caller may reuse them at once. For the checkpoint's bulk
   * writes; not durable until datasync.
   */
  writeAsync(bytes: Uint8Array, offsetBytes: number): Promise<void>;
  /** Reads up to `into.length` bytes at `offsetBytes`; returns the count read (0 at end of file). */
  read(into: Uint8Array, offsetBytes: number): number;
  /** Makes every write before this call durable. Only after it resolves may a commit be acknowledged. */
  datasync(): Promise<void>;
  /** Cuts or extends the file to `sizeBytes`. Not durable until datasync. */
  truncate(sizeBytes: number): void;
  /**
   * Releases the disk space of [offsetBytes, offsetBytes + lengthBytes) and keeps the size
   * (fallocate PUNCH_HOLE | KEEP_SIZE): the range reads as zeros and whole file-system blocks in
   * it are freed. Not durable until datasync. Returns false, having changed nothing, where holes
   * cannot be punched (no native addon, or the file system answers EOPNOTSUPP); callers carry on.
   */
  punchHole(offsetBytes: number, lengthBytes: number): boolean;
  /** Bytes the file occupies on disk (st_blocks × 512): less than the size where it has holes. */
  allocatedBytes(): number;
  close(): void;
}

export type OpenMode =
  /** Existing file, read only. */
  | 'read'
  /** Existing file, read and write. */
  | 'readWrite'
  /** Create if missing (never truncates), read and write. */
  | 'create';

export interface FileSystem {
  open(path: string, mode: OpenMode): FileHandle;
  exists(path: string): boolean;
  /** Names (not paths) of the entries of a directory, sorted; [] if it does not exist. */
  list(directory: string): string[];
  /** Creates a directory and its parents; fine if it exists. */
  mkdirp(directory: string): void;
  remove(path: string): void;
  rename(fromPath: string, toPath: string): void;
  /** Makes a directory's entries (files created, renamed, removed in it) durable. */
  syncDirectory(directory: string): Promise<void>;
  /**
   * Bytes an unprivileged writer may still allocate on the file system that holds `path` (statfs
   * f_bavail × f_bsize), which must exist. What a checkpoint checks before it writes anything.
   */
  freeBytes(path: string): number;
  /**
   * Starts what writeAsync needs (the write thread), so that the first checkpoint does not wait
   * for it; optional, and idempotent.
   */
  prepareAsyncWrites?(): void;
}

/**
 * Creates a directory and its missing parents durably: each new directory's entry is synced in its
 * parent, so a power cut right after cannot take away a directory the engine has already used.
 */
export async function makeDirectoryDurable(fileSystem: FileSystem, directory: string): Promise<void> {
  const missing: string[] = [];
  for (let dir = directory; !fileSystem.exists(dir); ) {
    missing.push(dir);
    const parent = parentDirectory(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (missing.length === 0) return;
  fileSystem.mkdirp(directory);
  for (const dir of missing.reverse()) await fileSystem.syncDirectory(parentDirectory(dir));
}

/**
 * Makes a file just created in `directory` durable, its data and its entry, so that what is
 * appended to it after this resolves is in a file recovery will find. On failure the handle is
 * closed and the error thrown.
 */
export async function syncCreatedFile(
  fileSystem: FileSystem, handle: FileHandle, directory: string,
): Promise<void> {
  try {
    await handle.datasync();
    await fileSystem.syncDirectory(directory);
  } catch (error) {
    handle.close();
    throw error;
  }
}

/**
 * Writes `bytes` as the whole of the file at `path` and makes it durable: its data synced, then its
 * entry in its directory. `atomic`: written under a temporary name and renamed over `path`, so a
 * crash leaves the old file or the new one whole, never a part.
 */
export async function writeFileDurable(
  fileSystem: FileSystem, path: string, bytes: Uint8Array, options: { atomic: boolean },
): Promise<void> {
  const writtenPath = options.atomic ? `${path}.tmp` : path;
  const file = fileSystem.open(writtenPath, 'create');
  try {
    file.truncate(0);
    file.write(bytes, 0);
    await file.datasync();
  } finally {
    file.close();
  }
  if (options.atomic) fileSystem.rename(writtenPath, path);
  await fileSystem.syncDirectory(parentDirectory(path));
}

function parentDirectory(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const slash = trimmed.lastIndexOf('/');
  if (slash < 0) return '.';
  return slash === 0 ? '/' : trimmed.slice(0, slash);
}
