// The SqlDatabase a statement sees on a node that runs one engine thread per partition group: this
// group's store (lib/engine/sql-database.ts), with what lives in the other groups brought in
// through the peers (sql-peers.ts) before the statement is planned:
//
//   metatables   "#sqls", "#tables", "#index_info" it reads are gathered from every group (each
//                bounded: SQL_METATABLE_GROUP_ROW_COUNT_MAX), "#tables" and "#index_info" in
//                table name order as one engine lists them. "#sockets" is this group's: every
//                engine thread sees every connection open and close (routing-request-runner.ts),
//                so each holds the node's list already, and a gathered one would repeat it.
//   a table      of another group that the statement reads (INSERT INTO a SELECT … FROM b, routed
//                to a's group; SELECT … FROM v, routed to the view's group, v reading b; a join,
//                routed to its first table's group): its schema, then its committed rows page by
//                page from b's group (each page one call: bounded, and the statement's cancel and
//                deadline are checked between them), in either key order, through b's TREE index
//                where the request names one (an index nested-loop join's look-ups). An insert holds
//                every row until its one transaction on a commits (all or nothing), so the rows
//                it fetches are charged to a work memory of their own: past
//                /sql/workMemoryLimit the statement ends with LIMIT_EXCEEDED.
//   a view       of another group that the statement reads, directly or through a view
//                (lib/sql/run-view.ts expands it): its definition, and what that reads in turn.

import { SQL_BATCH_ROW_COUNT } from '../base/limits.ts';
import type { RowKey } from '../schema/column-type.ts';
import type { DatabaseId } from '../schema/database-names.ts';
import type { SqlQuery, SqlStatement } from '../sql/ast.ts';
import type { SqlBatch } from '../sql/exec/evaluate.ts';
import type { SqlScanRequest, SqlTable } from '../sql/exec/table-source.ts';
import { valueSizeBytes } from '../sql/exec/value-ops.ts';
import { SqlWorkMemory } from '../sql/exec/work-memory.ts';
import { sqlMetatableOf, type SqlMetatableName } from '../sql/meta/metatables.ts';
import { parseSqlStatementCached } from '../sql/parse-cache.ts';
import type { SqlDatabase, SqlView } from '../sql/sql-database.ts';
import { sqlQueryTables } from '../sql/query-tables.ts';
import { StorageError } from '../base/errors.ts';
import { SQL_VIEW_DEPTH_MAX } from '../base/limits.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import { normalizeName } from '../schema/names.ts';
import type { SqlValue } from '../sql/value.ts';
import type { SqlPeers } from './sql-peers.ts';

/** Metatables whose rows are each group's own ("#databases" and "#sockets" are the same everywhere). */
const GATHERED: ReadonlySet<SqlMetatableName> =
  new Set(['#sqls', '#tables', '#index_info', '#table_partitions', '#views']);
/** Names one statement may bring in from other groups: a view may read a handful, through views. */
const SQL_NODE_NAME_COUNT_MAX = 16 * SQL_VIEW_DEPTH_MAX;
/** The TABLE_NAME column of "#tables" and "#index_info", which they are listed in order of. */
const TABLE_NAME_COLUMN_INDEX = 1;

export async function sqlNodeDatabase(text: string, local: SqlDatabase, peers: SqlPeers,
  workMemoryLimitBytes: number, databaseId: DatabaseId): Promise<SqlDatabase> {
  let statement: SqlStatement;
  try {
    statement = parseSqlStatementCached(text).statement;
  } catch {
    return local; // the statement's own run reports the error
  }
  const from = tableRead(statement);
  const metatable = from === undefined ? undefined : sqlMetatableOf(from);
  if (metatable !== undefined) {
    if (!GATHERED.has(metatable)) return local;
    const rows = await peers.call({ kind: 'metatableRows', name: metatable, databaseId });
    if (metatable === '#tables' || metatable === '#index_info' || metatable === '#table_partitions' ||
      metatable === '#views') {
      rows.sort((a, b) => compareText(a[TABLE_NAME_COLUMN_INDEX], b[TABLE_NAME_COLUMN_INDEX]));
    }
    return { ...local, metatableRows: (name) => (name === metatable ? rows : local.metatableRows(name)) };
  }
  return withOtherGroups(statement, local, peers, workMemoryLimitBytes, databaseId);
}

/**
 * `local` with the views and tables of other groups that the statement reads, directly or
 * through views (a view lives in its name's group, the tables it reads anywhere), brought in:
 * views by their definition, tables by their schema and their pages.
 */
async function withOtherGroups(statement: SqlStatement, local: SqlDatabase, peers: SqlPeers,
  workMemoryLimitBytes: number, databaseId: DatabaseId): Promise<SqlDatabase> {
  const views = new Map<string, SqlView>();
  const schemas = new Map<string, ContainerSchema>();
  const seen = new Set<string>();
  const pending = statementTables(statement);
  while (pending.length > 0) {
    const name = pending.pop()!;
    const key = normalizeName(name);
    if (seen.has(key) || local.tableSchema(name) !== undefined) continue;
    if (seen.size >= SQL_NODE_NAME_COUNT_MAX) {
      throw new StorageError('LIMIT_EXCEEDED', `the statement reads more than ${SQL_NODE_NAME_COUNT_MAX} ` +
        'tables and views');
    }
    seen.add(key);
    const localView = local.view(name);
    const view = localView ?? await peers.call({ kind: 'view', name, databaseId });
    if (view !== undefined) {
      if (localView === undefined) views.set(key, view);
      pending.push(...definitionTables(view.definition));
      continue;
    }
    const schema = await peers.call({ kind: 'tableSchema', name, databaseId });
    if (schema?.partitioning !== undefined) {
      // Its rows lie in its data partitions, which the page-by-page read does not visit yet: a
      // clear refusal, not an empty table.
      throw new StorageError('NOT_SUPPORTED', `the partitioned table ${schema.name} lies in another ` +
        'partition group than the statement\'s first table: name it first in FROM (a statement runs in ' +
        'the group of the first table it names)');
    }
    if (schema !== undefined) schemas.set(key, schema);
  }
  if (views.size === 0 && schemas.size === 0) return local; // all here, or no such table: planning says so
  // An INSERT holds every row until its one transaction commits: rows fetched for it are charged.
  const memory = statement.kind === 'insert' ? new SqlWorkMemory(workMemoryLimitBytes) : undefined;
  return {
    ...local,
    view: (name) => views.get(normalizeName(name)) ?? local.view(name),
    tableSchema: (name) => schemas.get(normalizeName(name)) ?? local.tableSchema(name),
    table: (name): SqlTable => {
      const schema = schemas.get(normalizeName(name));
      if (schema === undefined) return local.table(name);
      return { schema, scan: (request) => peerPages(peers, { table: schema.name, databaseId }, request, memory) };
    },
  };
}

/** The tables and views a statement names in its queries (metatables left out). */
function statementTables(statement: SqlStatement): string[] {
  switch (statement.kind) {
    case 'select': case 'createView': return withoutMetatables(sqlQueryTables(statement.query));
    case 'explain': return statementTables(statement.statement);
    case 'insert': return statement.source.kind === 'query' ? withoutMetatables(sqlQueryTables(statement.source.query)) : [];
    default: return [];
  }
}

function definitionTables(definition: string): string[] {
  const parsed = parseSqlStatementCached(definition).statement;
  return parsed.kind === 'select' ? withoutMetatables(sqlQueryTables(parsed.query)) : [];
}

function withoutMetatables(names: readonly string[]): string[] {
  return names.filter((name) => !name.startsWith('#'));
}

/** The table a statement reads from (its one FROM), when it reads one. */
function tableRead(statement: SqlStatement): { text: string; quoted: boolean } | undefined {
  switch (statement.kind) {
    case 'select': return singleTable(statement.query);
    case 'explain': return tableRead(statement.statement);
    case 'insert': return statement.source.kind === 'query' ? singleTable(statement.source.query) : undefined;
    default: return undefined;
  }
}

/** The table of a query whose FROM is one table (no join, derived table or set operation). */
function singleTable(query: SqlQuery): { text: string; quoted: boolean } | undefined {
  if (query.kind === 'setOperation' || query.from?.kind !== 'table') return undefined;
  return query.from.name;
}

/** Pages of the table from its group, each charged to `memory` if given (an insert keeps them all). */
async function* peerPages(peers: SqlPeers, { table, databaseId }: { table: string; databaseId: DatabaseId },
  request: SqlScanRequest, memory: SqlWorkMemory | undefined): AsyncGenerator<SqlBatch> {
  let after: RowKey | undefined;
  let left = request.rowCountMax;
  for (;;) {
    const page = await peers.call({
      kind: 'scanPage', databaseId, table, columnIndexes: request.columnIndexes, from: request.from, to: request.to,
      after, rowCountMax: Math.min(left, SQL_BATCH_ROW_COUNT), index: request.index, descending: request.descending,
    });
    if (page.batch.rowCount > 0) {
      memory?.charge(batchSizeBytes(page.batch), `rows read from table ${table} of another partition group`);
      left -= page.batch.rowCount;
      yield page.batch;
    }
    if (page.last === undefined || left <= 0) return;
    after = page.last;
  }
}

function batchSizeBytes(batch: SqlBatch): number {
  let bytes = 0;
  for (const column of batch.columns) for (const value of column) bytes += valueSizeBytes(value);
  return bytes;
}

function compareText(a: SqlValue | undefined, b: SqlValue | undefined): number {
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
