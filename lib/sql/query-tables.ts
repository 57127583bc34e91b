// The tables a query reads, in the order FROM names them (joins, derived tables, subqueries and
// set operations included), for routing a statement to the partition group that holds its tables.

import type { SqlExpression, SqlQuery, SqlTableReference } from './ast.ts';

/** Names as written (any case); metatables included; duplicates kept out. */
export function sqlQueryTables(query: SqlQuery): string[] {
  const names: string[] = [];
  const add = (name: string) => { if (!names.includes(name)) names.push(name); };
  visitQuery(query, add);
  return names;
}

function visitQuery(query: SqlQuery, add: (name: string) => void): void {
  if (query.kind === 'setOperation') {
    visitQuery(query.left, add);
    visitQuery(query.right, add);
    return;
  }
  if (query.from !== undefined) visitReference(query.from, add);
  for (const item of query.items) if (item.kind === 'expression') visitExpression(item.expression, add);
  if (query.where !== undefined) visitExpression(query.where, add);
  if (query.having !== undefined) visitExpression(query.having, add);
}

function visitReference(reference: SqlTableReference, add: (name: string) => void): void {
  switch (reference.kind) {
    case 'table': add(reference.name.text); break;
    case 'derived': visitQuery(reference.query, add); break;
    case 'matchRecognize':
      if (reference.source.kind === 'table') add(reference.source.name.text);
      else visitQuery(reference.source.query, add);
      break;
    case 'join':
      visitReference(reference.left, add);
      visitReference(reference.right, add);
      if (reference.condition !== undefined) visitExpression(reference.condition, add);
      break;
  }
}

/** Subqueries only: other expressions name no table. JSON walk keeps this independent of kinds. */
function visitExpression(expression: SqlExpression, add: (name: string) => void): void {
  const walk = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) { value.forEach(walk); return; }
    const node = value as { kind?: unknown; query?: SqlQuery };
    if ((node.kind === 'scalarSubquery' || node.kind === 'exists' || node.kind === 'inSubquery') &&
      node.query !== undefined) {
      visitQuery(node.query, add);
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'query' && key !== 'position') walk(child);
  };
  walk(expression);
}
