// SimFileSystem: an in-memory FileSystem that can crash. It keeps, for every file, the bytes a
// reader sees now and the bytes that would survive a power cut (as of the file's last datasync),
// and for every directory, its entries now and its durable entries (as of its last syncDirectory).
// crash() throws away everything not durable, the way a machine that loses power does: a file
// created or renamed into a directory that was never synced disappears or reverts even if its data
// was synced.
//
// Faults (EIO on datasync, ENOSPC on write, EIO on read, EOPNOTSUPP on punching holes) are
// injected on request, and a space quota makes the disk fill up like a real one (and can be raised
// to give space back), and torn writes keep a seeded random prefix of each file's unsynced changes
// (from the first changed byte on, appended or overwritten).
// The same seed replays the same crash. Punched holes, like writes, survive a crash only once
// synced.
//
// Paths are POSIX; relative paths are taken from '/'. A new directory (mkdirp) is, like a file, an
// entry of its parent: durable once the parent is synced.

import { posix } from 'node:path';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { assert } from '../../lib/base/assert.ts';
import { StorageError } from '../../lib/base/errors.ts';
import type { FileHandle, FileSystem, OpenMode } from '../../lib/io/file-system.ts';
import { Prng } from './prng.ts';
import {
  newSimFile, SIM_BLOCK_SIZE_BYTES, simFileAllocate, SimFileHandle, type SimDisk, type SimFile,
} from './sim-file-handle.ts';

interface SimDirectory {
  kind: 'directory';
  entries: Map<string, SimNode>;
  durableEntries: Map<string, SimNode>;
}

type SimNode = SimFile | SimDirectory;

export interface SimFileSystemOptions {
  /** Seeds the torn-write choices. Print it when a test fails. */
  seed: number;
}

export interface SimCrashOptions {
  /** Keep a random prefix of each file's unsynced appended bytes, as a write cut by power loss. */
  tornWrites?: boolean;
}

export class SimFileSystem implements FileSystem {
  private readonly disk: SimDisk = {
    epoch: 0,
    counters: {
      datasyncCount: 0, syncDirectoryCount: 0, writeCount: 0, writtenBytes: 0, punchHoleCount: 0,
    },
    datasyncCountByPath: new Map(),
    datasyncFaultPaths: [],
    diskFull: undefined,
    spaceQuotaBytes: undefined,
    usedBytes: () => this.usedBytes(),
    failingReadPaths: new Set(),
    punchHoleSupported: true,
  };
  private readonly root: SimDirectory = newDirectory();
  private readonly prng: Prng;

  constructor(readonly options: SimFileSystemOptions) {
    this.prng = new Prng(options.seed);
  }

  /** Calls made since creation; crashes do not reset them. */
  get counters(): Readonly<SimDisk['counters']> {
    return this.disk.counters;
  }

  datasyncCountOf(path: string): number {
    return this.disk.datasyncCountByPath.get(normalize(path)) ?? 0;
  }

  open(path: string, mode: OpenMode): FileHandle {
    const filePath = normalize(path);
    const existing = this.lookup(filePath);
    if (existing?.kind === 'directory') throw ioError('open', filePath, 'EISDIR');
    if (existing !== undefined) return new SimFileHandle(filePath, existing, mode, this.disk);
    if (mode !== 'create') throw ioError('open', filePath, 'ENOENT: no such file');
    const parent = this.parentOf(filePath);
    if (parent === undefined) throw ioError('open', filePath, 'ENOENT: no such directory');
    const file = newSimFile();
    parent.directory.entries.set(parent.name, file);
    return new SimFileHandle(filePath, file, mode, this.disk);
  }

  exists(path: string): boolean {
    return this.lookup(normalize(path)) !== undefined;
  }

  list(directory: string): string[] {
    const node = this.lookup(normalize(directory));
    if (node === undefined) return [];
    if (node.kind === 'file') throw ioError('readdir', directory, 'ENOTDIR');
    return [...node.entries.keys()].sort();
  }

  mkdirp(directory: string): void {
    let current = this.root;
    for (const name of components(normalize(directory))) {
      let next = current.entries.get(name);
      if (next === undefined) {
        next = newDirectory();
        current.entries.set(name, next);
      }
      if (next.kind === 'file') throw ioError('mkdir', directory, 'EEXIST: a file is in the way');
      current = next;
    }
  }

  remove(path: string): void {
    const parent = this.parentOf(normalize(path));
    parent?.directory.entries.delete(parent.name);
  }

  rename(fromPath: string, toPath: string): void {
    const from = this.parentOf(normalize(fromPath));
    const node = from?.directory.entries.get(from.name);
    if (from === undefined || node === undefined) throw ioError('rename', fromPath, 'ENOENT');
    const to = this.parentOf(normalize(toPath));
    if (to === undefined) throw ioError('rename', toPath, 'ENOENT: no such directory');
    if (to.directory.entries.get(to.name)?.kind === 'directory' && node.kind === 'file') {
      throw ioError('rename', toPath, 'EISDIR');
    }
    from.directory.entries.delete(from.name);
    to.directory.entries.set(to.name, node);
  }

  async syncDirectory(directory: string): Promise<void> {
    const directoryPath = normalize(directory);
    const node = this.lookup(directoryPath);
    if (node?.kind !== 'directory') throw ioError('fsync directory', directoryPath, 'ENOENT');
    this.disk.counters.syncDirectoryCount += 1;
    const faultIndex = this.disk.datasyncFaultPaths.indexOf(directoryPath);
    const epoch = this.disk.epoch;
    const entries = new Map(node.entries);
    await nextMacrotask();
    if (this.disk.epoch !== epoch) throw ioError('fsync directory', directoryPath, 'crashed');
    if (faultIndex >= 0) {
      this.disk.datasyncFaultPaths.splice(faultIndex, 1);
      throw ioError('fsync directory', directoryPath, 'EIO (injected)');
    }
    node.durableEntries = entries;
  }

  /**
   * Power cut: every file reverts to its durable bytes, every directory to its durable entries, and
   * every open handle becomes invalid. With tornWrites, a random prefix of each file's unsynced
   * appended bytes survives.
   */
  crash(options: SimCrashOptions = {}): void {
    this.disk.epoch += 1;
    this.crashDirectory(this.root, options.tornWrites ?? false, new Set());
  }

  /**
   * The next datasync of `path` fails with EIO: of any file if omitted, of a directory's
   * syncDirectory if it names one.
   */
  failNextDatasync(path?: string): void {
    this.disk.datasyncFaultPaths.push(path === undefined ? undefined : normalize(path));
  }

  /** Writes fail with ENOSPC once `limitBytes` more bytes have been written; undefined lifts it. */
  setDiskFullAfterBytes(limitBytes: number | undefined): void {
    if (limitBytes !== undefined) assert(limitBytes >= 0);
    this.disk.diskFull = limitBytes === undefined ? undefined : { limitBytes, writtenBytes: 0 };
  }

  /**
   * The file system holds `quotaBytes` (allocated blocks of every file, SIM_BLOCK_SIZE_BYTES each):
   * a write that needs more fails with ENOSPC after writing the whole blocks that fit. Raise it to
   * give space back; undefined lifts it. clearFaults() does not reset it: it is the disk's size.
   */
  setSpaceQuota(quotaBytes: number | undefined): void {
    if (quotaBytes !== undefined) assert(quotaBytes >= 0);
    this.disk.spaceQuotaBytes = quotaBytes;
  }

  /** Bytes allocated by the files reachable now (removed files free their space at once). */
  usedBytes(): number {
    let usedBytes = 0;
    const visit = (directory: SimDirectory, visited: Set<SimNode>) => {
      for (const node of directory.entries.values()) {
        if (visited.has(node)) continue;
        visited.add(node);
        if (node.kind === 'directory') visit(node, visited);
        else for (const allocated of node.allocatedBlocks) usedBytes += allocated;
      }
    };
    visit(this.root, new Set());
    return usedBytes * SIM_BLOCK_SIZE_BYTES;
  }

  /** What the quota leaves; Number.MAX_SAFE_INTEGER without one. */
  freeBytes(_path: string): number {
    const quotaBytes = this.disk.spaceQuotaBytes;
    if (quotaBytes === undefined) return Number.MAX_SAFE_INTEGER;
    return Math.max(0, quotaBytes - this.usedBytes());
  }

  /** Every read of `path` fails with EIO until clearFaults(). */
  failReads(path: string): void {
    this.disk.failingReadPaths.add(normalize(path));
  }

  /**
   * False makes every punchHole answer like a file system without hole punching (EOPNOTSUPP):
   * it returns false and changes nothing. clearFaults() does not reset it.
   */
  setPunchHoleSupported(supported: boolean): void {
    this.disk.punchHoleSupported = supported;
  }

  clearFaults(): void {
    this.disk.datasyncFaultPaths.length = 0;
    this.disk.diskFull = undefined;
    this.disk.failingReadPaths.clear();
  }

  /** A copy of what a reader sees now; undefined if there is no such file. */
  fileBytes(path: string): Uint8Array | undefined {
    const node = this.lookup(normalize(path));
    return node?.kind === 'file' ? node.bytes.slice(0, node.sizeBytes) : undefined;
  }

  /** A copy of what survives a crash, ignoring whether the directory entry does. */
  durableFileBytes(path: string): Uint8Array | undefined {
    const node = this.lookup(normalize(path));
    return node?.kind === 'file' ? node.durableBytes.slice() : undefined;
  }

  private crashDirectory(
    directory: SimDirectory,
    tornWrites: boolean,
    visited: Set<SimNode>,
  ): void {
    directory.entries = new Map(directory.durableEntries);
    // Sorted, so the PRNG draws in the same order whatever order the entries were made in.
    for (const name of [...directory.entries.keys()].sort()) {
      const node = directory.entries.get(name);
      assert(node !== undefined);
      if (visited.has(node)) continue; // renamed, and both directories synced
      visited.add(node);
      if (node.kind === 'directory') this.crashDirectory(node, tornWrites, visited);
      else this.crashFile(node, tornWrites);
    }
  }

  private crashFile(file: SimFile, tornWrites: boolean): void {
    const durableSizeBytes = file.durableBytes.length;
    // Torn: the unsynced changes from the first changed byte on reached the disk up to a random
    // point, as a sequential write cut by the power (appends and overwrites of zero-filled or old
    // bytes alike).
    let firstChangedBytes = durableSizeBytes;
    let keptEndBytes = durableSizeBytes;
    if (tornWrites) {
      const changed = changedRange(file, durableSizeBytes);
      firstChangedBytes = keptEndBytes = changed.fromBytes;
      if (changed.toBytes > changed.fromBytes) {
        keptEndBytes += this.prng.nextIndex(changed.toBytes - changed.fromBytes + 1);
      }
    }
    const keptSizeBytes = Math.max(durableSizeBytes, keptEndBytes);
    const bytes = new Uint8Array(keptSizeBytes);
    bytes.set(file.durableBytes);
    if (keptEndBytes > firstChangedBytes) {
      bytes.set(file.bytes.subarray(firstChangedBytes, keptEndBytes), firstChangedBytes);
    }
    file.bytes = bytes;
    file.sizeBytes = keptSizeBytes;
    // Unsynced punches are lost with unsynced writes; a torn tail was written, so it is allocated.
    file.allocatedBlocks = file.durableAllocatedBlocks.slice();
    simFileAllocate(file, { fromBytes: durableSizeBytes, toBytes: keptSizeBytes });
  }

  private lookup(path: string): SimNode | undefined {
    let node: SimNode = this.root;
    for (const name of components(path)) {
      if (node.kind !== 'directory') return undefined;
      const next: SimNode | undefined = node.entries.get(name);
      if (next === undefined) return undefined;
      node = next;
    }
    return node;
  }

  private parentOf(path: string): { directory: SimDirectory; name: string } | undefined {
    const parent = this.lookup(posix.dirname(path));
    const name = posix.basename(path);
    if (parent?.kind !== 'directory' || name === '') return undefined;
    return { directory: parent, name };
  }
}

/**
 * Where the file differs from its durable bytes: from the first changed byte to the end of the
 * last (bytes past the durable size all count as changed); an empty range at its size if none.
 */
function changedRange(file: SimFile, durableSizeBytes: number): { fromBytes: number; toBytes: number } {
  const overlapBytes = Math.min(durableSizeBytes, file.sizeBytes);
  let fromBytes = overlapBytes;
  for (let i = 0; i < overlapBytes; i++) {
    if (file.bytes[i] !== file.durableBytes[i]) {
      fromBytes = i;
      break;
    }
  }
  if (file.sizeBytes > durableSizeBytes) return { fromBytes, toBytes: file.sizeBytes };
  let toBytes = fromBytes;
  for (let i = overlapBytes - 1; i > fromBytes; i--) {
    if (file.bytes[i] !== file.durableBytes[i]) {
      toBytes = i + 1;
      break;
    }
  }
  if (fromBytes < overlapBytes && toBytes === fromBytes) toBytes = fromBytes + 1;
  return { fromBytes, toBytes };
}

function newDirectory(): SimDirectory {
  return { kind: 'directory', entries: new Map(), durableEntries: new Map() };
}

function normalize(path: string): string {
  return posix.resolve('/', path);
}

function components(path: string): string[] {
  return path.split('/').filter((name) => name.length > 0);
}

function ioError(operation: string, path: string, detail: string): StorageError {
  return new StorageError('IO', `${operation} ${path}: ${detail}`);
}
