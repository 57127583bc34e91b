// The catalog of one partition: its containers by lower-cased name and by id, each with its rows and
// the per-schema helpers (validators, key operations) built once when the schema is set.
//
// The catalog changes only when a DDL record is applied (at commit or at replay), so it always equals
// the result of the xlog's DDL records in LSN order. Container ids are reserved at append time, before
// the record is applied, so two creates in flight never get the same id.

import { assert } from '../base/assert.ts';
import type { ContainerId, PartitionId } from '../base/ids.ts';
import type { BlockSizeLimits } from '../base/limits.ts';
import { BlockSpace } from '../block/block-space.ts';
import type { BufferPool } from '../block/buffer-pool.ts';
import type { Clock } from '../io/clock.ts';
import { RowStore } from '../block/row-store.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import { normalizeName } from '../schema/names.ts';
import { rowKeyOps, type RowKeyOps } from '../schema/row-key.ts';
import { keyValidator, rowValidator } from '../schema/row-validate.ts';
import { ContainerIndexes } from './container-indexes.ts';
import { IndexMemory } from './index-memory.ts';

export interface ContainerEntry {
  readonly id: ContainerId;
  schema: ContainerSchema;
  readonly rows: RowStore;
  /** Its secondary index structures, equal to the committed rows (container-indexes.ts). */
  readonly indexes: ContainerIndexes;
  keys: RowKeyOps | undefined;
  validateRow: (row: unknown) => Row;
  validateKey: (key: unknown) => RowKey;
}

export interface ContainerInfo {
  name: string;
  type: ContainerSchema['type'];
  columns: ContainerSchema['columns'];
  rowKeyColumnCount: number;
  dataAffinity: string | undefined;
  indexes: ContainerSchema['indexes'];
  schemaVersion: number;
  partitionId: PartitionId;
  containerId: ContainerId;
  rowCount: number;
  blockCount: number;
}

export class Catalog {
  private readonly byName = new Map<string, ContainerEntry>();
  private readonly byId = new Map<ContainerId, ContainerEntry>();
  private nextId = 1;
  readonly space: BlockSpace;
  /** The partition group's budget for index structures (unbounded when none is given). */
  readonly indexMemory: IndexMemory;

  constructor(
    readonly partitionId: PartitionId,
    private readonly limits: BlockSizeLimits,
    memory: { pool?: BufferPool; clock?: Clock; indexMemory?: IndexMemory } = {},
  ) {
    const { indexMemory, ...blockMemory } = memory;
    this.space = new BlockSpace({ blockSizeBytes: limits.blockSizeBytes, ...blockMemory });
    this.indexMemory = indexMemory ?? new IndexMemory(Number.MAX_SAFE_INTEGER);
  }

  get size(): number {
    return this.byId.size;
  }

  lookup(name: string): ContainerEntry | undefined {
    return this.byName.get(normalizeName(name));
  }

  get(id: ContainerId): ContainerEntry | undefined {
    return this.byId.get(id);
  }

  /** Reserves the id of a container about to be created. */
  reserveId(): ContainerId {
    return this.nextId++ as ContainerId;
  }

  add(id: ContainerId, schema: ContainerSchema): void {
    const nameKey = normalizeName(schema.name);
    assert(!this.byName.has(nameKey), `container ${schema.name} exists`);
    assert(!this.byId.has(id));
    const rows = new RowStore({
      containerId: id, schema, blockSizeBytes: this.limits.blockSizeBytes, space: this.space,
    });
    const entry: ContainerEntry = {
      id, schema, rows, indexes: new ContainerIndexes(this.indexMemory, schema), keys: undefined,
      validateRow: () => [], validateKey: () => 0,
    };
    this.setHelpers(entry, schema);
    this.byName.set(nameKey, entry);
    this.byId.set(id, entry);
    // Replay sees ids in creation order; keep reserving above every id ever used.
    this.nextId = Math.max(this.nextId, id + 1);
  }

  remove(id: ContainerId): void {
    const entry = this.byId.get(id);
    assert(entry !== undefined);
    entry.rows.drop();
    entry.indexes.release();
    this.byId.delete(id);
    this.byName.delete(normalizeName(entry.schema.name));
  }

  /**
   * Applies a schema change: a column added at the end, a column renamed, or (same columns) a
   * partitioned table's partitioning, which holds no rows.
   */
  alter(id: ContainerId, schema: ContainerSchema): void {
    const entry = this.byId.get(id);
    assert(entry !== undefined);
    assert(schema.schemaVersion === entry.schema.schemaVersion + 1);
    if (schema.columns.length > entry.schema.columns.length) entry.rows.addColumn(schema);
    else entry.rows.renameColumn(schema);
    this.setHelpers(entry, schema);
  }

  /**
   * Replaces the index definitions (createIndex, dropIndex). Not a schema change of the rows: the
   * version stays, so rows encoded with the schema before are still good.
   */
  setIndexes(id: ContainerId, indexes: ContainerSchema['indexes']): void {
    const entry = this.byId.get(id);
    assert(entry !== undefined);
    this.setHelpers(entry, { ...entry.schema, indexes });
  }

  /** Containers and the next id, as a checkpoint's catalog snapshot records them. */
  snapshot(): { nextContainerId: number; containers: Array<{ id: ContainerId; schema: ContainerSchema }> } {
    return {
      nextContainerId: this.nextId,
      containers: [...this.byId.values()].map((entry) => ({ id: entry.id, schema: entry.schema })),
    };
  }

  /** Recreates the containers of a checkpoint's catalog (empty; their rows come from blocks). */
  restore(snapshot: { nextContainerId: number; containers: Array<{ id: ContainerId; schema: ContainerSchema }> }) {
    assert(this.byId.size === 0);
    for (const { id, schema } of snapshot.containers) this.add(id, schema);
    this.nextId = Math.max(this.nextId, snapshot.nextContainerId);
  }

  /** The containers' names; views left out (they are no containers to the NoSQL interfaces). */
  names(): string[] {
    return [...this.byId.values()].flatMap((entry) => (entry.schema.view === undefined ? [entry.schema.name] : []));
  }

  /** The views' schemas (ContainerSchema.view). */
  views(): ContainerSchema[] {
    return [...this.byId.values()].flatMap((entry) => (entry.schema.view === undefined ? [] : [entry.schema]));
  }

  info(entry: ContainerEntry): ContainerInfo {
    const { schema } = entry;
    return {
      name: schema.name,
      type: schema.type,
      columns: schema.columns.map((column) => ({ ...column })),
      rowKeyColumnCount: schema.rowKeyColumnCount,
      dataAffinity: schema.dataAffinity,
      indexes: schema.indexes.map((index) => ({ ...index, columnIndexes: [...index.columnIndexes] })),
      schemaVersion: schema.schemaVersion,
      partitionId: this.partitionId,
      containerId: entry.id,
      rowCount: entry.rows.count(),
      blockCount: entry.rows.blockCount,
    };
  }

  private setHelpers(entry: ContainerEntry, schema: ContainerSchema): void {
    entry.schema = schema;
    entry.keys = schema.rowKeyColumnCount > 0 ? rowKeyOps(schema) : undefined;
    entry.validateRow = rowValidator(schema, this.limits);
    entry.validateKey = keyValidator(schema);
    entry.indexes.sync(schema);
  }
}
