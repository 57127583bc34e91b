// What pg-catalog.ts needs to know of the pg_catalog relations beyond their rows: which relations
// a query's FROM names and under which aliases (the one whose rows it reads is the most detailed
// of those joined inner: a column's row over a table's over the schema's), their columns in
// PostgreSQL 15's order for `alias.*` (DBeaver's navigator selects `c.*`, `a.*`, `n.*`, `db.*`),
// and the filters pgJDBC's DatabaseMetaData writes: `LIKE` patterns on nspname, relname and
// attname (JDBC's patterns, % and _), and the `AND (false OR (...) ...)` of getTables' types.

/** The columns of `alias.*`, PostgreSQL 15's, by relation. */
export const PG_STAR_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  'pg_catalog.pg_class': ['oid', 'relname', 'relnamespace', 'reltype', 'reloftype', 'relowner', 'relam',
    'relfilenode', 'reltablespace', 'relpages', 'reltuples', 'relallvisible', 'reltoastrelid', 'relhasindex',
    'relisshared', 'relpersistence', 'relkind', 'relnatts', 'relchecks', 'relhasrules', 'relhastriggers',
    'relhassubclass', 'relrowsecurity', 'relforcerowsecurity', 'relispopulated', 'relreplident',
    'relispartition', 'relrewrite', 'relfrozenxid', 'relminmxid', 'relacl', 'reloptions', 'relpartbound'],
  'pg_catalog.pg_namespace': ['oid', 'nspname', 'nspowner', 'nspacl'],
  'pg_catalog.pg_attribute': ['attrelid', 'attname', 'atttypid', 'attstattarget', 'attlen', 'attnum',
    'attndims', 'attcacheoff', 'atttypmod', 'attbyval', 'attalign', 'attstorage', 'attcompression',
    'attnotnull', 'atthasdef', 'atthasmissing', 'attidentity', 'attgenerated', 'attisdropped', 'attislocal',
    'attinhcount', 'attcollation', 'attacl', 'attoptions', 'attfdwoptions', 'attmissingval'],
  'pg_catalog.pg_index': ['indexrelid', 'indrelid', 'indnatts', 'indnkeyatts', 'indisunique', 'indnullsnotdistinct',
    'indisprimary', 'indisexclusion', 'indimmediate', 'indisclustered', 'indisvalid', 'indcheckxmin', 'indisready',
    'indislive', 'indisreplident', 'indkey', 'indcollation', 'indclass', 'indoption', 'indexprs', 'indpred'],
  'pg_catalog.pg_constraint': ['oid', 'conname', 'connamespace', 'contype', 'condeferrable', 'condeferred',
    'convalidated', 'conrelid', 'contypid', 'conindid', 'conparentid', 'confrelid', 'confupdtype', 'confdeltype',
    'confmatchtype', 'conislocal', 'coninhcount', 'connoinherit', 'conkey', 'confkey', 'conpfeqop', 'conppeqop',
    'conffeqop', 'confdelsetcols', 'conexclop', 'conbin'],
  'pg_catalog.pg_database': ['oid', 'datname', 'datdba', 'encoding', 'datlocprovider', 'datistemplate',
    'datallowconn', 'datconnlimit', 'datfrozenxid', 'datminmxid', 'dattablespace', 'datcollate', 'datctype',
    'daticulocale', 'datcollversion', 'datacl'],
};

/** How much of the catalog one row of a relation stands for: the query reads the highest joined. */
const RELATION_DETAIL: Readonly<Record<string, number>> = {
  'pg_catalog.pg_index': 4, 'pg_catalog.pg_constraint': 4,
  'pg_catalog.pg_attribute': 3, 'information_schema.columns': 3,
  'pg_catalog.pg_class': 2, 'information_schema.tables': 2, 'pg_catalog.pg_tables': 2,
  'pg_catalog.pg_views': 2, 'information_schema.views': 2,
};

export interface PgFromRelation {
  /** `schema.name`, pg_catalog when the query names none. */
  relation: string;
  alias: string;
  /** The first of FROM, or joined with a comma or an inner JOIN; false for a LEFT JOIN. */
  inner: boolean;
}

/** The relations of a top-level FROM clause (`from` is its text, parentheses taken out). */
export function pgFromRelations(from: string): PgFromRelation[] {
  const relations: PgFromRelation[] = [];
  const pattern = /(^|,|\bjoin\b)\s*(?:(pg_catalog|information_schema)\s*\.\s*)?(\w+)(?:\s+(?:as\s+)?(?!on\b|left\b|inner\b|join\b|where\b|cross\b|right\b|full\b|natural\b)(\w+))?/gi;
  for (const match of from.matchAll(pattern)) {
    const before = from.slice(0, match.index).trimEnd();
    const left = match[1]!.toLowerCase() === 'join' && /\bleft(\s+outer)?$/i.test(before);
    const relation = `${(match[2] ?? 'pg_catalog').toLowerCase()}.${match[3]!.toLowerCase()}`;
    relations.push({ relation, alias: (match[4] ?? match[3]!).toLowerCase(), inner: !left });
  }
  return relations;
}

/** The relation whose rows the query reads: the most detailed one joined inner, else the first. */
export function pgPrimaryRelation(relations: readonly PgFromRelation[]): string | undefined {
  let best: PgFromRelation | undefined;
  for (const candidate of relations) {
    if (!candidate.inner) continue;
    if (best === undefined || (RELATION_DETAIL[candidate.relation] ?? 1) > (RELATION_DETAIL[best.relation] ?? 1)) {
      best = candidate;
    }
  }
  return best?.relation;
}

/**
 * The `LIKE` pattern a filter puts on `column` (`n.nspname LIKE 'pub%'`) as a regular expression;
 * `LIKE NULL` (a Describe's parameters) matches nothing; undefined when the query has no such filter.
 */
export function pgLikeFilter(text: string, column: string): RegExp | undefined {
  const match = new RegExp(`\\b${column}\\s+like\\s+(?:'((?:[^']|'')*)'|(null)\\b)`, 'i').exec(text);
  if (match === null) return undefined;
  if (match[2] !== undefined) return /(?!)/;
  const pattern = match[1]!.replace(/''/g, '\'');
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]!);
    else if (c === '%') source += '.*';
    else if (c === '_') source += '.';
    else source += escapeRegExp(c);
  }
  return new RegExp(`^${source}$`, 's');
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

/**
 * pgJDBC's getTables(types): `AND (false OR ( clause ) OR ( clause ) ...)`, one clause a type. A
 * store table is a TABLE, a view a VIEW: each is asked for when a clause takes its relkind ('r',
 * 'v') outside the system schemas (SYSTEM TABLE's and SYSTEM VIEW's name nspname = 'pg_catalog').
 * Undefined: no such list.
 */
export function pgJdbcAskedRelkinds(text: string): Set<string> | undefined {
  const start = /\band\s+\(\s*false\b/i.exec(text);
  if (start === null) return undefined;
  const clauses = text.slice(start.index + start[0].length).split(/\bor\s+\(\s*/i).slice(1);
  const asked = clauses.filter((clause) => !/\bnspname\s*=\s*'/i.test(clause))
    .map((clause) => /\brelkind\s*=\s*'(\w)'/i.exec(clause)?.[1]);
  return new Set(['r', 'v'].filter((kind) => asked.includes(kind)));
}

/** The number a filter compares `column` with (`c.oid=16384`, `relnamespace = '2200'`); the first of several. */
export function pgNumberFilter(text: string, column: string): string | undefined {
  return new RegExp(`\\b${column}\\s*=\\s*'?(\\d+)\\b'?`, 'i').exec(text)?.[1];
}
