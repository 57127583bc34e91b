// Cold start to serving (issue 13, point 7): `npm start` on a fresh home, timed from the spawn to
// the moment a client logs in on the transaction port and the web API answers checkConnection.
// Each run has its own home and free ports; `npm start` is stopped with SIGTERM after. Prints each
// run and the median.
//
//   node --import tsx perf/start-time.ts [runs, default 5] [npm | source]
//
// `npm` (the default) runs `npm start`, which runs the compiled tools when dist/ is up to date;
// `source` runs `node --import tsx tools/start.ts`, the TypeScript compiled at start as `npm start`
// did before the build (set TSX_DISABLE_CACHE=1 for tsx's cold compile, its cache off).

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getStore } from '../lib/client/store-factory.ts';
import { freePorts, newNodeHome, removeHome } from '../test/unit/node/node-process.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS_DEFAULT = 5;
const POLL_MS = 20;
const SERVING_TIMEOUT_MS = 120_000;

async function serving(transactionPort: number, webApiPort: number): Promise<boolean> {
  const store = getStore({ notificationMember: `127.0.0.1:${transactionPort}`,
    clusterName: 'myCluster', username: 'admin', password: 'admin' });
  try {
    await store.getContainerNames();
  } catch {
    return false;
  } finally {
    await store.close().catch(() => undefined);
  }
  const url = `http://127.0.0.1:${webApiPort}/store/v2/myCluster/dbs/public/checkConnection`;
  const answer = await fetch(url,
    { headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` } })
    .catch(() => undefined);
  return answer?.status === 200;
}

async function oneRun(how: string): Promise<number> {
  const [transaction, system, sql, cluster, sync, webApiPort] = await freePorts(6);
  const home = newNodeHome({
    transaction: { servicePort: transaction }, system: { servicePort: system },
    sql: { servicePort: sql }, cluster: { servicePort: cluster }, sync: { servicePort: sync },
  });
  mkdirSync(join(home, 'webapi', 'conf'), { recursive: true });
  writeFileSync(join(home, 'webapi', 'conf', 'store_webapi.properties'),
    `server.port=${webApiPort}\n`);
  const startMs = performance.now();
  const [command, args] = how === 'source'
    ? [process.execPath, ['--import', 'tsx', join(ROOT, 'tools', 'start.ts')]] : ['npm', ['start']];
  const child = spawn(command, args, {
    cwd: ROOT, env: { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log') },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    while (!(await serving(transaction!, webApiPort!))) {
      if (performance.now() - startMs > SERVING_TIMEOUT_MS) throw new Error('not serving');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return performance.now() - startMs;
  } finally {
    child.kill('SIGTERM');
    await exited;
    removeHome(home);
  }
}

const runs = Number(process.argv[2] ?? RUNS_DEFAULT);
const how = process.argv[3] ?? 'npm';
const times: number[] = [];
for (let run = 0; run < runs; run += 1) {
  const ms = await oneRun(how);
  times.push(ms);
  console.log(`run ${run + 1}: ${(ms / 1000).toFixed(2)} s`);
}
times.sort((a, b) => a - b);
console.log(`${how}: median of ${runs}: ${(times[Math.floor(runs / 2)]! / 1000).toFixed(2)} s`);
