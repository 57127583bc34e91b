// The torn-tail rule (wal/xlog-tail.ts): garbage after the last good record of the newest xlog file,
// with no valid record after it, is cut and every record before it kept; garbage followed by a
// valid record, or in an older file, is CORRUPTION naming the file and the offset.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { lsn } from '../../../lib/base/ids.ts';
import { encodeXlogRecord, xlogRecordSizeBytes } from '../../../wal/xlog-format.ts';
import { scanXlog, truncateXlogTornTail } from '../../../wal/xlog-reader.ts';
import { Prng } from '../../sim/prng.ts';
import {
  bytesOf, collectXlog, commitRecord, G1, G2, newSimLog, P3, ROOT, writeXlogFile, xlogFileBytes,
} from './xlog-test-helpers.ts';

const ZERO = lsn(0n);

function fourRecords(firstLsn: number) {
  return [1, 2, 3, 4].map((i) => commitRecord(firstLsn + i - 1,
    Uint8Array.from({ length: i * 7 }, (_, j) => (i * 31 + j) % 256)));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offsetBytes = 0;
  for (const part of parts) {
    bytes.set(part, offsetBytes);
    offsetBytes += part.length;
  }
  return bytes;
}

/** One encoded record, alone. */
function recordBytes(lsnNumber: number, payload: Uint8Array): Uint8Array {
  const record = commitRecord(lsnNumber, payload);
  const bytes = new Uint8Array(xlogRecordSizeBytes(payload.length));
  encodeXlogRecord(bytes, 0, record);
  return bytes;
}

/** The garbage tails a crash, a bad disk or a hostile hand leave, by name. */
function garbageTails(): Array<[string, Uint8Array]> {
  const prng = new Prng(50);
  const random50 = Uint8Array.from({ length: 50 }, () => prng.nextIndex(256));
  const hugeLength = new Uint8Array(40);
  Buffer.from(hugeLength.buffer).writeUInt32LE(0xffff_fff0, 0);
  hugeLength.fill(0xab, 4);
  const badCrc = recordBytes(5, bytesOf(9, 9, 9));
  badCrc[4]! ^= 0x01;
  const pastEnd = recordBytes(5, new Uint8Array(100)).subarray(0, 60);
  return [
    ['50 random bytes', random50],
    ['a huge length field', hugeLength],
    ['a record with a bad checksum', badCrc],
    ['a zero-filled tail', new Uint8Array(4096)],
    ['a partial header', recordBytes(5, bytesOf(1)).subarray(0, 10)],
    ['a record cut short', pastEnd],
  ];
}

function rejectsCorruption(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(isStorageError(error, 'CORRUPTION'), String(error));
    assert.match(error.message, pattern);
    return true;
  };
}

describe('xlog torn tail', () => {
  for (const [name, garbage] of garbageTails()) {
    it(`cuts ${name} after the last record of the newest file and keeps every record`, async () => {
      const fileSystem = await newSimLog();
      const older = xlogFileBytes({ generation: G1, previousLsn: ZERO, records: fourRecords(1) });
      const newest = xlogFileBytes({ generation: G2, previousLsn: lsn(4n),
        records: fourRecords(5) });
      writeXlogFile(fileSystem, older.bytes, G1);
      const path = writeXlogFile(fileSystem, concat(newest.bytes, garbage), G2);
      const { records, result } = collectXlog(fileSystem, { readBufferBytes: 32 });
      assert.deepEqual(records.map((r) => r.lsn), [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);
      assert.equal(result.tailOffsetBytes, newest.bytes.length);
      assert.equal(result.tornBytes, garbage.length);
      assert.ok(result.tornReason !== undefined && result.tornReason.length > 0);
      assert.equal(await truncateXlogTornTail(fileSystem, result), true);
      assert.deepEqual(fileSystem.fileBytes(path), newest.bytes);
      assert.equal(collectXlog(fileSystem).result.tornBytes, 0);
    });
  }

  it('calls garbage followed by a valid record corruption, naming file and offset', async () => {
    for (const [name, garbage] of garbageTails()) {
      const fileSystem = await newSimLog();
      const { bytes } = xlogFileBytes({ generation: G1, previousLsn: ZERO,
        records: fourRecords(1) });
      // The record after the damage: the next LSN, or a later one (the damage swallowed one).
      for (const nextLsn of [5, 6]) {
        writeXlogFile(fileSystem, concat(bytes, garbage, recordBytes(nextLsn, bytesOf(7))), G1);
        assert.throws(() => collectXlog(fileSystem), rejectsCorruption(
          new RegExp(`3_1\\.xlog, offset ${bytes.length}: .*a valid record follows at offset ` +
            `${bytes.length + garbage.length}`)), `${name}, then LSN ${nextLsn}`);
      }
    }
  });

  it('calls damage inside the newest file, before its last records, corruption', async () => {
    const fileSystem = await newSimLog();
    const { bytes, recordOffsets } = xlogFileBytes({ generation: G1, previousLsn: ZERO,
      records: fourRecords(1) });
    bytes[recordOffsets[1]! + 20]! ^= 0xff; // a payload byte of LSN 2: LSN 3 and 4 follow
    writeXlogFile(fileSystem, bytes, G1);
    assert.throws(() => collectXlog(fileSystem),
      rejectsCorruption(new RegExp(`offset ${recordOffsets[1]}: checksum mismatch.*follows at ` +
        `offset ${recordOffsets[2]}`)));
  });

  it('calls garbage in an older file corruption', async () => {
    for (const [name, garbage] of garbageTails()) {
      const fileSystem = await newSimLog();
      const older = xlogFileBytes({ generation: G1, previousLsn: ZERO, records: fourRecords(1) });
      const newest = xlogFileBytes({ generation: G2, previousLsn: lsn(4n),
        records: fourRecords(5) });
      writeXlogFile(fileSystem, concat(older.bytes, garbage), G1);
      writeXlogFile(fileSystem, newest.bytes, G2);
      assert.throws(() => collectXlog(fileSystem), rejectsCorruption(
        new RegExp(`3_1\\.xlog, offset ${older.bytes.length}: .*not the last`)), name);
    }
  });

  it('property: random garbage after a valid log is cut, every valid record kept', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 0, maxLength: 6 }),
      fc.uint8Array({ minLength: 1, maxLength: 300 }),
      fc.integer({ min: 17, max: 64 }),
      async (payloads, garbage, readBufferBytes) => {
        const fileSystem = await newSimLog();
        const records = payloads.map((payload, i) => commitRecord(i + 1, payload));
        const { bytes } = xlogFileBytes({ generation: G1, previousLsn: ZERO, records });
        writeXlogFile(fileSystem, concat(bytes, garbage), G1);
        const scan = collectXlog(fileSystem, { readBufferBytes });
        assert.deepEqual(scan.records.map((r) => r.payload), payloads.map((p) => [...p]));
        assert.equal(scan.result.tailOffsetBytes, bytes.length);
        assert.equal(scan.result.tornBytes, garbage.length);
        // And the same garbage with a valid record after it is never cut.
        const next = recordBytes(records.length + 1, bytesOf(1, 2));
        writeXlogFile(fileSystem, concat(bytes, garbage, next), G1);
        assert.throws(() => scanXlog(fileSystem, { root: ROOT, partitionId: P3 }),
          rejectsCorruption(/a valid record follows/));
      },
    ), { numRuns: 200, seed: 12 });
  });

  it('cuts a stale copy of an earlier record in the tail: only a later LSN counts', async () => {
    const fileSystem = await newSimLog();
    const { bytes } = xlogFileBytes({ generation: G1, previousLsn: ZERO, records: fourRecords(1) });
    const tail = concat(bytesOf(0xde, 0xad), recordBytes(2, bytesOf(5)));
    writeXlogFile(fileSystem, concat(bytes, tail), G1);
    const { records, result } = collectXlog(fileSystem);
    assert.equal(records.length, 4);
    assert.equal(result.tornBytes, tail.length);
  });
});
