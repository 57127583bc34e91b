// spatial/window: a window query, WHERE ST_MBRIntersects(g, ST_MakeRect(...)), over 1,000,000
// random 2-D points (100,000 with BENCH_QUICK) in a collection, through a SPATIAL index against a
// full scan of the same rows in a twin collection without the index. The peer is the full scan:
// the target is the index at least 50× faster at 0.1% selectivity.
//
// Data (fixed seed): rows (id INTEGER key, g GEOMETRY), g = POINT(x y) with x and y uniform in
// [0, 1000) to 3 decimals. A window is a square of side 1000 × √0.001 at a random place inside the
// plane, so it holds 0.1% of the points (about 1,000 of 1M).
//
// Reported: the median over REPEAT_COUNT runs (after a warm-up run) of each run's p50 latency in ms
// through the index; the full scan's p50 over SCAN_QUERY_COUNT queries (each reads every row) is the
// peer. Both answers are checked equal first.

import { assert } from '../../lib/base/assert.ts';
import { storageOptions } from '../../lib/base/options.ts';
import type { ContainerHandle } from '../../lib/engine/session.ts';
import { Store } from '../../lib/engine/store.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../lib/schema/container-schema.ts';
import { settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import { latencyResult, type WorkloadReport } from '../bench-result.ts';
import { Prng } from '../prng.ts';
import { median, percentile } from '../stats.ts';

const SEED = 20_261_125;
const PLANE_SIZE = 1000;
const SELECTIVITY = 0.001;
const LOAD_BATCH_ROW_COUNT = 5000;
const REPEAT_COUNT = 5;
const INDEXED_QUERY_COUNT = 100;
const SCAN_QUERY_COUNT = 3;
/** The group's index memory is a quarter of its share: 1M boxes are counted at 160 MB. */
const STORE_MEMORY_LIMIT_BYTES = 2 * 1024 * 1024 * 1024;
const TARGET_RATIO_MIN = 50;

function definition(name: string): ContainerDefinition {
  return {
    name, type: 'COLLECTION', rowKey: true,
    columns: [{ name: 'id', type: 'INTEGER' }, { name: 'g', type: 'GEOMETRY' }],
  };
}

export async function spatialWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const pointCount = config.quick ? 100_000 : 1_000_000;
  const name = `spatial/window/points=${pointCount}/selectivity=0.1%`;
  return withTempHome('store', async (home) => {
    const store = await Store.open({ home, options: storageOptions({
      partitionNum: 16, concurrency: 2, logWriteMode: 1,
      storeMemoryLimitBytes: STORE_MEMORY_LIMIT_BYTES,
    }) });
    try {
      const session = store.session();
      const indexed = session.container('indexed');
      const plain = session.container('plain');
      for (const container of ['indexed', 'plain']) await store.createContainer(definition(container));
      const prng = new Prng(SEED);
      for (let start = 0; start < pointCount; start += LOAD_BATCH_ROW_COUNT) {
        const batch = pointRows(prng, start, Math.min(LOAD_BATCH_ROW_COUNT, pointCount - start));
        await indexed.multiPut(batch);
        await plain.multiPut(batch);
      }
      const buildStartMs = performance.now();
      await store.createIndex('indexed', { columnNames: ['g'], type: 'SPATIAL' });
      const buildMs = performance.now() - buildStartMs;
      assert(store.stats().memory.index.useBytes > 0, 'the index did not fit its memory');
      const windows = windowsOf(new Prng(SEED + 1), INDEXED_QUERY_COUNT);
      for (const window of windows.slice(0, SCAN_QUERY_COUNT)) {
        assert(await query(indexed, window, true) === await query(plain, window, false));
      }
      await runAll(indexed, windows, true);
      const indexSamples: number[] = [];
      for (let repeat = 0; repeat < REPEAT_COUNT; repeat++) {
        settleHeap();
        indexSamples.push(percentile(await runAll(indexed, windows, true), 50));
      }
      settleHeap();
      const scanMs = percentile(await runAll(plain, windows.slice(0, SCAN_QUERY_COUNT), false), 50);
      const indexMs = median(indexSamples);
      console.log(`    ${name}: through the index ${indexMs.toFixed(3)} ms, full scan ` +
        `${scanMs.toFixed(1)} ms (${(scanMs / indexMs).toFixed(0)}×), index build ` +
        `${buildMs.toFixed(0)} ms`);
      return {
        results: [latencyResult(name, indexMs, scanMs,
          { peer: 'full-scan', target: { of: 'ratio', min: TARGET_RATIO_MIN } })],
        details: [{
          name,
          method: `p50 of ${INDEXED_QUERY_COUNT} window queries a run, 1 warm-up + ` +
            `${REPEAT_COUNT} runs, median of the runs; full scan: p50 of ${SCAN_QUERY_COUNT} queries`,
          storeSamples: indexSamples, peerSamples: [scanMs],
          measures: { indexBuildMs: [buildMs] },
        }],
      };
    } finally {
      await store.close();
    }
  });
}

function pointRows(prng: Prng, firstId: number, count: number): Row[] {
  const coordinate = () => (Math.floor(prng.next() * PLANE_SIZE * 1000) / 1000).toFixed(3);
  return Array.from({ length: count }, (_, i) =>
    [firstId + i, `POINT(${coordinate()} ${coordinate()})`]);
}

function windowsOf(prng: Prng, count: number): string[] {
  const side = PLANE_SIZE * Math.sqrt(SELECTIVITY);
  return Array.from({ length: count }, () => {
    const x = prng.next() * (PLANE_SIZE - side);
    const y = prng.next() * (PLANE_SIZE - side);
    return `ST_MakeRect(${x}, ${y}, ${x + side}, ${y + side})`;
  });
}

async function query(handle: ContainerHandle, window: string, expectIndex: boolean): Promise<number> {
  const result = await handle.query(`SELECT * WHERE ST_MBRIntersects(g, ${window})`);
  assert(result.kind === 'rows');
  assert((result.indexUsed !== undefined) === expectIndex);
  return result.kind === 'rows' ? result.rows.length : 0;
}

async function runAll(
  handle: ContainerHandle,
  windows: readonly string[],
  expectIndex: boolean,
): Promise<number[]> {
  const latenciesMs: number[] = [];
  for (const window of windows) {
    const startMs = performance.now();
    await query(handle, window, expectIndex);
    latenciesMs.push(performance.now() - startMs);
  }
  return latenciesMs;
}
