// UNION [ALL], INTERSECT, EXCEPT (§5.5): both sides give as many columns; each pair of columns
// takes one type by CASE's rule (one type; integers together → LONG; numbers with a float →
// DOUBLE; anything else is TYPE_MISMATCH), a side widened by a projection where it differs. The
// result takes the left side's column names. ORDER BY names output columns or their 1-based
// ordinals; LIMIT/OFFSET apply to the whole.

import type { SqlOrderItem, SqlSetOperation } from '../ast.ts';
import { SqlError } from '../errors.ts';
import { normalizeName } from '../../schema/names.ts';
import { commonType, widen } from './bind-expression.ts';
import type { SqlPlanColumn, SqlPlanNode } from './logical-plan.ts';
import { countOf, planQuery, type SqlPlanContext, type SqlQueryPlan } from './plan-select.ts';

export function planSetOperation(query: SqlSetOperation, context: SqlPlanContext): SqlQueryPlan {
  const left = planQuery(query.left, context);
  const right = planQuery(query.right, context);
  if (left.columns.length !== right.columns.length) {
    throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `${query.operator}: the left SELECT gives ` +
      `${left.columns.length} columns, the right ${right.columns.length}`, query.position);
  }
  const columns: SqlPlanColumn[] = left.columns.map((column, i) => ({
    name: column.name, type: commonType([column.type, right.columns[i]!.type], query.position),
  }));
  let node: SqlPlanNode = {
    kind: 'setOperation', operator: query.operator, left: widened(left.root, columns),
    right: widened(right.root, columns), columns,
  };
  const limit = countOf(query.limit, 'LIMIT', context) ?? Infinity;
  const offset = countOf(query.offset, 'OFFSET', context) ?? 0;
  const keys = query.orderBy.map((item) => ({ column: orderColumn(item, columns), descending: item.direction === 'DESC' }));
  if (keys.length > 0) node = { kind: 'sort', input: node, keys, rowCountMax: limit + offset, columns };
  if (limit !== Infinity || offset > 0) node = { kind: 'limit', input: node, limit, offset, columns };
  return { root: node, columns, schema: undefined };
}

function widened(node: SqlPlanNode, columns: readonly SqlPlanColumn[]): SqlPlanNode {
  if (node.columns.every((column, i) => column.type === columns[i]!.type || column.type === 'UNKNOWN')) return node;
  return {
    kind: 'project', input: node, columns: node.columns.map((column, i) => ({ ...column, type: columns[i]!.type })),
    expressions: node.columns.map((column, index) => widen({ kind: 'column', index, type: column.type }, columns[index]!.type)),
  };
}

function orderColumn(item: SqlOrderItem, columns: readonly SqlPlanColumn[]): number {
  const { expression } = item;
  if (expression.kind === 'literal' && expression.literal.type === 'INTEGER') {
    const ordinal = Number(expression.literal.value);
    if (ordinal < 1 || ordinal > columns.length) {
      throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', `ORDER BY ${ordinal}: the result has ${columns.length} columns`,
        expression.position);
    }
    return ordinal - 1;
  }
  if (expression.kind === 'column' && expression.table === undefined) {
    const wanted = normalizeName(expression.name.text);
    const index = columns.findIndex((column) => normalizeName(column.name) === wanted);
    if (index >= 0) return index;
  }
  throw new SqlError('SQL_COMPILE_SYNTAX_ERROR', 'ORDER BY of a set operation takes a column of its result ' +
    '(a name or an ordinal)', expression.position);
}
