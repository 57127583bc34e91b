// Crash test on the real file system: a child process ingests with several writers under
// logWriteMode 0 and is killed with SIGKILL at a seeded moment, again and again on one home
// directory; after each kill the parent opens the store and checks it against what the child
// acknowledged (ingest-check.ts). Later runs recover from the crashes of earlier ones.
//
// A kill loses the process, not the page cache, so this finds commits acknowledged before their
// record reached the OS, lost or half-replayed records, and a recovery that a crash in recovery
// breaks. What only a power cut loses (acknowledged before fdatasync) is the job of
// fault-file-system.test.ts.
//
//   node --import tsx --test test/crash/crash.test.ts
//   CRASH_SEED=<n> replays a failing seed's kill plan and workload (the scheduling varies).

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Store } from '../../lib/engine/store.ts';
import { Prng } from '../sim/prng.ts';
import {
  checkIngestStore, formatProblems, IngestModel, parseChildTranscript,
} from './ingest-check.ts';
import { INGEST_STORE_OPTIONS, mixSeed } from './ingest-workload.ts';

const KILL_COUNT_MIN = 20;
const KILL_COUNT_MAX = 24;
/** Past this, no new run starts once KILL_COUNT_MIN are done: the file must stay under 90 s. */
const KILLS_BUDGET_MS = 60_000;
/** Every KILL_IN_RECOVERY_PERIOD-th run is killed while it opens the store, not in ingest. */
const KILL_IN_RECOVERY_PERIOD = 6;
const INGEST_MS_MIN = 50;
const INGEST_MS_MAX = 400;
const RECOVERY_KILL_DELAY_MS_MAX = 30;
/** From spawn to READY: node, tsx and a recovery of everything the earlier runs wrote. */
const CHILD_READY_MS_MAX = 20_000;
const SUITE_TIMEOUT_MS = 85_000;

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD_PATH = fileURLToPath(new URL('./ingest-child.ts', import.meta.url));
/** Children not yet reaped: a failing test must not leave one running. */
const liveChildren = new Set<ChildProcess>();

interface KillPlan {
  /** The child's line after which the kill timer starts. */
  after: 'OPENING' | 'READY';
  delayMs: number;
}

interface ChildExit {
  stdout: string;
  stderr: string;
  signal: NodeJS.Signals | null;
  exitCode: number | null;
}

/** Runs the child until `plan` says, then SIGKILLs it (by its pid) and collects its output. */
function runChild(run: { home: string; seed: number; iteration: number; plan: KillPlan }) {
  const child = spawn(process.execPath,
    ['--import', 'tsx', CHILD_PATH, run.home, String(run.seed), String(run.iteration)],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  liveChildren.add(child);
  const output = { stdout: '', stderr: '' };
  let killTimer: NodeJS.Timeout | undefined;
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const startTimer = setTimeout(kill, CHILD_READY_MS_MAX);
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output.stdout += chunk;
    if (killTimer === undefined && output.stdout.includes(`${run.plan.after} `)) {
      clearTimeout(startTimer);
      killTimer = setTimeout(kill, run.plan.delayMs);
    }
  });
  child.stderr.on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  return new Promise<ChildExit>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exitCode, signal) => {
      liveChildren.delete(child);
      clearTimeout(startTimer);
      clearTimeout(killTimer);
      resolve({ ...output, exitCode, signal });
    });
  }).finally(kill);
}

function killPlan(prng: Prng, iteration: number): KillPlan {
  // The first run creates the containers; a kill in recovery needs something to recover.
  if (iteration % KILL_IN_RECOVERY_PERIOD === KILL_IN_RECOVERY_PERIOD - 1) {
    const delayMs = prng.nextIntBetween({ min: 0, max: RECOVERY_KILL_DELAY_MS_MAX });
    return { after: 'OPENING', delayMs };
  }
  const delayMs = prng.nextIntBetween({ min: INGEST_MS_MIN, max: INGEST_MS_MAX });
  return { after: 'READY', delayMs };
}

interface SuiteTotals {
  killCount: number;
  ackedCount: number;
  pendingCommittedCount: number;
  pendingAbsentCount: number;
  tornBytes: number;
}

/** One run: start the child on `home`, kill it as planned, recover in process, and check. */
async function killAndCheck(
  run: { home: string; seed: number; iteration: number; prng: Prng; model: IngestModel },
  totals: SuiteTotals,
): Promise<string> {
  const plan = killPlan(run.prng, run.iteration);
  const childSeed = mixSeed([run.seed, run.iteration]);
  const where = `seed ${run.seed}, run ${run.iteration} (child seed ${childSeed})`;
  const exit = await runChild({ home: run.home, seed: childSeed, iteration: run.iteration, plan });
  assert.equal(exit.signal, 'SIGKILL',
    `${where}: the child exited by itself (code ${exit.exitCode}):\n${exit.stderr}`);
  totals.killCount += 1;
  const transcript = parseChildTranscript(exit.stdout, run.iteration);
  if (plan.after === 'READY') assert.ok(transcript.ready, `${where}: killed before READY`);
  const store = await Store.open({ home: run.home, options: INGEST_STORE_OPTIONS });
  try {
    const recovery = store.recovery!;
    const report = await checkIngestStore(store, run.model, { seed: childSeed, transcript });
    if (report.problems.length > 0) assert.fail(`${where}: ${formatProblems(report.problems)}`);
    totals.ackedCount += transcript.acked.length;
    totals.pendingCommittedCount += report.pendingCommittedCount;
    totals.pendingAbsentCount += report.pendingAbsentCount;
    totals.tornBytes += recovery.tornBytes;
    return `run ${run.iteration}: killed ${plan.delayMs} ms after ${plan.after}; ` +
      `${transcript.acked.length} acked, ${transcript.pending.length} pending ` +
      `(${report.pendingCommittedCount} committed); recovered ${recovery.recordCount} ` +
      `records, ${recovery.tornBytes} torn bytes; ${report.rowCount} rows`;
  } finally {
    await store.close();
  }
}

describe('crash: SIGKILL during ingest, logWriteMode 0, real file system', () => {
  after(() => {
    for (const child of liveChildren) child.kill('SIGKILL');
  });

  it(`keeps every acknowledged commit and no part of others over ${KILL_COUNT_MIN}+ kills`,
    { timeout: SUITE_TIMEOUT_MS }, async (t) => {
      const seed = Number(process.env['CRASH_SEED'] ?? randomInt(2 ** 31));
      t.diagnostic(`seed ${seed} (CRASH_SEED=${seed} replays the kill times and workload)`);
      const prng = new Prng(seed);
      const home = mkdtempSync(join(tmpdir(), 'store-crash-'));
      const model = new IngestModel();
      const totals: SuiteTotals = {
        killCount: 0, ackedCount: 0, pendingCommittedCount: 0, pendingAbsentCount: 0, tornBytes: 0,
      };
      const startMs = performance.now();
      try {
        for (let iteration = 0; iteration < KILL_COUNT_MAX; iteration++) {
          // A slow machine stops early, but never before KILL_COUNT_MIN kills.
          if (iteration >= KILL_COUNT_MIN && performance.now() - startMs > KILLS_BUDGET_MS) break;
          t.diagnostic(await killAndCheck({ home, seed, iteration, prng, model }, totals));
        }
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
      t.diagnostic(`${totals.killCount} kills: ${totals.ackedCount} acknowledged operations, ` +
        `${totals.pendingCommittedCount} un-acknowledged found committed, ` +
        `${totals.pendingAbsentCount} found absent, ${totals.tornBytes} torn bytes cut`);
      assert.ok(totals.killCount >= KILL_COUNT_MIN);
      assert.ok(totals.ackedCount > totals.killCount, 'the children acknowledged almost nothing');
    });
});
