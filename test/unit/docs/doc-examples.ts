// What the tests of the docs' examples share (readme-examples.test.ts, docs-examples.test.ts):
// reading the ```sh and ```ts blocks of a Markdown text with their marks, a fresh node and web API
// started as `npm start` starts them (tools/start.ts, from source) on free ports of a new home,
// and running one block verbatim against it.
//
// Conventions, in the Markdown:
// - ```sh blocks run with bash -e in the checkout's folder, ```ts blocks are saved as a .ts file
//   in the checkout's folder (so `store/client` resolves to this package and `./lib/...` to the
//   sources, as for a file the reader saves there) and run with tsx; ```text blocks are output
//   and are not run.
// - `<!-- docs-test: skip (why) -->` on the line before a block: not run.
// - `<!-- docs-test: no node (why) -->` on the line before a block: it runs before the test's node
//   starts (a block that starts and stops a node of its own).
// - A comment `# → text` (sh) or `// → text` (ts) at the end of a line: the block's output must
//   contain `text`, where `...` or `…` in it stands for anything (in one line).
// - `<!-- docs-test: after README.md's first session -->` anywhere in a document: README.md's
//   "A first session" blocks but its last (which stops the node) run first: the document uses
//   its containers (meter1).
// - `<!-- docs-test: output of npm start (run from /home/me/store) -->` before a ```text block:
//   every line of it must be in what `npm start` printed, with the folder it names as the
//   checkout (so `/home/me/store/var` is the home).
// The one rewrite: the node runs on free ports of a new home, so `127.0.0.1:8081` becomes the web
// API's port, `127.0.0.1:10001` the transaction port, `127.0.0.1:10040` the system port,
// `127.0.0.1:20001` the SQL (PostgreSQL) port, `$PWD/var`
// the home (`$PWD/restored` a folder beside it), and an `npx gs_*` command that reaches the node
// by its default port (no `-s`) gets `-s 127.0.0.1:PORT` of the test's node.
//
// The ts blocks import `store/client`: the compiled dist/ (`npm ci` builds it); a build older
// than the sources fails the tests with `npm run build` to do, rather than test stale code.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePorts, newNodeHome, removeHome } from '../node/node-process.ts';
import { processAlive } from '../../../tools/store-node-process.ts';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const BLOCK_TIMEOUT_MS = 120_000;
const SKIP_MARK = /^<!-- docs-test: skip\b.*-->$/;
const NO_NODE_MARK = /^<!-- docs-test: no node\b.*-->$/;
const START_OUTPUT_MARK = /^<!-- docs-test: output of npm start \(run from (\S+)\) -->$/;
const EXPECTED_OUTPUT = /(?:#|\/\/) → (.+)$/;
// The commands whose `-s HOST:PORT` is the system port, and those whose `-s` is the transaction
// port (their --help), both 127.0.0.1 and the default port when no -s is given.
const SYSTEM_PORT_COMMANDS = new Set(['gs_backup', 'gs_checkpoint', 'gs_config', 'gs_joincluster',
  'gs_leavecluster', 'gs_logconf', 'gs_logs', 'gs_paramconf', 'gs_partition', 'gs_stat', 'gs_stopcluster',
  'gs_stopnode']);
const TRANSACTION_PORT_COMMANDS = new Set(['gs_export', 'gs_import']);

export interface Example {
  language: 'sh' | 'ts';
  code: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  skipped: boolean;
  /** Runs before the test's node starts. */
  noNode: boolean;
  /** What the output must contain, from `# → text` / `// → text`. */
  expected: string[];
}

/** The ```text blocks marked as `npm start`'s output, with the folder they were run from. */
export function startOutputsOf(markdown: string): Array<{ text: string; folder: string }> {
  const lines = markdown.split('\n');
  return lines.flatMap((line, index) => {
    const mark = START_OUTPUT_MARK.exec(line);
    if (mark === null) return [];
    assert.equal(lines[index + 1], '```text', `line ${index + 2}: a text block must follow the mark`);
    const end = lines.indexOf('```', index + 2);
    return [{ text: lines.slice(index + 2, end).join('\n'), folder: mark[1]! }];
  });
}

/** The ```sh and ```ts blocks of a Markdown text. */
export function examplesOf(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const fence = /^```(\w*)\s*$/.exec(lines[index]!);
    if (fence === null) continue;
    const end = lines.indexOf('```', index + 1);
    assert.ok(end > index, `an unclosed code block at line ${index + 1}`);
    const language = fence[1];
    if (language === 'sh' || language === 'ts') {
      const code = lines.slice(index + 1, end);
      const mark = lines[index - 1] ?? '';
      examples.push({
        language, code: `${code.join('\n')}\n`, line: index + 1,
        skipped: SKIP_MARK.test(mark), noNode: NO_NODE_MARK.test(mark),
        expected: code.flatMap((text) => EXPECTED_OUTPUT.exec(text)?.[1]?.trim() ?? []),
      });
    }
    index = end;
  }
  return examples;
}

/** Fails unless dist/ was built from the sources as they are. */
export async function assertBuildFresh(): Promise<void> {
  const { sourceHash } = await import('../../../tools/bin/tool-entry.mjs');
  const stamp = JSON.parse(readFileSync(join(ROOT, 'dist', 'build-stamp.json'), 'utf8')) as
    { sourceHash: string };
  assert.equal(stamp.sourceHash, sourceHash(),
    'dist/ is older than the sources: `npm run build` (the ts examples import store/client)');
}

/**
 * npm's cache for the blocks, new for each test process. `npx gs_x` in a checkout installs the
 * checkout into npm's `_npx` folder once, at its first use, and links the bins it had then: with
 * the user's cache, a command added since then is `not found` (docs/operations.md says so). A
 * fresh cache sees the checkout as a fresh machine does. Removed when the process exits.
 */
let blockNpmCache: string | undefined;
function npmCacheForBlocks(): string {
  if (blockNpmCache === undefined) {
    const directory = mkdtempSync(join(tmpdir(), 'store-docs-npm-'));
    process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
    blockNpmCache = join(directory, '_cacache');
  }
  return blockNpmCache;
}

function run(command: string, args: readonly string[], blockEnv: NodeJS.ProcessEnv):
  Promise<{ code: number; output: string }> {
  const env = { ...blockEnv, npm_config_cache: npmCacheForBlocks() };
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, env, timeout: BLOCK_TIMEOUT_MS }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** SIGKILL to the node of a home (its pid file) and its web API (its pid in its log), if running. */
function killNodeOf(home: string): void {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  const nodePid = Number(read(join(home, 'conf', 'store.pid')));
  const webApiPid = Number(/"pid":(\d+)/.exec(read(join(home, 'log', 'store-webapi.log')))?.[1]);
  for (const pid of [nodePid, webApiPid]) {
    if (pid > 0 && processAlive(pid)) process.kill(pid, 'SIGKILL');
  }
}

/** A new home on free ports, with the web API's port in its webapi/conf, and the rewrite to it. */
export interface DocsHome {
  home: string;
  rewrite(code: string): string;
}

export async function newDocsHome(cleanups: Array<() => void>): Promise<DocsHome> {
  const [transaction, system, sql, cluster, sync, webApiPort] = await freePorts(6);
  const home = newNodeHome({
    transaction: { servicePort: transaction }, system: { servicePort: system },
    sql: { servicePort: sql }, cluster: { servicePort: cluster }, sync: { servicePort: sync },
  });
  cleanups.push(() => removeHome(home));
  // operations.md restores a backup into `$PWD/restored` and starts a node there.
  const restored = `${home}-restored`;
  cleanups.push(() => {
    killNodeOf(restored);
    removeHome(restored);
  });
  mkdirSync(join(home, 'webapi', 'conf'), { recursive: true });
  writeFileSync(join(home, 'webapi', 'conf', 'store_webapi.properties'), `server.port=${webApiPort}\n`);
  const server = (command: string) => SYSTEM_PORT_COMMANDS.has(command) ? `127.0.0.1:${system}`
    : TRANSACTION_PORT_COMMANDS.has(command) ? `127.0.0.1:${transaction}` : undefined;
  const rewrite = (code: string) => code.replaceAll('127.0.0.1:8081', `127.0.0.1:${webApiPort}`)
    .replaceAll('127.0.0.1:10001', `127.0.0.1:${transaction}`)
    .replaceAll('127.0.0.1:10040', `127.0.0.1:${system}`).replaceAll('127.0.0.1:20001', `127.0.0.1:${sql}`)
    .replaceAll('$PWD/var', home)
    .replaceAll('$PWD/restored', restored).replace(/\bnpx (gs_\w+)(?![^\n]* -s )/g, (command, name: string) => {
      const address = server(name);
      return address === undefined ? command : `${command} -s ${address}`;
    });
  return { home, rewrite };
}

/** `npm start` on a home: the node and the web API, in the foreground of one process. */
export interface StartedNode {
  /** What `npm start` printed so far. */
  output(): string;
  /** Its exit code once it ends (after a gs_stopnode). */
  readonly exited: Promise<number | null>;
  /** SIGTERM unless it has ended (a clean stop of both), and its exit code. */
  stop(): Promise<number | null>;
}

export async function startLikeNpmStart(home: string, cleanups: Array<() => void>): Promise<StartedNode> {
  const env = { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log') };
  const start = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'tools', 'start.ts')],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // On a failure: the node (its pid file) and the web API (its pid in its log) run in process
  // groups of their own, so each is killed by its pid, then `npm start`.
  cleanups.push(() => {
    killNodeOf(home);
    if (start.exitCode === null) start.kill('SIGKILL');
  });
  let output = '';
  start.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  start.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => start.once('exit', resolve));
  const deadline = performance.now() + START_TIMEOUT_MS;
  while (!output.includes('Ctrl-C stops both.')) {
    assert.ok(performance.now() < deadline && start.exitCode === null, `not started: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stop = async () => {
    if (start.exitCode === null && start.signalCode === null) start.kill('SIGTERM');
    return exited;
  };
  return { output: () => output, exited, stop };
}

/** A new folder under var/ of the checkout for the blocks' files (a fresh clone has no var/ yet). */
export function newScratch(cleanups: Array<() => void>): string {
  mkdirSync(join(ROOT, 'var'), { recursive: true });
  const scratch = mkdtempSync(join(ROOT, 'var', 'docs-test-'));
  cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
  return scratch;
}

/** Whether `output` holds `expected`, each `...` / `…` of it standing for anything within a line. */
export function outputMatches(output: string, expected: string): boolean {
  const pattern = expected.split(/\.\.\.|…/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^\n]*');
  return new RegExp(pattern).test(output);
}

const FIRST_SESSION_MARK = /^<!-- docs-test: after README\.md's first session -->$/m;

/** README.md's "A first session" blocks but the last, when a document says it comes after them. */
export function setupOf(markdown: string): Example[] {
  if (!FIRST_SESSION_MARK.test(markdown)) return [];
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## A first session\n');
  const end = readme.indexOf('\n## ', start + 1);
  assert.ok(start >= 0 && end > start, 'README.md has no "A first session" section');
  const offset = readme.slice(0, start).split('\n').length;
  const session = examplesOf(readme.slice(start, end)).map((e) => ({ ...e, line: e.line + offset }));
  assert.ok(session.length >= 2, 'README.md\'s first session has no blocks before its last');
  return session.slice(0, -1);
}

/** Runs one block, rewritten, and asserts it exits 0 and prints what its `→` comments say. */
export async function runExample(example: Example, where: { document: string; scratch: string },
  rewrite: (code: string) => string, env: NodeJS.ProcessEnv): Promise<void> {
  const name = `${where.document.replace(/\W+/g, '-')}-line-${example.line}`;
  // A ts block is a file saved in the checkout's folder (named so no source could be it), so
  // `store/client` and `./lib/...` resolve as they do for the reader; removed after its run.
  const path = example.language === 'sh' ? join(where.scratch, `${name}.sh`)
    : join(ROOT, `.docs-test-${process.pid}-${name}.ts`);
  writeFileSync(path, rewrite(example.code));
  let result: { code: number; output: string };
  try {
    result = example.language === 'sh' ? await run('bash', ['-e', path], env)
      : await run(process.execPath, ['--import', 'tsx', path], env);
  } finally {
    if (example.language === 'ts') rmSync(path, { force: true });
  }
  const at = `${where.document} line ${example.line}`;
  assert.equal(result.code, 0, `${at} failed:\n${result.output}`);
  for (const expected of example.expected) {
    assert.ok(outputMatches(result.output, expected), `${at}: no ${expected} in:\n${result.output}`);
  }
}
