// `npm start`: the node in the foreground (tools/store-node.ts, on GS_HOME or ./var) and, once it
// serves, the web API beside it (tools/store-webapi.ts, port 8081). Both are child processes in
// process groups of their own, so a Ctrl-C reaches only this one, which forwards it as one
// SIGTERM to each: the web API stops, and the node stops cleanly (a checkpoint). SIGTERM (a
// service manager, a container runtime, npm forwarding its own) and SIGHUP (the terminal went
// away) do the same. When the node stops by itself (gs_stopnode), the web API is stopped too. If
// the web API exits by itself it is reported and the node keeps running.
//
// Exit code: 0 when the node stopped cleanly (its exit code 0: checkpoint done, every commit
// synced) and the web API, if it was running, stopped with 0; else the node's code, or 1.
//
// The children's output comes through pipes to this process, never straight to the terminal: once
// the terminal is gone, writes to it fail, and only this process (which ignores those failures)
// would see them, not a child in the middle of its stop. package.json runs this with `exec`, so
// npm's shell is replaced by it and the signal npm forwards reaches it (dash would die of it).
//
//   node --import tsx tools/start.ts [store-node options, e.g. --releaseUnusedFileBlocks]

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const TOOLS = import.meta.dirname;
/** The line tools/store-node.ts prints once every service listens. */
const NODE_STARTED = /^node started on /m;
/** The signals that stop both, as Ctrl-C does. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function startTool(name: string, args: readonly string[]): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(TOOLS, name), ...args], {
    detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => process.stdout.write(chunk));
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  return child;
}

/** The exit code, 1 for a death by signal. */
function exited(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? 1);
    else child.once('exit', (code) => resolve(code ?? 1));
  });
}

function signal(child: ChildProcess | undefined, name: NodeJS.Signals): void {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(child.pid!, name);
  } catch {
    // It exited between the check and the signal.
  }
}

async function main(): Promise<void> {
  // A terminal that went away makes writes fail (EIO, EPIPE): the output is lost, the stop goes on.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  const node = startTool('store-node.ts', process.argv.slice(2));
  let webApi: ChildProcess | undefined;
  let webApiRunning = false;
  let stopping = false;
  const stopAll = () => {
    if (stopping) return;
    stopping = true;
    signal(webApi, 'SIGTERM');
    signal(node, 'SIGTERM');
  };
  for (const name of STOP_SIGNALS) process.on(name, stopAll);
  let seen = '';
  node.stdout!.on('data', (chunk: Buffer) => {
    if (webApi !== undefined || stopping) return;
    seen = (seen + chunk.toString('utf8')).slice(-4096);
    if (!NODE_STARTED.test(seen)) return;
    webApi = startTool('store-webapi.ts', []);
    webApiRunning = true;
    void exited(webApi).then((code) => {
      if (stopping) return;
      webApiRunning = false;
      console.error(`the web API exited (code ${code}); the node keeps running`);
    });
  });
  const nodeCode = await exited(node);
  stopping = true;
  signal(webApi, 'SIGTERM');
  const webApiCode = webApi !== undefined && webApiRunning ? await exited(webApi) : 0;
  process.exit(nodeCode !== 0 ? nodeCode : webApiCode === 0 ? 0 : 1);
}

await main();
