// The fault tests' bookkeeping: a store on a SimFileSystem, and a ledger of every commit made to it
// with what the engine answered, checked against the store after each crash or reopen.
//
// Every commit is a multiPut of fresh keys (never written before), and every row carries the index
// of its commit, so each visible row names the one commit it came from. That makes the rules plain:
// - a commit is visible wholly or not at all;
// - a durable commit (acknowledged under logWriteMode 0, or before a sync completed under n >= 1)
//   is visible wholly, and a commit once found visible or absent stays so;
// - per partition, the commits of one store incarnation that survive are a prefix, in the order
//   they were issued (= the order they were appended: the engine appends within the call);
// - nothing else is visible.

import { isDeepStrictEqual } from 'node:util';
import type { SchedulerLike } from 'rxjs';
import { storageOptions } from '../../lib/base/options.ts';
import type { Session } from '../../lib/engine/session.ts';
import { Store } from '../../lib/engine/store.ts';
import type { Row } from '../../lib/schema/column-type.ts';
import type { Prng } from '../sim/prng.ts';
import { SimFileSystem } from '../sim/sim-file-system.ts';

export const FAULT_HOME = '/sim/home';
export const FAULT_TRANSACTION_LOG_ROOT = `${FAULT_HOME}/txnlog`;
/**
 * With partitionNum 4 and concurrency 2: sim_a and sim_c share partition 1 (group 0), sim_f is
 * partition 2 and sim_b partition 3 (both group 1).
 */
export const FAULT_CONTAINER_NAMES = ['sim_a', 'sim_c', 'sim_f', 'sim_b'] as const;
const FAULT_TS_BASE_MS = Date.UTC(2026, 0, 1);
/** Rows one commit writes, at most. */
export const FAULT_COMMIT_ROW_COUNT_MAX = 200;
/** Commits started at once in a burst, at most. */
const BURST_COMMIT_COUNT_MAX = 4;

type Visibility = 'all' | 'none' | 'partial';

export interface LedgerCommit {
  readonly index: number;
  readonly container: string;
  readonly partitionId: number;
  readonly groupIndex: number;
  /** The store incarnation that issued it: survivors are a prefix within one. */
  readonly epoch: number;
  readonly firstKeyMs: number;
  readonly rows: Row[];
  state: 'pending' | 'acked' | 'failed';
  error: unknown;
  /** Must be visible after any crash. */
  durable: boolean;
  /** Settled by a check: whether a commit that was not durable made it. */
  survived: boolean | undefined;
}

/**
 * A home on a fresh SimFileSystem whose path is durable. With `engineDirectories`, the directories
 * Store.open makes (txnlog, data) are made and synced beforehand too: Store.open does not sync
 * their entries in the home, so without this a crash loses the whole log (the todo test in
 * fault-file-system.test.ts shows it).
 */
export async function makeSimHome(seed: number, { engineDirectories = true } = {}) {
  const fileSystem = new SimFileSystem({ seed });
  fileSystem.mkdirp(FAULT_HOME);
  if (engineDirectories) {
    fileSystem.mkdirp(FAULT_TRANSACTION_LOG_ROOT);
    fileSystem.mkdirp(`${FAULT_HOME}/data`);
  }
  for (const directory of ['/', '/sim', FAULT_HOME]) await fileSystem.syncDirectory(directory);
  return fileSystem;
}

export async function openFaultStore(
  fileSystem: SimFileSystem,
  config: { logWriteMode: number; scheduler?: SchedulerLike },
): Promise<Store> {
  const { logWriteMode, scheduler } = config;
  const options = storageOptions({ partitionNum: 4, concurrency: 2, logWriteMode });
  return Store.open({ home: FAULT_HOME, options, fileSystem, scheduler });
}

export async function createFaultContainers(store: Store): Promise<void> {
  for (const name of FAULT_CONTAINER_NAMES) {
    await store.createContainer({
      name, type: 'TIME_SERIES',
      columns: [
        { name: 'ts', type: 'TIMESTAMP' }, { name: 'v', type: 'DOUBLE' },
        { name: 'batch', type: 'LONG' },
      ],
    });
  }
}

export function groupIndexOf(store: Store, container: string): number {
  const id = store.partitionIdOf(container);
  return store.partitionGroups.findIndex((group) =>
    id >= group.startPartitionId && id < group.startPartitionId + group.partitions.length);
}

export class FaultLedger {
  readonly commits: LedgerCommit[] = [];
  private epoch = 0;
  private nextKeyMs = FAULT_TS_BASE_MS;

  constructor(private readonly options: { ackIsDurable: boolean }) {}

  /** Starts a multiPut of fresh rows and records its outcome; the promise never rejects. */
  start(store: Store, session: Session, request: { container: string; rowCount: number }) {
    const index = this.commits.length;
    const rows: Row[] = [];
    for (let offset = 0; offset < request.rowCount; offset++) {
      rows.push([this.nextKeyMs + offset, index + offset / 8, BigInt(index)]);
    }
    const commit: LedgerCommit = {
      index, container: request.container, partitionId: store.partitionIdOf(request.container),
      groupIndex: groupIndexOf(store, request.container), epoch: this.epoch,
      firstKeyMs: this.nextKeyMs, rows, state: 'pending', error: undefined, durable: false,
      survived: undefined,
    };
    this.nextKeyMs += request.rowCount;
    this.commits.push(commit);
    const epoch = this.epoch;
    return session.container(request.container).multiPut(rows).then(() => {
      if (epoch !== this.epoch) return commit; // answered by a store that has crashed: ignored
      commit.state = 'acked';
      commit.durable = this.options.ackIsDurable;
      return commit;
    }, (error: unknown) => {
      if (epoch === this.epoch) commit.state = 'failed';
      commit.error = error;
      return commit;
    });
  }

  /** A random burst of concurrent commits; resolves when each has an answer. */
  async burst(store: Store, session: Session, prng: Prng): Promise<LedgerCommit[]> {
    const count = prng.nextIntBetween({ min: 1, max: BURST_COMMIT_COUNT_MAX });
    const requests = Array.from({ length: count }, () => randomRequest(prng));
    return Promise.all(requests.map((request) => this.start(store, session, request)));
  }

  /** A sync completed: every commit acknowledged so far is durable. */
  markAckedDurable(): void {
    for (const commit of this.commits) if (commit.state === 'acked') commit.durable = true;
  }

  /** The store was crashed or closed: answers to its commits that come later are ignored. */
  restarted(): void {
    this.epoch += 1;
  }
}

export function randomRequest(prng: Prng, container?: string) {
  return {
    container: container ?? FAULT_CONTAINER_NAMES[prng.nextIndex(FAULT_CONTAINER_NAMES.length)]!,
    rowCount: prng.nextIntBetween({ min: 1, max: FAULT_COMMIT_ROW_COUNT_MAX }),
  };
}

/** Compares a freshly opened store with the ledger, settling undecided commits. */
export async function checkLedger(store: Store, ledger: FaultLedger): Promise<string[]> {
  const problems: string[] = [];
  const visibleCounts = await visibleRowCounts(store, ledger, problems);
  const visibilities = ledger.commits.map((commit): Visibility => {
    const count = visibleCounts[commit.index] ?? 0;
    return count === 0 ? 'none' : count === commit.rows.length ? 'all' : 'partial';
  });
  for (const commit of ledger.commits) {
    const visibility = visibilities[commit.index]!;
    const what = `commit ${commit.index} (${commit.state}, ` +
      `${commit.rows.length} rows in ${commit.container})`;
    if (visibility === 'partial') {
      problems.push(`${what} is partly visible: ${visibleCounts[commit.index]} rows`);
    } else if ((commit.durable || commit.survived === true) && visibility === 'none') {
      problems.push(`${what} is lost, though ${commit.durable ? 'durable' : 'seen before'}`);
    } else if (commit.survived === false && visibility === 'all') {
      problems.push(`${what} was lost and is back`);
    }
  }
  problems.push(...prefixProblems(ledger.commits, visibilities));
  for (const commit of ledger.commits) {
    const visibility = visibilities[commit.index]!;
    if (!commit.durable && commit.survived === undefined && visibility !== 'partial') {
      commit.survived = visibility === 'all';
    }
  }
  return problems;
}

/** Visible rows per commit index; a row that matches no commit row is a problem. */
async function visibleRowCounts(store: Store, ledger: FaultLedger, problems: string[]) {
  const counts: number[] = [];
  const session = store.session();
  try {
    for (const name of FAULT_CONTAINER_NAMES) {
      if (store.getContainerInfo(name) === undefined) continue;
      const handle = session.container(name);
      const rows = await handle.scan({ direction: 'asc' });
      const count = await handle.count();
      if (count !== rows.length) {
        problems.push(`${name}: count() is ${count}, a scan returns ${rows.length} rows`);
      }
      for (const row of rows) {
        const commit = ledger.commits[Number(row[2])];
        const expected = commit?.rows[(row[0] as number) - commit.firstKeyMs];
        if (commit?.container !== name || !isDeepStrictEqual(row, expected)) {
          problems.push(`${name}: row ${row.map(String).join(', ')} was never committed`);
          continue;
        }
        counts[commit.index] = (counts[commit.index] ?? 0) + 1;
      }
    }
  } finally {
    session.close();
  }
  return counts;
}

/** Within one partition and incarnation, no surviving commit follows a lost one. */
function prefixProblems(commits: readonly LedgerCommit[], visibilities: readonly Visibility[]) {
  const problems: string[] = [];
  const firstLost = new Map<string, LedgerCommit>();
  for (const commit of commits) {
    const log = `${commit.partitionId}/${commit.epoch}`;
    const visibility = visibilities[commit.index]!;
    const lost = firstLost.get(log);
    if (visibility === 'none' && lost === undefined) firstLost.set(log, commit);
    if (visibility !== 'none' && lost !== undefined) {
      problems.push(`partition ${commit.partitionId}: commit ${commit.index} survived, but the ` +
        `earlier commit ${lost.index} (${lost.state}) is lost`);
    }
  }
  return problems;
}

export function formatLedgerProblems(seed: number, problems: readonly string[]): string {
  const shown = problems.slice(0, 10).join('\n  ');
  return `seed ${seed}: ${problems.length} problems:\n  ${shown}`;
}
