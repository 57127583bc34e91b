// client/put/durable/clients=<n>: durable single-row puts from n concurrent clients, for a fixed
// time: acknowledged rows/s and the p50/p99 of one put's latency.
//
// Store: a real node process (perf/node-process.ts), logWriteMode 0, so a put is acknowledged
// after the fdatasync of the xlog that holds it (group commit: one sync covers every commit
// waiting in a partition group). Each client is a ClientStore of its own with a pool of one
// connection: n independent applications or devices, each with its connection and its
// auto-commit session, which is what "n clients" means for the node (a shared pool would multiplex
// several callers' requests on fewer connections, measuring the client library's batching rather
// than the node's). Client c puts one row at a time into its own TIME_SERIES container
// (`put_client_<c>`, TSBS's columns; containers spread over the partitions and partition groups
// as names hash) and waits for the acknowledgement before the next, for putDurationMs.
//
// Peer: LevelDB (classic-level, perf/leveldb-peer.ts) in this process, n concurrent callers each
// doing put(key, value, { sync: true }) of one row (a one-put batch: LevelDB fdatasyncs its log
// before the put resolves, and groups concurrent synced writes). It has no network hop and no
// protocol: the store's figure includes a TCP round trip, framing, authentication state and a
// second process on the same 2 cores; LevelDB's does not.
//
// One warm-up run each, then putRepeatCount runs, store and LevelDB alternating; rows/s is the
// acknowledged puts over the time from the first put to the last acknowledgement, the latencies
// each run's percentiles; reported: medians over the runs. The target: at 64 clients,
// at least 50,000 acknowledged rows/s.
//
// What bounds it: the names put_client_0..63 hash to 64 distinct partitions, each with an xlog of
// its own; the commit journal (wal/group-commit.ts) lets one fdatasync per partition group and
// round acknowledge all of them, so the disk no longer is the limit (engine/thread counts the puts
// per log sync). What is left is CPU: the node (socket reads and writes, framing, the engine) and
// the 64 client stores in this process share the machine's two cores. So each run also measures
// the CPU time per acknowledged put, the node's (its process, every thread: process-cpu.ts) and
// this process's (the clients), reported as name/cpu, µs per put, node plus client, against
// LevelDB's process CPU per put in its runs. Two cores give 2 s of CPU a second: at R puts/s no
// more than 2,000,000 / R µs a put, 40 µs for the target.

import { join } from 'node:path';
import { assert } from '../../lib/base/assert.ts';
import {
  getStore, type ClientContainer, type ClientStore,
} from '../../lib/client/store-factory.ts';
import { settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { withTempHome } from '../bench-files.ts';
import { latencyResult, type WorkloadReport } from '../bench-result.ts';
import { clientBenchConfig } from '../client-bench-config.ts';
import { PutRows, putLoops, type PutLoopsRun } from '../concurrent-callers.ts';
import { LevelPeer } from '../leveldb-peer.ts';
import { withNodeProcess, type NodeProcess } from '../node-process.ts';
import { ownCpuMs, processCpuMs } from '../process-cpu.ts';
import { putReport } from '../put-report.ts';
import { median } from '../stats.ts';
import { tsbsContainerDefinition, type TsbsHost } from '../tsbs.ts';

/** The target: acknowledged rows/s at 64 clients. */
const ROWS_PER_S_MIN_AT_64_CLIENTS = 50_000;
const TARGET_CLIENT_COUNT = 64;

export async function clientPutWorkload(
  config: BenchConfig,
  clientCount: number,
): Promise<WorkloadReport> {
  assert(clientCount > 0);
  const { putRepeatCount: repeatCount, putDurationMs: durationMs } = clientBenchConfig(config);
  const hosts: TsbsHost[] = Array.from({ length: clientCount },
    (_, c) => ({ containerName: `put_client_${c}`, tags: {} }));
  const store: PutLoopsRun[] = [];
  const peer: PutLoopsRun[] = [];
  /** µs of CPU per acknowledged put, one per recorded run; none where /proc is not. */
  const cpu = { node: [] as number[], client: [] as number[], peer: [] as number[] };
  await withTempHome('client-put', async (root) => {
    await withNodeProcess(join(root, 'node'), { logWriteMode: 0 }, async (node) => {
      const levelPeer = await LevelPeer.open(join(root, 'leveldb'), hosts);
      const clients = await connectClients(node, hosts);
      try {
        const storeRows = new PutRows(config.dataset, clientCount);
        const peerRows = new PutRows(config.dataset, clientCount);
        const settings = { callerCount: clientCount, durationMs };
        // Run 0 is the warm-up, not recorded.
        for (let run = 0; run <= repeatCount; run++) {
          settleHeap();
          const [nodeCpuMs, clientCpuMs] = [processCpuMs(node.pid), ownCpuMs()];
          const storeRun = await putLoops(settings,
            (c) => clients.containers[c]!.put(storeRows.next(c)));
          const [nodeCpuEndMs, clientCpuEndMs] = [processCpuMs(node.pid), ownCpuMs()];
          settleHeap();
          const peerCpuMs = ownCpuMs();
          const peerRun = await putLoops(settings,
            (c) => levelPeer.putBatch({ hostIndex: c, rows: [peerRows.next(c)] }, { sync: true }));
          const peerCpuEndMs = ownCpuMs();
          if (run === 0) continue;
          store.push(storeRun);
          peer.push(peerRun);
          if (nodeCpuMs !== undefined && nodeCpuEndMs !== undefined) {
            const [storePuts, peerPuts] = [storeRun.latenciesMs.length, peerRun.latenciesMs.length];
            cpu.node.push(((nodeCpuEndMs - nodeCpuMs) * 1000) / storePuts);
            cpu.client.push(((clientCpuEndMs - clientCpuMs) * 1000) / storePuts);
            cpu.peer.push(((peerCpuEndMs - peerCpuMs) * 1000) / peerPuts);
          }
        }
      } finally {
        for (const client of clients.stores) await client.close();
        await levelPeer.close();
      }
    });
  });
  const name = `client/put/durable/clients=${clientCount}`;
  const report = putReport(name, { store, peer }, {
    method: `${clientCount} clients (a ClientStore with one connection each) to a node process ` +
      `(logWriteMode 0), each a loop of ClientContainer.put of one row into its own container, ` +
      `waiting for the acknowledgement; LevelDB in-process, ${clientCount} callers, put ` +
      `sync:true; ${durationMs} ms a run, 1 warm-up + ${repeatCount} runs alternating, ` +
      'rows/s = acknowledged puts / (first put to last acknowledgement), median of runs',
    target: clientCount === TARGET_CLIENT_COUNT
      ? { of: 'value', min: ROWS_PER_S_MIN_AT_64_CLIENTS } : undefined,
  });
  if (cpu.node.length > 0) {
    const storeSamples = cpu.node.map((nodeUs, run) => nodeUs + cpu.client[run]!);
    report.results.push(latencyResult(`${name}/cpu`, median(storeSamples), median(cpu.peer),
      { unit: 'µs' }));
    report.details.push({
      name: `${name}/cpu`,
      method: 'CPU time per acknowledged put, µs: the node process (/proc/<pid>/stat, every ' +
        'thread) plus this process (the clients) over each store run; LevelDB: this process ' +
        'over each LevelDB run; median of runs',
      storeSamples, peerSamples: cpu.peer,
      measures: { nodeCpuUsPerPut: cpu.node, clientCpuUsPerPut: cpu.client },
    });
  }
  return report;
}

export async function connectClients(
  node: NodeProcess,
  hosts: readonly TsbsHost[],
): Promise<{ stores: ClientStore[]; containers: ClientContainer[] }> {
  const stores: ClientStore[] = [];
  const containers: ClientContainer[] = [];
  const admin = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
  try {
    for (const host of hosts) await admin.putContainer(tsbsContainerDefinition(host.containerName));
  } finally {
    await admin.close();
  }
  for (const host of hosts) {
    const client = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
    stores.push(client);
    const container = await client.getContainer(host.containerName);
    assert(container !== undefined);
    containers.push(container);
  }
  return { stores, containers };
}
