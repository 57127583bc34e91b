// GROUP BY inside the scan (an aggregate node marked inScan: plan-scan-aggregate.ts). The table
// hands each piece of its blocks to a callback inside the scan's own turn (SqlTable.visit), its
// DOUBLE and TIMESTAMP columns as views of the blocks' Float64Arrays; the WHERE filter and the
// grouping run on the piece there and then, so no page is copied and no batch goes through the
// filter and aggregate operators' generators. The keys, the filter's masks and the accumulators
// are the paged path's own (SqlGroupTable, filterRows): the answer is the same. Nothing keeps a
// piece past the callback: keys and accumulators take values, never the arrays.

import type { SqlPlanNode } from '../plan/logical-plan.ts';
import { scanAggregateInput } from '../plan/plan-scan-aggregate.ts';
import type { SqlValue } from '../value.ts';
import { filterRows, type SqlBatch, type SqlColumn } from './evaluate.ts';
import { SqlGroupTable } from './aggregate-groups.ts';
import type { SqlRunEnvironment } from './execute-plan.ts';

/** The node's groups, computed in the scan; undefined when the table cannot (no visit): the paged path. */
export async function aggregateInScan(node: Extract<SqlPlanNode, { kind: 'aggregate' }>, env: SqlRunEnvironment):
  Promise<SqlGroupTable | undefined> {
  const { scan, filter } = scanAggregateInput(node);
  const table = env.table(scan.table);
  if (table.visit === undefined) return undefined;
  const groups = new SqlGroupTable(node, env);
  if (scan.keyRange.empty) return groups;
  const width = scan.columns.length;
  const counts = env.rowCounts;
  const visit = (read: SqlBatch): void => {
    env.control.check();
    // As the scan operator lays them out: schema positions, the columns not read left empty.
    const columns = new Array<SqlColumn>(width).fill(NOT_READ);
    for (let i = 0; i < scan.columnIndexes.length; i++) columns[scan.columnIndexes[i]!] = read.columns[i]!;
    const batch: SqlBatch = { rowCount: read.rowCount, columns };
    const kept = filter === undefined ? batch : filterRows(batch, filter.predicate, env.context);
    if (counts !== undefined) {
      counts.set(scan, (counts.get(scan) ?? 0) + batch.rowCount);
      if (filter !== undefined) counts.set(filter, (counts.get(filter) ?? 0) + kept.rowCount);
    }
    groups.addBatch(kept, env.context);
  };
  for (const range of scan.keyRanges ?? [scan.keyRange]) {
    await table.visit({ columnIndexes: scan.columnIndexes, from: range.from, to: range.to, rowCountMax: Infinity }, visit);
    env.control.check();
  }
  return groups;
}

const NOT_READ: readonly SqlValue[] = [];
