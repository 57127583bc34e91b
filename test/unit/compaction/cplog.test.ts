import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AssertionError } from '../../../lib/base/assert.ts';
import { isStorageError } from '../../../lib/base/errors.ts';
import { blockId, generation, lsn } from '../../../lib/base/ids.ts';
import { crc32c } from '../../../lib/encoding/crc32c.ts';
import { loadBlockMap } from '../../../compaction/block-map.ts';
import { cplogFilePath, listCplogGenerations } from '../../../compaction/cplog-files.ts';
import {
  BlockCodec, CPLOG_END_RECORD_BYTES, CPLOG_FORMAT_VERSION, CPLOG_RECORD_BYTES_MAX,
  type CplogEntry,
} from '../../../compaction/cplog-format.ts';
import { readCplog, scanCplog } from '../../../compaction/cplog-reader.ts';
import { CplogWriter } from '../../../compaction/cplog-writer.ts';
import type { SimFileSystem } from '../../sim/sim-file-system.ts';
import {
  BLOCK_SIZE_BYTES, blockEntry, DATA_ROOT, freeEntry, generations, newSimData, P5, writeCplog,
} from './compaction-test-helpers.ts';

const ENTRIES: CplogEntry[] = [
  blockEntry(1, 0),
  {
    type: 'BLOCK', blockId: blockId(0xffff_ffff), slot: 2 ** 27 - 1, storedSizeBytes: 4097,
    codec: BlockCodec.SNAPPY, checksum: 0xdead_beef, kind: 2,
  },
  freeEntry(7),
  blockEntry(1, 3), // a later entry for block 1 in the same file
];

function replaceFile(fileSystem: SimFileSystem, path: string, bytes: Uint8Array): void {
  fileSystem.remove(path);
  const handle = fileSystem.open(path, 'create');
  handle.write(bytes, 0);
  handle.close();
}

function isCode(code: string) {
  return (error: unknown) => isStorageError(error) && error.code === code;
}

describe('cplog', () => {
  it('round-trips a header and entries, and survives a crash once finished', async () => {
    const fileSystem = await newSimData();
    const path = await writeCplog(fileSystem, { generation: 3, checkpointLsn: 2n ** 64n - 1n,
      entries: ENTRIES });
    assert.equal(path, '/data/5/5_3.cplog');
    fileSystem.crash();
    const read = readCplog(fileSystem, path);
    assert.equal(read.complete, true, String(read.incompleteReason));
    assert.equal(read.incompleteReason, undefined);
    assert.deepEqual(read.header, {
      formatVersion: CPLOG_FORMAT_VERSION, partitionId: P5, generation: 3,
      blockSizeBytes: BLOCK_SIZE_BYTES, checkpointLsn: 2n ** 64n - 1n,
    });
    assert.deepEqual(read.entries, ENTRIES);
    assert.equal(read.entryCount, ENTRIES.length);
    assert.equal(read.sizeBytes, 9 + 22 + 3 * (9 + 22) + (9 + 4) + CPLOG_END_RECORD_BYTES);
  });

  it('reads the same through a read buffer of one record', async () => {
    const fileSystem = await newSimData();
    const entries = Array.from({ length: 500 }, (_, i) => (i % 7 === 0
      ? freeEntry(i)
      : blockEntry(i, 1000 - i)));
    const path = await writeCplog(fileSystem, { generation: 1, checkpointLsn: 9n, entries });
    const seen: CplogEntry[] = [];
    const scan = scanCplog(fileSystem, path, {
      readBufferBytes: CPLOG_RECORD_BYTES_MAX, onEntry: (entry) => seen.push(entry),
    });
    assert.equal(scan.complete, true, String(scan.incompleteReason));
    assert.deepEqual(seen, entries);
    assert.deepEqual(readCplog(fileSystem, path).entries, entries);
  });

  it('a cplog cut at any byte is incomplete, and loadBlockMap goes on with the older ones',
    async () => {
      const fileSystem = await newSimData();
      await writeCplog(fileSystem, { generation: 1, checkpointLsn: 10n,
        entries: [blockEntry(1, 0), blockEntry(2, 1)] });
      await writeCplog(fileSystem, { generation: 2, checkpointLsn: 20n,
        entries: [blockEntry(3, 2), freeEntry(2)] });
      const path = await writeCplog(fileSystem, { generation: 3, checkpointLsn: 30n,
        entries: [blockEntry(1, 4), blockEntry(4, 1)] });
      const whole = fileSystem.fileBytes(path)!;
      const lastRecordStart = whole.length - CPLOG_END_RECORD_BYTES;
      for (let cut = 0; cut < whole.length; cut++) {
        replaceFile(fileSystem, path, whole.subarray(0, cut));
        const read = readCplog(fileSystem, path);
        assert.equal(read.complete, false, `cut at ${cut}`);
        assert.match(read.incompleteReason!, /^at byte \d+: /);
        if (cut < lastRecordStart) continue;
        // Cut inside the END record: the entries are all there, and still ignored.
        assert.equal(read.entryCount, 2);
        const load = loadBlockMap(fileSystem, {
          dataRoot: DATA_ROOT, partitionId: P5, partialCheckpointInterval: 5,
        });
        assert.deepEqual(load.generations, generations(1, 2));
        assert.equal(load.checkpointLsn, 20n);
        assert.deepEqual(load.incompleteGenerations.map((g) => g.generation), [3]);
        assert.deepEqual([...load.blockMap.keys()].sort(), [1, 3]);
        assert.equal(load.blockMap.get(blockId(1))!.slot, 0);
      }
      replaceFile(fileSystem, path, whole);
      assert.equal(readCplog(fileSystem, path).complete, true);
    });

  it('any flipped byte makes a cplog incomplete, never an error', async () => {
    const fileSystem = await newSimData();
    const path = await writeCplog(fileSystem, { generation: 1, checkpointLsn: 5n,
      entries: ENTRIES });
    const whole = fileSystem.fileBytes(path)!;
    for (let at = 0; at < whole.length; at++) {
      const damaged = whole.slice();
      damaged[at]! ^= 0x10;
      replaceFile(fileSystem, path, damaged);
      const read = readCplog(fileSystem, path);
      assert.equal(read.complete, false, `flipped byte ${at}`);
    }
  });

  it('bytes after END, or a HEADER naming another file, make it incomplete', async () => {
    const fileSystem = await newSimData();
    const path = await writeCplog(fileSystem, { generation: 2, checkpointLsn: 5n,
      entries: ENTRIES });
    const whole = fileSystem.fileBytes(path)!;
    const longer = new Uint8Array(whole.length + 1);
    longer.set(whole);
    replaceFile(fileSystem, path, longer);
    assert.match(readCplog(fileSystem, path).incompleteReason!, /1 bytes after the END record/);
    const elsewhere = cplogFilePath(DATA_ROOT, P5, generation(4));
    replaceFile(fileSystem, elsewhere, whole);
    assert.match(readCplog(fileSystem, elsewhere).incompleteReason!,
      /HEADER of partition 5 generation 2 in the file of partition 5 generation 4/);
  });

  it('refuses a format version it does not know (NOT_SUPPORTED), since it is not a crash',
    async () => {
      const fileSystem = await newSimData();
      const path = await writeCplog(fileSystem, { generation: 1, checkpointLsn: 5n, entries: [] });
      const bytes = fileSystem.fileBytes(path)!;
      const view = new DataView(bytes.buffer);
      view.setUint16(9, CPLOG_FORMAT_VERSION + 1, true);
      view.setUint32(0, crc32c(bytes.subarray(4, 31)), true); // a well-made HEADER record
      replaceFile(fileSystem, path, bytes);
      assert.throws(() => readCplog(fileSystem, path), isCode('NOT_SUPPORTED'));
    });

  it('is not there, or incomplete, after a crash before finish()', async () => {
    for (const tornWrites of [false, true]) {
      const fileSystem = await newSimData();
      await writeCplog(fileSystem, { generation: 1, checkpointLsn: 5n, entries: ENTRIES });
      const writer = await CplogWriter.create({
        fileSystem, dataRoot: DATA_ROOT, partitionId: P5, generation: generation(2),
        blockSizeBytes: BLOCK_SIZE_BYTES, checkpointLsn: lsn(6n), writeBufferBytes: 64,
      });
      for (let i = 0; i < 20; i++) writer.append(blockEntry(i, i));
      await fileSystem.syncDirectory(`${DATA_ROOT}/5`); // the entry survives, the data may not
      fileSystem.crash({ tornWrites });
      assert.deepEqual(listCplogGenerations(fileSystem, DATA_ROOT, P5), generations(1, 2));
      assert.equal(readCplog(fileSystem, writer.path).complete, false);
      const load = loadBlockMap(fileSystem, {
        dataRoot: DATA_ROOT, partitionId: P5, partialCheckpointInterval: 5,
      });
      assert.deepEqual(load.generations, generations(1));
    }
  });

  it('finish() writes END, syncs file and directory; a failed sync breaks the writer', async () => {
    const fileSystem = await newSimData();
    const path = await writeCplog(fileSystem, { generation: 1, checkpointLsn: 5n, entries: [] });
    assert.equal(fileSystem.datasyncCountOf(path), 1);
    assert.ok(readCplog(fileSystem, path).complete);

    const writer = await CplogWriter.create({
      fileSystem, dataRoot: DATA_ROOT, partitionId: P5, generation: generation(2),
      blockSizeBytes: BLOCK_SIZE_BYTES, checkpointLsn: lsn(6n),
    });
    writer.appendBlock({ blockId: blockId(1), slot: 0, storedSizeBytes: BLOCK_SIZE_BYTES,
      codec: BlockCodec.RAW, checksum: 1, kind: 1 });
    writer.appendFree(blockId(2));
    assert.equal(writer.entryCount, 2);
    fileSystem.failNextDatasync(writer.path);
    await assert.rejects(writer.finish(), isCode('IO'));
    assert.throws(() => writer.appendFree(blockId(3)), isCode('IO'));
    fileSystem.crash();
    assert.ok(!fileSystem.exists(writer.path) || !readCplog(fileSystem, writer.path).complete);
  });

  it('asserts on entries it must never write, and on a used generation', async () => {
    const fileSystem = await newSimData();
    const path = await writeCplog(fileSystem, { generation: 1, checkpointLsn: 5n, entries: [] });
    const options = {
      fileSystem, dataRoot: DATA_ROOT, partitionId: P5, generation: generation(1),
      blockSizeBytes: BLOCK_SIZE_BYTES, checkpointLsn: lsn(6n),
    };
    await assert.rejects(CplogWriter.create(options), AssertionError);
    assert.ok(readCplog(fileSystem, path).complete, 'the existing file is untouched');
    const writer = await CplogWriter.create({ ...options, generation: generation(2) });
    const raw = { blockId: blockId(1), slot: 0, codec: BlockCodec.RAW, checksum: 0, kind: 1 };
    assert.throws(() => writer.appendBlock({ ...raw, storedSizeBytes: 100 }), AssertionError);
    assert.throws(() => writer.appendBlock({ ...raw, storedSizeBytes: BLOCK_SIZE_BYTES, slot: -1 }),
      AssertionError);
    assert.throws(() => writer.appendBlock({ ...raw, storedSizeBytes: BLOCK_SIZE_BYTES,
      codec: BlockCodec.SNAPPY }), AssertionError);
    writer.abandon();
    assert.throws(() => writer.appendFree(blockId(1)), isCode('CLOSED'));
  });

  it('lists generations in numeric order, ignoring other files', async () => {
    const fileSystem = await newSimData();
    for (const g of [10, 9, 1]) {
      await writeCplog(fileSystem, { generation: g, checkpointLsn: BigInt(g), entries: [] });
    }
    for (const name of ['5_part_0.dat', '6_2.cplog', '5_02.cplog', '5_0.cplog', '5_3.xlog']) {
      fileSystem.open(`${DATA_ROOT}/5/${name}`, 'create').close();
    }
    assert.deepEqual(listCplogGenerations(fileSystem, DATA_ROOT, P5), generations(1, 9, 10));
    assert.deepEqual(listCplogGenerations(fileSystem, '/nowhere', P5), []);
  });
});
