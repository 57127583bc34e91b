// Runs MATCH_RECOGNIZE (a matchRecognize node, plan-match-recognize.ts): every input row is held
// (charged to work memory), sorted by the partition columns then the ORDER BY keys (NULL first,
// ties keep input order), and each partition is matched from its first row: an attempt at row s
// gives the preferred match starting there (row-pattern-matcher.ts) or none; after a match of
// rows s..e-1 the next attempt starts at e (AFTER MATCH SKIP PAST LAST ROW), after an empty match
// or none at s + 1. MATCH_NUMBER() counts the matches of a partition from 1, empty ones included.
//
// Output: ALL ROWS PER MATCH gives one row per matched row (its input columns, then the measures
// with running semantics: as of that row); an empty match gives one row, the start row's columns
// with the measures of an empty match (SQL:2016's SHOW EMPTY MATCHES). ONE ROW PER MATCH gives
// one row per match: the output columns of its last row, then the measures as of that row.
// The matcher's steps count as work (work-slice.ts): a long or pathological match turns the
// event loop, so it can be cancelled or time out.

import { assert } from '../../base/assert.ts';
import { SQL_BATCH_ROW_COUNT, SQL_WORK_SLICE_UNIT_COUNT } from '../../base/limits.ts';
import type { SqlMatchExpression, SqlMatchRecognizeNode, SqlMatchSlot } from '../plan/logical-plan.ts';
import type { SqlValue } from '../value.ts';
import { createAccumulator } from './aggregates.ts';
import { evaluate, type SqlBatch } from './evaluate.ts';
import { runPlan, type SqlRunEnvironment } from './execute-plan.ts';
import { SqlRowPatternMatcher } from './row-pattern-matcher.ts';
import { sortSliced } from './sort-sliced.ts';
import { compareSqlValues, valueSizeBytes } from './value-ops.ts';

type Row = readonly SqlValue[];

/** The match as of one row: `labels[i]` is the variable of row `start + i`; the last is current. */
interface MatchFrame {
  readonly rows: readonly Row[];
  readonly start: number;
  readonly labels: readonly number[];
  readonly matchNumber: number;
}

const ROW_OVERHEAD_BYTES = 64;
/** Matcher steps between checks of the work slice: a few per slice. */
const MATCH_STEP_BUDGET = SQL_WORK_SLICE_UNIT_COUNT / 4;

export async function* runMatchRecognize(node: SqlMatchRecognizeNode, env: SqlRunEnvironment):
  AsyncGenerator<SqlBatch> {
  const rows = await holdRows(node, env);
  const samePartition = (a: Row, b: Row): boolean =>
    node.partitionColumns.every((c) => compareSqlValues(a[c]!, b[c]!) === 0);
  const sorted = await sortSliced(rows, (a, b) => {
    for (const c of node.partitionColumns) {
      const order = compareSqlValues(a[c]!, b[c]!);
      if (order !== 0) return order;
    }
    for (const key of node.orderKeys) {
      const order = compareSqlValues(a[key.column]!, b[key.column]!);
      if (order !== 0) return key.descending ? -order : order;
    }
    return 0;
  }, env.work);
  let output: SqlValue[][] = [];
  for (let first = 0; first < sorted.length;) {
    let end = first + 1;
    while (end < sorted.length && samePartition(sorted[first]!, sorted[end]!)) end++;
    for await (const matched of matchPartition(node, sorted.slice(first, end), env)) {
      output.push(...matched);
      if (output.length >= SQL_BATCH_ROW_COUNT) {
        yield batchOf(output, node.columns.length);
        output = [];
      }
    }
    first = end;
  }
  if (output.length > 0) yield batchOf(output, node.columns.length);
}

async function holdRows(node: SqlMatchRecognizeNode, env: SqlRunEnvironment): Promise<Row[]> {
  const rows: Row[] = [];
  const width = node.input.columns.length;
  for await (const batch of runPlan(node.input, env)) {
    assert(batch.columns.length === width);
    let bytes = 0;
    for (let r = 0; r < batch.rowCount; r++) {
      const row = batch.columns.map((column) => column[r]!);
      for (const value of row) bytes += valueSizeBytes(value);
      bytes += ROW_OVERHEAD_BYTES;
      rows.push(row);
    }
    env.memory.charge(bytes, 'MATCH_RECOGNIZE');
  }
  return rows;
}

/** The output rows of one partition's matches, one array per match. */
async function* matchPartition(node: SqlMatchRecognizeNode, rows: readonly Row[], env: SqlRunEnvironment):
  AsyncGenerator<SqlValue[][]> {
  let start = 0;
  let matchNumber = 0;
  const matcher = new SqlRowPatternMatcher({
    program: node.program, rowCount: rows.length, stepCountMax: node.stepCountMax, memory: env.memory,
    test: (variable, labels) => {
      const define = node.defines[variable];
      if (define === undefined) return true;
      return evaluateAt(define, { rows, start, labels, matchNumber: matchNumber + 1 }, node, env) === true;
    },
  });
  while (start < rows.length) {
    matcher.start(start);
    let spent = 0;
    let result = matcher.run(MATCH_STEP_BUDGET);
    for (;;) {
      if (env.work.spend(matcher.steps - spent)) await env.work.pause();
      spent = matcher.steps;
      if (result.kind !== 'running') break;
      result = matcher.run(MATCH_STEP_BUDGET);
    }
    if (result.kind === 'failed') {
      start++;
      continue;
    }
    assert(start + result.labels.length <= rows.length);
    matchNumber++;
    yield outputOf(node, { rows, start, labels: result.labels, matchNumber }, env);
    start += Math.max(1, result.labels.length);
  }
}

function outputOf(node: SqlMatchRecognizeNode, match: MatchFrame, env: SqlRunEnvironment): SqlValue[][] {
  const { rows, start, labels } = match;
  assert(start < rows.length);
  const measuresAt = (frame: MatchFrame): SqlValue[] =>
    node.measures.map((measure) => evaluateAt(measure, frame, node, env));
  if (node.allRows) {
    if (labels.length === 0) return [[...node.outputColumns.map((c) => rows[start]![c]!), ...measuresAt(match)]];
    return labels.map((_label, k) => [
      ...node.outputColumns.map((c) => rows[start + k]![c]!),
      ...measuresAt({ ...match, labels: labels.slice(0, k + 1) }),
    ]);
  }
  // ONE ROW: without MEASURES the output columns are values of the match's last row (none: NULL);
  // with MEASURES they are the partition columns, equal in every row of the partition.
  const last = labels.length === 0 ? (node.measures.length === 0 ? undefined : start) : start + labels.length - 1;
  return [[...node.outputColumns.map((c) => (last === undefined ? null : rows[last]![c]!)), ...measuresAt(match)]];
}

function evaluateAt(expression: SqlMatchExpression, frame: MatchFrame, node: SqlMatchRecognizeNode,
  env: SqlRunEnvironment): SqlValue {
  const columns = expression.slots.map((slot) => [slotValue(slot, frame, node, env)]);
  return evaluate(expression.expression, { rowCount: 1, columns }, env.context)[0]!;
}

/** A slot's value as of the frame's last row (logical-plan.ts, SqlMatchSlot). */
function slotValue(slot: SqlMatchSlot, frame: MatchFrame, node: SqlMatchRecognizeNode, env: SqlRunEnvironment):
  SqlValue {
  const { rows, start, labels } = frame;
  assert(start + labels.length <= rows.length);
  switch (slot.kind) {
    case 'classifier': return labels.length === 0 ? null : node.variables[labels[labels.length - 1]!]!;
    case 'matchNumber': return BigInt(frame.matchNumber);
    case 'column': {
      let base: number;
      if (slot.variable === undefined) {
        base = labels.length === 0 ? -1 : slot.navigation === 'first' ? start : start + labels.length - 1;
      } else {
        const i = slot.navigation === 'first' ? labels.indexOf(slot.variable) : labels.lastIndexOf(slot.variable);
        base = i < 0 ? -1 : start + i;
      }
      if (base < 0) return null;
      const row = slot.navigation === 'prev' ? base - 1 : slot.navigation === 'next' ? base + 1 : base;
      return row < 0 || row >= rows.length ? null : rows[row]![slot.column]!;
    }
    case 'aggregate': {
      const chosen: Row[] = [];
      labels.forEach((label, i) => {
        if (slot.variable === undefined || label === slot.variable) chosen.push(rows[start + i]!);
      });
      const width = node.input.columns.length;
      const batch: SqlBatch = {
        rowCount: chosen.length, columns: Array.from({ length: width }, (_c, c) => chosen.map((row) => row[c]!)),
      };
      const arg = slot.call.args[0];
      const values = arg === undefined ? new Array<SqlValue>(chosen.length).fill(true)
        : evaluate(arg, batch, env.context);
      const accumulator = createAccumulator(slot.call, arg?.type ?? 'UNKNOWN');
      accumulator.addRange(values, 0, chosen.length);
      return accumulator.result();
    }
  }
}

function batchOf(rows: readonly SqlValue[][], width: number): SqlBatch {
  return { rowCount: rows.length, columns: Array.from({ length: width }, (_c, c) => rows.map((row) => row[c]!)) };
}
