// Which form of a tool runs: the JavaScript that `npm run build` (run by `npm ci` / `npm install`
// as the `prepare` script, tools/build.mjs) compiled into dist/, or the TypeScript source through
// tsx. The JavaScript starts in a fraction of the time (no compilation at start), so it is used
// whenever it was built from exactly the sources there are now: the build writes
// dist/build-stamp.json with a SHA-256 over the compiled sources (paths and contents), and this
// file recomputes it (about 10 ms for 250 files). A stale or missing build is never run: the tool
// runs from source through tsx, with one line on stderr saying so. Without sources (a packed or
// installed package) dist/ is all there is and runs as it is.
//
// Plain JavaScript, like tools/bin/launch.mjs, because it decides before any TypeScript can load.
// Tools started by a tool (start.ts starting the node, gs_startnode) run in the form of their
// parent: tools/tool-process.ts.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = join(ROOT, 'dist');
export const BUILD_STAMP = join(DIST, 'build-stamp.json');
/** The folders tsconfig.build.json compiles, relative to the root. */
export const SOURCE_FOLDERS = ['lib', 'wal', 'compaction', 'tools'];

function sourceFiles(directory) {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    });
}

/** SHA-256 (hex) over the path and content of every TypeScript file the build compiles. */
export function sourceHash() {
  const hash = createHash('sha256');
  for (const folder of SOURCE_FOLDERS) {
    for (const path of sourceFiles(join(ROOT, folder))) {
      hash.update(`${relative(ROOT, path)}\0`);
      hash.update(readFileSync(path));
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}

/**
 * How to run tools/<name>: `{ built: true, path }` for dist/tools/<name>.js, or `{ built: false,
 * path, reason }` for the TypeScript source, with why the build is not used.
 */
export function toolEntry(name) {
  const source = join(ROOT, 'tools', `${name}.ts`);
  const compiled = join(DIST, 'tools', `${name}.js`);
  if (!existsSync(source) && existsSync(compiled)) return { built: true, path: compiled };
  if (!existsSync(compiled) || !existsSync(BUILD_STAMP)) {
    return { built: false, path: source, reason: 'dist/ has no build' };
  }
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(BUILD_STAMP, 'utf8'));
  } catch {
    return { built: false, path: source, reason: 'dist/build-stamp.json is unreadable' };
  }
  if (stamp?.sourceHash !== sourceHash()) {
    return { built: false, path: source, reason: 'the sources changed since the build' };
  }
  return { built: true, path: compiled };
}

/** Runs tools/<name> in this process, in the form toolEntry picks. */
export async function runTool(name) {
  const entry = toolEntry(name);
  if (!entry.built) {
    console.error(`store: running tools/${name}.ts from source through tsx (${entry.reason}; ` +
      '`npm run build` makes starts fast)');
    const { register } = await import('tsx/esm/api');
    register();
  }
  await import(pathToFileURL(entry.path).href);
}
