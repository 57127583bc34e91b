// Running gs_sh (tools/gs_sh.ts, through tsx) in script mode for the shell's tests: a script written
// to a .gsh file of a temporary HOME (so ~/.gsshrc and ~/.gssh_history are the test's own), the
// node's GS_HOME and GS_LOG, a bounded run.

import { spawn } from 'node:child_process';
import { after, before } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../../node/node-process.ts';

export const GS_SH = fileURLToPath(new URL('../../../../tools/gs_sh.ts', import.meta.url));
const RUN_TIMEOUT_MS = 60_000;
let scriptCount = 0;

export interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A new HOME for gs_sh. */
export function newShellHome(): string {
  return mkdtempSync(join(tmpdir(), 'store-gssh-'));
}

export function shellEnv(node: NodeProcess, home: string): NodeJS.ProcessEnv {
  return { ...process.env, GS_HOME: node.home, GS_LOG: join(node.home, 'log'), HOME: home };
}

export interface ShellNode {
  readonly node: NodeProcess;
  /** gs_sh's environment: the node's GS_HOME and GS_LOG, a HOME of its own. */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * A node for the tests of the describe block that calls this (started before them, stopped and its
 * home removed after them) and gs_sh's environment for it; read its members inside the tests.
 */
export function shellNodeForSuite(): ShellNode {
  let started: ShellNode | undefined;
  before(async () => {
    const node = await startNodeProcess(newNodeHome({ dataStore: { partitionNum: 4, concurrency: 1 } }));
    started = { node, env: shellEnv(node, newShellHome()) };
  });
  after(async () => {
    if (started === undefined) return;
    await started.node.stop();
    removeHome(started.node.home);
  });
  return {
    get node() {
      if (started === undefined) throw new Error('the suite\'s node is not started yet');
      return started.node;
    },
    get env() {
      if (started === undefined) throw new Error('the suite\'s node is not started yet');
      return started.env;
    },
  };
}

/** Runs gs_sh with `args`; `input` on its stdin (a pipe). */
export function runShell(args: readonly string[], env: NodeJS.ProcessEnv, input = ''): Promise<ShellRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', GS_SH, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gs_sh did not end: ${stdout}${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

/** Writes `lines` as a script in `home` and runs `gs_sh script.gsh`. */
export function runScriptFile(lines: readonly string[], env: NodeJS.ProcessEnv, extraArgs: readonly string[] = []):
  Promise<ShellRun> {
  const path = join(env['HOME']!, `script-${++scriptCount}.gsh`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return runShell([path, ...extraArgs], env);
}

/** The statements that connect as admin to the node of GS_HOME. */
export const CONNECT = ['setuser admin admin', 'connect'];
