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
import { evaluate, type SqlBatch } from './evaluate.ts';
import { runPlan, type SqlRunEnvironment } from './execute-plan.ts';
import { sortSliced } from './sort-sliced.ts';
import { compareSqlValues, valueKey, valueSizeBytes } from './value-ops.ts';
import { frameBounds, type WindowFrameBounds } from './window-frame-bounds.ts';
import { slidingAggregate } from './window-sliding.ts';
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
  const argType = fn.call.args[0]?.type ?? 'UNKNOWN';
  const args = rows.map((row) => (fn.call.args.length === 0 ? true : row.args[0]!));
  const descending = node.orderKeys[0]?.descending ?? false;
  const bounds = await frameBounds(fn.frame, descending, rows.map((row) => row.order), work);
  if (fn.frame.start.kind === 'UNBOUNDED PRECEDING') return growingValues(fn.call, argType, args, bounds, work);
  return await slidingAggregate(fn.call, argType, args, bounds, work) ??
    perFrameValues(fn.call, argType, args, bounds, work);
}

/** Frames from the partition's start: their ends never move back, one accumulator grows. */
async function growingValues(call: SqlAggregateCall, argType: SqlType, args: readonly SqlValue[],
  bounds: WindowFrameBounds, work: SqlWorkSlice): Promise<SqlValue[]> {
  const accumulator: SqlAccumulator = createAccumulator(call, argType);
  const out = new Array<SqlValue>(args.length);
  let added = 0;
  for (let i = 0; i < args.length; i++) {
    const end = bounds.ends[i]!;
    assert(end + 1 >= added);
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
