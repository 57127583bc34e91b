// A table's row key and indexes as PostgreSQL's catalog shows keys: what pg_index, pg_constraint,
// pg_am and the index relations of pg_class say, for pg-catalog.ts. The row key (its leading
// rowKeyColumnCount columns, composite too) is the table's primary key: a unique btree index
// `<table>_pkey` and a constraint of type 'p' of that name, as PostgreSQL names the key of
// `CREATE TABLE t (... PRIMARY KEY (...))`. Each index of the store (CREATE INDEX; TREE, HASH or
// SPATIAL) is a non-unique index of its own name, on the btree, hash or gist access method.
//
// Vectors are written as PostgreSQL's text output writes them: an int2vector or oidvector
// (indkey, indclass, indoption) as numbers split by spaces (`1 2`), an int2[] (conkey) in braces
// (`{1,2}`). Oids are hashes of names (tableOid), apart from table oids: an index hashes
// `table` NUL `index`, a constraint `table` NUL NUL `constraint`, so none meets a table's.

import type { PgColumn } from './pg-sql-backend.ts';

/** What the engine says of a table's keys (its ContainerInfo). */
export interface PgTableKeys {
  rowKeyColumnCount: number;
  /** Each column's NOT NULL, in column order (a row key column always is). */
  notNull: readonly boolean[];
  indexes: readonly { name: string; columnIndexes: readonly number[]; type: string }[];
}

/** pg_am's rows for the access methods store's indexes map to (PostgreSQL 15's oids). */
export const PG_ACCESS_METHODS = [
  { oid: 403, amname: 'btree', amhandler: 'bthandler', amtype: 'i' },
  { oid: 405, amname: 'hash', amhandler: 'hashhandler', amtype: 'i' },
  { oid: 783, amname: 'gist', amhandler: 'gisthandler', amtype: 'i' },
  { oid: 2, amname: 'heap', amhandler: 'heap_tableam_handler', amtype: 't' },
] as const;

/** The access method of each store index type. */
const METHOD_OF_TYPE: Readonly<Record<string, 'btree' | 'hash' | 'gist'>> = { TREE: 'btree', HASH: 'hash', SPATIAL: 'gist' };

export interface PgIndexEntry {
  table: string;
  tableOid: number;
  name: string;
  oid: number;
  /** The constraint's oid, for the primary key only. */
  constraintOid: number | undefined;
  /** The indexed columns in index order: name and attnum (1-based position in the table). */
  columns: readonly { name: string; attnum: number }[];
  primary: boolean;
  method: 'btree' | 'hash' | 'gist';
}

export function pgIndexOid(tableOf: (name: string) => number, table: string, index: string): number {
  return tableOf(`${table}\u0000${index}`);
}

/** The primary key (when the table has a row key), then the store's indexes by name. */
export function pgIndexEntries(tableOf: (name: string) => number, table: string, columns: readonly PgColumn[],
  keys: PgTableKeys): PgIndexEntry[] {
  const entries: PgIndexEntry[] = [];
  const tableOid = tableOf(table);
  if (keys.rowKeyColumnCount > 0) {
    const name = `${table}_pkey`;
    entries.push({ table, tableOid, name, oid: pgIndexOid(tableOf, table, name),
      constraintOid: tableOf(`${table}\u0000\u0000${name}`), primary: true, method: 'btree',
      columns: columns.slice(0, keys.rowKeyColumnCount).map((column, i) => ({ name: column.name, attnum: i + 1 })) });
  }
  const indexes = keys.indexes.map((index) => ({
    index,
    // An index made without a name (the client's createIndex) gets PostgreSQL's default name.
    name: index.name !== '' ? index.name
      : `${table}_${index.columnIndexes.map((i) => columns[i]?.name ?? String(i)).join('_')}_idx`,
  })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { index, name } of indexes) {
    entries.push({ table, tableOid, name, oid: pgIndexOid(tableOf, table, name), constraintOid: undefined,
      primary: false, method: METHOD_OF_TYPE[index.type] ?? 'btree',
      columns: index.columnIndexes.map((i) => ({ name: columns[i]?.name ?? '', attnum: i + 1 })) });
  }
  return entries;
}

function quoted(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

function methodOid(method: PgIndexEntry['method']): number {
  return PG_ACCESS_METHODS.find((am) => am.amname === method)!.oid;
}

/** pg_get_indexdef(oid, 0, ...): the CREATE INDEX that would make the index. */
function indexDefinition(entry: PgIndexEntry): string {
  return `CREATE ${entry.primary ? 'UNIQUE ' : ''}INDEX ${quoted(entry.name)} ON public.${quoted(entry.table)} ` +
    `USING ${entry.method} (${entry.columns.map((column) => quoted(column.name)).join(', ')})`;
}

/**
 * The row of pg_index for the index, with its index relation's pg_class columns (relname,
 * relam, ... as `c`/`ci`/`c2` of the tools' joins give them), its table's name (`tabrelname`,
 * DBeaver's), pg_am's amname, and the primary key's constraint columns (psql's `\d table` joins
 * them): every column the tools read from those joins, by its name.
 */
export function pgIndexRow(entry: PgIndexEntry): Record<string, string | number | null> {
  const count = entry.columns.length;
  const zeros = Array.from({ length: count }, () => '0').join(' ');
  const indkey = entry.columns.map((column) => column.attnum).join(' ');
  return {
    indexrelid: entry.oid, indrelid: entry.tableOid, indnatts: count, indnkeyatts: count,
    indisunique: entry.primary ? 't' : 'f', indnullsnotdistinct: 'f', indisprimary: entry.primary ? 't' : 'f',
    indisexclusion: 'f', indimmediate: 't', indisclustered: 'f', indisvalid: 't', indcheckxmin: 'f',
    indisready: 't', indislive: 't', indisreplident: 'f', indkey, keys: indkey, indcollation: zeros,
    indclass: zeros, indoption: zeros, indexprs: null, indpred: null, expr: null,
    oid: entry.oid, relname: entry.name, relnamespace: 2200, relam: methodOid(entry.method), relkind: 'i',
    reltablespace: 0, reltuples: -1, relpages: 0, tabrelname: entry.table, amname: entry.method,
    description: null, pg_get_indexdef: indexDefinition(entry),
    pg_get_constraintdef: entry.primary ? `PRIMARY KEY (${entry.columns.map((c) => quoted(c.name)).join(', ')})` : null,
    contype: entry.primary ? 'p' : null, condeferrable: entry.primary ? 'f' : null,
    condeferred: entry.primary ? 'f' : null,
  };
}

/** The row of pg_constraint for the primary key (an entry with constraintOid). */
export function pgConstraintRow(entry: PgIndexEntry): Record<string, string | number | null> {
  return {
    oid: entry.constraintOid!, conname: entry.name, connamespace: 2200, contype: 'p', condeferrable: 'f',
    condeferred: 'f', convalidated: 't', conrelid: entry.tableOid, contypid: 0, conindid: entry.oid,
    conparentid: 0, confrelid: 0, confupdtype: ' ', confdeltype: ' ', confmatchtype: ' ', conislocal: 't',
    coninhcount: 0, connoinherit: 't', conkey: `{${entry.columns.map((column) => column.attnum).join(',')}}`,
    confkey: null, conpfeqop: null, conppeqop: null, conffeqop: null, confdelsetcols: null, conexclop: null,
    conbin: null, tabrelname: entry.table, refnamespace: null, relname: entry.table, nspname: 'public',
    pg_get_constraintdef: `PRIMARY KEY (${entry.columns.map((c) => quoted(c.name)).join(', ')})`,
  };
}

/**
 * pgJDBC's getPrimaryKeys and getIndexInfo expand indkey / conkey with
 * information_schema._pg_expandarray and keep a row per key column: these are those rows, by
 * the names of the columns their select lists give (lower case), in the order they ask for.
 */
export function pgKeyColumnRows(entry: PgIndexEntry): Record<string, string | number | null>[] {
  return entry.columns.map((column, i) => ({
    table_cat: 'public', table_schem: 'public', table_name: entry.table, column_name: column.name,
    key_seq: i + 1, pk_name: entry.name, non_unique: entry.primary ? 'f' : 't', index_qualifier: null,
    index_name: entry.name, type: entry.method === 'hash' ? 2 : 3, ordinal_position: i + 1,
    asc_or_desc: entry.method === 'btree' ? 'A' : null, cardinality: -1, pages: 0, filter_condition: null,
    remarks: null, ci_oid: entry.oid, am_name: entry.method, a_attnum: column.attnum,
  }));
}
