// The metatables of §5.11 this store answers: their names, columns (names and SQL types as GridDB
// gives them) and rows built from what the database and the node report. A metatable is a leaf of
// the logical plan like VALUES (`metatable` in logical-plan.ts), so WHERE, ORDER BY and aggregates
// work over it unchanged; it is read-only, and its name must be double-quoted (`"#tables"`).
// Columns about things this store does not have (partitioning, expiration, jobs, event counts) are NULL.

import type { ContainerSchema } from '../../schema/container-schema.ts';
import { keyUnitsPerMs, partitionBoundaryText, type DataPartitionKey } from '../../schema/table-partitioning.ts';
import type { SqlPlanColumn } from '../plan/logical-plan.ts';
import type { SqlType, SqlValue } from '../value.ts';

export type SqlMetatableName =
  '#tables' | '#index_info' | '#databases' | '#sqls' | '#sockets' | '#table_partitions' | '#views';

/** The only database of this store (GridDB's default). */
export const SQL_DATABASE_NAME = 'public';
export const SQL_DATABASE_ID = 0n;

const S: SqlType = 'STRING';
const columns = (spec: readonly (readonly [string, SqlType])[]): SqlPlanColumn[] =>
  spec.map(([name, type]) => ({ name, type }));

export const SQL_METATABLE_COLUMNS: Readonly<Record<SqlMetatableName, readonly SqlPlanColumn[]>> = {
  '#tables': columns([
    ['DATABASE_NAME', S], ['TABLE_NAME', S], ['TABLE_OPTIONAL_TYPE', S], ['DATA_AFFINITY', S],
    ['EXPIRATION_TIME', 'INTEGER'], ['EXPIRATION_TIME_UNIT', S], ['EXPIRATION_DIVISION_COUNT', 'INTEGER'],
    ['PARTITION_TYPE', S], ['PARTITION_COLUMN', S], ['PARTITION_INTERVAL_VALUE', S],
    ['PARTITION_INTERVAL_UNIT', S], ['PARTITION_DIVISION_COUNT', 'INTEGER'], ['SUBPARTITION_TYPE', S],
    ['SUBPARTITION_COLUMN', S], ['SUBPARTITION_INTERVAL_VALUE', S], ['SUBPARTITION_INTERVAL_UNIT', S],
    ['SUBPARTITION_DIVISION_COUNT', 'INTEGER'], ['EXPIRATION_TYPE', S],
  ]),
  '#index_info': columns([
    ['DATABASE_NAME', S], ['TABLE_NAME', S], ['INDEX_NAME', S], ['INDEX_TYPE', S],
    ['ORDINAL_POSITION', 'SHORT'], ['COLUMN_NAME', S],
  ]),
  '#databases': columns([['DATABASE_NAME', S], ['DATABASE_ID', 'LONG']]),
  '#views': columns([['DATABASE_NAME', S], ['VIEW_NAME', S], ['VIEW_DEFINITION', S]]),
  '#table_partitions': columns([
    ['DATABASE_NAME', S], ['TABLE_NAME', S], ['PARTITION_BOUNDARY_VALUE', S], ['CLUSTER_PARTITION_INDEX', 'INTEGER'],
    ['CLUSTER_NODE_ADDRESS', S], ['WORKER_INDEX', 'INTEGER'],
  ]),
  '#sqls': columns([
    ['DATABASE_NAME', S], ['NODE_ADDRESS', S], ['NODE_PORT', 'INTEGER'], ['START_TIME', 'TIMESTAMP'],
    ['APPLICATION_NAME', S], ['SQL', S], ['QUERY_ID', S], ['JOB_ID', S], ['USER_NAME', S],
  ]),
  '#sockets': columns([
    ['SERVICE_TYPE', S], ['SOCKET_TYPE', S], ['NODE_ADDRESS', S], ['NODE_PORT', 'INTEGER'],
    ['REMOTE_ADDRESS', S], ['REMOTE_PORT', 'INTEGER'], ['APPLICATION_NAME', S], ['CREATION_TIME', 'TIMESTAMP'],
    ['DISPATCHING_EVENT_COUNT', 'LONG'], ['SENDING_EVENT_COUNT', 'LONG'], ['DATABASE_NAME', S],
  ]),
};

/** The metatable a quoted name names (exact spelling, as GridDB), or undefined. */
export function sqlMetatableOf(name: { readonly text: string; readonly quoted: boolean }):
  SqlMetatableName | undefined {
  if (!name.quoted) return undefined;
  return Object.hasOwn(SQL_METATABLE_COLUMNS, name.text) ? name.text as SqlMetatableName : undefined;
}

/** "#views": one row per view, VIEW_DEFINITION its SELECT as written after AS. */
export function sqlViewsRows(views: readonly ContainerSchema[]): SqlValue[][] {
  return views.map((view) => [SQL_DATABASE_NAME, view.name, view.view!.definition]);
}

/** A statement running on the node, as "#sqls" lists it. */
export interface SqlRunningStatement {
  readonly queryId: string;
  readonly startTimeMs: number;
  readonly applicationName: string;
  readonly user: string;
  /** Cut to SQL_RUNNING_TEXT_LENGTH_MAX characters. */
  readonly sql: string;
  /** The node's end of the connection that runs it. */
  readonly nodeAddress: string;
  readonly nodePort: number;
}

/** An authenticated client connection of the node, as "#sockets" lists it. */
export interface SqlNodeSocket {
  readonly nodeAddress: string;
  readonly nodePort: number;
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly applicationName: string;
  readonly creationTimeMs: number;
}

/** What the node knows beyond the store: its running statements and its connections. */
export interface SqlNodeActivity {
  runningStatements(): readonly SqlRunningStatement[];
  sockets(): readonly SqlNodeSocket[];
}

export function sqlTablesRows(schemas: readonly ContainerSchema[]): SqlValue[][] {
  return schemas.map((schema) => [
    // §5.11 spells the kind TIMESERIES (the engine's TIME_SERIES).
    SQL_DATABASE_NAME, schema.name, schema.type === 'TIME_SERIES' ? 'TIMESERIES' : 'COLLECTION',
    schema.dataAffinity ?? null,
    ...partitioningColumns(schema),
  ]);
}

/** "#tables" from EXPIRATION_TIME to EXPIRATION_TYPE: NULL for a table that is not partitioned. */
function partitioningColumns(schema: ContainerSchema): SqlValue[] {
  const p = schema.partitioning;
  if (p === undefined) return new Array<null>(14).fill(null);
  const column = (index: number | undefined) => (index === undefined ? null : schema.columns[index]!.name);
  const unitMs = p.intervalUnit === 'DAY' ? 86_400_000n : p.intervalUnit === 'HOUR' ? 3_600_000n : 1n;
  const unitKeys = unitMs * keyUnitsPerMs(schema.columns[p.columnIndex]!);
  const interval = p.interval === undefined ? null : String(BigInt(p.interval) / unitKeys);
  const e = p.expiration;
  return [
    e?.time ?? null, e?.unit ?? null, e?.divisionCount ?? null,
    p.kind === 'HASH' ? 'HASH' : 'INTERVAL', column(p.columnIndex), interval, p.intervalUnit ?? null,
    p.kind === 'HASH' ? p.divisionCount! : null,
    p.kind === 'INTERVAL_HASH' ? 'HASH' : null, column(p.subColumnIndex), null, null,
    p.kind === 'INTERVAL_HASH' ? p.divisionCount! : null,
    e === undefined ? null : 'PARTITION',
  ];
}

/** One "#table_partitions" row: a data partition, where its rows live. */
export function sqlTablePartitionRow(table: ContainerSchema, key: DataPartitionKey, partitionIndex: number): SqlValue[] {
  return [
    SQL_DATABASE_NAME, table.name, partitionBoundaryText(table, key, table.partitioning!), partitionIndex,
    null, null,
  ];
}

export function sqlIndexInfoRows(schemas: readonly ContainerSchema[]): SqlValue[][] {
  return schemas.flatMap((schema) => schema.indexes.flatMap((index) =>
    index.columnIndexes.map((column, i): SqlValue[] => [
      SQL_DATABASE_NAME, schema.name, index.name === '' ? null : index.name, index.type, i + 1,
      schema.columns[column]!.name,
    ])));
}

/** A database besides public, as the node's access catalog holds it (lib/access/). */
export interface SqlDatabaseRow {
  readonly name: string;
  readonly id: number;
}

/** public, then the created databases in the order of their ids. */
export function sqlDatabasesRows(databases: readonly SqlDatabaseRow[] = []): SqlValue[][] {
  return [[SQL_DATABASE_NAME, SQL_DATABASE_ID],
    ...[...databases].sort((a, b) => a.id - b.id).map((database) => [database.name, BigInt(database.id)])];
}

export function sqlSqlsRows(statements: readonly SqlRunningStatement[]): SqlValue[][] {
  return statements.map((s) => [
    SQL_DATABASE_NAME, s.nodeAddress, s.nodePort, s.startTimeMs, s.applicationName, s.sql, s.queryId,
    null, s.user,
  ]);
}

export function sqlSocketsRows(sockets: readonly SqlNodeSocket[]): SqlValue[][] {
  return sockets.map((s) => [
    'TRANSACTION', 'CLIENT', s.nodeAddress, s.nodePort, s.remoteAddress, s.remotePort, s.applicationName,
    s.creationTimeMs, null, null, SQL_DATABASE_NAME,
  ]);
}
