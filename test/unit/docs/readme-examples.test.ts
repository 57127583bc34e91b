// Every example of README.md runs verbatim (issue 13, point 8) against a fresh node and web API
// started as `npm start` starts them, in the README's order. The conventions (blocks, skip marks,
// `# → text`, the output of npm start, the port and home rewrite) are doc-examples.ts's. Here the
// quick start's `npm ci && npm start` is skipped (this test starts its own node), the README
// exports GS_HOME itself, and its last block stops the node (gs_stopnode): `npm start` must then
// exit 0.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  ROOT, assertBuildFresh, examplesOf, newDocsHome, newScratch, runExample, startLikeNpmStart, startOutputsOf,
} from './doc-examples.ts';

const cleanups: Array<() => void> = [];
after(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
});

describe('README.md examples', { timeout: 600_000 }, () => {
  it('the conventions: blocks, skip marks and expected output are read', () => {
    const examples = examplesOf([
      '<!-- docs-test: skip (not here) -->', '```sh', 'npm start', '```', '```text', 'out', '```',
      '```ts', 'console.log(1);    // → 1', '```',
      '<!-- docs-test: no node (starts its own) -->', '```sh', 'npx gs_startnode', '```',
    ].join('\n'));
    assert.deepEqual(examples.map((e) => [e.language, e.skipped, e.noNode, e.expected]),
      [['sh', true, false, []], ['ts', false, false, ['1']], ['sh', false, true, []]]);
  });

  it('every sh and ts block runs verbatim against a fresh node, in order', async () => {
    await assertBuildFresh();
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const examples = examplesOf(readme);
    assert.ok(examples.some((e) => e.language === 'ts') && examples.some((e) => e.language === 'sh'));
    const { home, rewrite } = await newDocsHome(cleanups);
    const started = await startLikeNpmStart(home, cleanups);

    const outputs = startOutputsOf(readme);
    assert.equal(outputs.length, 1, 'the README shows what npm start prints');
    for (const { text, folder } of outputs) {
      for (const line of rewrite(text.replaceAll(`${folder}/var`, home)).split('\n')) {
        assert.ok(started.output().includes(line), `npm start did not print: ${line}\nbut:\n${started.output()}`);
      }
    }

    const scratch = newScratch(cleanups);
    // The blocks' own environment: the user's shell, without the test's GS_HOME (the README sets it).
    const blockEnv = { ...process.env };
    delete blockEnv['GS_HOME'];
    delete blockEnv['GS_LOG'];
    for (const example of examples.filter((e) => !e.skipped)) {
      assert.ok(!example.noNode, `README.md line ${example.line}: every block runs with the node`);
      await runExample(example, { document: 'README.md', scratch }, rewrite, blockEnv);
    }
    assert.equal(await started.exited, 0, `npm start did not end cleanly: ${started.output()}`);
  });
});
