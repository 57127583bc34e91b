// index/point and index/range: TQL on an indexed non-key column of a 1M-row time series (100k
// with BENCH_QUICK), against the same container without the index and against LevelDB holding a
// secondary index beside its rows.
//
// Data (fixed seed): rows (ts, meterId, kw), ts one second apart, meterId uniform in 0..9999 (about
// 100 rows each), kw a double. The store holds it twice, in `indexed` (a TREE index on meterId)
// and `plain` (none); LevelDB holds each row under | ts u64 BE | and an index entry
// | meterId u32 BE | ts u64 BE | → empty, the usual layout of a secondary index in a key-value store.
//   point  SELECT * WHERE meterId = m                          (~100 rows)
//   range  SELECT * WHERE meterId >= m AND meterId < m + 10    (~1,000 rows)
// The store answers with ContainerHandle.query (rows in ts order, as TQL gives them); LevelDB
// iterates its index range, sorts the timestamps and reads the rows with getMany, decoding each.
//
// Reported: the median over indexRepeatCount runs (after a warm-up run) of each run's p50 query
// latency in ms, store through its index against LevelDB. The scan of the unindexed twin (the same
// queries, fewer of them: each reads every row) goes into the details' measures and the console,
// with the index's speed-up over it.

import { Buffer } from 'node:buffer';
import { Level } from 'level';
import { assert } from '../../lib/base/assert.ts';
import { storageOptions } from '../../lib/base/options.ts';
import type { ContainerHandle } from '../../lib/engine/session.ts';
import { Store } from '../../lib/engine/store.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../lib/schema/container-schema.ts';
import { settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import { latencyResult, type BenchDetail, type WorkloadReport } from '../bench-result.ts';
import { Prng } from '../prng.ts';
import { median, percentile } from '../stats.ts';

const SEED = 20_260_101;
const METER_COUNT = 10_000;
const RANGE_METER_COUNT = 10;
const T0_MS = Date.UTC(2026, 0, 1);
const LOAD_BATCH_ROW_COUNT = 5000;
const REPEAT_COUNT = 5;
const INDEXED_QUERY_COUNT = 200;
const SCAN_QUERY_COUNT = 5;
/** The group's index memory is a quarter of its share: 1M entries need about 80 MB. */
const STORE_MEMORY_LIMIT_BYTES = 1024 * 1024 * 1024;

type Shape = 'point' | 'range';
type RunQuery = (meterId: number) => Promise<number>;

function definition(name: string): ContainerDefinition {
  return {
    name, type: 'TIME_SERIES',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' }, { name: 'meterId', type: 'INTEGER' },
      { name: 'kw', type: 'DOUBLE' },
    ],
  };
}

export async function indexQueryWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const rowCount = config.quick ? 100_000 : 1_000_000;
  const rows = meterRows(rowCount);
  return withTempHome('store', (storeHome) => withTempHome('leveldb', async (levelHome) => {
    const store = await Store.open({ home: storeHome, options: storageOptions({
      partitionNum: 16, concurrency: 2, logWriteMode: 1,
      storeMemoryLimitBytes: STORE_MEMORY_LIMIT_BYTES,
    }) });
    const db = new Level<Buffer, Buffer>(levelHome, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    try {
      const session = store.session();
      const indexed = session.container('indexed');
      const plain = session.container('plain');
      for (const name of ['indexed', 'plain']) await store.createContainer(definition(name));
      for (let i = 0; i < rows.length; i += LOAD_BATCH_ROW_COUNT) {
        const batch = rows.slice(i, i + LOAD_BATCH_ROW_COUNT);
        await indexed.multiPut(batch);
        await plain.multiPut(batch);
        await levelPut(db, batch);
      }
      const buildStartMs = performance.now();
      await store.createIndex('indexed', { columnNames: ['meterId'], type: 'TREE' });
      const buildMs = performance.now() - buildStartMs;
      const indexBytes = store.stats().memory.index.useBytes;
      assert(indexBytes > 0, 'the index did not fit its memory');
      const results = [];
      const details: BenchDetail[] = [];
      for (const shape of ['point', 'range'] as const) {
        const report = await measureShape(shape, { indexed, plain, db });
        results.push(latencyResult(`index/${shape}/rows=${rowCount}`, report.storeMs, report.levelMs));
        details.push({
          name: `index/${shape}/rows=${rowCount}`,
          method: `p50 of ${INDEXED_QUERY_COUNT} queries a run, 1 warm-up + ${REPEAT_COUNT} runs, ` +
            `median of the runs; without the index ${SCAN_QUERY_COUNT} queries, one run`,
          storeSamples: report.storeSamples, peerSamples: report.levelSamples,
          measures: {
            scanP50Ms: [report.scanMs], indexBuildMs: [buildMs], indexBytes: [indexBytes],
          },
        });
        console.log(`    index/${shape}: through the index ${report.storeMs.toFixed(3)} ms, ` +
          `scan without it ${report.scanMs.toFixed(1)} ms (${(report.scanMs / report.storeMs)
            .toFixed(0)}×), LevelDB ${report.levelMs.toFixed(3)} ms`);
      }
      console.log(`    index build ${buildMs.toFixed(0)} ms, ${(indexBytes / 1024 / 1024).toFixed(1)} MB`);
      return { results, details };
    } finally {
      await db.close();
      await store.close();
    }
  }));
}

function meterRows(rowCount: number): Row[] {
  const prng = new Prng(SEED);
  return Array.from({ length: rowCount }, (_, i) =>
    [T0_MS + i * 1000, prng.int(METER_COUNT), Math.round(prng.next() * 10_000) / 100]);
}

async function measureShape(
  shape: Shape,
  targets: { indexed: ContainerHandle; plain: ContainerHandle; db: Level<Buffer, Buffer> },
) {
  const prng = new Prng(SEED + (shape === 'point' ? 1 : 2));
  const meterIds = Array.from({ length: INDEXED_QUERY_COUNT },
    () => prng.int(METER_COUNT - RANGE_METER_COUNT));
  const storeQuery = storeRunner(targets.indexed, shape, true);
  const levelQuery = levelRunner(targets.db, shape);
  // The same rows from all three.
  for (const meterId of meterIds.slice(0, SCAN_QUERY_COUNT)) {
    const count = await storeQuery(meterId);
    assert(count === await levelQuery(meterId));
    assert(count === await storeRunner(targets.plain, shape, false)(meterId));
  }
  await runAll(meterIds, storeQuery);
  await runAll(meterIds, levelQuery);
  const storeSamples: number[] = [];
  const levelSamples: number[] = [];
  for (let repeat = 0; repeat < REPEAT_COUNT; repeat++) {
    settleHeap();
    storeSamples.push(percentile(await runAll(meterIds, storeQuery), 50));
    settleHeap();
    levelSamples.push(percentile(await runAll(meterIds, levelQuery), 50));
  }
  settleHeap();
  const scanLatencies = await runAll(meterIds.slice(0, SCAN_QUERY_COUNT),
    storeRunner(targets.plain, shape, false));
  return {
    storeMs: median(storeSamples), levelMs: median(levelSamples), storeSamples, levelSamples,
    scanMs: percentile(scanLatencies, 50),
  };
}

function storeRunner(handle: ContainerHandle, shape: Shape, expectIndex: boolean): RunQuery {
  return async (meterId) => {
    const tql = shape === 'point' ? `SELECT * WHERE meterId = ${meterId}`
      : `SELECT * WHERE meterId >= ${meterId} AND meterId < ${meterId + RANGE_METER_COUNT}`;
    const result = await handle.query(tql);
    assert(result.kind === 'rows');
    assert((result.indexUsed !== undefined) === expectIndex);
    return result.kind === 'rows' ? consume(result.rows) : 0;
  };
}

// ---- LevelDB with a secondary index ------------------------------------------------------------

const ROW_KEY_BYTES = 8;
const INDEX_KEY_BYTES = 4 + 8;
const VALUE_BYTES = 4 + 8;
const EMPTY = Buffer.alloc(0);

function rowKey(tsMs: number): Buffer {
  const key = Buffer.allocUnsafe(ROW_KEY_BYTES);
  key.writeBigUInt64BE(BigInt(tsMs));
  return key;
}

function indexKey(meterId: number, tsMs: number): Buffer {
  const key = Buffer.allocUnsafe(INDEX_KEY_BYTES);
  key.writeUInt32BE(meterId, 0);
  key.writeBigUInt64BE(BigInt(tsMs), 4);
  return key;
}

async function levelPut(db: Level<Buffer, Buffer>, rows: readonly Row[]): Promise<void> {
  const batch = db.batch();
  for (const [ts, meterId, kw] of rows as Array<[number, number, number]>) {
    const value = Buffer.allocUnsafe(VALUE_BYTES);
    value.writeUInt32BE(meterId, 0);
    value.writeDoubleBE(kw, 4);
    batch.put(rowKey(ts), value);
    // Index entries live in a key space of their own: one prefix byte apart from the rows.
    batch.put(Buffer.concat([INDEX_PREFIX, indexKey(meterId, ts)]), EMPTY);
  }
  await batch.write();
}

/** Rows are under 8-byte keys starting 0x00 (times below 2^56 ms); index keys start 0xff. */
const INDEX_PREFIX = Buffer.from([0xff]);

function levelRunner(db: Level<Buffer, Buffer>, shape: Shape): RunQuery {
  return async (meterId) => {
    const last = shape === 'point' ? meterId : meterId + RANGE_METER_COUNT - 1;
    const gte = Buffer.concat([INDEX_PREFIX, indexKey(meterId, 0)]);
    const lte = Buffer.concat([INDEX_PREFIX, indexKey(last, Number.MAX_SAFE_INTEGER)]);
    const keys = await db.keys({ gte, lte }).all();
    const times = keys.map((key) => Number(key.readBigUInt64BE(1 + 4))).sort((a, b) => a - b);
    const values = await db.getMany(times.map(rowKey));
    const rows: Row[] = values.map((value, i) => {
      assert(value !== undefined);
      return [times[i]!, value.readUInt32BE(0), value.readDoubleBE(4)];
    });
    return consume(rows);
  };
}

// ---- timing --------------------------------------------------------------------------------------

async function runAll(meterIds: readonly number[], run: RunQuery): Promise<number[]> {
  const latenciesMs: number[] = [];
  for (const meterId of meterIds) {
    const startMs = performance.now();
    await run(meterId);
    latenciesMs.push(performance.now() - startMs);
  }
  return latenciesMs;
}

let consumed = 0;
function consume(rows: readonly Row[]): number {
  for (const row of rows) consumed += row[2] as number;
  assert(Number.isFinite(consumed));
  return rows.length;
}
