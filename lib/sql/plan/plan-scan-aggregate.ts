// The push-down of GROUP BY into the scan: an aggregate whose input is a table's scan of one or
// more row-key ranges, directly or under a WHERE filter, is marked `inScan`, and the executor
// (execute-scan-aggregate.ts) then filters and groups each piece of the blocks inside the scan's
// own turn, on the blocks' own DOUBLE and TIMESTAMP arrays, instead of pulling copied pages
// through the filter. Same keys, same accumulators, same answer: only where the rows come from
// changes. Not for a descending scan, a TREE index range, a row limit, or expressions holding a
// subquery (their rows are needed across an await).

import { assert } from '../../base/assert.ts';
import type { SqlBoundExpression } from './bound-expression.ts';
import type { SqlPlanNode } from './logical-plan.ts';
import { hasSubquery } from './plan-join.ts';
import { replaceNode } from './plan-scan.ts';

type AggregateNode = Extract<SqlPlanNode, { kind: 'aggregate' }>;
type ScanNode = Extract<SqlPlanNode, { kind: 'scan' }>;

/** root with its SELECT's aggregate (on the chain of inputs from root) marked inScan where it fits. */
export function aggregateInScan(root: SqlPlanNode): SqlPlanNode {
  for (let node: SqlPlanNode = root; 'input' in node; node = node.input) {
    if (node.kind !== 'aggregate') continue;
    return fitsInScan(node) ? replaceNode(root, node, { ...node, inScan: true }) : root;
  }
  return root;
}

/** The scan below an aggregate marked inScan, and the filter between them if any. */
export function scanAggregateInput(node: AggregateNode):
  { scan: ScanNode; filter: Extract<SqlPlanNode, { kind: 'filter' }> | undefined } {
  const filter = node.input.kind === 'filter' ? node.input : undefined;
  const scan = filter === undefined ? node.input : filter.input;
  assert(scan.kind === 'scan', `an inScan aggregate over ${scan.kind}`);
  return { scan, filter };
}

function fitsInScan(node: AggregateNode): boolean {
  const filter = node.input.kind === 'filter' ? node.input : undefined;
  const scan = filter === undefined ? node.input : filter.input;
  if (scan.kind !== 'scan' || scan.descending === true || scan.index !== undefined || scan.rowCountMax !== Infinity) {
    return false;
  }
  const expressions: SqlBoundExpression[] = [...node.keys, ...node.aggregates.flatMap((call) => call.args)];
  if (filter !== undefined) expressions.push(filter.predicate);
  return !expressions.some(hasSubquery);
}
