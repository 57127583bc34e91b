// Joins (logical-plan.ts' SqlJoinNode): output rows are the left row's columns then the right's,
// in batches of at most SQL_BATCH_ROW_COUNT pairs. A LEFT join gives a left row that no right row
// matched once, the right's columns NULL. What a join holds (the nested loop's right side, the
// hash join's build side) is charged to the statement's work memory: past /sql/workMemoryLimit
// the statement ends with LIMIT_EXCEEDED, never a crash. NULL keys never match. The pairs a join
// tests count as work (work-slice.ts), so a cross join a condition empties still turns the event loop.

import { assert } from '../../base/assert.ts';
import { SQL_BATCH_ROW_COUNT } from '../../base/limits.ts';
import type { RowKey } from '../../schema/column-type.ts';
import type { SqlJoinNode } from '../plan/logical-plan.ts';
import type { SqlValue } from '../value.ts';
import type { SqlLookUpRange, SqlScanRequest } from './table-source.ts';
import { evaluate, type SqlBatch, type SqlColumn } from './evaluate.ts';
import { runPlan, type SqlRunEnvironment } from './execute-plan.ts';
import { valueKey, valueSizeBytes } from './value-ops.ts';

type Row = readonly SqlValue[];

const ROW_OVERHEAD_BYTES = 32;
/**
 * A hash join key's entry besides its text: the Map's slot and the bucket array. With it, a build
 * side of unique keys is charged about what V8's heap grows by (measured: 200–220 bytes a row of
 * two integers and a short string); sql-join-memory.test.ts holds it to that under a capped heap.
 */
const HASH_ENTRY_BYTES = 80;
/**
 * Look-up pages handed on together (lookUpPageGroups): one promise per group instead of one per
 * page; at most 16,384 rows held.
 */
const LOOKUP_GROUP_PAGE_COUNT = 64;
/** Key column types whose SQL values are JS numbers, whatever side they come from. */
const SMALL_INTEGER_TYPES: ReadonlySet<string> = new Set(['BYTE', 'SHORT', 'INTEGER']);
/** Work units of one index or row-key look-up of an index nested-loop join (a tree descent). */
export const INDEX_LOOKUP_UNITS = 8;

export function runJoin(node: SqlJoinNode, env: SqlRunEnvironment): AsyncIterable<SqlBatch> {
  switch (node.method) {
    case 'nestedLoop': return nestedLoopJoin(node, env);
    case 'hash': return hashJoin(node, env);
    case 'indexNestedLoop': return indexNestedLoopJoin(node, env);
  }
}

/**
 * Pairs gathered into output batches, column by column (no array per pair); the join's remaining
 * condition filters each batch.
 */
class PairWriter {
  private columns: SqlValue[][];
  private leftIds: number[] = [];
  /** Rows of a LEFT join's unmatched left rows (their right columns NULL). */
  private unmatched: boolean[] = [];
  private rowCount = 0;
  private readonly leftWidth: number;
  private readonly rightWidth: number;

  constructor(private readonly node: SqlJoinNode, private readonly env: SqlRunEnvironment) {
    this.leftWidth = node.left.columns.length;
    this.rightWidth = node.right.columns.length;
    this.columns = this.fresh();
  }

  private fresh(): SqlValue[][] {
    return Array.from({ length: this.leftWidth + this.rightWidth }, () => []);
  }

  get full(): boolean {
    return this.rowCount >= SQL_BATCH_ROW_COUNT;
  }

  /** Pairs that fit before the batch is full. */
  get room(): number {
    return Math.max(0, SQL_BATCH_ROW_COUNT - this.rowCount);
  }

  add(left: Row, right: Row | undefined, leftId: number): void {
    const { columns, leftWidth } = this;
    for (let c = 0; c < leftWidth; c++) columns[c]!.push(left[c]!);
    for (let c = 0; c < this.rightWidth; c++) columns[leftWidth + c]!.push(right === undefined ? null : right[c]!);
    this.leftIds.push(leftId);
    this.unmatched.push(right === undefined);
    this.rowCount++;
  }

  /** Row `r` of the left columns paired with rows start … end - 1 of the right columns. */
  addBlock(lefts: readonly SqlColumn[], r: number, rights: readonly SqlColumn[], start: number, end: number,
    leftId: number): void {
    const { columns, leftWidth } = this;
    const count = end - start;
    for (let c = 0; c < leftWidth; c++) {
      const value = lefts[c]![r]!;
      const out = columns[c]!;
      for (let i = 0; i < count; i++) out.push(value);
    }
    for (let c = 0; c < this.rightWidth; c++) {
      const source = rights[c]!;
      const out = columns[leftWidth + c]!;
      for (let i = start; i < end; i++) out.push(source[i]!);
    }
    for (let i = 0; i < count; i++) {
      this.leftIds.push(leftId);
      this.unmatched.push(false);
    }
    this.rowCount += count;
  }

  /** The batch of the pairs added, those the condition rejects left out; `matched` marks left ids kept. */
  take(matched: Set<number> | undefined): SqlBatch {
    const { node } = this;
    const n = this.rowCount;
    // Every pair tested counts, kept or not: the batch's turn comes as it passes runPlan.
    this.env.work.spend(n);
    const columns = this.columns;
    let batch: SqlBatch = { rowCount: n, columns };
    const ids = this.leftIds;
    const unmatched = this.unmatched;
    this.columns = this.fresh();
    this.leftIds = [];
    this.unmatched = [];
    this.rowCount = 0;
    if (node.condition === undefined) {
      if (matched !== undefined) ids.forEach((id, r) => { if (!unmatched[r]) matched.add(id); });
      return batch;
    }
    const verdicts = evaluate(node.condition, batch, this.env.context);
    const keep: number[] = [];
    for (let r = 0; r < n; r++) {
      // A LEFT join's NULL-extended row was decided already: it stays.
      if (unmatched[r] || verdicts[r] === true) keep.push(r);
      if (!unmatched[r] && verdicts[r] === true) matched?.add(ids[r]!);
    }
    if (keep.length < n) batch = { rowCount: keep.length, columns: columns.map((column) => keep.map((r) => column[r]!)) };
    return batch;
  }

  get size(): number {
    return this.rowCount;
  }
}

function rowsOf(batch: SqlBatch): Row[] {
  const rows: Row[] = [];
  for (let r = 0; r < batch.rowCount; r++) rows.push(batch.columns.map((column) => column[r]!));
  return rows;
}

function rowSizeBytes(row: Row): number {
  let bytes = ROW_OVERHEAD_BYTES;
  for (const value of row) bytes += valueSizeBytes(value);
  return bytes;
}

async function holdRows(node: SqlJoinNode['left'], env: SqlRunEnvironment, operator: string): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const batch of runPlan(node, env)) {
    for (const row of rowsOf(batch)) {
      env.memory.charge(rowSizeBytes(row), operator);
      rows.push(row);
    }
  }
  return rows;
}

/**
 * Each left batch against every held right row; a LEFT join's unmatched left rows come after
 * their batch's pairs (their order within the output is not defined, as in SQL).
 */
async function* nestedLoopJoin(node: SqlJoinNode, env: SqlRunEnvironment): AsyncGenerator<SqlBatch> {
  const rights = await holdRows(node.right, env, 'join (nested loop)');
  const writer = new PairWriter(node, env);
  let leftId = 0;
  for await (const batch of runPlan(node.left, env)) {
    const lefts = rowsOf(batch);
    const matched = node.joinType === 'LEFT' ? new Set<number>() : undefined;
    const firstId = leftId;
    for (const left of lefts) {
      for (const right of rights) {
        writer.add(left, right, leftId);
        if (writer.full) yield writer.take(matched);
      }
      leftId++;
      env.control.check();
    }
    if (writer.size > 0) yield writer.take(matched);
    if (matched !== undefined) yield* unmatchedRows(lefts, firstId, matched, writer);
  }
}

function* unmatchedRows(lefts: readonly Row[], firstId: number, matched: Set<number>, writer: PairWriter):
  Generator<SqlBatch> {
  lefts.forEach((left, i) => {
    if (!matched.has(firstId + i)) writer.add(left, undefined, firstId + i);
  });
  while (writer.size > 0) yield writer.take(undefined);
}

function keyOf(columns: readonly SqlColumn[], r: number): string | undefined {
  let text = '';
  for (const column of columns) {
    const value = column[r]!;
    if (value === null) return undefined;
    text += `${valueKey(value)}\u0000`;
  }
  return text;
}

/** The build side in a hash table by its keys; the other side streams through it. */
async function* hashJoin(node: SqlJoinNode, env: SqlRunEnvironment): AsyncGenerator<SqlBatch> {
  assert(node.leftKeys.length === node.rightKeys.length && node.leftKeys.length > 0);
  if (node.joinType === 'LEFT') assert(node.buildSide === 'right');
  const buildLeft = node.buildSide === 'left';
  const [buildNode, buildKeys, probeNode, probeKeys] = buildLeft
    ? [node.left, node.leftKeys, node.right, node.rightKeys]
    : [node.right, node.rightKeys, node.left, node.leftKeys];
  const table = new Map<string, Row[]>();
  for await (const batch of runPlan(buildNode, env)) {
    const keys = buildKeys.map((key) => evaluate(key, batch, env.context));
    for (let r = 0; r < batch.rowCount; r++) {
      const key = keyOf(keys, r);
      if (key === undefined) continue;
      const row = batch.columns.map((column) => column[r]!);
      const bucket = table.get(key);
      env.memory.charge(rowSizeBytes(row) + (bucket === undefined ? HASH_ENTRY_BYTES + 2 * key.length : 0),
        'join (hash build side)');
      if (bucket === undefined) table.set(key, [row]);
      else bucket.push(row);
    }
    env.control.check();
  }
  const writer = new PairWriter(node, env);
  let probeId = 0;
  for await (const batch of runPlan(probeNode, env)) {
    const keys = probeKeys.map((key) => evaluate(key, batch, env.context));
    const probes = rowsOf(batch);
    const matched = node.joinType === 'LEFT' ? new Set<number>() : undefined;
    const firstId = probeId;
    for (let r = 0; r < probes.length; r++, probeId++) {
      const key = keyOf(keys, r);
      const bucket = key === undefined ? undefined : table.get(key);
      if (bucket === undefined) continue;
      for (const built of bucket) {
        if (buildLeft) writer.add(built, probes[r]!, probeId);
        else writer.add(probes[r]!, built, probeId);
        if (writer.full) yield writer.take(matched);
      }
    }
    if (writer.size > 0) yield writer.take(matched);
    if (matched !== undefined) yield* unmatchedRows(probes, firstId, matched, writer);
    env.control.check();
  }
}

/**
 * For each left row, the right table's rows with that key, read by row key or TREE index. Without
 * a remaining condition, a row-key look-up's pages are the output batches themselves
 * (lookUpPageGroups).
 */
async function* indexNestedLoopJoin(node: SqlJoinNode, env: SqlRunEnvironment): AsyncGenerator<SqlBatch> {
  if (isPageLookUp(node)) {
    for await (const group of lookUpPageGroups(node, env)) yield* group;
    return;
  }
  const lookup = node.lookup;
  assert(lookup !== undefined && node.right.kind === 'scan');
  const table = env.table(lookup.table);
  const columnIndexes = Array.from({ length: node.right.columns.length }, (_, i) => i);
  const composite = table.schema.rowKeyColumnCount > 1;
  const writer = new PairWriter(node, env);
  let leftId = 0;
  for await (const batch of runPlan(node.left, env)) {
    const keys = evaluate(node.leftKeys[0]!, batch, env.context);
    const seconds = secondKeys(node, batch, env);
    const matched = node.joinType === 'LEFT' ? new Set<number>() : undefined;
    const firstId = leftId;
    for (let r = 0; r < batch.rowCount; r++, leftId++) {
      const key = keys[r]!;
      if (key === null || seconds?.[r] === null) continue;
      // A look-up that finds nothing gives no batch: it counts here.
      if (env.work.spend(INDEX_LOOKUP_UNITS)) await env.work.pause();
      for await (const read of table.scan(lookUpRequest(node, columnIndexes, composite, key, seconds?.[r]))) {
        const looked = lookup.index === undefined ? read : sameKeyRows(read, lookup.columnIndex, key);
        for (let start = 0; start < looked.rowCount;) {
          const end = Math.min(looked.rowCount, start + Math.max(1, writer.room));
          writer.addBlock(batch.columns, r, looked.columns, start, end, leftId);
          start = end;
          if (writer.full) yield writer.take(matched);
        }
      }
      env.control.check();
    }
    if (writer.size > 0) yield writer.take(matched);
    if (matched !== undefined) yield* unmatchedRows(rowsOf(batch), firstId, matched, writer);
  }
}

function lookUpRequest(node: SqlJoinNode, columnIndexes: readonly number[], composite: boolean, key: SqlValue,
  second: SqlValue | undefined): SqlScanRequest {
  const lookup = node.lookup!;
  if (lookup.index !== undefined) {
    return {
      columnIndexes, from: undefined, to: undefined, rowCountMax: Infinity,
      index: { ...lookup.index, low: [key as never], high: [key as never] },
    };
  }
  return { columnIndexes, rowCountMax: Infinity, slicedByCaller: true, ...lookUpRange(node, composite, key, second) };
}

/**
 * The row-key range a look-up by row key reads for `key`: the key itself, on a composite key
 * `[key, next.from]` to `[key, next.to]` (a bound missing: the prefix `[key]`), or for a
 * whole-key look-up `[key, second]` alone.
 */
export function lookUpRange(node: SqlJoinNode, composite: boolean, key: SqlValue, second: SqlValue | undefined):
  SqlLookUpRange {
  const lookup = node.lookup!;
  assert(lookup.index === undefined);
  assert(key !== null);
  if (lookup.wholeKey === true) {
    assert(composite && second !== undefined && second !== null, 'a whole-key look-up without its second value');
    const whole = [key, second] as RowKey;
    return { from: whole, to: whole };
  }
  const bound = (composite ? [key] : key) as RowKey;
  const next = lookup.next;
  return {
    from: next?.from === undefined ? bound : [key, next.from] as RowKey,
    to: next?.to === undefined ? bound : [key, next.to] as RowKey,
  };
}

/** A whole-key look-up's second key column values of a left batch (NULL: no row matches); else undefined. */
export function secondKeys(node: SqlJoinNode, batch: SqlBatch, env: SqlRunEnvironment): SqlColumn | undefined {
  return node.lookup?.wholeKey === true ? evaluate(node.leftKeys[1]!, batch, env.context) : undefined;
}

/** An index nested-loop join by row key with no condition left per pair: its pages go on whole. */
export function isPageLookUp(node: SqlJoinNode): boolean {
  return node.method === 'indexNestedLoop' && node.condition === undefined && node.lookup !== undefined &&
    node.lookup.index === undefined;
}

/**
 * isPageLookUp's output: each page a look-up reads (≤ SQL_BATCH_ROW_COUNT rows) is an output batch
 * (directBatch: the right columns as the engine copied them, so a DOUBLE column stays a
 * Float64Array for the aggregate above; no pair copied value by value), handed on in groups of
 * up to LOOKUP_GROUP_PAGE_COUNT pages, one promise a group: an aggregate over the join takes a
 * group at a time (execute-plan.ts: batchGroups). The pages come synchronously where the table
 * can (table-source.ts: lookUp). A LEFT join's unmatched left rows follow their left batch's pages.
 */
export async function* lookUpPageGroups(node: SqlJoinNode, env: SqlRunEnvironment): AsyncGenerator<SqlBatch[]> {
  assert(isPageLookUp(node) && node.right.kind === 'scan');
  const table = env.table(node.lookup!.table);
  const width = node.right.columns.length;
  // Every row a look-up finds holds its key in the key column: a small integer (a JS number on
  // both sides, keys of equal types) is repeated from the left instead of copied from the blocks.
  const keyColumn = node.lookup!.columnIndex;
  const keyRepeated = SMALL_INTEGER_TYPES.has(table.schema.columns[keyColumn]!.type);
  const columnIndexes = Array.from({ length: width }, (_, i) => i).filter((i) => !keyRepeated || i !== keyColumn);
  const composite = table.schema.rowKeyColumnCount > 1;
  let group: SqlBatch[] = [];
  for await (const batch of runPlan(node.left, env)) {
    const keys = evaluate(node.leftKeys[0]!, batch, env.context);
    const seconds = secondKeys(node, batch, env);
    const matched: boolean[] | undefined = node.joinType === 'LEFT' ? [] : undefined;
    for (let r = 0; r < batch.rowCount; r++) {
      const key = keys[r]!;
      if (key === null || seconds?.[r] === null) continue;
      // A look-up that finds nothing gives no batch: it counts here.
      if (env.work.spend(INDEX_LOOKUP_UNITS)) await env.work.pause();
      const request = lookUpRequest(node, columnIndexes, composite, key, seconds?.[r]);
      const pages = table.lookUp === undefined ? table.scan(request) : table.lookUp(request);
      for await (const read of pages) {
        if (matched !== undefined) matched[r] = true;
        env.work.spend(read.rowCount);
        group.push(directBatch(batch.columns, r, read, keyRepeated ? keyColumn : -1, key));
        if (group.length >= LOOKUP_GROUP_PAGE_COUNT) {
          yield group;
          group = [];
        }
      }
      env.control.check();
    }
    if (matched === undefined) continue;
    const unmatched: number[] = [];
    for (let r = 0; r < batch.rowCount; r++) if (matched[r] !== true) unmatched.push(r);
    if (unmatched.length === 0) continue;
    group.push(unmatchedBatch(node, batch, unmatched));
    if (group.length >= LOOKUP_GROUP_PAGE_COUNT) {
      yield group;
      group = [];
    }
  }
  if (group.length > 0) yield group;
}

/** A LEFT join's rows `unmatched` of a left batch, the right's columns NULL. */
export function unmatchedBatch(node: SqlJoinNode, batch: SqlBatch, unmatched: readonly number[]): SqlBatch {
  const rightCount = node.right.columns.length;
  return {
    rowCount: unmatched.length,
    columns: [...batch.columns.map((column) => (column.length === 0 ? column : unmatched.map((r) => column[r]!))),
      ...Array.from({ length: rightCount }, () => new Array<SqlValue>(unmatched.length).fill(null))],
  };
}

/**
 * Left row `r` paired with every row of a look-up's page: the page's columns as they are, each left
 * column its value repeated (a column the scan did not read stays empty: nothing refers to it), and
 * the right column `keyColumn` (≥ 0: the page lacks it) the look-up's key repeated.
 */
function directBatch(lefts: readonly SqlColumn[], r: number, page: SqlBatch, keyColumn: number, key: SqlValue):
  SqlBatch {
  const n = page.rowCount;
  assert(n <= SQL_BATCH_ROW_COUNT);
  const columns: SqlColumn[] = [];
  for (const column of lefts) columns.push(column.length === 0 ? column : new Array<SqlValue>(n).fill(column[r]!));
  let read = 0;
  const width = page.columns.length + (keyColumn >= 0 ? 1 : 0);
  for (let c = 0; c < width; c++) {
    columns.push(c === keyColumn ? new Array<SqlValue>(n).fill(key) : page.columns[read++]!);
  }
  return { rowCount: n, columns };
}

/** The rows of a batch whose column holds `key`: the index may hand out a superset (the engine scans instead). */
function sameKeyRows(batch: SqlBatch, columnIndex: number, key: SqlValue): SqlBatch {
  const wanted = valueKey(key);
  const column = batch.columns[columnIndex]!;
  const keep: number[] = [];
  for (let r = 0; r < batch.rowCount; r++) if (valueKey(column[r]!) === wanted) keep.push(r);
  if (keep.length === batch.rowCount) return batch;
  return { rowCount: keep.length, columns: batch.columns.map((values) => keep.map((r) => values[r]!)) };
}
