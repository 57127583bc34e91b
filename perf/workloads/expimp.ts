// expimp/export/tsbs-day and expimp/import/tsbs-day: gs_export --all and gs_import --all --replace
// of the TSBS day (one time series per host), rows/s, as the commands run (child processes, start
// included, compiled as `npx gs_export` runs them after `npm run build`, else through tsx; the
// import reads each file twice: checked, then written).
//
// Store: a node process, logWriteMode 0 (every statement durable when acknowledged), loaded
// untimed through the client. Peers, each skipped when not installed: PostgreSQL's COPY TO / COPY
// FROM of the same rows as CSV, one table with a primary key (perf/postgres-peer.ts); InfluxDB
// (influxd): its line-protocol import, the day's lines in writes of 5,000 one after another over
// one connection (what `influx -import` does), and its export of every point through the HTTP
// API, `SELECT * FROM cpu` streamed as chunked CSV into a file (Debian's influxdb package has no
// influx_inspect, whose `export` reads the files directly). The issue's target: at least the
// faster peer's rows/s; each peer's own ratio is printed beside it.

import { execFile } from 'node:child_process';
import { chmodSync, createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assert } from '../../lib/base/assert.ts';
import { getStore } from '../../lib/client/store-factory.ts';
import { toolEntry } from '../../tools/bin/tool-entry.mjs';
import type { BenchConfig } from '../bench-config.ts';
import {
  throughputResult, type BenchDetail, type BenchPeer, type BenchResult, type WorkloadReport,
} from '../bench-result.ts';
import { InfluxPeer, influxdPath } from '../influx-peer.ts';
import { INFLUX_MEASUREMENT, influxBatchBody, influxLinePrefix } from '../influx-line-protocol.ts';
import { withNodeProcess, type NodeProcess } from '../node-process.ts';
import { startPostgresPeer } from '../postgres-peer.ts';
import { median } from '../stats.ts';
import { tsbsContainerDefinition, TSBS_CPU_FIELDS, type TsbsDataset } from '../tsbs.ts';

const run = promisify(execFile);
const REPEAT_COUNT = 3;
const TARGET = { of: 'ratio', min: 1 } as const;
/** Points a write of InfluxDB's import carries: `influx -import`'s batch size. */
const INFLUX_IMPORT_LINES_PER_WRITE = 5000;

interface PeerRuns {
  exportMs: number[];
  importMs: number[];
}

export async function expimpWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  const repeatCount = config.quick ? 1 : REPEAT_COUNT;
  const store = await storeRuns(dataset, repeatCount);
  const peers: Array<{ peer: BenchPeer; runs: PeerRuns; how: { export: string; import: string } }> = [];
  const postgres = await postgresRuns(dataset, repeatCount);
  if (postgres !== undefined) {
    peers.push({ peer: 'postgres', runs: postgres,
      how: { export: 'COPY cpu TO file CSV', import: 'TRUNCATE; COPY cpu FROM file CSV' } });
  }
  const influx = await influxRuns(dataset, repeatCount);
  if (influx !== undefined) {
    peers.push({ peer: 'influxdb', runs: influx,
      how: { export: 'GET /query SELECT * FROM cpu, chunked CSV to a file',
        import: `POST /write of the day's line protocol, ${INFLUX_IMPORT_LINES_PER_WRITE} lines a write` } });
  }
  const rowsPerS = (ms: number) => dataset.rowCount / (ms / 1000);
  const value = (samples: number[]) => rowsPerS(median(samples));
  const results: BenchResult[] = [];
  const details: BenchDetail[] = [];
  for (const kind of ['export', 'import'] as const) {
    const name = `expimp/${kind}/tsbs-day`;
    const storeSamples = kind === 'export' ? store.exportMs : store.importMs;
    const peerSamples = (runs: PeerRuns) => kind === 'export' ? runs.exportMs : runs.importMs;
    // The target is the faster peer's rows/s; the other peer is printed beside it, untargeted.
    const ranked = [...peers].sort((a, b) => value(peerSamples(b.runs)) - value(peerSamples(a.runs)));
    const fastest = ranked[0];
    results.push(throughputResult(name, value(storeSamples),
      fastest === undefined ? null : value(peerSamples(fastest.runs)),
      { peer: fastest?.peer ?? 'postgres', target: TARGET }));
    for (const other of ranked.slice(1)) {
      results.push(throughputResult(`${name}/vs-${other.peer}`, value(storeSamples),
        value(peerSamples(other.runs)), { peer: other.peer }));
    }
    details.push({ name, storeSamples: storeSamples.map(rowsPerS),
      peerSamples: fastest === undefined ? [] : peerSamples(fastest.runs).map(rowsPerS),
      method: `gs_${kind} ${kind === 'export' ? '--all' : '--all --replace'} (child process) vs ` +
        (peers.length === 0 ? 'no peer installed'
          : peers.map((p) => `${p.peer}: ${p.how[kind]} (${peerSamples(p.runs).map(rowsPerS)
            .map((r) => Math.round(r)).join(', ')} rows/s)`).join('; ')) });
  }
  return { results, details };
}

/** The TSBS day into `node`, a container per host, through the client. */
export async function expimpLoadDay(node: NodeProcess, dataset: TsbsDataset): Promise<void> {
  const store = getStore(node.storeProperties);
  try {
    const containers = [];
    for (const host of dataset.hosts) {
      containers.push(await store.putContainer(tsbsContainerDefinition(host.containerName)));
    }
    for (const batch of dataset.batches) await containers[batch.hostIndex]!.multiPut(batch.rows);
  } finally {
    await store.close();
  }
}

/** gs_export's and gs_import's user, server and --silent for `node`. */
export function expimpToolArgs(node: NodeProcess): string[] {
  return ['-u', 'admin/admin', '-s', node.storeProperties.notificationMember, '--silent'];
}

async function storeRuns(dataset: TsbsDataset, repeatCount: number) {
  const root = mkdtempSync(join(tmpdir(), 'store-bench-expimp-'));
  const exportMs: number[] = [];
  const importMs: number[] = [];
  try {
    await withNodeProcess(join(root, 'node'), { logWriteMode: 0 }, async (node) => {
      await expimpLoadDay(node, dataset);
      const env = { ...process.env, GS_HOME: join(root, 'node'), GS_LOG: join(root, 'log') };
      const args = expimpToolArgs(node);
      for (let i = 0; i < repeatCount; i++) {
        const directory = join(root, `export-${i}`);
        exportMs.push(await timedTool('gs_export', [...args, '--all', '-d', directory], env));
        importMs.push(await timedTool('gs_import',
          [...args, '--all', '--replace', '-d', directory], env));
        rmSync(directory, { recursive: true, force: true });
      }
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { exportMs, importMs };
}

/** The command as `npx <name>` runs it: compiled when `npm run build` is up to date, else through tsx. */
async function timedTool(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const entry = toolEntry(name);
  if (!entry.built) console.error(`expimp: ${name} runs through tsx (${entry.reason}); npm run build first`);
  const startMs = performance.now();
  await run(process.execPath, [...(entry.built ? [] : ['--import', 'tsx']), entry.path, ...args], { env });
  return performance.now() - startMs;
}

async function postgresRuns(dataset: TsbsDataset, repeatCount: number) {
  const peer = await startPostgresPeer();
  if (peer === undefined) return undefined;
  const exportMs: number[] = [];
  const importMs: number[] = [];
  try {
    const input = join(peer.directory, 'cpu.csv');
    await writeCsv(dataset, input);
    const columns = TSBS_CPU_FIELDS.map((field) => `${field} float8`).join(', ');
    await peer.timedSql(`create table cpu(time timestamptz not null, hostname text not null, ${columns}, ` +
      'primary key (hostname, time))');
    for (let i = 0; i < repeatCount; i++) {
      await peer.timedSql('truncate cpu');
      importMs.push(await peer.timedSql(`copy cpu from '${input}' csv`));
      exportMs.push(await peer.timedSql(`copy cpu to '${join(peer.directory, `out-${i}.csv`)}' csv`));
    }
  } finally {
    await peer.stop();
  }
  return { exportMs, importMs };
}

/**
 * InfluxDB's import and export of the day, each repeat into a new database: the line protocol is
 * made before the clock starts (as a file on disk would be), then written in order.
 */
async function influxRuns(dataset: TsbsDataset, repeatCount: number): Promise<PeerRuns | undefined> {
  const influxd = influxdPath();
  if (influxd === undefined) {
    console.warn('  expimp: influxd is not on PATH (Debian package influxdb): InfluxDB skipped');
    return undefined;
  }
  const root = mkdtempSync(join(tmpdir(), 'store-bench-expimp-influx-'));
  const exportMs: number[] = [];
  const importMs: number[] = [];
  const peer = await InfluxPeer.start(influxd, join(root, 'influxdb'), 1);
  try {
    const prefixes = dataset.hosts.map(influxLinePrefix);
    const lines = dataset.batches.flatMap((batch) =>
      influxBatchBody(batch, prefixes[batch.hostIndex]!).split('\n').filter((line) => line !== ''));
    const writes: Buffer[] = [];
    for (let at = 0; at < lines.length; at += INFLUX_IMPORT_LINES_PER_WRITE) {
      writes.push(Buffer.from(`${lines.slice(at, at + INFLUX_IMPORT_LINES_PER_WRITE).join('\n')}\n`));
    }
    for (let i = 0; i < repeatCount; i++) {
      const database = `expimp_${i}`;
      await peer.createDatabase(database);
      let startMs = performance.now();
      for (const body of writes) await peer.write(database, body);
      importMs.push(performance.now() - startMs);
      const written = await peer.pointCount(database, INFLUX_MEASUREMENT);
      assert(written === dataset.rowCount, `InfluxDB holds ${written} of ${dataset.rowCount} points`);
      const path = join(root, `export-${i}.csv`);
      startMs = performance.now();
      await peer.exportCsv(database, `SELECT * FROM ${INFLUX_MEASUREMENT}`, path);
      exportMs.push(performance.now() - startMs);
      const exportedLines = await lineCount(path);
      // A header line and a line per point.
      assert(exportedLines === dataset.rowCount + 1,
        `InfluxDB exported ${exportedLines} lines for ${dataset.rowCount} points`);
      rmSync(path, { force: true });
      await peer.dropDatabase(database);
    }
  } finally {
    await peer.stop();
    rmSync(root, { recursive: true, force: true });
  }
  return { exportMs, importMs };
}

/** Newline-ended lines of the file at `path`, read as a stream. */
async function lineCount(path: string): Promise<number> {
  let count = 0;
  for await (const chunk of createReadStream(path)) {
    for (const byte of chunk as Buffer) if (byte === 0x0a) count++;
  }
  return count;
}

/** The dataset as `time,hostname,usage_user,…` lines, readable by the server's user. */
async function writeCsv(dataset: TsbsDataset, path: string): Promise<void> {
  const out = createWriteStream(path);
  for (const [hostIndex, rows] of dataset.rowsByHost.entries()) {
    const host = dataset.hosts[hostIndex]!.containerName;
    for (const row of rows) {
      const line = `${new Date(row[0] as number).toISOString()},${host},${row.slice(1).join(',')}\n`;
      if (!out.write(line)) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
  chmodSync(path, 0o644);
}
