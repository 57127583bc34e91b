import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { isStorageError } from '../../../lib/base/errors.ts';
import { blockId } from '../../../lib/base/ids.ts';
import { crc32c } from '../../../lib/encoding/crc32c.ts';
import type { FileHandle, FileSystem, OpenMode } from '../../../lib/io/file-system.ts';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';
import { punchHoleSupport } from '../../../lib/io/punch-hole.ts';
import { BlockCodec } from '../../../compaction/cplog-format.ts';
import {
  DataFiles, type DataFilesOptions, type DataSlotEntry, type StoredSlot,
} from '../../../compaction/data-file.ts';
import {
  BLOCK_SIZE_BYTES, DATA_ROOT, newSimData, P5, randomImage, sensorBlockImage,
} from './compaction-test-helpers.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

const FS_BLOCK_BYTES = 4096;

function openDataFiles(
  fileSystem: FileSystem,
  options: Partial<DataFilesOptions> = {},
): Promise<DataFiles> {
  return DataFiles.open({
    fileSystem, dataRoot: DATA_ROOT, partitionId: P5, blockSizeBytes: BLOCK_SIZE_BYTES,
    splitCount: 1, ...options,
  });
}

function entryOf(id: number, stored: StoredSlot): DataSlotEntry {
  return { blockId: blockId(id), ...stored };
}

function isCode(code: string) {
  return (error: unknown) => isStorageError(error) && error.code === code;
}

/** Overwrites one byte of a file through its own handle, as a bad disk would. */
function flipByte(fileSystem: FileSystem, path: string, offsetBytes: number): void {
  const handle = fileSystem.open(path, 'readWrite');
  const byte = new Uint8Array(1);
  handle.read(byte, offsetBytes);
  byte[0]! ^= 0x01;
  handle.write(byte, offsetBytes);
  handle.close();
}

/**
 * A SimFileSystem whose writeAsync lands its bytes at once and resolves a few turns later, as a
 * pwrite that the kernel has done but whose callback has not run yet.
 */
class LateWriteCallbackFileSystem extends SimFileSystem {
  override open(path: string, mode: OpenMode): FileHandle {
    const handle = super.open(path, mode);
    handle.writeAsync = async (bytes, offsetBytes) => {
      handle.write(bytes, offsetBytes);
      for (let turn = 0; turn < 3; turn++) await nextMacrotask();
    };
    return handle;
  }
}

/**
 * A SimFileSystem whose writeAsync takes the bytes at the call (FileHandle's contract) and lands
 * them a few turns later, as the write thread does; it counts truncate calls.
 */
class LateLandingFileSystem extends SimFileSystem {
  truncateCount = 0;

  override open(path: string, mode: OpenMode): FileHandle {
    const handle = super.open(path, mode);
    const truncate = handle.truncate.bind(handle);
    handle.truncate = (sizeBytes) => {
      this.truncateCount++;
      truncate(sizeBytes);
    };
    handle.writeAsync = async (bytes, offsetBytes) => {
      const taken = bytes.slice();
      for (let turn = 0; turn < 3; turn++) await nextMacrotask();
      handle.write(taken, offsetBytes);
    };
    return handle;
  }
}

describe('DataFiles', () => {
  it('a swap-out of a lower slot while a checkpoint write is in flight keeps the write\'s bytes',
    async () => {
      for (const compress of [false, true]) {
        const fileSystem = new LateWriteCallbackFileSystem({ seed: 1 });
        fileSystem.mkdirp(DATA_ROOT);
        await fileSystem.syncDirectory('/');
        const files = await openDataFiles(fileSystem);
        const image = compress ? sensorBlockImage(1) : randomImage(5);
        const writing = files.writeSlotAsync(5, image, { compress });
        // A swap-out (synchronous) meanwhile, compressed into a slot past the file's end so far:
        // it sets the file's size to its slot's end, which must not cut the bytes of slot 5.
        const swapped = files.writeSlot(1, sensorBlockImage(2), { compress: true });
        assert.equal(swapped.codec, BlockCodec.SNAPPY);
        const stored = await writing;
        assert.equal(stored.codec, compress ? BlockCodec.SNAPPY : BlockCodec.RAW);
        assert.equal(files.sizeBytes(), 6 * BLOCK_SIZE_BYTES);
        await files.datasync();
        fileSystem.crash();
        const reopened = await openDataFiles(fileSystem);
        assert.deepEqual(reopened.readSlot(5, entryOf(5, stored)), image);
        assert.deepEqual(reopened.readSlot(1, entryOf(1, swapped)), sensorBlockImage(2));
        assert.equal(files.counters.writeCount, 2);
        reopened.close();
      }
    });

  it('a whole-slot checkpoint write extends its file without a truncate; several in flight land',
    async () => {
      const fileSystem = new LateLandingFileSystem({ seed: 2 });
      fileSystem.mkdirp(DATA_ROOT);
      await fileSystem.syncDirectory('/');
      const files = await openDataFiles(fileSystem);
      const truncatesBefore = fileSystem.truncateCount;
      const images = [randomImage(11), randomImage(12), randomImage(13)];
      // Slots 4, 2 and 6, all past the file's end, in flight at once; the caller's buffer is
      // reused at once (taken at the call).
      const scratch = new Uint8Array(BLOCK_SIZE_BYTES);
      const writes = [4, 2, 6].map((slot, n) => {
        scratch.set(images[n]!);
        return files.writeSlotAsync(slot, scratch, { compress: false });
      });
      // A compressed swap-out into slot 1 meanwhile must not cut the file below slot 6's end.
      const swapped = files.writeSlot(1, sensorBlockImage(3), { compress: true });
      const stored = await Promise.all(writes);
      assert.equal(fileSystem.truncateCount, truncatesBefore);
      assert.equal(files.sizeBytes(), 7 * BLOCK_SIZE_BYTES);
      await files.datasync();
      fileSystem.crash();
      const reopened = await openDataFiles(fileSystem);
      for (const [n, slot] of [4, 2, 6].entries()) {
        assert.deepEqual(reopened.readSlot(slot, entryOf(slot, stored[n]!)), images[n]);
      }
      assert.deepEqual(reopened.readSlot(1, entryOf(1, swapped)), sensorBlockImage(3));
      assert.equal(reopened.slotCountOnDisk(), 7);
      reopened.close();
    });

  it('stripes slots over 3 files in 2 directories, durable after datasync', async () => {
    const fileSystem = await newSimData();
    const options = { splitCount: 3, filePathList: ['/disk0', '/disk1'] };
    fileSystem.mkdirp('/disk0');
    fileSystem.mkdirp('/disk1');
    await fileSystem.syncDirectory('/');
    const files = await openDataFiles(fileSystem, options);
    assert.deepEqual(files.paths,
      ['/disk0/5/5_part_0.dat', '/disk1/5/5_part_1.dat', '/disk0/5/5_part_2.dat']);
    const stored = Array.from({ length: 8 }, (_, slot) => files.writeSlot(slot,
      randomImage(slot), { compress: false }));
    // slot → [file, slot row in the file]: s % 3, floor(s / 3).
    const placement = [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1], [0, 2], [1, 2]] as const;
    for (const [slot, [fileIndex, row]] of placement.entries()) {
      const offsetBytes = row * BLOCK_SIZE_BYTES;
      const path: string = files.paths[fileIndex]!;
      assert.deepEqual(files.slotLocation(slot), { fileIndex, path, offsetBytes });
      const bytes = fileSystem.fileBytes(path)!;
      const slotBytes = bytes.subarray(offsetBytes, offsetBytes + BLOCK_SIZE_BYTES);
      assert.deepEqual(slotBytes, randomImage(slot));
    }
    assert.deepEqual(files.paths.map((path) => fileSystem.fileBytes(path)!.length),
      [3, 3, 2].map((count) => count * BLOCK_SIZE_BYTES));
    assert.equal(files.sizeBytes(), 8 * BLOCK_SIZE_BYTES);
    assert.equal(files.slotCountOnDisk(), 8);
    await files.datasync();
    assert.equal(files.counters.flushCount, 1);
    fileSystem.crash();
    const reopened = await openDataFiles(fileSystem, options);
    assert.equal(reopened.slotCountOnDisk(), 8);
    for (const [slot, slotStored] of stored.entries()) {
      assert.deepEqual(reopened.readSlot(slot, entryOf(slot, slotStored)), randomImage(slot));
    }
  });

  it('stores a compressible block snappy-compressed, in whole file-system blocks', async () => {
    const fileSystem = await newSimData();
    const files = await openDataFiles(fileSystem);
    const image = sensorBlockImage(1);
    const stored = files.writeSlot(2, image, { compress: true });
    assert.equal(stored.codec, BlockCodec.SNAPPY);
    assert.ok(stored.storedSizeBytes <= 0.9 * BLOCK_SIZE_BYTES, `${stored.storedSizeBytes} bytes`);
    const bytes = fileSystem.fileBytes(files.paths[0]!)!;
    const at = 2 * BLOCK_SIZE_BYTES;
    assert.equal(stored.checksum, crc32c(bytes.subarray(at, at + stored.storedSizeBytes)));
    assert.equal(bytes.length, 3 * BLOCK_SIZE_BYTES, 'the file covers the whole last slot');
    const writtenBytes = Math.ceil(stored.storedSizeBytes / FS_BLOCK_BYTES) * FS_BLOCK_BYTES;
    assert.equal(files.counters.writtenBytes, writtenBytes);
    assert.equal(files.allocatedBytes(), writtenBytes, 'slots 0, 1 and the tail are holes');
    assert.deepEqual(files.readSlot(2, entryOf(1, stored)), image);
    const into = new Uint8Array(BLOCK_SIZE_BYTES);
    assert.equal(files.readSlot(2, entryOf(1, stored), into), into);
    assert.deepEqual(into, image);
    assert.equal(files.counters.compressedCount, 1);
  });

  it('stores incompressible data raw, and raw when compression is off', async () => {
    const fileSystem = await newSimData();
    const files = await openDataFiles(fileSystem);
    const noise = files.writeSlot(0, randomImage(7), { compress: true });
    assert.deepEqual(noise, { storedSizeBytes: BLOCK_SIZE_BYTES, codec: BlockCodec.RAW,
      checksum: crc32c(randomImage(7)) });
    const off = files.writeSlot(1, sensorBlockImage(2), { compress: false });
    assert.equal(off.codec, BlockCodec.RAW);
    assert.deepEqual(files.readSlot(0, entryOf(1, noise)), randomImage(7));
    assert.deepEqual(files.readSlot(1, entryOf(2, off)), sensorBlockImage(2));
    assert.equal(files.counters.compressedCount, 0);
    assert.equal(files.counters.writtenBytes, 2 * BLOCK_SIZE_BYTES);
  });

  it('punches the tail of a slot rewritten compressed; without punching leaves it', async () => {
    for (const punching of [true, false]) {
      const fileSystem = await newSimData();
      fileSystem.setPunchHoleSupported(punching);
      const files = await openDataFiles(fileSystem);
      files.writeSlot(0, randomImage(1), { compress: true });
      files.writeSlot(1, randomImage(2), { compress: true });
      assert.equal(files.allocatedBytes(), 2 * BLOCK_SIZE_BYTES);
      const stored = files.writeSlot(0, sensorBlockImage(3), { compress: true });
      const usedBytes = Math.ceil(stored.storedSizeBytes / FS_BLOCK_BYTES) * FS_BLOCK_BYTES;
      assert.equal(files.punchSupported, punching);
      assert.equal(files.allocatedBytes(),
        punching ? usedBytes + BLOCK_SIZE_BYTES : 2 * BLOCK_SIZE_BYTES);
      assert.equal(files.counters.punchedBytes, punching ? BLOCK_SIZE_BYTES - usedBytes : 0);
      assert.deepEqual(files.readSlot(0, entryOf(3, stored)), sensorBlockImage(3));
      assert.equal(files.releaseSlot(1), punching);
      assert.equal(files.allocatedBytes(), punching ? usedBytes : 2 * BLOCK_SIZE_BYTES);
      assert.equal(files.sizeBytes(), 2 * BLOCK_SIZE_BYTES);
    }
  });

  it('a damaged or short slot is CORRUPTION naming partition, block, slot and file', async () => {
    const fileSystem = await newSimData();
    const files = await openDataFiles(fileSystem, { splitCount: 2 });
    const raw = files.writeSlot(3, randomImage(3), { compress: true });
    const snappy = files.writeSlot(4, sensorBlockImage(4), { compress: true });
    flipByte(fileSystem, files.paths[1]!, BLOCK_SIZE_BYTES + 100);
    flipByte(fileSystem, files.paths[0]!, 2 * BLOCK_SIZE_BYTES + 100);
    const message = /partition 5 block 33 slot 3 \(\/data\/5\/5_part_1\.dat at byte 65536.*sum/;
    assert.throws(() => files.readSlot(3, entryOf(33, raw)), message);
    assert.throws(() => files.readSlot(4, entryOf(44, snappy)), isCode('CORRUPTION'));
    assert.throws(() => files.readSlot(9, entryOf(99, raw)),
      /slot 9 .*: 0 of 65536 stored bytes in the file/);
    // Stored bytes that match their checksum but are no snappy stream: written wrong, still ours.
    const bytes = fileSystem.fileBytes(files.paths[1]!)!.subarray(BLOCK_SIZE_BYTES,
      BLOCK_SIZE_BYTES + 5000);
    const bogus = { storedSizeBytes: 5000, codec: BlockCodec.SNAPPY, checksum: crc32c(bytes) };
    assert.throws(() => files.readSlot(3, entryOf(3, bogus)), isCode('CORRUPTION'));
  });

  it('refuses a changed split count, and breaks on a failed datasync', async () => {
    const fileSystem = await newSimData();
    const files = await openDataFiles(fileSystem, { splitCount: 3 });
    files.close();
    await assert.rejects(openDataFiles(fileSystem, { splitCount: 2 }), isCode('CONFIG_INVALID'));
    const reopened = await openDataFiles(fileSystem, { splitCount: 3 });
    reopened.writeSlot(0, randomImage(1), { compress: false });
    fileSystem.failNextDatasync();
    await assert.rejects(reopened.datasync(), isCode('IO'));
    assert.throws(() => reopened.writeSlot(0, randomImage(1), { compress: false }), isCode('IO'));
    reopened.close();
    assert.throws(() => reopened.readSlot(0, entryOf(1, { storedSizeBytes: BLOCK_SIZE_BYTES,
      codec: BlockCodec.RAW, checksum: 0 })), isCode('CLOSED'));
  });

  it('on the real file system, 64 compressed blocks leave the file sparse', async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'store-data-file-'));
    try {
      await realFileSystemSparse(t, root);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

async function realFileSystemSparse(t: { skip(message: string): void }, root: string) {
  const fileSystem = new NodeFileSystem();
  const options = { dataRoot: root, splitCount: 1 };
  const files = await openDataFiles(fileSystem, options);
  const slotCount = 64;
  // First raw noise in every slot, so only punching (not a never-written gap) can free space.
  for (let slot = 0; slot < slotCount; slot++) {
    files.writeSlot(slot, randomImage(1000 + slot), { compress: true });
  }
  await files.datasync();
  const stored = Array.from({ length: slotCount }, (_, slot) => files.writeSlot(slot,
    sensorBlockImage(slot), { compress: true }));
  await files.datasync();
  if (files.punchSupported !== true) {
    files.close();
    t.skip(`holes cannot be punched here: ${punchHoleSupport.reason ?? 'the file system refuses'}`);
    return;
  }
  const sizeBytes = files.sizeBytes();
  const allocatedBytes = files.allocatedBytes();
  assert.equal(sizeBytes, slotCount * BLOCK_SIZE_BYTES);
  assert.ok(stored.every((s) => s.codec === BlockCodec.SNAPPY));
  const usedBytes = stored.reduce((sum, s) =>
    sum + Math.ceil(s.storedSizeBytes / FS_BLOCK_BYTES) * FS_BLOCK_BYTES, 0);
  // File systems may keep a little more (extent metadata), never the punched tails.
  assert.ok(allocatedBytes < 0.75 * sizeBytes, `${allocatedBytes} of ${sizeBytes} allocated`);
  assert.ok(allocatedBytes >= usedBytes, `${allocatedBytes} allocated, ${usedBytes} written`);
  files.close();
  const reopened = await openDataFiles(fileSystem, options);
  for (const [slot, slotStored] of stored.entries()) {
    assert.deepEqual(reopened.readSlot(slot, entryOf(slot, slotStored)), sensorBlockImage(slot));
  }
  reopened.close();
}
