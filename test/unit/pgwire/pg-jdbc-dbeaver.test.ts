// pgJDBC's and DBeaver's catalog queries against a real node, replayed through node-postgres in
// the extended protocol (Parse/Bind/Execute with `$n` parameters, as pgJDBC sends its `?`), and
// their answers checked against the tables made here. No JVM runs in this test: the texts are
// captured from the sources, verbatim but for `?` → `$n`:
//   - pgJDBC (pgjdbc/pgjdbc, master 2026-07): PgConnection (getSchema's `select current_schema()`,
//     getTransactionIsolation's SHOW, setReadOnly's SET SESSION CHARACTERISTICS, `select
//     current_catalog`), PgDatabaseMetaData.getTables (server 15, hideUnprivilegedObjects off,
//     types TABLE and VIEW), getColumns, getSchemas, getCatalogs;
//   - DBeaver's PostgreSQL plugin (dbeaver/dbeaver, plugins/org.jkiss.dbeaver.ext.postgresql):
//     PostgreDataSource's `SELECT current_schema(),session_user`, PostgreDataSource's database
//     lookup, PostgreDatabase.SchemaCache, PostgreSchema.TableCache (tables and their columns),
//     PostgreSchema.ConstraintCache and IndexCache (keys and indexes, of a table and of the schema);
//   - pgJDBC (pgjdbc/pgjdbc 3a699d5, 2026-07-16) PgDatabaseMetaData.getPrimaryKeys and getIndexInfo
//     (server 9.6 and later), with and without a schema, and getIndexInfo's `unique` true.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tableOid } from '../../../lib/pgwire/pg-catalog.ts';
import { pgClientOnNodeForSuite } from './pg-node-suite.ts';

const JDBC_GET_TABLES = 'SELECT current_database() AS "TABLE_CAT", n.nspname AS "TABLE_SCHEM", c.relname AS "TABLE_NAME", ' +
  ' CASE n.nspname ~ \'^pg_\' OR n.nspname = \'information_schema\'  WHEN true THEN CASE  WHEN n.nspname = ' +
  '\'pg_catalog\' OR n.nspname = \'information_schema\' THEN CASE c.relkind   WHEN \'r\' THEN \'SYSTEM TABLE\'   ' +
  'WHEN \'v\' THEN \'SYSTEM VIEW\'   WHEN \'i\' THEN \'SYSTEM INDEX\'   ELSE NULL   END  WHEN n.nspname = ' +
  '\'pg_toast\' THEN CASE c.relkind   WHEN \'r\' THEN \'SYSTEM TOAST TABLE\'   WHEN \'i\' THEN \'SYSTEM TOAST ' +
  'INDEX\'   ELSE NULL   END  ELSE CASE c.relkind   WHEN \'r\' THEN \'TEMPORARY TABLE\'   WHEN \'p\' THEN ' +
  '\'TEMPORARY TABLE\'   WHEN \'i\' THEN \'TEMPORARY INDEX\'   WHEN \'S\' THEN \'TEMPORARY SEQUENCE\'   WHEN ' +
  '\'v\' THEN \'TEMPORARY VIEW\'   ELSE NULL   END  END  WHEN false THEN CASE c.relkind  WHEN \'r\' THEN ' +
  '\'TABLE\'  WHEN \'p\' THEN \'PARTITIONED TABLE\'  WHEN \'i\' THEN \'INDEX\'  WHEN \'P\' then \'PARTITIONED ' +
  'INDEX\'  WHEN \'S\' THEN \'SEQUENCE\'  WHEN \'v\' THEN \'VIEW\'  WHEN \'c\' THEN \'TYPE\'  WHEN \'f\' THEN ' +
  '\'FOREIGN TABLE\'  WHEN \'m\' THEN \'MATERIALIZED VIEW\'  ELSE NULL  END  ELSE NULL  END  AS "TABLE_TYPE", ' +
  'd.description AS "REMARKS",  \'\' as "TYPE_CAT", \'\' as "TYPE_SCHEM", \'\' as "TYPE_NAME", \'\' AS ' +
  '"SELF_REFERENCING_COL_NAME", \'\' AS "REF_GENERATION"  FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c ' +
  ' LEFT JOIN pg_catalog.pg_description d ON (c.oid = d.objoid AND d.objsubid = 0  and d.classoid = ' +
  '\'pg_class\'::regclass)  WHERE c.relnamespace = n.oid  AND n.nspname LIKE $1 AND c.relname LIKE $2';

/** getTables' `types` clause for TABLE, then for VIEW (tableTypeClauses, SCHEMAS). */
const JDBC_TYPES_TABLE_VIEW = ' AND (false  OR ( c.relkind = \'r\' AND n.nspname !~ \'^pg_\' AND n.nspname <> ' +
  '\'information_schema\' )  OR ( c.relkind = \'v\' AND n.nspname <> \'pg_catalog\' AND n.nspname <> ' +
  '\'information_schema\' ) ) ';
const JDBC_TYPES_SYSTEM_TABLE = ' AND (false  OR ( c.relkind = \'r\' AND (n.nspname = \'pg_catalog\' OR ' +
  'n.nspname = \'information_schema\') ) ) ';
const JDBC_TABLES_ORDER = ' ORDER BY "TABLE_TYPE","TABLE_SCHEM","TABLE_NAME" ';

const JDBC_GET_COLUMNS = 'SELECT * FROM (SELECT current_database() AS current_database, n.nspname,c.relname,' +
  'a.attname,a.atttypid,a.attnotnull  OR (t.typtype = \'d\' AND t.typnotnull) AS attnotnull,a.atttypmod,' +
  'a.attlen,t.typtypmod,row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum, ' +
  'nullif(a.attidentity, \'\') as attidentity,nullif(a.attgenerated, \'\') as attgenerated,' +
  'pg_catalog.pg_get_expr(def.adbin, def.adrelid) AS adsrc,dsc.description,t.typbasetype,t.typtype  ' +
  'FROM pg_catalog.pg_namespace n  JOIN pg_catalog.pg_class c ON (c.relnamespace = n.oid)  JOIN ' +
  'pg_catalog.pg_attribute a ON (a.attrelid=c.oid)  JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid)  LEFT ' +
  'JOIN pg_catalog.pg_attrdef def ON (a.attrelid=def.adrelid AND a.attnum = def.adnum)  LEFT JOIN ' +
  'pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)  LEFT JOIN ' +
  'pg_catalog.pg_class dc ON (dc.oid=dsc.classoid AND dc.relname=\'pg_class\')  LEFT JOIN ' +
  'pg_catalog.pg_namespace dn ON (dc.relnamespace=dn.oid AND dn.nspname=\'pg_catalog\')  WHERE c.relkind in ' +
  '(\'r\',\'p\',\'v\',\'f\',\'m\') and a.attnum > 0 AND NOT a.attisdropped  AND n.nspname LIKE $1 AND ' +
  'c.relname LIKE $2) c WHERE true  AND attname LIKE $3 ORDER BY nspname,c.relname,attnum ';

const JDBC_GET_SCHEMAS = 'SELECT nspname AS "TABLE_SCHEM", current_database() AS "TABLE_CATALOG" FROM ' +
  'pg_catalog.pg_namespace  WHERE nspname <> \'pg_toast\' AND (nspname !~ \'^pg_temp_\'  OR nspname = ' +
  '(pg_catalog.current_schemas(true))[1]) AND (nspname !~ \'^pg_toast_temp_\'  OR nspname = ' +
  'replace((pg_catalog.current_schemas(true))[1], \'pg_temp_\', \'pg_toast_temp_\'))  ORDER BY "TABLE_SCHEM"';

const JDBC_GET_CATALOGS = 'SELECT datname AS "TABLE_CAT" FROM pg_catalog.pg_database WHERE datallowconn = true ORDER BY datname';

const DBEAVER_DATABASE = 'SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE datname=$1';
const DBEAVER_SCHEMAS = 'SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n\nLEFT OUTER JOIN ' +
  'pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid=\'pg_namespace\'::regclass\n' +
  ' ORDER BY nspname';
const DBEAVER_TABLES = 'SELECT c.oid,c.*,d.description FROM pg_catalog.pg_class c\nLEFT OUTER JOIN ' +
  'pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0\nWHERE c.relnamespace=$1 AND c.relkind not in ' +
  '(\'i\',\'c\')';
const DBEAVER_COLUMNS = 'SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,' +
  'dsc.description\nFROM pg_catalog.pg_attribute a\nINNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid)\n' +
  'LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum)\nLEFT OUTER JOIN ' +
  'pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)\nWHERE NOT a.attisdropped';

const JDBC_GET_PRIMARY_KEYS = (schema: boolean) => 'SELECT        result.TABLE_CAT AS "TABLE_CAT",        ' +
  'result.TABLE_SCHEM AS "TABLE_SCHEM",        result.TABLE_NAME AS "TABLE_NAME",        result.COLUMN_NAME AS ' +
  '"COLUMN_NAME",        result.KEY_SEQ AS "KEY_SEQ",        result.PK_NAME AS "PK_NAME"FROM      (' +
  'SELECT current_database() AS TABLE_CAT, n.nspname AS TABLE_SCHEM,   ct.relname AS TABLE_NAME, a.attname AS ' +
  'COLUMN_NAME,   (information_schema._pg_expandarray(con.conkey)).n AS KEY_SEQ, con.conname AS PK_NAME,   ' +
  'information_schema._pg_expandarray(con.conkey) AS KEYS, a.attnum AS A_ATTNUM FROM pg_catalog.pg_constraint con ' +
  '  JOIN pg_catalog.pg_class ct ON (con.conrelid = ct.oid)   JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = ' +
  'n.oid)   JOIN pg_catalog.pg_attribute a ON (a.attrelid = ct.oid) WHERE con.contype = \'p\' ' +
  (schema ? ' AND n.nspname = $1 AND ct.relname = $2' : ' AND ct.relname = $1') +
  ' ) result where  result.A_ATTNUM = (result.KEYS).x  ORDER BY result.table_name, result.pk_name, result.key_seq';

const JDBC_GET_INDEX_INFO = (unique: boolean) => 'SELECT     tmp.TABLE_CAT AS "TABLE_CAT",     tmp.TABLE_SCHEM AS ' +
  '"TABLE_SCHEM",     tmp.TABLE_NAME AS "TABLE_NAME",     tmp.NON_UNIQUE AS "NON_UNIQUE",     tmp.INDEX_QUALIFIER ' +
  'AS "INDEX_QUALIFIER",     tmp.INDEX_NAME AS "INDEX_NAME",     tmp.TYPE AS "TYPE",     tmp.ORDINAL_POSITION AS ' +
  '"ORDINAL_POSITION",     trim(both \'"\' from pg_catalog.pg_get_indexdef(tmp.CI_OID, tmp.ORDINAL_POSITION, false)) ' +
  'AS "COLUMN_NAME",   CASE tmp.AM_NAME     WHEN \'btree\' THEN CASE tmp.I_INDOPTION[tmp.ORDINAL_POSITION - 1] & ' +
  '1::smallint       WHEN 1 THEN \'D\'       ELSE \'A\'     END     ELSE NULL   END AS "ASC_OR_DESC",     ' +
  'tmp.CARDINALITY AS "CARDINALITY",     tmp.PAGES AS "PAGES",     tmp.FILTER_CONDITION AS "FILTER_CONDITION",     ' +
  'tmp.REMARKS AS "REMARKS"FROM (SELECT current_database() AS TABLE_CAT,  n.nspname AS TABLE_SCHEM,   ct.relname ' +
  'AS TABLE_NAME, NOT i.indisunique AS NON_UNIQUE,   NULL AS INDEX_QUALIFIER, ci.relname AS INDEX_NAME,   CASE ' +
  'i.indisclustered     WHEN true THEN 1    ELSE CASE am.amname       WHEN \'hash\' THEN 2      ELSE 3    END   ' +
  'END AS TYPE,   (information_schema._pg_expandarray(i.indkey)).n AS ORDINAL_POSITION,   ci.reltuples AS ' +
  'CARDINALITY,   ci.relpages AS PAGES,   pg_catalog.pg_get_expr(i.indpred, i.indrelid) AS FILTER_CONDITION,   ' +
  'ci.oid AS CI_OID,   i.indoption AS I_INDOPTION,   am.amname AS AM_NAME,   d.description AS REMARKS FROM ' +
  'pg_catalog.pg_class ct   JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid)   JOIN pg_catalog.pg_index ' +
  'i ON (ct.oid = i.indrelid)   JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid)   JOIN pg_catalog.pg_am am ' +
  'ON (ci.relam = am.oid)   LEFT JOIN pg_catalog.pg_description d ON (ci.oid = d.objoid) WHERE true  AND ' +
  'n.nspname = $1 AND ct.relname = $2' + (unique ? ' AND i.indisunique ' : '') + ') AS tmp ORDER BY "NON_UNIQUE", ' +
  '"TYPE", "INDEX_NAME", "ORDINAL_POSITION" ';

const DBEAVER_CONSTRAINTS = (forTable: boolean) => 'SELECT c.oid,c.*,t.relname as tabrelname,rt.relnamespace as ' +
  'refnamespace\nFROM pg_catalog.pg_constraint c\nINNER JOIN pg_catalog.pg_class t ON t.oid=c.conrelid\nLEFT OUTER ' +
  `JOIN pg_catalog.pg_class rt ON rt.oid=c.confrelid\nWHERE ${forTable ? 'c.conrelid=$1' : 't.relnamespace=$1'}` +
  '\nORDER BY c.oid';
const DBEAVER_INDEXES = (forTable: boolean) => 'SELECT i.*,i.indkey as keys,c.relname,c.relnamespace,c.relam,' +
  'tc.relname as tabrelname,dsc.description,pg_catalog.pg_get_expr(i.indexprs, i.indrelid, true) as expr\nFROM ' +
  'pg_catalog.pg_index i\nINNER JOIN pg_catalog.pg_class c ON c.oid=i.indexrelid\nINNER JOIN pg_catalog.pg_class tc ' +
  'ON tc.oid=i.indrelid\nLEFT OUTER JOIN pg_catalog.pg_description dsc ON i.indexrelid=dsc.objoid\nWHERE ' +
  `${forTable ? ' i.indrelid=$1' : ' c.relnamespace=$1'} ORDER BY c.relname`;

describe('pgJDBC and DBeaver: their catalog queries on a real node', { timeout: 120_000 }, () => {
  const suite = pgClientOnNodeForSuite('PostgreSQL JDBC Driver', async (db) => {
    await db.query('CREATE TABLE cpu (ts TIMESTAMP PRIMARY KEY, host STRING, usage DOUBLE)');
    await db.query('CREATE TABLE cpx (id LONG PRIMARY KEY, ok BOOL)');
    await db.query('CREATE TABLE meter (ts TIMESTAMP PRIMARY KEY, kwh FLOAT)');
    await db.query('CREATE TABLE site (region STRING, id INTEGER, label STRING, PRIMARY KEY (region, id))');
    await db.query('CREATE INDEX cpu_host ON cpu (host)');
    await db.query('CREATE INDEX cpu_host_usage ON cpu (host, usage)');
  });

  /** One statement as pgJDBC sends it: Parse (named, as after prepareThreshold), Bind, Execute. */
  async function prepared(text: string, values: unknown[] = []): Promise<Record<string, string | null>[]> {
    return (await suite.db.query({ text, values, name: `s${Math.abs(tableOid(text))}` })).rows;
  }

  it('pgJDBC at connect and for the connection\'s state', async () => {
    assert.deepEqual(await prepared('select current_schema()'), [{ current_schema: 'public' }]);
    assert.deepEqual(await prepared('select current_catalog'), [{ current_catalog: 'public' }]);
    assert.deepEqual(await prepared('SHOW TRANSACTION ISOLATION LEVEL'), [{ transaction_isolation: 'read committed' }]);
    await suite.db.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
    assert.deepEqual((await suite.db.query('SHOW default_transaction_read_only')).rows,
      [{ default_transaction_read_only: 'on' }]);
    await suite.db.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE');
    await suite.db.query('SET application_name = \'PostgreSQL JDBC Driver\'');
  });

  it('pgJDBC getTables: a pattern, TABLE and VIEW types; SYSTEM TABLE lists none', async () => {
    const rows = await prepared(JDBC_GET_TABLES + JDBC_TYPES_TABLE_VIEW + JDBC_TABLES_ORDER, ['public', 'cp%']);
    assert.deepEqual(rows.map((row) => [row.TABLE_CAT, row.TABLE_SCHEM, row.TABLE_NAME, row.TABLE_TYPE, row.TYPE_NAME]),
      [['public', 'public', 'cpu', 'TABLE', ''], ['public', 'public', 'cpx', 'TABLE', '']]);
    assert.equal((await prepared(JDBC_GET_TABLES + JDBC_TABLES_ORDER, ['%', '%'])).length, 4);
    assert.deepEqual(await prepared(JDBC_GET_TABLES + JDBC_TYPES_SYSTEM_TABLE + JDBC_TABLES_ORDER, ['%', '%']), []);
    assert.deepEqual(await prepared(JDBC_GET_TABLES + JDBC_TABLES_ORDER, ['pg_catalog', '%']), []);
    assert.deepEqual(await prepared(JDBC_GET_TABLES + JDBC_TABLES_ORDER, ['public', 'cp\\_']), []);
  });

  it('pgJDBC getColumns: each column with its type oid, typmod and position', async () => {
    const rows = await prepared(JDBC_GET_COLUMNS, ['public', 'cpu', '%']);
    assert.deepEqual(rows.map((row) => [row.current_database, row.nspname, row.relname, row.attname, row.atttypid,
      row.atttypmod, row.attnum, row.attnotnull, row.typtype]), [
      ['public', 'public', 'cpu', 'ts', '1184', '3', '1', 't', 'b'], // the row key is NOT NULL
      ['public', 'public', 'cpu', 'host', '25', '-1', '2', 'f', 'b'],
      ['public', 'public', 'cpu', 'usage', '701', '-1', '3', 'f', 'b'],
    ]);
    const some = await prepared(JDBC_GET_COLUMNS, ['%', 'c%', 'k%']);
    assert.deepEqual(some, []);
    const every = await prepared(JDBC_GET_COLUMNS, ['%', '%', '%']);
    assert.deepEqual(every.map((row) => `${row.relname}.${row.attname}`),
      ['cpu.ts', 'cpu.host', 'cpu.usage', 'cpx.id', 'cpx.ok', 'meter.ts', 'meter.kwh', 'site.region', 'site.id',
        'site.label']);
  });

  it('pgJDBC getSchemas and getCatalogs', async () => {
    assert.deepEqual(await prepared(JDBC_GET_SCHEMAS), [{ TABLE_SCHEM: 'public', TABLE_CATALOG: 'public' }]);
    assert.deepEqual((await suite.db.query(JDBC_GET_CATALOGS)).rows, [{ TABLE_CAT: 'public' }]);
  });

  it('DBeaver\'s navigator: session, database, schemas, tables of the schema, columns of a table', async () => {
    assert.deepEqual((await suite.db.query('SELECT current_schema(),session_user')).rows,
      [{ current_schema: 'public', session_user: 'admin' }]);
    const [database] = await prepared(DBEAVER_DATABASE, ['public']);
    assert.equal(database!.datname, 'public');
    assert.equal(database!.datallowconn, 't');
    assert.deepEqual(await prepared(DBEAVER_DATABASE, ['other']), []);
    const schemas = (await suite.db.query(DBEAVER_SCHEMAS)).rows;
    assert.deepEqual(schemas.map((row) => [row.oid, row.nspname, row.description]), [['2200', 'public', null]]);
    const tables = await prepared(DBEAVER_TABLES, [2200]);
    assert.deepEqual(tables.map((row) => [row.relname, row.relkind, row.relnamespace, row.oid]),
      ['cpu', 'cpx', 'meter', 'site'].map((name) => [name, 'r', '2200', String(tableOid(name))]));
    assert.ok(Object.keys(tables[0]!).includes('relpersistence'));
    assert.deepEqual(await prepared(DBEAVER_TABLES, [99]), []);
    const columns = await prepared(`${DBEAVER_COLUMNS} AND c.oid=$1 ORDER BY a.attnum`, [tableOid('meter')]);
    assert.deepEqual(columns.map((row) => [row.relname, row.attname, row.atttypid, row.attnum, row.attnotnull]),
      [['meter', 'ts', '1184', '1', 't'], ['meter', 'kwh', '700', '2', 'f']]);
    const all = await prepared(`${DBEAVER_COLUMNS} AND c.relnamespace=$1 AND c.relkind not in ('i','c') ORDER BY a.attnum`,
      [2200]);
    assert.equal(all.length, 10);
  });

  it('pgJDBC getPrimaryKeys: the row key, composite too, a row per key column in key order', async () => {
    const columns = (rows: Record<string, string | null>[]) => rows.map((row) =>
      [row.TABLE_CAT, row.TABLE_SCHEM, row.TABLE_NAME, row.COLUMN_NAME, row.KEY_SEQ, row.PK_NAME]);
    assert.deepEqual(columns(await prepared(JDBC_GET_PRIMARY_KEYS(true), ['public', 'site'])), [
      ['public', 'public', 'site', 'region', '1', 'site_pkey'],
      ['public', 'public', 'site', 'id', '2', 'site_pkey'],
    ]);
    assert.deepEqual(columns(await prepared(JDBC_GET_PRIMARY_KEYS(false), ['cpu'])),
      [['public', 'public', 'cpu', 'ts', '1', 'cpu_pkey']]);
    assert.deepEqual(Object.keys((await prepared(JDBC_GET_PRIMARY_KEYS(false), ['cpu']))[0]!),
      ['TABLE_CAT', 'TABLE_SCHEM', 'TABLE_NAME', 'COLUMN_NAME', 'KEY_SEQ', 'PK_NAME']);
    assert.deepEqual(await prepared(JDBC_GET_PRIMARY_KEYS(true), ['other', 'site']), []);
    assert.deepEqual(await prepared(JDBC_GET_PRIMARY_KEYS(true), ['public', 'nowhere']), []);
  });

  it('pgJDBC getIndexInfo: the primary key first, then each index by name, its columns in order', async () => {
    const columns = (rows: Record<string, string | null>[]) => rows.map((row) => [row.TABLE_NAME, row.NON_UNIQUE,
      row.INDEX_NAME, row.TYPE, row.ORDINAL_POSITION, row.COLUMN_NAME, row.ASC_OR_DESC]);
    const rows = await prepared(JDBC_GET_INDEX_INFO(false), ['public', 'cpu']);
    assert.deepEqual(Object.keys(rows[0]!), ['TABLE_CAT', 'TABLE_SCHEM', 'TABLE_NAME', 'NON_UNIQUE', 'INDEX_QUALIFIER',
      'INDEX_NAME', 'TYPE', 'ORDINAL_POSITION', 'COLUMN_NAME', 'ASC_OR_DESC', 'CARDINALITY', 'PAGES',
      'FILTER_CONDITION', 'REMARKS']);
    assert.deepEqual(columns(rows), [
      ['cpu', 'f', 'cpu_pkey', '3', '1', 'ts', 'A'],
      ['cpu', 't', 'cpu_host', '3', '1', 'host', 'A'],
      ['cpu', 't', 'cpu_host_usage', '3', '1', 'host', 'A'],
      ['cpu', 't', 'cpu_host_usage', '3', '2', 'usage', 'A'],
    ]);
    assert.deepEqual(columns(await prepared(JDBC_GET_INDEX_INFO(true), ['public', 'cpu'])),
      [['cpu', 'f', 'cpu_pkey', '3', '1', 'ts', 'A']]);
    assert.deepEqual(columns(await prepared(JDBC_GET_INDEX_INFO(false), ['public', 'site'])), [
      ['site', 'f', 'site_pkey', '3', '1', 'region', 'A'], ['site', 'f', 'site_pkey', '3', '2', 'id', 'A'],
    ]);
  });

  it('DBeaver\'s keys and indexes views: pg_constraint and pg_index of a table and of the schema', async () => {
    const constraints = await prepared(DBEAVER_CONSTRAINTS(true), [tableOid('site')]);
    assert.deepEqual(constraints.map((row) => [row.conname, row.contype, row.conkey, row.tabrelname, row.conrelid]),
      [['site_pkey', 'p', '{1,2}', 'site', String(tableOid('site'))]]);
    assert.ok(Object.keys(constraints[0]!).includes('confkey'));
    const all = await prepared(DBEAVER_CONSTRAINTS(false), [2200]);
    assert.deepEqual(all.map((row) => row.conname).sort(), ['cpu_pkey', 'cpx_pkey', 'meter_pkey', 'site_pkey']);
    assert.deepEqual(all.map((row) => Number(row.oid)), all.map((row) => Number(row.oid)).sort((a, b) => a - b));
    assert.deepEqual(await prepared(DBEAVER_CONSTRAINTS(false), [99]), []);

    const indexes = await prepared(DBEAVER_INDEXES(true), [tableOid('cpu')]);
    assert.deepEqual(indexes.map((row) => [row.relname, row.tabrelname, row.keys, row.indkey, row.indisprimary,
      row.indisunique, row.relam, row.indrelid]), [
      ['cpu_host', 'cpu', '2', '2', 'f', 'f', '403', String(tableOid('cpu'))],
      ['cpu_host_usage', 'cpu', '2 3', '2 3', 'f', 'f', '403', String(tableOid('cpu'))],
      ['cpu_pkey', 'cpu', '1', '1', 't', 't', '403', String(tableOid('cpu'))],
    ]);
    // The key's index is the one its constraint names.
    const [cpuKey] = await prepared(DBEAVER_CONSTRAINTS(true), [tableOid('cpu')]);
    assert.equal(cpuKey!.conindid, indexes[2]!.indexrelid);
    const schema = await prepared(DBEAVER_INDEXES(false), [2200]);
    assert.deepEqual(schema.map((row) => row.relname),
      ['cpu_host', 'cpu_host_usage', 'cpu_pkey', 'cpx_pkey', 'meter_pkey', 'site_pkey']);
    assert.deepEqual(schema.find((row) => row.relname === 'site_pkey')!.indkey, '1 2');
  });

  it('views: relkind \'v\' in pg_class, pg_views, information_schema (VIEW), pgJDBC\'s VIEW type, psql\'s \\dv',
    async () => {
      await suite.db.query('CREATE VIEW cpv AS SELECT host, usage FROM cpu WHERE usage > 50');
      try {
        const jdbc = await prepared(JDBC_GET_TABLES + JDBC_TYPES_TABLE_VIEW + JDBC_TABLES_ORDER, ['public', 'cp%']);
        assert.deepEqual(jdbc.map((row) => [row.TABLE_NAME, row.TABLE_TYPE]),
          [['cpu', 'TABLE'], ['cpx', 'TABLE'], ['cpv', 'VIEW']]);
        const tablesOnly = JDBC_TYPES_TABLE_VIEW.replace(/ OR \( c\.relkind = 'v'[^)]*\)/, '');
        assert.deepEqual((await prepared(JDBC_GET_TABLES + tablesOnly + JDBC_TABLES_ORDER, ['public', 'cp%']))
          .map((row) => row.TABLE_NAME), ['cpu', 'cpx']);
        const dv = (await suite.db.query(PSQL_DV)).rows;
        assert.deepEqual(dv, [{ Schema: 'public', Name: 'cpv', Type: 'view', Owner: 'admin' }]);
        const dt = (await suite.db.query(PSQL_DV.replace('(\'v\',\'\')', '(\'r\',\'p\',\'\')'))).rows;
        assert.deepEqual(dt.map((row) => row.Name), ['cpu', 'cpx', 'meter', 'site']);
        assert.deepEqual((await suite.db.query('SELECT schemaname, viewname, definition FROM pg_catalog.pg_views ' +
          'WHERE schemaname = \'public\'')).rows,
        [{ schemaname: 'public', viewname: 'cpv', definition: 'SELECT host, usage FROM cpu WHERE usage > 50' }]);
        assert.deepEqual((await suite.db.query('SELECT table_name, table_type FROM information_schema.tables ' +
          'WHERE table_schema = \'public\' ORDER BY 1')).rows.map((row) => [row.table_name, row.table_type]),
        [['cpu', 'BASE TABLE'], ['cpv', 'VIEW'], ['cpx', 'BASE TABLE'], ['meter', 'BASE TABLE'],
          ['site', 'BASE TABLE']]);
        assert.deepEqual((await suite.db.query('SELECT table_name, view_definition FROM information_schema.views ' +
          'WHERE table_name = \'cpv\'')).rows,
        [{ table_name: 'cpv', view_definition: 'SELECT host, usage FROM cpu WHERE usage > 50' }]);
        const columns = await prepared(JDBC_GET_COLUMNS, ['public', 'cpv', '%']);
        assert.deepEqual(columns.map((row) => [row.attname, row.atttypid]), [['host', '25'], ['usage', '701']]);
        assert.deepEqual((await prepared(DBEAVER_TABLES, [2200])).map((row) => [row.relname, row.relkind]),
          [['cpu', 'r'], ['cpx', 'r'], ['meter', 'r'], ['site', 'r'], ['cpv', 'v']]);
      } finally {
        await suite.db.query('DROP VIEW cpv');
      }
    });
});

/** psql 15's \\dv (describeTableDetails' listTables with 'v'). */
const PSQL_DV = 'SELECT n.nspname as "Schema",\n  c.relname as "Name",\n  CASE c.relkind WHEN \'r\' THEN ' +
  '\'table\' WHEN \'v\' THEN \'view\' WHEN \'m\' THEN \'materialized view\' WHEN \'i\' THEN \'index\' WHEN ' +
  '\'S\' THEN \'sequence\' WHEN \'t\' THEN \'TOAST table\' WHEN \'f\' THEN \'foreign table\' WHEN \'p\' ' +
  'THEN \'partitioned table\' WHEN \'I\' THEN \'partitioned index\' END as "Type",\n  ' +
  'pg_catalog.pg_get_userbyid(c.relowner) as "Owner"\nFROM pg_catalog.pg_class c\n     LEFT JOIN ' +
  'pg_catalog.pg_namespace n ON n.oid = c.relnamespace\n     LEFT JOIN pg_catalog.pg_am am ON am.oid = ' +
  'c.relam\nWHERE c.relkind IN (\'v\',\'\')\n      AND n.nspname <> \'pg_catalog\'\n      AND n.nspname !~ ' +
  '\'^pg_toast\'\n      AND n.nspname <> \'information_schema\'\n  AND pg_catalog.pg_table_is_visible(c.oid)\n' +
  'ORDER BY 1,2;';
