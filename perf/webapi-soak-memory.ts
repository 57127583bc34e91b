// The soak's web API load alone, to see where the web API process's memory goes: a node process
// (logWriteMode 1, checkpoint every 60 s, as the soak's) with a web API process in front of it,
// and the soak's 16 web API clients (perf/soak-clients.ts: 10-row PUTs and /tql queries on their
// own container, 10-30 ms think time) for BENCH_PROBE_S seconds (120 by default). The 48
// TypeScript clients and the hostile client of the soak talk to the node only, so they are left
// out: the web API process sees the same requests as in the soak, on a machine far less loaded.
//
// Prints the web API's RSS every 10 s and its spread after the soak's warm-up (the first 20%).
// With BENCH_MEMORY_LOG=<dir> each server also logs process.memoryUsage() each second there
// (perf/memory-log.mjs); BENCH_SERVER_FORM=source runs the servers through tsx instead of dist/.
//
//   BENCH_PROBE_S=180 BENCH_MEMORY_LOG=/tmp/mem node --import tsx perf/webapi-soak-memory.ts

import { Agent } from 'node:http';
import { join } from 'node:path';
import { getStore } from '../lib/client/store-factory.ts';
import { BENCH_SEED, benchConfig } from './bench-config.ts';
import { withTempHome } from './bench-files.ts';
import { withNodeProcess } from './node-process.ts';
import { RssSampler, rssFlatness } from './rss-sampler.ts';
import { serverForm } from './server-form.ts';
import { SoakLatencies, SoakRows, soakWebApiLoop } from './soak-clients.ts';
import { tsbsContainerDefinition } from './tsbs.ts';
import { WebApiProcess } from './webapi-process.ts';

const WEB_CLIENT_COUNT = 16;
/** The soak's first web API client is caller 48: the same rows as there. */
const FIRST_CALLER = 48;
const PROBE_S_DEFAULT = 120;
const PROBE_S_MAX = 3600;
const SOAK_CHECKPOINT_INTERVAL_MS = 60_000;
const WARM_UP_FRACTION = 0.2;
const PRINT_EVERY_SAMPLES = 10;

const probeS = Number(process.env['BENCH_PROBE_S'] ?? PROBE_S_DEFAULT);
if (!Number.isInteger(probeS) || probeS < 10 || probeS > PROBE_S_MAX) {
  throw new Error(`BENCH_PROBE_S must be an integer from 10 to ${PROBE_S_MAX}, not ${probeS}`);
}
const config = benchConfig(false);
const rows = new SoakRows(config.dataset);

await withTempHome('webapi-mem', (root) => withNodeProcess(join(root, 'node'),
  { logWriteMode: 1 }, async (node) => {
    const admin = getStore({ ...node.storeProperties, connectionPoolSize: 1 });
    try {
      for (let w = 0; w < WEB_CLIENT_COUNT; w++) {
        const container = await admin.putContainer(tsbsContainerDefinition(`soak_web_${w}`));
        await container.multiPut(rows.window(FIRST_CALLER + w));
      }
    } finally {
      await admin.close();
    }
    const webApi = await WebApiProcess.start(join(root, 'webapi'), node.endpoint);
    const agents = Array.from({ length: WEB_CLIENT_COUNT },
      () => new Agent({ keepAlive: true, maxSockets: 1 }));
    try {
      console.log(`web API ${serverForm('store-webapi')}, pid ${webApi.pid}, ${probeS} s, ` +
        `${WEB_CLIENT_COUNT} clients`);
      const latencies = new SoakLatencies();
      const untilMs = performance.now() + probeS * 1000;
      const sampler = new RssSampler({ webapi: webApi.pid }, 1000);
      await Promise.all(agents.map((agent, w) => soakWebApiLoop(
        { port: webApi.port, agent, basePath: webApi.basePath, containerName: `soak_web_${w}` },
        { caller: FIRST_CALLER + w, seed: BENCH_SEED + FIRST_CALLER + w, untilMs, rows,
          latencies })));
      const series = sampler.stop().get('webapi')!;
      const line = series.rssMiB.filter((_, i) => i % PRINT_EVERY_SAMPLES === 0)
        .map((mib) => mib.toFixed(1)).join(' ');
      console.log(`RSS MiB every ${PRINT_EVERY_SAMPLES} s: ${line}`);
      const flat = rssFlatness(series, WARM_UP_FRACTION)!;
      const counts = ['webapi/put', 'webapi/tql'].map((kind) =>
        `${kind} ${latencies.latenciesMs.get(kind as 'webapi/put')!.length} ` +
        `(${latencies.errorCounts.get(kind as 'webapi/put')} failed)`);
      console.log(`after warm-up ${flat.afterWarmUpMiB.toFixed(1)} MiB, ` +
        `${flat.minMiB.toFixed(1)}-${flat.maxMiB.toFixed(1)} MiB, spread ` +
        `${flat.spreadPercent.toFixed(1)}%; ${counts.join(', ')}`);
    } finally {
      for (const agent of agents) agent.destroy();
      await webApi.stop();
    }
  }, 'auto', SOAK_CHECKPOINT_INTERVAL_MS));
