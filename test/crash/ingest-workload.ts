// The crash test's workload, shared by the child that runs it and the parent that checks it: both
// derive an operation from its id alone, so the child prints only ids and the parent recomputes
// exactly which rows each acknowledged operation wrote and removed.
//
// Invariants the check relies on:
// - Each writer owns its keys: a key encodes its writer, and only that writer's operations touch
//   it. A writer runs one operation at a time, so per writer (and so per key) ACK order is commit
//   order, whatever the interleaving of writers.
// - Every row carries the number of the operation that wrote it (the `batch` column), so an
//   operation's rows are told apart from every other's, and a partial commit shows.
// - An auto-commit multiPut never repeats a key; a transaction may, and its last write wins.

import { assert } from '../../lib/base/assert.ts';
import { storageOptions } from '../../lib/base/options.ts';
import type { KeyValue, Row } from '../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../lib/schema/container-schema.ts';
import { Prng } from '../sim/prng.ts';

export const INGEST_WRITER_COUNT = 4;
/** Keys each writer owns in each container; batches are runs of them, so they overlap. */
export const INGEST_SLOT_COUNT = 600;
export const INGEST_BATCH_ROW_COUNT_MAX = 500;
const TRANSACTION_STEP_COUNT_MAX = 8;
const TRANSACTION_PUT_ROW_COUNT_MAX = 20;
const TS_BASE_MS = Date.UTC(2026, 0, 1);
/** Sequence numbers of one writer in one child run; far more than a run of a few seconds makes. */
const SEQ_COUNT_MAX = 2 ** 24;
const WRITER_BITS = 8n;
const SEQ_BITS = 24n;

/**
 * The child writes and the parent checks with these; group commit acknowledges after fdatasync.
 * Checkpoints every 100 ms, so many kills land in the middle of one; a buffer pool of two 64KB
 * blocks per group, so kills also land amid swap writes and reads.
 */
export const INGEST_STORE_OPTIONS = storageOptions({
  partitionNum: 16, concurrency: 2, logWriteMode: 0, checkpointIntervalMs: 100,
  partialCheckpointInterval: 3, storeMemoryLimitBytes: 4 * 64 * 1024,
});

const TS_COLUMN = { name: 'ts', type: 'TIMESTAMP' };
const VALUE_COLUMNS = [{ name: 'v', type: 'DOUBLE' }, { name: 'batch', type: 'LONG' }];

/** Spread over both partition groups of { partitionNum: 16, concurrency: 2 }. */
export const INGEST_CONTAINERS: readonly ContainerDefinition[] = [
  { name: 'crash_ts_a', type: 'TIME_SERIES', columns: [TS_COLUMN, ...VALUE_COLUMNS] },
  { name: 'crash_ts_b', type: 'TIME_SERIES', columns: [TS_COLUMN, ...VALUE_COLUMNS] },
  {
    name: 'crash_kv', type: 'COLLECTION', rowKey: true,
    columns: [{ name: 'k', type: 'STRING' }, ...VALUE_COLUMNS],
  },
];

export interface IngestOpId {
  /** The child run (one per kill): ids never repeat across runs on one home. */
  iteration: number;
  writer: number;
  seq: number;
}

export type IngestStep =
  | { kind: 'put'; rows: Row[] }
  | { kind: 'remove'; key: KeyValue };

export type IngestOpKind = 'multiPut' | 'put' | 'remove' | 'transaction' | 'abort';

export interface IngestOp {
  id: IngestOpId;
  kind: IngestOpKind;
  container: string;
  /** Auto-commit kinds have one step; a transaction's steps run in order before commit or abort. */
  steps: IngestStep[];
}

export function formatIngestOpId(id: IngestOpId): string {
  return `${id.iteration}.${id.writer}.${id.seq}`;
}

export function parseIngestOpId(text: string): IngestOpId {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (match === null) throw new Error(`not an operation id: ${JSON.stringify(text)}`);
  const id = { iteration: Number(match[1]), writer: Number(match[2]), seq: Number(match[3]) };
  assert(id.writer < INGEST_WRITER_COUNT);
  assert(id.seq < SEQ_COUNT_MAX);
  return id;
}

/** The operation with this id in a child run seeded `seed`: the same in child and parent. */
export function ingestOp(seed: number, id: IngestOpId): IngestOp {
  assert(id.writer >= 0 && id.writer < INGEST_WRITER_COUNT);
  assert(id.seq >= 0 && id.seq < SEQ_COUNT_MAX);
  const prng = new Prng(mixSeed([seed, id.iteration, id.writer, id.seq]));
  const container = INGEST_CONTAINERS[prng.nextIndex(INGEST_CONTAINERS.length)]!.name;
  const roll = prng.nextIndex(100);
  const anySlot = () => prng.nextIndex(INGEST_SLOT_COUNT);
  const putStep = (rowCountMax: number): IngestStep => {
    const rowCount = prng.nextIntBetween({ min: 1, max: rowCountMax });
    return { kind: 'put', rows: ingestRows({ id, container, startSlot: anySlot(), rowCount }) };
  };
  const removeStep = (): IngestStep =>
    ({ kind: 'remove', key: slotKey(container, id.writer, anySlot()) });
  if (roll < 45) {
    return { id, kind: 'multiPut', container, steps: [putStep(INGEST_BATCH_ROW_COUNT_MAX)] };
  }
  if (roll < 65) return { id, kind: 'put', container, steps: [putStep(1)] };
  if (roll < 80) return { id, kind: 'remove', container, steps: [removeStep()] };
  const steps: IngestStep[] = [];
  const stepCount = prng.nextIntBetween({ min: 2, max: TRANSACTION_STEP_COUNT_MAX });
  for (let index = 0; index < stepCount; index++) {
    steps.push(prng.nextIndex(10) < 6 ? putStep(TRANSACTION_PUT_ROW_COUNT_MAX) : removeStep());
  }
  return { id, kind: roll < 95 ? 'transaction' : 'abort', container, steps };
}

/**
 * What a committed operation leaves behind, per key: the row, or null for removed. An aborted
 * operation leaves nothing.
 */
export function ingestOpEffects(op: IngestOp): Map<KeyValue, Row | null> {
  const effects = new Map<KeyValue, Row | null>();
  if (op.kind === 'abort') return effects;
  for (const step of op.steps) {
    if (step.kind === 'remove') {
      effects.set(step.key, null);
      continue;
    }
    for (const row of step.rows) effects.set(row[0] as KeyValue, row);
  }
  return effects;
}

/** The operation number stored in the `batch` column. */
export function ingestOpNumber(id: IngestOpId): bigint {
  return (BigInt(id.iteration) << (WRITER_BITS + SEQ_BITS)) |
    (BigInt(id.writer) << SEQ_BITS) | BigInt(id.seq);
}

/** The id behind an operation number, as printed: `iteration.writer.seq`. */
export function formatIngestOpNumber(opNumber: bigint): string {
  const seq = opNumber & ((1n << SEQ_BITS) - 1n);
  const writer = (opNumber >> SEQ_BITS) & ((1n << WRITER_BITS) - 1n);
  return `${opNumber >> (WRITER_BITS + SEQ_BITS)}.${writer}.${seq}`;
}

/** The key of one writer's slot: writers interleave in time, and own disjoint strings. */
export function slotKey(container: string, writer: number, slot: number): KeyValue {
  assert(slot >= 0 && slot < INGEST_SLOT_COUNT);
  if (container === 'crash_kv') return `w${writer}-${slot}`;
  return TS_BASE_MS + slot * INGEST_WRITER_COUNT + writer;
}

/** The writer that owns a key. */
export function slotKeyWriter(key: KeyValue): number {
  if (typeof key === 'string') return Number(/^w(\d+)-/.exec(key)![1]);
  assert(typeof key === 'number');
  return (key - TS_BASE_MS) % INGEST_WRITER_COUNT;
}

/** A contiguous run of slots (wrapping), so no key repeats within one run. */
function ingestRows(
  batch: { id: IngestOpId; container: string; startSlot: number; rowCount: number },
): Row[] {
  assert(batch.rowCount >= 1);
  assert(batch.rowCount <= INGEST_SLOT_COUNT);
  const opNumber = ingestOpNumber(batch.id);
  const rows: Row[] = [];
  for (let index = 0; index < batch.rowCount; index++) {
    const slot = (batch.startSlot + index) % INGEST_SLOT_COUNT;
    // Exact in a double: a multiple of 1/8 far below 2^53.
    const value = (batch.id.seq % 100_000) + slot / 8;
    rows.push([slotKey(batch.container, batch.id.writer, slot), value, opNumber]);
  }
  return rows;
}

/** Mixes integers into one 32-bit seed (a multiply-xorshift hash, one round per part). */
export function mixSeed(parts: readonly number[]): number {
  let hash = 0x9e3779b9;
  for (const part of parts) {
    hash = Math.imul(hash ^ (part >>> 0), 0x85ebca6b);
    hash ^= hash >>> 13;
    hash = Math.imul(hash, 0xc2b2ae35);
    hash ^= hash >>> 16;
  }
  return hash >>> 0;
}
