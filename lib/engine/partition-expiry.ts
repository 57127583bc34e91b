// Expiry release (§4.9) in the background: a sweep drops every data partition of an expiring
// table whose whole interval is past the cutoff (now − expiration_time). Rows past the cutoff are
// invisible at once (sql-partitioned-table.ts); the sweep is what returns their space: a data
// partition is a container, so dropping it is one DROP_CONTAINER record and never rewrites other
// data. After a sweep that dropped any, two checkpoints retire and then free the dropped blocks'
// slots, and every free slot is punched (PUNCH_HOLE), so the data files' allocated bytes fall.
//
// A crash between drops leaves the rest for the next sweep (one at the start, then every
// expirySweepIntervalMs): each drop is durable on its own.

import type { ContainerSchema } from '../schema/container-schema.ts';
import { dataPartitionsDrop, expiryCutoff, intervalExpired } from './table-partitions.ts';
import type { Store } from './store.ts';

export interface ExpirySweepReport {
  /** Data partitions dropped. */
  droppedCount: number;
  /** Free data-file slots punched afterwards (0 when nothing was dropped). */
  releasedSlotCount: number;
}

export async function expirySweep(store: Store): Promise<ExpirySweepReport> {
  const nowMs = store.clock.nowMs();
  let droppedCount = 0;
  for (const table of expiringTables(store)) {
    const cutoff = expiryCutoff(table, nowMs)!;
    const partitioning = table.partitioning!;
    droppedCount += await dataPartitionsDrop(store, table, (part) =>
      part.key.interval !== undefined && intervalExpired(partitioning, part.key.interval, cutoff));
  }
  if (droppedCount === 0) return { droppedCount, releasedSlotCount: 0 };
  // The first checkpoint drops the blocks from the block map (their slots retire), the second
  // no longer references them (their slots are free).
  await store.checkpoint();
  await store.checkpoint();
  return { droppedCount, releasedSlotCount: store.releaseFreeSlots() };
}

function expiringTables(store: Store): ContainerSchema[] {
  const tables: ContainerSchema[] = [];
  for (const name of store.listContainers()) {
    const schema = store.partitionFor(name).catalog.lookup(name)?.schema;
    if (schema?.partitioning?.expiration !== undefined) tables.push(schema);
  }
  return tables;
}
