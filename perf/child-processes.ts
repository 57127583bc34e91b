// Server processes a benchmark starts (the store's node, influxd): free ports to give them, and a
// way to stop each one by its pid, bounded in time, that also fires if the benchmark itself exits
// first. Only processes started here are ever signalled.

import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { finished } from 'node:stream/promises';
import { assert } from '../lib/base/assert.ts';

/**
 * BENCH_CPU_PROF_DIR=<dir>: the node and web API processes run with `--cpu-prof` into that
 * directory (a .cpuprofile each, written as they exit; the node is then stopped with SIGTERM, not
 * SIGKILL, so that it writes one). Node refuses --cpu-prof in NODE_OPTIONS, hence this switch.
 */
export function cpuProfileArgs(): string[] {
  const directory = process.env['BENCH_CPU_PROF_DIR'];
  return directory === undefined || directory === ''
    ? [] : ['--cpu-prof', `--cpu-prof-dir=${directory}`];
}

/** From SIGTERM to SIGKILL when a process does not stop by itself. */
const STOP_GRACE_MS = 10_000;

/**
 * A port that was free on 127.0.0.1 a moment ago (the kernel's pick for port 0). Another process
 * may take it before the server binds; a server that then fails to start says so.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  assert(address !== null && typeof address === 'object');
  const { port } = address;
  server.close();
  await once(server, 'close');
  return port;
}

/** `count` distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  return ports;
}

/**
 * Owns a started child: stop() signals it by pid and waits for it to exit; if the benchmark exits
 * before that (an exception, process.exit), the child is killed on the way out.
 */
export class OwnedChild {
  private readonly exited: Promise<void>;
  private readonly killOnExit = () => this.signal('SIGKILL');

  constructor(readonly child: ChildProcess, readonly name: string) {
    assert(child.pid !== undefined);
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    process.once('exit', this.killOnExit);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once the child has exited. */
  async whenExited(): Promise<void> {
    await this.exited;
  }

  /** Sends `signal` (SIGKILL after STOP_GRACE_MS if it is still running) and waits for the exit. */
  async stop(signal: NodeJS.Signals): Promise<void> {
    this.signal(signal);
    const timer = setTimeout(() => this.signal('SIGKILL'), STOP_GRACE_MS);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
      process.removeListener('exit', this.killOnExit);
    }
  }

  private signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      process.kill(this.child.pid!, signal);
    } catch {
      // It exited between the check and the signal.
    }
  }
}

/** Resolves with the first line of `stream` that matches, or rejects on exit (once `stream` ends) or timeout. */
export async function firstMatchingLine(
  owned: OwnedChild,
  stream: NodeJS.ReadableStream,
  pattern: RegExp,
  timeoutMs: number,
): Promise<RegExpExecArray> {
  let text = '';
  let onData: ((chunk: string) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const found = new Promise<RegExpExecArray>((resolve) => {
    onData = (chunk: string) => {
      text += chunk;
      for (const line of text.split('\n')) {
        const match = pattern.exec(line);
        if (match !== null) resolve(match);
      }
    };
    stream.setEncoding('utf8');
    stream.on('data', onData);
  });
  const failed = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${owned.name}: no ${String(pattern)} within ` +
      `${timeoutMs} ms; it wrote ${JSON.stringify(text.slice(-2000))}`)), timeoutMs);
    // 'exit' can come before the last output is read (a writer that prints its line and ends at
    // once): the stream is read to its end before the exit counts as a failure.
    void owned.whenExited()
      .then(() => finished(stream).catch(() => undefined))
      .then(() => reject(new Error(`${owned.name} exited (code ${owned.child.exitCode}, signal ` +
        `${owned.child.signalCode}) before ${String(pattern)}; it wrote ${JSON.stringify(text.slice(-2000))}`)));
  });
  try {
    return await Promise.race([found, failed]);
  } finally {
    clearTimeout(timer);
    if (onData !== undefined) stream.removeListener('data', onData);
    // Keep draining: a full pipe would block the child.
    stream.resume();
  }
}
