// The process crash.test.ts kills: it opens the store on the real file system with logWriteMode 0
// (a commit is acknowledged only after fdatasync), then runs INGEST_WRITER_COUNT writers until it
// is killed.
//
//   node --import tsx test/crash/ingest-child.ts <home> <seed> <iteration>
//
// Protocol on stdout, one line per event, written synchronously so that a line the parent reads
// was printed before the event that follows it:
//   OPENING <iteration>                 before Store.open (a kill now lands in recovery)
//   READY <recordCount> <tornBytes>     recovered, containers exist; the writers start
//   BEGIN <id> <kind> <container> <n>   before the operation's first call
//   ACK <id>                            after its commit (or abort) resolved
// An operation is derived from its id and the seed (ingest-workload.ts), so the parent knows what
// each id wrote. Any error ends the process with a non-zero code, which the parent reports.

import { writeSync } from 'node:fs';
import type { ContainerHandle } from '../../lib/engine/session.ts';
import { Store } from '../../lib/engine/store.ts';
import {
  formatIngestOpId, INGEST_CONTAINERS, INGEST_STORE_OPTIONS, INGEST_WRITER_COUNT, ingestOp,
  type IngestOp,
} from './ingest-workload.ts';

/** The parent kills the child within a second of READY; this only stops an orphan. */
const CHILD_LIFETIME_MS_MAX = 60_000;
/** Operations per writer per run, at most; a run lasts far less. */
const WRITER_OP_COUNT_MAX = 1_000_000;
/** A full stdout pipe is retried this often, this long apart, before the child gives up. */
const PRINT_RETRY_COUNT_MAX = 10_000;
const PRINT_RETRY_SLEEP_MS = 1;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes one line to stdout before returning. Stdout is a non-blocking pipe: when the parent reads
 * slower than the writers ack, writeSync fails with EAGAIN, and the line is retried after a short
 * sleep. A line is far below PIPE_BUF, so the pipe takes it whole or not at all.
 */
function printLine(line: string): void {
  const bytes = Buffer.from(`${line}\n`);
  for (let attempt = 0; ; attempt++) {
    try {
      const writtenBytes = writeSync(1, bytes);
      if (writtenBytes !== bytes.length) {
        throw new Error(`stdout took ${writtenBytes} of ${bytes.length} bytes`);
      }
      return;
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code !== 'EAGAIN' || attempt >= PRINT_RETRY_COUNT_MAX) throw error;
      Atomics.wait(sleepCell, 0, 0, PRINT_RETRY_SLEEP_MS);
    }
  }
}

async function runOp(handle: ContainerHandle, op: IngestOp): Promise<void> {
  if (op.kind === 'multiPut' || op.kind === 'put') {
    const step = op.steps[0]!;
    if (step.kind !== 'put') throw new Error(`${op.kind} with a ${step.kind} step`);
    if (op.kind === 'put') await handle.put(step.rows[0]!);
    else await handle.multiPut(step.rows);
    return;
  }
  if (op.kind === 'remove') {
    const step = op.steps[0]!;
    if (step.kind !== 'remove') throw new Error(`remove with a ${step.kind} step`);
    await handle.remove(step.key);
    return;
  }
  await handle.setAutoCommit(false);
  for (const step of op.steps) {
    if (step.kind === 'put') await handle.multiPut(step.rows);
    else await handle.remove(step.key);
  }
  if (op.kind === 'transaction') await handle.commit();
  else await handle.abort();
  await handle.setAutoCommit(true);
}

async function runWriter(store: Store, run: { seed: number; iteration: number; writer: number }) {
  const session = store.session();
  for (let seq = 0; seq < WRITER_OP_COUNT_MAX; seq++) {
    const op = ingestOp(run.seed, { iteration: run.iteration, writer: run.writer, seq });
    const id = formatIngestOpId(op.id);
    const rowCount = op.steps.reduce(
      (sum, step) => sum + (step.kind === 'put' ? step.rows.length : 1), 0);
    printLine(`BEGIN ${id} ${op.kind} ${op.container} ${rowCount}`);
    await runOp(session.container(op.container), op);
    printLine(`ACK ${id}`);
  }
}

async function main(): Promise<void> {
  const [home, seedText, iterationText] = process.argv.slice(2);
  if (home === undefined || seedText === undefined || iterationText === undefined) {
    throw new Error('usage: ingest-child.ts <home> <seed> <iteration>');
  }
  const seed = Number(seedText);
  const iteration = Number(iterationText);
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(iteration)) {
    throw new Error(`seed and iteration must be integers: ${seedText} ${iterationText}`);
  }
  setTimeout(() => {
    process.stderr.write(`ingest-child: still alive after ${CHILD_LIFETIME_MS_MAX} ms\n`);
    process.exit(3);
  }, CHILD_LIFETIME_MS_MAX).unref();
  printLine(`OPENING ${iteration}`);
  const store = await Store.open({ home, options: INGEST_STORE_OPTIONS });
  for (const definition of INGEST_CONTAINERS) await store.createContainer(definition);
  printLine(`READY ${store.recovery!.recordCount} ${store.recovery!.tornBytes}`);
  const writers = Array.from({ length: INGEST_WRITER_COUNT },
    (_, writer) => runWriter(store, { seed, iteration, writer }));
  await Promise.all(writers);
  throw new Error(`the writers ran out of operations (${WRITER_OP_COUNT_MAX} each)`);
}

main().catch((error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  process.stderr.write(`ingest-child failed (${String(code)}): ${
    error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
