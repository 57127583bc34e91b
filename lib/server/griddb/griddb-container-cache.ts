// One GridDB connection's container look-ups of its row statements (PUT_ROW, PUT_MULTIPLE_ROWS,
// GET_ROW, DELETE_ROW): the container a (partition, container id, schema version) named, with its
// schema, so a statement after the first skips the CONTAINER_INFO request to the engine (about a
// fifth of a single-row put's node time, docs/benchmarks.md).
//
// An entry may go stale (the container dropped and created again, or its schema changed, through
// any connection) and is never written through: every row request carries the entry's schema ref
// (container id and schema version), which the engine checks with the write, atomically
// (container-lookup.ts containerWithSchema), refusing a stale one before anything is applied. The
// row statement then drops the entry and answers what a fresh look-up finds (griddb-row-
// statements.ts), never running the write again, so a statement id keeps its one outcome.
// The cache is cleared at every LOGIN (a LOGIN may name another database).

import type { ContainerInfo } from '../../protocol/wire-schema.ts';
import type { ContainerSchema } from '../../schema/container-schema.ts';

/** Entries one connection keeps; past it the oldest goes (a client writes a few containers). */
export const GRIDDB_CONTAINER_CACHE_ENTRIES_MAX = 256;

export interface GriddbContainerFound {
  info: ContainerInfo;
  schema: ContainerSchema;
  ref: { partitionId: number; name: string; containerId: number; schemaVersion: number };
}

export class GriddbContainerCache {
  private readonly entries = new Map<string, GriddbContainerFound>();

  get(partitionId: number, containerId: number, schemaVersion: number):
    GriddbContainerFound | undefined {
    const found = this.entries.get(keyOf(partitionId, containerId));
    return found?.ref.schemaVersion === schemaVersion ? found : undefined;
  }

  set(partitionId: number, containerId: number, found: GriddbContainerFound): void {
    const key = keyOf(partitionId, containerId);
    this.entries.delete(key);
    if (this.entries.size >= GRIDDB_CONTAINER_CACHE_ENTRIES_MAX) {
      const [oldest] = this.entries.keys();
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, found);
  }

  delete(partitionId: number, containerId: number): void {
    this.entries.delete(keyOf(partitionId, containerId));
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Container ids are a partition's. */
function keyOf(partitionId: number, containerId: number): string {
  return `${partitionId}/${containerId}`;
}
