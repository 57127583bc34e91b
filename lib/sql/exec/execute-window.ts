// A window function over its input: every input row is held (charged to work memory), sorted by
// the partition keys then the ORDER BY keys (NULL first, as ORDER BY; ties keep input order), and
// each partition is walked once. ROW_NUMBER and LAG/LEAD are one pass. An aggregate's frames are
// found in one pass (window-frame-bounds.ts). A frame that starts at UNBOUNDED PRECEDING grows one
// accumulator as its end moves; other frames slide (window-sliding.ts: COUNT, SUM, TOTAL, AVG,
// MIN, MAX), both O(rows); STDDEV and VAR over sliding frames aggregate each frame afresh
// (O(rows × frame rows)) to keep the per-frame Welford's exact answers. The sort, the frames and
// their searches count as work (work-slice.ts), so a big partition turns the event loop as it is
// computed.

import { assert } from '../../base/assert.ts';
import { SQL_BATCH_ROW_COUNT } from '../../base/limits.ts';
import type { SqlAggregateCall, SqlPlanNode } from '../plan/logical-plan.ts';
import type { SqlType, SqlValue } from '../value.ts';
import { createAccumulator, type SqlAccumulator } from './aggregates.ts';
import { evaluate, type SqlBatch, type SqlColumn } from './evaluate.ts';
import { runPlan, type SqlRunEnvironment } from './execute-plan.ts';
import { sortSliced } from './sort-sliced.ts';
import { compareSqlValues, valueKey, valueSizeBytes } from './value-ops.ts';
import { frameBounds, type WindowFrameBounds } from './window-frame-bounds.ts';
import { slidingAggregate } from './window-sliding.ts';
import type { SqlWorkSlice } from './work-slice.ts';

type WindowNode = Extract<SqlPlanNode, { kind: 'window' }>;
type AggregateFunction = Extract<WindowNode['function'], { kind: 'aggregate' }>;

/**
 * The input held column by column (a row is an index): few objects, whatever the row count. The
 * partition key is a string only when there are PARTITION BY keys.
 */
interface HeldRows {
  readonly count: number;
  readonly values: readonly SqlValue[][];
  readonly partitions: readonly string[] | undefined;
  readonly orders: readonly SqlValue[][];
  /** The function's inputs: the aggregate's argument, or LAG/LEAD's value and default. */
  readonly args: readonly SqlValue[][];
}

/** One partition, in window order: column by column, as frames and functions read it. */
interface PartitionRows {
  readonly orders: readonly (readonly SqlValue[])[];
  readonly args: readonly (readonly SqlValue[])[];
}

const ROW_OVERHEAD_BYTES = 64;

export async function* runWindow(node: WindowNode, env: SqlRunEnvironment): AsyncGenerator<SqlBatch> {
  const held = await holdRows(node, env);
  const order = await windowOrder(node, held, env.work);
  const count = held.count;
  const at = (i: number): number => (order === undefined ? i : order[i]!);
  // Rows start..end of the window order from a column: a copy, or the column itself when whole.
  const pick = (column: readonly SqlValue[], start: number, end: number): readonly SqlValue[] => {
    if (order !== undefined) return order.slice(start, end).map((i) => column[i]!);
    return start === 0 && end === count ? column : column.slice(start, end);
  };
  let results = new Array<SqlValue>(0);
  const { partitions } = held;
  for (let start = 0; start < count;) {
    let end = start + 1;
    if (partitions === undefined) end = count;
    else while (end < count && partitions[at(end)] === partitions[at(start)]) end++;
    const partition: PartitionRows = {
      orders: held.orders.map((column) => pick(column, start, end)),
      args: held.args.map((column) => pick(column, start, end)),
    };
    const values = await partitionValues(node, partition, end - start, env.work);
    if (start === 0 && end === count) results = values; // one partition: results in window order
    else {
      if (start === 0) results = new Array<SqlValue>(count);
      for (let i = start; i < end; i++) results[i] = values[i - start]!;
    }
    if (env.work.spend(end - start)) await env.work.pause();
    start = end;
  }
  for (let start = 0; start < count; start += SQL_BATCH_ROW_COUNT) {
    const end = Math.min(count, start + SQL_BATCH_ROW_COUNT);
    const columns: SqlColumn[] = held.values.map((column) => pick(column, start, end));
    columns.push(results.slice(start, end));
    yield { rowCount: end - start, columns };
  }
}

/**
 * The window order: row indexes sorted by partition, then the ORDER BY keys, ties in input
 * order; undefined when the input comes in that order already (a time series read by its key,
 * ordered by time), which one pass sees.
 */
async function windowOrder(node: WindowNode, held: HeldRows, work: SqlWorkSlice): Promise<number[] | undefined> {
  const descending = node.orderKeys.map((key) => key.descending);
  const { partitions, orders } = held;
  const compare = (a: number, b: number): number => {
    if (partitions !== undefined && partitions[a] !== partitions[b]) return partitions[a]! < partitions[b]! ? -1 : 1;
    for (let k = 0; k < descending.length; k++) {
      const c = compareSqlValues(orders[k]![a]!, orders[k]![b]!);
      if (c !== 0) return descending[k] ? -c : c;
    }
    return a - b;
  };
  let sorted = true;
  for (let i = 1; i < held.count && sorted; i++) sorted = compare(i - 1, i) < 0;
  if (work.spend(held.count)) await work.pause();
  if (sorted) return undefined;
  return sortSliced(Array.from({ length: held.count }, (_v, i) => i), compare, work);
}

async function holdRows(node: WindowNode, env: SqlRunEnvironment): Promise<HeldRows> {
  const fn = node.function;
  const argExpressions = fn.kind === 'aggregate' ? fn.call.args.slice(0, 1)
    : fn.kind === 'shift' ? [fn.value, ...(fn.otherwise === undefined ? [] : [fn.otherwise])] : [];
  const values: SqlValue[][] = node.input.columns.map(() => []);
  const partitions: string[] | undefined = node.partitionKeys.length === 0 ? undefined : [];
  const orders: SqlValue[][] = node.orderKeys.map(() => []);
  const args: SqlValue[][] = argExpressions.map(() => []);
  const append = (to: SqlValue[][], from: readonly SqlColumn[], rowCount: number) => {
    from.forEach((column, c) => { for (let r = 0; r < rowCount; r++) to[c]!.push(column[r]!); });
  };
  let count = 0;
  for await (const batch of runPlan(node.input, env)) {
    const n = batch.rowCount;
    let bytes = ROW_OVERHEAD_BYTES * n;
    for (const column of batch.columns) {
      if (column instanceof Float64Array) bytes += 8 * n;
      else for (let r = 0; r < n; r++) bytes += valueSizeBytes(column[r]!);
    }
    env.memory.charge(bytes, 'window function');
    append(values, batch.columns, n);
    append(orders, node.orderKeys.map((key) => evaluate(key.expression, batch, env.context)), n);
    append(args, argExpressions.map((arg) => evaluate(arg, batch, env.context)), n);
    if (partitions !== undefined) {
      const keys = node.partitionKeys.map((key) => evaluate(key, batch, env.context));
      for (let r = 0; r < n; r++) partitions.push(keys.map((column) => valueKey(column[r]!)).join('\u0000'));
    }
    count += n;
  }
  return { count, values, partitions, orders, args };
}

async function partitionValues(node: WindowNode, rows: PartitionRows, count: number, work: SqlWorkSlice):
  Promise<SqlValue[]> {
  const fn = node.function;
  // ROW_NUMBER and LAG/LEAD are one step a row: runWindow counts them.
  switch (fn.kind) {
    case 'rowNumber': return Array.from({ length: count }, (_v, i) => BigInt(i + 1));
    case 'shift': {
      const step = fn.direction === 'LAG' ? -fn.offset : fn.offset;
      const [value, otherwise] = rows.args;
      return Array.from({ length: count }, (_v, i) => {
        const other = i + step;
        return other >= 0 && other < count ? value![other]! : (otherwise === undefined ? null : otherwise[i]!);
      });
    }
    case 'aggregate': return aggregateValues(node, fn, rows, count, work);
  }
}

async function aggregateValues(node: WindowNode, fn: AggregateFunction, rows: PartitionRows, count: number,
  work: SqlWorkSlice): Promise<SqlValue[]> {
  const argType = fn.call.args[0]?.type ?? 'UNKNOWN';
  const args = fn.call.args.length === 0 ? new Array<SqlValue>(count).fill(true) : rows.args[0]!;
  const descending = node.orderKeys[0]?.descending ?? false;
  const bounds = await frameBounds(fn.frame, descending, rows.orders, count, work);
  if (fn.frame.start.kind === 'UNBOUNDED PRECEDING') return growingValues(fn.call, argType, args, bounds, work);
  return await slidingAggregate(fn.call, argType, args, bounds, work) ??
    perFrameValues(fn.call, argType, args, bounds, work);
}

/** Frames from the partition's start: their ends do not move back, one accumulator grows. */
export async function growingValues(call: SqlAggregateCall, argType: SqlType, args: readonly SqlValue[],
  bounds: WindowFrameBounds, work: SqlWorkSlice): Promise<SqlValue[]> {
  let accumulator: SqlAccumulator = createAccumulator(call, argType);
  const out = new Array<SqlValue>(args.length);
  let added = 0;
  for (let i = 0; i < args.length; i++) {
    const end = bounds.ends[i]!;
    assert(end < args.length);
    if (end + 1 < added) {
      // The end moved back: only where NaN keys begin (window-frame-bounds.ts), once.
      accumulator = createAccumulator(call, argType);
      added = 0;
    }
    const from = added;
    while (added <= end) accumulator.add(args[added++]!);
    out[i] = accumulator.result();
    if (work.spend(1 + added - from)) await work.pause();
  }
  return out;
}

/**
 * Each frame aggregated afresh (O(rows × frame rows)): the definition, and the path of the
 * aggregates without a sliding form (window-sliding.ts).
 */
export async function perFrameValues(call: SqlAggregateCall, argType: SqlType, args: readonly SqlValue[],
  bounds: WindowFrameBounds, work: SqlWorkSlice): Promise<SqlValue[]> {
  const out = new Array<SqlValue>(args.length);
  for (let i = 0; i < args.length; i++) {
    const start = bounds.starts[i]!;
    const end = bounds.ends[i]!;
    const accumulator = createAccumulator(call, argType);
    for (let j = start; j <= end; j++) accumulator.add(args[j]!);
    out[i] = accumulator.result();
    if (work.spend(1 + Math.max(0, end - start + 1))) await work.pause();
  }
  return out;
}
