// The soak's hostile pattern alone against one node, for a memory figure less at the mercy of a
// shared machine than the 64-client soak: a node with the soak's hostile container (40,000 TSBS
// rows, one ~3.6 MB SELECT * reply), the hostile client (hostile-client.ts) pipelining unread
// SELECT * queries on a new connection every holdMs, and the node's VmRSS sampled each second.
// Prints the RSS after the warm-up, its min/max/spread after it, and the node's peak (VmHWM).
//
//   node --expose-gc --import tsx perf/hostile-memory.ts
//   HOSTILE_MEMORY_S=<run seconds, default 60> HOSTILE_MEMORY_HOLD_MS=<default 2000>

import { join } from 'node:path';
import { getStore } from '../lib/client/store-factory.ts';
import { benchConfig } from './bench-config.ts';
import { withTempHome } from './bench-files.ts';
import { HostileClient, hostileReplyProbe } from './hostile-client.ts';
import { withNodeProcess } from './node-process.ts';
import { processRssBytes, RssSampler, rssFlatness } from './rss-sampler.ts';
import { SoakRows } from './soak-clients.ts';
import { tsbsContainerDefinition } from './tsbs.ts';

const CONTAINER_NAME = 'soak_hostile';
/** As the soak's hostile container (perf/workloads/soak.ts). */
const ROW_COUNT = 40_000;
const ROW_INTERVAL_MS = 1000;
const FILL_BATCH_ROW_COUNT = 5000;
const RSS_SAMPLE_INTERVAL_MS = 1000;
const WARM_UP_FRACTION = 0.2;

const runMs = Number(process.env['HOSTILE_MEMORY_S'] ?? 60) * 1000;
const holdMs = Number(process.env['HOSTILE_MEMORY_HOLD_MS'] ?? 2000);
const config = benchConfig(true);

await withTempHome('hostile-memory', (root) => withNodeProcess(join(root, 'node'),
  { logWriteMode: 1 }, async (node) => {
    const rows = new SoakRows(config.dataset);
    const admin = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
    try {
      const container = await admin.putContainer(tsbsContainerDefinition(CONTAINER_NAME));
      for (let from = 0; from < ROW_COUNT; from += FILL_BATCH_ROW_COUNT) {
        await container.multiPut(Array.from({ length: FILL_BATCH_ROW_COUNT }, (_, i) => {
          const row = rows.row(0, from + i);
          row[0] = config.dataset.fromMs + (from + i) * ROW_INTERVAL_MS;
          return row;
        }));
      }
    } finally {
      await admin.close();
    }
    const probe = await hostileReplyProbe(node.endpoint, CONTAINER_NAME);
    const beforeMiB = (processRssBytes(node.pid) ?? 0) / 2 ** 20;
    const sampler = new RssSampler({ node: node.pid }, RSS_SAMPLE_INTERVAL_MS);
    const hostile = new HostileClient({
      endpoint: node.endpoint, containerName: CONTAINER_NAME, holdMs,
      untilMs: performance.now() + runMs,
    });
    await new Promise((resolve) => setTimeout(resolve, runMs));
    const counts = await hostile.stop();
    const series = sampler.stop().get('node')!;
    const flat = rssFlatness(series, WARM_UP_FRACTION)!;
    const peakMiB = (processRssBytes(node.pid, 'VmHWM') ?? 0) / 2 ** 20;
    console.log(`hostile pattern for ${runMs / 1000} s (a connection every ${holdMs} ms, ` +
      `replies of ${(probe.replyBytes / 1e6).toFixed(2)} MB): ${counts.connections} connections, ` +
      `${counts.queriesSent} queries sent, closed by the node ${counts.closedByNode}`);
    console.log(`node RSS: ${beforeMiB.toFixed(1)} MiB before, ${flat.afterWarmUpMiB.toFixed(1)} ` +
      `MiB after the warm-up, ${flat.minMiB.toFixed(1)}–${flat.maxMiB.toFixed(1)} MiB after it, ` +
      `spread ${flat.spreadPercent.toFixed(1)}%, peak (VmHWM) ${peakMiB.toFixed(1)} MiB`);
  }));
