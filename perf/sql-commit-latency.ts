// Does a long SQL SELECT hold up commits? A node process gets ROW_COUNT rows in one table
// (PRIMARY KEY (host, ts)); a writer then commits one row at a time (auto-commit puts into
// another container) while nothing else runs, and again while a reader runs a GROUP BY over the
// whole table in a loop. Prints the writer's p50/p99 commit latency both ways and the query's
// time. Usage: node --import tsx perf/sql-commit-latency.ts [rowCount]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getStore } from '../lib/client/store-factory.ts';
import { withNodeProcess } from './node-process.ts';

const ROW_COUNT = Number(process.argv[2] ?? 200_000);
const INSERT_ROWS_PER_STATEMENT = 5000;
const HOST_COUNT = 100;
const COMMIT_COUNT = 400;

function percentileMs(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

const home = mkdtempSync(join(tmpdir(), 'sql-commit-'));
try {
  await withNodeProcess(home, { logWriteMode: 1 }, async (node) => {
    const store = getStore({ ...node.storeProperties, applicationName: 'sql-commit-latency' });
    await store.sql('CREATE TABLE cpu (host STRING, ts TIMESTAMP, usage DOUBLE, PRIMARY KEY (host, ts))');
    for (let start = 0; start < ROW_COUNT; start += INSERT_ROWS_PER_STATEMENT) {
      const values = Array.from({ length: Math.min(INSERT_ROWS_PER_STATEMENT, ROW_COUNT - start) }, (_v, i) => {
        const n = start + i;
        return `('h${n % HOST_COUNT}', TO_TIMESTAMP_MS(${Math.floor(n / HOST_COUNT) * 10_000}), ${n % 97})`;
      }).join(', ');
      await store.sql(`INSERT INTO cpu VALUES ${values}`);
    }
    const writer = getStore({ ...node.storeProperties, applicationName: 'sql-commit-writer' });
    const log = await writer.putContainer({ name: 'commits', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'v', type: 'LONG' }] });
    const commits = async (offset: number): Promise<number[]> => {
      const samples: number[] = [];
      for (let i = 0; i < COMMIT_COUNT; i++) {
        const startMs = performance.now();
        await log.put([offset + i, BigInt(i)]);
        samples.push(performance.now() - startMs);
      }
      return samples;
    };
    const quiet = await commits(0);
    let running = true;
    const queryMs: number[] = [];
    const reader = (async () => {
      while (running) {
        const startMs = performance.now();
        await (await store.sql('SELECT host, COUNT(*), AVG(usage), MAX(usage) FROM cpu GROUP BY host')).toArray();
        queryMs.push(performance.now() - startMs);
      }
    })();
    const busy = await commits(COMMIT_COUNT);
    running = false;
    await reader;
    console.log(`rows ${ROW_COUNT}; GROUP BY over all rows: median ${percentileMs(queryMs, 0.5).toFixed(0)} ms ` +
      `(${queryMs.length} runs)`);
    console.log(`commit latency quiet: p50 ${percentileMs(quiet, 0.5).toFixed(2)} ms, p99 ${percentileMs(quiet, 0.99).toFixed(2)} ms`);
    console.log(`commit latency with the query running: p50 ${percentileMs(busy, 0.5).toFixed(2)} ms, ` +
      `p99 ${percentileMs(busy, 0.99).toFixed(2)} ms`);
    await writer.close();
    await store.close();
  });
} finally {
  rmSync(home, { recursive: true, force: true });
}
