// `npm start`: the node in the foreground (tools/store-node.ts, on GS_HOME or ./var) and, once it
// serves, the web API beside it (tools/store-webapi.ts, port 8081). Both are child processes in
// process groups of their own, so a Ctrl-C reaches only this one, which forwards it as one
// SIGTERM to each: the web API stops, and the node stops cleanly (a checkpoint). When the node
// stops by itself (gs_stopnode), the web API is stopped too and this exits with the node's code.
// If the web API exits by itself it is reported and the node keeps running.
//
//   node --import tsx tools/start.ts [store-node options, e.g. --releaseUnusedFileBlocks]

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const TOOLS = import.meta.dirname;
/** The line tools/store-node.ts prints once every service listens. */
const NODE_STARTED = /^node started on /m;

function startTool(
  name: string,
  args: readonly string[],
  stdout: 'pipe' | 'inherit',
): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(TOOLS, name), ...args], {
    detached: true, stdio: ['ignore', stdout, 'inherit'],
  });
}

function exited(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
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
  const node = startTool('store-node.ts', process.argv.slice(2), 'pipe');
  let webApi: ChildProcess | undefined;
  let stopping = false;
  const stopAll = () => {
    if (stopping) return;
    stopping = true;
    signal(webApi, 'SIGTERM');
    signal(node, 'SIGTERM');
  };
  process.on('SIGINT', stopAll);
  process.on('SIGTERM', stopAll);
  let seen = '';
  node.stdout!.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    if (webApi !== undefined || stopping) return;
    seen = (seen + chunk.toString('utf8')).slice(-4096);
    if (!NODE_STARTED.test(seen)) return;
    webApi = startTool('store-webapi.ts', [], 'inherit');
    void exited(webApi).then((code) => {
      if (!stopping) console.error(`the web API exited (code ${code}); the node keeps running`);
    });
  });
  const nodeCode = await exited(node);
  stopping = true;
  signal(webApi, 'SIGTERM');
  if (webApi !== undefined) await exited(webApi);
  process.exit(nodeCode);
}

await main();
