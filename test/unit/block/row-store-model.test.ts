// RowStore against a model (a Map by key string, sorted on demand; keyless: an array by rowId), on
// random schemas (composite, STRING, LONG, TIMESTAMP µs/ns keys, keyless) with a large nullable
// payload column, so 32 KB blocks split, merge and move between shared and private space often,
// and payloads over a quarter block go out of line as large values. Every run ends by writing the
// store's row blocks and large-value chains as images and reading them back into a new store.

import { GEOMETRY_EMPTY_POINT, geometryValueFromWkt, type GeometryValue } from '../../../lib/geometry/geometry-value.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { containerId } from '../../../lib/base/ids.ts';
import {
  decodeLargeValue, decodeRowBlock, encodeLargeValueBlocks, encodeRowBlock,
} from '../../../lib/block/block-format.ts';
import { BlockSpace } from '../../../lib/block/block-space.ts';
import { blockLargeValues } from '../../../lib/block/large-value-store.ts';
import type { ColumnVector } from '../../../lib/block/row-block-column.ts';
import { RowStore } from '../../../lib/block/row-store.ts';
import {
  ARRAY_ELEMENT_TYPES, COLUMN_TYPES, INT64_MAX, INT64_MIN, TIMESTAMP_MS_MAX, TIMESTAMP_NS_MAX,
  type ColumnType, type KeyValue, type Row, type RowKey, type Value,
} from '../../../lib/schema/column-type.ts';
import type { ColumnSchema, ContainerSchema } from '../../../lib/schema/container-schema.ts';
import { rowKeyOps, type RowKeyOps } from '../../../lib/schema/row-key.ts';
import { keyValueOf, schemaArbitrary } from './block-test-schemas.ts';

const POINT_1_2 = geometryValueFromWkt('POINT(1 2)') as GeometryValue;

const BLOCK_SIZE_BYTES = 32 * 1024;
const PRECISIONS = ['MILLISECOND', 'MICROSECOND', 'NANOSECOND'] as const;
const KEY_INDEX_MAX = 40;

type KeyIndexes = number[];
type Bounds = { from?: KeyIndexes; to?: KeyIndexes };
type Op =
  | { kind: 'put'; rows: Array<{ key: KeyIndexes; seed: number; payloadBytes: number }> }
  | { kind: 'append'; count: number; seed: number; payloadBytes: number }
  | { kind: 'remove'; keys: KeyIndexes[] }
  | { kind: 'get'; key: KeyIndexes }
  | ({ kind: 'scan'; direction: 'asc' | 'desc'; limit?: number; batches: boolean } & Bounds)
  | ({ kind: 'count' } & Bounds)
  | { kind: 'addColumn'; type: ColumnType; array: boolean; notNull: boolean; seed: number }
  | { kind: 'rename'; seed: number }
  | { kind: 'clear' };

const record = <T>(shape: { [K in keyof T]: fc.Arbitrary<T[K]> }) =>
  fc.record(shape, { noNullPrototype: true }) as fc.Arbitrary<T>;
/** Key indexes of a stored row; bounds may also lie below every key (-1). */
const keyIndexes = fc.tuple(fc.nat(KEY_INDEX_MAX), fc.nat(3), fc.nat(3)).map((key) => [...key]);
const boundIndexes = fc.tuple(fc.integer({ min: -1, max: KEY_INDEX_MAX + 1 }), fc.nat(3), fc.nat(3))
  .map((key) => [...key]);
/** Over LARGE_PAYLOAD_BYTES_MIN a payload is out of line (a quarter of the block size). */
const LARGE_PAYLOAD_BYTES_MIN = BLOCK_SIZE_BYTES / 4 + 1;
const payloadBytes = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 3, arbitrary: fc.nat(400) },
  { weight: 3, arbitrary: fc.integer({ min: 1000, max: 4000 }) },
  { weight: 1, arbitrary: fc.integer({ min: LARGE_PAYLOAD_BYTES_MIN, max: 80_000 }) },
);
const bound = fc.option(boundIndexes, { nil: undefined });

const kind = <K extends Op['kind']>(name: K) => fc.constant(name);
const putOp = record({
  kind: kind('put'),
  rows: fc.array(record({ key: keyIndexes, seed: fc.nat(), payloadBytes }), { maxLength: 12 }),
});
const appendOp = record({
  kind: kind('append'), count: fc.integer({ min: 1, max: 30 }), seed: fc.nat(), payloadBytes,
});
const removeOp = record({ kind: kind('remove'), keys: fc.array(keyIndexes, { maxLength: 10 }) });
const scanOp = record({
  kind: kind('scan'), from: bound, to: bound,
  direction: fc.constantFrom('asc' as const, 'desc' as const),
  limit: fc.option(fc.nat(25), { nil: undefined }), batches: fc.boolean(),
});
const addColumnOp = record({
  kind: kind('addColumn'), type: fc.constantFrom(...COLUMN_TYPES), array: fc.boolean(),
  notNull: fc.boolean(), seed: fc.nat(),
});

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: putOp },
  { weight: 3, arbitrary: appendOp },
  { weight: 3, arbitrary: removeOp },
  { weight: 2, arbitrary: record({ kind: kind('get'), key: keyIndexes }) },
  { weight: 3, arbitrary: scanOp },
  { weight: 1, arbitrary: record({ kind: kind('count'), from: bound, to: bound }) },
  { weight: 1, arbitrary: addColumnOp },
  { weight: 1, arbitrary: record({ kind: kind('rename'), seed: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

/** mulberry32: values of a row from its seed, so ops need not know the schema in advance. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function element(column: ColumnSchema, random: () => number): unknown {
  const pick = <T>(...choices: T[]): T => choices[Math.floor(random() * choices.length)]!;
  const int = (max: number) => Math.floor(random() * max);
  switch (column.type) {
    case 'BOOL': return random() < 0.5;
    case 'STRING': return pick('', 'a', 'grüße', '東京🚀', 'x'.repeat(int(20)));
    case 'BYTE': return int(256) - 128;
    case 'SHORT': return int(65536) - 32768;
    case 'INTEGER': return pick(-(2 ** 31), 2 ** 31 - 1, int(2 ** 31) - 2 ** 30);
    case 'LONG': return pick(INT64_MIN, INT64_MAX, 0n, BigInt(int(2 ** 40)) - 2n ** 39n);
    case 'FLOAT': return pick(Math.fround(random() * 1000 - 500), Number.NaN, -0);
    case 'DOUBLE': return pick(random() * 1e6, Number.NaN, -0, Number.NEGATIVE_INFINITY);
    case 'TIMESTAMP':
      if (column.timePrecision === 'NANOSECOND') {
        return pick(0n, TIMESTAMP_NS_MAX, BigInt(int(2 ** 50)) * 1000n);
      }
      if (column.timePrecision === 'MICROSECOND') return BigInt(int(2 ** 50));
      return pick(0, TIMESTAMP_MS_MAX, int(2 ** 40));
    case 'GEOMETRY': return pick(POINT_1_2, GEOMETRY_EMPTY_POINT);
    case 'BLOB': return Uint8Array.from({ length: int(8) }, () => int(256));
  }
}

function valueOf(column: ColumnSchema, random: () => number, payload: number): Value {
  if (column.name === 'payload') {
    if (payload === 0 && !column.notNull) return null;
    if (column.type === 'BLOB') return new Uint8Array(payload).fill(payload & 255);
    return 'é'.repeat(payload >> 1);
  }
  if (!column.notNull && random() < 0.2) return null;
  if (!column.array) return element(column, random) as Value;
  return Array.from({ length: Math.floor(random() * 3) }, () => element(column, random)) as Value;
}

function keyOf(schema: ContainerSchema, indexes: KeyIndexes): KeyValue[] {
  const keyColumns = schema.columns.slice(0, schema.rowKeyColumnCount);
  return keyColumns.map((column, i) => keyValueOf(column, indexes[i]!));
}

function rowOf(schema: ContainerSchema, key: KeyValue[], seed: number, payload: number): Row {
  const random = prng(seed);
  const values = schema.columns.slice(key.length).map((column) => valueOf(column, random, payload));
  return [...key, ...values];
}

/** The model: rows by key string; keyless rows carry their rowId. */
class Model {
  rows = new Map<string, { key: RowKey; row: Row }>();
  nextRowId = 0;
  constructor(public schema: ContainerSchema, public keys: RowKeyOps) {}

  sorted(): Array<{ key: RowKey; row: Row }> {
    return [...this.rows.values()].sort((a, b) => this.keys.compare(a.key, b.key));
  }

  inRange({ from, to }: { from?: RowKey; to?: RowKey }) {
    const above = (key: RowKey) => from === undefined || this.keys.compare(key, from) >= 0;
    const below = (key: RowKey) => to === undefined || this.keys.compare(key, to) <= 0;
    return this.sorted().filter(({ key }) => above(key) && below(key));
  }
}

const stats = { blockCountMax: 0, largeValueCountMax: 0, runs: 0 };

function run(schema: ContainerSchema, ops: readonly Op[]): void {
  const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
  const store = new RowStore({
    containerId: containerId(9), schema, blockSizeBytes: BLOCK_SIZE_BYTES, space,
  });
  const model = new Model(schema, rowKeyOps(schema));
  for (const op of ops) {
    apply(store, model, op);
    store.checkInvariants();
    space.checkInvariants();
    assert.equal(store.count(), model.rows.size);
    const largeValueBytes = store.largeValueBlockCount * BLOCK_SIZE_BYTES;
    assert.equal(space.bytesInUse, store.usedBytes + largeValueBytes);
    assert.equal(store.blockIds().length, space.blockCount, 'one container: distinct blocks');
    stats.blockCountMax = Math.max(stats.blockCountMax, store.blockCount);
    stats.largeValueCountMax = Math.max(stats.largeValueCountMax, store.largeValueCount);
  }
  const rows = model.sorted().map(({ row }) => row);
  assert.deepStrictEqual(store.scan({ direction: 'asc' }), rows);
  const restored = reopen(store, model.schema);
  assert.deepStrictEqual(restored.store.scan({ direction: 'asc' }), rows);
  assert.equal(restored.store.largeValueBlockCount, store.largeValueBlockCount);
  restored.store.drop();
  assert.equal(restored.space.blockCount, 0);
  store.drop();
  assert.equal(space.blockCount, 0);
  stats.runs++;
}

/** Writes every row block and large-value chain as images and reads them into a new store. */
function reopen(store: RowStore, schema: ContainerSchema) {
  const chains = new Map<number, Uint8Array[]>();
  const owner = { containerId: store.containerId, blockSizeBytes: BLOCK_SIZE_BYTES };
  for (const block of store.blocksInOrder()) {
    for (const value of blockLargeValues([block])) {
      chains.set(value.blockIds[0]!, encodeLargeValueBlocks(value, owner));
    }
  }
  const space = new BlockSpace({ blockSizeBytes: BLOCK_SIZE_BYTES });
  const restored = new RowStore({
    containerId: store.containerId, schema, blockSizeBytes: BLOCK_SIZE_BYTES, space,
  });
  for (const block of store.blocksInOrder()) {
    const image = encodeRowBlock(block);
    restored.restoreBlock(decodeRowBlock(schema, image, block.blockId,
      (ref) => decodeLargeValue(chains.get(ref.firstBlockId!)!, ref)));
  }
  restored.checkInvariants();
  space.checkInvariants();
  return { store: restored, space };
}

/** A key for the store: keyless collections use rowIds, picked from those handed out so far. */
function keyFor(model: Model, indexes: KeyIndexes): RowKey {
  if (model.schema.rowKeyColumnCount === 0) return Math.max(0, indexes[0]!) % (model.nextRowId + 2);
  const key = keyOf(model.schema, indexes);
  return key.length === 1 ? key[0]! : key;
}

function apply(store: RowStore, model: Model, op: Op): void {
  const { schema } = model;
  switch (op.kind) {
    case 'put': case 'append': {
      const rows = op.kind === 'put'
        ? op.rows.map((row) => rowOf(schema, keyOf(schema, row.key), row.seed, row.payloadBytes))
        : appendRows(model, op);
      store.put(rows);
      for (const row of rows) {
        const key = schema.rowKeyColumnCount === 0 ? model.nextRowId++ : model.keys.keyOf(row);
        model.rows.set(model.keys.keyString(key), { key, row });
      }
      return;
    }
    case 'remove': {
      const keys = op.keys.map((indexes) => keyFor(model, indexes));
      const strings = new Set(keys.map((key) => model.keys.keyString(key)));
      let expected = 0;
      for (const keyString of strings) if (model.rows.delete(keyString)) expected++;
      assert.equal(store.remove(keys), expected);
      return;
    }
    case 'get': {
      const key = keyFor(model, op.key);
      const expected = model.rows.get(model.keys.keyString(key))?.row;
      assert.deepStrictEqual(store.get(key), expected);
      assert.equal(store.has(key), expected !== undefined);
      return;
    }
    case 'scan': return checkScan(store, model, op);
    case 'count': {
      const range = boundsOf(model, op);
      assert.equal(store.rowCountInRange(range), model.inRange(range).length);
      return;
    }
    case 'addColumn': return addColumn(store, model, op);
    case 'rename': {
      const renamedIndex = schema.columns.length - 1 - (op.seed % schema.columns.length);
      const columns = schema.columns.map((column, i) =>
        (i === renamedIndex ? { ...column, name: `r${op.seed}` } : column));
      const renamed = { ...schema, columns, schemaVersion: schema.schemaVersion + 1 };
      store.renameColumn(renamed);
      model.schema = renamed;
      assert.equal(store.schema, renamed);
      return;
    }
    case 'clear':
      store.clear();
      model.rows.clear();
  }
}

/** Rows whose keys are above every key in the model, in order: the in-order ingest path. */
function appendRows(model: Model, op: Extract<Op, { kind: 'append' }>): Row[] {
  const { schema } = model;
  let first = 0;
  if (schema.rowKeyColumnCount > 0) {
    // The first key index whose every key lies above the largest key in the model.
    const last = model.sorted().at(-1);
    const lowest = (index: number) => keyOf(schema, [index, -1000, -1000]);
    while (last !== undefined && model.keys.compare(lowest(first), last.key) <= 0) first++;
  }
  // A large payload stays large on every fifth row; the others vary below 4 KB.
  const payloadOf = (i: number) => (op.payloadBytes >= LARGE_PAYLOAD_BYTES_MIN && i % 5 === 0
    ? op.payloadBytes : (op.payloadBytes * (i + 1)) % 4001);
  return Array.from({ length: op.count }, (_, i) =>
    rowOf(schema, keyOf(schema, [first + i, i % 3, 0]), op.seed + i, payloadOf(i)));
}

function boundsOf(model: Model, bounds: Bounds): { from?: RowKey; to?: RowKey } {
  return {
    ...(bounds.from === undefined ? {} : { from: keyFor(model, bounds.from) }),
    ...(bounds.to === undefined ? {} : { to: keyFor(model, bounds.to) }),
  };
}

function checkScan(store: RowStore, model: Model, op: Extract<Op, { kind: 'scan' }>): void {
  const range = boundsOf(model, op);
  const limit = op.limit === undefined ? {} : { limit: op.limit };
  const options = { ...range, direction: op.direction, ...limit };
  let expected = model.inRange(range);
  if (op.direction === 'desc') expected.reverse();
  if (op.limit !== undefined) expected = expected.slice(0, op.limit);
  if (!op.batches) {
    assert.deepStrictEqual(store.scan(options), expected.map(({ row }) => row));
    return;
  }
  const rows: Row[] = [];
  const rowIds: number[] = [];
  for (const batch of store.scanBatches(options)) {
    const batchRows = Array.from({ length: batch.rowCount }, (_, i) =>
      batch.columns.map((vector, c) => vectorValue(vector, i, model.schema.columns[c]!)));
    const batchRowIds = batch.rowIds === undefined ? [] : [...batch.rowIds];
    // Rows inside a batch are ascending, also in a descending scan.
    if (op.direction === 'desc') {
      batchRows.reverse();
      batchRowIds.reverse();
    }
    rows.push(...batchRows);
    rowIds.push(...batchRowIds);
  }
  assert.deepStrictEqual(rows, expected.map(({ row }) => row));
  if (model.schema.rowKeyColumnCount === 0) {
    assert.deepStrictEqual(rowIds, expected.map(({ key }) => key));
  }
}

function vectorValue(vector: ColumnVector, i: number, column: ColumnSchema): Value {
  if (vector.nulls !== undefined && vector.nulls[i] === 1) return null;
  const value = vector.values[i]!;
  if (vector.kind === 'fixed' && column.type === 'BOOL') return value === 1;
  return value as Value;
}

function addColumn(store: RowStore, model: Model, op: Extract<Op, { kind: 'addColumn' }>): void {
  const { schema } = model;
  const column: ColumnSchema = {
    name: `n${schema.schemaVersion}`, type: op.type, notNull: op.notNull,
    array: op.array && ARRAY_ELEMENT_TYPES.includes(op.type),
    ...(op.type === 'TIMESTAMP' ? { timePrecision: PRECISIONS[op.seed % 3]! } : {}),
  };
  const columns = [...schema.columns, column];
  const next = { ...schema, columns, schemaVersion: schema.schemaVersion + 1 };
  store.addColumn(next);
  const empty = emptyValue(column);
  for (const entry of model.rows.values()) entry.row = [...entry.row, empty];
  model.schema = next;
  model.keys = rowKeyOps(next);
}

function emptyValue(column: ColumnSchema): Value {
  if (!column.notNull) return null;
  if (column.array) return [];
  switch (column.type) {
    case 'STRING': return '';
    case 'GEOMETRY': return GEOMETRY_EMPTY_POINT;
    case 'BLOB': return new Uint8Array(0);
    case 'BOOL': return false;
    case 'LONG': return 0n;
    case 'TIMESTAMP': return (column.timePrecision ?? 'MILLISECOND') === 'MILLISECOND' ? 0 : 0n;
    default: return 0;
  }
}

describe('row-store model', () => {
  it('matches a Map model under random put / remove / get / scan / schema changes', () => {
    // Mostly with a payload column, for splits; sometimes fixed-size columns only.
    const schema = fc.oneof(
      { weight: 3, arbitrary: schemaArbitrary({ payloadColumn: true, columnCountMax: 4 }) },
      { weight: 1, arbitrary: schemaArbitrary({ payloadColumn: false, columnCountMax: 4 }) },
    );
    const ops = fc.array(opArbitrary, { minLength: 5, maxLength: 60, size: 'max' });
    fc.assert(fc.property(schema, ops, run), { numRuns: 500 });
    assert.ok(stats.blockCountMax >= 8, `blocks split (max ${stats.blockCountMax} blocks)`);
    assert.ok(stats.largeValueCountMax >= 8, `large values (max ${stats.largeValueCountMax})`);
  });
});
