// checkpoint/<storeCompressionMode>: how fast a checkpoint gets a large dirty set to disk.
//
// Store: a fresh home loaded (untimed, logWriteMode 0, so no xlog bytes are left for the kernel to
// write back during the checkpoint) with largeDayCount days of every host, nothing checkpointed
// yet; then one timed Store.checkpoint(), which writes every block, syncs the data files, writes
// the catalog and the cplogs. MB/s is the dirty set's size, block images at storeBlockSize
// (stats().dataFiles.sizeBytes after a first checkpoint: every slot was written once), over that
// time; with COMPRESSION fewer bytes reach the disk (allocatedBytes, in the measures), so the same
// dirty set may go out faster than the disk writes.
//
// Disk: the device's own rate in the same run, for the same size (disk-peer.ts: 1 MiB writes, an
// fdatasync after each). The target is a checkpoint at half of it or better.
//
// LevelDB: the same rows in a fresh LevelDB with a write buffer that holds them all (loaded with
// sync: true, untimed), then flush() (the memtable becomes one synced table, LevelDB's own way of
// putting what its log holds into a data file) and close, timed; snappy as the store's mode says.
// Compared in rows/s, since the two write different bytes for the same rows.
//
// One warm-up and checkpointRepeatCount runs, fresh homes each, heap collected before each timed
// part; medians.

import { assert } from '../../lib/base/assert.ts';
import type { StoreCompressionMode } from '../../lib/base/options.ts';
import {
  CHECKPOINT_INTERVAL_MS_OFF, LARGE_PEER_OPTIONS, settleHeap, withPeer, withStore,
} from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { directorySizeBytes } from '../bench-files.ts';
import {
  megabytesPerS, throughputResult, type BenchDetail, type WorkloadReport,
} from '../bench-result.ts';
import { diskSequentialWriteMBPerS } from '../disk-peer.ts';
import { median, timeAsyncMs } from '../stats.ts';
import { loadDays, tsbsDays, type TsbsDays } from '../tsbs-days.ts';

/** The target: a checkpoint writes at half the disk's sequential rate or better. */
const DISK_RATIO_TARGET = 0.5;

interface StoreCheckpointRun {
  checkpointMs: number;
  sizeBytes: number;
  allocatedBytes: number;
}

interface PeerFlushRun {
  flushMs: number;
  tableBytes: number;
}

export async function checkpointWorkload(
  config: BenchConfig,
  mode: StoreCompressionMode,
): Promise<WorkloadReport> {
  const name = `checkpoint/${mode}`;
  const days = tsbsDays(config.dataset, config.largeDayCount);
  const store: StoreCheckpointRun[] = [];
  const peer: PeerFlushRun[] = [];
  const diskMBPerS: number[] = [];
  // Repetition -1 is the warm-up (JIT, page cache), not recorded.
  for (let repeat = -1; repeat < config.checkpointRepeatCount; repeat++) {
    const storeRun = await storeCheckpointRun(config, days, mode);
    const peerRun = await peerFlushRun(config, days, mode === 'COMPRESSION');
    const disk = await diskSequentialWriteMBPerS(storeRun.sizeBytes);
    if (repeat < 0) continue;
    store.push(storeRun);
    peer.push(peerRun);
    diskMBPerS.push(disk);
  }
  const storeMBPerS = store.map((run) => megabytesPerS(run.sizeBytes, run.checkpointMs));
  const storeRowsPerS = store.map((run) => days.rowCount / (run.checkpointMs / 1000));
  const peerRowsPerS = peer.map((run) => days.rowCount / (run.flushMs / 1000));
  const measures = {
    storeCheckpointMs: store.map((run) => run.checkpointMs),
    storeDataFileSizeBytes: store.map((run) => run.sizeBytes),
    storeDataFileAllocatedBytes: store.map((run) => run.allocatedBytes),
    storeAllocatedMBPerS: store.map((run) => megabytesPerS(run.allocatedBytes, run.checkpointMs)),
    peerFlushAndCloseMs: peer.map((run) => run.flushMs),
    peerTableBytes: peer.map((run) => run.tableBytes),
    peerTableMBPerS: peer.map((run) => megabytesPerS(run.tableBytes, run.flushMs)),
  };
  const method = `${days.rowCount} rows (${days.dayCount} days of every host) on fresh homes; ` +
    `1 warm-up + ${config.checkpointRepeatCount} runs, median; store: Store.checkpoint() of the ` +
    'whole dirty set; disk: 1 MiB writes + fdatasync each, same size, same directory; LevelDB: ' +
    `flush() of a memtable holding every row + close, compression ${mode === 'COMPRESSION'}`;
  const details: BenchDetail[] = [
    { name, method, storeSamples: storeMBPerS, peerSamples: diskMBPerS, measures },
    { name: `${name}/rows`, method, storeSamples: storeRowsPerS, peerSamples: peerRowsPerS },
  ];
  return {
    results: [
      throughputResult(name, median(storeMBPerS), median(diskMBPerS), {
        unit: 'MB/s', peer: 'disk', target: { of: 'ratio', min: DISK_RATIO_TARGET },
      }),
      throughputResult(`${name}/rows`, median(storeRowsPerS), median(peerRowsPerS)),
    ],
    details,
  };
}

async function storeCheckpointRun(
  config: BenchConfig,
  days: TsbsDays,
  mode: StoreCompressionMode,
): Promise<StoreCheckpointRun> {
  const options = {
    logWriteMode: 0, storeCompressionMode: mode, checkpointIntervalMs: CHECKPOINT_INTERVAL_MS_OFF,
  };
  return withStore(days.dataset, options, async (engine) => {
    await loadDays(days, config.ingestWorkerCount,
      (batch) => engine.handles[batch.hostIndex]!.multiPut(batch.rows));
    assert(engine.store.stats().dataFiles.sizeBytes === 0);
    settleHeap();
    const checkpointMs = await timeAsyncMs(() => engine.store.checkpoint());
    const { sizeBytes, allocatedBytes } = engine.store.stats().dataFiles;
    assert(sizeBytes > 0);
    let rowCount = 0;
    for (const handle of engine.handles) rowCount += await handle.count();
    assert(rowCount === days.rowCount, `store holds ${rowCount} of ${days.rowCount} rows`);
    return { checkpointMs, sizeBytes, allocatedBytes };
  });
}

async function peerFlushRun(
  config: BenchConfig,
  days: TsbsDays,
  compression: boolean,
): Promise<PeerFlushRun> {
  return withPeer(days.dataset, async (peer, home) => {
    await loadDays(days, config.ingestWorkerCount, (batch) => peer.putBatch(batch, { sync: true }));
    // Every row is still in the memtable and the log: the flush writes the whole set.
    assert(directorySizeBytes(home, '.ldb') === 0);
    settleHeap();
    const flushMs = await timeAsyncMs(async () => {
      await peer.flush();
      await peer.close();
    });
    return { flushMs, tableBytes: directorySizeBytes(home, '.ldb') };
  }, { ...LARGE_PEER_OPTIONS, compression });
}
