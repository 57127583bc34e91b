// scan/in-memory/*: a full scan of every host's rows, all of them in the store's memory, rows/s.
// Each workload loads a fresh home of each engine first (withLoadedEngines, untimed).
//
//   scan/in-memory/rows      the public ContainerHandle.scan of each host, materialised Row arrays,
//                            vs a LevelDB iterator over every key whose values are decoded with the
//                            same row codec into the same Row arrays. Both sides read usage_user of
//                            every row. Timed by hand (the scans are async): one warm-up each, then
//                            scanRepeatCount runs, alternating engines; median.
//   scan/in-memory/columnar  RowStore.scanBatches of each host with only usage_user, summed from
//                            the zero-copy Float64Array views, vs a LevelDB iterator (keys and
//                            values) reading usage_user from each value. The store side is
//                            synchronous and short, so benchmark.js times it (median of its
//                            samples); LevelDB is timed by hand.

import Benchmark from 'benchmark';
import { assert } from '../../lib/base/assert.ts';
import type { RowStore } from '../../lib/block/row-store.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import {
  rowStoreOf, settleHeap, withLoadedEngines, type StoreUnderTest,
} from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { throughputResult, type WorkloadReport } from '../bench-result.ts';
import type { LevelPeer } from '../leveldb-peer.ts';
import { median, timeAsyncMs } from '../stats.ts';
import { USAGE_USER_COLUMN_INDEX, type TsbsDataset } from '../tsbs.ts';

const ROWS_NAME = 'scan/in-memory/rows';
const COLUMNAR_NAME = 'scan/in-memory/columnar';
/** Float sums over different host orders differ in the last bits only. */
const SUM_RELATIVE_TOLERANCE = 1e-9;

export async function scanRowsWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  return withLoadedEngines(config, async (engine, peer) => {
    const storeScan = async () => checkScan(dataset, await storeScanRows(engine));
    const peerScan = async () => checkScan(dataset, await peerScanRows(peer));
    await storeScan();
    await peerScan();
    const storeSamples: number[] = [];
    const peerSamples: number[] = [];
    for (let repeat = 0; repeat < config.scanRepeatCount; repeat++) {
      settleHeap();
      storeSamples.push(dataset.rowCount / (await timeAsyncMs(storeScan) / 1000));
      settleHeap();
      peerSamples.push(dataset.rowCount / (await timeAsyncMs(peerScan) / 1000));
    }
    return {
      results: [throughputResult(ROWS_NAME, median(storeSamples), median(peerSamples))],
      details: [{
        name: ROWS_NAME, storeSamples, peerSamples,
        method: `performance.now, 1 warm-up + ${config.scanRepeatCount} runs each, ` +
          'heap collected before each run, median',
      }],
    };
  });
}

export async function scanColumnarWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  return withLoadedEngines(config, async (engine, peer) => {
    const rowStores = dataset.hosts.map((host) => rowStoreOf(engine.store, host.containerName));
    const storeSum = columnarSum(rowStores);
    const peerSum = await peer.scanUsageUserSum();
    checkScan(dataset, storeSum);
    checkScan(dataset, peerSum);
    assert(Math.abs(storeSum.sum - peerSum.sum) <= SUM_RELATIVE_TOLERANCE * Math.abs(peerSum.sum));
    settleHeap();
    const storeSamples = benchmarkSamplesS(COLUMNAR_NAME, config, () => columnarSum(rowStores))
      .map((seconds) => dataset.rowCount / seconds);
    const peerSamples: number[] = [];
    for (let repeat = 0; repeat < config.scanRepeatCount; repeat++) {
      settleHeap();
      const ms = await timeAsyncMs(async () => checkScan(dataset, await peer.scanUsageUserSum()));
      peerSamples.push(dataset.rowCount / (ms / 1000));
    }
    return {
      results: [throughputResult(COLUMNAR_NAME, median(storeSamples), median(peerSamples))],
      details: [{
        name: COLUMNAR_NAME, storeSamples, peerSamples,
        method: 'store: benchmark.js, median of its samples (each a mean over one cycle); ' +
          `LevelDB: performance.now, ${config.scanRepeatCount} runs after a warm-up, median`,
      }],
    };
  });
}

async function storeScanRows(engine: StoreUnderTest): Promise<{ rowCount: number; sum: number }> {
  let rowCount = 0;
  let sum = 0;
  for (const handle of engine.handles) {
    const rows = await handle.scan({ direction: 'asc' });
    for (let i = 0; i < rows.length; i++) sum += rows[i]![USAGE_USER_COLUMN_INDEX] as number;
    rowCount += rows.length;
  }
  return { rowCount, sum };
}

async function peerScanRows(peer: LevelPeer): Promise<{ rowCount: number; sum: number }> {
  let sum = 0;
  const rowCount = await peer.scanRows((row: Row) => {
    sum += row[USAGE_USER_COLUMN_INDEX] as number;
  });
  return { rowCount, sum };
}

/** Sums usage_user over every host from the zero-copy column views. */
function columnarSum(rowStores: readonly RowStore[]): { rowCount: number; sum: number } {
  let rowCount = 0;
  let sum = 0;
  const columnIndexes = [USAGE_USER_COLUMN_INDEX];
  for (const rows of rowStores) {
    for (const batch of rows.scanBatches({ direction: 'asc', columnIndexes })) {
      const column = batch.columns[0]!;
      assert(column.kind === 'fixed');
      // NULL slots hold 0, so they need no skipping in a sum.
      const values = column.values as Float64Array;
      for (let i = 0; i < batch.rowCount; i++) sum += values[i]!;
      rowCount += batch.rowCount;
    }
  }
  return { rowCount, sum };
}

/** Seconds per call of fn, one per benchmark.js sample. */
function benchmarkSamplesS(name: string, config: BenchConfig, fn: () => unknown): number[] {
  let sink = 0;
  const bench = new Benchmark(name, () => {
    sink += fn() === undefined ? 0 : 1;
  }, { minSamples: config.scanRepeatCount, maxTime: config.benchmarkMaxTimeS });
  bench.run();
  if (bench.error !== undefined) throw bench.error;
  assert(sink > 0);
  const samples = bench.stats.sample as number[];
  assert(samples.length >= config.scanRepeatCount);
  return samples;
}

function checkScan(dataset: TsbsDataset, scan: { rowCount: number; sum: number }): void {
  assert(scan.rowCount === dataset.rowCount,
    `scan saw ${scan.rowCount} of ${dataset.rowCount} rows`);
  assert(Number.isFinite(scan.sum));
}
