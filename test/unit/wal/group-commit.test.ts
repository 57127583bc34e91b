import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { isStorageError } from '../../../lib/base/errors.ts';
import { partitionId, type Lsn } from '../../../lib/base/ids.ts';
import type { Clock } from '../../../lib/io/clock.ts';
import { GroupCommit } from '../../../wal/group-commit.ts';
import { xlogFilePath } from '../../../wal/xlog-files.ts';
import { XlogRecordType } from '../../../wal/xlog-format.ts';
import { XlogWriter } from '../../../wal/xlog-writer.ts';
import { bytesOf, G1, newSimLog, ROOT, xlogWriters } from './xlog-test-helpers.ts';

/** Each reading of the monotonic clock is 5 ms after the one before. */
function steppingClock(): Clock {
  let nowMs = 0;
  return { nowMs: () => nowMs, monotonicMs: () => (nowMs += 5) };
}

function commit(groupCommit: GroupCommit, writer: XlogWriter, value: number): Promise<Lsn> {
  const committedLsn = writer.append(XlogRecordType.COMMIT, bytesOf(value));
  return groupCommit.waitDurable(writer, committedLsn).then(() => committedLsn);
}

function isCode(code: string) {
  return (error: unknown) => isStorageError(error) && error.code === code;
}

describe('GroupCommit', () => {
  it('covers 100 commits issued at once on 3 writers with one datasync per writer', async () => {
    const fileSystem = await newSimLog();
    const all = await xlogWriters(fileSystem, 3);
    const groupCommit = new GroupCommit({ clock: steppingClock() });
    for (const writer of all) groupCommit.addWriter(writer);
    const syncsBefore = fileSystem.counters.datasyncCount;
    const commits = Array.from({ length: 100 }, (_, i) => commit(groupCommit, all[i % 3]!, i));
    const committed = await Promise.all(commits);
    assert.equal(committed.length, 100);
    for (const writer of all) assert.equal(writer.syncedLsn, writer.lastLsn);
    // Commits queued in one synchronous run share a round: one datasync per writer.
    const syncs = fileSystem.counters.datasyncCount - syncsBefore;
    assert.equal(syncs, 3);
    assert.equal(groupCommit.syncRoundCount, 1);
    assert.equal(groupCommit.fileSyncCount, syncs);
  });

  it('batches commits that keep arriving while syncs run', async () => {
    const fileSystem = await newSimLog();
    const all = await xlogWriters(fileSystem, 3);
    const groupCommit = new GroupCommit({ clock: steppingClock() });
    for (const writer of all) groupCommit.addWriter(writer);
    const syncsBefore = fileSystem.counters.datasyncCount;
    const commits: Promise<Lsn>[] = [];
    for (let i = 0; i < 100; i++) {
      commits.push(commit(groupCommit, all[i % 3]!, i));
      if (i % 10 === 9) await nextMacrotask(); // let a sync round finish now and then
    }
    await Promise.all(commits);
    const syncs = fileSystem.counters.datasyncCount - syncsBefore;
    assert.ok(syncs < 100 / 3, `${syncs} datasyncs for 100 commits`);
    // About one round per burst of ten commits, each syncing the three writers once.
    assert.ok(groupCommit.syncRoundCount >= 2, 'commits came during a round, waited for the next');
    assert.ok(groupCommit.syncRoundCount <= 12, `${groupCommit.syncRoundCount} rounds`);
    assert.ok(syncs <= 3 * groupCommit.syncRoundCount);
    for (const writer of all) assert.equal(writer.syncedLsn, writer.lastLsn);
  });

  it('resolves at once when the LSN is already durable', async () => {
    const fileSystem = await newSimLog();
    const [writer] = await xlogWriters(fileSystem, 1);
    const groupCommit = new GroupCommit({ clock: steppingClock() });
    groupCommit.addWriter(writer!);
    const committedLsn = writer!.append(XlogRecordType.COMMIT, bytesOf(1));
    await writer!.datasync();
    await groupCommit.waitDurable(writer!, committedLsn);
    assert.equal(groupCommit.syncRoundCount, 0);
  });

  it('rejects the waiters of a failed datasync, breaks its writer, spares the others', async () => {
    const fileSystem = await newSimLog();
    const [good, bad] = await xlogWriters(fileSystem, 2);
    const groupCommit = new GroupCommit({ clock: steppingClock() });
    groupCommit.addWriter(good!);
    groupCommit.addWriter(bad!);
    fileSystem.failNextDatasync(xlogFilePath(ROOT, partitionId(1), G1));
    const goodCommit = commit(groupCommit, good!, 1);
    const badCommits = [commit(groupCommit, bad!, 2), commit(groupCommit, bad!, 3)];
    // This one arrives during the failing round: it waits for the next, which finds the writer
    // broken.
    const lateBad = commit(groupCommit, bad!, 4);
    assert.equal(await goodCommit, 1n);
    for (const badCommit of badCommits) await assert.rejects(badCommit, /EIO/);
    await assert.rejects(lateBad, isCode('IO'));
    assert.ok(bad!.brokenError !== undefined);
    assert.throws(() => bad!.append(XlogRecordType.COMMIT, bytesOf(5)), isCode('IO'));
    await assert.rejects(groupCommit.waitDurable(bad!, bad!.lastLsn), isCode('IO'));
    assert.equal(await commit(groupCommit, good!, 6), 2n); // the other writer goes on
  });

  it('rejects waiters beyond its limit with LIMIT_EXCEEDED', async () => {
    const fileSystem = await newSimLog();
    const [writer] = await xlogWriters(fileSystem, 1);
    const groupCommit = new GroupCommit({ clock: steppingClock(), waiterCountMax: 3 });
    groupCommit.addWriter(writer!);
    const accepted = [1, 2, 3].map((i) => commit(groupCommit, writer!, i));
    assert.equal(groupCommit.waiterCount, 3);
    await assert.rejects(commit(groupCommit, writer!, 4), isCode('LIMIT_EXCEEDED'));
    await Promise.all(accepted);
    assert.equal(groupCommit.waiterCount, 0);
    await commit(groupCommit, writer!, 5);
  });

  it('syncAll syncs every writer with records not yet durable, and counts the time', async () => {
    const fileSystem = await newSimLog();
    const all = await xlogWriters(fileSystem, 3);
    const groupCommit = new GroupCommit({ clock: steppingClock() });
    for (const writer of all) groupCommit.addWriter(writer);
    all[0]!.append(XlogRecordType.COMMIT, bytesOf(1));
    all[2]!.append(XlogRecordType.COMMIT, bytesOf(2));
    await groupCommit.syncAll();
    assert.deepEqual(all.map((w) => w.syncedLsn), [1n, 0n, 1n]);
    const { syncRoundCount, fileSyncCount, syncTimeMsTotal } = groupCommit;
    assert.deepEqual([syncRoundCount, fileSyncCount, syncTimeMsTotal], [1, 2, 5]);
    await groupCommit.syncAll(); // nothing to do
    assert.equal(groupCommit.syncRoundCount, 1);
    await groupCommit.idle();
  });
});
