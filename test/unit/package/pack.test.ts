// The client library used by an application outside this checkout (issue 13, point 9): the
// project is packed as npm publishes it (`npm pack`, whose `prepare` script compiles dist/), the
// tarball is installed into a new application folder, and there
// - an .mjs application imports `store/client` (package.json "exports", the compiled JavaScript)
//   and, with top-level await and no module settings of its own, creates a container, writes and
//   reads rows on a node this test starts;
// - a .ts file is type-checked against the shipped .d.ts (and one that misuses the API must not
//   pass, so the types are really there, not `any`).
// The pack runs on a copy of the sources (node_modules linked), so this test never rewrites the
// checkout's dist/ under another test. The install is `npm install <tarball>` from npm's cache
// when it has the packages (--prefer-offline), else the registry.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../node/node-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const COMMAND_TIMEOUT_MS = 240_000;
/** Not copied: installed, built, or a node's data. */
const NOT_COPIED = new Set(['node_modules', 'dist', 'var', '.git', 'build']);

interface Run {
  code: number;
  output: string;
}

function run(command: string, args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, output: `${stdout}${stderr}` });
      });
  });
}

/** npm, as the test runner was started by it (npm_execpath) or from PATH. */
function npm(args: readonly string[], cwd: string): Promise<Run> {
  const npmCli = process.env['npm_execpath'];
  return npmCli !== undefined && npmCli.endsWith('.js')
    ? run(process.execPath, [npmCli, ...args], cwd) : run('npm', args, cwd);
}

const work = mkdtempSync(join(tmpdir(), 'store-pack-'));
const app = join(work, 'app');
let node: NodeProcess | undefined;

before(async () => {
  const source = join(work, 'source');
  cpSync(ROOT, source, {
    recursive: true,
    filter: (path) => !NOT_COPIED.has(basename(path)) && !path.endsWith('.log'),
  });
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  const packed = await npm(['pack', '--pack-destination', work], source);
  assert.equal(packed.code, 0, packed.output);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  assert.ok(tarball !== undefined, packed.output);
  cpSync(join(ROOT, 'test', 'unit', 'package', 'app'), app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'meter-app', private: true }));
  const installed = await npm(['install', '--no-audit', '--no-fund', '--prefer-offline',
    join(work, tarball)], app);
  assert.equal(installed.code, 0, installed.output);
  node = await startNodeProcess(newNodeHome());
});

after(async () => {
  await node?.stop();
  if (node !== undefined) removeHome(node.home);
  rmSync(work, { recursive: true, force: true });
});

describe('the packed client in an application', { timeout: 600_000 }, () => {
  it('an .mjs application imports store/client and writes and reads rows', async () => {
    const result = await run(process.execPath, ['main.mjs', `127.0.0.1:${node!.transactionPort}`], app);
    assert.equal(result.code, 0, result.output);
    assert.deepEqual(JSON.parse(result.output), { rows: [[1767225600000, 1.5], [1767225610000, 1.7]] });
  });

  it('a TypeScript application type-checks against the shipped declarations', async () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const typeRoots = join(ROOT, 'node_modules', '@types');
    const options = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext',
      '--target', 'es2022', '--typeRoots', typeRoots, '--types', 'node'];
    const good = await run(process.execPath, [tsc, ...options, 'main.mts'], app);
    assert.equal(good.code, 0, good.output);
    const bad = await run(process.execPath, [tsc, ...options, 'misuse.mts'], app);
    assert.notEqual(bad.code, 0, 'a misuse of the client type-checked: are the types there?');
    assert.match(bad.output, /misuse\.mts.*error TS2322|misuse\.mts.*error TS2353|misuse\.mts.*error TS2345/s);
  });
});
