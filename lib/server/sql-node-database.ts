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
//                to a's group): its schema, then its committed rows page by page from b's group.
//                The insert holds every row until its one transaction on a commits (all or
//                nothing), so the rows fetched are charged to a work memory of their own:
//                past /sql/workMemoryLimit the statement ends with LIMIT_EXCEEDED.

import { SQL_BATCH_ROW_COUNT } from '../base/limits.ts';
import type { RowKey } from '../schema/column-type.ts';
import type { DatabaseId } from '../schema/database-names.ts';
import type { SqlQuery, SqlStatement } from '../sql/ast.ts';
import type { SqlBatch } from '../sql/exec/evaluate.ts';
import type { SqlScanRequest, SqlTable } from '../sql/exec/table-source.ts';
import { valueSizeBytes } from '../sql/exec/value-ops.ts';
import { SqlWorkMemory } from '../sql/exec/work-memory.ts';
import { sqlMetatableOf, type SqlMetatableName } from '../sql/meta/metatables.ts';
import { parseSqlStatement } from '../sql/parser.ts';
import type { SqlDatabase } from '../sql/sql-database.ts';
import type { SqlValue } from '../sql/value.ts';
import type { SqlPeers } from './sql-peers.ts';

/** Metatables whose rows are each group's own ("#databases" and "#sockets" are the same everywhere). */
const GATHERED: ReadonlySet<SqlMetatableName> = new Set(['#sqls', '#tables', '#index_info', '#table_partitions']);
/** The TABLE_NAME column of "#tables" and "#index_info", which they are listed in order of. */
const TABLE_NAME_COLUMN_INDEX = 1;

export async function sqlNodeDatabase(text: string, local: SqlDatabase, peers: SqlPeers,
  workMemoryLimitBytes: number, databaseId: DatabaseId): Promise<SqlDatabase> {
  let statement: SqlStatement;
  try {
    statement = parseSqlStatement(text).statement;
  } catch {
    return local; // the statement's own run reports the error
  }
  const from = tableRead(statement);
  if (from === undefined) return local;
  const metatable = sqlMetatableOf(from);
  if (metatable !== undefined) {
    if (!GATHERED.has(metatable)) return local;
    const rows = await peers.call({ kind: 'metatableRows', name: metatable, databaseId });
    if (metatable === '#tables' || metatable === '#index_info' || metatable === '#table_partitions') {
      rows.sort((a, b) => compareText(a[TABLE_NAME_COLUMN_INDEX], b[TABLE_NAME_COLUMN_INDEX]));
    }
    return { ...local, metatableRows: (name) => (name === metatable ? rows : local.metatableRows(name)) };
  }
  if (local.tableSchema(from.text) !== undefined) return local;
  const schema = await peers.call({ kind: 'tableSchema', name: from.text, databaseId });
  if (schema === undefined) return local; // no such table anywhere: planning says so
  const memory = new SqlWorkMemory(workMemoryLimitBytes);
  const foreign = (name: string) => name.toLowerCase() === from.text.toLowerCase();
  return {
    ...local,
    tableSchema: (name) => (foreign(name) ? schema : local.tableSchema(name)),
    table: (name): SqlTable => (foreign(name)
      ? { schema, scan: (request) => peerPages(peers, { table: schema.name, databaseId }, request, memory) }
      : local.table(name)),
  };
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

/** Pages of the table from its group, each charged to `memory` (the insert keeps them all). */
async function* peerPages(peers: SqlPeers, { table, databaseId }: { table: string; databaseId: DatabaseId },
  request: SqlScanRequest, memory: SqlWorkMemory): AsyncGenerator<SqlBatch> {
  let after: RowKey | undefined;
  let left = request.rowCountMax;
  for (;;) {
    const page = await peers.call({
      kind: 'scanPage', table, databaseId, columnIndexes: request.columnIndexes, from: request.from, to: request.to,
      after, rowCountMax: Math.min(left, SQL_BATCH_ROW_COUNT),
    });
    if (page.batch.rowCount > 0) {
      memory.charge(batchSizeBytes(page.batch), `rows read from table ${table} of another partition group`);
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
