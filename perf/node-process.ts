// A real node process for the client benchmarks: tools/store-node.ts on a fresh GS_HOME of its
// own, every service on a port the kernel picks (port 0) on 127.0.0.1, learnt from the line the
// node prints once it serves. Stopped with SIGKILL by its pid: the home is thrown away after, so
// the clean stop's checkpoint would only add time (SIGTERM when profiled: child-processes.ts).
//
// The node runs with perf/orphan-guard.mjs preloaded, so it also goes away if the benchmark dies,
// and in the form `npm start` runs it (server-form.ts).

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineThreadChoice } from '../lib/node/engine-thread/node-engine.ts';
import { CHECKPOINT_INTERVAL_MS_OFF } from './bench-engines.ts';
import { OwnedChild, cpuProfileArgs, firstMatchingLine } from './child-processes.ts';
import { serverArgs } from './server-form.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
/** From spawn to "node started": node, tsx if from source, the node's own start on an empty home. */
const NODE_START_MS_MAX = 60_000;
/** The line tools/store-node.ts prints once every service listens. */
const NODE_STARTED_PATTERN = /^node started on .*: transaction ([^\s,]+):(\d+),/;

/** The line tools/store-node.ts prints after the start line when it serves the web API too. */
const WEB_API_STARTED_PATTERN = /^web API started in the node's process: /;

/** gs_node.json members a workload sets, as the file spells them. */
export interface NodeDataStoreSettings {
  logWriteMode: number;
  concurrency?: number;
}

export interface NodeEndpoint {
  host: string;
  port: number;
}

/** The transaction endpoint in the node's start line, or undefined when it is not that line. */
export function nodeStartedEndpoint(line: string): NodeEndpoint | undefined {
  const match = NODE_STARTED_PATTERN.exec(line);
  if (match === null) return undefined;
  return { host: match[1]!, port: Number(match[2]) };
}

/**
 * gs_node.json for a benchmark node: ports 0, and by default no periodic checkpoint within a run
 * (the soak, which runs for minutes, keeps GridDB's periodic one).
 */
export function benchNodeJson(
  dataStore: NodeDataStoreSettings,
  checkpointIntervalMs = CHECKPOINT_INTERVAL_MS_OFF,
): object {
  const anyPort = { servicePort: 0 };
  return {
    dataStore,
    checkpoint: { checkpointInterval: `${checkpointIntervalMs / 1000}s` },
    system: anyPort, transaction: anyPort, sql: anyPort, cluster: anyPort, sync: anyPort,
  };
}

export class NodeProcess {
  private constructor(
    private readonly owned: OwnedChild,
    readonly endpoint: NodeEndpoint,
    /** The SQL (PostgreSQL protocol) port from the start line; 0 when the line has none. */
    readonly sqlPort: number,
  ) {}

  /** The node's process id, for its CPU time (process-cpu.ts). */
  get pid(): number {
    return this.owned.child.pid!;
  }

  /** Client properties that reach this node as the default admin. */
  get storeProperties() {
    return {
      notificationMember: `${this.endpoint.host}:${this.endpoint.port}`,
      clusterName: 'myCluster', username: 'admin', password: 'admin',
    };
  }

  /**
   * Starts a node on `home` (an empty directory) and waits until it serves; `engineThread` is its
   * STORE_ENGINE_THREAD (`auto`, the node's default, unless a workload compares the two).
   */
  static async start(
    home: string,
    dataStore: NodeDataStoreSettings,
    engineThread: EngineThreadChoice = 'auto',
    checkpointIntervalMs = CHECKPOINT_INTERVAL_MS_OFF,
    /** Serve the web API in the node's process (--webapi) on this web API home. */
    webApiHome?: string,
  ): Promise<NodeProcess> {
    mkdirSync(join(home, 'conf'), { recursive: true });
    writeFileSync(join(home, 'conf', 'gs_node.json'),
      JSON.stringify(benchNodeJson(dataStore, checkpointIntervalMs)));
    const args = [...cpuProfileArgs(), ...extraNodeArgs(), ...serverArgs('store-node'),
      ...(webApiHome === undefined ? [] : ['--webapi'])];
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log'),
        STORE_ENGINE_THREAD: engineThread,
        ...(webApiHome === undefined ? {} : { GS_WEBAPI_HOME: webApiHome }) },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const owned = new OwnedChild(child, 'the node process');
    try {
      if (webApiHome !== undefined) {
        // The web API's line comes last; the node's ports are in its endpoints file by then.
        await firstMatchingLine(owned, child.stdout, WEB_API_STARTED_PATTERN, NODE_START_MS_MAX);
        const endpoints = JSON.parse(readFileSync(join(home, 'conf', 'store.endpoints.json'), 'utf8')) as
          { transaction: string; sql: string };
        const [host, port] = endpoints.transaction.split(':');
        return new NodeProcess(owned, { host: host!, port: Number(port) },
          Number(endpoints.sql.split(':')[1]));
      }
      const match = await firstMatchingLine(owned, child.stdout, NODE_STARTED_PATTERN,
        NODE_START_MS_MAX);
      return new NodeProcess(owned, nodeStartedEndpoint(match.input)!,
        Number(/sql \(PostgreSQL\) [^\s,]+:(\d+)/.exec(match.input ?? '')?.[1] ?? 0));
    } catch (error) {
      await owned.stop('SIGKILL');
      throw error;
    }
  }

  async stop(): Promise<void> {
    // A profiled node writes its profile on a clean exit only.
    await this.owned.stop(cpuProfileArgs().length > 0 ? 'SIGTERM' : 'SIGKILL');
  }
}

/**
 * BENCH_NODE_ARGS: more node / V8 flags for the node process, split at spaces (`--trace-gc`,
 * `--max-semi-space-size=…`), to find where a workload's time goes; none by default.
 */
function extraNodeArgs(): string[] {
  const text = process.env['BENCH_NODE_ARGS'] ?? '';
  return text.split(' ').filter((arg) => arg !== '');
}

/** Runs body with a node on `home`; stops the node after, even on failure. */
export async function withNodeProcess<T>(
  home: string,
  dataStore: NodeDataStoreSettings,
  body: (node: NodeProcess) => Promise<T>,
  engineThread: EngineThreadChoice = 'auto',
  checkpointIntervalMs = CHECKPOINT_INTERVAL_MS_OFF,
  webApiHome?: string,
): Promise<T> {
  const node = await NodeProcess.start(home, dataStore, engineThread, checkpointIntervalMs,
    webApiHome);
  try {
    return await body(node);
  } finally {
    await node.stop();
  }
}
