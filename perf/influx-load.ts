// The InfluxDB side of the ingest workloads (client and web API): the TSBS batches as line-protocol
// bodies, built before any timing, and one timed load of them into a fresh database, checked
// (untimed) for every point, then dropped.

import { assert } from '../lib/base/assert.ts';
import { settleHeap } from './bench-engines.ts';
import { loadBatchesByWriter } from './concurrent-callers.ts';
import { INFLUX_MEASUREMENT, influxBatchBody, influxLinePrefix } from './influx-line-protocol.ts';
import type { InfluxPeer } from './influx-peer.ts';
import { timeAsyncMs } from './stats.ts';
import type { TsbsBatch, TsbsDataset } from './tsbs.ts';

/** The line-protocol body of every batch. */
export function influxBodies(dataset: TsbsDataset): Map<TsbsBatch, Buffer> {
  const prefixes = dataset.hosts.map(influxLinePrefix);
  return new Map(dataset.batches.map((batch) =>
    [batch, Buffer.from(influxBatchBody(batch, prefixes[batch.hostIndex]!), 'utf8')]));
}

/** One timed load of the bodies into a new database `database`; returns milliseconds. */
export async function influxTimedLoad(
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
