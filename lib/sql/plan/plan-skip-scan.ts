// The skip scan of MAX over the second row-key column grouped by the first (the newest row of
// each host: `SELECT hostname, MAX(ts) FROM cpu GROUP BY hostname` on PRIMARY KEY (hostname, ts)).
// The rows of one first-column value (a prefix) lie together in key order, their second column
// ascending, so the group's MAX is the second column of the prefix's last row: the executor
// (execute-skip-scan.ts) reads that one row per prefix (seek to the prefix's end, step back one
// row, then seek past the prefix) instead of every row. Marked only over a plain scan of the
// table, or a filter on the first key column alone, which holds for all rows of a prefix alike.

import type { ContainerSchema } from '../../schema/container-schema.ts';
import { mapBoundChildren, type SqlBoundExpression } from './bound-expression.ts';
import type { SqlPlanNode } from './logical-plan.ts';
import { replaceNode } from './plan-scan.ts';

type AggregateNode = Extract<SqlPlanNode, { kind: 'aggregate' }>;

/** root with its SELECT's aggregate (on the chain of inputs from root) marked skipScan where it fits. */
export function aggregateBySkipScan(root: SqlPlanNode, schema: ContainerSchema | undefined): SqlPlanNode {
  if (schema === undefined) return root;
  for (let node: SqlPlanNode = root; 'input' in node; node = node.input) {
    if (node.kind !== 'aggregate') continue;
    return fitsSkipScan(node, schema) ? replaceNode(root, node, { ...node, inScan: undefined, skipScan: true }) : root;
  }
  return root;
}

function fitsSkipScan(node: AggregateNode, schema: ContainerSchema): boolean {
  const filter = node.input.kind === 'filter' ? node.input : undefined;
  const scan = filter === undefined ? node.input : filter.input;
  if (scan.kind !== 'scan' || scan.table !== schema.name || scan.descending === true || scan.index !== undefined ||
    scan.rowCountMax !== Infinity || schema.rowKeyColumnCount < 2) {
    return false;
  }
  const columns = schema.columns;
  // The next prefix is sought from the first column's successor; a descending read of one prefix
  // pads its upper bound with the greatest value of each later key column, which STRING lacks.
  if (!SUCCESSOR_TYPES.has(columns[0]!.type) || columns[0]!.array) return false;
  for (let i = 1; i < schema.rowKeyColumnCount; i++) if (columns[i]!.type === 'STRING') return false;
  // Bounds on the first key column only (a WHERE on later columns would cut prefixes' ends).
  const ranges = scan.keyRanges ?? [scan.keyRange];
  if (ranges.some((r) => !prefixBound(r.from) || !prefixBound(r.to))) return false;
  if (node.keys.length !== 1 || !isColumn(node.keys[0]!, 0)) return false;
  if (node.aggregates.length === 0) return false;
  if (!node.aggregates.every((call) => call.name === 'MAX' && call.args.length === 1 && isColumn(call.args[0]!, 1))) {
    return false;
  }
  return filter === undefined || onlyColumn(filter.predicate, 0);
}

/** First key column types whose successor is known: `p + '\0'` for a string, p + 1 for an integer. */
const SUCCESSOR_TYPES: ReadonlySet<string> = new Set(['STRING', 'INTEGER', 'LONG']);

function prefixBound(bound: unknown): boolean {
  return bound === undefined || !Array.isArray(bound) || bound.length <= 1;
}

function isColumn(expression: SqlBoundExpression, index: number): boolean {
  return expression.kind === 'column' && expression.index === index;
}

/** The expression reads no column but `index`, and nothing from outside (no subquery, no outer reference). */
function onlyColumn(expression: SqlBoundExpression, index: number): boolean {
  switch (expression.kind) {
    case 'column': return expression.index === index;
    case 'constant': return true;
    case 'outer': case 'subquery': return false;
    default: {
      let only = true;
      mapBoundChildren(expression, (child) => {
        only &&= onlyColumn(child, index);
        return child;
      });
      return only;
    }
  }
}
