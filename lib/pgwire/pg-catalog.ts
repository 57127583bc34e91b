// What PostgreSQL tools ask of the server before and around their SQL, answered here rather than
// by lib/sql: the pg_catalog and information_schema relations they read (psql's \dt, \d table, \l,
// \dn; metadata pickers), version(), current_setting(), current_database() and the like.
//
// The relations are read-only views over the store's real catalog, read when asked ("#tables",
// and each table's columns from a zero-row SELECT of it): pg_class and information_schema.tables
// have a row per table, pg_attribute and information_schema.columns a row per column,
// pg_namespace the one schema `public`, pg_database the one database `public`. The query is not
// planned: its select list is read (each item by its alias, else its column or function name)
// and filled from the view's row (`alias.*` with the relation's columns); the relation read is the
// most detailed one joined (pg-catalog-relations.ts); the filters these tools use are applied (a
// relname regular expression, an oid, attrelid, relnamespace, table_name, quote_ident(table_name),
// pgJDBC's LIKE patterns and table types, a parameter of the extended protocol written in).
// pg_index, pg_constraint and pg_am hold each table's row key as its primary key and the store's
// indexes (pg-catalog-keys.ts); pgJDBC's getPrimaryKeys and getIndexInfo, which expand indkey and
// conkey into a row per key column, are answered from the same. Any other relation of pg_catalog
// (pg_policy, pg_inherits, ...) is empty, as nothing in the store is one of them. Table oids are a hash of the name, so they stay the same between a tool's
// queries. The texts these answers are checked against are Grafana's, pgJDBC's and DBeaver's
// (test/unit/pgwire/pg-grafana.test.ts, pg-jdbc-dbeaver.test.ts) and psql's (pg-node.test.ts).

import type { SqlType, SqlValue } from '../sql/value.ts';
import type { PgColumn } from './pg-sql-backend.ts';
import {
  PG_STAR_COLUMNS, pgFromRelations, pgJdbcAskedRelkinds, pgLikeFilter, pgNumberFilter, pgPrimaryRelation,
  type PgFromRelation,
} from './pg-catalog-relations.ts';
import {
  PG_ACCESS_METHODS, pgConstraintRow, pgIndexEntries, pgIndexRow, pgKeyColumnRows, type PgIndexEntry, type PgTableKeys,
} from './pg-catalog-keys.ts';
import { pgTypeName, pgTypeOf } from './pg-types.ts';

export interface PgLocalResult {
  columns: PgColumn[];
  rows: SqlValue[][];
  /** CommandComplete's tag when it is not `SELECT n`. */
  tag?: string;
}

export interface PgCatalogTable {
  name: string;
  /** TIMESERIES, COLLECTION or VIEW. */
  kind: string;
  /** A view's SELECT as written after AS ("#views"' VIEW_DEFINITION). */
  definition?: string;
  columns: () => Promise<PgColumn[]>;
  /** Its row key's column count and its indexes (the engine's ContainerInfo). */
  keys: () => Promise<PgTableKeys>;
}

export interface PgCatalogSource {
  tables(): Promise<PgCatalogTable[]>;
  user: string;
  setting(name: string): string | undefined;
  serverVersion: string;
}

const TABLE_OID_BASE = 16_384;

export function tableOid(name: string): number {
  let hash = 0x811c9dc5;
  for (const c of name) hash = Math.imul(hash ^ c.codePointAt(0)!, 0x01000193) >>> 0;
  return TABLE_OID_BASE + (hash % 1_000_000_000);
}

/** Whether the statement reads pg_catalog or information_schema (and is answered here). */
export function isCatalogQuery(text: string): boolean {
  return isSessionFunctionList(text) || /\b(pg_catalog|information_schema)\s*\./i.test(text) ||
    /\bfrom\s+pg_(class|namespace|attribute|type|database|settings|index|roles|user|tables|views|proc|extension)\b/i.test(text);
}

const SESSION_FUNCTION_ITEM =
  /^(?:pg_catalog\.)?(current_schema|current_database|current_user|current_catalog|session_user|user|version)\s*(?:\(\s*\))?(?:\s+as\s+("?)\w+\2)?$/i;

/** `SELECT current_schema(),session_user` (DBeaver's, before each query) and the like: no FROM. */
function isSessionFunctionList(text: string): boolean {
  const select = /^\s*select\s+/i.exec(text);
  if (select === null || topLevelIndex(text, /^from\b/i, select[0].length) >= 0) return false;
  const items = splitTopLevel(text.slice(select[0].length).replace(/;\s*$/, ''));
  return items.length > 0 && items.every((item) => SESSION_FUNCTION_ITEM.test(item));
}

interface SelectItem {
  name: string;
  /** Names to look the value up by, most specific first. */
  keys: string[];
}

/**
 * The positions at or after `from` outside quotes and parentheses, skipping the quote and
 * parenthesis characters themselves: where a top-level keyword or comma can stand.
 */
function* topLevelPositions(text: string, from: number): Generator<number> {
  let depth = 0;
  let quote = '';
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== '') {
      if (c === quote) quote = '';
      continue;
    }
    if (c === '\'' || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0) yield i;
  }
}

/** Index of the top-level keyword `word` at or after `from`; -1 when none. */
function topLevelIndex(text: string, word: RegExp, from: number): number {
  for (const i of topLevelPositions(text, from)) {
    // pgJDBC writes `"PK_NAME"FROM (`: a keyword may follow a quoted name or a parenthesis directly.
    if (/[\s"')]/.test(text[i - 1] ?? ' ') && word.test(text.slice(i, i + 12))) return i;
  }
  return -1;
}

function splitTopLevel(text: string): string[] {
  const items: string[] = [];
  let start = 0;
  for (const i of topLevelPositions(text, 0)) {
    if (text[i] !== ',') continue;
    items.push(text.slice(start, i).trim());
    start = i + 1;
  }
  items.push(text.slice(start).trim());
  return items.filter((item) => item !== '');
}

function selectItems(text: string, relations: readonly PgFromRelation[]): SelectItem[] {
  const select = /^\s*select\s+(distinct\s+)?/i.exec(text);
  if (select === null) return [];
  const fromIndex = topLevelIndex(text, /^from\b/i, select[0].length);
  const list = text.slice(select[0].length, fromIndex < 0 ? undefined : fromIndex).replace(/;\s*$/, '');
  return splitTopLevel(list).flatMap((item) => {
    const star = /^(?:(\w+)\.)?\*$/.exec(item);
    if (star !== null) {
      const alias = star[1]?.toLowerCase();
      const relation = relations.find((candidate) => alias === undefined || candidate.alias === alias);
      return (PG_STAR_COLUMNS[relation?.relation ?? ''] ?? []).map((name) => ({ name, keys: [name] }));
    }
    const alias = /\s+as\s+("(?:[^"]|"")+"|\w+)\s*$/i.exec(item);
    const expression = alias === null ? item : item.slice(0, alias.index).trim();
    const aliasName = alias === null ? undefined
      : alias[1]!.startsWith('"') ? alias[1]!.slice(1, -1).replace(/""/g, '"') : alias[1]!.toLowerCase();
    const call = /^(?:\w+\.)?(\w+)\s*\(/.exec(expression);
    const column = /^(?:\w+\.)?(\w+)$/.exec(expression);
    const own = call?.[1] ?? column?.[1];
    const name = aliasName ?? own?.toLowerCase() ?? '?column?';
    const keys = [aliasName?.toLowerCase(), own?.toLowerCase()].filter((key): key is string => key !== undefined);
    if (expression.startsWith('\'')) keys.push(`literal:${expression}`);
    return { name, keys };
  });
}

/** The text of the top-level FROM clause, up to WHERE, ORDER or GROUP, parenthesized parts taken out. */
function topFromClause(text: string): string {
  let top = text;
  for (let previous = ''; previous !== top;) {
    previous = top;
    top = top.replace(/\([^()]*\)/g, ' ');
  }
  return /\bfrom\b([\s\S]*?)(\bwhere\b|\border\b|\bgroup\b|$)/i.exec(top)?.[1] ?? '';
}

type ViewRow = Record<string, SqlValue>;

async function tableRows(source: PgCatalogSource): Promise<ViewRow[]> {
  // Tables before views, each by name: pgJDBC's getTables orders by its TABLE_TYPE first.
  const tables = (await source.tables()).sort((a, b) => (isView(a) !== isView(b) ? (isView(a) ? 1 : -1)
    : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const keyed = await Promise.all(tables.map(async (table) => {
    const keys = await table.keys();
    return keys.rowKeyColumnCount > 0 || keys.indexes.length > 0;
  }));
  return tables.map((table, t) => ({
    oid: tableOid(table.name), relname: table.name, nspname: 'public', schema: 'public', name: table.name,
    type: isView(table) ? 'view' : 'table', owner: source.user, relkind: isView(table) ? 'v' : 'r',
    relnamespace: 2200, relowner: 10, relchecks: 0,
    relhasindex: keyed[t] ? 't' : 'f', relhasrules: 'f', relhastriggers: 'f', relrowsecurity: 'f',
    relforcerowsecurity: 'f',
    relhasoids: 'f', relispartition: 'f', reltablespace: 0, reloftype: '', relpersistence: 'p',
    relreplident: 'd', amname: 'heap', table_catalog: 'public', table_schema: 'public',
    table_name: table.name, table_type: isView(table) ? 'VIEW' : 'BASE TABLE', description: null, 'literal:\'\'': '',
    store_kind: table.kind, table: quoteIdent(table.name), current_database: 'public', table_cat: 'public',
    table_schem: 'public', reltype: 0, relam: 2, relfilenode: 0, relpages: 0, reltuples: -1, relallvisible: 0,
    reltoastrelid: 0, relisshared: 'f', relhassubclass: 'f', relispopulated: 't', relrewrite: 0,
    relfrozenxid: 0, relminmxid: 0, relacl: null, reloptions: null, relpartbound: null,
    // pg_views and information_schema.views
    schemaname: 'public', viewname: table.name, viewowner: source.user, definition: table.definition ?? null,
    view_definition: table.definition ?? null, check_option: 'NONE', is_updatable: 'NO',
    is_insertable_into: isView(table) ? 'NO' : 'YES', is_trigger_updatable: 'NO', is_trigger_deletable: 'NO',
    is_trigger_insertable_into: 'NO',
  }));
}

function isView(table: PgCatalogTable): boolean {
  return table.kind === 'VIEW';
}

/** PostgreSQL's quote_ident(): the name as it is when it needs no quotes, else in double quotes. */
export function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

async function columnRows(tables: PgCatalogTable[]): Promise<ViewRow[]> {
  const rows: ViewRow[] = [];
  for (const table of tables) {
    const columns = await table.columns();
    const { notNull } = await table.keys();
    columns.forEach((column, index) => rows.push(columnRow(table.name, column, index, notNull[index] === true)));
  }
  return rows;
}

function columnRow(table: string, column: PgColumn, index: number, notNull: boolean): ViewRow {
  const type: SqlType = column.type;
  return {
    attrelid: tableOid(table), attname: column.name, attnum: index + 1, atttypid: pgTypeOf(type).oid,
    atttypmod: pgTypeOf(type).typmod, format_type: pgTypeName(type), attnotnull: notNull ? 't' : 'f', attidentity: '',
    attgenerated: '', attisdropped: 'f', attstorage: pgTypeOf(type).sizeBytes < 0 ? 'x' : 'p',
    attcollation: null, table_catalog: 'public', table_schema: 'public', table_name: table,
    column_name: column.name, ordinal_position: index + 1, data_type: pgTypeName(type).replace(/\(\d\)/, ''),
    is_nullable: notNull ? 'NO' : 'YES', udt_name: pgTypeName(type), column: quoteIdent(column.name),
    current_database: 'public', nspname: 'public', relname: table, attlen: pgTypeOf(type).sizeBytes,
    attstattarget: -1, attndims: 0, attcacheoff: -1, attbyval: pgTypeOf(type).sizeBytes > 0 &&
      pgTypeOf(type).sizeBytes <= 8 ? 't' : 'f', attalign: 'd', attcompression: '', atthasdef: 'f',
    atthasmissing: 'f', attislocal: 't', attinhcount: 0, attacl: null, attoptions: null, attfdwoptions: null,
    attmissingval: null, typtype: 'b', typbasetype: 0, typtypmod: -1, typnotnull: 'f', adsrc: null,
    def_value: null, description: null,
    type: pgTypeName(type).replace(/\(\d\)/, ''),
  };
}

/** The regular expression psql puts on a name (`relname OPERATOR(pg_catalog.~) '^(cpu)$'`). */
function nameFilter(text: string, column: string): RegExp | undefined {
  const pattern = new RegExp(`\\b${column}\\s+(?:OPERATOR\\(pg_catalog\\.~\\)|~)\\s+'((?:[^']|'')*)'`, 'i')
    .exec(text);
  if (pattern === null) return undefined;
  try {
    return new RegExp(pattern[1]!.replace(/''/g, '\''));
  } catch {
    return /(?!)/;
  }
}

/**
 * The value a filter compares `column` with: the first string literal it is compared with (also
 * through quote_ident(), as Grafana's pickers write it), else the first bare value.
 */
function equalsFilter(text: string, column: string): string | undefined {
  const literal = new RegExp(`\\b${column}\\)?\\s*=\\s*'((?:[^']|'')*)'`, 'i').exec(text);
  if (literal !== null) return literal[1]!.replace(/''/g, '\'');
  const match = new RegExp(`\\b${column}\\s*=\\s*([^'\\s)]+)`, 'i').exec(text);
  return match?.[1];
}

/** Whether a name in a filter is the table's: as it is, as quote_ident() writes it, or after `public.`. */
function namesTable(written: string, name: string): boolean {
  const unqualified = written.replace(/^(public|"public")\./, '');
  return unqualified === name || unqualified === quoteIdent(name);
}

/**
 * The relkinds ('r' table, 'v' view) a query of a table relation asks for: pg_tables only tables,
 * pg_views and information_schema.views only views; else those a `relkind IN (…)`, a `relkind =`
 * or pgJDBC's getTables types name, all when none does.
 */
function askedRelkinds(relation: string, text: string): Set<string> {
  if (relation === 'pg_catalog.pg_tables') return new Set(['r']);
  if (relation.endsWith('views')) return new Set(['v']);
  const jdbc = pgJdbcAskedRelkinds(text);
  if (jdbc !== undefined) return jdbc;
  const listed = /relkind\s+(not\s+)?in\s*\(([^)]*)\)/i.exec(text);
  if (listed !== null) {
    const names = new Set([...listed[2]!.matchAll(/'(\w)'/g)].map((match) => match[1]!));
    return new Set(['r', 'v'].filter((kind) => names.has(kind) !== (listed[1] !== undefined)));
  }
  const equal = /relkind\s*=\s*'(\w)'/i.exec(text)?.[1];
  return equal === undefined ? new Set(['r', 'v']) : new Set([equal]);
}

/** Rows of the relation the query reads, with the filters these tools use applied. */
async function relationRows(source: PgCatalogSource, relation: string, text: string): Promise<ViewRow[]> {
  // One schema, public (oid 2200): a filter on another leaves nothing.
  const namespace = pgNumberFilter(text, '(?:\\w+\\.)?relnamespace');
  if (namespace !== undefined && namespace !== '2200') return [];
  const schemaLike = pgLikeFilter(text, '(?:\\w+\\.)?nspname');
  if (schemaLike !== undefined && !schemaLike.test('public')) return [];
  const tableLike = pgLikeFilter(text, '(?:\\w+\\.)?relname');
  switch (relation) {
    case 'pg_catalog.pg_class': case 'information_schema.tables': case 'pg_catalog.pg_tables':
    case 'pg_catalog.pg_views': case 'information_schema.views': {
      // An index is a pg_class row where the kinds asked for name 'i' (psql's \di).
      const kinds = /relkind\s+in\s*\(([^)]*)\)/i.exec(text)?.[1];
      const indexes = relation === 'pg_catalog.pg_class' && kinds?.includes('\'i\'') === true
        ? (await indexEntries(source, '')).map((entry) => pgIndexClassRow(entry, source.user)) : [];
      const asked = askedRelkinds(relation, text);
      let rows = (await tableRows(source)).filter((row) => asked.has(row.relkind as string));
      if (relation === 'pg_catalog.pg_class') {
        rows = rows.map((row) => ({ ...row, table_type: row.relkind === 'v' ? 'VIEW' : 'TABLE' }));
      }
      rows = [...rows, ...indexes];
      const viewName = equalsFilter(text, '(?:\\w+\\.)?viewname');
      if (viewName !== undefined) rows = rows.filter((row) => row.viewname === viewName);
      const name = nameFilter(text, '(?:c\\.)?relname');
      if (name !== undefined) rows = rows.filter((row) => name.test(row.relname as string));
      if (tableLike !== undefined) rows = rows.filter((row) => tableLike.test(row.relname as string));
      const relnameEquals = equalsFilter(text, '(?<![\\w.])(?:c\\.)?relname');
      if (relnameEquals !== undefined && !/^\w+\.\w+$/.test(relnameEquals)) {
        rows = rows.filter((row) => row.relname === relnameEquals);
      }
      const oid = pgNumberFilter(text, '(?:c\\.)?oid');
      if (oid !== undefined) rows = rows.filter((row) => String(row.oid) === oid);
      const tableName = equalsFilter(text, '(?:\\w+\\.)?table_name');
      if (tableName !== undefined) rows = rows.filter((row) => row.table_name === tableName);
      if (/table_schema\s*(=|in)\s*\(?\s*'(pg_catalog|information_schema)'/i.test(text)) return [];
      return rows;
    }
    case 'pg_catalog.pg_attribute': case 'information_schema.columns': {
      const tables = (await source.tables()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const oid = pgNumberFilter(text, '(?:a\\.)?attrelid') ?? pgNumberFilter(text, '(?:c\\.)?oid');
      const tableName = equalsFilter(text, '(?:\\w+\\.)?table_name');
      const chosen = tables.filter((table) => (oid === undefined || String(tableOid(table.name)) === oid) &&
        (tableName === undefined || namesTable(tableName, table.name)) &&
        (tableLike === undefined || tableLike.test(table.name)));
      const columnLike = pgLikeFilter(text, '(?:\\w+\\.)?attname');
      const rows = await columnRows(chosen);
      return columnLike === undefined ? rows : rows.filter((row) => columnLike.test(row.attname as string));
    }
    case 'pg_catalog.pg_namespace': case 'information_schema.schemata': {
      const name = /\b(?:n\.)?nspname\s*=\s*'((?:[^']|'')*)'/i.exec(text)?.[1];
      if (name !== undefined && name !== 'public') return [];
      return [{ oid: 2200, nspname: 'public', name: 'public', owner: source.user, schema_name: 'public',
        nspowner: 10, nspacl: null, description: null, current_database: 'public' }];
    }
    case 'pg_catalog.pg_database': {
      const name = equalsFilter(text, '(?:\\w+\\.)?datname');
      if (name !== undefined && name !== 'public') return [];
      return [{ oid: 1, datname: 'public', name: 'public', owner: source.user, encoding: 'UTF8',
        pg_encoding_to_char: 'UTF8', collate: 'C', ctype: 'C', datcollate: 'C', datctype: 'C',
        'locale provider': 'libc', 'icu locale': null, 'access privileges': null, datdba: 10,
        datlocprovider: 'c', datistemplate: 'f', datallowconn: 't', datconnlimit: -1, dattablespace: 1663,
        datacl: null, description: null }];
    }
    case 'pg_catalog.pg_index': {
      // DBeaver's `i.indrelid=?`, psql's `c.oid = '...'` (\d table), pgJDBC's table name.
      const table = pgNumberFilter(text, '(?:\\w+\\.)?indrelid') ?? pgNumberFilter(text, '(?:c\\.)?oid');
      const entries = (await indexEntries(source, text)).filter((entry) =>
        table === undefined || String(entry.tableOid) === table);
      // DBeaver orders by the index's name; psql's \d by indisprimary DESC first, then the name.
      const primaryFirst = /\border\s+by\s+i\.indisprimary\s+desc\b/i.test(text);
      return entries.sort((a, b) => (primaryFirst && a.primary !== b.primary ? (a.primary ? -1 : 1)
        : a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(pgIndexRow);
    }
    case 'pg_catalog.pg_constraint': {
      const table = pgNumberFilter(text, '(?:\\w+\\.)?conrelid');
      const kind = /\bcontype\s*=\s*'(\w)'/i.exec(text)?.[1];
      if (kind !== undefined && kind !== 'p') return [];
      const entries = (await indexEntries(source, text)).filter((entry) => entry.primary &&
        (table === undefined || String(entry.tableOid) === table));
      return entries.map(pgConstraintRow).sort((a, b) => Number(a.oid) - Number(b.oid));
    }
    case 'pg_catalog.pg_am': {
      const name = equalsFilter(text, '(?:\\w+\\.)?amname');
      return PG_ACCESS_METHODS.filter((am) => name === undefined || am.amname === name).map((am) => ({ ...am }));
    }
    case 'pg_catalog.pg_settings': {
      const name = equalsFilter(text, 'name');
      const value = name === undefined ? undefined : source.setting(name);
      return value === undefined ? [] : [{ name: name!, setting: value }];
    }
    default:
      return [];
  }
}

/** An index's pg_class row, with what psql's \di reads of it (`"Type"`, `"Table"`, `"Owner"`). */
function pgIndexClassRow(entry: PgIndexEntry, owner: string): ViewRow {
  return { ...pgIndexRow(entry), nspname: 'public', schema: 'public', name: entry.name, type: 'index',
    owner, table: entry.table, relowner: 10, relhasindex: 'f', relpersistence: 'p', relispartition: 'f',
    relisshared: 'f', reltype: 0, relnatts: entry.columns.length };
}

/**
 * The primary keys and indexes of the tables a query's table filters leave (`ct.relname = '...'`,
 * pgJDBC's; a LIKE pattern on relname), in table order.
 */
async function indexEntries(source: PgCatalogSource, text: string): Promise<PgIndexEntry[]> {
  const tables = (await source.tables()).filter((table) => !isView(table)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const name = equalsFilter(text, '(?<![\\w.])(?:ct\\.|tc\\.|t\\.)relname');
  const like = pgLikeFilter(text, '(?:ct\\.)?relname');
  const entries: PgIndexEntry[] = [];
  for (const table of tables) {
    if ((name !== undefined && table.name !== name) || (like !== undefined && !like.test(table.name))) continue;
    entries.push(...pgIndexEntries(tableOid, table.name, await table.columns(), await table.keys()));
  }
  return entries;
}

/**
 * pgJDBC's getPrimaryKeys and getIndexInfo: `SELECT alias.X AS "X", ... FROM (SELECT ...,
 * information_schema._pg_expandarray(con.conkey | i.indkey) ... FROM pg_constraint | pg_index
 * ...) alias WHERE ... ORDER BY ...`: a row per key column of each primary key (getPrimaryKeys)
 * or index (getIndexInfo; only the unique ones for `i.indisunique`), filtered by schema and table
 * and sorted as each orders them.
 */
async function keyColumnQuery(source: PgCatalogSource, text: string): Promise<PgLocalResult> {
  const primaryKeys = /\bpg_catalog\.pg_constraint\b/i.test(text);
  const schema = equalsFilter(text, '(?:\\w+\\.)?nspname');
  let entries = schema !== undefined && schema !== 'public' ? [] : await indexEntries(source, text);
  if (primaryKeys || /\band\s+i\.indisunique\b/i.test(text)) entries = entries.filter((entry) => entry.primary);
  const rows = entries.flatMap(pgKeyColumnRows);
  const order = primaryKeys ? ['table_name', 'pk_name', 'key_seq'] : ['non_unique', 'type', 'index_name', 'ordinal_position'];
  rows.sort((a, b) => {
    for (const key of order) {
      const x = a[key]!;
      const y = b[key]!;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
  const items = selectItems(text, []);
  return {
    columns: items.map((item) => ({ name: item.name, type: 'STRING' as const })),
    rows: rows.map((row) => items.map((item) => {
      const key = item.keys.find((candidate) => Object.hasOwn(row, candidate));
      const value = key === undefined ? null : row[key]!;
      return value === null ? null : String(value);
    })),
  };
}

/** The relations that hold rows here; an inner join with any other (all empty) is empty. */
const VIEWS_WITH_ROWS = new Set(['pg_class', 'pg_namespace', 'pg_attribute', 'pg_database', 'pg_am', 'pg_index',
  'pg_constraint', 'pg_settings', 'pg_tables', 'tables', 'columns', 'schemata', 'pg_type', 'pg_views', 'views']);

/** Whether the top-level FROM joins (comma or inner JOIN) a relation that has no rows here. */
function joinsEmptyRelation(relations: readonly PgFromRelation[]): boolean {
  return relations.slice(1).some((joined) => joined.inner && !VIEWS_WITH_ROWS.has(joined.relation.split('.')[1]!));
}

/** Answers a pg_catalog or information_schema query (isCatalogQuery). */
export async function catalogQuery(source: PgCatalogSource, query: string): Promise<PgLocalResult> {
  if (/\binformation_schema\s*\.\s*_pg_expandarray\s*\(/i.test(query)) return keyColumnQuery(source, query);
  const text = unwrapDerived(query);
  const relations = pgFromRelations(topFromClause(text));
  const items = selectItems(text, relations);
  const relation = pgPrimaryRelation(relations);
  const rows = relation === undefined ? [functionRow(source)]
    : joinsEmptyRelation(relations) ? [] : await relationRows(source, relation, text);
  const columns = items.map((item) => ({ name: item.name, type: 'STRING' as const }));
  const values = rows.map((row) => items.map((item) => {
    for (const key of item.keys) {
      if (Object.hasOwn(row, key)) {
        const value = row[key]!;
        return value === null ? null : String(value);
      }
    }
    return null;
  }));
  return { columns, rows: sortedLike(text, values) };
}

/**
 * pgJDBC's getColumns reads `SELECT * FROM (SELECT ... FROM pg_attribute ...) c WHERE true AND
 * attname LIKE ? ORDER BY ...`: the inner query, with the outer filters after it.
 */
function unwrapDerived(text: string): string {
  const head = /^\s*select\s+\*\s+from\s*\(/i.exec(text);
  if (head === null) return text;
  let depth = 1;
  let quote = '';
  for (let i = head[0].length; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '\'' || c === '"') {
      quote = c;
    } else if (c === '(') {
      depth++;
    } else if (c === ')' && --depth === 0) {
      return `${text.slice(head[0].length, i)} ${text.slice(i + 1)}`;
    }
  }
  return text;
}

/** ORDER BY 1,2 (psql's) sorts by the first columns; any other order is the view's own. */
function sortedLike(text: string, rows: SqlValue[][]): SqlValue[][] {
  if (!/\border\s+by\s+\d/i.test(text)) return rows;
  return rows.sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, 3); i++) {
      const x = String(a[i] ?? '');
      const y = String(b[i] ?? '');
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
}

/** A SELECT of functions only: the values they have in this session. */
function functionRow(source: PgCatalogSource): ViewRow {
  return {
    version: source.serverVersion, current_database: 'public', current_schema: 'public',
    current_user: source.user, session_user: source.user, user: source.user,
    pg_is_in_recovery: 'f', current_schemas: '{public}', current_catalog: 'public',
  };
}

/** `SELECT version()`, `SELECT current_setting('x')` and friends without FROM; undefined for others. */
export function sessionFunctionQuery(source: PgCatalogSource, text: string): PgLocalResult | undefined {
  const match = /^\s*select\s+((?:pg_catalog\.)?(version|current_database|current_schema|current_user|session_user|current_setting|pg_backend_pid)\s*(\(\s*('(?:[^']|'')*')?\s*\))?)(\s*::\s*int(?:eger|4|8)?\s*(?:\/\s*(\d+))?)?\s*(?:as\s+("?)(\w+)\7)?\s*;?\s*$/i
    .exec(text);
  if (match === null) return undefined;
  const fn = match[2]!.toLowerCase();
  const name = match[8] ?? fn;
  if (fn === 'current_setting') {
    const setting = (match[4] ?? '\'\'').slice(1, -1).replace(/''/g, '\'');
    const value = source.setting(setting.toLowerCase());
    // Grafana's version probe: current_setting('server_version_num')::int/100.
    if (match[5] !== undefined && value !== undefined && /^\d+$/.test(value)) {
      const divisor = Number(match[6] ?? '1');
      return { columns: [{ name, type: 'STRING' }], rows: [[String(Math.trunc(Number(value) / divisor))]] };
    }
    return { columns: [{ name, type: 'STRING' }], rows: [[value ?? null]] };
  }
  if (match[5] !== undefined) return undefined;
  if (fn === 'pg_backend_pid') return undefined;
  return { columns: [{ name, type: 'STRING' }], rows: [[functionRow(source)[fn] ?? null]] };
}
