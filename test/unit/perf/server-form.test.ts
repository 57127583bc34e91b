// perf/server-form.ts: a benchmark's server runs compiled with no tsx loader, and its orphan guard
// (perf/orphan-guard.mjs) loads without tsx too, so a server of dist/ still exits when the
// benchmark holding its stdin goes away.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { serverArgsOf } from '../../../perf/server-form.ts';

/** orphan-guard.mjs's exit code. */
const ORPHAN_EXIT_CODE = 3;
/** Bounds the wait for the guarded child; it exits within milliseconds of its stdin closing. */
const CHILD_EXIT_MS_MAX = 30_000;

const root = mkdtempSync(join(tmpdir(), 'store-server-form-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('server-form: how a benchmark starts a server', () => {
  it('tsx only for the source', () => {
    const built = serverArgsOf({ built: true, path: '/x/dist/tools/store-node.js' });
    assert.equal(built.includes('tsx'), false);
    assert.equal(built.at(-1), '/x/dist/tools/store-node.js');
    const source = serverArgsOf({ built: false, path: '/x/tools/store-node.ts' });
    assert.deepEqual(source.slice(0, 2), ['--import', 'tsx']);
    assert.equal(source.at(-1), '/x/tools/store-node.ts');
  });

  it('a compiled server exits by the orphan guard, with no tsx, when its stdin closes', async () => {
    const server = join(root, 'server.js');
    writeFileSync(server, 'setInterval(() => {}, 1000);\nconsole.log("serving");\n');
    const child = spawn(process.execPath, serverArgsOf({ built: true, path: server }),
      { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const bound = setTimeout(() => child.kill('SIGKILL'), CHILD_EXIT_MS_MAX);
    // A guard that fails to load ends the child before it serves: the race sees that exit.
    await Promise.race([exited, new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))]);
    child.stdin.end();
    assert.equal(await exited, ORPHAN_EXIT_CODE);
    clearTimeout(bound);
  });
});
