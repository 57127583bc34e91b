// A window function over its input: every input row is held (charged to work memory), sorted by
// the partition keys then the ORDER BY keys (NULL first, as ORDER BY; ties keep input order), and
// each partition is walked once. ROW_NUMBER and LAG/LEAD are one pass. An aggregate whose frame
// starts at UNBOUNDED PRECEDING grows one accumulator as its frame's end moves (one pass, O(rows));
// other frames aggregate their rows afresh for each row (O(rows × frame rows)). RANGE frames use
// peers: rows with equal ORDER BY keys share a frame end (CURRENT ROW) or start; a NULL key's
// frame holds only the NULL keys, as in PostgreSQL. The sort, each frame and each frame search
// count as work (work-slice.ts), so a big partition turns the event loop as it is computed.

import { assert } from '../../base/assert.ts';
import { SQL_BATCH_ROW_COUNT } from '../../base/limits.ts';
import type { SqlPlanFrameBound, SqlPlanNode } from '../plan/logical-plan.ts';
import type { SqlValue } from '../value.ts';
import { createAccumulator, type SqlAccumulator } from './aggregates.ts';
import { evaluate, type SqlBatch } from './evaluate.ts';
import { runPlan, type SqlRunEnvironment } from './execute-plan.ts';
import { sortSliced } from './sort-sliced.ts';
import { compareSqlValues, valueKey, valueSizeBytes } from './value-ops.ts';
import type { SqlWorkSlice } from './work-slice.ts';

type WindowNode = Extract<SqlPlanNode, { kind: 'window' }>;
type AggregateFunction = Extract<WindowNode['function'], { kind: 'aggregate' }>;

interface HeldRow {
  readonly values: readonly SqlValue[];
  readonly partition: string;
  readonly order: readonly SqlValue[];
  /** The function's inputs: the aggregate's argument, or LAG/LEAD's value and default. */
  readonly args: readonly SqlValue[];
}

const ROW_OVERHEAD_BYTES = 64;

export async function* runWindow(node: WindowNode, env: SqlRunEnvironment): AsyncGenerator<SqlBatch> {
  const rows = await holdRows(node, env);
  const descending = node.orderKeys.map((key) => key.descending);
  const order = await sortSliced(rows.map((_row, i) => i), (a, b) => {
    const x = rows[a]!;
    const y = rows[b]!;
    if (x.partition !== y.partition) return x.partition < y.partition ? -1 : 1;
    for (let k = 0; k < descending.length; k++) {
      const c = compareSqlValues(x.order[k]!, y.order[k]!);
      if (c !== 0) return descending[k] ? -c : c;
    }
    return a - b;
  }, env.work);
  const results = new Array<SqlValue>(rows.length);
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && rows[order[end]!]!.partition === rows[order[start]!]!.partition) end++;
    const partition = order.slice(start, end).map((i) => rows[i]!);
    const values = await partitionValues(node, partition, env.work);
    for (let i = start; i < end; i++) results[order[i]!] = values[i - start]!;
    if (env.work.spend(end - start)) await env.work.pause();
    start = end;
  }
  const width = node.input.columns.length;
  for (let start = 0; start < order.length; start += SQL_BATCH_ROW_COUNT) {
    const slice = order.slice(start, start + SQL_BATCH_ROW_COUNT);
    const columns: SqlValue[][] = [];
    for (let c = 0; c < width; c++) columns.push(slice.map((i) => rows[i]!.values[c]!));
    columns.push(slice.map((i) => results[i]!));
    yield { rowCount: slice.length, columns };
  }
}

async function holdRows(node: WindowNode, env: SqlRunEnvironment): Promise<HeldRow[]> {
  const fn = node.function;
  const argExpressions = fn.kind === 'aggregate' ? fn.call.args.slice(0, 1)
    : fn.kind === 'shift' ? [fn.value, ...(fn.otherwise === undefined ? [] : [fn.otherwise])] : [];
  const rows: HeldRow[] = [];
  for await (const batch of runPlan(node.input, env)) {
    const partitions = node.partitionKeys.map((key) => evaluate(key, batch, env.context));
    const orders = node.orderKeys.map((key) => evaluate(key.expression, batch, env.context));
    const args = argExpressions.map((arg) => evaluate(arg, batch, env.context));
    for (let r = 0; r < batch.rowCount; r++) {
      const values = batch.columns.map((column) => column[r]!);
      let bytes = ROW_OVERHEAD_BYTES;
      for (const value of values) bytes += valueSizeBytes(value);
      env.memory.charge(bytes, 'window function');
      rows.push({
        values, partition: partitions.map((column) => valueKey(column[r]!)).join('\u0000'),
        order: orders.map((column) => column[r]!), args: args.map((column) => column[r]!),
      });
    }
  }
  return rows;
}

async function partitionValues(node: WindowNode, rows: readonly HeldRow[], work: SqlWorkSlice):
  Promise<SqlValue[]> {
  const fn = node.function;
  // ROW_NUMBER and LAG/LEAD are one step a row: runWindow counts them.
  switch (fn.kind) {
    case 'rowNumber': return rows.map((_row, i) => BigInt(i + 1));
    case 'shift': {
      const step = fn.direction === 'LAG' ? -fn.offset : fn.offset;
      return rows.map((row, i) => {
        const other = rows[i + step];
        return other !== undefined ? other.args[0]! : (fn.otherwise === undefined ? null : row.args[1]!);
      });
    }
    case 'aggregate': return aggregateValues(node, fn, rows, work);
  }
}

async function aggregateValues(node: WindowNode, fn: AggregateFunction, rows: readonly HeldRow[],
  work: SqlWorkSlice): Promise<SqlValue[]> {
  const n = rows.length;
  const argType = fn.call.args[0]?.type ?? 'UNKNOWN';
  const argOf = (row: HeldRow): SqlValue => (fn.call.args.length === 0 ? true : row.args[0]!);
  const bounds = await frameBounds(node, fn, rows, work);
  const out = new Array<SqlValue>(n);
  if (fn.frame.start.kind === 'UNBOUNDED PRECEDING') {
    // Frame ends never move back: one accumulator for the partition.
    const accumulator: SqlAccumulator = createAccumulator(fn.call, argType);
    let added = 0;
    for (let i = 0; i < n; i++) {
      const end = bounds[i]![1];
      assert(end + 1 >= added);
      const from = added;
      while (added <= end) accumulator.add(argOf(rows[added++]!));
      out[i] = accumulator.result();
      if (work.spend(1 + added - from)) await work.pause();
    }
    return out;
  }
  for (let i = 0; i < n; i++) {
    const [start, end] = bounds[i]!;
    const accumulator = createAccumulator(fn.call, argType);
    for (let j = start; j <= end; j++) accumulator.add(argOf(rows[j]!));
    out[i] = accumulator.result();
    if (work.spend(1 + Math.max(0, end - start + 1))) await work.pause();
  }
  return out;
}

/** Each row's frame as inclusive indexes into the partition (end < start: empty). */
async function frameBounds(node: WindowNode, fn: AggregateFunction, rows: readonly HeldRow[],
  work: SqlWorkSlice): Promise<[number, number][]> {
  const n = rows.length;
  const { unit, start, end } = fn.frame;
  if (unit === 'ROWS') {
    const at = (bound: SqlPlanFrameBound, i: number): number => {
      switch (bound.kind) {
        case 'UNBOUNDED PRECEDING': return 0;
        case 'UNBOUNDED FOLLOWING': return n - 1;
        case 'CURRENT ROW': return i;
        case 'PRECEDING': return i - bound.offset;
        case 'FOLLOWING': return i + bound.offset;
      }
    };
    return rows.map((_row, i) => [Math.max(0, at(start, i)), Math.min(n - 1, at(end, i))]);
  }
  const peers = (a: HeldRow, b: HeldRow) => a.order.every((value, k) => compareSqlValues(value, b.order[k]!) === 0);
  const descending = node.orderKeys[0]?.descending ?? false;
  const key = (row: HeldRow): number | null => {
    const value = row.order[0];
    return value === null || value === undefined ? null : Number(value);
  };
  // Distance of row j from row i along the ORDER BY direction (positive: j follows i).
  const ahead = (i: number, j: number): number => (descending ? key(rows[i]!)! - key(rows[j]!)! : key(rows[j]!)! - key(rows[i]!)!);
  const inside = (bound: SqlPlanFrameBound, i: number, j: number, side: 'start' | 'end'): boolean => {
    switch (bound.kind) {
      case 'UNBOUNDED PRECEDING': case 'UNBOUNDED FOLLOWING': return true;
      case 'CURRENT ROW': return side === 'start' ? j >= i || peers(rows[i]!, rows[j]!) : j <= i || peers(rows[i]!, rows[j]!);
      case 'PRECEDING': return side === 'start' ? ahead(i, j) >= -bound.offset : ahead(i, j) <= -bound.offset;
      case 'FOLLOWING': return side === 'start' ? ahead(i, j) >= bound.offset : ahead(i, j) <= bound.offset;
    }
  };
  // Each row's search walks the partition from both ends up to its frame: O(rows) per row.
  const bounds: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const [from, to] = rangeBounds(i);
    bounds.push([from, to]);
    if (work.spend(1 + Math.max(0, from) + Math.max(0, n - 1 - to))) await work.pause();
  }
  return bounds;
  function rangeBounds(i: number): [number, number] {
    const row = rows[i]!;
    if (key(row) === null && (start.kind === 'PRECEDING' || start.kind === 'FOLLOWING' ||
      end.kind === 'PRECEDING' || end.kind === 'FOLLOWING')) {
      // NULL keys are peers of each other only.
      let first = i;
      let last = i;
      while (first > 0 && key(rows[first - 1]!) === null) first--;
      while (last < n - 1 && key(rows[last + 1]!) === null) last++;
      const from = start.kind === 'UNBOUNDED PRECEDING' ? 0 : first;
      const to = end.kind === 'UNBOUNDED FOLLOWING' ? n - 1 : last;
      return [from, to];
    }
    let from = 0;
    while (from < n && !(key(rows[from]!) !== null || start.kind === 'UNBOUNDED PRECEDING' || start.kind === 'CURRENT ROW'
      ? inside(start, i, from, 'start') : false)) from++;
    let to = n - 1;
    while (to >= 0 && !(key(rows[to]!) !== null || end.kind === 'UNBOUNDED FOLLOWING' || end.kind === 'CURRENT ROW'
      ? inside(end, i, to, 'end') : false)) to--;
    return [from, to];
  }
}
