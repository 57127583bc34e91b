// FROM with joins and derived tables: each table reference becomes a relation (a plan node and
// its columns, each with the label of the table it came from), joined left to right into `join`
// nodes with their ON / USING / NATURAL condition. Names resolve over the labels: `t.c` is t's
// column, `c` must be one column of all (else ambiguous); a USING or NATURAL column of the right
// side is reachable only qualified, as in SQLite, and `*` shows it once. The join method and what
// WHERE pushes into the sides are chosen afterwards (plan-join.ts). MATCH_RECOGNIZE plans over the
// relation of its source (plan-match-recognize.ts).

import type { SqlExpression, SqlName, SqlTableReference } from '../ast.ts';
import { SqlError, type SqlPosition } from '../errors.ts';
import { sqlTypeOfColumn } from '../exec/table-source.ts';
import { sqlMetatableOf } from '../meta/metatables.ts';
import { normalizeName } from '../../schema/names.ts';
import type { SqlType } from '../value.ts';
import { bindExpression, type SqlBindScope } from './bind-expression.ts';
import { planMatchRecognize } from './plan-match-recognize.ts';
import type { SqlBoundExpression } from './bound-expression.ts';
import type { SqlPlanNode } from './logical-plan.ts';
import { metatableSchema, planQuery, type SqlPlanContext } from './plan-select.ts';

export interface SqlFromColumn {
  /** The table's label (alias or name), normalized. */
  readonly label: string;
  readonly name: string;
  readonly index: number;
  readonly type: SqlType;
  /** The right side's copy of a USING / NATURAL column: only `t.c` reaches it. */
  readonly merged: boolean;
}

export interface SqlFromRelation {
  readonly node: SqlPlanNode;
  readonly columns: readonly SqlFromColumn[];
}

export function planFromReference(reference: SqlTableReference, context: SqlPlanContext): SqlFromRelation {
  return relationOf(reference, context);
}

function relationOf(reference: SqlTableReference, context: SqlPlanContext): SqlFromRelation {
  switch (reference.kind) {
    case 'table': return tableRelation(reference, context);
    case 'derived': {
      // A derived table sees no enclosing query (no LATERAL in GridDB).
      const plan = planQuery(reference.query, { ...context, outer: undefined });
      const label = normalizeName(reference.alias.text);
      return {
        node: plan.root,
        columns: plan.columns.map((column, index) => ({ label, name: column.name, index, type: column.type, merged: false })),
      };
    }
    case 'join': return joinRelation(reference, context);
    case 'matchRecognize': {
      const { source } = reference;
      const { position } = reference;
      const input = source.kind === 'table'
        ? tableRelation({ kind: 'table', name: source.name, alias: undefined, position }, context)
        : relationOf({ kind: 'derived', query: source.query, alias: reference.alias ?? MATCH_LABEL, position }, context);
      const label = normalizeName((reference.alias ?? (source.kind === 'table' ? source.name : MATCH_LABEL)).text);
      return planMatchRecognize(reference, input, label, context);
    }
  }
}

/** The label of an unaliased `(SELECT ...) MATCH_RECOGNIZE (...)`: no `x.` reaches its columns. */
const MATCH_LABEL: SqlName = {
  text: '\u0000match_recognize', quoted: true, position: { offset: 0, line: 1, column: 1 },
};

function tableRelation(reference: Extract<SqlTableReference, { kind: 'table' }>, context: SqlPlanContext):
  SqlFromRelation {
  const metatable = sqlMetatableOf(reference.name);
  const schema = metatable === undefined ? context.tableSchema(reference.name.text) : metatableSchema(metatable);
  if (schema === undefined) {
    throw new SqlError('CONTAINER_NOT_FOUND', `no table ${reference.name.text}`, reference.name.position);
  }
  const label = normalizeName((reference.alias ?? reference.name).text);
  const planColumns = schema.columns.map((column) => ({ name: column.name, type: sqlTypeOfColumn(column) }));
  const node: SqlPlanNode = metatable !== undefined ? { kind: 'metatable', table: metatable, columns: planColumns } : {
    kind: 'scan', table: schema.name, columnIndexes: schema.columns.map((_c, i) => i), columns: planColumns,
    rowCountMax: Infinity, keyRange: { from: undefined, to: undefined, empty: false }, index: undefined,
  };
  return {
    node,
    columns: planColumns.map((column, index) => ({ label, name: column.name, index, type: column.type, merged: false })),
  };
}

function joinRelation(reference: Extract<SqlTableReference, { kind: 'join' }>, context: SqlPlanContext):
  SqlFromRelation {
  const left = relationOf(reference.left, context);
  const right = relationOf(reference.right, context);
  for (const column of right.columns) {
    if (left.columns.some((other) => other.label === column.label)) {
      throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `the table name ${column.label} appears twice in FROM: ` +
        'give one an alias', reference.right.position);
    }
  }
  const width = left.columns.length;
  const names = usingNames(reference, left, right);
  let columns: SqlFromColumn[] = [
    ...left.columns, ...right.columns.map((column) => ({ ...column, index: column.index + width })),
  ];
  let condition: SqlBoundExpression | undefined;
  const and = (next: SqlBoundExpression) => {
    condition = condition === undefined ? next : { kind: 'logic', operator: 'AND', left: condition, right: next, type: 'BOOL' };
  };
  for (const name of names) {
    const leftColumn = resolve(left.columns, undefined, name, 0);
    const rightColumn = resolve(right.columns, undefined, name, width);
    and(equality(leftColumn, rightColumn, name.position, context));
    const rightIndex = (rightColumn as { readonly index: number }).index;
    columns = columns.map((column) => (column.index === rightIndex ? { ...column, merged: true } : column));
  }
  if (reference.condition !== undefined) {
    // ON sees the two sides; subqueries in ON are not supported (the join runs no subqueries).
    const scope = relationScope(columns);
    const bound = bindExpression(reference.condition, scope, {
      ...context,
      bindSubquery: (expression) => {
        throw new SqlError('NOT_SUPPORTED', 'a subquery in ON is not supported yet: put the condition in WHERE',
          expression.position);
      },
    });
    if (bound.type !== 'BOOL' && bound.type !== 'UNKNOWN') {
      throw new SqlError('TYPE_MISMATCH', `ON needs a BOOL condition, not ${bound.type}`, reference.condition.position);
    }
    and(bound);
  }
  const node: SqlPlanNode = {
    kind: 'join', joinType: reference.type === 'LEFT' ? 'LEFT' : 'INNER', method: 'nestedLoop',
    left: left.node, right: right.node, leftKeys: [], rightKeys: [], buildSide: 'right', condition,
    columns: columns.map((column) => ({ name: column.name, type: column.type })),
  };
  return { node, columns };
}

/** USING's names, or NATURAL's: the names both sides show unqualified. */
function usingNames(reference: Extract<SqlTableReference, { kind: 'join' }>, left: SqlFromRelation,
  right: SqlFromRelation): SqlName[] {
  if (reference.using !== undefined) return [...reference.using];
  if (!reference.natural) return [];
  const visible = (relation: SqlFromRelation) => relation.columns.filter((column) => !column.merged)
    .map((column) => normalizeName(column.name));
  const rightNames = new Set(visible(right));
  return [...new Set(visible(left))].filter((name) => rightNames.has(name))
    .map((text) => ({ text, quoted: false, position: reference.position }));
}

function equality(left: SqlBoundExpression, right: SqlBoundExpression, position: SqlPosition,
  context: SqlPlanContext): SqlBoundExpression {
  const at = (text: string): SqlExpression => ({
    kind: 'column', table: undefined, name: { text, quoted: true, position }, position,
  });
  const scope: SqlBindScope = { column: (_table, name) => (name.text === '#l' ? left : right) };
  return bindExpression({ kind: 'binary', operator: '=', left: at('#l'), right: at('#r'), position }, scope, context);
}

function resolve(columns: readonly SqlFromColumn[], table: SqlName | undefined, name: SqlName, shift: number):
  SqlBoundExpression {
  const wanted = normalizeName(name.text);
  const label = table === undefined ? undefined : normalizeName(table.text);
  if (label !== undefined && !columns.some((column) => column.label === label)) {
    throw new SqlError('COLUMN_NOT_FOUND', `no table ${table!.text} in FROM`, table!.position);
  }
  const found = columns.filter((column) => normalizeName(column.name) === wanted &&
    (label === undefined ? !column.merged : column.label === label));
  if (found.length === 0) {
    throw new SqlError('COLUMN_NOT_FOUND', `no column ${label === undefined ? '' : `${table!.text}.`}${name.text} ` +
      'in FROM', name.position);
  }
  if (found.length > 1) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `the column ${name.text} is ambiguous: ` +
      `write ${found.map((column) => `${column.label}.${name.text}`).join(' or ')}`, name.position);
  }
  return { kind: 'column', index: found[0]!.index + shift, type: found[0]!.type };
}

export function relationScope(columns: readonly SqlFromColumn[]): SqlBindScope {
  return { column: (table, name) => resolve(columns, table, name, 0) };
}

/** `*` or `t.*` over a relation: unqualified names where unique, else qualified. */
export function relationStar(columns: readonly SqlFromColumn[], table: SqlName | undefined, position: SqlPosition):
  { expression: SqlExpression; name: string }[] {
  const label = table === undefined ? undefined : normalizeName(table.text);
  const chosen = columns.filter((column) => (label === undefined ? !column.merged : column.label === label));
  if (chosen.length === 0) throw new SqlError('COLUMN_NOT_FOUND', `no table ${table?.text} in FROM`, position);
  return chosen.map((column) => ({
    expression: {
      kind: 'column', position, name: { text: column.name, quoted: true, position },
      table: { text: column.label, quoted: false, position },
    },
    name: column.name,
  }));
}
