// The secondary index structures of one container, kept equal to its committed rows.
//
// Design. An index *definition* is durable (an xlog record, then the catalog snapshot); its
// *structure* is derived: an in-memory ordered set of (indexed values…, row position) entries
// (index-tree.ts), built from the rows when the index is created, and after a restart lazily, by the
// first query that wants it. Being derived, it can never disagree with the rows after a crash:
// recovery restores the rows and nothing else. Writes keep a built structure exact: every applied
// commit (partition-apply.ts) removes the entries of the rows it replaces or removes and adds the
// entries of the rows it puts, before the rows themselves change; a dropped container or index
// frees its structure. Uncommitted rows live in their session's write set and never reach an
// index, so other sessions cannot see them through one; the writing session's own queries merge
// its write set in (index-source.ts).
//
// Memory. Every entry's bytes are reserved from the partition group's IndexMemory before it is
// added. When a build or a commit would pass the budget, that index's structure is dropped (its
// bytes released) and queries scan instead, with the same results; it is built again only after
// some other index memory has been released. A SPATIAL index is an R-tree of bounding boxes
// (index-spatial.ts), derived, kept and bounded the same way.

import { assert } from '../base/assert.ts';
import type { RowStore } from '../block/row-store.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { ContainerSchema, IndexSchema } from '../schema/container-schema.ts';
import { rowKeyOps, type RowKeyOps } from '../schema/row-key.ts';
import type { IndexMemory } from './index-memory.ts';
import { SpatialIndex } from './index-spatial.ts';
import { IndexTree } from './index-tree.ts';

/** Rows read per step while an index is built. */
const INDEX_BUILD_PAGE_ROW_COUNT = 4096;

interface IndexState {
  readonly definition: IndexSchema;
  tree: IndexTree | SpatialIndex | undefined;
  /** memory.releaseCount when a build or a write ran out of budget; undefined: never refused. */
  refusedAtReleaseCount: number | undefined;
}

export class ContainerIndexes {
  /** TREE indexes by their columns ("1,3"), SPATIAL ones by theirs after "S" ("S2"). */
  private readonly states = new Map<string, IndexState>();
  private schema: ContainerSchema;
  private positions: RowKeyOps;
  /** Structures built now (the write path does nothing while there are none). */
  private builtCount = 0;
  /** Builds from the rows, for tests and the status report. */
  buildCount = 0;

  constructor(private readonly memory: IndexMemory, schema: ContainerSchema) {
    this.schema = schema;
    this.positions = rowKeyOps(schema);
    this.sync(schema);
  }

  /** Follows a new schema: structures of indexes no longer defined go, new ones start unbuilt. */
  sync(schema: ContainerSchema): void {
    this.schema = schema;
    this.positions = rowKeyOps(schema);
    const wanted = new Map<string, IndexSchema>();
    for (const index of schema.indexes) {
      wanted.set(shapeOf(index.columnIndexes, index.type), index);
    }
    for (const [shape, state] of this.states) {
      if (!wanted.has(shape)) {
        this.unbuild(state);
        this.states.delete(shape);
      }
    }
    for (const [shape, definition] of wanted) {
      const state = this.states.get(shape);
      if (state === undefined) {
        this.states.set(shape, { definition, tree: undefined, refusedAtReleaseCount: undefined });
      } else if (state.definition !== definition) {
        this.states.set(shape, { ...state, definition });
      }
    }
  }

  /** True when some structure is built: commits must then be applied to it. */
  get maintained(): boolean {
    return this.builtCount > 0;
  }

  get sizeBytes(): number {
    let sizeBytes = 0;
    for (const state of this.states.values()) sizeBytes += state.tree?.sizeBytes ?? 0;
    return sizeBytes;
  }

  /** Whether the index on these columns has its structure in memory now. */
  isBuilt(columnIndexes: readonly number[], type: IndexSchema['type'] = 'TREE'): boolean {
    return this.states.get(shapeOf(columnIndexes, type))?.tree !== undefined;
  }

  /**
   * The structure of the TREE index on these columns, built from `rows` first when needed;
   * undefined when there is no such index or it does not fit in the index memory.
   */
  treeFor(columnIndexes: readonly number[], rows: RowStore): IndexTree | undefined {
    const tree = this.structureFor(shapeOf(columnIndexes, 'TREE'), rows);
    assert(tree === undefined || tree instanceof IndexTree);
    return tree;
  }

  /** The structure of the SPATIAL index on this column, as treeFor. */
  spatialFor(columnIndex: number, rows: RowStore): SpatialIndex | undefined {
    const spatial = this.structureFor(shapeOf([columnIndex], 'SPATIAL'), rows);
    assert(spatial === undefined || spatial instanceof SpatialIndex);
    return spatial;
  }

  private structureFor(shape: string, rows: RowStore): IndexTree | SpatialIndex | undefined {
    const state = this.states.get(shape);
    if (state === undefined) return undefined;
    if (state.tree !== undefined) return state.tree;
    if (state.refusedAtReleaseCount === this.memory.releaseCount) return undefined;
    return state.definition.type === 'SPATIAL'
      ? this.buildSpatial(state, rows) : this.build(state, rows);
  }

  /** Frees every structure (the container is dropped). */
  release(): void {
    for (const state of this.states.values()) this.unbuild(state);
    this.states.clear();
  }

  // ---- the write path (partition-apply.ts) ---------------------------------------------------

  /** A row put at `position`, replacing `previous` (the committed row there, if any). */
  put(row: Row, position: RowKey, previous: Row | undefined): void {
    for (const state of this.states.values()) {
      const tree = state.tree;
      if (tree === undefined) continue;
      if (tree instanceof SpatialIndex) {
        if (previous !== undefined) this.memory.release(tree.deleteRow(previous, position));
        this.addSpatial(state, tree, row, position);
        continue;
      }
      if (previous !== undefined) this.memory.release(tree.delete(tree.tupleOf(previous, position)));
      this.add(state, tree, row, position);
    }
  }

  /** The committed row at `position` removed. */
  remove(row: Row, position: RowKey): void {
    for (const state of this.states.values()) {
      const tree = state.tree;
      if (tree instanceof SpatialIndex) this.memory.release(tree.deleteRow(row, position));
      else if (tree !== undefined) this.memory.release(tree.delete(tree.tupleOf(row, position)));
    }
  }

  // ---- building ------------------------------------------------------------------------------

  private build(state: IndexState, rows: RowStore): IndexTree | undefined {
    const tree = new IndexTree(state.definition.columnIndexes, this.schema.columns,
      this.positions.compare);
    state.tree = tree;
    this.builtCount++;
    this.buildCount++;
    for (const page of committedPages(rows, this.schema)) {
      for (const { row, position } of page) {
        if (!this.add(state, tree, row, position)) return undefined;
      }
    }
    return tree;
  }

  /** Builds a SPATIAL index with one bulk load, after reserving what all its entries take. */
  private buildSpatial(state: IndexState, rows: RowStore): SpatialIndex | undefined {
    const spatial = new SpatialIndex(state.definition.columnIndexes[0]!, this.positions.compare);
    const entries = [];
    for (const page of committedPages(rows, this.schema)) {
      for (const { row, position } of page) {
        const entry = spatial.entryOf(row, position);
        if (entry !== undefined) entries.push(entry);
      }
    }
    this.buildCount++;
    if (!this.memory.tryReserve(spatial.sizeBytesOf(entries.length))) {
      state.refusedAtReleaseCount = this.memory.releaseCount;
      return undefined;
    }
    spatial.load(entries);
    state.tree = spatial;
    this.builtCount++;
    return spatial;
  }

  private addSpatial(state: IndexState, spatial: SpatialIndex, row: Row, position: RowKey): void {
    const sizeBytes = spatial.insertRow(row, position);
    if (this.memory.tryReserve(sizeBytes)) return;
    spatial.deleteRow(row, position);
    this.unbuild(state);
    state.refusedAtReleaseCount = this.memory.releaseCount;
  }

  /** Adds a row's entry; on running out of budget drops the whole structure and says false. */
  private add(state: IndexState, tree: IndexTree, row: Row, position: RowKey): boolean {
    const tuple = tree.tupleOf(row, position);
    const sizeBytes = tree.insert(tuple);
    if (this.memory.tryReserve(sizeBytes)) return true;
    tree.delete(tuple);
    this.unbuild(state);
    state.refusedAtReleaseCount = this.memory.releaseCount;
    return false;
  }

  private unbuild(state: IndexState): void {
    const tree = state.tree;
    if (tree === undefined) return;
    state.tree = undefined;
    this.builtCount--;
    assert(this.builtCount >= 0);
    this.memory.release(tree.sizeBytes);
  }
}

function shapeOf(columnIndexes: readonly number[], type: IndexSchema['type']): string {
  const columns = columnIndexes.join(',');
  return type === 'SPATIAL' ? `S${columns}` : columns;
}

/** Every committed row with its position, a bounded page at a time. */
function* committedPages(
  rows: RowStore,
  schema: ContainerSchema,
): Generator<Array<{ row: Row; position: RowKey }>, undefined, undefined> {
  if (schema.rowKeyColumnCount === 0) {
    for (const batch of rows.scanBatches({ direction: 'asc', columnIndexes: [] })) {
      const rowIds = batch.rowIds!;
      if (batch.rowCount === 0) continue;
      const from = rowIds[0]!;
      const to = rowIds[batch.rowCount - 1]!;
      const blockRows = rows.scan({ from, to, direction: 'asc' });
      assert(blockRows.length === batch.rowCount);
      yield blockRows.map((row, i) => ({ row, position: rowIds[i]! }));
    }
    return;
  }
  const keys = rowKeyOps(schema);
  let from: RowKey | undefined;
  for (;;) {
    const limit = INDEX_BUILD_PAGE_ROW_COUNT + (from === undefined ? 0 : 1);
    let page = rows.scan({ from, direction: 'asc', limit });
    const exhausted = page.length < limit;
    if (from !== undefined) page = page.slice(1);
    if (page.length > 0) {
      yield page.map((row) => ({ row, position: keys.keyOf(row) }));
      from = keys.keyOf(page[page.length - 1]!);
    }
    if (exhausted) return;
  }
}
