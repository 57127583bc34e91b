// expiry/interval=1h/expire=2h: ingest at a steady rate into an interval-partitioned time series
// with a short expiry, and how big the data files' allocated size gets.
//
// A Store on a fresh home (the real file system) whose wall clock is the workload's own: each step
// is one simulated minute, in which ROWS_PER_MINUTE rows of that minute go into the table through
// the NoSQL interface (a container handle on the partitioned table). The table is
// `PARTITION BY RANGE (ts) EVERY (1, HOUR)` with `expiration_time=2 HOUR`, so at any time about
// three hours of rows are kept. Every simulated hour: the expiry sweep (as the store's timer runs
// it; it checkpoints and punches what it dropped), a checkpoint, then the data files' allocated
// bytes (Store.stats) are read.
//
// Peer (no-expiry): the same ingest into the same table without the expiry options: its size grows
// with every hour. Figures: the allocated MB at the end, with and without expiry (ratio: how much
// smaller), and the spread of the allocated size over the steady hours (after the first
// STEADY_AFTER_HOURS): (max − min) / max, target ≤ 25%: flat, not growing. And the ingest rate.

import { storageOptions } from '../../lib/base/options.ts';
import { MiB } from '../../lib/base/units.ts';
import { expirySweep } from '../../lib/engine/partition-expiry.ts';
import { storeSqlDatabase } from '../../lib/engine/sql-database.ts';
import { Store } from '../../lib/engine/store.ts';
import { runSql } from '../../lib/sql/run-statement.ts';
import type { BenchConfig } from '../bench-config.ts';
import { CHECKPOINT_INTERVAL_MS_OFF } from '../bench-engines.ts';
import { withTempHome } from '../bench-files.ts';
import { latencyResult, throughputResult, type WorkloadReport } from '../bench-result.ts';

const NAME = 'expiry/interval=1h/expire=2h';
const MINUTE_MS = 60_000;
const ROWS_PER_MINUTE = 600;
const STEADY_AFTER_HOURS = 4;
const SPREAD_PERCENT_MAX = 25;
const T0_MS = Date.UTC(2024, 0, 1);

interface IngestRun {
  allocatedMb: number[];
  rowsPerS: number;
  droppedCount: number;
}

export async function expiryWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const hours = config.quick ? 8 : 24;
  const withExpiry = await ingest(hours, true);
  const without = await ingest(hours, false);
  const steady = withExpiry.allocatedMb.slice(STEADY_AFTER_HOURS);
  const spreadPercent = 100 * (Math.max(...steady) - Math.min(...steady)) / Math.max(...steady);
  return {
    results: [
      latencyResult(`${NAME}/allocated-at-end`, withExpiry.allocatedMb.at(-1)!, without.allocatedMb.at(-1)!,
        { unit: 'MB', peer: 'no-expiry' }),
      latencyResult(`${NAME}/allocated-spread`, spreadPercent, null,
        { unit: '%', peer: 'no-expiry', target: { of: 'value', max: SPREAD_PERCENT_MAX } }),
      throughputResult(`${NAME}/ingest`, withExpiry.rowsPerS, without.rowsPerS, { peer: 'no-expiry' }),
    ],
    details: [{
      name: NAME,
      method: `${hours} simulated hours of ${ROWS_PER_MINUTE} rows a minute; allocated MB after each hour ` +
        `(sweep, checkpoint); ${withExpiry.droppedCount} data partitions dropped`,
      storeSamples: withExpiry.allocatedMb, peerSamples: without.allocatedMb,
    }],
  };
}

async function ingest(hours: number, expiry: boolean): Promise<IngestRun> {
  return withTempHome('expiry', async (home) => {
    let nowMs = T0_MS;
    const store = await Store.open({
      home, options: storageOptions({ checkpointIntervalMs: CHECKPOINT_INTERVAL_MS_OFF, logWriteMode: 1 }),
      clock: { nowMs: () => nowMs, monotonicMs: () => performance.now() },
      expirySweepIntervalMs: CHECKPOINT_INTERVAL_MS_OFF,
    });
    try {
      const database = storeSqlDatabase(store, { yieldTurn: () => new Promise((resolve) => setImmediate(resolve)) });
      const options = expiry ? "WITH (expiration_time=2, expiration_time_unit='HOUR') " : '';
      await runSql('CREATE TABLE readings (ts TIMESTAMP PRIMARY KEY, host STRING, value DOUBLE) USING TIMESERIES ' +
        `${options}PARTITION BY RANGE (ts) EVERY (1, HOUR)`, {
        database, workMemoryLimitBytes: 32 * MiB, timeoutMs: 60_000, monotonicMs: () => performance.now(),
        nowMs: T0_MS, randomBytes: (count) => new Uint8Array(count),
      });
      const handle = store.session().container('readings');
      const allocatedMb: number[] = [];
      let droppedCount = 0;
      let ingestMs = 0;
      for (let minute = 0; minute < hours * 60; minute++) {
        const startMs = T0_MS + minute * MINUTE_MS;
        nowMs = startMs + MINUTE_MS;
        const rows = Array.from({ length: ROWS_PER_MINUTE }, (_v, i) =>
          [startMs + i * (MINUTE_MS / ROWS_PER_MINUTE), `host_${i % 100}`, Math.sin(minute + i)]);
        const before = performance.now();
        await handle.multiPut(rows);
        ingestMs += performance.now() - before;
        if ((minute + 1) % 60 === 0) {
          droppedCount += (await expirySweep(store)).droppedCount;
          await store.checkpoint();
          allocatedMb.push(store.stats().dataFiles.allocatedBytes / MiB);
        }
      }
      return { allocatedMb, rowsPerS: hours * 60 * ROWS_PER_MINUTE / (ingestMs / 1000), droppedCount };
    } finally {
      await store.close();
    }
  });
}
