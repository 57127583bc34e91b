// The InfluxDB side of the ingest workloads (client and web API): the TSBS batches as line-protocol
// bodies, built before any timing; one timed load of them into a fresh database, checked
// (untimed) for every point, then dropped; and the driver that runs a store side against it.

import { join } from 'node:path';
import { assert } from '../lib/base/assert.ts';
import { settleHeap } from './bench-engines.ts';
import { withTempHome } from './bench-files.ts';
import { throughputResult, type WorkloadReport } from './bench-result.ts';
import { loadBatchesByWriter } from './concurrent-callers.ts';
import { INFLUX_MEASUREMENT, influxBatchBody, influxLinePrefix } from './influx-line-protocol.ts';
import { InfluxPeer, influxdPath } from './influx-peer.ts';
import { median, timeAsyncMs } from './stats.ts';
import type { TsbsBatch, TsbsDataset } from './tsbs.ts';

/** The line-protocol body of every batch. */
function influxBodies(dataset: TsbsDataset): Map<TsbsBatch, Buffer> {
  const prefixes = dataset.hosts.map(influxLinePrefix);
  return new Map(dataset.batches.map((batch) =>
    [batch, Buffer.from(influxBatchBody(batch, prefixes[batch.hostIndex]!), 'utf8')]));
}

/** One timed load of the bodies into a new database `database`; returns milliseconds. */
async function influxTimedLoad(
  peer: InfluxPeer,
  dataset: TsbsDataset,
  settings: { database: string; connectionCount: number; bodies: ReadonlyMap<TsbsBatch, Buffer> },
): Promise<number> {
  const { database } = settings;
  await peer.createDatabase(database);
  settleHeap();
  const ms = await timeAsyncMs(() => loadBatchesByWriter(dataset.batches,
    settings.connectionCount, (_, batch) => peer.write(database, settings.bodies.get(batch)!)));
  const pointCount = await peer.pointCount(database, INFLUX_MEASUREMENT);
  assert(pointCount === dataset.rowCount,
    `InfluxDB holds ${pointCount} points of ${dataset.rowCount}`);
  await peer.dropDatabase(database);
  return ms;
}

export interface InfluxComparedIngest {
  /** The workload's name in latest.json. */
  name: string;
  /** Names the temporary home. */
  homeLabel: string;
  dataset: TsbsDataset;
  repeatCount: number;
  connectionCount: number;
  /** The target: at least this ratio to InfluxDB. */
  ratioMin: number;
  /** How the store side loads, for the details' method. */
  storeMethod: string;
  /** Database names of the runs: `${databasePrefix}${run}`. */
  databasePrefix: string;
  /**
   * Starts the store side under `root` and calls `use` with one timed store run (milliseconds
   * for run `run`, into fresh containers); stops the store side after, even on failure.
   */
  withStore(root: string, use: (storeRun: (run: number) => Promise<number>) => Promise<void>):
    Promise<void>;
}

/**
 * The store against InfluxDB on the same rows: both sides up for the whole workload, one warm-up
 * run each, then runs alternating; rows/s medians. Without influxd on PATH the store runs alone
 * and the peer is null.
 */
export async function influxComparedIngest(settings: InfluxComparedIngest):
  Promise<WorkloadReport> {
  const { name, dataset, repeatCount, connectionCount } = settings;
  const influxd = influxdPath();
  if (influxd === undefined) {
    console.warn(`  ${name}: influxd is not on PATH (Debian package influxdb): InfluxDB skipped`);
  }
  const storeSamples: number[] = [];
  const peerSamples: number[] = [];
  await withTempHome(settings.homeLabel, async (root) => {
    const bodies = influxd === undefined ? new Map<TsbsBatch, Buffer>() : influxBodies(dataset);
    await settings.withStore(root, async (storeRun) => {
      const peer = influxd === undefined ? undefined
        : await InfluxPeer.start(influxd, join(root, 'influxdb'), connectionCount);
      try {
        // Run 0 is the warm-up, not recorded.
        for (let run = 0; run <= repeatCount; run++) {
          const storeMs = await storeRun(run);
          const peerMs = peer === undefined ? undefined : await influxTimedLoad(peer, dataset,
            { database: `${settings.databasePrefix}${run}`, connectionCount, bodies });
          if (run === 0) continue;
          storeSamples.push(dataset.rowCount / (storeMs / 1000));
          if (peerMs !== undefined) peerSamples.push(dataset.rowCount / (peerMs / 1000));
        }
      } finally {
        await peer?.stop();
      }
    });
  });
  assert(storeSamples.length === repeatCount);
  const peerValue = influxd === undefined ? null : median(peerSamples);
  return {
    results: [throughputResult(name, median(storeSamples), peerValue,
      { peer: 'influxdb', target: { of: 'ratio', min: settings.ratioMin } })],
    details: [{
      name, storeSamples, peerSamples,
      method: `${dataset.rowCount} TSBS rows in batches of ${dataset.config.batchRowCountMax}; ` +
        `store: ${settings.storeMethod}; InfluxDB ` +
        (influxd === undefined ? 'skipped (influxd not on PATH)'
          : `${influxd}, line protocol POST /write precision=ms, ${connectionCount} ` +
            'concurrent writers on keep-alive connections, bodies built before timing') +
        `; performance.now, first write to last acknowledgement; 1 warm-up + ${repeatCount} ` +
        'runs into fresh containers / databases, median',
    }],
  };
}
