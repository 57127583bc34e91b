// sql/tsbs/*: TSBS's cpu-only queries in SQL on the TSBS day (100 hosts × 1 day at 10 s; 10 hosts
// with BENCH_QUICK), against InfluxDB 1.x (InfluxQL) and PostgreSQL 15 on the same rows, answers
// cross-checked; then the p99 commit latency of a writer while the heavy queries run.
//
// The queries are TSBS's (timescale/tsbs, cmd/tsbs_generate_queries: uses/devops/common.go and
// databases/influx/devops.go): random hosts and random windows inside the day, from a fixed seed.
//   single-groupby-1-1-1   MAX(usage_user) per minute, 1 host, 1 hour
//   single-groupby-5-8-1   MAX of 5 metrics per minute over 8 hosts together, 1 hour
//   cpu-max-all-8          MAX of all 10 metrics per hour over 8 hosts together, 8 hours
//   double-groupby-1       AVG(usage_user) per host and hour, all hosts, 24 hours (TSBS's
//                          DoubleGroupByDuration: the whole day here)
//   high-cpu-1             every row of 1 host with usage_user > 90, 24 hours (HighCPUDuration)
//   lastpoint              the last row of every host
//   groupby-orderby-limit  MAX(usage_user) of the last 5 minutes before a random end, all hosts
//
// Store layout: one table `cpu (hostname STRING, ts TIMESTAMP, usage_* DOUBLE, PRIMARY KEY
// (hostname, ts))`, a collection. A time series per host would let the one-host queries read only
// their window (row-key push-down works on a single-column key), but five of the seven queries
// span several or all hosts, and SQL here has no UNION across tables yet: one table is what a
// GridDB user would pick to run all seven in SQL. lastpoint is one statement: the join of each
// host's `MAX(ts)` (a skip scan, one row read per host) with its row, looked up by the whole key.
//
// InfluxDB: TSBS's InfluxQL, output columns aliased for the cross-check. PostgreSQL: a table with
// the same rows, time as timestamptz, an index on (hostname, time), VACUUM ANALYZE after the load;
// the queries as TSBS's timescale generator writes them, date_trunc for time_bucket.
//
// Measured as TSBS measures (its query generator writes thousands of queries of a type, each with
// its own random parameters, and tsbs_run_queries reports over all of them), in three rounds:
//   cold    each query type's first parameter set, answered once by every side right after the
//           load (the node's SQL path not yet optimized by V8), timed and reported apart;
//   warm-up every parameter set of every query type answered by every side, untimed, and each
//           answer cross-checked (numbers to 9 significant digits), so every side has run the
//           same statements the same number of times before the timing;
//   timed   per query type, the sides in turn, each run taking the next parameter set, until a
//           side has run every set once and spent SIDE_BUDGET_MS (a cheap query gets hundreds of
//           runs, a heavy one its sets), at most RUN_COUNT_MAX runs; median and mean.
// Every side answers through its network protocol (store client, HTTP, libpq socket) from this
// process. The commit part: one client commits single-row puts into another container, alone,
// then for as long as a second client runs double-groupby-1 and groupby-orderby-limit
// BUSY_QUERY_COUNT times in turn.

import { join } from 'node:path';
import pg from 'pg';
import { assert } from '../../lib/base/assert.ts';
import { getStore } from '../../lib/client/store-factory.ts';
import type { ClientStore } from '../../lib/client/client-store.ts';
import type { BenchConfig } from '../bench-config.ts';
import { loadBatches } from '../bench-engines.ts';
import { withTempHome } from '../bench-files.ts';
import { latencyResult, type BenchDetail, type BenchResult, type WorkloadReport } from '../bench-result.ts';
import { influxBatchBody, influxLinePrefix } from '../influx-line-protocol.ts';
import { influxdPath, InfluxPeer } from '../influx-peer.ts';
import { withNodeProcess } from '../node-process.ts';
import { processCpuMs } from '../process-cpu.ts';
import { Prng } from '../prng.ts';
import { median, percentile, timeAsyncMs } from '../stats.ts';
import { TSBS_CPU_FIELDS, type TsbsDataset } from '../tsbs.ts';
import { startPostgresCluster, type PostgresCluster } from '../../test/support/postgres-cluster.ts';

const DATABASE = 'tsbs';
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Random parameter sets per query type (lastpoint has none: one). */
const PARAMETER_SET_COUNT = 20;
const PARAMETER_SET_COUNT_QUICK = 10;
/** A side goes on with timed runs of one query type until it has spent this much (and ran every set). */
const SIDE_BUDGET_MS = 4_000;
const SIDE_BUDGET_MS_QUICK = 1_500;
const RUN_COUNT_MAX = 1_000;
const LOAD_WORKER_COUNT = 2;
const PG_BATCH_ROW_COUNT = 5000;
const COMMIT_COUNT = 300;
/** Heavy queries the reader runs while the writer commits (each reads most of the table). */
const BUSY_QUERY_COUNT = 6;
const SIGNIFICANT_DIGITS = 9;
/** The issue's targets: at most half the peer's latency (peer / store ≥ 2); p99 at most 2×. */
const RATIO_MIN = 2;
const COMMIT_RATIO_MIN = 0.5;

type Cell = string | number | null;
type Answer = Cell[][];

export async function sqlTsbsWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  const setCount = config.quick ? PARAMETER_SET_COUNT_QUICK : PARAMETER_SET_COUNT;
  const budgetMs = config.quick ? SIDE_BUDGET_MS_QUICK : SIDE_BUDGET_MS;
  const influxd = influxdPath();
  if (influxd === undefined) console.warn('  sql/tsbs: influxd is not on PATH: InfluxDB skipped');
  return withTempHome('sql-tsbs', (root) => withNodeProcess(join(root, 'node'),
    { logWriteMode: 1 }, async (node) => {
      const store = getStore({ ...node.storeProperties, applicationName: 'bench-sql-tsbs' });
      const influx = influxd === undefined ? undefined
        : await InfluxPeer.start(influxd, join(root, 'influxdb'), 2);
      const cluster = await startPostgresCluster({ prefix: 'store-bench-sql-', durable: true });
      if (cluster === undefined) console.warn('  sql/tsbs: PostgreSQL is not installed: skipped');
      const postgres = cluster === undefined ? undefined : await connect(cluster);
      try {
        await loadStore(store, dataset);
        if (influx !== undefined) await loadInflux(influx, dataset);
        if (postgres !== undefined) await loadPostgres(postgres, dataset);
        const peers = { store, influx, postgres };
        const queries = QUERY_NAMES.map((name, q) => Array.from(
          { length: name === 'lastpoint' ? 1 : setCount },
          (_v, i) => tsbsQuery(name, dataset, new Prng(1000 * (q + 1) + i))));
        // Cold: each type's first set, once per side, right after the load.
        const cold = [];
        for (const sets of queries) cold.push(await answerAll(sets[0]!, peers));
        // Warm-up: every set of every type on every side, untimed; each answer cross-checked.
        for (const sets of queries) {
          for (const set of sets) await answerAll(set, peers);
        }
        const results: BenchResult[] = [];
        const details: BenchDetail[] = [];
        for (let q = 0; q < queries.length; q++) {
          const sets = queries[q]!;
          const name = `sql/tsbs/${sets[0]!.name}`;
          const sides = {
            store: (i: number) => sets[i % sets.length]!.store(store),
            influx: influx === undefined ? undefined
              : (i: number) => influxAnswerText(influx, sets[i % sets.length]!.influx),
            postgres: postgres === undefined ? undefined
              : (i: number) => postgres.query(sets[i % sets.length]!.postgres),
          };
          const samples = await measure(sides, { setCount: sets.length, budgetMs },
            () => processCpuMs(node.pid));
          const storeMs = median(samples.store);
          const influxMs = samples.influx.length === 0 ? null : median(samples.influx);
          const postgresMs = samples.postgres.length === 0 ? null : median(samples.postgres);
          const target = { of: 'ratio', min: RATIO_MIN } as const;
          results.push(latencyResult(`${name}/influxdb`, storeMs, influxMs, { peer: 'influxdb', target }));
          results.push(latencyResult(`${name}/postgres`, storeMs, postgresMs, { peer: 'postgres', target }));
          const coldMs = cold[q]!.ms;
          results.push(latencyResult(`${name}/cold/influxdb`, coldMs.store, coldMs.influx ?? null,
            { peer: 'influxdb' }));
          results.push(latencyResult(`${name}/cold/postgres`, coldMs.store, coldMs.postgres ?? null,
            { peer: 'postgres' }));
          const method = `store: ${sets[0]!.storeText}; InfluxDB: ${sets[0]!.influx}; ` +
            `PostgreSQL: ${sets[0]!.postgres}; ${sets.length} random parameter set(s), each ` +
            'answered once by every side untimed and cross-checked (the warm-up, after a cold ' +
            'round of the first set right after the load: the cold/ rows); then timed runs, the ' +
            `sides in turn, each run the next set, until a side ran every set and spent ` +
            `${budgetMs / 1000} s (at most ${RUN_COUNT_MAX} runs); median latency`;
          const means = `means store ${mean(samples.store).toFixed(2)}, InfluxDB ` +
            `${samples.influx.length === 0 ? '-' : mean(samples.influx).toFixed(2)}, PostgreSQL ` +
            `${samples.postgres.length === 0 ? '-' : mean(samples.postgres).toFixed(2)} ms`;
          details.push({ name: `${name}/influxdb`, method: `${method}; ${means}`,
            storeSamples: samples.store, peerSamples: samples.influx });
          details.push({ name: `${name}/postgres`, method: `${method}; ${means}`,
            storeSamples: samples.store, peerSamples: samples.postgres });
          const ms = (values: number[]) => values.length === 0 ? '-'
            : `${median(values).toFixed(2)} (mean ${mean(values).toFixed(2)}, n ${values.length})`;
          console.log(`    ${name}: store ${ms(samples.store)}, InfluxDB ${ms(samples.influx)}, ` +
            `PostgreSQL ${ms(samples.postgres)} ms; cold store ${coldMs.store.toFixed(1)}, InfluxDB ` +
            `${coldMs.influx?.toFixed(1) ?? '-'}, PostgreSQL ${coldMs.postgres?.toFixed(1) ?? '-'} ms; ` +
            `node CPU over the store's runs ${samples.storeCpuMs?.toFixed(0) ?? '-'} ms`);
        }
        const commits = await commitLatency(node.storeProperties, dataset);
        results.push(latencyResult('sql/tsbs/commit-p99-during-queries', commits.busyP99Ms,
          commits.quietP99Ms, { peer: 'no-query', target: { of: 'ratio', min: COMMIT_RATIO_MIN } }));
        details.push({
          name: 'sql/tsbs/commit-p99-during-queries', storeSamples: commits.busy,
          peerSamples: commits.quiet, measures: { queryMs: commits.queryMs },
          method: `single-row auto-commit puts into another container, one at a time: ` +
            `${COMMIT_COUNT} alone (peer), and as many as fit while another client runs ` +
            `double-groupby-1 and groupby-orderby-limit ${BUSY_QUERY_COUNT} times in turn (value); ` +
            'p99 commit latency',
        });
        console.log(`    commits: p99 quiet ${commits.quietP99Ms.toFixed(2)} ms (${commits.quiet.length}), ` +
          `with queries ${commits.busyP99Ms.toFixed(2)} ms (${commits.busy.length}; ` +
          `${commits.queryMs.length} queries ran)`);
        return { results, details };
      } finally {
        await postgres?.end();
        await cluster?.stop();
        await influx?.stop();
        await store.close();
      }
    }));
}

const QUERY_NAMES = [
  'single-groupby-1-1-1', 'single-groupby-5-8-1', 'cpu-max-all-8', 'double-groupby-1',
  'high-cpu-1', 'lastpoint', 'groupby-orderby-limit',
] as const;

async function connect(cluster: PostgresCluster): Promise<pg.Client> {
  const client = new pg.Client({ host: cluster.socketDirectory, port: cluster.port,
    user: cluster.user, database: 'postgres' });
  await client.connect();
  return client;
}

// ---- loading (untimed) ----

function storeRow(dataset: TsbsDataset, hostIndex: number, row: readonly unknown[]): unknown[] {
  return [dataset.hosts[hostIndex]!.tags['hostname']!, ...row];
}

async function loadStore(store: ClientStore, dataset: TsbsDataset): Promise<void> {
  const fields = TSBS_CPU_FIELDS.map((f) => `${f} DOUBLE`).join(', ');
  await store.sql(`CREATE TABLE cpu (hostname STRING, ts TIMESTAMP, ${fields}, ` +
    'PRIMARY KEY (hostname, ts))');
  const table = await store.getContainer('cpu');
  assert(table !== undefined);
  await loadBatches(dataset.batches, LOAD_WORKER_COUNT, (batch) =>
    table.multiPut(batch.rows.map((row) => storeRow(dataset, batch.hostIndex, row) as never)));
  const count = await (await store.sql('SELECT COUNT(*) FROM cpu')).toArray();
  assert(Number(count[0]![0]) === dataset.rowCount, `store holds ${String(count[0]![0])} rows`);
}

async function loadInflux(peer: InfluxPeer, dataset: TsbsDataset): Promise<void> {
  await peer.createDatabase(DATABASE);
  const prefixes = dataset.hosts.map(influxLinePrefix);
  await loadBatches(dataset.batches, LOAD_WORKER_COUNT, (batch) => peer.write(DATABASE,
    Buffer.from(influxBatchBody(batch, prefixes[batch.hostIndex]!), 'utf8')));
}

async function loadPostgres(client: pg.Client, dataset: TsbsDataset): Promise<void> {
  const fields = TSBS_CPU_FIELDS.map((f) => `${f} double precision`).join(', ');
  await client.query(`CREATE TABLE cpu (time timestamptz NOT NULL, hostname text NOT NULL, ${fields})`);
  const rows = dataset.batches.flatMap((batch) => batch.rows.map((row) => ({ batch, row })));
  const arrays = TSBS_CPU_FIELDS.map((_f, i) => `$${i + 3}::float8[]`).join(', ');
  const names = TSBS_CPU_FIELDS.join(', ');
  for (let start = 0; start < rows.length; start += PG_BATCH_ROW_COUNT) {
    const slice = rows.slice(start, start + PG_BATCH_ROW_COUNT);
    const columns: unknown[][] = Array.from({ length: TSBS_CPU_FIELDS.length + 2 }, () => []);
    for (const { batch, row } of slice) {
      columns[0]!.push(row[0]);
      columns[1]!.push(dataset.hosts[batch.hostIndex]!.tags['hostname']);
      for (let f = 0; f < TSBS_CPU_FIELDS.length; f++) columns[f + 2]!.push(row[f + 1]);
    }
    await client.query(`INSERT INTO cpu SELECT to_timestamp(t / 1000.0), h, ${names} FROM ` +
      `unnest($1::float8[], $2::text[], ${arrays}) AS r(t, h, ${names})`, columns);
  }
  await client.query('CREATE INDEX cpu_hostname_time ON cpu (hostname, time)');
  await client.query('VACUUM ANALYZE cpu');
}

// ---- the queries ----

interface TsbsQuery {
  name: string;
  storeText: string;
  store(store: ClientStore): Promise<Answer>;
  influx: string;
  postgres: string;
  /** Output column names, the same on every side (aliases), in the compared order. */
  columns: string[];
}

function randomHosts(dataset: TsbsDataset, prng: Prng, count: number): string[] {
  const indexes = dataset.hosts.map((_h, i) => i);
  for (let i = indexes.length - 1; i > 0; i--) {
    const j = prng.int(i + 1);
    [indexes[i], indexes[j]] = [indexes[j]!, indexes[i]!];
  }
  return indexes.slice(0, count).map((i) => dataset.hosts[i]!.tags['hostname']!);
}

/** TSBS's RandWindow: a window of durationMs starting at random inside the day (whole seconds). */
function randomWindow(dataset: TsbsDataset, prng: Prng, durationMs: number): [number, number] {
  const spanS = (dataset.toMs - dataset.fromMs - durationMs) / 1000;
  const fromMs = dataset.fromMs + (spanS <= 0 ? 0 : prng.int(spanS) * 1000);
  return [fromMs, fromMs + durationMs];
}

function tsbsQuery(name: (typeof QUERY_NAMES)[number], dataset: TsbsDataset, prng: Prng): TsbsQuery {
  const iso = (ms: number) => new Date(ms).toISOString();
  // The store's time bounds are `?` parameters bound to Dates, as an application sends them: a
  // TIMESTAMP('…') literal is evaluated again for every row today (see docs/benchmarks.md, SQL).
  const params: Date[] = [];
  const storeTime = (ms: number) => {
    params.push(new Date(ms));
    return '?';
  };
  const pgTime = (ms: number) => `'${iso(ms)}'`;
  const influxTime = (ms: number) => `'${iso(ms)}'`;
  const bySql = (text: string, columns: string[]): Pick<TsbsQuery, 'storeText' | 'store' | 'columns'> =>
    ({ storeText: `${text} [${params.map((d) => d.toISOString()).join(', ')}]`, columns,
      store: async (store) => normalize((await (await store.sql(text, params)).toArray()) as unknown[][]) });
  const hostList = (hosts: string[], quote = (h: string) => `'${h}'`) => hosts.map(quote).join(', ');
  const maxOf = (metrics: readonly string[], as: (m: string) => string) =>
    metrics.map((m) => `max(${m}) AS ${as(m)}`).join(', ');
  const influxHosts = (hosts: string[]) => `(${hosts.map((h) => `hostname = '${h}'`).join(' or ')})`;
  switch (name) {
    case 'single-groupby-1-1-1':
    case 'single-groupby-5-8-1':
    case 'cpu-max-all-8': {
      const [hostCount, metricCount, durationMs, bucketMs] = name === 'single-groupby-1-1-1'
        ? [1, 1, HOUR_MS, MINUTE_MS] : name === 'single-groupby-5-8-1' ? [8, 5, HOUR_MS, MINUTE_MS]
          : [8, 10, 8 * HOUR_MS, HOUR_MS];
      const hosts = randomHosts(dataset, prng, Math.min(hostCount, dataset.hosts.length));
      const [fromMs, toMs] = randomWindow(dataset, prng, durationMs);
      const metrics = TSBS_CPU_FIELDS.slice(0, metricCount);
      const unit = bucketMs === MINUTE_MS ? 'MINUTE' : 'HOUR';
      const columns = ['time', ...metrics.map((m) => `max_${m}`)];
      // TSBS's windows start at any second: the buckets are whole minutes / hours, so the first
      // may be partial, as with time_bucket and InfluxDB's GROUP BY time.
      const text = `SELECT TIMESTAMP_TRUNC(${unit}, ts) AS time, ${maxOf(metrics, (m) => `max_${m}`)} ` +
        `FROM cpu WHERE hostname IN (${hostList(hosts)}) AND ts >= ${storeTime(fromMs)} AND ` +
        `ts < ${storeTime(toMs)} GROUP BY TIMESTAMP_TRUNC(${unit}, ts) ORDER BY time`;
      return {
        name, ...bySql(text, columns),
        influx: `SELECT ${maxOf(metrics, (m) => `max_${m}`)} FROM cpu WHERE ${influxHosts(hosts)} ` +
          `AND time >= ${influxTime(fromMs)} AND time < ${influxTime(toMs)} ` +
          `GROUP BY time(1${unit === 'MINUTE' ? 'm' : 'h'})`,
        postgres: `SELECT date_trunc('${unit.toLowerCase()}', time) AS time, ` +
          `${maxOf(metrics, (m) => `max_${m}`)} FROM cpu WHERE hostname IN (${hostList(hosts)}) ` +
          `AND time >= ${pgTime(fromMs)} AND time < ${pgTime(toMs)} GROUP BY 1 ORDER BY 1`,
      };
    }
    case 'double-groupby-1': {
      const [fromMs, toMs] = randomWindow(dataset, prng, 24 * HOUR_MS);
      const text = 'SELECT hostname, TIMESTAMP_TRUNC(HOUR, ts) AS time, AVG(usage_user) AS ' +
        `mean_usage_user FROM cpu WHERE ts >= ${storeTime(fromMs)} AND ts < ${storeTime(toMs)} ` +
        'GROUP BY hostname, TIMESTAMP_TRUNC(HOUR, ts) ORDER BY time, hostname';
      return {
        name, ...bySql(text, ['hostname', 'time', 'mean_usage_user']),
        influx: `SELECT mean(usage_user) AS mean_usage_user FROM cpu WHERE time >= ` +
          `${influxTime(fromMs)} AND time < ${influxTime(toMs)} GROUP BY time(1h), hostname`,
        postgres: `SELECT hostname, date_trunc('hour', time) AS time, avg(usage_user) AS ` +
          `mean_usage_user FROM cpu WHERE time >= ${pgTime(fromMs)} AND time < ${pgTime(toMs)} ` +
          'GROUP BY 1, 2 ORDER BY 2, 1',
      };
    }
    case 'high-cpu-1': {
      const [host] = randomHosts(dataset, prng, 1);
      const [fromMs, toMs] = randomWindow(dataset, prng, 24 * HOUR_MS);
      const text = `SELECT * FROM cpu WHERE usage_user > 90.0 AND ts >= ` +
        `${storeTime(fromMs)} AND ts < ${storeTime(toMs)} AND hostname = '${host!}'`;
      return {
        name, ...bySql(text, ['hostname', 'time', ...TSBS_CPU_FIELDS]),
        influx: `SELECT * FROM cpu WHERE usage_user > 90.0 AND (hostname = '${host!}') AND ` +
          `time >= ${influxTime(fromMs)} AND time < ${influxTime(toMs)}`,
        postgres: `SELECT * FROM cpu WHERE usage_user > 90.0 AND time >= ${pgTime(fromMs)} AND ` +
          `time < ${pgTime(toMs)} AND hostname IN ('${host!}')`,
      };
    }
    case 'lastpoint': {
      // One statement: each host's newest ts by the skip scan (one row read per host), its row
      // looked up by the whole row key. The subquery comes first: two tables join in FROM order,
      // and the look-up reads the right one.
      const text = 'SELECT c.* FROM (SELECT hostname, MAX(ts) AS ts FROM cpu GROUP BY hostname) m ' +
        'JOIN cpu c ON c.hostname = m.hostname AND c.ts = m.ts';
      return {
        name, ...bySql(text, ['hostname', 'time', ...TSBS_CPU_FIELDS]),
        influx: 'SELECT * FROM cpu GROUP BY "hostname" ORDER BY time DESC LIMIT 1',
        postgres: 'SELECT DISTINCT ON (hostname) * FROM cpu ORDER BY hostname, time DESC',
      };
    }
    case 'groupby-orderby-limit': {
      const [, toMs] = randomWindow(dataset, prng, HOUR_MS);
      const text = 'SELECT TIMESTAMP_TRUNC(MINUTE, ts) AS time, MAX(usage_user) AS max_usage_user ' +
        `FROM cpu WHERE ts < ${storeTime(toMs)} GROUP BY TIMESTAMP_TRUNC(MINUTE, ts) ` +
        'ORDER BY time DESC LIMIT 5';
      return {
        name, ...bySql(text, ['time', 'max_usage_user']),
        influx: `SELECT max(usage_user) AS max_usage_user FROM cpu WHERE time < ${influxTime(toMs)} ` +
          'GROUP BY time(1m) ORDER BY time DESC LIMIT 5',
        postgres: "SELECT date_trunc('minute', time) AS time, max(usage_user) AS max_usage_user " +
          `FROM cpu WHERE time < ${pgTime(toMs)} GROUP BY 1 ORDER BY 1 DESC LIMIT 5`,
      };
    }
  }
}

// ---- answers ----

function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number(value.toPrecision(SIGNIFICANT_DIGITS));
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) {
    return Number(Number(value).toPrecision(SIGNIFICANT_DIGITS));
  }
  return String(value);
}

function normalize(rows: unknown[][]): Answer {
  return rows.map((row) => row.map(cell));
}

/** Rows as objects of the query's columns, sorted: the three sides order ties differently. */
function comparable(columns: string[], rows: Array<Record<string, unknown>>): string[] {
  return rows.map((row) => JSON.stringify(columns.map((c) => cell(row[c])))).sort();
}

async function influxAnswerText(peer: InfluxPeer, statement: string): Promise<string> {
  return peer.queryText(DATABASE, statement);
}

function influxRows(text: string): Array<Record<string, unknown>> {
  const parsed = JSON.parse(text) as { results: Array<{ series?: Array<{ tags?: Record<string, string>;
    columns: string[]; values: unknown[][] }>; error?: string }> };
  const result = parsed.results[0]!;
  assert(result.error === undefined, result.error ?? '');
  // GROUP BY time() fills a bucket without rows with null (fill(null)); SQL has no such group.
  return (result.series ?? []).flatMap((series) => series.values
    .filter((values) => values.slice(1).some((value) => value !== null))
    .map((values) => ({
      ...series.tags, ...Object.fromEntries(series.columns.map((c, i) => [c, values[i]])),
    })));
}

interface Peers {
  store: ClientStore;
  influx: InfluxPeer | undefined;
  postgres: pg.Client | undefined;
}

/** One set answered by every side in turn, each timed, the answers cross-checked. */
async function answerAll(query: TsbsQuery, peers: Peers):
  Promise<{ ms: { store: number; influx?: number; postgres?: number } }> {
  let storeAnswer: Answer = [];
  const ms: { store: number; influx?: number; postgres?: number } = {
    store: await timeAsyncMs(async () => { storeAnswer = await query.store(peers.store); }),
  };
  const storeRows = storeAnswer.map((row) =>
    Object.fromEntries(query.columns.map((c, i) => [c, row[i]])));
  const expected = comparable(query.columns, storeRows);
  assert(expected.length > 0 || query.name === 'high-cpu-1', `${query.name}: no rows`);
  const { influx, postgres } = peers;
  if (influx !== undefined) {
    let text = '';
    ms.influx = await timeAsyncMs(async () => { text = await influxAnswerText(influx, query.influx); });
    // InfluxDB's lastpoint with several selectors answers time 0: its time is not compared.
    const columns = query.name === 'lastpoint' ? query.columns.filter((c) => c !== 'time') : query.columns;
    const got = comparable(columns, influxRows(text));
    const want = comparable(columns, storeRows);
    assert(JSON.stringify(got) === JSON.stringify(want),
      `${query.name}: InfluxDB ${got.slice(0, 3).join(' ')} ≠ store ${want.slice(0, 3).join(' ')} ` +
      `(${got.length} vs ${want.length} rows)`);
  }
  if (postgres !== undefined) {
    let rows: Array<Record<string, unknown>> = [];
    ms.postgres = await timeAsyncMs(async () => {
      rows = (await postgres.query(query.postgres)).rows as Array<Record<string, unknown>>;
    });
    const got = comparable(query.columns, rows);
    assert(JSON.stringify(got) === JSON.stringify(expected),
      `${query.name}: PostgreSQL ${got.slice(0, 3).join(' ')} ≠ store ${expected.slice(0, 3).join(' ')} ` +
      `(${got.length} vs ${expected.length} rows)`);
  }
  return { ms };
}

// ---- timing ----

type Side = ((index: number) => Promise<unknown>) | undefined;

/**
 * Timed runs, the sides in turn, run i with parameter set i % setCount, until every side has run
 * each set once and spent budgetMs (or RUN_COUNT_MAX runs); also the node's CPU time over the
 * store's runs (nodeCpuMs: the node process's user + system ms so far, in 10 ms ticks, so only the
 * sum over the runs means much).
 */
async function measure(sides: { store: Side; influx: Side; postgres: Side },
  limits: { setCount: number; budgetMs: number }, nodeCpuMs: () => number | undefined) {
  assert(limits.setCount > 0 && limits.setCount <= RUN_COUNT_MAX);
  const order = ['store', 'influx', 'postgres'] as const;
  const samples = { store: [] as number[], influx: [] as number[], postgres: [] as number[] };
  const spentMs = { store: 0, influx: 0, postgres: 0 };
  let storeCpuMs: number | undefined = 0;
  for (let i = 0; i < RUN_COUNT_MAX; i++) {
    let ran = false;
    for (const side of order) {
      const run = sides[side];
      if (run === undefined) continue;
      if (i >= limits.setCount && spentMs[side] > limits.budgetMs) continue;
      const cpuBeforeMs = side === 'store' ? nodeCpuMs() : undefined;
      const ms = await timeAsyncMs(() => run(i));
      if (side === 'store') {
        const cpuAfterMs = nodeCpuMs();
        storeCpuMs = storeCpuMs === undefined || cpuBeforeMs === undefined || cpuAfterMs === undefined
          ? undefined : storeCpuMs + cpuAfterMs - cpuBeforeMs;
      }
      samples[side].push(ms);
      spentMs[side] += ms;
      ran = true;
    }
    if (!ran) break;
  }
  return { ...samples, storeCpuMs };
}

function mean(samples: readonly number[]): number {
  assert(samples.length > 0);
  return samples.reduce((sum, value) => sum + value, 0) / samples.length;
}

async function commitLatency(properties: Parameters<typeof getStore>[0], dataset: TsbsDataset) {
  const reader = getStore({ ...properties, applicationName: 'bench-sql-reader' });
  const writer = getStore({ ...properties, applicationName: 'bench-sql-writer' });
  try {
    const log = await writer.putContainer({ name: 'commits', type: 'COLLECTION', rowKey: true,
      columns: [{ name: 'id', type: 'INTEGER' }, { name: 'v', type: 'LONG' }] });
    const commits = async (offset: number, more: (done: number) => boolean): Promise<number[]> => {
      const samples: number[] = [];
      for (let i = 0; more(i); i++) {
        samples.push(await timeAsyncMs(() => log.put([offset + i, BigInt(i)])));
      }
      return samples;
    };
    const prng = new Prng(7);
    const heavy = [tsbsQuery('double-groupby-1', dataset, prng),
      tsbsQuery('groupby-orderby-limit', dataset, prng)];
    await commits(0, (i) => i < COMMIT_COUNT); // warm-up
    const quiet = await commits(COMMIT_COUNT, (i) => i < COMMIT_COUNT);
    // The writer commits for as long as the reader runs BUSY_QUERY_COUNT queries.
    let running = true;
    const queryMs: number[] = [];
    const loop = (async () => {
      for (let i = 0; i < BUSY_QUERY_COUNT; i++) {
        queryMs.push(await timeAsyncMs(() => heavy[i % heavy.length]!.store(reader)));
      }
      running = false;
    })();
    const busy = await commits(2 * COMMIT_COUNT, () => running);
    await loop;
    return { quiet, busy, queryMs, quietP99Ms: percentile(quiet, 99), busyP99Ms: percentile(busy, 99) };
  } finally {
    await writer.close();
    await reader.close();
  }
}
