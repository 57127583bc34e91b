import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import { Prng } from '../../sim/prng.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

const isIoError = (error: unknown) => isStorageError(error, 'IO');

/** A file `/d/name` whose data and directory entry are both durable. */
async function durableFile(fileSystem: SimFileSystem, name: string, bytes: number[]) {
  fileSystem.mkdirp('/d');
  await fileSystem.syncDirectory('/');
  const handle = fileSystem.open(`/d/${name}`, 'create');
  handle.write(Uint8Array.from(bytes), 0);
  await handle.datasync();
  await fileSystem.syncDirectory('/d');
  return handle;
}

describe('SimFileSystem', () => {
  it('loses unsynced data at a crash and keeps synced data', async () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    const handle = await durableFile(fileSystem, 'f', [1, 2, 3]);
    handle.write(Uint8Array.of(4, 5), 3);
    handle.write(Uint8Array.of(9), 0); // an unsynced overwrite reverts too
    assert.deepEqual([...fileSystem.fileBytes('/d/f')!], [9, 2, 3, 4, 5]);
    fileSystem.crash();
    assert.deepEqual([...fileSystem.fileBytes('/d/f')!], [1, 2, 3]);
  });

  it('makes durable what was written before datasync was called, not after', async () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    const handle = await durableFile(fileSystem, 'f', [1]);
    handle.write(Uint8Array.of(2), 1);
    const sync = handle.datasync();
    handle.write(Uint8Array.of(3), 2);
    await sync;
    assert.deepEqual([...fileSystem.durableFileBytes('/d/f')!], [1, 2]);
  });

  it('keeps a random prefix of the unsynced tail with torn writes, replayed by seed', async () => {
    const keptSizesBytes = new Set<number>();
    for (let seed = 1; seed <= 20; seed++) {
      const sizes = [];
      for (let run = 0; run < 2; run++) {
        const fileSystem = new SimFileSystem({ seed });
        const handle = await durableFile(fileSystem, 'f', [1, 2]);
        handle.write(Uint8Array.of(3, 4, 5, 6, 7, 8), 2);
        fileSystem.crash({ tornWrites: true });
        const bytes = [...fileSystem.fileBytes('/d/f')!];
        assert.deepEqual(bytes, [1, 2, 3, 4, 5, 6, 7, 8].slice(0, bytes.length), 'a prefix');
        assert.ok(bytes.length >= 2);
        sizes.push(bytes.length);
      }
      assert.equal(sizes[0], sizes[1], `seed ${seed} replays`);
      keptSizesBytes.add(sizes[0]!);
    }
    assert.ok(keptSizesBytes.size >= 4, `kept sizes ${[...keptSizesBytes]}`);
  });

  it('loses a new file whose directory was never synced, even with its data synced', async () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    await durableFile(fileSystem, 'old', [1]);
    const handle = fileSystem.open('/d/new', 'create');
    handle.write(Uint8Array.of(1), 0);
    await handle.datasync();
    fileSystem.mkdirp('/d/sub');
    fileSystem.crash();
    assert.equal(fileSystem.exists('/d/new'), false);
    assert.equal(fileSystem.exists('/d/sub'), false);
    assert.deepEqual(fileSystem.list('/d'), ['old']);
  });

  it('reverts a rename and a remove whose directory was never synced', async () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    await durableFile(fileSystem, 'a', [1]);
    await durableFile(fileSystem, 'b', [2]);
    fileSystem.rename('/d/a', '/d/c');
    fileSystem.remove('/d/b');
    assert.deepEqual(fileSystem.list('/d'), ['c']);
    fileSystem.crash();
    assert.deepEqual(fileSystem.list('/d'), ['a', 'b']);
    fileSystem.rename('/d/a', '/d/c');
    await fileSystem.syncDirectory('/d');
    fileSystem.crash();
    assert.deepEqual(fileSystem.list('/d'), ['b', 'c']);
  });

  it('invalidates handles at a crash, and fails a datasync that a crash interrupts', async () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    const handle = await durableFile(fileSystem, 'f', [1]);
    handle.write(Uint8Array.of(2), 1);
    const sync = handle.datasync();
    fileSystem.crash();
    await assert.rejects(sync, isIoError);
    assert.throws(() => handle.write(Uint8Array.of(3), 0), isIoError);
    assert.throws(() => handle.sizeBytes(), isIoError);
    assert.deepEqual([...fileSystem.fileBytes('/d/f')!], [1]);
  });

  it('injects EIO on datasync, for one path or any, once', async () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    const f = await durableFile(fileSystem, 'f', [1]);
    const g = await durableFile(fileSystem, 'g', [1]);
    fileSystem.failNextDatasync('/d/g');
    f.write(Uint8Array.of(2), 1);
    await f.datasync();
    g.write(Uint8Array.of(2), 1);
    await assert.rejects(g.datasync(), /EIO/);
    assert.deepEqual([...fileSystem.durableFileBytes('/d/g')!], [1]);
    fileSystem.failNextDatasync();
    await assert.rejects(f.datasync(), /EIO/);
    await f.datasync();
    fileSystem.failNextDatasync('/d');
    await assert.rejects(fileSystem.syncDirectory('/d'), /EIO/);
    assert.equal(fileSystem.datasyncCountOf('/d/f'), 4);
    assert.equal(fileSystem.counters.datasyncCount, 6);
  });

  it('injects ENOSPC after a number of bytes, and EIO on reads', async () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    const handle = await durableFile(fileSystem, 'f', []);
    fileSystem.setDiskFullAfterBytes(4);
    handle.write(Uint8Array.of(1, 2, 3), 0);
    assert.throws(() => handle.write(Uint8Array.of(4, 5), 3), /ENOSPC/);
    handle.write(Uint8Array.of(4), 3);
    assert.equal(handle.sizeBytes(), 4);
    fileSystem.setDiskFullAfterBytes(undefined);
    handle.write(Uint8Array.of(5), 4);
    fileSystem.failReads('/d/f');
    assert.throws(() => handle.read(new Uint8Array(1), 0), /EIO/);
    fileSystem.clearFaults();
    assert.equal(handle.read(new Uint8Array(5), 0), 5);
  });
});

describe('Prng', () => {
  it('replays a seed and spreads its values', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const values = Array.from({ length: 1000 }, () => a.nextIndex(10));
    assert.deepEqual(values, Array.from({ length: 1000 }, () => b.nextIndex(10)));
    for (let digit = 0; digit < 10; digit++) {
      const count = values.filter((v) => v === digit).length;
      assert.ok(count > 50 && count < 150, `${digit} came ${count} times`);
    }
    assert.notDeepEqual(new Prng(43).nextBytes(8), new Prng(42).nextBytes(8));
  });
});
