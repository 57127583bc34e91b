// Runs the test suite: finds every *.test.ts under test/ and passes the files to node's test runner
// by name (Node 20's --test takes no globs, and a directory of .ts files runs nothing).
//
//   npm test                       every test
//   npm test -- test/unit/wal      only files under the given paths

import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function testFiles(root: string): string[] {
  if (statSync(root).isFile()) return root.endsWith('.test.ts') ? [root] : [];
  return readdirSync(root)
    .sort()
    .flatMap((name) => testFiles(join(root, name)));
}

const roots = process.argv.slice(2);
const files = (roots.length > 0 ? roots : ['test']).flatMap(testFiles).map((f) => relative('.', f));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', ...files],
  { stdio: 'inherit', env: { ...process.env, STORE_INVARIANTS: '1' } },
);
process.exit(result.status ?? 1);
