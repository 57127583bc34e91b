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
//     lookup, PostgreDatabase.SchemaCache, PostgreSchema.TableCache (tables and their columns).

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

describe('pgJDBC and DBeaver: their catalog queries on a real node', { timeout: 120_000 }, () => {
  const suite = pgClientOnNodeForSuite('PostgreSQL JDBC Driver', async (db) => {
    await db.query('CREATE TABLE cpu (ts TIMESTAMP PRIMARY KEY, host STRING, usage DOUBLE)');
    await db.query('CREATE TABLE cpx (id LONG PRIMARY KEY, ok BOOL)');
    await db.query('CREATE TABLE meter (ts TIMESTAMP PRIMARY KEY, kwh FLOAT)');
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
    assert.equal((await prepared(JDBC_GET_TABLES + JDBC_TABLES_ORDER, ['%', '%'])).length, 3);
    assert.deepEqual(await prepared(JDBC_GET_TABLES + JDBC_TYPES_SYSTEM_TABLE + JDBC_TABLES_ORDER, ['%', '%']), []);
    assert.deepEqual(await prepared(JDBC_GET_TABLES + JDBC_TABLES_ORDER, ['pg_catalog', '%']), []);
    assert.deepEqual(await prepared(JDBC_GET_TABLES + JDBC_TABLES_ORDER, ['public', 'cp\\_']), []);
  });

  it('pgJDBC getColumns: each column with its type oid, typmod and position', async () => {
    const rows = await prepared(JDBC_GET_COLUMNS, ['public', 'cpu', '%']);
    assert.deepEqual(rows.map((row) => [row.current_database, row.nspname, row.relname, row.attname, row.atttypid,
      row.atttypmod, row.attnum, row.attnotnull, row.typtype]), [
      ['public', 'public', 'cpu', 'ts', '1184', '3', '1', 'f', 'b'],
      ['public', 'public', 'cpu', 'host', '25', '-1', '2', 'f', 'b'],
      ['public', 'public', 'cpu', 'usage', '701', '-1', '3', 'f', 'b'],
    ]);
    const some = await prepared(JDBC_GET_COLUMNS, ['%', 'c%', 'k%']);
    assert.deepEqual(some, []);
    const every = await prepared(JDBC_GET_COLUMNS, ['%', '%', '%']);
    assert.deepEqual(every.map((row) => `${row.relname}.${row.attname}`),
      ['cpu.ts', 'cpu.host', 'cpu.usage', 'cpx.id', 'cpx.ok', 'meter.ts', 'meter.kwh']);
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
      ['cpu', 'cpx', 'meter'].map((name) => [name, 'r', '2200', String(tableOid(name))]));
    assert.ok(Object.keys(tables[0]!).includes('relpersistence'));
    assert.deepEqual(await prepared(DBEAVER_TABLES, [99]), []);
    const columns = await prepared(`${DBEAVER_COLUMNS} AND c.oid=$1 ORDER BY a.attnum`, [tableOid('meter')]);
    assert.deepEqual(columns.map((row) => [row.relname, row.attname, row.atttypid, row.attnum, row.attnotnull]),
      [['meter', 'ts', '1184', '1'], ['meter', 'kwh', '700', '2']].map((row) => [...row, 'f']));
    const all = await prepared(`${DBEAVER_COLUMNS} AND c.relnamespace=$1 AND c.relkind not in ('i','c') ORDER BY a.attnum`,
      [2200]);
    assert.equal(all.length, 7);
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
        assert.deepEqual(dt.map((row) => row.Name), ['cpu', 'cpx', 'meter']);
        assert.deepEqual((await suite.db.query('SELECT schemaname, viewname, definition FROM pg_catalog.pg_views ' +
          'WHERE schemaname = \'public\'')).rows,
        [{ schemaname: 'public', viewname: 'cpv', definition: 'SELECT host, usage FROM cpu WHERE usage > 50' }]);
        assert.deepEqual((await suite.db.query('SELECT table_name, table_type FROM information_schema.tables ' +
          'WHERE table_schema = \'public\' ORDER BY 1')).rows.map((row) => [row.table_name, row.table_type]),
        [['cpu', 'BASE TABLE'], ['cpv', 'VIEW'], ['cpx', 'BASE TABLE'], ['meter', 'BASE TABLE']]);
        assert.deepEqual((await suite.db.query('SELECT table_name, view_definition FROM information_schema.views ' +
          'WHERE table_name = \'cpv\'')).rows,
        [{ table_name: 'cpv', view_definition: 'SELECT host, usage FROM cpu WHERE usage > 50' }]);
        const columns = await prepared(JDBC_GET_COLUMNS, ['public', 'cpv', '%']);
        assert.deepEqual(columns.map((row) => [row.attname, row.atttypid]), [['host', '25'], ['usage', '701']]);
        assert.deepEqual((await prepared(DBEAVER_TABLES, [2200])).map((row) => [row.relname, row.relkind]),
          [['cpu', 'r'], ['cpx', 'r'], ['meter', 'r'], ['cpv', 'v']]);
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
