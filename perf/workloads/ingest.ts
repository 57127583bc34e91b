// ingest/logWriteMode=<n>/batch=5000: every TSBS batch through multiPut, rows/s.
//   logWriteMode=1: acknowledged at append, synced every second  vs LevelDB db.batch sync:false
//   logWriteMode=0: acknowledged after group-commit fdatasync     vs LevelDB db.batch sync:true
// LevelDB's side includes encoding keys and row-codec values: the store's multiPut encodes its xlog
// record from the same rows, so both start from the same Row arrays.
// Timed by hand (performance.now, first put to last acknowledgement; open, create and close are
// not timed); each repetition gets a fresh home and a collected heap. One untimed warm-up run each,
// then store and LevelDB repetitions alternate, so a slow phase of the machine hits both. Reported:
// the median of the repetitions.

import { assert } from '../../lib/base/assert.ts';
import {
  checkStoreLoaded, loadPeer, loadStore, settleHeap, withPeer, withStore,
} from '../bench-engines.ts';
import type { BenchConfig } from '../bench-config.ts';
import { throughputResult, type WorkloadReport } from '../bench-result.ts';
import { median, timeAsyncMs } from '../stats.ts';

export async function ingestWorkload(
  config: BenchConfig,
  logWriteMode: 0 | 1,
): Promise<WorkloadReport> {
  const { dataset, ingestWorkerCount: workerCount } = config;
  const batchRowCountMax = dataset.config.batchRowCountMax;
  const name = `ingest/logWriteMode=${logWriteMode}/batch=${batchRowCountMax}`;
  const sync = logWriteMode === 0;
  const storeSamples: number[] = [];
  const peerSamples: number[] = [];
  // Repetition -1 is the warm-up (JIT, page cache, LevelDB's JavaScript side), not recorded.
  for (let repeat = -1; repeat < config.ingestRepeatCount; repeat++) {
    const storeMs = await withStore(dataset, { logWriteMode }, async (engine) => {
      settleHeap();
      const ms = await timeAsyncMs(() => loadStore(dataset, engine, workerCount));
      await checkStoreLoaded(dataset, engine);
      return ms;
    });
    const peerMs = await withPeer(dataset, (peer) => {
      settleHeap();
      return timeAsyncMs(() => loadPeer(dataset, peer, { workerCount, sync }));
    });
    if (repeat < 0) continue;
    storeSamples.push(dataset.rowCount / (storeMs / 1000));
    peerSamples.push(dataset.rowCount / (peerMs / 1000));
  }
  assert(storeSamples.length === config.ingestRepeatCount);
  return {
    results: [throughputResult(name, median(storeSamples), median(peerSamples))],
    details: [{
      name,
      method: `performance.now, 1 warm-up + ${config.ingestRepeatCount} runs on fresh homes, ` +
        'heap collected before each, ' +
        `median; ${workerCount} concurrent writers; LevelDB chained db.batch ` +
        `sync:${sync}, row-codec encoding timed`,
      storeSamples, peerSamples,
    }],
  };
}
