import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lsn, partitionId, type Lsn } from '../../../lib/base/ids.ts';
import { systemClock } from '../../../lib/io/clock.ts';
import { GroupCommit } from '../../../wal/group-commit.ts';
import {
  journalFilePath, listJournalFiles, parseJournalFileName, rangeContains, rangesOverlap,
} from '../../../wal/journal-files.ts';
import {
  decodeJournalFileHeader, decodeJournalRecord, encodeJournalFileHeader, encodeJournalRecord,
  JOURNAL_FILE_HEADER_BYTES, JOURNAL_FORMAT_VERSION, journalRecordSizeBytes, type JournalRecord,
} from '../../../wal/journal-format.ts';
import { scanJournalFile } from '../../../wal/journal-reader.ts';
import { readGroupJournals, removeForeignJournalFiles } from '../../../wal/journal-recovery.ts';
import { JournalWriter } from '../../../wal/journal-writer.ts';
import { XlogRecordType } from '../../../wal/xlog-format.ts';
import { XlogWriter } from '../../../wal/xlog-writer.ts';
import { scanXlog } from '../../../wal/xlog-reader.ts';
import type { SimFileSystem } from '../../sim/sim-file-system.ts';
import { newSimLog, ROOT, xlogWriters } from './xlog-test-helpers.ts';

const RANGE = { startPartitionId: 0, partitionCount: 8 };

function record(partition: number, lsnNumber: number, payload: Uint8Array): JournalRecord {
  return { partitionId: partitionId(partition), lsn: lsn(BigInt(lsnNumber)), type: 2, payload };
}

/** `length` bytes that differ by seed. */
function payload(seed: number, length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (seed * 31 + i * 7) & 0xff);
}

/** A group commit with `count` xlog writers and a journal over partitions 0..7. */
async function journaledGroup(fileSystem: SimFileSystem, count: number, journalFileBytesMax?: number) {
  const writers = await xlogWriters(fileSystem, count);
  const groupCommit = new GroupCommit({ clock: systemClock, journalFileBytesMax });
  for (const writer of writers) groupCommit.addWriter(writer);
  groupCommit.attachJournal(
    await JournalWriter.create({ fileSystem, root: ROOT, range: RANGE, sequence: 1 }), fileSystem);
  const commit = (writer: XlogWriter, payload: Uint8Array): Promise<Lsn> => {
    const appended = writer.append(XlogRecordType.COMMIT, payload);
    return groupCommit.commit(writer, {
      partitionId: writer.partitionId, lsn: appended, type: XlogRecordType.COMMIT, payload,
    }).then(() => appended);
  };
  return { writers, groupCommit, commit };
}

describe('journal format', () => {
  it('round-trips a header and a record, and refuses damaged ones', () => {
    const header = { formatVersion: JOURNAL_FORMAT_VERSION, startPartitionId: partitionId(32),
      partitionCount: 32, sequence: 7 };
    const headerBytes = encodeJournalFileHeader(header);
    assert.equal(headerBytes.length, JOURNAL_FILE_HEADER_BYTES);
    assert.deepEqual(decodeJournalFileHeader(headerBytes), header);
    const damaged = headerBytes.slice();
    damaged[12]! ^= 1;
    assert.match(String(decodeJournalFileHeader(damaged)), /checksum/);
    assert.match(String(decodeJournalFileHeader(headerBytes.subarray(0, 10))), /short/);
    const bytes = new Uint8Array(journalRecordSizeBytes(5));
    const original = record(40, 2 ** 40, payload(9, 5));
    assert.equal(encodeJournalRecord(bytes, 0, original), bytes.length);
    assert.deepEqual(decodeJournalRecord(bytes, 0), original);
    bytes[bytes.length - 1]! ^= 0x80;
    assert.equal(decodeJournalRecord(bytes, 0), undefined);
  });

  it('names files by partition range and sequence', () => {
    const path = journalFilePath(ROOT, { startPartitionId: 32, partitionCount: 32, sequence: 3 });
    assert.equal(path, `${ROOT}/journal/32-63_3.journal`);
    assert.deepEqual(parseJournalFileName('32-63_3.journal'),
      { startPartitionId: 32, partitionCount: 32, sequence: 3 });
    for (const bad of ['63-32_3.journal', '0-1_0.journal', '01-2_1.journal', '0-1_1.xlog']) {
      assert.equal(parseJournalFileName(bad), undefined, bad);
    }
    const a = { startPartitionId: 0, partitionCount: 64 };
    const b = { startPartitionId: 32, partitionCount: 32 };
    assert.ok(rangesOverlap(a, b) && rangeContains(a, b) && !rangeContains(b, a));
    assert.ok(!rangesOverlap(b, { startPartitionId: 64, partitionCount: 1 }));
  });
});

describe('JournalWriter and scanJournalFile', () => {
  it('reads back every synced record and stops at a torn tail', async () => {
    const fileSystem = await newSimLog();
    const journal = await JournalWriter.create({ fileSystem, root: ROOT, range: RANGE, sequence: 1 });
    const written = Array.from({ length: 50 }, (_, i) => record(i % 8, 1 + Math.floor(i / 8),
      payload(i, 1 + (i * 37) % 300)));
    for (const r of written.slice(0, 40)) journal.append(r);
    await journal.sync();
    for (const r of written.slice(40)) journal.append(r);
    await journal.sync();
    journal.append(record(1, 99, payload(1, 2000))); // never synced
    fileSystem.crash({ tornWrites: true });
    const read: JournalRecord[] = [];
    const scan = scanJournalFile(fileSystem, journal.path, () => true,
      (r) => read.push({ ...r, payload: r.payload.slice() }));
    assert.equal(scan.header?.sequence, 1);
    assert.deepEqual(read, written);
    // A header that never became durable: the file holds nothing.
    const empty = `${ROOT}/journal/0-7_2.journal`;
    fileSystem.open(empty, 'create').write(payload(1, 10), 0);
    assert.equal(scanJournalFile(fileSystem, empty, () => true, () => assert.fail()).header,
      undefined);
  });
});

describe('GroupCommit with a journal', () => {
  it('makes commits on 8 partitions durable with one journal sync and no xlog sync', async () => {
    const fileSystem = await newSimLog();
    const { writers, groupCommit, commit } = await journaledGroup(fileSystem, 8);
    const syncsBefore = fileSystem.counters.datasyncCount;
    const committed = await Promise.all(
      Array.from({ length: 64 }, (_, i) => commit(writers[i % 8]!, payload(i, 100))));
    assert.equal(committed.length, 64);
    assert.equal(fileSystem.counters.datasyncCount - syncsBefore, 1);
    assert.equal(groupCommit.journalSyncCount, 1);
    for (const writer of writers) assert.equal(writer.syncedLsn, 0n);
    // A power cut takes the xlog tails; the journal holds every acknowledged record.
    fileSystem.crash();
    for (const writer of writers) {
      assert.equal(scanXlog(fileSystem, { root: ROOT, partitionId: writer.partitionId }).lastLsn, 0n);
    }
    const journals = readGroupJournals(fileSystem, ROOT, RANGE);
    assert.equal(journals.nextSequence, 2);
    for (const [index] of writers.entries()) {
      const records = journals.records.get(partitionId(index))!;
      assert.deepEqual(records.map((r) => r.lsn), [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);
      assert.deepEqual(records.map((r) => r.payload), Array.from({ length: 8 },
        (_, k) => payload(index + 8 * k, 100)));
    }
  });

  it('acknowledges a journaled record only once the xlog-only record before it is synced', async () => {
    const fileSystem = await newSimLog();
    const { writers: [writer], commit } = await journaledGroup(fileSystem, 1);
    const large = commit(writer!, payload(1, 100 * 1024)); // over the journal's record size
    const small = commit(writer!, payload(2, 10));
    assert.deepEqual(await Promise.all([large, small]), [1n, 2n]);
    assert.ok(writer!.syncedLsn >= 1n);
    fileSystem.crash();
    const journals = readGroupJournals(fileSystem, ROOT, RANGE);
    assert.deepEqual(journals.records.get(partitionId(0))!.map((r) => r.lsn), [2n]);
    assert.ok(scanXlog(fileSystem, { root: ROOT, partitionId: partitionId(0) }).lastLsn >= 1n);
  });

  it('fails a journaled record whose earlier xlog-only record could not be synced', async () => {
    const fileSystem = await newSimLog();
    const { writers: [writer], groupCommit, commit } = await journaledGroup(fileSystem, 1);
    fileSystem.failNextDatasync(`${ROOT}/0/0_1.xlog`);
    const large = commit(writer!, payload(1, 100 * 1024));
    const small = commit(writer!, payload(2, 10));
    await assert.rejects(large, /EIO/);
    // The journal holds it, but recovery could not reach it past the lost record 1.
    await assert.rejects(small, /EIO/);
    assert.equal(groupCommit.journalSyncCount, 1);
  });

  it('fails the commits of a failed journal sync, and every later one', async () => {
    const fileSystem = await newSimLog();
    const { writers, groupCommit, commit } = await journaledGroup(fileSystem, 2);
    fileSystem.failNextDatasync(groupCommit.journalPath);
    const commits = [commit(writers[0]!, payload(1, 10)), commit(writers[1]!, payload(2, 10))];
    for (const failed of commits) await assert.rejects(failed, /EIO/);
    assert.match(String(groupCommit.journalError), /EIO/);
    // The kernel may have dropped what it failed to write: the journal is not retried.
    await assert.rejects(commit(writers[0]!, payload(3, 10)), /broken/);
    // A record too large for the journal still syncs its own xlog.
    assert.equal(await commit(writers[1]!, payload(4, 100 * 1024)), 2n);
  });

  it('retires a full journal file: xlogs synced, a new file, the old one deleted', async () => {
    const fileSystem = await newSimLog();
    const { writers, groupCommit, commit } = await journaledGroup(fileSystem, 4, 4096);
    for (let round = 0; round < 20; round++) {
      await Promise.all(writers.map((writer, i) => commit(writer, payload(round * 4 + i, 200))));
    }
    const files = listJournalFiles(fileSystem, ROOT, RANGE);
    assert.ok(files.length === 1 && files[0]!.sequence > 1, JSON.stringify(files));
    assert.equal(groupCommit.journalPath, journalFilePath(ROOT, files[0]!));
    fileSystem.crash();
    // Whatever the live file lacks, the synced xlogs hold.
    const journals = readGroupJournals(fileSystem, ROOT, RANGE);
    for (const [index] of writers.entries()) {
      const xlogLast = scanXlog(fileSystem, { root: ROOT, partitionId: partitionId(index) }).lastLsn;
      const journaled = journals.records.get(partitionId(index)) ?? [];
      assert.equal(journaled.length === 0 ? xlogLast : journaled.at(-1)!.lsn, 20n);
      assert.ok(journaled.length === 0 || journaled[0]!.lsn <= xlogLast + 1n);
    }
  });

  it('removes files of a range no open group contains', async () => {
    const fileSystem = await newSimLog();
    for (const range of [{ startPartitionId: 0, partitionCount: 4 },
      { startPartitionId: 4, partitionCount: 4 }, { startPartitionId: 0, partitionCount: 8 }]) {
      (await JournalWriter.create({ fileSystem, root: ROOT, range, sequence: 1 })).close();
    }
    await removeForeignJournalFiles(fileSystem, ROOT, [{ startPartitionId: 0, partitionCount: 4 },
      { startPartitionId: 4, partitionCount: 4 }]);
    assert.deepEqual(fileSystem.list(`${ROOT}/journal`), ['0-3_1.journal', '4-7_1.journal']);
  });
});
