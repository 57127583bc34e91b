// recovery/xlog-replay: how fast a store opens whose xlog holds many rows after its last
// checkpoint.
//
// A writer process (perf/recovery-writer.ts) loads largeDayCount days of every host into a fresh
// home, logWriteMode 1 and no checkpoint, and is killed with SIGKILL once every batch is
// acknowledged: the xlog holds every row (3,456,000 in the full run) and no data file holds any.
// Each timed run opens a fresh copy of that home: Store.open, which replays the whole xlog into
// the in-memory blocks. rows/s = rows replayed (Store.recovery.rowCount, checked) over the open's
// time; the target is 1,000,000 rows/s. Closing the recovered store (a checkpoint) is not timed.
//
// LevelDB: the same rows written by a writer process the same way into a LevelDB whose write
// buffer holds them all, so its log holds every row and no table exists; killed the same way.
// Each timed run reopens a fresh copy with the same options: LevelDB replays the log into a
// memtable and, as it does on every open, writes that memtable to a synced table before the open
// resolves. Its open is the same promise the store's is: the database is usable and durable.
//
// Both copies are read from the page cache (they were just written), so this measures replay, not
// the device; one warm-up and recoveryRepeatCount runs each, heap collected before each; medians.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { assert } from '../../lib/base/assert.ts';
import { storageOptions, type StorageOptions } from '../../lib/base/options.ts';
import { Store } from '../../lib/engine/store.ts';
import { CHECKPOINT_INTERVAL_MS_OFF, LARGE_PEER_OPTIONS, settleHeap } from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { directorySizeBytes, withHomeCopy, withTempHome } from '../bench-files.ts';
import { throughputResult, type WorkloadReport } from '../bench-result.ts';
import { LevelPeer } from '../leveldb-peer.ts';
import { median } from '../stats.ts';
import { tsbsDays, tsbsDaysLastRow, type TsbsDays } from '../tsbs-days.ts';

const NAME = 'recovery/xlog-replay';
/** The target for replay. */
const REPLAY_ROWS_PER_S_MIN = 1_000_000;
/** From spawn to READY: node, tsx, generating the dataset and loading every row. */
const WRITER_READY_MS_MAX = 10 * 60_000;

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WRITER_PATH = fileURLToPath(new URL('../recovery-writer.ts', import.meta.url));

/** The writer's options and the reopen's (partitionNum and block size must match). */
export const RECOVERY_STORE_OPTIONS: Partial<StorageOptions> = {
  logWriteMode: 1,
  checkpointIntervalMs: CHECKPOINT_INTERVAL_MS_OFF,
};

interface StoreOpenRun {
  openMs: number;
  /** The store's own account of its recovery (slowest partition group). */
  recoveryMs: number;
}

export async function recoveryWorkload(config: BenchConfig): Promise<WorkloadReport> {
  const days = tsbsDays(config.dataset, config.largeDayCount);
  return withTempHome('recovery', async (root) => {
    const storeSource = join(root, 'store');
    const peerSource = join(root, 'leveldb');
    await runWriter({ engine: 'store', home: storeSource, quick: config.quick }, days);
    await runWriter({ engine: 'leveldb', home: peerSource, quick: config.quick }, days);
    assert(directorySizeBytes(peerSource, '.ldb') === 0, 'LevelDB wrote a table before the kill');
    const store: StoreOpenRun[] = [];
    const peerOpenMs: number[] = [];
    // Repetition -1 is the warm-up (JIT, page cache), not recorded.
    for (let repeat = -1; repeat < config.recoveryRepeatCount; repeat++) {
      const storeRun = await withHomeCopy(storeSource, 'recovery-store',
        (home) => storeOpenRun(home, days));
      const peerMs = await withHomeCopy(peerSource, 'recovery-leveldb',
        (home) => peerOpenRun(home, days));
      if (repeat < 0) continue;
      store.push(storeRun);
      peerOpenMs.push(peerMs);
    }
    const storeSamples = store.map((run) => days.rowCount / (run.openMs / 1000));
    const peerSamples = peerOpenMs.map((ms) => days.rowCount / (ms / 1000));
    const xlogSizeBytes = directorySizeBytes(storeSource, '.xlog');
    const peerLogSizeBytes = directorySizeBytes(peerSource, '.log');
    return {
      results: [throughputResult(NAME, median(storeSamples), median(peerSamples),
        { target: { of: 'value', min: REPLAY_ROWS_PER_S_MIN } })],
      details: [{
        name: NAME, storeSamples, peerSamples,
        method: `${days.rowCount} rows in the log after a SIGKILL, no checkpoint; rows / time ` +
          'of Store.open / LevelDB open (log replay + the table it writes) on a fresh copy of ' +
          `the home, page cache warm; 1 warm-up + ${config.recoveryRepeatCount} runs, median`,
        measures: {
          storeOpenMs: store.map((run) => run.openMs),
          storeRecoveryReportMs: store.map((run) => run.recoveryMs),
          peerOpenMs,
          storeXlogSizeBytes: [xlogSizeBytes],
          peerLogSizeBytes: [peerLogSizeBytes],
        },
      }],
    };
  });
}

async function storeOpenRun(home: string, days: TsbsDays): Promise<StoreOpenRun> {
  settleHeap();
  const startMs = performance.now();
  const store = await Store.open({ home, options: storageOptions(RECOVERY_STORE_OPTIONS) });
  const openMs = performance.now() - startMs;
  try {
    const report = store.recovery;
    assert(report !== undefined);
    assert(report.restoredBlockCount === 0, 'the writer checkpointed');
    assert(report.rowCount === days.rowCount,
      `replayed ${report.rowCount} of ${days.rowCount} rows`);
    const lastHost = days.dataset.hosts.length - 1;
    const last = tsbsDaysLastRow(days, lastHost);
    const found = await store.session().container(days.dataset.hosts[lastHost]!.containerName)
      .get(last[0] as number);
    assert(isDeepStrictEqual(found, last), 'the last row written is not back');
    return { openMs, recoveryMs: report.durationMs };
  } finally {
    await store.close();
  }
}

/** One timed LevelDB reopen; returns its milliseconds. */
async function peerOpenRun(home: string, days: TsbsDays): Promise<number> {
  settleHeap();
  const startMs = performance.now();
  const peer = await LevelPeer.open(home, days.dataset.hosts, LARGE_PEER_OPTIONS);
  const openMs = performance.now() - startMs;
  try {
    const lastHost = days.dataset.hosts.length - 1;
    const last = tsbsDaysLastRow(days, lastHost);
    const found = await peer.getRow(lastHost, last[0] as number);
    assert(isDeepStrictEqual(found, last), 'the last row written is not back in LevelDB');
    return openMs;
  } finally {
    await peer.close();
  }
}

/** Runs the writer until READY, then SIGKILLs it (by its pid) and waits for it to go. */
async function runWriter(
  run: { engine: 'store' | 'leveldb'; home: string; quick: boolean },
  days: TsbsDays,
): Promise<void> {
  const args = ['--import', 'tsx', WRITER_PATH, '--engine', run.engine, '--home', run.home];
  if (run.quick) args.push('--quick');
  const child = spawn(process.execPath, args,
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  let stdout = '';
  const exited = new Promise<NodeJS.Signals | number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(signal ?? code));
  });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const timer = setTimeout(kill, WRITER_READY_MS_MAX);
  const ready = new Promise<void>((resolve) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve();
    });
  });
  try {
    await Promise.race([ready, exited]);
  } finally {
    kill();
    clearTimeout(timer);
  }
  const ending = await exited;
  assert(stdout === `READY ${days.rowCount}\n`,
    `${run.engine} writer ended (${String(ending)}) with ${JSON.stringify(stdout)}`);
  assert(ending === 'SIGKILL');
}
