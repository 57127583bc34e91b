import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorageError } from '../../../lib/base/errors.ts';
import { lsn } from '../../../lib/base/ids.ts';
import { XLOG_RECORD_BYTES_MAX } from '../../../lib/base/limits.ts';
import { xlogFilePath } from '../../../wal/xlog-files.ts';
import {
  decodeXlogFileHeaderPayload, decodeXlogRecordHeader, XLOG_FILE_HEADER_RECORD_BYTES,
  XLOG_RECORD_HEADER_BYTES, XlogRecordType,
} from '../../../wal/xlog-format.ts';
import { scanXlog, truncateXlogTornTail } from '../../../wal/xlog-reader.ts';
import { XlogWriter, type XlogWriterOptions } from '../../../wal/xlog-writer.ts';
import type { SimFileSystem } from '../../sim/sim-file-system.ts';
import {
  BLOCK_SIZE_BYTES, bytesOf, collectXlog, G1, G2, G3, newSimLog, P3, ROOT,
} from './xlog-test-helpers.ts';

const { COMMIT, CREATE_CONTAINER } = XlogRecordType;

function writerOptions(fileSystem: SimFileSystem, writeBufferBytes = 256): XlogWriterOptions {
  return {
    fileSystem, root: ROOT, partitionId: P3, blockSizeBytes: BLOCK_SIZE_BYTES, writeBufferBytes,
  };
}

/** A writer on generation 1 of partition 3, after `lastLsn`. */
function createWriter(
  fileSystem: SimFileSystem,
  options: { lastLsn?: bigint; writeBufferBytes?: number } = {},
): Promise<XlogWriter> {
  return XlogWriter.create({
    ...writerOptions(fileSystem, options.writeBufferBytes), generation: G1,
    lastLsn: lsn(options.lastLsn ?? 0n),
  });
}

function isCode(code: string) {
  return (error: unknown) => isStorageError(error) && error.code === code;
}

describe('XlogWriter', () => {
  it('assigns LSNs and moves lastLsn, writtenLsn and syncedLsn in order', async () => {
    const fileSystem = await newSimLog();
    const writer = await createWriter(fileSystem, { lastLsn: 10n });
    assert.equal(writer.append(COMMIT, bytesOf(1, 2)), 11n);
    assert.equal(writer.append(CREATE_CONTAINER, bytesOf(3)), 12n);
    assert.deepEqual([writer.lastLsn, writer.writtenLsn, writer.syncedLsn], [12n, 10n, 10n]);
    assert.equal(writer.sizeBytes,
      XLOG_FILE_HEADER_RECORD_BYTES + 2 * XLOG_RECORD_HEADER_BYTES + 3);
    writer.flush();
    assert.deepEqual([writer.lastLsn, writer.writtenLsn, writer.syncedLsn], [12n, 12n, 10n]);
    writer.append(COMMIT, bytesOf(4));
    await writer.datasync();
    assert.deepEqual([writer.lastLsn, writer.writtenLsn, writer.syncedLsn], [13n, 13n, 13n]);
    await writer.close();
    const { records, result } = collectXlog(fileSystem);
    assert.deepEqual(records.map((r) => [r.lsn, r.type, r.payload]),
      [[11n, COMMIT, [1, 2]], [12n, CREATE_CONTAINER, [3]], [13n, COMMIT, [4]]]);
    assert.equal(result.baseLsn, 10n);
    assert.equal(result.tailOffsetBytes, writer.sizeBytes);
  });

  it('keeps what was synced and loses the rest at a crash', async () => {
    const fileSystem = await newSimLog();
    const writer = await createWriter(fileSystem);
    writer.append(COMMIT, bytesOf(1));
    await writer.datasync();
    writer.append(COMMIT, bytesOf(2));
    writer.flush();
    fileSystem.crash();
    const { records, result } = collectXlog(fileSystem);
    assert.deepEqual(records.map((r) => r.lsn), [1n]);
    assert.equal(result.tornBytes, 0);
  });

  it('writes a record larger than the buffer straight through, in order', async () => {
    const fileSystem = await newSimLog();
    const writer = await createWriter(fileSystem, { writeBufferBytes: 64 });
    const big = Uint8Array.from({ length: 1000 }, (_, i) => i & 0xff);
    writer.append(COMMIT, bytesOf(1));
    writer.append(COMMIT, big);
    assert.equal(writer.writtenLsn, 2n);
    writer.append(COMMIT, bytesOf(3));
    await writer.datasync();
    const { records } = collectXlog(fileSystem);
    assert.deepEqual(records.map((r) => r.payload.length), [1, 1000, 1]);
    assert.deepEqual(records[1]!.payload, [...big]);
  });

  it('rejects a payload over the maximum with LIMIT_EXCEEDED and stays usable', async () => {
    const fileSystem = await newSimLog();
    const writer = await createWriter(fileSystem);
    assert.throws(() => writer.append(COMMIT, new Uint8Array(XLOG_RECORD_BYTES_MAX + 1)),
      isCode('LIMIT_EXCEEDED'));
    assert.equal(writer.append(COMMIT, bytesOf(1)), 1n);
  });

  it('continues after a scan with the next LSNs, over a torn tail', async () => {
    const tornSizesBytes = new Set<number>();
    for (let seed = 1; seed <= 12; seed++) {
      const fileSystem = await newSimLog(seed);
      const first = await createWriter(fileSystem);
      for (let i = 0; i < 5; i++) first.append(COMMIT, bytesOf(i));
      await first.datasync();
      first.append(COMMIT, new Uint8Array(40).fill(9));
      first.flush();
      fileSystem.crash({ tornWrites: true });
      const scan = scanXlog(fileSystem, { root: ROOT, partitionId: P3 });
      tornSizesBytes.add(scan.tornBytes);
      const writer = await XlogWriter.continueAfterScan({ ...writerOptions(fileSystem), scan });
      assert.equal(writer.syncedLsn, scan.lastLsn);
      assert.equal(writer.sizeBytes, scan.tailOffsetBytes);
      const next = writer.append(COMMIT, bytesOf(7, 7));
      assert.equal(next, scan.lastLsn + 1n);
      await writer.datasync();
      fileSystem.crash();
      const { records, result } = collectXlog(fileSystem);
      const expectedLsns = Array.from({ length: Number(next) }, (_, i) => BigInt(i + 1));
      assert.deepEqual(records.map((r) => r.lsn), expectedLsns, `seed ${seed}`);
      assert.equal(result.tornBytes, 0);
    }
    assert.ok(tornSizesBytes.size >= 3, 'the seeds cut the last record at different places');
  });

  it('continues a last file whose FILE_HEADER never made it by writing one', async () => {
    const fileSystem = await newSimLog();
    const first = await createWriter(fileSystem);
    first.append(COMMIT, bytesOf(1));
    await first.datasync();
    await first.close();
    const empty = fileSystem.open(xlogFilePath(ROOT, P3, G2), 'create');
    empty.write(bytesOf(1, 2, 3), 0); // a header cut after three bytes
    empty.close();
    const scan = scanXlog(fileSystem, { root: ROOT, partitionId: P3 });
    assert.deepEqual([scan.lastGeneration, scan.tailOffsetBytes, scan.tornBytes, scan.lastLsn],
      [2, 0, 3, 1n]);
    await truncateXlogTornTail(fileSystem, scan);
    const writer = await XlogWriter.continueAfterScan({ ...writerOptions(fileSystem), scan });
    assert.equal(writer.append(COMMIT, bytesOf(2)), 2n);
    await writer.datasync();
    fileSystem.crash();
    const { records } = collectXlog(fileSystem);
    assert.deepEqual(records.map((r) => [r.lsn, r.generation]), [[1n, 1], [2n, 2]]);
  });

  it('starts a generation whose header has the previous LSN, and syncs the old file', async () => {
    const fileSystem = await newSimLog();
    const writer = await createWriter(fileSystem);
    writer.append(COMMIT, bytesOf(1));
    writer.append(COMMIT, bytesOf(2));
    const switched = writer.startGeneration(G2);
    assert.equal(writer.generation, 2);
    writer.append(COMMIT, bytesOf(3)); // goes to the new file at once
    await switched;
    assert.equal(writer.syncedLsn, 2n);
    await writer.datasync();
    await writer.startGeneration(G3);
    fileSystem.crash();
    const header = fileSystem.fileBytes(xlogFilePath(ROOT, P3, G2))!;
    assert.equal(decodeXlogRecordHeader(header, 0).lsn, 2n);
    assert.deepEqual(decodeXlogFileHeaderPayload(header.subarray(XLOG_RECORD_HEADER_BYTES,
      XLOG_FILE_HEADER_RECORD_BYTES)), { formatVersion: 1, partitionId: 3, generation: 2,
      blockSizeBytes: BLOCK_SIZE_BYTES });
    const { records, result } = collectXlog(fileSystem);
    assert.deepEqual(records.map((r) => [r.lsn, r.generation]), [[1n, 1], [2n, 1], [3n, 2]]);
    assert.deepEqual([result.lastGeneration, result.lastLsn, result.tornBytes], [3, 3n, 0]);
  });

  it('makes a new file survive a crash even before any record', async () => {
    const fileSystem = await newSimLog();
    await createWriter(fileSystem, { lastLsn: 4n });
    fileSystem.crash();
    const { result } = collectXlog(fileSystem);
    assert.deepEqual([result.lastGeneration, result.lastLsn, result.tailOffsetBytes],
      [1, 4n, XLOG_FILE_HEADER_RECORD_BYTES]);
  });

  it('breaks for good after a failed write', async () => {
    const fileSystem = await newSimLog();
    const writer = await createWriter(fileSystem);
    writer.append(COMMIT, bytesOf(1));
    fileSystem.setDiskFullAfterBytes(0);
    assert.throws(() => writer.flush(), isCode('IO'));
    fileSystem.clearFaults();
    assert.ok(writer.brokenError !== undefined);
    assert.throws(() => writer.append(COMMIT, bytesOf(2)), isCode('IO'));
    assert.throws(() => writer.flush(), isCode('IO'));
    await assert.rejects(writer.datasync(), isCode('IO'));
    await writer.close();
  });

  it('breaks for good after a failed datasync: it is never retried', async () => {
    const fileSystem = await newSimLog();
    const writer = await createWriter(fileSystem);
    writer.append(COMMIT, bytesOf(1));
    fileSystem.failNextDatasync(xlogFilePath(ROOT, P3, G1));
    await assert.rejects(writer.datasync(), /EIO/);
    assert.equal(writer.syncedLsn, 0n);
    const syncsBefore = fileSystem.counters.datasyncCount;
    await assert.rejects(writer.datasync(), (e) => isCode('IO')(e) && /broken/.test(String(e)));
    assert.throws(() => writer.append(COMMIT, bytesOf(2)), isCode('IO'));
    await assert.rejects(writer.startGeneration(G2), isCode('IO'));
    assert.equal(fileSystem.counters.datasyncCount, syncsBefore);
  });

  it('throws CLOSED after close', async () => {
    const fileSystem = await newSimLog();
    const writer = await createWriter(fileSystem);
    writer.append(COMMIT, bytesOf(1));
    await writer.close();
    assert.throws(() => writer.append(COMMIT, bytesOf(2)), isCode('CLOSED'));
    await assert.rejects(writer.datasync(), isCode('CLOSED'));
    assert.deepEqual(collectXlog(fileSystem).records.map((r) => r.lsn), [1n]); // close flushed
  });
});
