// The examples of docs/operations.md's "The shell" run verbatim: each ```gsh block, in order, is
// saved as example.gsh and run as `gs_sh example.gsh` (in the folder holding it, GS_HOME the node's)
// against one fresh node; the ```text block after it holds lines its output must contain, in order,
// with `(N ms)` standing for any time. `<!-- docs-test: gs_sh exits N -->` before a block gives the
// exit code it must have (0 otherwise).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../node/node-process.ts';
import { GS_SH, newShellHome, shellEnv } from '../tools/shell/shell-test-helpers.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RUN_TIMEOUT_MS = 60_000;
const EXIT_MARK = /^<!-- docs-test: gs_sh exits (\d+) -->$/;

interface ShellExample {
  script: string;
  expected: string[];
  exitCode: number;
  line: number;
}

/** The gsh blocks of the section, each with the text block that follows it. */
function shellExamples(markdown: string): ShellExample[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf('## The shell');
  assert.ok(start >= 0, 'docs/operations.md has no "## The shell" section');
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const section = lines.slice(start, end < 0 ? lines.length : end);
  const examples: ShellExample[] = [];
  let exitCode = 0;
  for (let i = 0; i < section.length; i++) {
    const mark = EXIT_MARK.exec(section[i]!);
    if (mark !== null) exitCode = Number(mark[1]);
    if (section[i] === '```gsh') {
      const close = section.indexOf('```', i + 1);
      const example: ShellExample = { script: section.slice(i + 1, close).join('\n'), expected: [], exitCode, line: start + i + 1 };
      exitCode = 0;
      let next = close + 1;
      while (next < section.length && section[next]!.trim() === '' || /^prints$/.test(section[next] ?? '')) next++;
      if (section[next] === '```text') {
        example.expected = section.slice(next + 1, section.indexOf('```', next + 1));
      }
      examples.push(example);
      i = close;
    }
  }
  return examples;
}

function run(env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // tsx by its full address: the script's folder is not the checkout.
    execFile(process.execPath, ['--import', import.meta.resolve('tsx'), GS_SH, 'example.gsh'], { env, cwd, timeout: RUN_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, output: `${stdout}${stderr}` });
      });
  });
}

describe('docs/operations.md: The shell', { timeout: 300_000 }, () => {
  let node: NodeProcess;

  before(async () => {
    node = await startNodeProcess(newNodeHome());
  });

  after(async () => {
    await node.stop();
    removeHome(node.home);
  });

  it('every gsh example runs verbatim and prints what the docs show', async () => {
    const examples = shellExamples(readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8'));
    assert.ok(examples.length >= 3, `only ${examples.length} gsh examples`);
    const home = newShellHome();
    const env = shellEnv(node, home);
    for (const example of examples) {
      writeFileSync(join(home, 'example.gsh'), `${example.script}\n`);
      const { code, output } = await run(env, home);
      assert.equal(code, example.exitCode, `the example of line ${example.line}:\n${output}`);
      let from = 0;
      for (const line of example.expected) {
        const pattern = new RegExp(line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\(\d+ ms\\\)/, '\\(\\d+ ms\\)'));
        const rest = output.slice(from);
        const match = pattern.exec(rest);
        assert.ok(match !== null, `the example of line ${example.line} did not print ${JSON.stringify(line)} ` +
          `(in order):\n${output}`);
        from += match.index + match[0].length;
      }
    }
  });
});
