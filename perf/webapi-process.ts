// The web API of the web API benchmarks, in either of its two modes (BENCH_WEBAPI_MODE):
//   embedded  the default, what `npm start` runs: the node serves the web API in its own process
//             (store-node --webapi), its stores reaching the node in-process;
//   process   GridDB's layout: tools/store-webapi.ts as a process of its own in front of the node,
//             reaching it over TCP.
// Either way on a web API home of its own (GS_WEBAPI_HOME) whose store_webapi.properties put it on
// a free port of 127.0.0.1 and whose repository.json names the benchmark's node. A web API
// process is learnt ready from its "web API started" log line, stopped with SIGTERM by its pid (a
// clean stop closes its client connections), and preloaded with perf/orphan-guard.mjs so it also
// goes away if the benchmark dies.

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OwnedChild, cpuProfileArgs, firstMatchingLine, freePort } from './child-processes.ts';
import { serverArgs } from './server-form.ts';
import { withNodeProcess, type NodeDataStoreSettings, type NodeEndpoint, type NodeProcess }
  from './node-process.ts';
import { CHECKPOINT_INTERVAL_MS_OFF } from './bench-engines.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const WEBAPI_START_MS_MAX = 60_000;
const WEBAPI_STARTED_PATTERN = /"msg":"web API started"/;
/** `/store/v2/myCluster/dbs/public` */
const BASE_PATH = '/store/v2/myCluster/dbs/public';

export type WebApiMode = 'embedded' | 'process';

/** BENCH_WEBAPI_MODE: `embedded` (the default, npm start's) or `process`. */
export function webApiMode(): WebApiMode {
  const text = process.env['BENCH_WEBAPI_MODE'];
  if (text === undefined || text === '' || text === 'embedded') return 'embedded';
  if (text === 'process') return 'process';
  throw new Error(`BENCH_WEBAPI_MODE must be embedded or process, not ${JSON.stringify(text)}`);
}

/** The mode in words, for a workload's method line. */
export function webApiModeText(mode: WebApiMode): string {
  return mode === 'embedded' ? 'a node process serving the web API itself (npm start\'s mode)'
    : 'a node process behind a web API process';
}

/** Where the benchmark sends its requests. */
export interface WebApiEndpoint {
  port: number;
  /** `/store/v2/myCluster/dbs/public` */
  basePath: string;
}

/**
 * Writes a web API home: repository.json naming `node` (a placeholder address when embedded: the
 * node's own cluster is reached in-process), store_webapi.properties on a free port with
 * `settings` (further lines, `maxQueryNum=100`). Returns the port.
 */
async function writeWebApiHome(webApiHome: string, node: NodeEndpoint | undefined,
  settings: readonly string[]): Promise<number> {
  const conf = join(webApiHome, 'conf');
  mkdirSync(conf, { recursive: true });
  const member = node === undefined ? '127.0.0.1:1' : `${node.host}:${node.port}`;
  writeFileSync(join(conf, 'repository.json'), JSON.stringify({ clusters: [{
    name: 'myCluster', mode: 'FIXED_LIST', transactionMember: member,
    sqlMember: '', providerUrl: null }] }));
  const port = await freePort();
  writeFileSync(join(conf, 'store_webapi.properties'),
    [`server.port=${port}`, ...settings, ''].join('\n'));
  return port;
}

/** Runs `body` with a node under `root` and its web API in `mode`; stops both after. */
export async function withNodeWebApi<T>(
  root: string,
  options: { mode: WebApiMode; dataStore: NodeDataStoreSettings; settings?: readonly string[] },
  body: (node: NodeProcess, webApi: WebApiEndpoint) => Promise<T>,
): Promise<T> {
  const webApiHome = join(root, 'webapi');
  const settings = options.settings ?? [];
  if (options.mode === 'embedded') {
    const port = await writeWebApiHome(webApiHome, undefined, settings);
    return withNodeProcess(join(root, 'node'), options.dataStore,
      (node) => body(node, { port, basePath: BASE_PATH }), 'auto', CHECKPOINT_INTERVAL_MS_OFF,
      webApiHome);
  }
  return withNodeProcess(join(root, 'node'), options.dataStore, async (node) => {
    const webApi = await WebApiProcess.start(webApiHome, node.endpoint, settings);
    try {
      return await body(node, webApi);
    } finally {
      await webApi.stop();
    }
  });
}

export class WebApiProcess implements WebApiEndpoint {
  private constructor(
    private readonly owned: OwnedChild,
    readonly port: number,
  ) {}

  /** The web API's process id, for its memory (rss-sampler.ts). */
  get pid(): number {
    return this.owned.child.pid!;
  }

  get basePath(): string {
    return BASE_PATH;
  }

  /** `settings`: further lines of store_webapi.properties (`maxQueryNum=100`). */
  static async start(webApiHome: string, node: NodeEndpoint, settings: readonly string[] = []):
    Promise<WebApiProcess> {
    const port = await writeWebApiHome(webApiHome, node, settings);
    const child = spawn(process.execPath,
      [...cpuProfileArgs(), ...serverArgs('store-webapi')], {
        cwd: REPO_ROOT,
        env: { ...process.env, GS_HOME: webApiHome, GS_WEBAPI_HOME: webApiHome },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
    const owned = new OwnedChild(child, 'the web API process');
    try {
      await firstMatchingLine(owned, child.stdout, WEBAPI_STARTED_PATTERN, WEBAPI_START_MS_MAX);
      return new WebApiProcess(owned, port);
    } catch (error) {
      await owned.stop('SIGKILL');
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.owned.stop('SIGTERM');
  }
}
