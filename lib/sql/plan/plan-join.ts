// Join planning, after the query's plan is built: WHERE's conditions move into the joins and
// their sides where that cannot change the answer (any side of an INNER join, only the kept left
// side of a LEFT join), each join's condition splits into equal keys, one-side filters and the
// rest, and the method is chosen by a simple cost from the tables' row counts (§5.9 hints first):
//
//   no equal keys                              nestedLoop (right side held in work memory)
//   IndexJoin(l r), or the right side a bare   indexNestedLoop: one lookup per left row by the
//   table whose row key or a TREE index leads  right table's row key / TREE index, nothing held
//   with the key, and left rows × 8 < right
//   rows (unless NoIndexJoin(l r))
//   otherwise                                  hash, the smaller side built (a LEFT join: right)
//
// The order of a chain of 3+ INNER joins is chosen first (plan-join-order.ts: by cost, by a
// Leading hint, or FROM's order with NoCostBasedJoin() or /sql/costBasedJoin=false).

import type { ContainerSchema } from '../../schema/container-schema.ts';
import { normalizeName } from '../../schema/names.ts';
import type { SqlHint } from '../ast.ts';
import { mapBoundChildren, type SqlBoundExpression } from './bound-expression.ts';
import type { SqlIndexRange, SqlJoinNode, SqlPlanNode } from './logical-plan.ts';
import { conjunctsOf, constantValue, isStatementConstant } from './plan-key-range.ts';
import { reorderJoins } from './plan-join-order.ts';
import { keyColumnRange } from './plan-scan.ts';
import { scanWithRanges, type SqlPlanContext } from './plan-select.ts';

/** Rows assumed for a table whose count is unknown. */
const TABLE_ROW_COUNT_DEFAULT = 1000;
/** An index nested-loop join pays when the left side has this many times fewer rows than the right. */
const INDEX_JOIN_ROW_RATIO_MIN = 8;
/** The share of rows a filter is assumed to keep. */
const FILTER_SELECTIVITY = 1 / 3;
/** The share of a table's rows a skip scan is assumed to give: one per key prefix of many rows. */
const SKIP_SCAN_ROW_SHARE = 1 / 64;
/** Second key column types whose SQL value is the engine's key value (a whole-key look-up's bound). */
const WHOLE_KEY_TYPES: ReadonlySet<string> = new Set(['INTEGER', 'LONG', 'STRING', 'TIMESTAMP', 'TIMESTAMP(6)', 'TIMESTAMP(9)']);
const INDEX_JOIN_KEY_TYPES: ReadonlySet<string> = new Set(['BYTE', 'SHORT', 'INTEGER', 'LONG', 'STRING']);
/**
 * Key column types whose range bounds are exact (plan-scan.ts' keyBound): a bound conjunct is
 * decided. Not LONG: plan-key-range.ts picks the tighter of two bounds as doubles.
 */
const EXACT_BOUND_TYPES: ReadonlySet<string> = new Set(['BYTE', 'SHORT', 'INTEGER', 'TIMESTAMP']);

export function optimizeJoins(node: SqlPlanNode, context: SqlPlanContext): SqlPlanNode {
  switch (node.kind) {
    case 'filter': {
      const input = node.input;
      if (input.kind === 'join') return filterOverJoin(node.predicate, input, context);
      if (input.kind === 'scan') return pushIntoScan(input, node.predicate, context);
      return { ...node, input: optimizeJoins(input, context) };
    }
    case 'join': return planJoin(node, context);
    case 'setOperation':
      return { ...node, left: optimizeJoins(node.left, context), right: optimizeJoins(node.right, context) };
    default:
      return 'input' in node ? { ...node, input: optimizeJoins(node.input, context) } as SqlPlanNode : node;
  }
}

function pushIntoScan(scan: Extract<SqlPlanNode, { kind: 'scan' }>, predicate: SqlBoundExpression,
  context: SqlPlanContext): SqlPlanNode {
  const schema = context.tableSchema(scan.table);
  const input = schema === undefined ? scan : scanWithRanges(scan, schema, predicate, context);
  return { kind: 'filter', input, predicate, columns: scan.columns };
}

function filterOverJoin(predicate: SqlBoundExpression, join: SqlJoinNode, context: SqlPlanContext): SqlPlanNode {
  const width = join.left.columns.length;
  const stay: SqlBoundExpression[] = [];
  const intoLeft: SqlBoundExpression[] = [];
  const intoJoin: SqlBoundExpression[] = [];
  for (const conjunct of conjunctsOf(predicate)) {
    if (hasSubquery(conjunct)) stay.push(conjunct);
    else if (join.joinType === 'INNER') intoJoin.push(conjunct);
    else if (maxColumn(conjunct) < width) intoLeft.push(conjunct);
    else stay.push(conjunct);
  }
  const left = intoLeft.length === 0 ? join.left : filterOf(join.left, intoLeft);
  const condition = andOf([...conjunctsOf(join.condition), ...intoJoin]);
  const planned = planJoin({ ...join, left, condition }, context);
  return stay.length === 0 ? planned : { kind: 'filter', input: planned, predicate: andOf(stay)!, columns: planned.columns };
}

function planJoin(join: SqlJoinNode, context: SqlPlanContext): SqlPlanNode {
  const reordered = reorderJoins(join, {
    hints: context.hints, estimateRows: (node) => estimateRows(node, context), tablesOf, hasSubquery,
    ...(context.costBasedJoin === undefined ? {} : { costBasedJoin: context.costBasedJoin }),
  });
  // The chain in its new order (each join marked: this does not come back here).
  if (reordered !== undefined) return optimizeJoins(reordered.node, context);
  const width = join.left.columns.length;
  const leftOnly: SqlBoundExpression[] = [];
  const rightOnly: SqlBoundExpression[] = [];
  const keys: { left: SqlBoundExpression; right: SqlBoundExpression }[] = [];
  const rest: SqlBoundExpression[] = [];
  for (const conjunct of conjunctsOf(join.condition)) {
    const columns = columnsOf(conjunct);
    const low = Math.min(...columns);
    const high = Math.max(...columns);
    if (columns.length > 0 && high < width && join.joinType === 'INNER') leftOnly.push(conjunct);
    else if (columns.length > 0 && low >= width) rightOnly.push(shiftColumns(conjunct, -width));
    else if (conjunct.kind === 'compare' && conjunct.operator === '=' && sideOf(conjunct.left, width) !== sideOf(conjunct.right, width) &&
      sideOf(conjunct.left, width) !== 'both' && sideOf(conjunct.right, width) !== 'both' &&
      sideOf(conjunct.left, width) !== 'none' && sideOf(conjunct.right, width) !== 'none') {
      const [l, r] = sideOf(conjunct.left, width) === 'left' ? [conjunct.left, conjunct.right] : [conjunct.right, conjunct.left];
      keys.push({ left: l, right: shiftColumns(r, -width) });
    } else {
      rest.push(conjunct);
    }
  }
  const left = optimizeJoins(leftOnly.length === 0 ? join.left : filterOf(join.left, leftOnly), context);
  const right = optimizeJoins(rightOnly.length === 0 ? join.right : filterOf(join.right, rightOnly), context);
  const base = { ...join, left, right, condition: andOf(rest) };
  if (keys.length === 0) return { ...base, method: 'nestedLoop', leftKeys: [], rightKeys: [], buildSide: 'right' };
  const lookup = indexLookup(left, right, keys, context);
  if (lookup !== undefined) {
    const looked = lookup.secondKeyIndex === undefined ? [lookup.keyIndex] : [lookup.keyIndex, lookup.secondKeyIndex];
    const others = keys.filter((_key, i) => !looked.includes(i))
      .map((key): SqlBoundExpression => ({ kind: 'compare', operator: '=', left: key.left, right: shiftColumns(key.right, width), type: 'BOOL' }));
    // The right side's own filter is tested on each pair: the look-up reads the table, not the plan.
    const filter = lookup.filter === undefined ? [] : [shiftColumns(lookup.filter, width)];
    return {
      ...base, right: lookup.scan, method: 'indexNestedLoop', leftKeys: looked.map((k) => keys[k]!.left),
      rightKeys: looked.map((k) => keys[k]!.right), buildSide: 'right', condition: andOf([...others, ...rest, ...filter]),
      lookup: lookup.lookup,
    };
  }
  const buildSide = join.joinType === 'LEFT' || estimateRows(right, context) <= estimateRows(left, context) ? 'right' : 'left';
  return { ...base, method: 'hash', leftKeys: keys.map((k) => k.left), rightKeys: keys.map((k) => k.right), buildSide };
}

/**
 * An index nested-loop lookup on the right table, when one is possible and pays (or a hint asks).
 * The right side is a bare table or a filter over one (a WHERE on the right's columns): the filter
 * moves into the join's condition, and when the look-up is by the first column of a composite row
 * key, its bounds on the second key column narrow each look-up (`readings.ts BETWEEN …`).
 */
function indexLookup(left: SqlPlanNode, right: SqlPlanNode, keys: readonly { left: SqlBoundExpression; right: SqlBoundExpression }[],
  context: SqlPlanContext): {
    keyIndex: number; secondKeyIndex: number | undefined; lookup: NonNullable<SqlJoinNode['lookup']>;
    scan: Extract<SqlPlanNode, { kind: 'scan' }>;
    filter: SqlBoundExpression | undefined;
  } | undefined {
  const filtered = right.kind === 'filter' && right.input.kind === 'scan' && !hasSubquery(right.predicate);
  const filter = filtered ? right.predicate : undefined;
  const scan = filtered ? right.input : right;
  if (scan.kind !== 'scan' || scan.keyRange.from !== undefined || scan.keyRange.to !== undefined || scan.keyRange.empty ||
    scan.keyRanges !== undefined || scan.index !== undefined || scan.rowCountMax !== Infinity) {
    return undefined;
  }
  const schema = context.tableSchema(scan.table);
  if (schema === undefined) return undefined;
  const leftTables = tablesOf(left);
  const hinted = (name: string) => context.hints.some((hint) => hint.name.toUpperCase() === name &&
    hintNames(hint).includes(normalizeName(scan.table)) && leftTables.some((table) => hintNames(hint).includes(normalizeName(table))));
  if (hinted('NOINDEXJOIN')) return undefined;
  const forced = hinted('INDEXJOIN');
  if (!forced && estimateRows(left, context) * INDEX_JOIN_ROW_RATIO_MIN >= estimateRows(scan, context)) return undefined;
  for (let i = 0; i < keys.length; i++) {
    const { left: leftKey, right: rightKey } = keys[i]!;
    if (rightKey.kind !== 'column' || leftKey.type !== rightKey.type || !INDEX_JOIN_KEY_TYPES.has(rightKey.type)) continue;
    const found = lookupIndex(schema, rightKey.index);
    if (found === undefined) continue;
    const byKeyPrefix = found.index === undefined && schema.rowKeyColumnCount > 1 && filter !== undefined;
    const next = byKeyPrefix ? keyColumnRange(schema, conjunctsOf(filter), 1, context.evalContext) : undefined;
    // The conjuncts the look-up's key range decides need no test per pair.
    const kept = next === undefined || next.empty ? conjunctsOf(filter) : conjunctsOf(filter).filter((c) => !boundsKeyColumn(c, 1, context));
    // Equal on the second key column too (a two-column key): the look-up reads that one key.
    const second = found.index === undefined && schema.rowKeyColumnCount === 2 && (next === undefined || next.empty)
      ? keys.findIndex((k, j) => j !== i && k.right.kind === 'column' && k.right.index === 1 &&
        k.left.type === k.right.type && WHOLE_KEY_TYPES.has(k.right.type))
      : -1;
    return {
      keyIndex: i, secondKeyIndex: second < 0 ? undefined : second, scan, filter: andOf(kept),
      lookup: {
        table: scan.table, columnIndex: rightKey.index, index: found.index,
        ...(next === undefined || next.empty ? {} : { next: { from: next.from, to: next.to } }),
        ...(second < 0 ? {} : { wholeKey: true as const }),
      },
    };
  }
  return undefined;
}

/**
 * Whether a conjunct is `column op constant` (either way round, op one of < <= > >= =) on column
 * `columnIndex` of a small integer or millisecond-timestamp type, the constant of the same type and
 * not NULL: the key range plan-scan.ts takes from it holds exactly the values it accepts (NULL is no
 * key value).
 */
function boundsKeyColumn(conjunct: SqlBoundExpression, columnIndex: number, context: SqlPlanContext): boolean {
  if (conjunct.kind !== 'compare' || conjunct.operator === '!=') return false;
  const [column, constant] = conjunct.left.kind === 'column' ? [conjunct.left, conjunct.right] : [conjunct.right, conjunct.left];
  return column.kind === 'column' && column.index === columnIndex && EXACT_BOUND_TYPES.has(column.type) &&
    constant.type === column.type && isStatementConstant(constant) &&
    // A NULL bound bounds nothing, yet the conjunct rejects every row: it stays.
    constantValue(constant, context.evalContext) !== null;
}

function lookupIndex(schema: ContainerSchema, columnIndex: number): { index: SqlIndexRange | undefined } | undefined {
  if (schema.rowKeyColumnCount > 0 && columnIndex === 0) return { index: undefined };
  const tree = schema.indexes.find((index) => index.type === 'TREE' && index.columnIndexes[0] === columnIndex);
  if (tree === undefined) return undefined;
  return {
    index: { name: tree.name ?? '', columnIndexes: tree.columnIndexes, low: [], lowInclusive: true, high: [], highInclusive: true },
  };
}

function hintNames(hint: SqlHint): string[] {
  return hint.args.flatMap((arg) => (arg.kind === 'name' ? [normalizeName(arg.text)] : []));
}

function tablesOf(node: SqlPlanNode): string[] {
  if (node.kind === 'scan') return [node.table];
  if (node.kind === 'join' || node.kind === 'setOperation') return [...tablesOf(node.left), ...tablesOf(node.right)];
  return 'input' in node ? tablesOf(node.input) : [];
}

/** Rows a node gives, roughly: TableRowCount(t n) hints, then the table's committed rows. */
export function estimateRows(node: SqlPlanNode, context: SqlPlanContext): number {
  switch (node.kind) {
    case 'scan': {
      const hint = context.hints.find((candidate) => candidate.name.toUpperCase() === 'TABLEROWCOUNT' &&
        hintNames(candidate)[0] === normalizeName(node.table));
      const hinted = hint?.args.find((arg) => arg.kind === 'number');
      const count = hinted !== undefined ? Number(hinted.text) : context.tableRowCount?.(node.table) ?? TABLE_ROW_COUNT_DEFAULT;
      const narrowed = node.keyRange.from !== undefined || node.keyRange.to !== undefined || node.index !== undefined;
      return narrowed ? Math.max(1, count * FILTER_SELECTIVITY) : count;
    }
    case 'filter': return Math.max(1, estimateRows(node.input, context) * FILTER_SELECTIVITY);
    case 'values': return node.rows.length;
    case 'join': return Math.max(estimateRows(node.left, context), estimateRows(node.right, context));
    case 'setOperation': return estimateRows(node.left, context) + estimateRows(node.right, context);
    case 'limit': return Math.min(node.limit, estimateRows(node.input, context));
    // One row per key prefix of the table (its last): far fewer than the table's rows, so a join
    // looks them up in the table by key rather than hashing the table against them.
    case 'aggregate':
      return node.skipScan === true ? Math.max(1, estimateRows(node.input, context) * SKIP_SCAN_ROW_SHARE)
        : estimateRows(node.input, context);
    default: return 'input' in node ? estimateRows(node.input, context) : TABLE_ROW_COUNT_DEFAULT;
  }
}

function filterOf(input: SqlPlanNode, conjuncts: readonly SqlBoundExpression[]): SqlPlanNode {
  return { kind: 'filter', input, predicate: andOf(conjuncts)!, columns: input.columns };
}

export function andOf(conjuncts: readonly SqlBoundExpression[]): SqlBoundExpression | undefined {
  return conjuncts.reduce<SqlBoundExpression | undefined>((all, next) =>
    (all === undefined ? next : { kind: 'logic', operator: 'AND', left: all, right: next, type: 'BOOL' }), undefined);
}

function sideOf(expression: SqlBoundExpression, width: number): 'left' | 'right' | 'both' | 'none' {
  if (hasSubquery(expression)) return 'both';
  const columns = columnsOf(expression);
  if (columns.length === 0) return 'none';
  if (columns.every((c) => c < width)) return 'left';
  return columns.every((c) => c >= width) ? 'right' : 'both';
}

function maxColumn(expression: SqlBoundExpression): number {
  return Math.max(-1, ...columnsOf(expression));
}

/** Child expressions over the same input (a subquery's plan is its own; its outer values are ours). */
function childrenOf(expression: SqlBoundExpression): SqlBoundExpression[] {
  switch (expression.kind) {
    case 'column': case 'constant': case 'outer': return [];
    case 'unary': case 'widen': case 'isNull': return [expression.operand];
    case 'arithmetic': case 'compare': case 'logic': case 'concat': case 'is': return [expression.left, expression.right];
    case 'in': return [expression.operand, ...expression.list];
    case 'case':
      return [...expression.whens.flatMap((w) => [w.when, w.then]), ...(expression.otherwise === undefined ? [] : [expression.otherwise])];
    case 'call': return [...expression.args];
    case 'subquery': return [...(expression.operand === undefined ? [] : [expression.operand]), ...expression.outer];
  }
}

export function columnsOf(expression: SqlBoundExpression): number[] {
  if (expression.kind === 'column') return [expression.index];
  return childrenOf(expression).flatMap(columnsOf);
}

export function hasSubquery(expression: SqlBoundExpression): boolean {
  return expression.kind === 'subquery' || childrenOf(expression).some(hasSubquery);
}

/** The expression over an input whose columns sit `shift` places further. */
function shiftColumns(expression: SqlBoundExpression, shift: number): SqlBoundExpression {
  if (expression.kind === 'column') return { ...expression, index: expression.index + shift };
  return mapBoundChildren(expression, (child) => shiftColumns(child, shift));
}
