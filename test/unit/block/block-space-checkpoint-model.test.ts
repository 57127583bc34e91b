// Checkpoints of a BlockSpace against a model. Five containers share one 32 KB space: a `#unique`
// time series, keyed collections whose payloads range from nothing to large values, one in an
// affinity group of its own, a keyless collection, and a tiny time series, so row blocks split,
// merge, move between shared pages and blocks of their own, and large values come and go.
//
// Random puts, removes, appends, schema changes and clears interleave with checkpoints that play
// the checkpoint's part: take the set (the snapshot), encode its blocks a few at a time while more
// changes arrive, then write them into a Map<BlockId, image> that plays the data file and delete
// the freed ids. After each checkpoint a fresh set of stores is restored from the map alone and
// must equal the model as of the snapshot, with the same block ids and kinds. A restart op goes on
// with the restored stores, so allocation after a restore is exercised too.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { containerId, type BlockId, type ContainerId } from '../../../lib/base/ids.ts';
import { BlockSpace, type BlockKind, type CheckpointSet } from '../../../lib/block/block-space.ts';
import { restorePartition } from '../../../lib/block/block-space-restore.ts';
import { RowStore } from '../../../lib/block/row-store.ts';
import type { Row, RowKey, Value } from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { rowKeyOps } from '../../../lib/schema/row-key.ts';

const BLOCK_SIZE_BYTES = 32 * 1024;
const KEY_INDEX_MAX = 300;
const ts = (name: string): ColumnSchema =>
  ({ name, type: 'TIMESTAMP', array: false, notNull: true });
const col = (name: string, type: ColumnSchema['type'], notNull = false): ColumnSchema =>
  ({ name, type, array: false, notNull });
const schema = (
  name: string, shape: Pick<ContainerSchema, 'type' | 'rowKeyColumnCount' | 'columns'>,
  dataAffinity?: string,
): ContainerSchema => ({
  name, indexes: [], schemaVersion: 1, ...shape, ...(dataAffinity ? { dataAffinity } : {}),
});
const SCHEMAS: readonly ContainerSchema[] = [
  schema('unique', { type: 'TIME_SERIES', rowKeyColumnCount: 1,
    columns: [ts('t'), col('v', 'DOUBLE'), col('s', 'STRING')] }, '#unique'),
  schema('blobs', { type: 'COLLECTION', rowKeyColumnCount: 1,
    columns: [col('k', 'INTEGER', true), col('p', 'BLOB')] }),
  schema('keyless', { type: 'COLLECTION', rowKeyColumnCount: 0,
    columns: [col('v', 'LONG', true), col('p', 'STRING')] }),
  schema('grouped', { type: 'COLLECTION', rowKeyColumnCount: 1,
    columns: [col('k', 'STRING', true), col('p', 'BLOB')] }, 'g1'),
  schema('tiny', { type: 'TIME_SERIES', rowKeyColumnCount: 1,
    columns: [ts('t'), col('v', 'DOUBLE')] }),
];
const KEYLESS = 2;
const KEYED = [0, 1, 3, 4];

type Op =
  | { kind: 'put'; c: number; keys: number[]; seed: number; payloadBytes: number }
  | { kind: 'append'; count: number; seed: number; payloadBytes: number }
  | { kind: 'remove'; c: number; keys: number[] }
  | { kind: 'removeRange'; c: number; from: number; count: number }
  | { kind: 'addColumn'; c: number; seed: number }
  | { kind: 'rename'; c: number }
  | { kind: 'clear'; c: number }
  | { kind: 'take'; relog: boolean; encodeCount: number }
  | { kind: 'encode'; count: number }
  | { kind: 'finish'; abandon: boolean }
  | { kind: 'restart' };

const record = <T>(shape: { [K in keyof T]: fc.Arbitrary<T[K]> }) =>
  fc.record(shape, { noNullPrototype: true }) as fc.Arbitrary<T>;
const is = <K extends Op['kind']>(name: K) => fc.constant(name);
const keyed = fc.constantFrom(...KEYED);
const payloadBytes = fc.oneof(
  fc.constant(0), fc.nat(300), fc.integer({ min: 1000, max: 5000 }),
  fc.integer({ min: BLOCK_SIZE_BYTES / 4 + 1, max: 40_000 }),
);
const keys = fc.array(fc.nat(KEY_INDEX_MAX), { minLength: 1, maxLength: 40 });
const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: record({
    kind: is('put'), c: keyed, keys, seed: fc.nat(), payloadBytes }) },
  { weight: 3, arbitrary: record({
    kind: is('append'), count: fc.integer({ min: 1, max: 60 }), seed: fc.nat(), payloadBytes }) },
  { weight: 3, arbitrary: record({ kind: is('remove'), c: keyed, keys }) },
  { weight: 2, arbitrary: record({
    kind: is('removeRange'), c: keyed, from: fc.nat(KEY_INDEX_MAX), count: fc.nat(120) }) },
  { weight: 1, arbitrary: record({
    kind: is('addColumn'), c: fc.nat(SCHEMAS.length - 1), seed: fc.nat() }) },
  { weight: 1, arbitrary: record({ kind: is('rename'), c: fc.nat(SCHEMAS.length - 1) }) },
  { weight: 1, arbitrary: record({ kind: is('clear'), c: keyed }) },
  { weight: 3, arbitrary: record({
    kind: is('take'), relog: fc.boolean(), encodeCount: fc.nat(4) }) },
  { weight: 3, arbitrary: record({ kind: is('encode'), count: fc.nat(6) }) },
  { weight: 2, arbitrary: record({ kind: is('finish'), abandon: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

/** One container's committed rows by key string, and its schema. */
interface ModelContainer {
  schema: ContainerSchema;
  rows: Map<string, { key: RowKey; row: Row }>;
  nextRowId: number;
}

interface Snapshot {
  containers: ModelContainer[];
  liveIds: BlockId[];
  kinds: Map<BlockId, BlockKind>;
  blockIds: BlockId[][];
}

interface InFlight {
  set: CheckpointSet;
  snapshot: Snapshot;
  toEncode: BlockId[];
  images: Map<BlockId, Uint8Array>;
}

const stats = { copies: 0, restores: 0, freed: 0, sharedPages: 0, largeValues: 0, restarts: 0 };

class Run {
  space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
  stores: RowStore[];
  model: ModelContainer[] = SCHEMAS.map((s) => ({ schema: s, rows: new Map(), nextRowId: 0 }));
  dataFile = new Map<BlockId, Uint8Array>();
  inFlight: InFlight | undefined;

  constructor() {
    this.stores = openStores(this.space, this.model);
  }

  apply(op: Op): void {
    switch (op.kind) {
      case 'put': return this.put(op.c, op.keys.map((k) => this.rowOf(op.c, k, op)));
      case 'append': {
        const rows = Array.from({ length: op.count }, (_, i) => this.rowOf(KEYLESS, 0,
          { seed: op.seed + i, payloadBytes: i % 4 === 0 ? op.payloadBytes : 0 }));
        return this.put(KEYLESS, rows);
      }
      case 'removeRange':
        return this.apply({ kind: 'remove', c: op.c,
          keys: Array.from({ length: op.count }, (_, i) => op.from + i) });
      case 'remove': {
        const model = this.model[op.c]!;
        const ops = rowKeyOps(model.schema);
        const removeKeys = op.keys.map((k) =>
          ops.keyOf(this.rowOf(op.c, k, { seed: 0, payloadBytes: 0 })));
        let expected = 0;
        for (const key of removeKeys) if (model.rows.delete(ops.keyString(key))) expected++;
        assert.equal(this.stores[op.c]!.remove(removeKeys), expected);
        return;
      }
      case 'addColumn': {
        const model = this.model[op.c]!;
        const type = (['INTEGER', 'STRING', 'DOUBLE'] as const)[op.seed % 3]!;
        const next = { ...model.schema, schemaVersion: model.schema.schemaVersion + 1,
          columns: [...model.schema.columns, col(`n${model.schema.schemaVersion}`, type)] };
        this.stores[op.c]!.addColumn(next);
        model.schema = next;
        for (const entry of model.rows.values()) entry.row = [...entry.row, null];
        return;
      }
      case 'rename': {
        const model = this.model[op.c]!;
        const columns = model.schema.columns.map((column, i, all) =>
          (i === all.length - 1 ? { ...column, name: `r${model.schema.schemaVersion}` } : column));
        const next = { ...model.schema, columns, schemaVersion: model.schema.schemaVersion + 1 };
        this.stores[op.c]!.renameColumn(next);
        model.schema = next;
        return;
      }
      case 'clear':
        this.stores[op.c]!.clear();
        this.model[op.c]!.rows.clear();
        return;
      case 'take': return this.take(op);
      case 'encode': return this.encode(op.count);
      case 'finish':
        if (op.abandon) this.abandon();
        else this.finish();
        return;
      case 'restart': return this.restart();
    }
  }

  rowOf(c: number, keyIndex: number, of: { seed: number; payloadBytes: number }): Row {
    const { schema: s } = this.model[c]!;
    const { seed, payloadBytes: bytes } = of;
    const blob = bytes === 0 ? null : new Uint8Array(bytes).fill(seed & 255);
    const base: Value[] = [
      [keyIndex * 1000, seed / 7, bytes === 0 ? null : 's'.repeat(bytes % 200)],
      [keyIndex - 100, blob],
      [BigInt(seed), bytes === 0 ? null : 'é'.repeat(bytes >> 1)],
      [`key-${String(keyIndex).padStart(5, '0')}`, blob],
      [keyIndex, seed / 3],
    ][c]!;
    const added = s.columns.slice(base.length).map((column): Value =>
      (seed % 2 === 0 ? null : column.type === 'STRING' ? `x${seed}` : seed % 1000));
    return [...base, ...added];
  }

  put(c: number, rows: Row[]): void {
    const model = this.model[c]!;
    const ops = rowKeyOps(model.schema);
    this.stores[c]!.put(rows);
    for (const row of rows) {
      const key = model.schema.rowKeyColumnCount === 0 ? model.nextRowId++ : ops.keyOf(row);
      model.rows.set(ops.keyString(key), { key, row });
    }
  }

  take(op: Extract<Op, { kind: 'take' }>): void {
    if (this.inFlight !== undefined) return this.encode(op.encodeCount);
    const liveIds = this.space.liveBlockIds();
    const relogIds = op.relog ? liveIds.filter((_, i) => i % 3 === 0) : [];
    const set = this.space.takeCheckpointSet({ relogIds });
    assert.equal(set.dirty.filter((id) => set.freed.includes(id)).length, 0, 'dirty and freed');
    for (const id of set.freed) assert.equal(this.space.isLive(id), false);
    const snapshot: Snapshot = {
      containers: this.model.map((m) => ({
        schema: m.schema, nextRowId: m.nextRowId,
        rows: new Map([...m.rows].map(([k, entry]) => [k, { ...entry }])),
      })),
      liveIds, kinds: new Map(liveIds.map((id) => [id, this.space.blockKind(id)])),
      blockIds: this.stores.map((store) => store.blockIds().sort((a, b) => a - b)),
    };
    this.inFlight = {
      set, snapshot, toEncode: [...set.dirty, ...set.relogged], images: new Map(),
    };
    stats.freed += set.freed.length;
    this.encode(op.encodeCount);
  }

  encode(count: number): void {
    const inFlight = this.inFlight;
    if (inFlight === undefined) return;
    for (let i = 0; i < count && inFlight.toEncode.length > 0; i++) {
      const id = inFlight.toEncode.shift()!;
      const image = this.space.encodeBlock(id);
      assert.equal(image.byteLength, BLOCK_SIZE_BYTES);
      inFlight.images.set(id, image);
    }
  }

  abandon(): void {
    if (this.inFlight === undefined) return;
    this.space.abandonCheckpointSet();
    this.inFlight = undefined;
  }

  /** Finishes the set in flight and checks a restore from the data file against its snapshot. */
  finish(): ReturnType<typeof restoreFrom> | undefined {
    const inFlight = this.inFlight;
    if (inFlight === undefined) return undefined;
    this.encode(Number.POSITIVE_INFINITY);
    for (const [id, image] of inFlight.images) this.dataFile.set(id, image);
    for (const id of inFlight.set.freed) this.dataFile.delete(id);
    this.space.finishCheckpointSet();
    this.inFlight = undefined;
    const { snapshot } = inFlight;
    assert.deepStrictEqual([...this.dataFile.keys()].sort((a, b) => a - b), snapshot.liveIds);
    const restored = restoreFrom(this.dataFile, snapshot.containers);
    assert.deepStrictEqual(restored.space.liveBlockIds(), snapshot.liveIds);
    for (const id of snapshot.liveIds) {
      assert.equal(restored.space.blockKind(id), snapshot.kinds.get(id), `kind of block ${id}`);
      if (restored.space.isShared(id)) stats.sharedPages++;
    }
    restored.stores.forEach((store, c) => {
      const model = snapshot.containers[c]!;
      const ops = rowKeyOps(model.schema);
      const rows = [...model.rows.values()].sort((a, b) => ops.compare(a.key, b.key));
      assert.deepStrictEqual(store.scan({ direction: 'asc' }), rows.map(({ row }) => row));
      assert.deepStrictEqual(store.blockIds().sort((a, b) => a - b), snapshot.blockIds[c]);
      if (c === KEYLESS) assert.equal(store.nextRowId, model.nextRowId);
      stats.largeValues += store.largeValueCount;
    });
    stats.restores++;
    return restored;
  }

  /** A checkpoint with nothing in between, then go on with the stores restored from it. */
  restart(): void {
    this.finish();
    this.take({ kind: 'take', relog: false, encodeCount: 0 });
    const restored = this.finish()!;
    assert.equal(restored.space.dirtyBlockCount, 0);
    stats.copies += this.space.copyOnWriteCount;
    this.space = restored.space;
    this.stores = restored.stores;
    stats.restarts++;
  }
}

function openStores(space: BlockSpace, containers: readonly ModelContainer[]): RowStore[] {
  return containers.map((model, c) => new RowStore({
    containerId: containerId(c + 1), schema: model.schema, blockSizeBytes: BLOCK_SIZE_BYTES, space,
  }));
}

function restoreFrom(dataFile: ReadonlyMap<BlockId, Uint8Array>, containers: ModelContainer[]) {
  const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
  const stores = openStores(space, containers);
  const result = restorePartition(space, {
    images: new Map(dataFile), rowStoreOf: (id: ContainerId) => stores[id - 1],
  });
  assert.deepStrictEqual(result.orphanBlockIds, []);
  space.checkInvariants();
  return { space, stores };
}

describe('block-space checkpoint model', () => {
  it('restores each checkpoint as of its snapshot, with changes between take and encode', () => {
    const ops = fc.array(opArbitrary, { minLength: 10, maxLength: 70, size: 'max' });
    fc.assert(fc.property(ops, (list) => {
      const run = new Run();
      for (const op of list) {
        run.apply(op);
        run.space.checkInvariants();
      }
      run.restart();
    }), { numRuns: 250 });
    assert.ok(stats.copies >= 20, `copies on write: ${stats.copies}`);
    assert.ok(stats.freed >= 20, `freed blocks: ${stats.freed}`);
    assert.ok(stats.sharedPages >= 50, `shared pages: ${stats.sharedPages}`);
    assert.ok(stats.largeValues >= 20, `large values: ${stats.largeValues}`);
    assert.ok(stats.restarts >= 250, `restarts: ${stats.restarts}`);
  });
});
