// The results of fixed-time put loops (concurrent-callers.ts), the store against a peer, as the
// client and thread workloads report them: rows/s under the workload's name, and the p50 and p99
// of one put under name/p50 and name/p99. Each is the median over the runs of that run's figure;
// every run's figures go to the details.

import { assert } from '../lib/base/assert.ts';
import {
  latencyResult, throughputResult, type BenchDetail, type BenchTarget, type WorkloadReport,
} from './bench-result.ts';
import { putLoopsRowsPerS, type PutLoopsRun } from './concurrent-callers.ts';
import { median, percentile } from './stats.ts';

export function putReport(
  name: string,
  runs: { store: readonly PutLoopsRun[]; peer: readonly PutLoopsRun[] },
  settings: {
    method: string;
    target?: BenchTarget | undefined;
    peer?: 'leveldb' | 'in-thread';
    /** More per-run figures, kept with the rows/s entry. */
    measures?: Record<string, number[]>;
  },
): WorkloadReport {
  const { store, peer } = runs;
  assert(store.length > 0);
  assert(store.length === peer.length);
  const measures = {
    storePutCount: store.map((run) => run.latenciesMs.length),
    storeElapsedMs: store.map((run) => run.elapsedMs),
    peerPutCount: peer.map((run) => run.latenciesMs.length),
    peerElapsedMs: peer.map((run) => run.elapsedMs),
    ...settings.measures,
  };
  const storeRowsPerS = store.map(putLoopsRowsPerS);
  const peerRowsPerS = peer.map(putLoopsRowsPerS);
  const peerName = settings.peer ?? 'leveldb';
  const results = [throughputResult(name, median(storeRowsPerS), median(peerRowsPerS),
    { peer: peerName, target: settings.target })];
  const details: BenchDetail[] = [{
    name, method: settings.method, storeSamples: storeRowsPerS, peerSamples: peerRowsPerS,
    measures,
  }];
  for (const p of [50, 99]) {
    const storeSamples = store.map((run) => percentile(run.latenciesMs, p));
    const peerSamples = peer.map((run) => percentile(run.latenciesMs, p));
    results.push(latencyResult(`${name}/p${p}`, median(storeSamples), median(peerSamples),
      { peer: peerName }));
    details.push({ name: `${name}/p${p}`, method: settings.method, storeSamples, peerSamples });
  }
  return { results, details };
}
