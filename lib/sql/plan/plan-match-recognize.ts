// Plans `source MATCH_RECOGNIZE (...)` into a matchRecognize node (logical-plan.ts), with GridDB
// 5.9's rules (server/sql_compiler.cpp genPatternRecognition) where it has them:
//   - PARTITION BY and ORDER BY keys are columns of the source;
//   - every DEFINE variable appears in PATTERN; a PATTERN variable without DEFINE is always true;
//   - PREV, NEXT, FIRST, LAST take one column, `x` or `V.x` (no offset argument);
//   - no subqueries in DEFINE or MEASURES; CLASSIFIER() only in MEASURES (MATCH_NUMBER() in
//     DEFINE is the number the match being tried would take);
//   - no ROWS PER MATCH written means ALL ROWS PER MATCH (GridDB's parser; its release notes
//     say ONE ROW, its parser and its example show all rows).
// Where GridDB is silent, SQL:2016 as Oracle and Trino run it: `V.x` is x of the last row V took
// so far, running semantics in DEFINE and in ALL ROWS PER MATCH's measures; aggregates only in
// MEASURES, over the match's rows so far or V's (`SUM(V.x)`);
// ONE ROW PER MATCH gives the partition columns then the measures (no MEASURES: every input
// column of the match's last row, as GridDB's default measure list).
//
// DEFINE and MEASURES expressions are bound as ordinary expressions over "slots": each column
// reference, navigation, CLASSIFIER(), MATCH_NUMBER() and aggregate becomes a column of a one-row
// batch the executor fills from the match (SqlMatchSlot), so the evaluator needs nothing new.

import { assert } from '../../base/assert.ts';
import { SQL_ROW_PATTERN_STEP_COUNT_MAX, SQL_ROW_PATTERN_VARIABLE_COUNT_MAX } from '../../base/limits.ts';
import { normalizeName } from '../../schema/names.ts';
import type { SqlExpression, SqlName, SqlRowPattern, SqlTableReference } from '../ast.ts';
import { SqlError, sqlNotSupported, sqlSyntaxError, type SqlPosition } from '../errors.ts';
import { compileRowPattern } from './row-pattern-program.ts';
import { printSqlExpression } from '../print.ts';
import type { SqlType } from '../value.ts';
import { bindExpression, isAggregateCall, type SqlBindScope } from './bind-expression.ts';
import type { SqlMatchExpression, SqlMatchSlot, SqlPlanNode } from './logical-plan.ts';
import type { SqlFromColumn, SqlFromRelation } from './plan-from.ts';
import { relationScope } from './plan-from.ts';
import { aggregateCall, type SqlPlanContext } from './plan-select.ts';

type MatchReference = Extract<SqlTableReference, { kind: 'matchRecognize' }>;
type SqlNavigation = Extract<SqlMatchSlot, { kind: 'column' }>['navigation'];

const NAVIGATIONS: Readonly<Record<string, 'prev' | 'next' | 'first' | 'last'>> = {
  PREV: 'prev', NEXT: 'next', FIRST: 'first', LAST: 'last',
};

/** A slot's name in the rewritten expression: a NUL cannot be written in SQL text (lexer.ts). */
const SLOT_PREFIX = '\u0000slot';

export function planMatchRecognize(reference: MatchReference, input: SqlFromRelation, label: string,
  context: SqlPlanContext): SqlFromRelation {
  const { clause } = reference;
  const { names: variables, keys } = patternVariables(clause.pattern);
  const variableIndex = new Map(keys.map((key, i) => [key, i]));
  assert(variables.length === keys.length);
  assert(variables.length > 0); // the parser refuses an empty PATTERN
  const indexOf = (name: SqlName): number | undefined => variableIndex.get(variableKey(name));
  const defines: (SqlMatchExpression | undefined)[] = variables.map(() => undefined);
  for (const item of clause.define) {
    const index = indexOf(item.name);
    if (index === undefined) {
      throw sqlSyntaxError(`the DEFINE variable ${item.name.text} does not appear in PATTERN ` +
        '(every variable defined in DEFINE must also appear in PATTERN)', item.name.position);
    }
    if (defines[index] !== undefined) throw sqlSyntaxError(`${item.name.text} is defined twice`, item.name.position);
    const bound = bindMatchExpression(item.condition, 'DEFINE', input.columns, indexOf, context);
    if (bound.expression.type !== 'BOOL' && bound.expression.type !== 'UNKNOWN') {
      throw new SqlError('TYPE_MISMATCH', `DEFINE ${item.name.text} needs a BOOL condition, not ` +
        `${bound.expression.type}`, item.condition.position);
    }
    defines[index] = bound;
  }
  const scope = relationScope(input.columns);
  const keyColumn = (expression: SqlExpression): number => {
    if (expression.kind !== 'column') {
      throw sqlSyntaxError('a partition or ordering key in MATCH_RECOGNIZE must be a column', expression.position);
    }
    const bound = scope.column(expression.table, expression.name, expression.position);
    return (bound as { readonly index: number }).index;
  };
  const partitionColumns = clause.partitionBy.map(keyColumn);
  const orderKeys = clause.orderBy.map((item) => ({
    column: keyColumn(item.expression), descending: item.direction === 'DESC',
  }));
  const measures = clause.measures.map((measure) => bindMatchExpression(measure.expression, 'MEASURES',
    input.columns, indexOf, context));
  const allRows = clause.rowsPerMatch !== 'ONE ROW';
  const everyColumn = input.columns.map((_column, i) => i);
  const outputColumns = allRows || measures.length === 0 ? everyColumn : partitionColumns;
  const columns: SqlFromColumn[] = [
    ...outputColumns.map((c) => ({ ...input.columns[c]! })),
    ...clause.measures.map((measure, i) => ({
      name: measure.alias?.text ?? (measure.expression.kind === 'column' ? measure.expression.name.text
        : printSqlExpression(measure.expression)),
      type: measures[i]!.expression.type,
    })),
  ].map((column, index) => ({ label, name: column.name, index, type: column.type, merged: false }));
  assert(columns.length === outputColumns.length + measures.length);
  const program = compileRowPattern(clause.pattern, (name) => variableIndex.get(variableKey(name))!,
    reference.position);
  const node: SqlPlanNode = {
    kind: 'matchRecognize', input: input.node, partitionColumns, orderKeys, variables, program, defines,
    measures, allRows, outputColumns, stepCountMax: SQL_ROW_PATTERN_STEP_COUNT_MAX,
    columns: columns.map((column) => ({ name: column.name, type: column.type })),
  };
  return { node, columns };
}

/** Variable names are case-insensitive unless quoted, like other names. */
function variableKey(name: SqlName): string {
  return name.quoted ? name.text : normalizeName(name.text);
}

/** The PATTERN's variables in order of first appearance (CLASSIFIER() gives them as first written). */
function patternVariables(pattern: SqlRowPattern): { names: string[]; keys: string[] } {
  const names: string[] = [];
  const keys: string[] = [];
  let position: SqlPosition | undefined;
  const visit = (node: SqlRowPattern): void => {
    switch (node.kind) {
      case 'variable': {
        const key = variableKey(node.name);
        if (!keys.includes(key)) {
          keys.push(key);
          names.push(node.name.text);
          position ??= keys.length > SQL_ROW_PATTERN_VARIABLE_COUNT_MAX ? node.name.position : undefined;
        }
        return;
      }
      case 'anchor': return;
      case 'concat': case 'alternation': for (const item of node.items) visit(item); return;
      case 'quantified': visit(node.pattern); return;
    }
  };
  visit(pattern);
  if (position !== undefined) {
    throw new SqlError('LIMIT_EXCEEDED', `a PATTERN takes at most ${SQL_ROW_PATTERN_VARIABLE_COUNT_MAX} variables`,
      position);
  }
  return { names, keys };
}

function bindMatchExpression(expression: SqlExpression, clause: 'DEFINE' | 'MEASURES',
  input: readonly SqlFromColumn[], variableOf: (name: SqlName) => number | undefined,
  context: SqlPlanContext): SqlMatchExpression {
  const slots: SqlMatchSlot[] = [];
  const types: SqlType[] = [];
  const keys: string[] = [];
  const scope = relationScope(input);
  const slotReference = (slot: SqlMatchSlot, type: SqlType, position: SqlPosition): SqlExpression => {
    const key = JSON.stringify(slot, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
    let index = keys.indexOf(key);
    if (index < 0) {
      index = slots.length;
      slots.push(slot);
      types.push(type);
      keys.push(key);
    }
    const slotName = { text: `${SLOT_PREFIX}${index}`, quoted: true, position };
    return { kind: 'column', table: undefined, name: slotName, position };
  };
  const variable = (table: SqlName | undefined): number | undefined => {
    if (table === undefined) return undefined;
    const index = variableOf(table);
    if (index === undefined) {
      throw new SqlError('COLUMN_NOT_FOUND', `${table.text} is no pattern variable of PATTERN (in ${clause}, a ` +
        'column is qualified by a pattern variable, not by a table)', table.position);
    }
    return index;
  };
  const column = (node: Extract<SqlExpression, { kind: 'column' }>, navigation: SqlNavigation,
    position: SqlPosition): SqlExpression => {
    const bound = scope.column(undefined, node.name, node.position) as
      { readonly index: number; readonly type: SqlType };
    return slotReference({ kind: 'column', navigation, variable: variable(node.table), column: bound.index },
      bound.type, position);
  };
  const rewrite = (node: SqlExpression): SqlExpression => {
    switch (node.kind) {
      case 'column': return column(node, 'current', node.position);
      case 'scalarSubquery': case 'exists': case 'inSubquery':
        throw sqlSyntaxError(`subqueries in the ${clause} clause are not supported`, node.position);
      case 'window': throw sqlSyntaxError(`a window function cannot stand in ${clause}`, node.position);
      case 'call': return rewriteCall(node);
      default: return mapExpressionChildren(node, rewrite);
    }
  };
  const rewriteCall = (node: Extract<SqlExpression, { kind: 'call' }>): SqlExpression => {
    const upper = node.name.toUpperCase();
    const navigation = NAVIGATIONS[upper];
    if (navigation !== undefined) {
      if (node.star || node.args.length !== 1) throw sqlSyntaxError(`${upper} takes one column`, node.position);
      const arg = node.args[0]!;
      if (arg.kind !== 'column') throw sqlSyntaxError(`the argument of ${upper} must be a column`, arg.position);
      return column(arg, navigation, node.position);
    }
    if (upper === 'CLASSIFIER' || upper === 'MATCH_NUMBER') {
      if (node.star || node.args.length !== 0) throw sqlSyntaxError(`${upper}() takes no argument`, node.position);
      if (upper === 'CLASSIFIER' && clause === 'DEFINE') {
        throw sqlSyntaxError('CLASSIFIER() may only stand in MEASURES', node.position);
      }
      return upper === 'CLASSIFIER' ? slotReference({ kind: 'classifier' }, 'STRING', node.position)
        : slotReference({ kind: 'matchNumber' }, 'LONG', node.position);
    }
    if (!isAggregateCall(node)) return mapExpressionChildren(node, rewrite);
    if (clause === 'DEFINE') {
      throw sqlNotSupported(`an aggregate (${upper}) in DEFINE is not supported`, node.position);
    }
    const qualifiers = new Set<number | undefined>();
    const stripped = mapExpressionChildren(node, function strip(child: SqlExpression): SqlExpression {
      if (child.kind === 'column') {
        qualifiers.add(variable(child.table));
        return { ...child, table: undefined };
      }
      if (child.kind === 'call' && (NAVIGATIONS[child.name.toUpperCase()] !== undefined || isAggregateCall(child))) {
        throw sqlNotSupported(`${child.name.toUpperCase()} inside an aggregate is not supported`, child.position);
      }
      return mapExpressionChildren(child, strip);
    }) as Extract<SqlExpression, { kind: 'call' }>;
    if (qualifiers.size > 1) {
      throw sqlSyntaxError(`the columns of ${upper}(...) must all name one pattern variable, or none`, node.position);
    }
    const call = aggregateCall(stripped, scope, context);
    return slotReference({ kind: 'aggregate', variable: [...qualifiers][0], call }, call.type, node.position);
  };
  const rewritten = rewrite(expression);
  const slotScope: SqlBindScope = {
    column(_table, name) {
      const index = Number(name.text.slice(SLOT_PREFIX.length));
      return { kind: 'column', index, type: types[index]! };
    },
  };
  return { expression: bindExpression(rewritten, slotScope, { ...context, bindSubquery: undefined }), slots };
}

/**
 * The expression with `map` applied to each direct child expression; other fields (names,
 * literals, positions, WITHIN GROUP's directions) are kept. Expressions are the objects with a
 * string `kind`; the rest of the tree is plain objects and arrays, walked through.
 */
function mapExpressionChildren(expression: SqlExpression, map: (child: SqlExpression) => SqlExpression):
  SqlExpression {
  const walk = (value: unknown, top: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, false));
    if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
    const record = value as Record<string, unknown>;
    if (!top && typeof record['kind'] === 'string') return map(value as SqlExpression);
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(record)) out[key] = key === 'position' ? field : walk(field, false);
    return out;
  };
  return walk(expression, true) as SqlExpression;
}
