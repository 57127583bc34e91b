// Runs a logical plan: each operator is an async generator of column batches pulling from its
// input. Filter and projection work a batch at a time (evaluate.ts); hash aggregation, GROUP BY
// RANGE, DISTINCT and sort hold what they must and charge it to the statement's work memory;
// LIMIT stops pulling, which ends the scan below it. Joins, set operations, subqueries and
// MATCH_RECOGNIZE run in execute-join.ts, execute-set.ts, execute-subquery.ts and
// execute-match-recognize.ts. Every batch an operator gives counts as work (work-slice.ts), as
// does what an operator does without giving batches (a join's pairs, a sort's merges); after
// each slice of work the run waits one event-loop turn and checks its deadline and cancellation
// (SqlRunControl). The scan also yields to the event loop between pages.

import { assert } from '../../base/assert.ts';
import { StorageError } from '../../base/errors.ts';
import { SQL_BATCH_ROW_COUNT } from '../../base/limits.ts';
import type { SqlEvalContext } from '../functions/scalar-function.ts';
import type { SqlMetatableName } from '../meta/metatables.ts';
import type { SqlPlanNode } from '../plan/logical-plan.ts';
import type { SqlValue } from '../value.ts';
import { SqlGroupTable } from './aggregate-groups.ts';
import { evaluate, filterRows, type SqlBatch, type SqlColumn } from './evaluate.ts';
import { isPageLookUp, lookUpPageGroups, runJoin } from './execute-join.ts';
import { joinAggregatePlan, runJoinAggregate } from './join-aggregate.ts';
import { runMatchRecognize } from './execute-match-recognize.ts';
import { runSetOperation } from './execute-set.ts';
import { runWindow } from './execute-window.ts';
import { hasSubqueries, subqueryContext } from './execute-subquery.ts';
import { runRangeGroup } from './range-group.ts';
import { aggregateInScan } from './execute-scan-aggregate.ts';
import { aggregateBySkipScan } from './execute-skip-scan.ts';
import { sortSliced } from './sort-sliced.ts';
import type { SqlTable } from './table-source.ts';
import { compareSqlValues, valueKey, valueSizeBytes } from './value-ops.ts';

export { keyChanges } from './aggregate-groups.ts';
import type { SqlWorkMemory } from './work-memory.ts';
import type { SqlWorkSlice } from './work-slice.ts';

/** Deadline and cancellation of one statement, checked between batches. */
export interface SqlRunControl {
  /** Throws REQUEST_TIMEOUT past the deadline, or the cancellation's error. */
  check(): void;
}

export interface SqlRunEnvironment {
  readonly table: (name: string) => SqlTable;
  /** A metatable's rows, as of now (lib/sql/meta/metatables.ts). */
  readonly metatableRows: (name: SqlMetatableName) => readonly (readonly SqlValue[])[];
  readonly context: SqlEvalContext;
  readonly memory: SqlWorkMemory;
  readonly control: SqlRunControl;
  /** The work counted toward the next event-loop turn (work-slice.ts), shared by the whole statement. */
  readonly work: SqlWorkSlice;
  /** Rows each operator gave, by node, for EXPLAIN ANALYZE. */
  readonly rowCounts?: Map<SqlPlanNode, number>;
}

export async function* runPlan(node: SqlPlanNode, env: SqlRunEnvironment): AsyncGenerator<SqlBatch> {
  for await (const batch of runNode(node, env)) {
    // Each operator's rows count once per operator, an empty batch as one unit: an operator that
    // consumes much and gives little (a filter, a join's tested pairs) passes here often.
    if (env.work.spend(batch.rowCount + 1)) await env.work.pause();
    if (batch.rowCount === 0) continue;
    if (env.rowCounts !== undefined) env.rowCounts.set(node, (env.rowCounts.get(node) ?? 0) + batch.rowCount);
    yield batch;
  }
}

/**
 * runPlan's batches in groups, for a consumer that takes a group with one await (hashAggregate):
 * an index nested-loop join's look-up pages come in groups of many (execute-join.ts:
 * lookUpPageGroups), other inputs a batch a group. Each batch counts as runPlan counts it.
 */
async function* batchGroups(node: SqlPlanNode, env: SqlRunEnvironment): AsyncGenerator<readonly SqlBatch[]> {
  if (node.kind !== 'join' || !isPageLookUp(node)) {
    for await (const batch of runPlan(node, env)) yield [batch];
    return;
  }
  for await (const group of lookUpPageGroups(node, env)) {
    let pause = false;
    let rowCount = 0;
    for (const batch of group) {
      if (env.work.spend(batch.rowCount + 1)) pause = true;
      rowCount += batch.rowCount;
    }
    if (env.rowCounts !== undefined) env.rowCounts.set(node, (env.rowCounts.get(node) ?? 0) + rowCount);
    if (pause) await env.work.pause();
    yield group;
  }
}

function runNode(node: SqlPlanNode, env: SqlRunEnvironment): AsyncIterable<SqlBatch> {
  switch (node.kind) {
    case 'scan': return scan(node, env);
    case 'metatable': return metatable(node, env);
    case 'values': return values(node, env);
    case 'filter': return filter(node, env);
    case 'project': return project(node, env);
    case 'aggregate': return hashAggregate(node, env);
    case 'rangeGroup': return runRangeGroup(node, runPlan(node.input, env), env);
    case 'distinct': return distinct(node, env);
    case 'sort': return sort(node, env);
    case 'limit': return limit(node, env);
    case 'join': return runJoin(node, env);
    case 'setOperation': return runSetOperation(node, env);
    case 'window': return runWindow(node, env);
    case 'matchRecognize': return runMatchRecognize(node, env);
  }
}

async function* scan(node: Extract<SqlPlanNode, { kind: 'scan' }>, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  if (node.keyRange.empty || node.rowCountMax === 0) return;
  const table = env.table(node.table);
  let left = node.rowCountMax;
  // Batches come with the columns asked for; above the scan they sit at their schema positions,
  // the columns not read left empty (no expression refers to them).
  const width = node.columns.length;
  const descending = node.descending === true;
  // Several ranges are read one after the other, in key order (reversed for a descending scan).
  const ranges = node.keyRanges === undefined ? [node.keyRange]
    : descending ? [...node.keyRanges].reverse() : node.keyRanges;
  for (const range of ranges) {
    for await (const read of table.scan({
      columnIndexes: node.columnIndexes, from: range.from, to: range.to, rowCountMax: left,
      ...(descending ? { descending } : {}), ...(node.index === undefined ? {} : { index: node.index }),
    })) {
      env.control.check();
      const columns: SqlColumn[] = new Array<SqlColumn>(width).fill(NOT_READ);
      node.columnIndexes.forEach((index, i) => { columns[index] = read.columns[i]!; });
      const batch: SqlBatch = { rowCount: read.rowCount, columns };
      if (batch.rowCount > left) {
        yield { rowCount: left, columns: batch.columns.map((column) => column.slice(0, left)) };
        return;
      }
      left -= batch.rowCount;
      yield batch;
      if (left === 0) return;
    }
  }
}

const NOT_READ: readonly SqlValue[] = [];

async function* metatable(node: Extract<SqlPlanNode, { kind: 'metatable' }>, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  const rows = env.metatableRows(node.table);
  yield { rowCount: rows.length, columns: node.columns.map((_column, c) => rows.map((row) => row[c]!)) };
}

async function* values(node: Extract<SqlPlanNode, { kind: 'values' }>, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  const one: SqlBatch = { rowCount: 1, columns: [] };
  const columns: SqlValue[][] = node.columns.map(() => []);
  for (const row of node.rows) {
    row.forEach((expression, c) => columns[c]!.push(evaluate(expression, one, env.context)[0]!));
  }
  yield { rowCount: node.rows.length, columns };
}

async function* filter(node: Extract<SqlPlanNode, { kind: 'filter' }>, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  const subqueries = hasSubqueries([node.predicate]);
  for await (const batch of runPlan(node.input, env)) {
    const context = subqueries ? await subqueryContext([node.predicate], batch, env) : env.context;
    yield filterRows(batch, node.predicate, context);
  }
}

async function* project(node: Extract<SqlPlanNode, { kind: 'project' }>, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  const subqueries = hasSubqueries(node.expressions);
  for await (const batch of runPlan(node.input, env)) {
    const context = subqueries ? await subqueryContext(node.expressions, batch, env) : env.context;
    yield {
      rowCount: batch.rowCount,
      columns: node.expressions.map((expression) => evaluate(expression, batch, context)),
    };
  }
}

async function* hashAggregate(node: Extract<SqlPlanNode, { kind: 'aggregate' }>, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  const fused = joinAggregatePlan(node, env);
  if (fused !== undefined) {
    yield* runJoinAggregate(fused, env);
    return;
  }
  if (node.skipScan === true) {
    yield* (await aggregateBySkipScan(node, env)).results();
    return;
  }
  if (node.inScan === true) {
    const inScan = await aggregateInScan(node, env);
    if (inScan !== undefined) {
      yield* inScan.results();
      return;
    }
  }
  const groups = new SqlGroupTable(node, env);
  const inputs = [...node.keys, ...node.aggregates.flatMap((call) => call.args.slice(0, 1))];
  const subqueries = hasSubqueries(inputs);
  for await (const group of batchGroups(node.input, env)) for (const batch of group) {
    if (batch.rowCount === 0) continue;
    const context = subqueries ? await subqueryContext(inputs, batch, env) : env.context;
    groups.addBatch(batch, context);
  }
  yield* groups.results();
}

async function* distinct(node: Extract<SqlPlanNode, { kind: 'distinct' }>, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  const seen = new Set<string>();
  for await (const batch of runPlan(node.input, env)) {
    const keep: number[] = [];
    for (let r = 0; r < batch.rowCount; r++) {
      let text = '';
      for (const column of batch.columns) text += `${valueKey(column[r]!)}\u0000`;
      if (seen.has(text)) continue;
      env.memory.charge(32 + 2 * text.length, 'DISTINCT');
      seen.add(text);
      keep.push(r);
    }
    yield { rowCount: keep.length, columns: batch.columns.map((column) => keep.map((r) => column[r]!)) };
  }
}

/** Rows past twice the LIMIT a bounded sort gathers before it sorts and cuts (amortises the sorts). */
const SORT_CUT_SLACK_ROW_COUNT = 64;

async function* sort(node: Extract<SqlPlanNode, { kind: 'sort' }>, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  const compare = (a: SqlValue[], b: SqlValue[]): number => {
    for (const key of node.keys) {
      const order = compareSqlValues(a[key.column]!, b[key.column]!);
      if (order !== 0) return key.descending ? -order : order;
    }
    return 0;
  };
  let rows: SqlValue[][] = [];
  let heldBytes = 0;
  // With LIMIT, only the best rowCountMax rows are kept: sort and cut whenever twice that many wait.
  const keepMax = node.rowCountMax;
  for await (const batch of runPlan(node.input, env)) {
    for (let r = 0; r < batch.rowCount; r++) {
      const row = batch.columns.map((column) => column[r]!);
      const bytes = rowSizeBytes(row);
      env.memory.charge(bytes, 'ORDER BY');
      heldBytes += bytes;
      rows.push(row);
      if (rows.length >= 2 * keepMax + SORT_CUT_SLACK_ROW_COUNT) {
        rows = (await sortSliced(rows, compare, env.work)).slice(0, keepMax);
        let keptBytes = 0;
        for (const kept of rows) keptBytes += rowSizeBytes(kept);
        env.memory.release(heldBytes - keptBytes);
        heldBytes = keptBytes;
      }
    }
  }
  rows = await sortSliced(rows, compare, env.work);
  if (rows.length > keepMax) rows = rows.slice(0, keepMax);
  const columnCount = node.columns.length;
  for (let start = 0; start < rows.length; start += SQL_BATCH_ROW_COUNT) {
    const slice = rows.slice(start, start + SQL_BATCH_ROW_COUNT);
    yield {
      rowCount: slice.length,
      columns: Array.from({ length: columnCount }, (_, c) => slice.map((row) => row[c]!)),
    };
  }
}

function rowSizeBytes(row: readonly SqlValue[]): number {
  let bytes = 32;
  for (const value of row) bytes += valueSizeBytes(value);
  return bytes;
}

async function* limit(node: Extract<SqlPlanNode, { kind: 'limit' }>, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  assert(node.limit >= 0 && node.offset >= 0);
  let skip = node.offset;
  let left = node.limit;
  if (left === 0) return;
  for await (const batch of runPlan(node.input, env)) {
    const start = Math.min(skip, batch.rowCount);
    skip -= start;
    const end = Math.min(batch.rowCount, start + left);
    if (end > start) {
      left -= end - start;
      yield start === 0 && end === batch.rowCount ? batch
        : { rowCount: end - start, columns: batch.columns.map((column) => column.slice(start, end)) };
    }
    if (left === 0) return;
  }
}

/** Every row of a plan, for statements that need them all (INSERT … SELECT, UPDATE, DELETE). */
export async function collectRows(node: SqlPlanNode, env: SqlRunEnvironment, rowCountMax: number):
  Promise<SqlValue[][]> {
  const rows: SqlValue[][] = [];
  for await (const batch of runPlan(node, env)) {
    for (let r = 0; r < batch.rowCount; r++) rows.push(batch.columns.map((column) => column[r]!));
    if (rows.length > rowCountMax) {
      throw new StorageError('LIMIT_EXCEEDED', `the statement changes more than ${rowCountMax} ` +
        'rows at once (SQL_DML_ROW_COUNT_MAX): split it with a narrower WHERE');
    }
  }
  return rows;
}
