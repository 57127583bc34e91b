// A web API process for the web API benchmarks: tools/store-webapi.ts on a web API home of its
// own (GS_WEBAPI_HOME) whose repository.json names the benchmark's node and whose settings put
// it on a free port of 127.0.0.1; learnt ready from its "web API started" log line. Stopped with
// SIGTERM by its pid (a clean stop closes its client connections); preloaded with
// perf/orphan-guard.ts so it also goes away if the benchmark dies.

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OwnedChild, cpuProfileArgs, firstMatchingLine, freePort } from './child-processes.ts';
import type { NodeEndpoint } from './node-process.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const WEBAPI_ENTRY_PATH = fileURLToPath(new URL('../tools/store-webapi.ts', import.meta.url));
const ORPHAN_GUARD_PATH = fileURLToPath(new URL('./orphan-guard.ts', import.meta.url));
const WEBAPI_START_MS_MAX = 60_000;
const WEBAPI_STARTED_PATTERN = /"msg":"web API started"/;

export class WebApiProcess {
  private constructor(
    private readonly owned: OwnedChild,
    readonly port: number,
  ) {}

  /** The web API's process id, for its memory (rss-sampler.ts). */
  get pid(): number {
    return this.owned.child.pid!;
  }

  /** `/store/v2/myCluster/dbs/public` on this web API. */
  get basePath(): string {
    return '/store/v2/myCluster/dbs/public';
  }

  /** `settings`: further lines of store_webapi.properties (`maxQueryNum=100`). */
  static async start(webApiHome: string, node: NodeEndpoint, settings: readonly string[] = []):
    Promise<WebApiProcess> {
    const conf = join(webApiHome, 'conf');
    mkdirSync(conf, { recursive: true });
    writeFileSync(join(conf, 'repository.json'), JSON.stringify({ clusters: [{
      name: 'myCluster', mode: 'FIXED_LIST', transactionMember: `${node.host}:${node.port}`,
      sqlMember: '', providerUrl: null }] }));
    const port = await freePort();
    writeFileSync(join(conf, 'store_webapi.properties'), [`server.port=${port}`, ...settings, ''].join('\n'));
    const child = spawn(process.execPath,
      [...cpuProfileArgs(), '--import', 'tsx', '--import', ORPHAN_GUARD_PATH, WEBAPI_ENTRY_PATH], {
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
