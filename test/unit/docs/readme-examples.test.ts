// Every example of README.md runs verbatim (issue 13, point 8) against a fresh node and web API
// started as `npm start` starts them (tools/start.ts, from source), in the README's order.
//
// Conventions, in README.md:
// - ```sh blocks run with bash -e in the checkout's folder, ```ts blocks are saved as a .ts file
//   under var/ of the checkout (so `store/client` resolves to this package, as for a file saved
//   in the folder) and run with tsx; ```text blocks are output and are not run.
// - `<!-- docs-test: skip (why) -->` on the line before a block: not run (the quick start's
//   `npm ci && npm start`, which this test replaces by its own node).
// - A comment `# → text` (sh) or `// → text` (ts) at the end of a line: the block's output must
//   contain `text`.
// - `<!-- docs-test: output of npm start (run from /home/me/store) -->` before a ```text block:
//   every line of it must be in what `npm start` printed, with the folder it names as the
//   checkout (so `/home/me/store/var` is the home).
// The one rewrite: the node runs on free ports of a new home, so `127.0.0.1:8081` becomes the web
// API's port, `127.0.0.1:10001` the transaction port, `127.0.0.1:10040` the system port, and
// `$PWD/var` (and the start output's `/home/me/store/var`) the home. The last block
// stops the node (gs_stopnode), and `npm start` must then exit 0.
//
// The ts blocks import `store/client`: the compiled dist/ (`npm ci` builds it); a build older
// than the sources fails this test with `npm run build` to do, rather than test stale code.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { freePorts, newNodeHome, removeHome } from '../node/node-process.ts';
import { processAlive } from '../../../tools/store-node-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const BLOCK_TIMEOUT_MS = 120_000;
const SKIP_MARK = /^<!-- docs-test: skip\b.*-->$/;
const START_OUTPUT_MARK = /^<!-- docs-test: output of npm start \(run from (\S+)\) -->$/;
const EXPECTED_OUTPUT = /(?:#|\/\/) → (.+)$/;

export interface Example {
  language: 'sh' | 'ts';
  code: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  skipped: boolean;
  /** What the output must contain, from `# → text` / `// → text`. */
  expected: string[];
}

/** The ```sh and ```ts blocks of a Markdown text. */
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
      examples.push({
        language, code: `${code.join('\n')}\n`, line: index + 1,
        skipped: SKIP_MARK.test(lines[index - 1] ?? ''),
        expected: code.flatMap((text) => EXPECTED_OUTPUT.exec(text)?.[1]?.trim() ?? []),
      });
    }
    index = end;
  }
  return examples;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv):
  Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, env, timeout: BLOCK_TIMEOUT_MS }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

const cleanups: Array<() => void> = [];
after(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
});

describe('README.md examples', { timeout: 600_000 }, () => {
  it('the conventions: blocks, skip marks and expected output are read', () => {
    const examples = examplesOf([
      '<!-- docs-test: skip (not here) -->', '```sh', 'npm start', '```', '```text', 'out', '```',
      '```ts', 'console.log(1);    // → 1', '```',
    ].join('\n'));
    assert.deepEqual(examples.map((e) => [e.language, e.skipped, e.expected]),
      [['sh', true, []], ['ts', false, ['1']]]);
  });

  it('every sh and ts block runs verbatim against a fresh node, in order', async () => {
    const { sourceHash } = await import('../../../tools/bin/tool-entry.mjs');
    const stamp = JSON.parse(readFileSync(join(ROOT, 'dist', 'build-stamp.json'), 'utf8')) as
      { sourceHash: string };
    assert.equal(stamp.sourceHash, sourceHash(),
      'dist/ is older than the sources: `npm run build` (the ts examples import store/client)');

    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const examples = examplesOf(readme);
    assert.ok(examples.some((e) => e.language === 'ts') && examples.some((e) => e.language === 'sh'));
    const [transaction, system, sql, cluster, sync, webApiPort] = await freePorts(6);
    const home = newNodeHome({
      transaction: { servicePort: transaction }, system: { servicePort: system },
      sql: { servicePort: sql }, cluster: { servicePort: cluster }, sync: { servicePort: sync },
    });
    cleanups.push(() => removeHome(home));
    mkdirSync(join(home, 'webapi', 'conf'), { recursive: true });
    writeFileSync(join(home, 'webapi', 'conf', 'store_webapi.properties'), `server.port=${webApiPort}\n`);
    const rewrite = (code: string) => code.replaceAll('127.0.0.1:8081', `127.0.0.1:${webApiPort}`)
      .replaceAll('127.0.0.1:10001', `127.0.0.1:${transaction}`)
      .replaceAll('127.0.0.1:10040', `127.0.0.1:${system}`).replaceAll('$PWD/var', home);

    const env = { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log') };
    const start = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'tools', 'start.ts')],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    // On a failure: the node (its pid file) and the web API (its pid in its log) run in process
    // groups of their own, so each is killed by its pid, then `npm start`.
    cleanups.push(() => {
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
      if (start.exitCode === null) start.kill('SIGKILL');
    });
    let startOutput = '';
    start.stdout.on('data', (chunk: Buffer) => (startOutput += chunk.toString('utf8')));
    start.stderr.on('data', (chunk: Buffer) => (startOutput += chunk.toString('utf8')));
    const startExited = new Promise<number | null>((resolve) => start.once('exit', resolve));
    const deadline = performance.now() + START_TIMEOUT_MS;
    while (!startOutput.includes('Ctrl-C stops both.')) {
      assert.ok(performance.now() < deadline && start.exitCode === null, `not started: ${startOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const outputs = startOutputsOf(readme);
    assert.equal(outputs.length, 1, 'the README shows what npm start prints');
    for (const { text, folder } of outputs) {
      for (const line of rewrite(text.replaceAll(`${folder}/var`, home)).split('\n')) {
        assert.ok(startOutput.includes(line), `npm start did not print: ${line}\nbut:\n${startOutput}`);
      }
    }

    // A fresh clone has no var/ yet.
    mkdirSync(join(ROOT, 'var'), { recursive: true });
    const scratch = mkdtempSync(join(ROOT, 'var', 'docs-test-'));
    cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
    // The blocks' own environment: the user's shell, without the test's GS_HOME (the README sets it).
    const blockEnv = { ...process.env };
    delete blockEnv['GS_HOME'];
    delete blockEnv['GS_LOG'];
    for (const example of examples.filter((e) => !e.skipped)) {
      const path = join(scratch, `readme-line-${example.line}.${example.language}`);
      writeFileSync(path, rewrite(example.code));
      const result = example.language === 'sh' ? await run('bash', ['-e', path], blockEnv)
        : await run(process.execPath, ['--import', 'tsx', path], blockEnv);
      const where = `README.md line ${example.line}`;
      assert.equal(result.code, 0, `${where} failed:\n${result.output}`);
      for (const expected of example.expected) {
        assert.ok(result.output.includes(expected), `${where}: no ${expected} in:\n${result.output}`);
      }
    }
    assert.equal(await startExited, 0, `npm start did not end cleanly: ${startOutput}`);
  });
});
