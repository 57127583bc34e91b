// A GROUP BY straight over an index nested-loop join's look-ups (execute-join.ts: isPageLookUp),
// with no pair ever made: when every GROUP BY key reads only the left side's columns and every
// aggregate's argument only the right side's, all the rows one look-up finds fall in the left
// row's group. So the group is found once per left row (its keys evaluated over the left batch),
// and the right table's rows go to its accumulators as the engine reads them: one engine call
// reads all of a left batch's key ranges (SqlTable.lookUpRanges) and hands each piece over as
// views of its blocks, so a DOUBLE column reaches AVG as the block's own Float64Array. No left
// value is repeated per pair, no page copied, no promise made per page. The answers are those of
// the join then the aggregate (join-aggregate.test.ts holds it to the hash join's).
//
// A LEFT join's left rows without a match go through the aggregate's general path, their right
// columns NULL. The engine call reads at most LOOKUP_RANGES_ROW_COUNT_MAX rows; the rows read
// count as work (work-slice.ts), so a long look-up still turns the event loop and sees a cancel.

import { assert } from '../../base/assert.ts';
import { SQL_BATCH_ROW_COUNT } from '../../base/limits.ts';
import { mapBoundChildren, type SqlBoundExpression } from '../plan/bound-expression.ts';
import type { SqlJoinNode } from '../plan/logical-plan.ts';
import type { SqlValue } from '../value.ts';
import { SqlGroupTable, type SqlAggregateNode, type SqlGroup } from './aggregate-groups.ts';
import { evaluate, type SqlBatch, type SqlColumn } from './evaluate.ts';
import { INDEX_LOOKUP_UNITS, isPageLookUp, lookUpRange, secondKeys, unmatchedBatch } from './execute-join.ts';
import { runPlan, type SqlRunEnvironment } from './execute-plan.ts';
import type { SqlLookUpRange, SqlLookUpStop, SqlTable } from './table-source.ts';

/**
 * Rows one lookUpRanges call reads before it returns: small enough that a call is a fraction of a
 * work slice (the event loop turns between calls), large enough that a call covers many look-ups.
 */
const LOOKUP_RANGES_ROW_COUNT_MAX = 4 * SQL_BATCH_ROW_COUNT;

/** A column no expression reads (the left side's, in a piece's batch). */
const NOT_READ: readonly SqlValue[] = [];

export interface SqlJoinAggregatePlan {
  readonly node: SqlAggregateNode;
  readonly join: SqlJoinNode;
  readonly table: SqlTable & Required<Pick<SqlTable, 'lookUpRanges'>>;
  /** The right table's columns the aggregates read (schema positions, ascending). */
  readonly rightColumns: readonly number[];
}

/** The fused plan when `node` can run over its join's look-ups directly, else undefined. */
export function joinAggregatePlan(node: SqlAggregateNode, env: SqlRunEnvironment): SqlJoinAggregatePlan | undefined {
  const join = node.input;
  if (join.kind !== 'join' || !isPageLookUp(join)) return undefined;
  const leftWidth = join.left.columns.length;
  const keyColumns = columnsRead(node.keys);
  const argColumns = columnsRead(node.aggregates.flatMap((call) => call.args.slice(0, 1)));
  if (keyColumns === undefined || argColumns === undefined) return undefined;
  if (keyColumns.some((c) => c >= leftWidth) || argColumns.some((c) => c < leftWidth)) return undefined;
  const table = env.table(join.lookup!.table);
  if (table.lookUpRanges === undefined) return undefined;
  const rightColumns = [...new Set(argColumns.map((c) => c - leftWidth))].sort((a, b) => a - b);
  return { node, join, table: table as SqlJoinAggregatePlan['table'], rightColumns };
}

/** The input columns the expressions read; undefined when one reads more than columns (a subquery, an outer value). */
function columnsRead(expressions: readonly SqlBoundExpression[]): number[] | undefined {
  const columns: number[] = [];
  let plain = true;
  const visit = (expression: SqlBoundExpression): SqlBoundExpression => {
    if (expression.kind === 'column') columns.push(expression.index);
    else if (expression.kind === 'subquery' || expression.kind === 'outer') plain = false;
    else mapBoundChildren(expression, visit);
    return expression;
  };
  for (const expression of expressions) visit(expression);
  return plain ? columns : undefined;
}

export async function* runJoinAggregate(plan: SqlJoinAggregatePlan, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  const { node, join } = plan;
  const groups = new SqlGroupTable(node, env);
  let pairCount = 0;
  for await (const left of runPlan(join.left, env)) {
    pairCount += await joinAggregateBatch(plan, left, groups, env);
  }
  if (env.rowCounts !== undefined) env.rowCounts.set(join, (env.rowCounts.get(join) ?? 0) + pairCount);
  yield* groups.results();
}

/** One left batch: its look-ups read range after range into their rows' groups; the pairs counted. */
async function joinAggregateBatch(plan: SqlJoinAggregatePlan, left: SqlBatch, groups: SqlGroupTable,
  env: SqlRunEnvironment): Promise<number> {
  const { node, join, table, rightColumns } = plan;
  const leftWidth = join.left.columns.length;
  const keys = evaluate(join.leftKeys[0]!, left, env.context);
  const seconds = secondKeys(join, left, env);
  const composite = table.schema.rowKeyColumnCount > 1;
  const ranges: SqlLookUpRange[] = [];
  /** The left row of each range. */
  const rowOfRange: number[] = [];
  for (let r = 0; r < left.rowCount; r++) {
    if (keys[r] === null || seconds?.[r] === null) continue;
    ranges.push(lookUpRange(join, composite, keys[r]!, seconds?.[r]));
    rowOfRange.push(r);
  }
  const groupKeys = node.keys.map((key) => evaluate(key, left, env.context));
  /** Each left row's group, found when its first right row comes (a row without one makes none). */
  const rowGroups: (SqlGroup | undefined)[] = new Array<SqlGroup | undefined>(left.rowCount);
  // One batch for every piece, its right columns replaced each time: the aggregates' arguments
  // read it synchronously and keep nothing of it.
  const pieceColumns: SqlColumn[] = new Array<SqlColumn>(leftWidth + join.right.columns.length).fill(NOT_READ);
  const args: (SqlColumn | undefined)[] = new Array<SqlColumn | undefined>(node.aggregates.length);
  let pairCount = 0;
  let lastRange = -1;
  const visit = (rangeIndex: number, columns: readonly SqlColumn[], rowCount: number): void => {
    assert(rangeIndex >= lastRange);
    lastRange = rangeIndex;
    const r = rowOfRange[rangeIndex]!;
    const group = rowGroups[r] ??= groups.groupOf(groupKeys, r);
    for (let c = 0; c < rightColumns.length; c++) pieceColumns[leftWidth + rightColumns[c]!] = columns[c]!;
    const batch: SqlBatch = { rowCount, columns: pieceColumns };
    for (let a = 0; a < node.aggregates.length; a++) {
      const arg = node.aggregates[a]!.args[0];
      args[a] = arg === undefined ? undefined : evaluate(arg, batch, env.context);
    }
    groups.addRun(group, args, 0, rowCount);
    pairCount += rowCount;
  };
  let resume: SqlLookUpStop | undefined;
  let firstRange = 0;
  do {
    const before = pairCount;
    resume = table.lookUpRanges({ columnIndexes: rightColumns, ranges, resume, rowCountMax: LOOKUP_RANGES_ROW_COUNT_MAX },
      visit);
    const rangeCount = (resume?.rangeIndex ?? ranges.length) - firstRange;
    firstRange = resume?.rangeIndex ?? ranges.length;
    if (env.work.spend(pairCount - before + rangeCount * INDEX_LOOKUP_UNITS)) await env.work.pause();
    env.control.check();
  } while (resume !== undefined);
  if (join.joinType === 'LEFT') {
    const unmatched: number[] = [];
    for (let r = 0; r < left.rowCount; r++) if (rowGroups[r] === undefined) unmatched.push(r);
    if (unmatched.length > 0) groups.addBatch(unmatchedBatch(join, left, unmatched), env.context);
  }
  return pairCount;
}
