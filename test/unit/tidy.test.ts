// Checks reviewers would otherwise repeat (STYLE.md rule 20): library code takes time, randomness and
// files from lib/io only, uses no `any`, leaves no FIXME, and imports only downward through the layers.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

/** Layer of each library folder; a file may import from its own layer or lower ones. */
const LAYERS: Record<string, number> = {
  'lib/base': 0, 'lib/io': 1, 'lib/geometry': 1, 'lib/config': 2, 'lib/schema': 2, 'lib/encoding': 3,
  'wal': 4, 'lib/block': 4, 'lib/query': 5, 'lib/sql': 5, 'compaction': 5, 'lib/engine': 6,
  'lib/protocol': 6, 'lib/access': 6, 'lib/client': 7, 'lib/server': 7, 'lib/pgwire': 7, 'lib/node': 8,
  'lib/webapi': 8,
};

function sourceFiles(root: string): string[] {
  return readdirSync(root).sort().flatMap((name) => {
    const path = join(root, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

function layerOf(path: string): string | undefined {
  return Object.keys(LAYERS).find((layer) => path === layer || path.startsWith(`${layer}/`));
}

const libraryFiles = ['lib', 'wal', 'compaction'].flatMap(sourceFiles);

/** The packages `entry` loads when it runs: its imports that are not `import type`, followed. */
function runtimePackagesOf(entry: string): Map<string, string> {
  const packages = new Map<string, string>(); // package -> the file importing it
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;']*?\sfrom\s+)?'([^']+)'/gm)) {
      if (match[1] !== undefined) continue;
      const specifier = match[2]!;
      if (!specifier.startsWith('.')) {
        if (!specifier.startsWith('node:')) packages.set(specifier, file);
        continue;
      }
      const target = relative('.', join(file, '..', specifier));
      if (target.endsWith('.ts') && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return packages;
}

describe('tidy', () => {
  it('finds library files to check', () => {
    assert.ok(libraryFiles.length > 20);
  });

  it('only lib/io touches node:fs, the clock or randomness', () => {
    const problems = libraryFiles.filter((file) => !file.startsWith('lib/io/')).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [/from 'node:fs/, /Date\.now\(/, /Math\.random\(/, /performance\.now\(/]
        .filter((pattern) => pattern.test(text))
        .map((pattern) => `${file}: ${pattern.source}`);
    });
    assert.deepEqual(problems, []);
  });

  it('uses no any and leaves no FIXME', () => {
    const problems = libraryFiles.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [/:\s*any\b/, /\bas any\b/, /<any>/, /FIXME/]
        .filter((pattern) => pattern.test(text))
        .map((pattern) => `${file}: ${pattern.source}`);
    });
    assert.deepEqual(problems, []);
  });

  it('imports only from its own layer or lower ones', () => {
    const problems: string[] = [];
    for (const file of libraryFiles) {
      const fromLayer = layerOf(file);
      if (fromLayer === undefined) continue;
      for (const match of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = relative('.', join(file, '..', match[1]!));
        const toLayer = layerOf(target);
        if (toLayer !== undefined && LAYERS[toLayer]! > LAYERS[fromLayer]!) {
          problems.push(`${file} (${fromLayer}) imports ${target} (${toLayer})`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('gs_export and gs_import load no rxjs: its hundreds of files were a third of their start', () => {
    for (const entry of ['tools/gs_export.ts', 'tools/gs_import.ts']) {
      const packages = runtimePackagesOf(entry);
      assert.ok(packages.size > 0, `${entry}: no package found`);
      assert.equal(packages.get('rxjs'), undefined, `${entry} loads rxjs`);
    }
  });
});
