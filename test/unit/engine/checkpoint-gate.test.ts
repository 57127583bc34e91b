// CheckpointGate: at most K partition checkpoints in flight, in the order they came, a failed one
// handing its turn on; and through a Store, one partition checkpoint syncing at a time over all
// its groups, so at most one data-file fsync of a checkpoint holds a thread of the pool, while the
// next partition writes its blocks; and gates of several engine threads sharing the counts
// (CheckpointGateShared) hold to K over all of them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import fc from 'fast-check';
import { storageOptions } from '../../../lib/base/options.ts';
import { CheckpointGate, checkpointGateSharedCreate } from '../../../lib/engine/checkpoint-gate.ts';
import { Store } from '../../../lib/engine/store.ts';
import type { FileHandle, OpenMode } from '../../../lib/io/file-system.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';
import { SENSORS } from './engine-test-helpers.ts';

/**
 * A SimFileSystem whose data-file fsyncs take a few turns and are counted while in flight, as are
 * the block writes issued meanwhile.
 */
class SlowDataSyncFileSystem extends SimFileSystem {
  dataSyncsInFlightCount = 0;
  dataSyncsInFlightCountMax = 0;
  writesDuringDataSyncCount = 0;
  syncTurnCount = 3;

  override open(path: string, mode: OpenMode): FileHandle {
    const handle = super.open(path, mode);
    if (!path.endsWith('.dat')) return handle;
    const datasync = handle.datasync.bind(handle);
    handle.datasync = async () => {
      this.dataSyncsInFlightCount++;
      this.dataSyncsInFlightCountMax =
        Math.max(this.dataSyncsInFlightCountMax, this.dataSyncsInFlightCount);
      try {
        for (let turn = 0; turn < this.syncTurnCount; turn++) await nextMacrotask();
        await datasync();
      } finally {
        this.dataSyncsInFlightCount--;
      }
    };
    const writeAsync = handle.writeAsync.bind(handle);
    handle.writeAsync = (bytes, offsetBytes) => {
      if (this.dataSyncsInFlightCount > 0) this.writesDuringDataSyncCount++;
      return writeAsync(bytes, offsetBytes);
    };
    return handle;
  }
}

describe('CheckpointGate', () => {
  it('runs at most K bodies at once, in the order they came, and a failure passes the turn on',
    async () => {
      await fc.assert(fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.record({ turnCount: fc.nat(3), fails: fc.boolean() },
          { noNullPrototype: true }), { minLength: 1, maxLength: 12 }),
        async (inFlightCountMax, bodies) => {
          const gate = new CheckpointGate(inFlightCountMax);
          let running = 0;
          let runningMax = 0;
          const started: number[] = [];
          const outcomes = await Promise.allSettled(bodies.map((body, index) => gate.run(async () => {
            started.push(index);
            running++;
            runningMax = Math.max(runningMax, running);
            for (let turn = 0; turn < body.turnCount; turn++) await nextMacrotask();
            running--;
            if (body.fails) throw new Error(`body ${index}`);
            return index;
          })));
          assert.ok(runningMax <= gate.inFlightCountMaxSeen);
          assert.ok(gate.inFlightCountMaxSeen <= inFlightCountMax);
          assert.equal(gate.inFlightCount, 0);
          assert.deepStrictEqual(started, bodies.map((_, index) => index));
          outcomes.forEach((outcome, index) =>
            assert.equal(outcome.status, bodies[index]!.fails ? 'rejected' : 'fulfilled'));
        },
      ), { numRuns: 50 });
    });

  it('a Store syncs one partition checkpoint at a time over all its groups', async () => {
    const fileSystem = new SlowDataSyncFileSystem({ seed: 1 });
    fileSystem.mkdirp('/h');
    await fileSystem.syncDirectory('/');
    const options = storageOptions({ partitionNum: 8, concurrency: 4, logWriteMode: 0 });
    const store = await Store.open({ home: '/h', options, fileSystem });
    try {
      // Enough containers that every group has changed partitions to checkpoint.
      for (let c = 0; c < 24; c++) {
        await store.createContainer({ ...structuredClone(SENSORS), name: `sensors${c}` });
        await store.session().container(`sensors${c}`).put([`k${c}`, BigInt(c)]);
      }
      fileSystem.dataSyncsInFlightCountMax = 0;
      await store.checkpoint();
      const groupsSynced = store.partitionGroups.filter((group) => group.partitions.some(
        (partition) => partition.checkpointer!.dataFiles.counters.flushCount > 0));
      assert.equal(groupsSynced.length, 4, 'every group had partitions to checkpoint');
      assert.equal(fileSystem.dataSyncsInFlightCountMax, 1);
    } finally {
      await store.close();
    }
  });

  it('a group writes its next partition\'s blocks while the one before syncs, and recovers all',
    async () => {
      const fileSystem = new SlowDataSyncFileSystem({ seed: 3 });
      fileSystem.syncTurnCount = 30;
      fileSystem.mkdirp('/h');
      await fileSystem.syncDirectory('/');
      const options = storageOptions({ partitionNum: 8, concurrency: 1, logWriteMode: 0 });
      let store = await Store.open({ home: '/h', options, fileSystem });
      const containerCount = 16;
      try {
        for (let c = 0; c < containerCount; c++) {
          await store.createContainer({ ...structuredClone(SENSORS), name: `sensors${c}` });
          await store.session().container(`sensors${c}`).put([`k${c}`, BigInt(c)]);
        }
        await store.checkpoint();
        assert.ok(fileSystem.writesDuringDataSyncCount > 0,
          'no block was written while a partition synced');
        assert.equal(fileSystem.dataSyncsInFlightCountMax, 1);
      } finally {
        await store.close();
      }
      // Every partition's checkpoint is whole: a reopen finds every row.
      store = await Store.open({ home: '/h', options, fileSystem });
      try {
        for (let c = 0; c < containerCount; c++) {
          const row = await store.session().container(`sensors${c}`).get(`k${c}`);
          assert.deepStrictEqual(row, [`k${c}`, BigInt(c)]);
        }
      } finally {
        await store.close();
      }
    });

  it('gates sharing one count run at most K bodies at once over all of them', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 2 }),
      fc.array(fc.record({ gateIndex: fc.nat(2), turnCount: fc.nat(3), fails: fc.boolean() },
        { noNullPrototype: true }), { minLength: 1, maxLength: 10 }),
      async (inFlightCountMax, bodies) => {
        // As the node's engine threads: a gate each, one shared count.
        const shared = checkpointGateSharedCreate();
        const gates = [0, 1, 2].map(() => new CheckpointGate(inFlightCountMax, shared));
        let running = 0;
        let runningMax = 0;
        const outcomes = await Promise.allSettled(bodies.map((body, index) =>
          gates[body.gateIndex]!.run(async () => {
            running++;
            runningMax = Math.max(runningMax, running);
            for (let turn = 0; turn < body.turnCount; turn++) await nextMacrotask();
            running--;
            if (body.fails) throw new Error(`body ${index}`);
          })));
        assert.ok(runningMax <= inFlightCountMax);
        assert.equal(new Int32Array(shared)[0], 0, 'every place given back');
        outcomes.forEach((outcome, index) =>
          assert.equal(outcome.status, bodies[index]!.fails ? 'rejected' : 'fulfilled'));
      },
    ), { numRuns: 50 });
  });

  it('Stores of one group each, sharing the counts, sync one partition at a time', async () => {
    const fileSystem = new SlowDataSyncFileSystem({ seed: 2 });
    fileSystem.mkdirp('/h');
    await fileSystem.syncDirectory('/');
    const options = storageOptions({ partitionNum: 8, concurrency: 4, logWriteMode: 0 });
    // As GroupWorkersEngine opens its workers: the home prepared once, then a Store per group.
    await Store.prepareHome({ home: '/h', options, fileSystem });
    const checkpointGateShared = checkpointGateSharedCreate();
    const stores = await Promise.all([0, 1, 2, 3].map((groupIndex) => Store.open({
      home: '/h', options, fileSystem, groupIndexes: [groupIndex], checkpointGateShared,
    })));
    try {
      for (let c = 0; c < 24; c++) {
        const name = `sensors${c}`;
        for (const store of stores) {
          if (!store.ownsPartition(store.partitionIdOf(name))) continue;
          await store.createContainer({ ...structuredClone(SENSORS), name });
          await store.session().container(name).put([`k${c}`, BigInt(c)]);
        }
      }
      fileSystem.dataSyncsInFlightCountMax = 0;
      await Promise.all(stores.map((store) => store.checkpoint()));
      const storesSynced = stores.filter((store) => store.partitionGroups.some((group) =>
        group.partitions.some((partition) =>
          partition.checkpointer!.dataFiles.counters.flushCount > 0)));
      assert.equal(storesSynced.length, 4, 'every Store had partitions to checkpoint');
      assert.equal(fileSystem.dataSyncsInFlightCountMax, 1);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
