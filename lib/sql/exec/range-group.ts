// GROUP BY RANGE(key) EVERY(n, unit[, offset]) [FILL(method)] (§5.6): rows fall into groups
// [origin + k × interval, origin + (k+1) × interval); the groups run from the one holding WHERE's
// lower bound up to WHERE's upper bound. Each group gives its start time and its aggregates. An
// empty group is left out (no FILL, or NONE), gives NULLs (NULL), the previous group's values
// (PREVIOUS), or values interpolated on the line between the groups either side (LINEAR; integer
// results are truncated toward zero; non-numeric columns and gaps at either end behave as
// PREVIOUS and NULL).

import { StorageError } from '../../base/errors.ts';
import { SQL_BATCH_ROW_COUNT } from '../../base/limits.ts';
import type { SqlPlanNode } from '../plan/logical-plan.ts';
import { isSqlNumericType, SQL_INTEGER_TYPES, type SqlType, type SqlValue } from '../value.ts';
import { createAccumulator, type SqlAccumulator } from './aggregates.ts';
import { evaluate, type SqlBatch } from './evaluate.ts';
import type { SqlRunEnvironment } from './execute-plan.ts';
import type { SqlWorkSlice } from './work-slice.ts';

type RangeGroupNode = Extract<SqlPlanNode, { kind: 'rangeGroup' }>;

const GROUP_BYTES = 96;
/** A group start and its output row, held while the gaps are filled. */
const GENERATED_GROUP_BYTES = 48;

export async function* runRangeGroup(
  node: RangeGroupNode,
  input: AsyncIterable<SqlBatch>,
  env: SqlRunEnvironment,
): AsyncGenerator<SqlBatch> {
  const first = startOf(node, node.low);
  const groupCount = node.high < first ? 0n : (node.high - first) / node.interval + 1n;
  if (groupCount > BigInt(node.groupCountMax)) {
    throw new StorageError('LIMIT_EXCEEDED', `GROUP BY RANGE would generate ${groupCount} groups, ` +
      `more than ${node.groupCountMax}: widen EVERY, narrow the WHERE range, or raise the ` +
      'MaxGeneratedRows hint');
  }
  const argTypes = node.aggregates.map((call) => call.args[0]?.type ?? 'UNKNOWN');
  const groups = new Map<bigint, SqlAccumulator[]>();
  for await (const batch of input) {
    const keys = evaluate(node.key, batch, env.context);
    const args = node.aggregates.map((call) =>
      (call.args.length === 0 ? undefined : evaluate(call.args[0]!, batch, env.context)));
    let heldBytes = 0;
    for (let r = 0; r < batch.rowCount; r++) {
      const key = keys[r]!;
      if (key === null) continue;
      const time = BigInt(key as number | bigint);
      if (time < node.low || time > node.high) continue;
      const start = startOf(node, time);
      let accumulators = groups.get(start);
      if (accumulators === undefined) {
        env.memory.charge(GROUP_BYTES + 48 * node.aggregates.length, 'GROUP BY RANGE');
        accumulators = node.aggregates.map((call, a) => createAccumulator(call, argTypes[a]!));
        groups.set(start, accumulators);
      }
      for (let a = 0; a < accumulators.length; a++) {
        const column = args[a];
        heldBytes += accumulators[a]!.add(column === undefined ? true : column[r]!);
      }
    }
    env.memory.charge(heldBytes, 'GROUP BY RANGE');
  }
  // Every group of the range is a row to hold, with or without rows of its own.
  env.memory.charge(Number(groupCount) * GENERATED_GROUP_BYTES, 'GROUP BY RANGE');
  // Up to a million groups are generated and filled before the first row goes out: each counts
  // as work (work-slice.ts), so a cancel, a timeout or a commit gets its turn meanwhile.
  const work = env.work;
  const starts: bigint[] = [];
  for (let start = first; start <= node.high; start += node.interval) {
    starts.push(start);
    if (work.spend(1)) await work.pause();
  }
  const results = new Map<bigint, SqlValue[]>();
  for (const [start, accumulators] of groups) {
    results.set(start, accumulators.map((accumulator) => accumulator.result()));
    if (work.spend(1 + accumulators.length)) await work.pause();
  }
  const types = node.columns.slice(1).map((column) => column.type);
  const rows = await filledRows(node, starts, results, types, work);
  const keyType = node.columns[0]!.type;
  for (let at = 0; at < rows.length; at += SQL_BATCH_ROW_COUNT) {
    const slice = rows.slice(at, at + SQL_BATCH_ROW_COUNT);
    yield {
      rowCount: slice.length,
      columns: [
        slice.map(([start]) => (keyType === 'TIMESTAMP' ? Number(start) : start)),
        ...types.map((_type, c) => slice.map(([, values]) => values[c]!)),
      ],
    };
  }
}

function startOf(node: RangeGroupNode, time: bigint): bigint {
  const offset = time - node.origin;
  let index = offset / node.interval;
  if (offset < 0n && offset % node.interval !== 0n) index -= 1n;
  return node.origin + index * node.interval;
}

async function filledRows(
  node: RangeGroupNode,
  starts: readonly bigint[],
  results: ReadonlyMap<bigint, SqlValue[]>,
  types: readonly SqlType[],
  work: SqlWorkSlice,
): Promise<[bigint, SqlValue[]][]> {
  const rows: [bigint, SqlValue[]][] = [];
  const nulls = types.map((): SqlValue => null);
  let previous: SqlValue[] | undefined;
  let previousStart = 0n;
  // The next group with rows after each group, found once backwards (not a search per gap).
  const nextFilled = new Array<number>(starts.length);
  for (let i = starts.length - 1, next = -1; i >= 0; i--) {
    nextFilled[i] = next;
    if (results.has(starts[i]!)) next = i;
    if (work.spend(1)) await work.pause();
  }
  for (let i = 0; i < starts.length; i++) {
    if (work.spend(1 + types.length)) await work.pause();
    const start = starts[i]!;
    const values = results.get(start);
    if (values !== undefined) {
      rows.push([start, values]);
      previous = values;
      previousStart = start;
      continue;
    }
    switch (node.fill) {
      case 'NONE': break;
      case 'NULL': rows.push([start, nulls]); break;
      case 'PREVIOUS': rows.push([start, previous ?? nulls]); break;
      case 'LINEAR': {
        const nextIndex = nextFilled[i]!;
        const nextStart = nextIndex < 0 ? undefined : starts[nextIndex]!;
        const next = nextStart === undefined ? undefined : results.get(nextStart);
        rows.push([start, types.map((type, c) => {
          if (!isSqlNumericType(type)) return previous?.[c] ?? null;
          if (previous === undefined || next === undefined) return null;
          const a = previous[c]!;
          const b = next[c]!;
          if (a === null || b === null) return null;
          const ratio = Number(start - previousStart) / Number(nextStart! - previousStart);
          const value = Number(a) + (Number(b) - Number(a)) * ratio;
          if (!SQL_INTEGER_TYPES.has(type)) return value;
          return type === 'LONG' ? BigInt(Math.trunc(value)) : Math.trunc(value);
        })]);
        break;
      }
    }
  }
  return rows;
}
