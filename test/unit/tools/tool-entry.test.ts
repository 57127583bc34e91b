// tools/bin/tool-entry.mjs (issue 13, point 7): the compiled tool of dist/ runs only when the
// build stamp matches the sources as they are; a changed, added or removed source, or no build,
// makes the tool run from source. Checked on a copy of tool-entry.mjs in a temporary root, with a
// one-tool source tree and a hand-made dist/.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';

const ENTRY = fileURLToPath(new URL('../../../tools/bin/tool-entry.mjs', import.meta.url));

interface ToolEntryModule {
  sourceHash(): string;
  toolEntry(name: string): { built: boolean; path: string; reason?: string };
}

const root = mkdtempSync(join(tmpdir(), 'store-tool-entry-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('tool-entry: compiled only when the build matches the sources', () => {
  it('no build, a fresh build, then changed, added and removed sources', async () => {
    mkdirSync(join(root, 'tools', 'bin'), { recursive: true });
    mkdirSync(join(root, 'lib'), { recursive: true });
    copyFileSync(ENTRY, join(root, 'tools', 'bin', 'tool-entry.mjs'));
    writeFileSync(join(root, 'tools', 'hello.ts'), 'console.log("hello");\n');
    writeFileSync(join(root, 'lib', 'a.ts'), 'export const a = 1;\n');
    const entry = await import(pathToFileURL(join(root, 'tools', 'bin', 'tool-entry.mjs')).href) as
      ToolEntryModule;
    const source = join(root, 'tools', 'hello.ts');
    const compiled = join(root, 'dist', 'tools', 'hello.js');
    assert.deepEqual(entry.toolEntry('hello'), { built: false, path: source, reason: 'dist/ has no build' });

    mkdirSync(join(root, 'dist', 'tools'), { recursive: true });
    writeFileSync(compiled, 'console.log("hello");\n');
    const stamp = () => writeFileSync(join(root, 'dist', 'build-stamp.json'),
      JSON.stringify({ sourceHash: entry.sourceHash() }));
    stamp();
    assert.deepEqual(entry.toolEntry('hello'), { built: true, path: compiled });

    const stale = { built: false, path: source, reason: 'the sources changed since the build' };
    writeFileSync(join(root, 'lib', 'a.ts'), 'export const a = 2;\n');
    assert.deepEqual(entry.toolEntry('hello'), stale);
    stamp();
    writeFileSync(join(root, 'lib', 'b.ts'), 'export const b = 1;\n');
    assert.deepEqual(entry.toolEntry('hello'), stale);
    stamp();
    rmSync(join(root, 'lib', 'b.ts'));
    assert.deepEqual(entry.toolEntry('hello'), stale);
    stamp();
    assert.deepEqual(entry.toolEntry('hello'), { built: true, path: compiled });
  });

  it('without sources (an installed package) dist/ is what runs', async () => {
    const entry = await import(pathToFileURL(join(root, 'tools', 'bin', 'tool-entry.mjs')).href) as
      ToolEntryModule;
    rmSync(join(root, 'tools', 'hello.ts'));
    assert.deepEqual(entry.toolEntry('hello'), { built: true, path: join(root, 'dist', 'tools', 'hello.js') });
  });
});
