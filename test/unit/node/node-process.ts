// A real node process for end-to-end tests: tools/store-node.ts on a temporary GS_HOME whose
// services listen on free ports of 127.0.0.1 (port 0 in gs_node.json; the node prints the ports
// it got). Stopped with SIGTERM (clean) or SIGKILL (a crash), by its pid; restarted on the same
// home and ports.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = fileURLToPath(new URL('../../../tools/', import.meta.url));
const NODE_ENTRY = join(TOOLS, 'store-node.ts');
const TOOL_TIMEOUT_MS = 90_000;
const START_TIMEOUT_MS = 60_000;
const STARTED = /transaction 127\.0\.0\.1:(\d+), system 127\.0\.0\.1:(\d+), sql \(PostgreSQL\) 127\.0\.0\.1:(\d+)/;

export interface NodeProcess {
  home: string;
  env: NodeJS.ProcessEnv;
  transactionPort: number;
  systemPort: number;
  /** The PostgreSQL protocol's port (/sql/servicePort). */
  sqlPort: number;
  readonly child: ChildProcess;
  /** The process's end: its exit code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the process printed. */
  output(): string;
  /** SIGTERM and wait for the exit: a clean stop. */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit: a crash. */
  kill(): Promise<void>;
}

/** A new home with gs_node.json members merged over free ports; removed by removeHome. */
export function newNodeHome(node: Record<string, unknown> = {}): string {
  const home = mkdtempSync(join(tmpdir(), 'store-e2e-'));
  mkdirSync(join(home, 'conf'));
  const ports = Object.fromEntries(['system', 'transaction', 'sql', 'cluster', 'sync']
    .map((service) => [service, { servicePort: 0 }]));
  writeFileSync(join(home, 'conf', 'gs_node.json'), JSON.stringify({ ...ports, ...node }));
  return home;
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

/** Starts the node of `home` (with `extraEnv` over this process's) and waits until it serves. */
export async function startNodeProcess(
  home: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<NodeProcess> {
  const env = { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log'), ...extraEnv };
  const child = spawn(process.execPath, ['--import', 'tsx', NODE_ENTRY], {
    env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ports = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not start: ${text}`)), START_TIMEOUT_MS);
    const check = () => {
      const match = STARTED.exec(text);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`node exited while starting: ${text}`));
    });
  });
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return {
    home, env, child, exited,
    transactionPort: Number(ports[1]), systemPort: Number(ports[2]), sqlPort: Number(ports[3]),
    output: () => text,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
  };
}

export interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs tools/<name> (a gs_* command) to its end. */
export function runTool(name: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ToolRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', join(TOOLS, name), ...args],
      { env, timeout: TOOL_TIMEOUT_MS }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      });
  });
}

/** `count` distinct ports of 127.0.0.1 that were free a moment ago. */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (!ports.includes(port)) ports.push(port);
  }
  return ports;
}
