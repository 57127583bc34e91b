// Views (§5.2): CREATE [FORCE] VIEW, DROP VIEW, and their expansion. A view is a name in the
// container namespace that keeps its SELECT's text (printed from the parsed query, so
// "#views".VIEW_DEFINITION is one canonical form); the engine keeps it in its catalog and xlog as
// it keeps a table (ContainerSchema.view). A query that names a view in FROM reads it as the
// derived table `(its SELECT) AS name` (or its alias): the expansion rewrites the statement's
// syntax tree before planning, so joins, subqueries, EXPLAIN and the planner see only tables.
//
//   CREATE VIEW        the SELECT is expanded and planned (tables and columns must exist);
//                      FORCE skips that, but not the syntax nor the cycle check
//   cycle              a view that reads itself through views: SQL_VIEW_CYCLE, at CREATE and at use
//   name taken         by a table or a view: SQL_DDL_TABLE_ALREADY_EXISTS (GridDB's)
//   DROP VIEW          of nothing: SQL_DDL_VIEW_NOT_EXISTS unless IF EXISTS; of a table:
//                      SQL_DDL_INVALID_CONTAINER_ATTRIBUTE (IF EXISTS: nothing happens, as GridDB)
//   at use             a table a view reads is gone: CONTAINER_NOT_FOUND naming the view

import { assert } from '../base/assert.ts';
import { isStorageError } from '../base/errors.ts';
import { SQL_VIEW_DEPTH_MAX } from '../base/limits.ts';
import { normalizeName } from '../schema/names.ts';
import type { SqlQuery, SqlStatement, SqlTableReference } from './ast.ts';
import { SqlError, type SqlPosition } from './errors.ts';
import { sqlMetatableOf } from './meta/metatables.ts';
import { parseSqlStatementCached } from './parse-cache.ts';
import { printSqlQuery } from './print.ts';
import type { SqlDatabase } from './sql-database.ts';

type CreateView = Extract<SqlStatement, { kind: 'createView' }>;
type DropView = Extract<SqlStatement, { kind: 'dropView' }>;

/**
 * Creates the view once its query passes (`check` plans it; skipped under FORCE). The statement's
 * query must hold no parameter: the view is kept as text and read without any.
 */
export async function runCreateView(statement: CreateView, database: SqlDatabase,
  check: (query: SqlQuery) => void): Promise<void> {
  const { name } = statement;
  if (sqlMetatableOf(name) !== undefined || database.tableSchema(name.text) !== undefined ||
    database.view(name.text) !== undefined) {
    throw new SqlError('SQL_DDL_TABLE_ALREADY_EXISTS', `a table or view named ${name.text} exists already`,
      name.position);
  }
  const parameter = firstParameter(statement.query);
  if (parameter !== undefined) {
    throw new SqlError('NOT_SUPPORTED', 'a view cannot hold a parameter: it is kept as text and read ' +
      'without any', parameter);
  }
  const definition = printSqlQuery(statement.query);
  // Cycles are refused under FORCE too: the expansion meets the new name again.
  const expanded = expandQuery(statement.query, database, [normalizeName(name.text)], name.position, statement.force);
  if (!statement.force) check(expanded);
  try {
    await database.createView({ name: name.text, definition });
  } catch (error) {
    if (!isStorageError(error, 'CONTAINER_EXISTS')) throw error;
    throw new SqlError('SQL_DDL_TABLE_ALREADY_EXISTS', `a table or view named ${name.text} exists already`,
      name.position, { cause: error });
  }
}

export async function runDropView(statement: DropView, database: SqlDatabase): Promise<void> {
  const { name } = statement;
  if (database.view(name.text) === undefined) {
    if (statement.ifExists) return;
    if (database.tableSchema(name.text) !== undefined) {
      throw new SqlError('SQL_DDL_INVALID_CONTAINER_ATTRIBUTE', `${name.text} is a table, not a view: ` +
        'DROP TABLE drops it', name.position);
    }
    throw new SqlError('SQL_DDL_VIEW_NOT_EXISTS', `no view ${name.text}`, name.position);
  }
  await database.dropView(name.text);
}

/** Where the first `?` of a query is, if it has one. */
function firstParameter(node: unknown): SqlPosition | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const object = node as { kind?: unknown; position?: SqlPosition };
  if (object.kind === 'parameter') return object.position;
  for (const child of Object.values(node)) {
    const found = firstParameter(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Refuses a statement that would change or index a view (GridDB: views are read-only). */
export function refuseViewTarget(name: { text: string; position: SqlPosition }, kind: string,
  database: SqlDatabase): void {
  if (database.view(name.text) === undefined) return;
  throw new SqlError('SQL_DDL_INVALID_CONTAINER_ATTRIBUTE', `${name.text} is a view: ${kind} is refused ` +
    '(a view is read-only; DROP VIEW drops it)', name.position);
}

/**
 * The statement with every view it reads (in FROM, in joins, in subqueries, in views) replaced by
 * its derived table; the same object when it reads none.
 */
export function sqlExpandViews<T extends SqlStatement | SqlQuery>(node: T, database: SqlDatabase): T {
  // VALUES of literals (a bulk INSERT of many rows) names no table: not walked, it costs per value.
  if (node.kind === 'insert' && node.source.kind === 'values' &&
    node.source.rows.every((row) => row.every((value) => value.kind === 'literal'))) {
    return node;
  }
  return expandNode(node, { database, stack: [], at: undefined, force: false }) as T;
}

interface Expansion {
  readonly database: SqlDatabase;
  /** The views being expanded, outermost first (normalized names). */
  readonly stack: readonly string[];
  /** Where the outermost view is named in the statement: errors inside views point there. */
  readonly at: SqlPosition | undefined;
  /** CREATE FORCE VIEW: a missing table is no error. */
  readonly force: boolean;
}

function expandQuery(query: SqlQuery, database: SqlDatabase, stack: readonly string[], at: SqlPosition,
  force: boolean): SqlQuery {
  return expandNode(query, { database, stack, at, force }) as SqlQuery;
}

/** Walks the syntax tree (plain data); a query's FROM is where table references are. */
function expandNode(node: unknown, expansion: Expansion): unknown {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) {
    const mapped = node.map((child) => expandNode(child, expansion));
    return mapped.some((child, i) => child !== node[i]) ? mapped : node;
  }
  const object = node as Record<string, unknown>;
  let changed: Record<string, unknown> | undefined;
  for (const [key, child] of Object.entries(object)) {
    if (key === 'position') continue;
    const next = key === 'from' && object['kind'] === 'select' && child !== undefined
      ? expandReference(child as SqlTableReference, expansion)
      : expandNode(child, expansion);
    if (next !== child) (changed ??= { ...object })[key] = next;
  }
  return changed ?? node;
}

function expandReference(reference: SqlTableReference, expansion: Expansion): SqlTableReference {
  switch (reference.kind) {
    case 'join': {
      const left = expandReference(reference.left, expansion);
      const right = expandReference(reference.right, expansion);
      const condition = expandNode(reference.condition, expansion) as typeof reference.condition;
      return left === reference.left && right === reference.right && condition === reference.condition
        ? reference : { ...reference, left, right, condition };
    }
    case 'derived': {
      const query = expandNode(reference.query, expansion) as SqlQuery;
      return query === reference.query ? reference : { ...reference, query };
    }
    case 'table': return expandTable(reference, expansion);
    case 'matchRecognize': {
      const source = reference.source;
      if (source.kind === 'query') {
        const query = expandNode(source.query, expansion) as SqlQuery;
        return query === source.query ? reference : { ...reference, source: { kind: 'query', query } };
      }
      // A view read by MATCH_RECOGNIZE becomes its query, as a view in FROM becomes a derived table.
      const table = { kind: 'table' as const, name: source.name, alias: undefined, position: reference.position };
      const expanded = expandTable(table, expansion);
      if (expanded.kind !== 'derived') return reference;
      return { ...reference, source: { kind: 'query', query: expanded.query } };
    }
  }
}

function expandTable(reference: Extract<SqlTableReference, { kind: 'table' }>, expansion: Expansion):
  SqlTableReference {
  const { name } = reference;
  if (sqlMetatableOf(name) !== undefined) return reference;
  const key = normalizeName(name.text);
  const at = expansion.at ?? name.position;
  const outer = expansion.stack[0];
  if (expansion.stack.includes(key)) {
    throw new SqlError('SQL_VIEW_CYCLE', `view ${outer} reads itself through the views ` +
      `${[...expansion.stack, key].join(' -> ')}`, at);
  }
  const view = expansion.database.view(name.text);
  if (view === undefined) {
    if (outer !== undefined && !expansion.force && expansion.database.tableSchema(name.text) === undefined) {
      throw new SqlError('CONTAINER_NOT_FOUND', `view ${expansion.stack.join(' -> ')} reads table ` +
        `${name.text}, which does not exist (dropped after the view was made?)`, at);
    }
    return reference;
  }
  if (expansion.stack.length >= SQL_VIEW_DEPTH_MAX) {
    throw new SqlError('LIMIT_EXCEEDED', `views read through more than ${SQL_VIEW_DEPTH_MAX} views`, at);
  }
  const parsed = parseSqlStatementCached(view.definition).statement;
  assert(parsed.kind === 'select', 'a view keeps a SELECT');
  const query = expandNode(parsed.query, { ...expansion, stack: [...expansion.stack, key], at }) as SqlQuery;
  return { kind: 'derived', query, alias: reference.alias ?? name, position: reference.position };
}
