// Quick throughput figures of the in-memory block layer (not a timed test):
//   row-store/ingest/tsbs-cpu/batch=5000   in-order TIMESTAMP + 10 DOUBLE rows, rows/s
//   row-store/scan-sum/double-column       sum of one DOUBLE column through scanBatches, rows/s
//   row-store/scan-rows                    scan() materialising Row arrays, rows/s
//   row-store/put-random/batch=5000        shuffled upserts into an empty store, rows/s
//   row-store/put-random/into=1M/...       random-key batches into a container of 1 M in-order
//                                          rows: uniform (10% replace), or late arrivals in the
//                                          span of the last 50 000 rows, rows/s
// Run: node --import tsx perf/row-store-throughput.ts

import { performance } from 'node:perf_hooks';
import { BlockSpace } from '../lib/block/block-space.ts';
import { RowStore } from '../lib/block/row-store.ts';
import { containerId } from '../lib/base/ids.ts';
import type { Row } from '../lib/schema/column-type.ts';
import type { ContainerSchema } from '../lib/schema/container-schema.ts';

const BLOCK_SIZE_BYTES = 64 * 1024;
const ROW_COUNT = 2_000_000;
const BATCH_ROW_COUNT = 5000;

const schema: ContainerSchema = {
  name: 'cpu', type: 'TIME_SERIES', rowKeyColumnCount: 1, indexes: [], schemaVersion: 1,
  columns: [
    { name: 'ts', type: 'TIMESTAMP', array: false, notNull: true },
    ...Array.from({ length: 10 }, (_, i) => ({
      name: `usage_${i}`, type: 'DOUBLE' as const, array: false, notNull: false,
    })),
  ],
};

// A fixed-seed generator: benchmarks are repeatable.
let seed = 42;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}

/** xorshift32 for keys: the generator above repeats too soon to draw 500 000 distinct keys. */
let keyState = 0x9e37_79b9;
function keyRandom(): number {
  keyState ^= keyState << 13;
  keyState ^= keyState >>> 17;
  keyState ^= keyState << 5;
  keyState >>>= 0;
  return keyState / 4_294_967_296;
}

/** A few batches, reused with shifted timestamps: the live heap stays that of a real ingest. */
function batches(batchCount: number): Row[][] {
  const out: Row[][] = [];
  for (let b = 0; b < batchCount; b++) {
    const rows: Row[] = [];
    for (let i = 0; i < BATCH_ROW_COUNT; i++) {
      const row: Row = [0];
      for (let c = 0; c < 10; c++) row.push(random() * 100);
      rows.push(row);
    }
    out.push(rows);
  }
  return out;
}

function stampBatch(rows: Row[], firstMs: number): void {
  for (let i = 0; i < rows.length; i++) rows[i]![0] = firstMs + i * 10_000;
}

function report(name: string, rowCount: number, ms: number): void {
  const rowsPerSecondM = rowCount / (ms / 1000) / 1e6;
  console.log(`${name.padEnd(56)} ${rowsPerSecondM.toFixed(2).padStart(7)} M rows/s`);
}

function ingest(): RowStore {
  const data = batches(8);
  let best = Infinity;
  let store: RowStore | undefined;
  for (let round = 0; round < 5; round++) {
    const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
    store = new RowStore({
      containerId: containerId(1), schema, blockSizeBytes: BLOCK_SIZE_BYTES, space,
    });
    let putMs = 0;
    for (let b = 0; b < ROW_COUNT / BATCH_ROW_COUNT; b++) {
      const rows = data[b % data.length]!;
      stampBatch(rows, 1_600_000_000_000 + b * BATCH_ROW_COUNT * 10_000);
      const start = performance.now();
      store.put(rows);
      putMs += performance.now() - start;
    }
    best = Math.min(best, putMs);
  }
  report(`row-store/ingest/tsbs-cpu/batch=${BATCH_ROW_COUNT}`, ROW_COUNT, best);
  console.log(`  ${store!.blockCount} blocks, ${(store!.usedBytes / 1e6).toFixed(1)} MB used`);
  return store!;
}

function scanSum(store: RowStore): void {
  let best = Infinity;
  let total = 0;
  for (let round = 0; round < 10; round++) {
    const start = performance.now();
    let sum = 0;
    for (const batch of store.scanBatches({ direction: 'asc', columnIndexes: [3] })) {
      const values = batch.columns[0]!.values as Float64Array;
      for (let i = 0; i < values.length; i++) sum += values[i]!;
    }
    best = Math.min(best, performance.now() - start);
    total += sum;
  }
  report('row-store/scan-sum/double-column', ROW_COUNT, best);
  if (Number.isNaN(total)) console.log('unexpected NaN');
}

function scanRows(store: RowStore): void {
  const start = performance.now();
  const rows = store.scan({ direction: 'asc' });
  report('row-store/scan-rows', rows.length, performance.now() - start);
}

function putRandom(): void {
  const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
  const store = new RowStore({
    containerId: containerId(2), schema, blockSizeBytes: BLOCK_SIZE_BYTES, space,
  });
  const rows = batches(100).flat();
  rows.forEach((row, i) => { row[0] = i; });
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  const start = performance.now();
  for (let i = 0; i < rows.length; i += BATCH_ROW_COUNT) {
    store.put(rows.slice(i, i + BATCH_ROW_COUNT));
  }
  report(`row-store/put-random/batch=${BATCH_ROW_COUNT}`, rows.length, performance.now() - start);
  const fullPercent = (store.usedBytes / store.blockCount / BLOCK_SIZE_BYTES) * 100;
  console.log(`  ${store.blockCount} blocks, ${fullPercent.toFixed(0)}% full`);
}

/**
 * A container of 1 M in-order rows, keys 10 ms apart, then 500 000 rows in batches of random keys
 * into it: uniform over every key (10% land on a stored row and replace it, the rest insert), or
 * late arrivals, uniform over the span of the last windowRowCount rows.
 */
function putRandomInto(options: { batchRowCount: number; windowRowCount: number }): void {
  const { batchRowCount, windowRowCount } = options;
  const fillRowCount = 1_000_000;
  const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
  const store = new RowStore({
    containerId: containerId(3), schema, blockSizeBytes: BLOCK_SIZE_BYTES, space,
  });
  const data = batches(8);
  for (let b = 0; b < fillRowCount / BATCH_ROW_COUNT; b++) {
    const rows = data[b % data.length]!;
    for (let i = 0; i < rows.length; i++) rows[i]![0] = (b * BATCH_ROW_COUNT + i) * 10;
    store.put(rows);
  }
  const rows = batches(500_000 / BATCH_ROW_COUNT).flat();
  const windowFirstMs = (fillRowCount - windowRowCount) * 10;
  for (const row of rows) row[0] = windowFirstMs + Math.floor(keyRandom() * windowRowCount * 10);
  const start = performance.now();
  for (let i = 0; i < rows.length; i += batchRowCount) store.put(rows.slice(i, i + batchRowCount));
  const shape = windowRowCount === fillRowCount ? 'uniform' : `late/window=${windowRowCount}`;
  report(`row-store/put-random/into=1M/${shape}/batch=${batchRowCount}`, rows.length,
    performance.now() - start);
  const fullPercent = (store.usedBytes / store.blockCount / BLOCK_SIZE_BYTES) * 100;
  const counts = `${store.count()} rows, ${store.blockCount} blocks`;
  console.log(`  ${counts}, ${fullPercent.toFixed(0)}% full`);
}

const store = ingest();
scanSum(store);
scanRows(store);
putRandom();
putRandomInto({ batchRowCount: BATCH_ROW_COUNT, windowRowCount: 1_000_000 });
putRandomInto({ batchRowCount: 50_000, windowRowCount: 1_000_000 });
putRandomInto({ batchRowCount: BATCH_ROW_COUNT, windowRowCount: 50_000 });
