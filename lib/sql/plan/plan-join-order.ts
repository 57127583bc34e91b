// The order of a chain of three or more INNER joins (plan-join.ts calls this before it chooses
// each join's method). The chain's tables ("leaves": a scan, a filter over one, a derived table, a
// LEFT join) and all its conditions are taken apart, the leaves put in a new order, and a
// left-deep chain built again, each condition on the lowest join that has all its columns; a
// projection on top gives the columns in the order FROM named them, so nothing above changes.
//
//   Leading(t1 t2 …)        the named tables first, in that order (groups `((t1 t2) t3)` are read
//                           left to right), then the others in FROM order;
//   NoCostBasedJoin(), or   FROM order (GridDB's rule-based order);
//   /sql/costBasedJoin=false
//   otherwise (by cost)     the leaf with the fewest estimated rows first; then, each time, of
//                           the leaves a condition joins to those placed, the one with the fewest
//                           rows (none joined: the fewest of all, a cross join), so a small
//                           filtered table drives and no cross join comes before it must.
//
// Estimates are estimateRows' (row counts, TableRowCount hints, a filter keeps a third). Chains
// whose conditions hold a subquery keep their order.

import type { SqlHint, SqlHintArgument } from '../ast.ts';
import { normalizeName } from '../../schema/names.ts';
import { mapBoundChildren, type SqlBoundExpression } from './bound-expression.ts';
import type { SqlJoinNode, SqlPlanColumn, SqlPlanNode } from './logical-plan.ts';
import { conjunctsOf } from './plan-key-range.ts';

/** Leaves a chain is reordered up to; past it, FROM order (the greedy choice is O(n²) per chain). */
const JOIN_ORDER_LEAF_COUNT_MAX = 64;
/** The share of rows a condition on one table is assumed to keep (plan-join.ts' estimate too). */
const FILTER_SELECTIVITY = 1 / 3;

export type SqlJoinOrderRule = 'leading' | 'cost' | 'rules';

export interface SqlJoinOrderContext {
  readonly hints: readonly SqlHint[];
  /** /sql/costBasedJoin (true when absent). */
  readonly costBasedJoin?: boolean;
  readonly estimateRows: (node: SqlPlanNode) => number;
  readonly tablesOf: (node: SqlPlanNode) => string[];
  readonly hasSubquery: (expression: SqlBoundExpression) => boolean;
}

interface Leaf {
  readonly node: SqlPlanNode;
  /** Where its columns start in the chain's output as FROM gives it. */
  readonly offset: number;
}

/** Joins built here: their order is decided, planJoin does not take them apart again. */
const ordered = new WeakSet<SqlPlanNode>();

/**
 * The chain under `join` in its new order under a projection, or undefined when the order stays
 * (not a chain of 3+ INNER joins, already in that order, or a subquery in a condition).
 */
export function reorderJoins(join: SqlJoinNode, context: SqlJoinOrderContext):
  { node: SqlPlanNode; rule: SqlJoinOrderRule } | undefined {
  if (join.joinType !== 'INNER' || ordered.has(join)) return undefined;
  const leaves: Leaf[] = [];
  const conditions: SqlBoundExpression[] = [];
  flatten(join, 0, leaves, conditions);
  if (leaves.length < 3 || leaves.length > JOIN_ORDER_LEAF_COUNT_MAX || conditions.some(context.hasSubquery)) {
    return undefined;
  }
  const rule = ruleOf(context);
  const order = rule === 'leading' ? leadingOrder(leaves, context)
    : rule === 'cost' ? costOrder(leaves, conditions, context) : leaves.map((_leaf, i) => i);
  if (order.every((leaf, i) => leaf === i)) {
    markChain(join);
    return undefined;
  }
  return { node: rebuild(join, leaves, conditions, order), rule };
}

function ruleOf(context: SqlJoinOrderContext): SqlJoinOrderRule {
  const named = (name: string) => context.hints.some((hint) => hint.name.toUpperCase() === name);
  if (named('LEADING')) return 'leading';
  if (named('NOCOSTBASEDJOIN')) return 'rules';
  if (named('COSTBASEDJOIN')) return 'cost';
  return context.costBasedJoin === false ? 'rules' : 'cost';
}

function flatten(node: SqlPlanNode, offset: number, leaves: Leaf[], conditions: SqlBoundExpression[]): void {
  if (node.kind !== 'join' || node.joinType !== 'INNER') {
    leaves.push({ node, offset });
    return;
  }
  flatten(node.left, offset, leaves, conditions);
  flatten(node.right, offset + node.left.columns.length, leaves, conditions);
  for (const conjunct of conjunctsOf(node.condition)) conditions.push(remap(conjunct, (i) => i + offset));
}

function markChain(node: SqlPlanNode): void {
  if (node.kind !== 'join' || node.joinType !== 'INNER') return;
  ordered.add(node);
  markChain(node.left);
  markChain(node.right);
}

/** Leaves named by Leading, in its order, then the others in FROM order. */
function leadingOrder(leaves: readonly Leaf[], context: SqlJoinOrderContext): number[] {
  const hint = context.hints.find((candidate) => candidate.name.toUpperCase() === 'LEADING')!;
  const names = namesIn(hint.args);
  const order: number[] = [];
  for (const name of names) {
    const found = leaves.findIndex((leaf, i) => !order.includes(i) &&
      context.tablesOf(leaf.node).some((table) => normalizeName(table) === name));
    if (found >= 0) order.push(found);
  }
  leaves.forEach((_leaf, i) => { if (!order.includes(i)) order.push(i); });
  return order;
}

function namesIn(args: readonly SqlHintArgument[]): string[] {
  return args.flatMap((arg) => (arg.kind === 'name' ? [normalizeName(arg.text)] : arg.kind === 'group' ? namesIn(arg.items) : []));
}

/** Fewest rows first; then the joined leaf with the fewest rows (see the top). */
function costOrder(leaves: readonly Leaf[], conditions: readonly SqlBoundExpression[],
  context: SqlJoinOrderContext): number[] {
  const rows = leaves.map((leaf) => context.estimateRows(leaf.node));
  const leafOf = (column: number) => leaves.findLastIndex((leaf) => leaf.offset <= column);
  const touched = conditions.map((condition) => new Set(columnsOf(condition).map(leafOf)));
  // A WHERE conjunct on one leaf only (not yet pushed into it) filters it as a filter node would.
  for (const set of touched) {
    if (set.size === 1) for (const leaf of set) rows[leaf] = Math.max(1, rows[leaf]! * FILTER_SELECTIVITY);
  }
  const order: number[] = [];
  const placed = new Set<number>();
  while (order.length < leaves.length) {
    let best = -1;
    let bestJoined = false;
    for (let i = 0; i < leaves.length; i++) {
      if (placed.has(i)) continue;
      const joined = touched.some((set) => set.has(i) && set.size > 1 && [...set].every((leaf) => leaf === i || placed.has(leaf)));
      // Ties keep FROM order: the earlier leaf stays first.
      if (best < 0 || (joined && !bestJoined) || (joined === bestJoined && rows[i]! < rows[best]!)) {
        best = i;
        bestJoined = joined;
      }
    }
    order.push(best);
    placed.add(best);
  }
  return order;
}

/** A left-deep chain of the leaves in `order`, each condition on its lowest join; FROM's columns on top. */
function rebuild(join: SqlJoinNode, leaves: readonly Leaf[], conditions: readonly SqlBoundExpression[],
  order: readonly number[]): SqlPlanNode {
  const newOffset: number[] = [];
  let width = 0;
  for (const leaf of order) {
    newOffset[leaf] = width;
    width += leaves[leaf]!.node.columns.length;
  }
  const leafOf = (column: number) => leaves.findLastIndex((leaf) => leaf.offset <= column);
  const moved = (column: number) => {
    const leaf = leafOf(column);
    return newOffset[leaf]! + column - leaves[leaf]!.offset;
  };
  // Each condition joins at the first position where all its leaves are placed.
  const position = order.map((_leaf, i) => i);
  const at = conditions.map((condition) => {
    const needed = columnsOf(condition).map((column) => position[order.indexOf(leafOf(column))]!);
    return Math.max(1, ...needed);
  });
  let node: SqlPlanNode = leaves[order[0]!]!.node;
  for (let i = 1; i < order.length; i++) {
    const right = leaves[order[i]!]!.node;
    const mine = conditions.filter((_condition, c) => at[c] === i).map((condition) => remap(condition, moved));
    const columns: SqlPlanColumn[] = [...node.columns, ...right.columns];
    const next: SqlJoinNode = {
      kind: 'join', joinType: 'INNER', method: 'nestedLoop', left: node, right, leftKeys: [], rightKeys: [],
      buildSide: 'right', condition: andOf(mine), columns,
    };
    ordered.add(next);
    node = next;
  }
  const inner = node;
  return {
    kind: 'project', input: inner,
    expressions: join.columns.map((column, i): SqlBoundExpression => ({ kind: 'column', index: moved(i), type: column.type })),
    columns: join.columns,
  };
}

function andOf(conjuncts: readonly SqlBoundExpression[]): SqlBoundExpression | undefined {
  return conjuncts.reduce<SqlBoundExpression | undefined>((all, next) =>
    (all === undefined ? next : { kind: 'logic', operator: 'AND', left: all, right: next, type: 'BOOL' }), undefined);
}

function columnsOf(expression: SqlBoundExpression): number[] {
  if (expression.kind === 'column') return [expression.index];
  const found: number[] = [];
  mapBoundChildren(expression, (child) => {
    found.push(...columnsOf(child));
    return child;
  });
  return found;
}

function remap(expression: SqlBoundExpression, to: (column: number) => number): SqlBoundExpression {
  if (expression.kind === 'column') return { ...expression, index: to(expression.index) };
  return mapBoundChildren(expression, (child) => remap(child, to));
}
