// sql/join/device-readings: a 1,000-row device table joined to 10M readings (1M with
// BENCH_QUICK) with a filter on both sides, against PostgreSQL 15 on the same rows, answers checked.
//
//   SELECT d.site, AVG(r.value) AS avg_value, COUNT(*) AS reading_count
//   FROM devices d JOIN readings r ON r.device_id = d.id
//   WHERE d.kind = 'k3' AND r.ts >= ? AND r.ts < ?        (one hour)
//   GROUP BY d.site ORDER BY d.site
//
// "The mean reading per site over one hour, for one kind of device": 125 of the 1,000 devices,
// 360 readings each. Rows: device d (0–999) has site `site-<d % 20>` and kind `k<d % 8>`; its
// readings are every 10 s from START_MS, `((d·7919 + i·104729) mod 10007) / 100` for the i-th,
// 10,000 per device (1,000 with BENCH_QUICK). The hour starts at a random whole minute of the span
// (a fixed seed; a new hour for each timed run).
//
// Store: `devices (id INTEGER PRIMARY KEY, site STRING, kind STRING)` and `readings (device_id
// INTEGER, ts TIMESTAMP, value DOUBLE, PRIMARY KEY (device_id, ts))`, loaded by the client's
// multiPut, one device's readings a request, two at a time. PostgreSQL: the same tables (ts as
// timestamptz), loaded by one `INSERT … SELECT` from generate_series (no client transfer), the
// primary keys added after the load, then VACUUM ANALYZE. Both sides answer through their network
// protocol from this process; the time bounds are parameters on both (`?` / `$1`).
// Each run: one untimed run of each side per hour, compared (9 significant digits), then the timed
// runs alternating; medians.

import { join } from 'node:path';
import pg from 'pg';
import { assert } from '../../lib/base/assert.ts';
import type { ClientStore } from '../../lib/client/client-store.ts';
import { getStore } from '../../lib/client/store-factory.ts';
import { startPostgresCluster } from '../../test/support/postgres-cluster.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import { latencyResult, type WorkloadReport } from '../bench-result.ts';
import { withNodeProcess } from '../node-process.ts';
import { Prng } from '../prng.ts';
import { median, timeAsyncMs } from '../stats.ts';

const DEVICE_COUNT = 1000;
const READINGS_PER_DEVICE = 10_000;
const READINGS_PER_DEVICE_QUICK = 1000;
const SITE_COUNT = 20;
const KIND_COUNT = 8;
const KIND_ASKED = 'k3';
const READING_INTERVAL_MS = 10_000;
const START_MS = Date.UTC(2026, 0, 1);
const WINDOW_MS = 3_600_000;
const MINUTE_MS = 60_000;
const LOAD_WORKER_COUNT = 2;
const TIMED_RUN_COUNT = 15;
const TIMED_RUN_COUNT_QUICK = 7;
const SIGNIFICANT_DIGITS = 9;
/** The target: at most PostgreSQL's latency (PostgreSQL / store ≥ 1). */
const RATIO_MIN = 1;

const STORE_QUERY = 'SELECT d.site, AVG(r.value) AS avg_value, COUNT(*) AS reading_count ' +
  'FROM devices d JOIN readings r ON r.device_id = d.id ' +
  `WHERE d.kind = '${KIND_ASKED}' AND r.ts >= ? AND r.ts < ? GROUP BY d.site ORDER BY d.site`;
const POSTGRES_QUERY = STORE_QUERY.replace('r.ts >= ?', 'r.ts >= $1').replace('r.ts < ?', 'r.ts < $2');

type Answer = string[];

/** The i-th reading's value of device d, the same formula on both sides. */
function readingValue(device: number, i: number): number {
  return ((device * 7919 + i * 104729) % 10007) / 100;
}

export async function sqlJoinWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const perDevice = config.quick ? READINGS_PER_DEVICE_QUICK : READINGS_PER_DEVICE;
  const runCount = config.quick ? TIMED_RUN_COUNT_QUICK : TIMED_RUN_COUNT;
  const name = 'sql/join/device-readings';
  return withTempHome('sql-join', (root) => withNodeProcess(join(root, 'node'), { logWriteMode: 1 },
    async (node) => {
      const store = getStore({ ...node.storeProperties, applicationName: 'bench-sql-join' });
      const cluster = await startPostgresCluster({ prefix: 'store-bench-join-', durable: true });
      if (cluster === undefined) console.warn('  sql/join: PostgreSQL is not installed: skipped');
      const postgres = cluster === undefined ? undefined : new pg.Client({ host: cluster.socketDirectory,
        port: cluster.port, user: cluster.user, database: 'postgres' });
      try {
        await postgres?.connect();
        const storeLoadMs = await timeAsyncMs(() => loadStore(store, perDevice));
        const postgresLoadMs = postgres === undefined ? null
          : await timeAsyncMs(() => loadPostgres(postgres, perDevice));
        console.log(`    loaded ${DEVICE_COUNT * perDevice} readings: store ${(storeLoadMs / 1000).toFixed(1)} s, ` +
          `PostgreSQL ${postgresLoadMs === null ? '-' : (postgresLoadMs / 1000).toFixed(1)} s`);
        const prng = new Prng(17);
        const spanMinutes = Math.floor((perDevice * READING_INTERVAL_MS - WINDOW_MS) / MINUTE_MS);
        const windows = Array.from({ length: runCount }, () => {
          const fromMs = START_MS + prng.int(spanMinutes) * MINUTE_MS;
          return [new Date(fromMs), new Date(fromMs + WINDOW_MS)] as const;
        });
        const storeSide = async (i: number) => answerOf((await (await store.sql(STORE_QUERY,
          [...windows[i]!])).toArray()) as unknown[][]);
        const postgresSide = postgres === undefined ? undefined : async (i: number) =>
          answerOf((await postgres.query({ text: POSTGRES_QUERY, values: [...windows[i]!], rowMode: 'array' }))
            .rows as unknown[][]);
        const samples = { store: [] as number[], postgres: [] as number[] };
        for (let i = 0; i < runCount; i++) {
          // The untimed check of this hour: both sides' answers, which also warm their caches.
          const want = await storeSide(i);
          assert(want.length > 0, `${name}: no rows`);
          if (postgresSide !== undefined) {
            const got = await postgresSide(i);
            assert(JSON.stringify(got) === JSON.stringify(want),
              `${name}: PostgreSQL ${got.slice(0, 2).join(' ')} ≠ store ${want.slice(0, 2).join(' ')}`);
            samples.postgres.push(await timeAsyncMs(() => postgresSide(i)));
          }
          samples.store.push(await timeAsyncMs(() => storeSide(i)));
        }
        const storeMs = median(samples.store);
        const postgresMs = samples.postgres.length === 0 ? null : median(samples.postgres);
        console.log(`    ${name}: store ${storeMs.toFixed(1)} ms, PostgreSQL ${postgresMs?.toFixed(1) ?? '-'} ms ` +
          `(${runCount} runs each)`);
        const method = `store: ${STORE_QUERY}; PostgreSQL: ${POSTGRES_QUERY}; ${DEVICE_COUNT} devices × ` +
          `${perDevice} readings; ${runCount} random hours, each answered untimed by both sides and ` +
          'compared, then timed once per side, alternating; median latency; loads (untimed) ' +
          `store ${storeLoadMs.toFixed(0)} ms, PostgreSQL ${postgresLoadMs?.toFixed(0) ?? '-'} ms`;
        return {
          results: [latencyResult(`${name}/postgres`, storeMs, postgresMs,
            { peer: 'postgres', target: { of: 'ratio', min: RATIO_MIN } })],
          details: [{ name: `${name}/postgres`, method, storeSamples: samples.store, peerSamples: samples.postgres }],
        };
      } finally {
        await postgres?.end();
        await cluster?.stop();
        await store.close();
      }
    }));
}

function cell(value: unknown): string {
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return String(Number(value.toPrecision(SIGNIFICANT_DIGITS)));
  if (typeof value === 'string' && /^-?\d+(\.\d+)?(e[-+]?\d+)?$/.test(value)) {
    return String(Number(Number(value).toPrecision(SIGNIFICANT_DIGITS)));
  }
  return String(value);
}

function answerOf(rows: unknown[][]): Answer {
  return rows.map((row) => row.map(cell).join('|'));
}

async function loadStore(store: ClientStore, perDevice: number): Promise<void> {
  await store.sql('CREATE TABLE devices (id INTEGER PRIMARY KEY, site STRING, kind STRING)');
  await store.sql('CREATE TABLE readings (device_id INTEGER, ts TIMESTAMP, value DOUBLE, ' +
    'PRIMARY KEY (device_id, ts))');
  const devices = await store.getContainer('devices');
  const readings = await store.getContainer('readings');
  assert(devices !== undefined && readings !== undefined);
  await devices.multiPut(Array.from({ length: DEVICE_COUNT },
    (_v, d) => [d, `site-${d % SITE_COUNT}`, `k${d % KIND_COUNT}`] as never));
  let next = 0;
  const worker = async () => {
    while (next < DEVICE_COUNT) {
      const d = next++;
      await readings.multiPut(Array.from({ length: perDevice },
        (_v, i) => [d, new Date(START_MS + i * READING_INTERVAL_MS), readingValue(d, i)] as never));
    }
  };
  await Promise.all(Array.from({ length: LOAD_WORKER_COUNT }, worker));
  const count = await (await store.sql('SELECT COUNT(*) FROM readings')).toArray();
  assert(Number(count[0]![0]) === DEVICE_COUNT * perDevice, `store holds ${String(count[0]![0])} readings`);
}

async function loadPostgres(client: pg.Client, perDevice: number): Promise<void> {
  await client.query('CREATE TABLE devices (id integer, site text, kind text)');
  await client.query('CREATE TABLE readings (device_id integer, ts timestamptz, value double precision)');
  await client.query(`INSERT INTO devices SELECT d, 'site-' || (d % ${SITE_COUNT}), 'k' || (d % ${KIND_COUNT}) ` +
    `FROM generate_series(0, ${DEVICE_COUNT - 1}) d`);
  await client.query(`INSERT INTO readings SELECT d, to_timestamp(${START_MS / 1000} + i * ` +
    `${READING_INTERVAL_MS / 1000}), ((d::bigint * 7919 + i::bigint * 104729) % 10007)::float8 / 100 ` +
    `FROM generate_series(0, ${DEVICE_COUNT - 1}) d, generate_series(0, ${perDevice - 1}) i`);
  await client.query('ALTER TABLE devices ADD PRIMARY KEY (id)');
  await client.query('ALTER TABLE readings ADD PRIMARY KEY (device_id, ts)');
  await client.query('VACUUM ANALYZE devices');
  await client.query('VACUUM ANALYZE readings');
}
