// The FileSystem contract: what every implementation must do alike, so that a test passing on the
// SimFileSystem means something for the NodeFileSystem. Run it with fileSystemContract(name, make).
// Durability is not observable here (it needs a crash); the SimFileSystem's own tests cover it.

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import type { FileSystem } from '../../../lib/io/file-system.ts';

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
  });
}
