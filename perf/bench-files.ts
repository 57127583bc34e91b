// The harness's own files: fresh temporary homes for each engine run, and the results it writes.
// The harness, not the engine, touches node:fs here (the engine reaches files only through
// lib/io/), because LevelDB needs a real directory too and the store's FileSystem has no temp-dir
// call.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Runs body with a fresh empty directory and removes the directory after it, even on failure. */
export async function withTempHome<T>(
  prefix: string,
  body: (home: string) => Promise<T>,
): Promise<T> {
  const home = mkdtempSync(join(tmpdir(), `store-bench-${prefix}-`));
  try {
    return await body(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
