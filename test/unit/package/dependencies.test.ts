// Install hygiene (issue 13, point 10), read from package.json and package-lock.json:
// - every package `npm ci` installs accepts each supported Node major (no EBADENGINE warning;
//   .ci/run also fails on one), judged by its `engines.node` range;
// - `dependencies` are exactly the packages the shipped code (lib/, wal/, compaction/, tools/)
//   imports: benchmark-only or test-only packages are dev dependencies.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The Node majors `engines` in package.json (>=20) stands for today: the maintained releases. */
const SUPPORTED_NODE_MAJORS = [20, 22, 24];
const SHIPPED_FOLDERS = ['lib', 'wal', 'compaction', 'tools'];

interface Manifest {
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function readJson<T>(name: string): T {
  return JSON.parse(readFileSync(join(ROOT, name), 'utf8')) as T;
}

type Version = [number, number, number];

function parseVersion(text: string): Version {
  const parts = text.replace(/^v/, '').split('.')
    .map((part) => (part === 'x' || part === '*' ? 0 : Number(part)));
  const [major = 0, minor = 0, patch = 0] = parts;
  assert.ok([major, minor, patch].every(Number.isInteger), `not a version: ${text}`);
  return [major, minor, patch];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Does `version` satisfy the npm range (the forms lock files hold: >=, >, <=, <, ^, =, ||)? */
export function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((alternative) => alternative.replace(/([<>=^~]+)\s+/g, '$1')
    .trim().split(/\s+/).every((comparator) => {
      const match = /^(>=|<=|>|<|\^|=)?(.+)$/.exec(comparator);
      assert.ok(match !== null, `a range form this test does not know: ${range}`);
      const bound = parseVersion(match[2]!);
      const order = compare(version, bound);
      switch (match[1]) {
        case '>=': return order >= 0;
        case '>': return order > 0;
        case '<=': return order <= 0;
        case '<': return order < 0;
        case '^': return order >= 0 && version[0] === bound[0];
        default: return order === 0;
      }
    }));
}

function importedPackages(directory: string): Set<string> {
  const found = new Set<string>();
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'build') {
        for (const name of importedPackages(path)) found.add(name);
      }
      continue;
    }
    if (!/\.(ts|mjs)$/.test(entry.name)) continue;
    const text = readFileSync(path, 'utf8');
    const specifiers = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom '([^'.][^']*)'/gm),
      ...text.matchAll(/\bimport\('([^'.][^']*)'\)/g)];
    for (const match of specifiers) {
      const specifier = match[1]!;
      if (specifier.startsWith('node:')) continue;
      const parts = specifier.split('/');
      found.add(specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
    }
  }
  return found;
}

describe('install hygiene', () => {
  it('the range check reads the forms of the lock file', () => {
    assert.equal(satisfies([20, 0, 0], '>=22'), false);
    assert.equal(satisfies([22, 0, 0], '>=22'), true);
    assert.equal(satisfies([20, 0, 0], '>= 10.x'), true);
    assert.equal(satisfies([20, 0, 0], '^8.16.0 || ^10.6.0 || >=11.0.0'), true);
    assert.equal(satisfies([20, 0, 0], '^18.0.0 || ^22.0.0'), false);
  });

  it('every package npm ci installs accepts each supported Node major', () => {
    const lock = readJson<{ packages: Record<string, Manifest> }>('package-lock.json');
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = entry.engines?.node;
      if (range === undefined) continue;
      for (const major of SUPPORTED_NODE_MAJORS) {
        if (!satisfies([major, 0, 0], range)) {
          refusing.push(`${path} (node ${range}) refuses ${major}`);
        }
      }
    }
    assert.deepEqual(refusing, []);
  });

  it('dependencies are exactly what the shipped code imports', () => {
    const manifest = readJson<Manifest>('package.json');
    const imported = new Set<string>();
    for (const folder of SHIPPED_FOLDERS) {
      for (const name of importedPackages(join(ROOT, folder))) imported.add(name);
    }
    // tsx loads the TypeScript when a checkout runs from source (tools/bin/tool-entry.mjs, the
    // engine worker's boot file); a checkout has its dev dependencies, a package runs dist/.
    imported.delete('tsx');
    assert.deepEqual(Object.keys(manifest.dependencies ?? {}).sort(), [...imported].sort());
  });
});
