// The harness's own files: fresh temporary homes for each engine run, copies of prepared homes,
// sizes on disk, and the results it writes. The harness, not the engine, touches node:fs here (the
// engine reaches files only through lib/io/), because LevelDB needs a real directory too and the
// store's FileSystem has no temp-dir call.

import {
  cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync,
  writeFileSync,
} from 'node:fs';
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

/** Runs body on a fresh copy of `source` (a prepared home), removed after it. */
export async function withHomeCopy<T>(
  source: string,
  prefix: string,
  body: (home: string) => Promise<T>,
): Promise<T> {
  return withTempHome(prefix, async (root) => {
    const home = join(root, 'home');
    cpSync(source, home, { recursive: true });
    return body(home);
  });
}

/** Bytes of the regular files under `path` whose names end with `suffix` (every file if ''). */
export function directorySizeBytes(path: string, suffix = ''): number {
  let sizeBytes = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const entryPath = join(path, entry.name);
    if (entry.isDirectory()) sizeBytes += directorySizeBytes(entryPath, suffix);
    else if (entry.isFile() && entry.name.endsWith(suffix)) sizeBytes += statSync(entryPath).size;
  }
  return sizeBytes;
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** The parsed file, or undefined when it is missing or not JSON (then it is written afresh). */
export function readJson(path: string): unknown {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Entries of `previous` (named objects of an earlier run) with those of `current` in place of the
 * ones of the same name, and the new names appended: running some workloads keeps the figures of
 * the others. Anything in `previous` that is not a named object is dropped.
 */
export function mergeByName<T extends { name: string }>(previous: unknown, current: readonly T[]) {
  const byName = new Map(current.map((entry) => [entry.name, entry]));
  const merged: unknown[] = [];
  if (Array.isArray(previous)) {
    for (const entry of previous as unknown[]) {
      const name = (entry as { name?: unknown } | null)?.name;
      if (typeof name !== 'string') continue;
      merged.push(byName.get(name) ?? entry);
      byName.delete(name);
    }
  }
  merged.push(...byName.values());
  return merged;
}
