// A handle on a SimFileSystem file. It holds the file's node, not its path, so like a real file
// descriptor it keeps working after the file is renamed or removed. A crash invalidates it: the
// process that held it is gone.
//
// Allocation is tracked per SIM_BLOCK_SIZE_BYTES block, the way ext4 does it: a write allocates
// every block it touches; a gap left by writing or truncating past the end is a hole; a punch zeros
// its range and frees only the blocks it covers whole (a range going past the end of the file
// covers the last, partial block). Invariant: every byte of an unallocated block reads zero.

import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { assert } from '../../lib/base/assert.ts';
import { StorageError } from '../../lib/base/errors.ts';
import { invariants } from '../../lib/base/invariants.ts';
import type { FileHandle, OpenMode } from '../../lib/io/file-system.ts';

/** The file-system block: what a write allocates, a punch frees and allocatedBytes counts. */
export const SIM_BLOCK_SIZE_BYTES = 4096;

/** One file's contents: `bytes` has spare capacity past `sizeBytes`, always zero. */
export interface SimFile {
  kind: 'file';
  bytes: Uint8Array;
  sizeBytes: number;
  /** 1 for each allocated block, 0 in a hole; spare capacity past the last block, always 0. */
  allocatedBlocks: Uint8Array;
  /** The contents as of the last datasync: what survives a crash. */
  durableBytes: Uint8Array;
  /** allocatedBlocks as of the last datasync (punches are durable only then, like writes). */
  durableAllocatedBlocks: Uint8Array;
}

export function newSimFile(): SimFile {
  return {
    kind: 'file', bytes: new Uint8Array(0), sizeBytes: 0, allocatedBlocks: new Uint8Array(0),
    durableBytes: new Uint8Array(0), durableAllocatedBlocks: new Uint8Array(0),
  };
}

/** Marks the blocks [fromBytes, toBytes) touches as allocated, growing the flags as needed. */
export function simFileAllocate(file: SimFile, { fromBytes, toBytes }: ByteRange): void {
  if (toBytes <= fromBytes) return;
  const toBlock = Math.ceil(toBytes / SIM_BLOCK_SIZE_BYTES);
  if (toBlock > file.allocatedBlocks.length) {
    const blocks = new Uint8Array(Math.max(toBlock, 2 * file.allocatedBlocks.length));
    blocks.set(file.allocatedBlocks);
    file.allocatedBlocks = blocks;
  }
  file.allocatedBlocks.fill(1, Math.floor(fromBytes / SIM_BLOCK_SIZE_BYTES), toBlock);
}

interface ByteRange {
  fromBytes: number;
  toBytes: number;
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
    /** Punches that released space (not those refused as unsupported). */
    punchHoleCount: number;
  };
  datasyncCountByPath: Map<string, number>;
  /** Pending injected EIOs; undefined matches any file. */
  datasyncFaultPaths: Array<string | undefined>;
  diskFull: { limitBytes: number; writtenBytes: number } | undefined;
  /**
   * The space the file system has: a write that would allocate blocks past it writes the whole
   * blocks that fit, then fails with ENOSPC (a short write, then the error, as pwrite does).
   */
  spaceQuotaBytes: number | undefined;
  /** Bytes allocated by every file reachable now (SimFileSystem.usedBytes). */
  usedBytes(): number;
  failingReadPaths: Set<string>;
  /** False: every punchHole answers as a file system without hole punching (EOPNOTSUPP). */
  punchHoleSupported: boolean;
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
    const fitBytes = this.bytesWithinQuota(offsetBytes, bytes.length);
    if (fitBytes < bytes.length) {
      if (fitBytes > 0) this.write(bytes.subarray(0, fitBytes), offsetBytes);
      throw this.ioError('write', 'ENOSPC: no space left on device (quota)');
    }
    this.disk.counters.writeCount += 1;
    this.disk.counters.writtenBytes += bytes.length;
    const endBytes = offsetBytes + bytes.length;
    this.reserve(endBytes);
    this.file.bytes.set(bytes, offsetBytes);
    this.file.sizeBytes = Math.max(this.file.sizeBytes, endBytes);
    simFileAllocate(this.file, { fromBytes: offsetBytes, toBytes: endBytes });
  }

  /** Lands at once, like write: nothing is durable before datasync either way. */
  async writeAsync(bytes: Uint8Array, offsetBytes: number): Promise<void> {
    this.write(bytes, offsetBytes);
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
    const allocatedSnapshot = this.file.allocatedBlocks.slice();
    // Take a turn of the event loop, as a real disk flush does, so commits can pile up behind it.
    await nextMacrotask();
    if (this.disk.epoch !== this.epoch) throw this.ioError('fdatasync', 'crashed during the sync');
    if (faultIndex >= 0) throw this.ioError('fdatasync', 'EIO (injected)');
    this.file.durableBytes = snapshot;
    this.file.durableAllocatedBlocks = allocatedSnapshot;
  }

  truncate(sizeBytes: number): void {
    this.checkUsable('truncate');
    assert(sizeBytes >= 0);
    if (this.mode === 'read') throw this.ioError('truncate', 'EINVAL: opened read-only');
    this.reserve(sizeBytes);
    // Keep the spare capacity zero, so extending the file later reads zeros; the blocks wholly
    // past the new end are freed, and extending leaves a hole.
    if (sizeBytes < this.file.sizeBytes) {
      this.file.bytes.fill(0, sizeBytes, this.file.sizeBytes);
      this.file.allocatedBlocks.fill(0, Math.ceil(sizeBytes / SIM_BLOCK_SIZE_BYTES));
    }
    this.file.sizeBytes = sizeBytes;
  }

  punchHole(offsetBytes: number, lengthBytes: number): boolean {
    this.checkUsable('punch hole');
    assert(Number.isSafeInteger(offsetBytes));
    assert(offsetBytes >= 0);
    assert(Number.isSafeInteger(lengthBytes));
    assert(lengthBytes > 0);
    if (this.mode === 'read') throw this.ioError('punch hole', 'EBADF: opened read-only');
    if (!this.disk.punchHoleSupported) return false;
    this.disk.counters.punchHoleCount += 1;
    const { sizeBytes } = this.file;
    const endBytes = offsetBytes + lengthBytes;
    if (offsetBytes < sizeBytes) {
      this.file.bytes.fill(0, offsetBytes, Math.min(endBytes, sizeBytes));
    }
    // Like ext4 and tmpfs, a punch going past the end of the file (not just up to it) also frees
    // the partial block at the end.
    const freeEndBytes = endBytes > sizeBytes
      ? Math.ceil(sizeBytes / SIM_BLOCK_SIZE_BYTES) * SIM_BLOCK_SIZE_BYTES
      : endBytes;
    const fromBlock = Math.ceil(offsetBytes / SIM_BLOCK_SIZE_BYTES);
    const toBlock = Math.floor(freeEndBytes / SIM_BLOCK_SIZE_BYTES);
    if (fromBlock < toBlock) this.file.allocatedBlocks.fill(0, fromBlock, toBlock);
    if (invariants.enabled) this.assertHolesReadZero({ fromBytes: offsetBytes, toBytes: endBytes });
    return true;
  }

  allocatedBytes(): number {
    this.checkUsable('stat');
    let blockCount = 0;
    for (const allocated of this.file.allocatedBlocks) blockCount += allocated;
    return blockCount * SIM_BLOCK_SIZE_BYTES;
  }

  close(): void {
    this.closed = true;
  }

  /** Checks the blocks `range` touches, not the whole file: a release punches every free slot. */
  private assertHolesReadZero(range: ByteRange): void {
    const { allocatedBlocks, bytes, sizeBytes } = this.file;
    const fromBlock = Math.floor(range.fromBytes / SIM_BLOCK_SIZE_BYTES);
    const toBlock = Math.ceil(Math.min(range.toBytes, sizeBytes) / SIM_BLOCK_SIZE_BYTES);
    for (let block = fromBlock; block < toBlock; block += 1) {
      if (allocatedBlocks[block] === 1) continue;
      const fromBytes = block * SIM_BLOCK_SIZE_BYTES;
      const toBytes = Math.min(fromBytes + SIM_BLOCK_SIZE_BYTES, sizeBytes);
      for (let index = fromBytes; index < toBytes; index += 1) assert(bytes[index] === 0);
    }
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

  /**
   * How many of `lengthBytes` at `offsetBytes` can be written before the space quota runs out:
   * all of them, or up to the first block that would need a new allocation past the quota.
   */
  private bytesWithinQuota(offsetBytes: number, lengthBytes: number): number {
    const quotaBytes = this.disk.spaceQuotaBytes;
    if (quotaBytes === undefined || lengthBytes === 0) return lengthBytes;
    let freeBlockCount = Math.floor((quotaBytes - this.disk.usedBytes()) / SIM_BLOCK_SIZE_BYTES);
    const endBytes = offsetBytes + lengthBytes;
    const fromBlock = Math.floor(offsetBytes / SIM_BLOCK_SIZE_BYTES);
    const toBlock = Math.ceil(endBytes / SIM_BLOCK_SIZE_BYTES);
    for (let block = fromBlock; block < toBlock; block++) {
      if (this.file.allocatedBlocks[block] === 1) continue;
      if (freeBlockCount <= 0) return Math.max(0, block * SIM_BLOCK_SIZE_BYTES - offsetBytes);
      freeBlockCount--;
    }
    return lengthBytes;
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
