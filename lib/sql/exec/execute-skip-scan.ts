// The skip scan (an aggregate node marked skipScan: plan-skip-scan.ts): MAX of the second row-key
// column grouped by the first, from the last row of each key prefix alone. Per range of the scan:
// seek the first row at or after `from` (its first column is the next prefix p), read the prefix
// [p]..[p] descending for one row (its last), then seek again from p's successor. Two seeks per
// prefix, whatever the prefix's row count. Each last row goes through the WHERE filter (on the
// first key column only: the same answer for every row of the prefix) and the paged path's own
// SqlGroupTable, so keys, types and the output rows are the plain aggregate's. The seeks count
// as work of the statement's slices, so many prefixes still let commits run between them.

import { assert } from '../../base/assert.ts';
import type { KeyValue, RowKey } from '../../schema/column-type.ts';
import type { SqlPlanNode } from '../plan/logical-plan.ts';
import { scanAggregateInput } from '../plan/plan-scan-aggregate.ts';
import type { SqlValue } from '../value.ts';
import { SqlGroupTable } from './aggregate-groups.ts';
import { filterRows, type SqlBatch, type SqlColumn } from './evaluate.ts';
import type { SqlRunEnvironment } from './execute-plan.ts';
import type { SqlScanRequest, SqlTable } from './table-source.ts';

/** The node's groups, one row read per key prefix. */
export async function aggregateBySkipScan(node: Extract<SqlPlanNode, { kind: 'aggregate' }>, env: SqlRunEnvironment):
  Promise<SqlGroupTable> {
  const { scan, filter } = scanAggregateInput(node);
  const table = env.table(scan.table);
  const groups = new SqlGroupTable(node, env);
  if (scan.keyRange.empty) return groups;
  const width = scan.columns.length;
  const firstAt = scan.columnIndexes.indexOf(0);
  assert(firstAt >= 0, 'a skip scan reads the first key column');
  const counts = env.rowCounts;
  for (const range of scan.keyRanges ?? [scan.keyRange]) {
    let from: RowKey | undefined = range.from;
    for (;;) {
      env.control.check();
      const first = await firstRow(table, { columnIndexes: [0], from, to: range.to, rowCountMax: 1 });
      if (first === undefined) break;
      const prefix = first[0] as KeyValue;
      const last = await firstRow(table, {
        columnIndexes: scan.columnIndexes, from: [prefix], to: [prefix], rowCountMax: 1, descending: true,
      });
      assert(last !== undefined && last[firstAt] === prefix, 'a key prefix without a last row');
      // As the scan operator lays them out: schema positions, the columns not read left empty.
      const columns = new Array<SqlColumn>(width).fill(NOT_READ);
      for (let i = 0; i < scan.columnIndexes.length; i++) columns[scan.columnIndexes[i]!] = [last[i]!];
      const batch: SqlBatch = { rowCount: 1, columns };
      const kept = filter === undefined ? batch : filterRows(batch, filter.predicate, env.context);
      if (counts !== undefined) {
        counts.set(scan, (counts.get(scan) ?? 0) + 1);
        if (filter !== undefined) counts.set(filter, (counts.get(filter) ?? 0) + kept.rowCount);
      }
      if (kept.rowCount > 0) groups.addBatch(kept, env.context);
      from = [successor(prefix)];
      // The seeks' pages end without a turn of the event loop (one row each): count them.
      if (env.work.spend(PREFIX_WORK_UNITS)) await env.work.pause();
    }
  }
  return groups;
}

/** The first row a scan gives (request order of columns), or undefined when it gives none. */
async function firstRow(table: SqlTable, request: SqlScanRequest): Promise<SqlValue[] | undefined> {
  for await (const batch of table.scan(request)) {
    if (batch.rowCount > 0) return batch.columns.map((column) => column[0]!);
  }
  return undefined;
}

/** The least key value above `value`: no string lies between p and p + '\0' (UTF-16 order). */
function successor(value: KeyValue): KeyValue {
  if (typeof value === 'string') return `${value}\u0000`;
  if (typeof value === 'bigint') return value + 1n;
  assert(Number.isSafeInteger(value), `an integer key prefix: ${value}`);
  return value + 1;
}

const NOT_READ: readonly SqlValue[] = [];
/** Work units (work-slice.ts: a few hundred ns each) one prefix's two seeks count as. */
const PREFIX_WORK_UNITS = 64;
