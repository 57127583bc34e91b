// The writer the recovery workload kills: it loads largeDayCount days of every host into a fresh
// home of one engine, prints READY, and waits to be killed with SIGKILL. It never closes the
// engine, so nothing is checkpointed or flushed: the store's xlog (logWriteMode 1: every
// acknowledged record was written to the OS, which a killed process does not lose) and LevelDB's
// log (its write buffer holds every row, and each write reaches the OS before it resolves) hold
// every row, and the next open must replay them all.
//
//   node --import tsx perf/recovery-writer.ts --engine store|leveldb --home <dir> [--quick]
//
// stdout: `READY <rowCount>` once everything is acknowledged. The parent's closing of stdin, or
// WRITER_LIFETIME_MS_MAX, ends an orphan.

import { writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { storageOptions } from '../lib/base/options.ts';
import { Store } from '../lib/engine/store.ts';
import { benchConfig } from './bench-config.ts';
import { LARGE_PEER_OPTIONS } from './bench-engines.ts';
import { LevelPeer } from './leveldb-peer.ts';
import { tsbsContainerDefinition } from './tsbs.ts';
import { loadDays, tsbsDays, type TsbsDays } from './tsbs-days.ts';
import { RECOVERY_STORE_OPTIONS } from './workloads/recovery.ts';

/** The parent kills the writer right after READY; this only ends one whose parent died. */
const WRITER_LIFETIME_MS_MAX = 15 * 60_000;
const ORPHAN_EXIT_CODE = 3;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      engine: { type: 'string' },
      home: { type: 'string' },
      quick: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const { engine, home } = values;
  if (home === undefined || (engine !== 'store' && engine !== 'leveldb')) {
    throw new Error('usage: recovery-writer.ts --engine store|leveldb --home <dir> [--quick]');
  }
  setTimeout(() => process.exit(ORPHAN_EXIT_CODE), WRITER_LIFETIME_MS_MAX);
  process.stdin.on('close', () => process.exit(ORPHAN_EXIT_CODE));
  process.stdin.resume();
  const config = benchConfig(values.quick);
  const days = tsbsDays(config.dataset, config.largeDayCount);
  if (engine === 'store') await writeStore(home, days, config.ingestWorkerCount);
  else await writePeer(home, days, config.ingestWorkerCount);
  // Synchronous, so the line is out before the parent can act on it.
  writeSync(1, `READY ${days.rowCount}\n`);
}

async function writeStore(home: string, days: TsbsDays, workerCount: number): Promise<void> {
  const store = await Store.open({ home, options: storageOptions(RECOVERY_STORE_OPTIONS) });
  for (const host of days.dataset.hosts) {
    await store.createContainer(tsbsContainerDefinition(host.containerName));
  }
  const session = store.session();
  const handles = days.dataset.hosts.map((host) => session.container(host.containerName));
  await loadDays(days, workerCount, (batch) => handles[batch.hostIndex]!.multiPut(batch.rows));
}

async function writePeer(home: string, days: TsbsDays, workerCount: number): Promise<void> {
  const peer = await LevelPeer.open(home, days.dataset.hosts, LARGE_PEER_OPTIONS);
  await loadDays(days, workerCount, (batch) => peer.putBatch(batch, { sync: false }));
}

await main();
