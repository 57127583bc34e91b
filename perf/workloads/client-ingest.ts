// client/ingest/tsbs/batch=5000/connections=2: the TSBS cpu-only load through the network, rows/s.
//
// Store: a real node process (tools/store-node.ts, perf/node-process.ts) on a temporary GS_HOME,
// logWriteMode 0: every multiPut is acknowledged after the fdatasync of its xlog record, because
// InfluxDB acknowledges a write after its WAL fsync (wal-fsync-delay 0s, its default); both sides
// are durable at the acknowledgement. The rows go through the TypeScript client: two client
// stores, each with a pool of one connection, one writer each, so the two connections are
// certain (one store with a pool of two would keep both writers on one connection: its pool opens
// a second only when the first carries 8 requests). Each writer takes the next batch of the
// interleaved stream (5000 rows of one host) and sends it as one ClientContainer.multiPut, waiting
// for the acknowledgement, as TSBS's load workers do. The client's validation and encoding of the
// rows are timed; creating the containers (one per host, fresh ones each run) and connecting are
// not.
//
// Peer: InfluxDB 1.x (`influxd` on PATH, the Debian package `influxdb`), its own process on a
// temporary directory, the same rows as TSBS's InfluxDB loader sends them: line protocol, POST
// /write?db=…&precision=ms, 5000 lines a request, two concurrent writers on two keep-alive
// connections, a fresh database each run. The line-protocol bodies are built before the timing,
// so InfluxDB's side is only HTTP and the server: its best case. Without influxd, the store side
// runs alone and the peer is reported as skipped (peerValue null).
//
// Both servers run for the whole workload: one warm-up run each (JIT, page cache), then store and
// InfluxDB runs alternate; after each run its containers or database are checked (every row is
// there) and dropped. Reported: the median of the runs; the target is 2× InfluxDB.

import { join } from 'node:path';
import { assert } from '../../lib/base/assert.ts';
import {
  getStore, type ClientContainer, type ClientStore,
} from '../../lib/client/store-factory.ts';
import { settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import type { WorkloadReport } from '../bench-result.ts';
import { clientBenchConfig } from '../client-bench-config.ts';
import { loadBatchesByWriter } from '../concurrent-callers.ts';
import { influxComparedIngest } from '../influx-load.ts';
import { withNodeProcess, type NodeProcess } from '../node-process.ts';
import { timeAsyncMs } from '../stats.ts';
import { checkAndDropHostContainers } from '../tsbs-containers.ts';
import { tsbsContainerDefinition, type TsbsDataset } from '../tsbs.ts';

/** The target: at least twice InfluxDB's rows/s. */
const INFLUX_RATIO_MIN = 2;

export async function clientIngestWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const { dataset } = config;
  const { clientIngestRepeatCount: repeatCount, clientIngestConnectionCount: connectionCount } =
    clientBenchConfig(config);
  return influxComparedIngest({
    name: `client/ingest/tsbs/batch=${dataset.config.batchRowCountMax}/` +
      `connections=${connectionCount}`,
    homeLabel: 'client-ingest', dataset, repeatCount, connectionCount,
    ratioMin: INFLUX_RATIO_MIN, databasePrefix: 'run',
    storeMethod: `node process, logWriteMode 0, ${connectionCount} client stores of one ` +
      'connection each, ClientContainer.multiPut per batch',
    withStore: (root, use) => withNodeProcess(join(root, 'node'), { logWriteMode: 0 },
      (node) => use((run) => clientIngestRun(node, dataset, { run, connectionCount }))),
  });
}

/** One timed load through the client into fresh containers; returns milliseconds. */
export async function clientIngestRun(
  node: NodeProcess,
  dataset: TsbsDataset,
  settings: { run: number; connectionCount: number },
): Promise<number> {
  const names = dataset.hosts.map((host) => `run${settings.run}_${host.containerName}`);
  const admin = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
  const writers: ClientStore[] = [];
  try {
    for (const containerName of names) {
      await admin.putContainer(tsbsContainerDefinition(containerName));
    }
    const containers: ClientContainer[][] = [];
    for (let w = 0; w < settings.connectionCount; w++) {
      const writer = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
      writers.push(writer);
      await writer.connect();
      containers.push(await Promise.all(names.map(async (containerName) => {
        const container = await writer.getContainer(containerName);
        assert(container !== undefined);
        return container;
      })));
    }
    settleHeap();
    const ms = await timeAsyncMs(() => loadBatchesByWriter(dataset.batches,
      settings.connectionCount,
      (w, batch) => containers[w]![batch.hostIndex]!.multiPut(batch.rows)));
    await checkAndDropHostContainers(admin, names, dataset);
    return ms;
  } finally {
    for (const writer of writers) await writer.close();
    await admin.close();
  }
}
