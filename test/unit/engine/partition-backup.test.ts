// Store.backup (lib/engine/partition-backup.ts, PartitionGroup.backup): each group checkpoints,
// then copies its partitions' files with its checkpoints held: a checkpoint asked for while the
// copy runs starts only after it, writes go on meanwhile, and a store opened on the copy (with
// the data directory's store.json, which the node adds) holds every row written before the
// backup began.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Store } from '../../../lib/engine/store.ts';
import type { CheckpointEvent } from '../../../lib/engine/partition-group.ts';
import { copyFileChunked } from '../../../lib/io/file-copy.ts';
import type { FileSystem } from '../../../lib/io/file-system.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';
import { openTestStore, SENSORS } from './engine-test-helpers.ts';

/** Copies `<from>/<pId>/<file>` to `<to>/<pId>/<file>`. */
async function copyTree(fileSystem: FileSystem, from: string, to: string): Promise<void> {
  for (const directory of fileSystem.list(from)) {
    fileSystem.mkdirp(join(to, directory));
    for (const name of fileSystem.list(join(from, directory))) {
      await copyFileChunked(fileSystem,
        { fromPath: join(from, directory, name), toPath: join(to, directory, name) });
    }
  }
}

describe('Store.backup', () => {
  it('holds checkpoints during the copy; the copy restores every row written before it',
    async () => {
      const test = await openTestStore({ partitionNum: 8, concurrency: 1 });
      // Each checkpoint start with the count of files the backup had copied by then.
      const events: string[] = [];
      const copiedFileCount = () => ['/b/data', '/b/txnlog'].reduce((sum, root) => sum +
        test.fileSystem.list(root).reduce((count, directory) =>
          count + test.fileSystem.list(join(root, directory)).length, 0), 0);
      // openTestStore has no onCheckpoint: reopen with one, on the same files.
      await test.store.close();
      const store = await Store.open({
        home: '/h', options: test.options, fileSystem: test.fileSystem, scheduler: test.scheduler,
        onCheckpoint: (event: CheckpointEvent) => {
          if (event.kind === 'started') events.push(`started after ${copiedFileCount()} files`);
        },
      });
      await store.createContainer(structuredClone(SENSORS));
      const sensors = store.session().container('sensors');
      for (let i = 0; i < 200; i++) await sensors.put([`k${i}`, BigInt(i)]);
      const before = await sensors.scan();

      const backup = store.backup({ dataRoot: '/b/data', transactionLogRoot: '/b/txnlog' });
      const checkpoint = store.checkpoint();
      // Writes go on during the backup.
      for (let i = 200; i < 220; i++) await sensors.put([`k${i}`, BigInt(i)]);
      const reports = await backup;
      await checkpoint;
      // One group (the hold is per group): the backup's checkpoint started before any file was
      // copied, the one asked for during the copy only once every file was.
      const fileCount = reports.reduce((sum, report) => sum + report.fileCount, 0);
      assert.ok(fileCount > 0);
      assert.deepEqual(events, ['started after 0 files', `started after ${fileCount} files`]);
      assert.deepEqual(reports.map((report) => report.partitionId), [0, 1, 2, 3, 4, 5, 6, 7]);
      assert.ok(reports.some((report) => report.copiedBytes > 0));
      for (const report of reports) {
        assert.ok(BigInt(report.copiedLsn) >= BigInt(report.checkpointLsn));
      }
      await store.close();

      const fileSystem = test.fileSystem as SimFileSystem;
      fileSystem.mkdirp('/r/data');
      await copyFileChunked(fileSystem, { fromPath: '/h/data/store.json', toPath: '/r/data/store.json' });
      await copyTree(fileSystem, '/b/data', '/r/data');
      await copyTree(fileSystem, '/b/txnlog', '/r/txnlog');
      const restored = await Store.open({
        home: '/r', options: test.options, fileSystem, scheduler: test.scheduler,
      });
      const rows = await restored.session().container('sensors').scan();
      const present = new Set(rows.map((row) => row[0]));
      for (const row of before) assert.ok(present.has(row[0]), String(row[0]));
      await restored.close();
    });
});
