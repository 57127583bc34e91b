// pgwire/*: the PostgreSQL protocol of a node process (lib/pgwire) on the TSBS day.
//
//   pgwire/ingest/copy            the day through `COPY cpu FROM STDIN` (pg-copy-streams, text
//                                 format, one CopyData per host batch), vs PostgreSQL 15's COPY of
//                                 the same text into a table of the same columns (fsync on), in
//                                 the same run. Target: ≥ 2× PostgreSQL's rows/s.
//   pgwire/ingest/insert-batched  the day through prepared `INSERT INTO cpu_insert VALUES ($1, …),
//                                 …` of INSERT_ROWS_PER_STATEMENT rows (12 parameters a row), one
//                                 statement at a time, vs the same PostgreSQL COPY.
//   pgwire/query/<name>           a few SQL TSBS-style queries through `pg` vs the same text through
//                                 the store client (store.sql): the protocol's overhead, as the
//                                 ratio store-client / pg (target ≥ 1 / 1.2: overhead ≤ 20%). pg
//                                 as it comes (simple query, text results): the target's figure.
//   pgwire/query/<name>/binary    the same through pg with `binary: true` (extended protocol,
//                                 binary results), no target: pg 8.23 reads binary cells as UTF-8
//                                 text (brianc/node-postgres#3495), so its values are wrong and it is
//                                 shown for its cost only; the node writes them from the page bytes.
//
// Every side is a client in this process over TCP (PostgreSQL over its Unix socket, as sql-tsbs).

import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { assert } from '../../lib/base/assert.ts';
import { getStore } from '../../lib/client/store-factory.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import { loadAverage1m } from '../bench-meta.ts';
import { latencyResult, throughputResult, type BenchDetail, type BenchResult, type WorkloadReport } from '../bench-result.ts';
import { withNodeProcess } from '../node-process.ts';
import { ownCpuMs, processCpuMs } from '../process-cpu.ts';
import { median, timeAsyncMs } from '../stats.ts';
import { TSBS_CPU_FIELDS, type TsbsDataset } from '../tsbs.ts';
import { startPostgresCluster } from '../../test/support/postgres-cluster.ts';

const INSERT_ROWS_PER_STATEMENT = 100;
/** Timed runs of each query per side, alternating. */
const QUERY_RUN_COUNT = 9;
const COPY_TARGET_RATIO_MIN = 2;
/** store-client ms / pg ms: at most 20% overhead. */
const OVERHEAD_RATIO_MIN = 1 / 1.2;

function storeColumns(): string {
  return `hostname STRING, ts TIMESTAMP, ${TSBS_CPU_FIELDS.map((f) => `${f} DOUBLE`).join(', ')}, ` +
    'PRIMARY KEY (hostname, ts)';
}

/** The day as COPY text, one chunk per host batch. */
function copyChunks(dataset: TsbsDataset): Buffer[] {
  return dataset.batches.map((batch) => {
    const host = dataset.hosts[batch.hostIndex]!.tags['hostname']!;
    let text = '';
    for (const row of batch.rows) {
      text += `${host}\t${new Date(row[0] as number).toISOString()}`;
      for (let f = 1; f < row.length; f++) text += `\t${String(row[f])}`;
      text += '\n';
    }
    return Buffer.from(text, 'utf8');
  });
}

export async function pgwireWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  const results: BenchResult[] = [];
  const details: BenchDetail[] = [];
  const loads: number[] = [loadAverage1m()];
  return withTempHome('pgwire', (root) => withNodeProcess(join(root, 'node'), { logWriteMode: 1 }, async (node) => {
    assert(node.sqlPort > 0, 'the node printed no SQL port');
    const store = getStore({ ...node.storeProperties, applicationName: 'bench-pgwire' });
    const db = new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user: 'admin', password: 'admin',
      database: 'public' });
    await db.connect();
    const cluster = await startPostgresCluster({ prefix: 'store-bench-pgwire-', durable: true });
    if (cluster === undefined) console.warn('  pgwire: PostgreSQL is not installed: its COPY skipped');
    const postgres = cluster === undefined ? undefined : new pg.Client({ host: cluster.socketDirectory,
      port: cluster.port, user: cluster.user, database: 'postgres' });
    await postgres?.connect();
    try {
      const chunks = copyChunks(dataset);
      const rows = dataset.rowCount;
      // PostgreSQL first, so that the store's COPY does not find a cold disk cache to its advantage.
      let postgresRowsPerS: number | null = null;
      if (postgres !== undefined) {
        await postgres.query(`CREATE TABLE cpu (hostname text NOT NULL, time timestamptz NOT NULL, ` +
          `${TSBS_CPU_FIELDS.map((f) => `${f} double precision`).join(', ')}, PRIMARY KEY (hostname, time))`);
        const ms = await timeAsyncMs(() => pipeline(Readable.from(chunks), postgres.query(copyFrom('COPY cpu FROM STDIN'))));
        postgresRowsPerS = rows / (ms / 1000);
        console.log(`    PostgreSQL COPY: ${ms.toFixed(0)} ms, ${postgresRowsPerS.toFixed(0)} rows/s`);
      }
      loads.push(loadAverage1m());
      await db.query(`CREATE TABLE cpu (${storeColumns()})`);
      const copyMs = await timeAsyncMs(() => pipeline(Readable.from(chunks), db.query(copyFrom('COPY cpu FROM STDIN'))));
      const copied = (await db.query('SELECT COUNT(*) AS n FROM cpu')).rows[0].n as string;
      assert(Number(copied) === rows, `COPY wrote ${copied} of ${rows} rows`);
      const copyRowsPerS = rows / (copyMs / 1000);
      console.log(`    store COPY: ${copyMs.toFixed(0)} ms, ${copyRowsPerS.toFixed(0)} rows/s`);
      results.push(throughputResult('pgwire/ingest/copy', copyRowsPerS, postgresRowsPerS,
        { peer: 'postgres', target: { of: 'ratio', min: COPY_TARGET_RATIO_MIN } }));
      details.push({ name: 'pgwire/ingest/copy', storeSamples: [copyMs], peerSamples: [],
        method: `${rows} TSBS rows as COPY text (${chunks.length} CopyData chunks, one per host batch) ` +
          'through pg-copy-streams into `cpu (hostname, ts, 10 DOUBLE, PRIMARY KEY (hostname, ts))`, ' +
          'vs PostgreSQL 15 COPY of the same bytes (fsync on, primary key); one run each; ' +
          `load average ${loads.map((l) => l.toFixed(1)).join(', ')}` });
      loads.push(loadAverage1m());

      // The engine's own rate for the same rows: the store client's multiPut, batch by batch.
      await db.query(`CREATE TABLE cpu_client (${storeColumns()})`);
      const table = await store.getContainer('cpu_client');
      assert(table !== undefined);
      const clientMs = await timeAsyncMs(async () => {
        for (const batch of dataset.batches) {
          const host = dataset.hosts[batch.hostIndex]!.tags['hostname']!;
          await table.multiPut(batch.rows.map((row) => [host, ...row] as never));
        }
      });
      console.log(`    store client multiPut of the same batches (reference): ${clientMs.toFixed(0)} ms, ` +
        `${(rows / (clientMs / 1000)).toFixed(0)} rows/s`);
      details.push({ name: 'pgwire/ingest/client-multiput', storeSamples: [clientMs], peerSamples: [],
        method: 'reference for pgwire/ingest/*: the store client multiPut of the same host batches, one at a time' });

      await db.query(`CREATE TABLE cpu_insert (${storeColumns()})`);
      const placeholders = Array.from({ length: INSERT_ROWS_PER_STATEMENT }, (_r, r) =>
        `(${Array.from({ length: 12 }, (_c, c) => `$${r * 12 + c + 1}`).join(', ')})`).join(', ');
      const flat = dataset.batches.flatMap((batch) => batch.rows.map((row) =>
        [dataset.hosts[batch.hostIndex]!.tags['hostname']!, new Date(row[0] as number).toISOString(),
          ...row.slice(1).map(String)]));
      const insertMs = await timeAsyncMs(async () => {
        let at = 0;
        for (; at + INSERT_ROWS_PER_STATEMENT <= flat.length; at += INSERT_ROWS_PER_STATEMENT) {
          await db.query({ name: 'insert-batch', text: `INSERT INTO cpu_insert VALUES ${placeholders}`,
            values: flat.slice(at, at + INSERT_ROWS_PER_STATEMENT).flat() });
        }
        for (; at < flat.length; at++) {
          await db.query({ name: 'insert-one', text: `INSERT INTO cpu_insert VALUES (${placeholders.split('), (')[0]!.replace(/^\(/, '')})`,
            values: flat[at]! });
        }
      });
      const inserted = (await db.query('SELECT COUNT(*) AS n FROM cpu_insert')).rows[0].n as string;
      assert(Number(inserted) === rows, `INSERT wrote ${inserted} of ${rows} rows`);
      const insertRowsPerS = rows / (insertMs / 1000);
      console.log(`    store INSERT (${INSERT_ROWS_PER_STATEMENT} rows a statement): ${insertMs.toFixed(0)} ms, ` +
        `${insertRowsPerS.toFixed(0)} rows/s`);
      results.push(throughputResult('pgwire/ingest/insert-batched', insertRowsPerS, postgresRowsPerS,
        { peer: 'postgres' }));
      details.push({ name: 'pgwire/ingest/insert-batched', storeSamples: [insertMs], peerSamples: [],
        method: `prepared INSERT of ${INSERT_ROWS_PER_STATEMENT} rows × 12 parameters (text, untyped), one ` +
          `statement at a time, vs PostgreSQL 15 COPY; load average ${loadAverage1m().toFixed(1)}` });

      // The queries: the same text both ways; pg parses every row of the answer into JS values.
      const host = dataset.hosts[0]!.tags['hostname']!;
      const hosts2 = dataset.hosts.slice(0, 2).map((h) => `'${h.tags['hostname']!}'`).join(', ');
      const at = (ms: number) => `TIMESTAMP('${new Date(ms).toISOString()}')`;
      const hourFrom = dataset.fromMs + 6 * 3_600_000;
      const queries: Array<[string, string]> = [
        ['single-groupby-1-1-1', `SELECT TIMESTAMP_TRUNC(MINUTE, ts) AS time, MAX(usage_user) AS max_usage_user ` +
          `FROM cpu WHERE hostname = '${host}' AND ts >= ${at(hourFrom)} AND ts < ${at(hourFrom + 3_600_000)} ` +
          'GROUP BY TIMESTAMP_TRUNC(MINUTE, ts) ORDER BY time'],
        ['high-cpu-1', `SELECT * FROM cpu WHERE hostname = '${host}' AND usage_user > 90.0`],
        ['lastpoint-1', `SELECT * FROM cpu WHERE hostname = '${host}' ORDER BY ts DESC LIMIT 1`],
        ['scan-2-hosts', `SELECT * FROM cpu WHERE hostname IN (${hosts2})`],
      ];
      const dbBinary = new pg.Client({ host: '127.0.0.1', port: node.sqlPort, user: 'admin', password: 'admin',
        database: 'public', binary: true } as pg.ClientConfig);
      await dbBinary.connect();
      try {
        for (const [name, text] of queries) {
          type Side = 'pg' | 'binary' | 'store';
          // pg and the store client next to each other, as before binary was measured.
          const sides: Side[] = ['pg', 'store', 'binary'];
          const run: Record<Side, () => Promise<number>> = {
            pg: async () => (await db.query(text)).rows.length,
            binary: async () => (await dbBinary.query({ text, queryMode: 'extended' } as pg.QueryConfig)).rows.length,
            store: async () => (await (await store.sql(text)).toArray()).length,
          };
          // Wall time, the node's CPU (every thread; 10 ms ticks) and this process's (the client's
          // parsing) per query: what is left of the wall time is waiting (other processes, the wire).
          const samples = Object.fromEntries(sides.map((side) => [side, { wallMs: [] as number[], nodeCpuMs: [] as number[],
            clientCpuMs: [] as number[] }])) as Record<Side, { wallMs: number[]; nodeCpuMs: number[]; clientCpuMs: number[] }>;
          const rowCounts: Record<Side, number> = { pg: 0, binary: 0, store: 0 };
          const nodeCpuMs = () => processCpuMs(node.pid) ?? Number.NaN;
          for (const side of sides) await run[side]();
          for (let i = 0; i < QUERY_RUN_COUNT; i++) {
            for (const side of sides) {
              const nodeBefore = nodeCpuMs();
              const clientBefore = ownCpuMs();
              samples[side].wallMs.push(await timeAsyncMs(async () => { rowCounts[side] = await run[side](); }));
              samples[side].clientCpuMs.push(ownCpuMs() - clientBefore);
              samples[side].nodeCpuMs.push(nodeCpuMs() - nodeBefore);
            }
          }
          assert(rowCounts.pg === rowCounts.store, `${name}: pg ${rowCounts.pg} rows, store client ${rowCounts.store}`);
          assert(rowCounts.binary === rowCounts.store, `${name}: pg binary ${rowCounts.binary} rows, store client ${rowCounts.store}`);
          const medians = (side: Side) => ({ wallMs: median(samples[side].wallMs), nodeCpuMs: median(samples[side].nodeCpuMs),
            clientCpuMs: median(samples[side].clientCpuMs) });
          const pgMs = medians('pg').wallMs;
          const binaryMs = medians('binary').wallMs;
          const storeMs = medians('store').wallMs;
          const load = loadAverage1m().toFixed(1);
          results.push(latencyResult(`pgwire/query/${name}`, pgMs, storeMs,
            { peer: 'store-client', target: { of: 'ratio', min: OVERHEAD_RATIO_MIN } }));
          results.push(latencyResult(`pgwire/query/${name}/binary`, binaryMs, storeMs, { peer: 'store-client' }));
          details.push({ name: `pgwire/query/${name}`, storeSamples: samples.pg.wallMs, peerSamples: samples.store.wallMs,
            method: `${text}; ${rowCounts.pg} rows; through pg (value, text results) vs the store client (peer), ` +
              `${QUERY_RUN_COUNT} runs each alternating after one untimed run, medians; load average ${load}` });
          details.push({ name: `pgwire/query/${name}/binary`, storeSamples: samples.binary.wallMs,
            peerSamples: samples.store.wallMs,
            method: 'as pgwire/query/' + name + ' through pg with binary: true (extended protocol, binary results); ' +
              'pg 8.23 reads binary cells as UTF-8 text (brianc/node-postgres#3495): a cost figure, its values are wrong' });
          const line = (side: Side) => {
            const m = medians(side);
            return `${m.wallMs.toFixed(1)} ms (node CPU ${m.nodeCpuMs.toFixed(0)}, client CPU ${m.clientCpuMs.toFixed(1)}, ` +
              `rest ${Math.max(0, m.wallMs - m.nodeCpuMs - m.clientCpuMs).toFixed(1)})`;
          };
          console.log(`    ${name} (${rowCounts.pg} rows, load ${load}): pg text ${line('pg')}, overhead ` +
            `${((pgMs / storeMs - 1) * 100).toFixed(0)}%; pg binary ${line('binary')}, overhead ` +
            `${((binaryMs / storeMs - 1) * 100).toFixed(0)}%; store client ${line('store')}`);
        }
      } finally {
        await dbBinary.end().catch(() => undefined);
      }
      return { results, details };
    } finally {
      await db.end().catch(() => undefined);
      await postgres?.end().catch(() => undefined);
      await cluster?.stop();
      await store.close();
    }
  }));
}
