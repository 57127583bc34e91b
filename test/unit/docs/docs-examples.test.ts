// Every example of docs/*.md runs verbatim: per document, in the documents' and the blocks' order,
// each ```sh and ```ts block against a fresh node and web API started as `npm start` starts them,
// on a new home. The conventions (skip and no-node marks, `# → text`, the port and home rewrite)
// are doc-examples.ts's. The blocks run in the shell README's first session leaves: GS_HOME and
// GS_LOG exported as its last block exports them (`$PWD/var`, rewritten to the test's home). A
// document's node starts before its first block not marked `no node`, and stops after its last.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  ROOT, assertBuildFresh, examplesOf, newDocsHome, newScratch, outputMatches, runExample, setupOf, startLikeNpmStart,
  type StartedNode,
} from './doc-examples.ts';

const cleanups: Array<() => void> = [];
after(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
});

const documents = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort();

describe('docs/*.md examples', { timeout: 900_000 }, () => {
  it('expected output: ... stands for anything within a line', () => {
    assert.ok(outputMatches('{"columns":[{"a":1}],"rows":[[1]]}', '{"columns":[...],"rows":[[1]]}'));
    assert.ok(!outputMatches('{"columns":[\n],"rows":[[1]]}', '{"columns":[...],"rows":[[1]]}'));
    assert.ok(!outputMatches('{"rows":[[2]]}', '"rows":[[1]]'));
  });

  it('the docs have examples to run', () => {
    const runnable = documents.flatMap((name) =>
      examplesOf(readFileSync(join(ROOT, 'docs', name), 'utf8')).filter((e) => !e.skipped));
    assert.ok(runnable.length >= 15, `only ${runnable.length} runnable blocks in docs/`);
  });

  for (const name of documents) {
    const document = `docs/${name}`;
    const examples = examplesOf(readFileSync(join(ROOT, document), 'utf8')).filter((e) => !e.skipped);
    if (examples.length === 0) continue;
    it(`${document}: every sh and ts block runs verbatim against a fresh node, in order`, async () => {
      await assertBuildFresh();
      const { home, rewrite } = await newDocsHome(cleanups);
      const scratch = newScratch(cleanups);
      const blockEnv = { ...process.env, GS_HOME: home, GS_LOG: join(home, 'log') };
      let started: StartedNode | undefined;
      // README's first session runs as soon as the node is up.
      const setup = setupOf(readFileSync(join(ROOT, document), 'utf8'));
      try {
        for (const example of examples) {
          if (example.noNode) {
            assert.equal(started, undefined, `${document} line ${example.line}: a no-node block after the node started`);
          } else if (started === undefined) {
            started = await startLikeNpmStart(home, cleanups);
            for (const step of setup) await runExample(step, { document: 'README.md', scratch }, rewrite, blockEnv);
          }
          await runExample(example, { document, scratch }, rewrite, blockEnv);
        }
      } finally {
        if (started !== undefined) await started.stop();
      }
    });
  }
});
