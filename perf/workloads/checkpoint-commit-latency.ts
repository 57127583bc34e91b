// checkpoint/commit-latency/logWriteMode=0: what a checkpoint does to durable commits. Under
// logWriteMode 0 a commit is acknowledged after the fdatasync of its xlog, so its latency is the
// xlog fsync latency as a client sees it (group commit included).
//
// Store: a fresh home (logWriteMode 0) loaded, untimed, with largeDayCount days of every host, all
// of it dirty. Then commitSessionCount sessions, each in a loop, put one row (auto-commit) into
// their own host's container, after its last row:
//   idle     for commitIdleMs, no checkpoint running;
//   during   while one Store.checkpoint() of the whole dirty set runs (commits started before it
//            ended count; the rows they add go into the checkpoint's copy-on-write blocks).
//
// LevelDB: the closest honest equivalent. A checkpoint moves a large in-memory set to data files
// while commits go on; in LevelDB that is a memtable flush. So: the same rows loaded into a
// LevelDB whose write buffer holds them all (sync: true), then the same sessions `put` one row
// each with { sync: true } (fdatasync of LevelDB's log before the put resolves; LevelDB groups
// concurrent sync writes), idle for commitIdleMs, then during flush() of the whole memtable to a
// table. Puts go to a fresh memtable and log while the old one is written, as the store's commits
// go to the xlog while blocks are written. A compaction-heavy write load instead would add
// foreground writes the store side does not have.
//
// The store runs twice in each repetition: with checkpointFileFlushSize 0 (GridDB's default: one
// data-file sync a partition, before its cplog END) and with FLUSH_SIZE_BYTES (a sync every MiB
// written), the `/checkpointFileFlushSize=1MB/` rows. The disk's own write rate is measured in each
// repetition too (disk-peer.ts), for the checkpoint's MB/s while commits go on: the target
// is p99 during the checkpoint at most 2× LevelDB's during its flush (ratio ≥ 0.5) with the
// checkpoint still at half the disk's rate or better.
//
// One warm-up and checkpointRepeatCount runs, fresh homes each; each run's p50 and p99, and the
// median of those over the runs. The measures also keep the event loop's delay during the
// background work (perf_hooks, 1 ms sampling): a commit cannot be acknowledged while the loop is
// blocked, so a delay near the commit p99 says the time went to work on the loop, not to the disk.

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { assert } from '../../lib/base/assert.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import {
  CHECKPOINT_INTERVAL_MS_OFF, LARGE_PEER_OPTIONS, settleHeap, withPeer, withStore,
} from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { MiB } from '../../lib/base/units.ts';
import {
  latencyResult, megabytesPerS, throughputResult,
  type BenchDetail, type BenchResult, type WorkloadReport,
} from '../bench-result.ts';
import { diskSequentialWriteMBPerS } from '../disk-peer.ts';
import { median, percentile } from '../stats.ts';
import { loadDays, tsbsDays, type TsbsDays } from '../tsbs-days.ts';

const NAME = 'checkpoint/commit-latency/logWriteMode=0';

/** One run of one engine: commit latencies with no checkpoint and during one. */
interface CommitRun {
  idleMs: number[];
  duringMs: number[];
  /** How long the checkpoint (store) or the flush (LevelDB) took. */
  backgroundMs: number;
  /** The event loop's delay while it ran: p99 and max. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** Store only: the data files' size after the checkpoint (its block images), else 0. */
  sizeBytes: number;
}

/** The store's second configuration: a data-file sync every this many bytes of a checkpoint. */
const FLUSH_SIZE_BYTES = 1 * MiB;

/** The targets: p99 at most 2× LevelDB's; MB/s at least half the disk's. */
const LATENCY_RATIO_TARGET = 0.5;
const DISK_RATIO_TARGET = 0.5;

const NS_PER_MS = 1e6;

type CommitOne = (session: number, row: Row) => Promise<void>;

export async function checkpointCommitLatencyWorkload(
  config: BenchConfig,
): Promise<WorkloadReport> {
  const days = tsbsDays(config.dataset, config.largeDayCount);
  assert(config.commitSessionCount <= config.dataset.hosts.length);
  const store: CommitRun[] = [];
  const flushed: CommitRun[] = [];
  const peer: CommitRun[] = [];
  const diskMBPerS: number[] = [];
  // Repetition -1 is the warm-up (JIT, page cache), not recorded.
  for (let repeat = -1; repeat < config.checkpointRepeatCount; repeat++) {
    const storeRun = await storeCommitRun(config, days, 0);
    const flushedRun = await storeCommitRun(config, days, FLUSH_SIZE_BYTES);
    const peerRun = await peerCommitRun(config, days);
    const disk = await diskSequentialWriteMBPerS(storeRun.sizeBytes);
    if (repeat < 0) continue;
    store.push(storeRun);
    flushed.push(flushedRun);
    peer.push(peerRun);
    diskMBPerS.push(disk);
  }
  const storeMBPerS = store.map((run) => megabytesPerS(run.sizeBytes, run.backgroundMs));
  const flushedMBPerS = flushed.map((run) => megabytesPerS(run.sizeBytes, run.backgroundMs));
  const method = `${config.commitSessionCount} sessions, one-row commits in a loop; idle: ` +
    `${config.commitIdleMs} ms; during: while the store checkpoints / LevelDB flushes ` +
    `${days.rowCount} dirty rows; store logWriteMode 0, LevelDB put sync:true; 1 warm-up + ` +
    `${config.checkpointRepeatCount} runs on fresh homes, each run's percentile, median of runs`;
  const measures = {
    storeIdleCommitCount: store.map((run) => run.idleMs.length),
    storeDuringCommitCount: store.map((run) => run.duringMs.length),
    storeCheckpointMs: store.map((run) => run.backgroundMs),
    storeLoopDelayP99Ms: store.map((run) => run.loopDelayP99Ms),
    storeLoopDelayMaxMs: store.map((run) => run.loopDelayMaxMs),
    flushedDuringCommitCount: flushed.map((run) => run.duringMs.length),
    flushedCheckpointMs: flushed.map((run) => run.backgroundMs),
    flushedLoopDelayP99Ms: flushed.map((run) => run.loopDelayP99Ms),
    flushedLoopDelayMaxMs: flushed.map((run) => run.loopDelayMaxMs),
    storeDataFileSizeBytes: store.map((run) => run.sizeBytes),
    diskMBPerS,
    peerIdlePutCount: peer.map((run) => run.idleMs.length),
    peerDuringPutCount: peer.map((run) => run.duringMs.length),
    peerFlushMs: peer.map((run) => run.backgroundMs),
    peerLoopDelayP99Ms: peer.map((run) => run.loopDelayP99Ms),
    peerLoopDelayMaxMs: peer.map((run) => run.loopDelayMaxMs),
  };
  const results: BenchResult[] = [];
  const details: BenchDetail[] = [];
  const flushedName = `${NAME}/checkpointFileFlushSize=1MB`;
  const variants = [
    { prefix: NAME, runs: store, phases: ['idle', 'during-checkpoint'] as const },
    { prefix: flushedName, runs: flushed, phases: ['during-checkpoint'] as const },
  ];
  for (const { prefix, runs, phases } of variants) {
    for (const phase of phases) {
      for (const p of [50, 99]) {
        const name = `${prefix}/${phase}/p${p}`;
        const pick = (run: CommitRun) =>
          percentile(phase === 'idle' ? run.idleMs : run.duringMs, p);
        const storeSamples = runs.map(pick);
        const peerSamples = peer.map(pick);
        const target = phase === 'during-checkpoint' && p === 99
          ? { target: { of: 'ratio' as const, min: LATENCY_RATIO_TARGET } } : {};
        results.push(latencyResult(name, median(storeSamples), median(peerSamples), target));
        details.push({ name, method, storeSamples, peerSamples, measures });
      }
    }
  }
  for (const [prefix, samples] of [[NAME, storeMBPerS], [flushedName, flushedMBPerS]] as const) {
    const name = `${prefix}/checkpoint-MB/s`;
    results.push(throughputResult(name, median(samples), median(diskMBPerS), {
      unit: 'MB/s', peer: 'disk', target: { of: 'ratio', min: DISK_RATIO_TARGET },
    }));
    details.push({ name, method, storeSamples: [...samples], peerSamples: diskMBPerS, measures });
  }
  return { results, details };
}

async function storeCommitRun(
  config: BenchConfig, days: TsbsDays, checkpointFileFlushSizeBytes: number,
): Promise<CommitRun> {
  const options = {
    logWriteMode: 0, checkpointIntervalMs: CHECKPOINT_INTERVAL_MS_OFF, checkpointFileFlushSizeBytes,
  };
  return withStore(days.dataset, options, async (engine) => {
    await loadDays(days, config.ingestWorkerCount,
      (batch) => engine.handles[batch.hostIndex]!.multiPut(batch.rows));
    // A session of its own per committer, as separate clients would have.
    const handles = Array.from({ length: config.commitSessionCount }, (_, s) =>
      engine.store.session().container(days.dataset.hosts[s]!.containerName));
    const sessions = new CommitSessions(config, days, (s, row) => handles[s]!.put(row));
    const run = await sessions.run(() => engine.store.checkpoint());
    const { sizeBytes } = engine.store.stats().dataFiles;
    assert(sizeBytes > 0);
    return { ...run, sizeBytes };
  });
}

async function peerCommitRun(config: BenchConfig, days: TsbsDays): Promise<CommitRun> {
  return withPeer(days.dataset, async (peer) => {
    await loadDays(days, config.ingestWorkerCount, (batch) => peer.putBatch(batch, { sync: true }));
    const sessions = new CommitSessions(config, days,
      (s, row) => peer.putBatch({ hostIndex: s, rows: [row] }, { sync: true }));
    return sessions.run(() => peer.flush());
  }, LARGE_PEER_OPTIONS);
}

/** commitSessionCount loops of one-row commits; session s writes host s after the load's end. */
class CommitSessions {
  private readonly nextIndexes: number[];

  constructor(
    private readonly config: BenchConfig,
    private readonly days: TsbsDays,
    private readonly commitOne: CommitOne,
  ) {
    this.nextIndexes = new Array<number>(config.commitSessionCount).fill(0);
  }

  /** The idle phase, then the phase during `background` (a checkpoint or a flush). */
  async run(background: () => Promise<void>): Promise<CommitRun> {
    settleHeap();
    const idleEndMs = performance.now() + this.config.commitIdleMs;
    const idleMs = await this.loops(() => performance.now() >= idleEndMs);
    settleHeap();
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    let running = true;
    const startMs = performance.now();
    const [backgroundMs, duringMs] = await Promise.all([
      background().then(() => performance.now() - startMs).finally(() => (running = false)),
      this.loops(() => !running),
    ]);
    loopDelay.disable();
    assert(idleMs.length > 0);
    assert(duringMs.length > 0, 'no commit started during the checkpoint');
    return {
      idleMs, duringMs, backgroundMs, sizeBytes: 0,
      loopDelayP99Ms: loopDelay.percentile(99) / NS_PER_MS,
      loopDelayMaxMs: loopDelay.max / NS_PER_MS,
    };
  }

  private async loops(stopped: () => boolean): Promise<number[]> {
    const latenciesMs: number[] = [];
    const loop = async (session: number) => {
      while (!stopped()) {
        const row = this.row(session, this.nextIndexes[session]!++);
        const startMs = performance.now();
        await this.commitOne(session, row);
        latenciesMs.push(performance.now() - startMs);
      }
    };
    await Promise.all(Array.from({ length: this.config.commitSessionCount }, (_, s) => loop(s)));
    return latenciesMs;
  }

  /** Commit `index` of a session: host s's next timestamp after the load, a row of its values. */
  private row(session: number, index: number): Row {
    const { dataset } = this.days;
    const values = dataset.rowsByHost[session]!;
    const row = values[index % values.length]!.slice();
    row[0] = this.days.toMs + index * dataset.config.intervalMs;
    return row;
  }
}
