// scan/range/1h: random 1-hour range scans on random hosts (fixed seed; the same queries on both
// engines), as a dashboard asks for one host's last hour. Store: ContainerHandle.scan with
// from = t, to = t + 1 h − 1 ms (bounds are inclusive); LevelDB: an iterator with gte key(t),
// lt key(t + 1 h), values decoded with the row codec. Both yield the same Row arrays.
//
// Each query is timed by hand (async); a run is rangeQueryCount queries. Reported, each the median
// over scanRepeatCount runs (after one warm-up run): rows/s (rows over summed query time), and the
// run's p50 and p99 query latency in ms (their ratio is LevelDB / store: higher is still better).

import { assert } from '../../lib/base/assert.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import { settleHeap, withLoadedEngines, type StoreUnderTest } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { latencyResult, throughputResult, type WorkloadReport } from '../bench-result.ts';
import type { LevelPeer } from '../leveldb-peer.ts';
import { Prng } from '../prng.ts';
import { median, percentile } from '../stats.ts';
import { USAGE_USER_COLUMN_INDEX } from '../tsbs.ts';

const NAME = 'scan/range/1h';
/** A different stream from the data's, so the queries do not follow the values. */
const QUERY_SEED_OFFSET = 1;

interface RangeQuery {
  hostIndex: number;
  fromMs: number;
  /** Exclusive. */
  toMs: number;
}

interface RunSummary {
  rowsPerS: number;
  p50Ms: number;
  p99Ms: number;
}

type RunQuery = (query: RangeQuery) => Promise<number>;

export async function scanRangeWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const queries = rangeQueries(config);
  return withLoadedEngines(config, async (engine, peer) => {
    const storeQuery = storeRangeQuery(engine);
    const peerQuery = peerRangeQuery(peer);
    // Warm-up, and the same rows on both sides.
    const storeWarmUp = await runQueries(queries, storeQuery);
    const peerWarmUp = await runQueries(queries, peerQuery);
    assert(storeWarmUp.rowCount === peerWarmUp.rowCount);
    const store: RunSummary[] = [];
    const leveldb: RunSummary[] = [];
    for (let repeat = 0; repeat < config.scanRepeatCount; repeat++) {
      settleHeap();
      store.push(summary(await runQueries(queries, storeQuery)));
      settleHeap();
      leveldb.push(summary(await runQueries(queries, peerQuery)));
    }
    assert(Number.isFinite(consumed));
    const med = (runs: RunSummary[], pick: (run: RunSummary) => number) => median(runs.map(pick));
    const method = `performance.now per query, ${queries.length} queries a run, ` +
      `1 warm-up + ${config.scanRepeatCount} runs each, median of the runs`;
    const detail = (suffix: string, pick: (run: RunSummary) => number) => ({
      name: `${NAME}${suffix}`, method,
      storeSamples: store.map(pick), peerSamples: leveldb.map(pick),
    });
    return {
      results: [
        throughputResult(NAME, med(store, (r) => r.rowsPerS), med(leveldb, (r) => r.rowsPerS)),
        latencyResult(`${NAME}/p50`, med(store, (r) => r.p50Ms), med(leveldb, (r) => r.p50Ms)),
        latencyResult(`${NAME}/p99`, med(store, (r) => r.p99Ms), med(leveldb, (r) => r.p99Ms)),
      ],
      details: [
        detail('', (r) => r.rowsPerS),
        detail('/p50', (r) => r.p50Ms),
        detail('/p99', (r) => r.p99Ms),
      ],
    };
  });
}

function rangeQueries(config: BenchConfig): RangeQuery[] {
  const { dataset, rangeMs } = config;
  const prng = new Prng(dataset.config.seed + QUERY_SEED_OFFSET);
  const startSpanMs = dataset.toMs - dataset.fromMs - rangeMs;
  assert(startSpanMs > 0);
  return Array.from({ length: config.rangeQueryCount }, () => {
    const fromMs = dataset.fromMs + prng.int(startSpanMs);
    return { hostIndex: prng.int(dataset.hosts.length), fromMs, toMs: fromMs + rangeMs };
  });
}

function storeRangeQuery(engine: StoreUnderTest): RunQuery {
  return async (query) => {
    const rows = await engine.handles[query.hostIndex]!.scan({
      from: query.fromMs, to: query.toMs - 1, direction: 'asc',
    });
    consume(rows);
    return rows.length;
  };
}

function peerRangeQuery(peer: LevelPeer): RunQuery {
  return (query) => peer.scanRange(query, consumeRow);
}

async function runQueries(queries: readonly RangeQuery[], run: RunQuery) {
  const latenciesMs = new Float64Array(queries.length);
  let rowCount = 0;
  for (let i = 0; i < queries.length; i++) {
    const startMs = performance.now();
    rowCount += await run(queries[i]!);
    latenciesMs[i] = performance.now() - startMs;
  }
  return { rowCount, latenciesMs: Array.from(latenciesMs) };
}

function summary(run: { rowCount: number; latenciesMs: number[] }): RunSummary {
  const totalMs = run.latenciesMs.reduce((sum, ms) => sum + ms, 0);
  return {
    rowsPerS: run.rowCount / (totalMs / 1000),
    p50Ms: percentile(run.latenciesMs, 50),
    p99Ms: percentile(run.latenciesMs, 99),
  };
}

// Both sides read usage_user of every row, so neither skips the work of producing it.
let consumed = 0;
function consumeRow(row: Row): void {
  consumed += row[USAGE_USER_COLUMN_INDEX] as number;
}
function consume(rows: readonly Row[]): void {
  for (let i = 0; i < rows.length; i++) consumeRow(rows[i]!);
}
