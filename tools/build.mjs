// `npm run build`, also run by `npm ci` / `npm install` in a checkout (the `prepare` script) and
// before `npm pack`: compiles lib/, wal/, compaction/ and tools/ to JavaScript with declarations
// (.d.ts) in dist/ (tsconfig.build.json), so the commands start without compiling TypeScript
// (tools/bin/tool-entry.mjs) and the client library can be imported by applications
// (package.json "exports"). dist/ is emptied first, so nothing of a deleted source survives, and
// dist/build-stamp.json records the hash of the sources as they were before compiling: a source
// changed since makes the launchers run the TypeScript instead (never a stale build).
// Exits non-zero when the compiler reports an error.
//
// A dist/ whose stamp matches the sources is left as it is (`--force` rebuilds it anyway): npm runs
// this script again whenever it links the checkout as a package, as `npx gs_x` with a new cache
// does, and emptying dist/ then would take the compiled client away from whatever is running.

import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BUILD_STAMP, DIST, ROOT, sourceHash } from './bin/tool-entry.mjs';

const sourceHashBefore = sourceHash();
if (!process.argv.includes('--force') && builtHash() === sourceHashBefore) {
  console.log('store: build: dist/ is up to date with the sources ' +
    '(`npm run build -- --force` rebuilds it)');
  process.exit(0);
}
rmSync(DIST, { recursive: true, force: true });
let compiler;
try {
  compiler = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin',
    'tsc');
} catch {
  console.error('store: build: typescript is not installed (a dev dependency: npm ci installs it)');
  process.exit(1);
}
const result = spawnSync(process.execPath, [compiler, '-p', join(ROOT, 'tsconfig.build.json')],
  { stdio: 'inherit', cwd: ROOT });
if (result.status !== 0) {
  console.error(`store: build: the compiler failed (exit ${result.status ?? result.signal}); ` +
    'the commands run from source through tsx until a build succeeds');
  rmSync(DIST, { recursive: true, force: true });
  process.exit(1);
}
writeFileSync(BUILD_STAMP, `${JSON.stringify({ sourceHash: sourceHashBefore })}\n`);
console.log('store: build: compiled the sources into dist/');

/** The source hash dist/ was built from, or undefined when it has no (readable) stamp. */
function builtHash() {
  try {
    return JSON.parse(readFileSync(BUILD_STAMP, 'utf8')).sourceHash;
  } catch {
    return undefined;
  }
}
