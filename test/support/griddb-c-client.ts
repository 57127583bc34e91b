// GridDB's C client 5.8 for conformance tests: built from the vendored source
// (../shared/vendor/griddb-c-client, found by walking up from this checkout, or
// $GRIDDB_C_CLIENT_SOURCE) with its build script into a cache directory reused between runs
// ($GRIDDB_C_CLIENT_DIR, default ~/.cache/griddb-c-client; the script keys the cache on the
// source tree, so a second run takes no time), and test programs compiled against it into the
// same cache, keyed by their source's hash. Without the source or the build tools (g++ make
// autoconf automake libtool; .ci/run installs them) the helpers give undefined and callers skip
// with a message. A first build takes about 90 s on 2 cores.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BUILD_SCRIPT = 'build-griddb-c-client.sh';
const BUILD_TIMEOUT_MS = 15 * 60_000;
const COMPILE_TIMEOUT_MS = 120_000;
const PARENT_LEVELS_MAX = 6;

export interface GriddbCClient {
  /** The build: include/gridstore.h and lib/libgridstore.so. */
  directory: string;
}

function buildScript(): string | undefined {
  const given = process.env['GRIDDB_C_CLIENT_SOURCE'];
  if (given !== undefined) {
    const script = join(given, BUILD_SCRIPT);
    return existsSync(script) ? script : undefined;
  }
  let directory = fileURLToPath(new URL('../..', import.meta.url));
  for (let level = 0; level < PARENT_LEVELS_MAX; level++) {
    const script = join(directory, '..', 'shared', 'vendor', BUILD_SCRIPT);
    if (existsSync(script)) return resolve(script);
    directory = dirname(directory);
  }
  return undefined;
}

let built: Promise<GriddbCClient | { skip: string }> | undefined;

/** The built client (once per process), or why it cannot be had. */
export function griddbCClient(): Promise<GriddbCClient | { skip: string }> {
  built ??= (async () => {
    const script = buildScript();
    if (script === undefined) {
      return { skip: `no ${BUILD_SCRIPT} in ../shared/vendor above this checkout ` +
        '(or set GRIDDB_C_CLIENT_SOURCE)' };
    }
    const out = process.env['GRIDDB_C_CLIENT_DIR'] ?? join(homedir(), '.cache', 'griddb-c-client');
    try {
      await run('bash', [script, out], { timeout: BUILD_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      return { skip: `the GridDB C client did not build: ${(error as Error).message}` };
    }
    return { directory: out };
  })();
  return built;
}

/**
 * Compiles a C program of the suite against the client; the executable is cached by content: the
 * program's and that of each header it includes from its own folder (`#include "x.h"`, as the
 * suite's conformance.h), so a change to a shared header rebuilds every program using it.
 */
export async function compileProgram(client: GriddbCClient, sourcePath: string): Promise<string> {
  const source = readFileSync(sourcePath);
  const digest = createHash('sha256').update(source);
  for (const [, header] of source.toString('utf8').matchAll(/^#include "([^"]+)"/gm)) {
    const headerPath = join(dirname(sourcePath), header!);
    if (existsSync(headerPath)) digest.update(header!).update(readFileSync(headerPath));
  }
  const hash = digest.digest('hex').slice(0, 16);
  const binDirectory = join(client.directory, 'programs');
  mkdirSync(binDirectory, { recursive: true });
  const executable = join(binDirectory, `${basename(sourcePath, '.c')}-${hash}`);
  if (existsSync(executable)) return executable;
  const temporary = `${executable}.${process.pid}.tmp`;
  await run('gcc', ['-std=c99', '-Wall', '-Werror', sourcePath,
    '-I', join(client.directory, 'include'), '-L', join(client.directory, 'lib'), '-lgridstore',
    `-Wl,-rpath,${join(client.directory, 'lib')}`, '-o', temporary],
  { timeout: COMPILE_TIMEOUT_MS });
  renameSync(temporary, executable);
  return executable;
}

export interface ProgramRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a compiled program to its end (bounded). */
export function runProgram(executable: string, args: readonly string[],
  timeoutMs = 60_000): Promise<ProgramRun> {
  return new Promise((resolvePromise) => {
    execFile(executable, args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolvePromise({ code, stdout, stderr });
    });
  });
}
