// expimp/export/tsbs-day and expimp/import/tsbs-day: gs_export --all and gs_import --all --replace
// of the TSBS day (one time series per host), rows/s, as the commands run (child processes, start
// included, compiled as `npx gs_export` runs them after `npm run build`, else through tsx; the
// import reads each file twice: checked, then written).
//
// Store: a node process, logWriteMode 0 (every statement durable when acknowledged), loaded
// untimed through the client. Peer: PostgreSQL's COPY TO / COPY FROM of the same rows as CSV,
// one table with a primary key (perf/postgres-peer.ts), skipped when PostgreSQL is not installed.
// influx_inspect export / line-protocol import would be the other peer; it is not run here. The
// issue's target: at least the peer's rows/s.

import { execFile } from 'node:child_process';
import { chmodSync, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { getStore } from '../../lib/client/store-factory.ts';
import { toolEntry } from '../../tools/bin/tool-entry.mjs';
import type { BenchConfig } from '../bench-config.ts';
import { throughputResult, type WorkloadReport } from '../bench-result.ts';
import { withNodeProcess, type NodeProcess } from '../node-process.ts';
import { startPostgresPeer } from '../postgres-peer.ts';
import { median } from '../stats.ts';
import { tsbsContainerDefinition, TSBS_CPU_FIELDS, type TsbsDataset } from '../tsbs.ts';

const run = promisify(execFile);
const REPEAT_COUNT = 3;
const TARGET = { of: 'ratio', min: 1 } as const;

export async function expimpWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  const repeatCount = config.quick ? 1 : REPEAT_COUNT;
  const store = await storeRuns(dataset, repeatCount);
  const peer = await postgresRuns(dataset, repeatCount);
  const rowsPerS = (ms: number) => dataset.rowCount / (ms / 1000);
  const value = (samples: number[]) => rowsPerS(median(samples));
  const peerValue = (samples: number[] | undefined) => samples === undefined ? null : value(samples);
  return {
    results: [
      throughputResult('expimp/export/tsbs-day', value(store.exportMs), peerValue(peer?.exportMs),
        { peer: 'postgres', target: TARGET }),
      throughputResult('expimp/import/tsbs-day', value(store.importMs), peerValue(peer?.importMs),
        { peer: 'postgres', target: TARGET }),
    ],
    details: [
      { name: 'expimp/export/tsbs-day', method: 'gs_export --all (child process) vs COPY cpu TO file CSV',
        storeSamples: store.exportMs.map(rowsPerS), peerSamples: (peer?.exportMs ?? []).map(rowsPerS) },
      { name: 'expimp/import/tsbs-day',
        method: 'gs_import --all --replace (child process) vs TRUNCATE; COPY cpu FROM file CSV',
        storeSamples: store.importMs.map(rowsPerS), peerSamples: (peer?.importMs ?? []).map(rowsPerS) },
    ],
  };
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
