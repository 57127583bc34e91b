// The groups of a hash aggregate (GROUP BY, or aggregates without one): a map from the group's key
// values to one accumulator per aggregate call, each group charged to the statement's work memory
// when it is made. Two ways in: addBatch takes a batch of input rows and cuts it into runs of rows
// of one group (rows come in key order, so neighbours mostly share a group); addRun gives one
// group a run of argument values at once (join-aggregate.ts: a look-up's rows all belong to the
// left row's group). Both feed the accumulators a run at a time (aggregates.ts: one tight loop).

import { SQL_BATCH_ROW_COUNT } from '../../base/limits.ts';
import type { SqlPlanNode } from '../plan/logical-plan.ts';
import type { SqlValue } from '../value.ts';
import { createAccumulator, type SqlAccumulator } from './aggregates.ts';
import { evaluate, type SqlBatch, type SqlColumn } from './evaluate.ts';
import type { SqlRunEnvironment } from './execute-plan.ts';
import type { SqlEvalContext } from '../functions/scalar-function.ts';
import { valueKey, valueSizeBytes } from './value-ops.ts';

export type SqlAggregateNode = Extract<SqlPlanNode, { kind: 'aggregate' }>;

export interface SqlGroup {
  readonly keys: SqlValue[];
  readonly accumulators: SqlAccumulator[];
}

const GROUP_OVERHEAD_BYTES = 64;
const ACCUMULATOR_OVERHEAD_BYTES = 48;
/** COUNT(*)'s argument: every row counts, so a column of TRUE stands for it (shared, read only). */
const COUNT_ALL_COLUMN: readonly SqlValue[] = new Array<SqlValue>(SQL_BATCH_ROW_COUNT).fill(true);

export class SqlGroupTable {
  private readonly groups = new Map<string | number, SqlGroup>();
  private readonly argTypes;

  constructor(private readonly node: SqlAggregateNode, private readonly env: SqlRunEnvironment) {
    this.argTypes = node.aggregates.map((call) => call.args[0]?.type ?? 'UNKNOWN');
  }

  /** The group of row `r` of the key columns (one per GROUP BY key), made if new. */
  groupOf(keyColumns: readonly SqlColumn[], r: number): SqlGroup {
    let text: string | number;
    if (keyColumns.length === 1) text = groupKeyOf(keyColumns[0]![r]!);
    else {
      text = '';
      for (const column of keyColumns) text += `${valueKey(column[r]!)}\u0000`;
    }
    let group = this.groups.get(text);
    if (group === undefined) {
      group = this.newGroup(keyColumns.map((column) => column[r]!));
      this.groups.set(text, group);
    }
    return group;
  }

  /**
   * Rows start … end - 1 of the aggregates' argument columns (undefined: COUNT(*)) into one group;
   * the bytes the accumulators started to hold are charged.
   */
  addRun(group: SqlGroup, argColumns: readonly (SqlColumn | undefined)[], start: number, end: number): void {
    let heldBytes = 0;
    for (let a = 0; a < argColumns.length; a++) {
      heldBytes += group.accumulators[a]!.addRange(this.argOrCountAll(argColumns[a], end), start, end);
    }
    if (heldBytes > 0) this.env.memory.charge(heldBytes, 'aggregate');
  }

  /** A batch of input rows: each run of rows of one group found once, then given to its group. */
  addBatch(batch: SqlBatch, context: SqlEvalContext): void {
    const { node } = this;
    if (batch.rowCount === 0) return;
    const keyColumns = node.keys.map((key) => evaluate(key, batch, context));
    const argColumns = node.aggregates.map((call) =>
      (call.args.length === 0 ? undefined : evaluate(call.args[0]!, batch, context)));
    const runGroups: SqlGroup[] = [];
    const runStarts: number[] = [];
    // A row with the previous row's key values stays in its run without building the key text.
    const changed = keyChanges(keyColumns, batch.rowCount);
    for (let r = 0; r < batch.rowCount; r++) {
      if (changed[r] === 0) continue;
      const group = this.groupOf(keyColumns, r);
      if (runGroups.length > 0 && runGroups[runGroups.length - 1] === group) continue;
      runGroups.push(group);
      runStarts.push(r);
    }
    runStarts.push(batch.rowCount);
    for (let i = 0; i < runGroups.length; i++) this.addRun(runGroups[i]!, argColumns, runStarts[i]!, runStarts[i + 1]!);
  }

  /** The groups' rows (keys, then the aggregates' results); without GROUP BY one row even over no input. */
  *results(): Generator<SqlBatch> {
    const { node } = this;
    if (this.groups.size === 0 && node.keys.length === 0) this.groups.set('', this.newGroup([]));
    const groups = [...this.groups.values()];
    const columnCount = node.keys.length + node.aggregates.length;
    for (let start = 0; start < groups.length; start += SQL_BATCH_ROW_COUNT) {
      const slice = groups.slice(start, start + SQL_BATCH_ROW_COUNT);
      const columns: SqlValue[][] = Array.from({ length: columnCount }, () => []);
      for (const group of slice) {
        let c = 0;
        for (const key of group.keys) columns[c++]!.push(key);
        for (const accumulator of group.accumulators) columns[c++]!.push(accumulator.result());
      }
      yield { rowCount: slice.length, columns };
    }
  }

  private argOrCountAll(column: SqlColumn | undefined, end: number): SqlColumn {
    if (column !== undefined) return column;
    return end <= COUNT_ALL_COLUMN.length ? COUNT_ALL_COLUMN : new Array<SqlValue>(end).fill(true);
  }

  private newGroup(keys: SqlValue[]): SqlGroup {
    const { node } = this;
    let bytes = GROUP_OVERHEAD_BYTES + node.aggregates.length * ACCUMULATOR_OVERHEAD_BYTES;
    for (const key of keys) bytes += valueSizeBytes(key);
    this.env.memory.charge(bytes, 'GROUP BY');
    return { keys, accumulators: node.aggregates.map((call, a) => createAccumulator(call, this.argTypes[a]!)) };
  }
}

/**
 * One key's map key: an integer stands for itself (a ms timestamp costs no text), as one number
 * whether it came as a number or a bigint; other values take their valueKey text, which no
 * integer equals.
 */
function groupKeyOf(value: SqlValue): string | number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'bigint' && value >= MIN_SAFE && value <= MAX_SAFE) return Number(value);
  return valueKey(value);
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * 1 for each row whose key values are not all `===` the previous row's (row 0 always), one loop per
 * key column: a Float64Array column is read in a loop of its own, where its values stay unboxed
 * doubles (a loop over columns of both kinds boxed each one it read, 32 bytes of garbage a row).
 */
export function keyChanges(keyColumns: readonly SqlColumn[], rowCount: number): Uint8Array {
  const changed = new Uint8Array(rowCount);
  if (rowCount === 0) return changed;
  changed[0] = 1;
  if (keyColumns.length === 0) return changed;
  for (const column of keyColumns) {
    if (column instanceof Float64Array) markTypedChanges(column, changed, rowCount);
    else markValueChanges(column, changed, rowCount);
  }
  return changed;
}

function markTypedChanges(column: Float64Array, changed: Uint8Array, rowCount: number): void {
  for (let r = 1; r < rowCount; r++) if (column[r] !== column[r - 1]) changed[r] = 1;
}

function markValueChanges(column: readonly SqlValue[], changed: Uint8Array, rowCount: number): void {
  for (let r = 1; r < rowCount; r++) if (column[r] !== column[r - 1]) changed[r] = 1;
}
