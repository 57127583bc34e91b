// sql/window/moving-avg-10min: a 10-minute moving average over one host's day of the TSBS cpu
// data (host 0 of the bench's dataset: 8,640 rows at 10 s), against PostgreSQL 15's window
// function over the same rows, answers checked.
//   store       a TIME_SERIES container `cpu_host_0` (tsbs.ts), in a node, through the client:
//               SELECT ts, AVG(usage_user) OVER (ORDER BY ts RANGE BETWEEN (10, MINUTE)
//               PRECEDING AND CURRENT ROW) FROM cpu_host_0
//   PostgreSQL  a table with the same rows, time as timestamptz PRIMARY KEY, VACUUM ANALYZE after
//               the load, through libpq: the same window with interval '10 minutes'.
// Both answer every row (8,640) to this process. The answers are compared row by row (time exact,
// the average to 1e-9 relative: the store's sliding sum is compensated, PostgreSQL's float8 avg
// sums each frame afresh); that run is the warm-up. Then RUN_COUNT timed runs per side,
// alternating; medians. Target: the store at most half PostgreSQL's latency (ratio ≥ 2).

import { join } from 'node:path';
import pg from 'pg';
import { assert } from '../../lib/base/assert.ts';
import { getStore } from '../../lib/client/store-factory.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import { latencyResult, type WorkloadReport } from '../bench-result.ts';
import { withNodeProcess } from '../node-process.ts';
import { median, timeAsyncMs } from '../stats.ts';
import { TSBS_CPU_FIELDS, tsbsContainerDefinition } from '../tsbs.ts';
import { startPostgresCluster } from '../../test/support/postgres-cluster.ts';

const NAME = 'sql/window/moving-avg-10min';
const HOST_INDEX = 0;
const RUN_COUNT_FULL = 51;
const RUN_COUNT_QUICK = 5;
const PG_BATCH_ROW_COUNT = 5000;
const AVERAGE_TOLERANCE = 1e-9;
/** The target: at most half PostgreSQL's latency (its ms / ours ≥ 2). */
const RATIO_MIN = 2;

const STORE_QUERY = 'SELECT ts, AVG(usage_user) OVER (ORDER BY ts RANGE BETWEEN (10, MINUTE) PRECEDING ' +
  'AND CURRENT ROW) FROM cpu_host_0';
const POSTGRES_QUERY = "SELECT time, avg(usage_user) OVER (ORDER BY time RANGE BETWEEN interval '10 minutes' " +
  'PRECEDING AND CURRENT ROW) FROM cpu_host_0';

type Answer = [number, number][];

export async function sqlWindowWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const rows = config.dataset.rowsByHost[HOST_INDEX]!;
  const runCount = config.quick ? RUN_COUNT_QUICK : RUN_COUNT_FULL;
  return withTempHome('sql-window', (root) => withNodeProcess(join(root, 'node'),
    { logWriteMode: 1 }, async (node) => {
      const store = getStore({ ...node.storeProperties, applicationName: 'bench-sql-window' });
      const cluster = await startPostgresCluster({ prefix: 'store-bench-window-', durable: true });
      if (cluster === undefined) console.warn(`  ${NAME}: PostgreSQL is not installed: skipped`);
      const postgres = cluster === undefined ? undefined : new pg.Client({ host: cluster.socketDirectory,
        port: cluster.port, user: cluster.user, database: 'postgres' });
      try {
        await postgres?.connect();
        const container = await store.putContainer(tsbsContainerDefinition('cpu_host_0'));
        await container.multiPut(rows);
        if (postgres !== undefined) await loadPostgres(postgres, rows);
        const storeAnswer = async (): Promise<Answer> => (await (await store.sql(STORE_QUERY)).toArray())
          .map((row) => [timeMs(row[0]), Number(row[1])]);
        const postgresAnswer = async (): Promise<Answer> => ((await postgres!.query({ text: POSTGRES_QUERY,
          rowMode: 'array' })).rows as unknown[][]).map((row) => [timeMs(row[0]), Number(row[1])]);
        const ours = await storeAnswer();
        assert(ours.length === rows.length, `store answered ${ours.length} rows of ${rows.length}`);
        if (postgres !== undefined) sameAnswer(ours, await postgresAnswer());
        const storeSamples: number[] = [];
        const postgresSamples: number[] = [];
        for (let i = 0; i < runCount; i++) {
          storeSamples.push(await timeAsyncMs(storeAnswer));
          if (postgres !== undefined) postgresSamples.push(await timeAsyncMs(postgresAnswer));
        }
        const storeMs = median(storeSamples);
        const postgresMs = postgresSamples.length === 0 ? null : median(postgresSamples);
        console.log(`    ${NAME}: store ${storeMs.toFixed(2)} ms, PostgreSQL ${postgresMs?.toFixed(2) ?? '-'} ms ` +
          `(${runCount} runs each)`);
        return {
          results: [latencyResult(`${NAME}/postgres`, storeMs, postgresMs,
            { peer: 'postgres', target: { of: 'ratio', min: RATIO_MIN } })],
          details: [{
            name: `${NAME}/postgres`, storeSamples, peerSamples: postgresSamples,
            method: `store: ${STORE_QUERY}; PostgreSQL: ${POSTGRES_QUERY}; ${rows.length} rows of one TSBS ` +
              `host at 10 s, every row answered to the bench process; answers compared (the warm-up), ` +
              `then ${runCount} timed runs per side, alternating, median latency`,
          }],
        };
      } finally {
        await postgres?.end();
        await cluster?.stop();
        await store.close();
      }
    }));
}

function timeMs(value: unknown): number {
  return value instanceof Date ? value.getTime() : Number(value);
}

function sameAnswer(ours: Answer, theirs: Answer): void {
  assert(ours.length === theirs.length, `store ${ours.length} rows, PostgreSQL ${theirs.length}`);
  for (let i = 0; i < ours.length; i++) {
    const [ms, average] = ours[i]!;
    const [peerMs, peerAverage] = theirs[i]!;
    assert(ms === peerMs, `row ${i}: store time ${ms}, PostgreSQL ${peerMs}`);
    assert(Math.abs(average - peerAverage) <= AVERAGE_TOLERANCE * Math.abs(peerAverage),
      `row ${i}: store average ${average}, PostgreSQL ${peerAverage}`);
  }
}

async function loadPostgres(client: pg.Client, rows: readonly (readonly unknown[])[]): Promise<void> {
  const fields = TSBS_CPU_FIELDS.map((f) => `${f} double precision`).join(', ');
  await client.query(`CREATE TABLE cpu_host_0 (time timestamptz PRIMARY KEY, ${fields})`);
  const arrays = TSBS_CPU_FIELDS.map((_f, i) => `$${i + 2}::float8[]`).join(', ');
  for (let start = 0; start < rows.length; start += PG_BATCH_ROW_COUNT) {
    const slice = rows.slice(start, start + PG_BATCH_ROW_COUNT);
    const columns = TSBS_CPU_FIELDS.map((_f, i) => slice.map((row) => row[i + 1]));
    await client.query(`INSERT INTO cpu_host_0 SELECT * FROM unnest($1::timestamptz[], ${arrays})`,
      [slice.map((row) => new Date(timeMs(row[0]))), ...columns]);
  }
  await client.query('VACUUM ANALYZE cpu_host_0');
}
