// A real node process for end-to-end tests: tools/store-node.ts on a temporary GS_HOME whose
// services listen on free ports of 127.0.0.1 (port 0 in gs_node.json; the node prints the ports
// it got). Stopped with SIGTERM (clean) or SIGKILL (a crash), by its pid; restarted on the same
// home and ports.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_ENTRY = fileURLToPath(new URL('../../../tools/store-node.ts', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STARTED = /transaction 127\.0\.0\.1:(\d+), system 127\.0\.0\.1:(\d+)/;

export interface NodeProcess {
  home: string;
  env: NodeJS.ProcessEnv;
  transactionPort: number;
  systemPort: number;
  readonly child: ChildProcess;
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

/** Starts the node of `home` and waits until it serves. */
export async function startNodeProcess(home: string): Promise<NodeProcess> {
  const env = { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log') };
  const child = spawn(process.execPath, ['--import', 'tsx', NODE_ENTRY], {
    env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
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
    home, env, child,
    transactionPort: Number(ports[1]), systemPort: Number(ports[2]),
    output: () => text,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
  };
}
