// The FileSystem contract: what every implementation must do alike, so that a test passing on the
// SimFileSystem means something for the NodeFileSystem. Run it with fileSystemContract(name, make).
// Durability is not observable here (it needs a crash); the SimFileSystem's own tests cover it.
//
// Punching holes may be unsupported (a NodeFileSystem without its addon, or on a file system that
// answers EOPNOTSUPP): then punchHole returns false and the contract is that nothing changed.
// Allocation is checked within FS_BLOCK_SIZE_BYTES_MAX, since file systems allocate in blocks.

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { AssertionError } from '../../../lib/base/assert.ts';
import { isStorageError } from '../../../lib/base/errors.ts';
import type { FileHandle, FileSystem } from '../../../lib/io/file-system.ts';

const KiB = 1024;
const FS_BLOCK_SIZE_BYTES_MAX = 64 * KiB;

export interface ContractSubject {
  fileSystem: FileSystem;
  /** An empty directory the tests may fill. */
  root: string;
  cleanup(): void;
}

function isIoError(error: unknown): boolean {
  return isStorageError(error, 'IO');
}

function read(fileSystem: FileSystem, path: string): number[] {
  const handle = fileSystem.open(path, 'read');
  try {
    const into = new Uint8Array(handle.sizeBytes());
    assert.equal(handle.read(into, 0), into.length);
    return [...into];
  } finally {
    handle.close();
  }
}

function readAll(handle: FileHandle): Uint8Array {
  const into = new Uint8Array(handle.sizeBytes());
  assert.equal(handle.read(into, 0), into.length);
  return into;
}

/** The indexes in [fromIndex, toIndex) where `bytes` differs from `value`. */
function differing(bytes: Uint8Array, value: number, { fromIndex = 0, toIndex = bytes.length }) {
  const indexes: number[] = [];
  for (let index = fromIndex; index < toIndex; index += 1) {
    if (bytes[index] !== value) indexes.push(index);
  }
  return indexes;
}

/** The punchHole and allocatedBytes cases; called inside fileSystemContract's describe. */
function punchHoleContract(setUp: () => ContractSubject): void {
  it('punches a hole: the size stays, the range reads zero, its blocks are released', async () => {
    const { fileSystem, root } = setUp();
    const sizeBytes = 1024 * KiB;
    const handle = fileSystem.open(`${root}/sparse`, 'create');
    handle.write(new Uint8Array(sizeBytes).fill(0xab), 0);
    await handle.datasync();
    const allocatedBytesBefore = handle.allocatedBytes();
    assert.ok(allocatedBytesBefore >= sizeBytes, `${allocatedBytesBefore} allocated`);
    const hole = { fromIndex: 256 * KiB, toIndex: 768 * KiB };
    const punched = handle.punchHole(hole.fromIndex, hole.toIndex - hole.fromIndex);
    assert.equal(handle.sizeBytes(), sizeBytes);
    const bytes = readAll(handle);
    if (!punched) {
      assert.deepEqual(differing(bytes, 0xab, {}), []);
    } else {
      assert.deepEqual(differing(bytes, 0, hole), []);
      assert.deepEqual(differing(bytes, 0xab, { toIndex: hole.fromIndex }), []);
      assert.deepEqual(differing(bytes, 0xab, { fromIndex: hole.toIndex }), []);
      const releasedBytes = allocatedBytesBefore - handle.allocatedBytes();
      assert.ok(Math.abs(releasedBytes - 512 * KiB) <= FS_BLOCK_SIZE_BYTES_MAX, `${releasedBytes}`);
    }
    handle.write(new Uint8Array(4 * KiB).fill(7), 512 * KiB); // writing into a hole fills it
    const into = new Uint8Array(4 * KiB);
    assert.equal(handle.read(into, 512 * KiB), into.length);
    assert.deepEqual(differing(into, 7, {}), []);
    handle.close();
  });

  it('punches unaligned ranges and ranges past the end, zeroing only within the file', () => {
    const { fileSystem, root } = setUp();
    const handle = fileSystem.open(`${root}/unaligned`, 'create');
    handle.write(new Uint8Array(12 * KiB).fill(0xcd), 0);
    const allocatedBytesBefore = handle.allocatedBytes();
    const punched = handle.punchHole(100, 8 * KiB);
    const pastEnd = handle.punchHole(10_000, 1024 * KiB);
    assert.equal(punched, pastEnd);
    assert.equal(handle.sizeBytes(), 12 * KiB);
    const bytes = readAll(handle);
    if (!punched) {
      assert.deepEqual(differing(bytes, 0xcd, {}), []);
    } else {
      assert.deepEqual(differing(bytes, 0xcd, { toIndex: 100 }), []);
      assert.deepEqual(differing(bytes, 0, { fromIndex: 100, toIndex: 100 + 8 * KiB }), []);
      assert.deepEqual(differing(bytes, 0xcd, { fromIndex: 100 + 8 * KiB, toIndex: 10_000 }), []);
      assert.deepEqual(differing(bytes, 0, { fromIndex: 10_000 }), []);
    }
    assert.ok(handle.allocatedBytes() <= allocatedBytesBefore);
    // Blocks partly outside the holes keep their data, so stay allocated.
    assert.ok(handle.allocatedBytes() >= 4 * KiB);
    handle.close();
  });

  it('counts a gap written past the end or made by extending as unallocated', () => {
    const { fileSystem, root } = setUp();
    const handle = fileSystem.open(`${root}/gap`, 'create');
    assert.equal(handle.allocatedBytes(), 0);
    handle.write(Uint8Array.of(1), 1024 * KiB);
    assert.equal(handle.sizeBytes(), 1024 * KiB + 1);
    assert.ok(handle.allocatedBytes() <= FS_BLOCK_SIZE_BYTES_MAX, `${handle.allocatedBytes()}`);
    assert.ok(handle.allocatedBytes() > 0);
    handle.truncate(4096 * KiB);
    assert.ok(handle.allocatedBytes() <= FS_BLOCK_SIZE_BYTES_MAX, `${handle.allocatedBytes()}`);
    handle.close();
  });

  it('refuses to punch read-only or closed handles, and asserts on empty ranges', () => {
    const { fileSystem, root } = setUp();
    const path = `${root}/refuse`;
    const writer = fileSystem.open(path, 'create');
    writer.write(new Uint8Array(8 * KiB).fill(1), 0);
    assert.throws(() => writer.punchHole(0, 0), AssertionError);
    assert.throws(() => writer.punchHole(-1, 4 * KiB), AssertionError);
    writer.close();
    assert.throws(() => writer.punchHole(0, 4 * KiB), isIoError);
    assert.throws(() => writer.allocatedBytes(), isIoError);
    const reader = fileSystem.open(path, 'read');
    assert.throws(() => reader.punchHole(0, 4 * KiB), isIoError);
    assert.ok(reader.allocatedBytes() >= 8 * KiB); // reading the allocation needs no write access
    assert.deepEqual(differing(readAll(reader), 1, {}), []);
    reader.close();
  });
}

export function fileSystemContract(name: string, make: () => ContractSubject): void {
  describe(`FileSystem contract: ${name}`, () => {
    let subject: ContractSubject | undefined;
    const setUp = () => (subject = make());
    afterEach(() => subject?.cleanup());

    it('creates, writes at offsets, reads back and reports sizes', async () => {
      const { fileSystem, root } = setUp();
      const path = `${root}/a.bin`;
      assert.equal(fileSystem.exists(path), false);
      const handle = fileSystem.open(path, 'create');
      assert.equal(handle.path, path);
      assert.equal(handle.sizeBytes(), 0);
      handle.write(Uint8Array.of(1, 2, 3, 4), 0);
      handle.write(Uint8Array.of(9, 9), 2);
      handle.write(Uint8Array.of(7), 6); // past the end: a zero-filled gap
      assert.equal(handle.sizeBytes(), 7);
      await handle.datasync();
      handle.close();
      assert.equal(fileSystem.exists(path), true);
      assert.deepEqual(read(fileSystem, path), [1, 2, 9, 9, 0, 0, 7]);
    });

    it('writeAsync writes as write does, and fails with IO on a read-only handle', async () => {
      const { fileSystem, root } = setUp();
      const path = `${root}/w.bin`;
      const handle = fileSystem.open(path, 'create');
      await handle.writeAsync(Uint8Array.of(1, 2, 3, 4), 0);
      await handle.writeAsync(Uint8Array.of(9, 9), 2);
      await handle.writeAsync(Uint8Array.of(7), 6); // past the end: a zero-filled gap
      assert.equal(handle.sizeBytes(), 7);
      await handle.datasync();
      handle.close();
      assert.deepEqual(read(fileSystem, path), [1, 2, 9, 9, 0, 0, 7]);
      const readOnly = fileSystem.open(path, 'read');
      await assert.rejects(readOnly.writeAsync(Uint8Array.of(1), 0), isIoError);
      readOnly.close();
    });

    it('reads short at the end of the file and 0 past it', () => {
      const { fileSystem, root } = setUp();
      const handle = fileSystem.open(`${root}/b`, 'create');
      handle.write(Uint8Array.of(1, 2, 3), 0);
      const into = new Uint8Array(8);
      assert.equal(handle.read(into, 1), 2);
      assert.deepEqual([...into.subarray(0, 2)], [2, 3]);
      assert.equal(handle.read(into, 3), 0);
      assert.equal(handle.read(into, 100), 0);
      handle.close();
    });

    it('never truncates on create, and truncate cuts or zero-extends', () => {
      const { fileSystem, root } = setUp();
      const path = `${root}/c`;
      const first = fileSystem.open(path, 'create');
      first.write(Uint8Array.of(1, 2, 3, 4, 5), 0);
      first.close();
      const second = fileSystem.open(path, 'create');
      assert.equal(second.sizeBytes(), 5);
      second.truncate(2);
      second.truncate(4);
      second.close();
      assert.deepEqual(read(fileSystem, path), [1, 2, 0, 0]);
    });

    it('shares one file between handles and keeps a removed file open', () => {
      const { fileSystem, root } = setUp();
      const path = `${root}/d`;
      const writer = fileSystem.open(path, 'create');
      const reader = fileSystem.open(path, 'readWrite');
      writer.write(Uint8Array.of(5, 6), 0);
      const into = new Uint8Array(2);
      assert.equal(reader.read(into, 0), 2);
      assert.deepEqual([...into], [5, 6]);
      fileSystem.remove(path);
      assert.equal(fileSystem.exists(path), false);
      writer.write(Uint8Array.of(7), 2);
      assert.equal(reader.sizeBytes(), 3);
      writer.close();
      reader.close();
    });

    it('fails with IO on missing files, read-only writes and closed handles', () => {
      const { fileSystem, root } = setUp();
      assert.throws(() => fileSystem.open(`${root}/missing`, 'read'), isIoError);
      assert.throws(() => fileSystem.open(`${root}/missing`, 'readWrite'), isIoError);
      assert.throws(() => fileSystem.open(`${root}/no/such/dir/file`, 'create'), isIoError);
      fileSystem.open(`${root}/e`, 'create').close();
      const readOnly = fileSystem.open(`${root}/e`, 'read');
      assert.throws(() => readOnly.write(Uint8Array.of(1), 0), isIoError);
      readOnly.close();
      readOnly.close(); // closing twice is fine
      assert.throws(() => readOnly.sizeBytes(), isIoError);
      assert.throws(() => fileSystem.rename(`${root}/missing`, `${root}/f`), isIoError);
    });

    it('makes directories, lists names sorted, renames and removes', async () => {
      const { fileSystem, root } = setUp();
      fileSystem.mkdirp(`${root}/x/y`);
      fileSystem.mkdirp(`${root}/x/y`);
      assert.deepEqual(fileSystem.list(`${root}/nowhere`), []);
      for (const name of ['b', 'a', 'c10', 'c9']) {
        fileSystem.open(`${root}/x/${name}`, 'create').close();
      }
      assert.deepEqual(fileSystem.list(`${root}/x`), ['a', 'b', 'c10', 'c9', 'y']);
      const handle = fileSystem.open(`${root}/x/a`, 'readWrite');
      handle.write(Uint8Array.of(1), 0);
      handle.close();
      fileSystem.open(`${root}/x/y/z`, 'create').close();
      fileSystem.rename(`${root}/x/a`, `${root}/x/y/z`); // replaces z
      assert.deepEqual(read(fileSystem, `${root}/x/y/z`), [1]);
      assert.equal(fileSystem.exists(`${root}/x/a`), false);
      await fileSystem.syncDirectory(`${root}/x`);
      await assert.rejects(fileSystem.syncDirectory(`${root}/nowhere`), isIoError);
      fileSystem.remove(`${root}/x`);
      fileSystem.remove(`${root}/x`); // removing what is gone is fine
      assert.equal(fileSystem.exists(`${root}/x/y/z`), false);
      assert.deepEqual(fileSystem.list(root), []);
    });

    it('fails mkdirp through a file', () => {
      const { fileSystem, root } = setUp();
      fileSystem.open(`${root}/plain`, 'create').close();
      assert.throws(() => fileSystem.mkdirp(`${root}/plain/sub`), isIoError);
    });

    punchHoleContract(setUp);
  });
}
