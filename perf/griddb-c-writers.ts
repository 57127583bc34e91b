// Writer processes of GridDB's C client for the griddb/ benchmarks: perf/griddb-c-bench.c compiled
// against the client built from ../shared/vendor (test/support/griddb-c-client.ts, cached), the
// TSBS batches it reads written to a rows file (the format is drawn in griddb-c-bench.c), and a
// group of writer processes started together: each connects and prints "ready", then one line on
// every stdin starts them at once and the time runs until the last prints "done".

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assert } from '../lib/base/assert.ts';
import { compileProgram, griddbCClient } from '../test/support/griddb-c-client.ts';
import { OwnedChild, firstMatchingLine } from './child-processes.ts';
import type { TsbsBatch } from './tsbs.ts';

const BENCH_C_PATH = fileURLToPath(new URL('./griddb-c-bench.c', import.meta.url));
/** From spawn to "ready": the client's connect and the containers' properties. */
const READY_MS_MAX = 60_000;
/** From "go" to "done": a whole TSBS day by one writer on a loaded machine. */
const DONE_MS_MAX = 30 * 60_000;
const FIELD_COUNT = 10;
const ROW_BYTES = 8 + FIELD_COUNT * 8;
const BATCH_HEADER_BYTES = 8;

/** The compiled bench program, or why it cannot be had here (no source or no build tools). */
export async function griddbBenchProgram(): Promise<string | { skip: string }> {
  const client = await griddbCClient();
  if ('skip' in client) return client;
  return compileProgram(client, BENCH_C_PATH);
}

/** Writes the batches, in stream order, as griddb-c-bench.c reads them. */
export function writeRowsFile(path: string, batches: readonly TsbsBatch[]): void {
  const size = batches.reduce((sum, b) => sum + BATCH_HEADER_BYTES + b.rows.length * ROW_BYTES, 0);
  const buffer = Buffer.alloc(size);
  let offset = 0;
  for (const batch of batches) {
    offset = buffer.writeUInt32LE(batch.hostIndex, offset);
    offset = buffer.writeUInt32LE(batch.rows.length, offset);
    for (const row of batch.rows) {
      assert(row.length === 1 + FIELD_COUNT);
      offset = buffer.writeBigInt64LE(BigInt(row[0] as number), offset);
      for (let f = 1; f <= FIELD_COUNT; f++) offset = buffer.writeDoubleLE(row[f] as number, offset);
    }
  }
  assert(offset === size);
  writeFileSync(path, buffer);
}

/**
 * Starts one process per argument list, waits until all are ready, starts them together and
 * returns each one's "done" line (split on spaces, without "done") and the ms from the start to
 * the last done; `around` is called just before the start and just after the last done (the
 * caller's measures of the load alone). A writer that fails stops the others and throws with
 * its stderr.
 */
export async function runWritersTogether(
  program: string,
  argumentLists: readonly (readonly string[])[],
  around: { started(): void; done(): void } = { started: () => undefined, done: () => undefined },
): Promise<{ elapsedMs: number; done: string[][] }> {
  const writers = argumentLists.map((args, w) => {
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    return { owned: new OwnedChild(child, `C writer ${w}`), stderr: () => stderr };
  });
  try {
    await Promise.all(writers.map((w) =>
      firstMatchingLine(w.owned, w.owned.child.stdout!, /^ready$/, READY_MS_MAX)));
    const doneLines = writers.map((w) =>
      firstMatchingLine(w.owned, w.owned.child.stdout!, /^done (.*)$/, DONE_MS_MAX));
    around.started();
    const startMs = performance.now();
    for (const w of writers) w.owned.child.stdin!.write('go\n');
    const done = await Promise.all(doneLines);
    const elapsedMs = performance.now() - startMs;
    around.done();
    await Promise.all(writers.map((w) => w.owned.whenExited()));
    for (const w of writers) {
      assert(w.owned.child.exitCode === 0, `${w.owned.name} exit ${w.owned.child.exitCode}`);
    }
    return { elapsedMs, done: done.map((match) => match[1]!.split(' ')) };
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${writers.map((w) => w.stderr()).join('\n')}`);
  } finally {
    for (const w of writers) await w.owned.stop('SIGKILL');
  }
}
