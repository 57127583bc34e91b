import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { lsn, partitionId } from '../../../lib/base/ids.ts';
import { XLOG_RECORD_BYTES_MAX } from '../../../lib/base/limits.ts';
import { xlogFilePath } from '../../../wal/xlog-files.ts';
import { crc32c } from '../../../lib/encoding/crc32c.ts';
import { XLOG_RECORD_HEADER_BYTES } from '../../../wal/xlog-format.ts';
import { scanXlog, truncateXlogTornTail } from '../../../wal/xlog-reader.ts';
import {
  bytesOf, collectXlog, commitRecord, G1, G2, G3, newSimLog, P3, ROOT, writeXlogFile, xlogFileBytes,
} from './xlog-test-helpers.ts';

const ZERO = lsn(0n);

function threeRecords(firstLsn: number) {
  return [
    commitRecord(firstLsn, bytesOf(1, 2, 3)),
    commitRecord(firstLsn + 1, new Uint8Array(0)),
    commitRecord(firstLsn + 2, bytesOf(4, 5, 6, 7, 8, 9, 10)),
  ];
}

function emptyFile(fileGeneration: typeof G1, previousLsn: bigint): Uint8Array {
  const options = { generation: fileGeneration, previousLsn: lsn(previousLsn), records: [] };
  return xlogFileBytes(options).bytes;
}

function rejectsWith(code: string, pattern: RegExp) {
  return (error: unknown) => {
    assert(isStorageError(error), String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

describe('scanXlog', () => {
  it('reports an empty log when the partition has no files', async () => {
    const fileSystem = await newSimLog();
    const { records, result } = collectXlog(fileSystem);
    assert.deepEqual(records, []);
    assert.deepEqual(result, {
      partitionId: P3, baseLsn: 0n, lastLsn: 0n, lastGeneration: 0, lastFilePath: undefined,
      tailOffsetBytes: 0, tornBytes: 0, tornReason: undefined, recordCount: 0,
    });
  });

  it('reads records across files in generation order, whatever the chunk size', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.array(fc.uint8Array({ maxLength: 90 }), { maxLength: 6 }),
        { minLength: 1, maxLength: 4 }),
      fc.integer({ min: XLOG_RECORD_HEADER_BYTES, max: 128 }),
      fc.nat({ max: 1000 }),
      async (payloadsByFile, readBufferBytes, baseLsn) => {
        const fileSystem = await newSimLog();
        let lastLsn = baseLsn;
        const expected: Array<{ lsn: bigint; payload: number[]; generation: number }> = [];
        for (const [index, payloads] of payloadsByFile.entries()) {
          const fileGeneration = (index + 1) as typeof G1;
          const records = payloads.map((payload, i) => commitRecord(lastLsn + 1 + i, payload));
          const previousLsn = lsn(BigInt(lastLsn));
          const { bytes } = xlogFileBytes({ generation: fileGeneration, previousLsn, records });
          writeXlogFile(fileSystem, bytes, fileGeneration);
          for (const record of records) {
            expected.push(
              { lsn: record.lsn, payload: [...record.payload], generation: fileGeneration });
          }
          lastLsn += payloads.length;
        }
        const { records, result } = collectXlog(fileSystem, { readBufferBytes });
        const read = records.map((r) => ({
          lsn: r.lsn, payload: r.payload, generation: r.generation,
        }));
        assert.deepEqual(read, expected);
        assert.equal(result.lastLsn, BigInt(lastLsn));
        assert.equal(result.baseLsn, BigInt(baseLsn));
        assert.equal(result.recordCount, expected.length);
        assert.equal(result.tornBytes, 0);
        assert.equal(result.lastGeneration, payloadsByFile.length);
      },
    ), { numRuns: 60 });
  });

  it('stops at a torn tail wherever the last record is cut', async () => {
    const earlier = xlogFileBytes({ generation: G1, previousLsn: ZERO, records: threeRecords(1) });
    const last = xlogFileBytes({ generation: G2, previousLsn: lsn(3n), records: threeRecords(4) });
    const lastRecordOffset = last.recordOffsets[2]!;
    for (let keptBytes = 0; keptBytes < last.bytes.length - lastRecordOffset; keptBytes++) {
      const fileSystem = await newSimLog();
      writeXlogFile(fileSystem, earlier.bytes, G1);
      writeXlogFile(fileSystem, last.bytes.subarray(0, lastRecordOffset + keptBytes), G2);
      const { records, result } = collectXlog(fileSystem, { readBufferBytes: 24 });
      assert.deepEqual(records.map((r) => r.lsn), [1n, 2n, 3n, 4n, 5n], `kept ${keptBytes}`);
      assert.equal(result.lastLsn, 5n);
      assert.equal(result.lastGeneration, 2);
      assert.equal(result.tailOffsetBytes, lastRecordOffset);
      assert.equal(result.tornBytes, keptBytes);
    }
  });

  it('treats a checksum mismatch in the last record as a torn tail', async () => {
    for (const flippedIndex of [4, 9, 16, 20]) {
      const fileSystem = await newSimLog();
      const { bytes, recordOffsets } = xlogFileBytes({ generation: G1, previousLsn: ZERO,
        records: threeRecords(1) });
      bytes[recordOffsets[2]! + flippedIndex]! ^= 0x40;
      writeXlogFile(fileSystem, bytes, G1);
      const { records, result } = collectXlog(fileSystem);
      assert.deepEqual(records.map((r) => r.lsn), [1n, 2n]);
      assert.equal(result.tailOffsetBytes, recordOffsets[2]);
      assert.equal(result.tornBytes, bytes.length - recordOffsets[2]!);
    }
  });

  it('treats a checksum mismatch in an earlier file as corruption', async () => {
    const fileSystem = await newSimLog();
    const earlier = xlogFileBytes({ generation: G1, previousLsn: ZERO, records: threeRecords(1) });
    earlier.bytes[earlier.recordOffsets[1]! + 9]! ^= 1;
    writeXlogFile(fileSystem, earlier.bytes, G1);
    writeXlogFile(fileSystem, emptyFile(G2, 3n), G2);
    assert.throws(() => collectXlog(fileSystem),
      rejectsWith('CORRUPTION',
        new RegExp(`3_1\\.xlog, offset ${earlier.recordOffsets[1]}: checksum`)));
  });

  it('treats a cut earlier file as corruption', async () => {
    const fileSystem = await newSimLog();
    const earlier = xlogFileBytes({ generation: G1, previousLsn: ZERO, records: threeRecords(1) });
    writeXlogFile(fileSystem, earlier.bytes.subarray(0, earlier.bytes.length - 1), G1);
    writeXlogFile(fileSystem, emptyFile(G2, 3n), G2);
    assert.throws(() => collectXlog(fileSystem), rejectsWith('CORRUPTION', /runs past the end/));
  });

  it('reports an LSN gap inside a file as corruption, naming what it expected', async () => {
    const fileSystem = await newSimLog();
    const records = [commitRecord(1, bytesOf(1)), commitRecord(3, bytesOf(2))];
    const { bytes, recordOffsets } = xlogFileBytes({ generation: G1, previousLsn: ZERO, records });
    writeXlogFile(fileSystem, bytes, G1);
    assert.throws(() => collectXlog(fileSystem), rejectsWith('CORRUPTION',
      new RegExp(`partition 3, file /txnlog/3/3_1\\.xlog, offset ${recordOffsets[1]}: LSN gap: ` +
        'expected LSN 2, found 3')));
  });

  it('reports an LSN gap between files as corruption', async () => {
    const fileSystem = await newSimLog();
    writeXlogFile(fileSystem, xlogFileBytes({ generation: G1, previousLsn: ZERO,
      records: threeRecords(1) }).bytes, G1);
    writeXlogFile(fileSystem, xlogFileBytes({ generation: G2, previousLsn: lsn(4n),
      records: [commitRecord(5, bytesOf(1))] }).bytes, G2);
    assert.throws(() => collectXlog(fileSystem),
      rejectsWith('CORRUPTION', /3_2\.xlog, offset 0: LSN gap/));
  });

  it('rejects a bad or missing FILE_HEADER', async () => {
    const cases = [
      { fileHeader: { partitionId: partitionId(4) }, pattern: /names partition 4/ },
      { fileHeader: { generation: G3 }, pattern: /names generation 3/ },
    ];
    for (const { fileHeader, pattern } of cases) {
      const fileSystem = await newSimLog();
      writeXlogFile(fileSystem, xlogFileBytes({ generation: G1, previousLsn: ZERO, records: [],
        fileHeader }).bytes, G1);
      assert.throws(() => collectXlog(fileSystem), rejectsWith('CORRUPTION', pattern));
    }
    const fileSystem = await newSimLog();
    const { bytes, recordOffsets } = xlogFileBytes({ generation: G1, previousLsn: ZERO,
      records: threeRecords(1) });
    writeXlogFile(fileSystem, bytes.subarray(recordOffsets[0]), G1);
    assert.throws(() => collectXlog(fileSystem), rejectsWith('CORRUPTION', /missing FILE_HEADER/));
  });

  it('rejects a record of unknown type with a good checksum, even in the last file', async () => {
    const fileSystem = await newSimLog();
    const { bytes, recordOffsets } = xlogFileBytes({ generation: G1, previousLsn: ZERO,
      records: [commitRecord(1, bytesOf(1))] });
    const at = recordOffsets[0]!;
    bytes[at + 16] = 42;
    // Checksum again over lsn, type and payload, as the format draws it.
    Buffer.from(bytes.buffer).writeUInt32LE(crc32c(bytes.subarray(at + 8)), at + 4);
    writeXlogFile(fileSystem, bytes, G1);
    assert.throws(() => collectXlog(fileSystem),
      rejectsWith('CORRUPTION', /unknown record type 42/));
  });

  it('rejects a newer format version as NOT_SUPPORTED', async () => {
    const fileSystem = await newSimLog();
    const { bytes } = xlogFileBytes({ generation: G1, previousLsn: ZERO, records: [] });
    bytes[XLOG_RECORD_HEADER_BYTES] = 2; // formatVersion, the payload's first u16
    Buffer.from(bytes.buffer).writeUInt32LE(crc32c(bytes.subarray(8)), 4);
    writeXlogFile(fileSystem, bytes, G1);
    assert.throws(() => collectXlog(fileSystem),
      rejectsWith('NOT_SUPPORTED', /version 2 is newer/));
  });

  it('counts an empty last file as torn at 0, and an empty earlier one as corruption', async () => {
    const fileSystem = await newSimLog();
    writeXlogFile(fileSystem, xlogFileBytes({ generation: G1, previousLsn: ZERO,
      records: threeRecords(1) }).bytes, G1);
    writeXlogFile(fileSystem, new Uint8Array(0), G2);
    const { result } = collectXlog(fileSystem);
    assert.equal(result.lastGeneration, 2);
    assert.equal(result.lastLsn, 3n);
    assert.equal(result.tailOffsetBytes, 0);
    assert.equal(result.tornBytes, 0);
    writeXlogFile(fileSystem, emptyFile(G3, 3n), G3);
    assert.throws(() => collectXlog(fileSystem),
      rejectsWith('CORRUPTION', /3_2\.xlog, offset 0: short/));
  });

  it('rejects a length over the maximum followed by a valid record as corruption', async () => {
    const fileSystem = await newSimLog();
    const { bytes, recordOffsets } = xlogFileBytes({ generation: G1, previousLsn: ZERO,
      records: threeRecords(1) });
    Buffer.from(bytes.buffer).writeUInt32LE(XLOG_RECORD_BYTES_MAX + 1, recordOffsets[1]!);
    writeXlogFile(fileSystem, bytes, G1);
    assert.throws(() => collectXlog(fileSystem), rejectsWith('CORRUPTION', /over the maximum/));
  });

  it('reads a record larger than the read buffer', async () => {
    const fileSystem = await newSimLog();
    const big = Uint8Array.from({ length: 5000 }, (_, i) => i % 251);
    const records = [commitRecord(1, bytesOf(1)), commitRecord(2, big), commitRecord(3, bytesOf())];
    const { bytes } = xlogFileBytes({ generation: G1, previousLsn: ZERO, records });
    writeXlogFile(fileSystem, bytes, G1);
    const { records: read } = collectXlog(fileSystem, { readBufferBytes: 64 });
    assert.deepEqual(read.map((r) => r.payload.length), [1, 5000, 0]);
    assert.deepEqual(read[1]!.payload, [...big]);
  });

  it('passes read errors through as IO', async () => {
    const fileSystem = await newSimLog();
    writeXlogFile(fileSystem, xlogFileBytes({ generation: G1, previousLsn: ZERO,
      records: threeRecords(1) }).bytes, G1);
    fileSystem.failReads(xlogFilePath(ROOT, P3, G1));
    assert.throws(() => collectXlog(fileSystem), rejectsWith('IO', /EIO/));
  });
});

describe('truncateXlogTornTail', () => {
  it('cuts the torn bytes off the last file and makes the cut durable', async () => {
    const fileSystem = await newSimLog();
    const { bytes, recordOffsets } = xlogFileBytes({ generation: G1, previousLsn: ZERO,
      records: threeRecords(1) });
    const path = writeXlogFile(fileSystem, bytes.subarray(0, bytes.length - 2), G1);
    const handle = fileSystem.open(path, 'read');
    await handle.datasync();
    handle.close();
    await fileSystem.syncDirectory(ROOT);
    await fileSystem.syncDirectory(`${ROOT}/3`);
    const scan = scanXlog(fileSystem, { root: ROOT, partitionId: P3 });
    assert.equal(scan.tornBytes, bytes.length - 2 - recordOffsets[2]!);
    assert.equal(await truncateXlogTornTail(fileSystem, scan), true);
    fileSystem.crash();
    assert.equal(fileSystem.fileBytes(path)?.length, recordOffsets[2]);
    const again = scanXlog(fileSystem, { root: ROOT, partitionId: P3 });
    assert.equal(again.tornBytes, 0);
    assert.equal(again.lastLsn, 2n);
    assert.equal(await truncateXlogTornTail(fileSystem, again), false);
  });
});
