// Grafana's PostgreSQL data source against a real node, through node-postgres: the SQL it sends,
// captured from Grafana's source (grafana/grafana, main, 2025):
//   - the macros' expansions, pkg/tsdb/grafana-postgresql-datasource/macros.go (evaluateMacro):
//     $__timeGroupAlias(ts, '1m') → `floor(extract(epoch from ts)/60)*60 AS "time"`,
//     $__timeFilter(ts) → `ts BETWEEN '<from RFC3339Nano, UTC>' AND '<to>'`,
//     $__timeEpoch(ts) → `extract(epoch from ts) as "time"`, $__timeFrom() → `'<from>'`;
//   - the editor's pickers and probes, public/app/plugins/datasource/grafana-postgresql-datasource/
//     postgresMetaQuery.ts: getVersion(), getTimescaleDBVersion(), showTables(), getSchema(table).
// Each statement runs in the simple and (named, so node-postgres sends Parse/Bind/Execute as pgx
// does) the extended protocol, and the frames are checked: a time column and the values.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { pgClientOnNodeForSuite } from './pg-node-suite.ts';

/** buildSchemaConstraint() of postgresMetaQuery.ts, verbatim. */
const SCHEMA_CONSTRAINT = `
          quote_ident(table_schema) IN (
          SELECT
            CASE WHEN trim(s[i]) = '"$user"' THEN user ELSE trim(s[i]) END
          FROM
            generate_series(
              array_lower(string_to_array(current_setting('search_path'),','),1),
              array_upper(string_to_array(current_setting('search_path'),','),1)
            ) as i,
            string_to_array(current_setting('search_path'),',') s
          )`;

/** showTables() of postgresMetaQuery.ts, verbatim: the table picker. */
const SHOW_TABLES = `SELECT
    CASE WHEN ${SCHEMA_CONSTRAINT}
      THEN quote_ident(table_name)
      ELSE quote_ident(table_schema) || '.' || quote_ident(table_name)
    END AS "table"
    FROM information_schema.tables
    WHERE quote_ident(table_schema) NOT IN ('information_schema',
                             'pg_catalog',
                             '_timescaledb_cache',
                             '_timescaledb_catalog',
                             '_timescaledb_internal',
                             '_timescaledb_config',
                             'timescaledb_information',
                             'timescaledb_experimental')
    ORDER BY CASE WHEN ${SCHEMA_CONSTRAINT} THEN 0 ELSE 1 END, 1`;

/** getSchema(table) of postgresMetaQuery.ts, verbatim: the column picker. */
function getSchema(table: string): string {
  const tableNamePart = '\'' + table.replace(/'/g, '\'\'') + '\'';
  return `SELECT quote_ident(column_name) AS "column", data_type AS "type"
    FROM information_schema.columns
    WHERE
      CASE WHEN array_length(parse_ident(${tableNamePart}),1) = 2
        THEN quote_ident(table_schema) = (parse_ident(${tableNamePart}))[1]
          AND quote_ident(table_name) = (parse_ident(${tableNamePart}))[2]
        ELSE quote_ident(table_name) = ${tableNamePart}
          AND ${SCHEMA_CONSTRAINT}
      END`;
}

/** The panel's query: `SELECT $__timeGroupAlias(ts, '1m'), avg(usage) AS "usage" FROM cpu WHERE $__timeFilter(ts) GROUP BY 1 ORDER BY 1`, expanded. */
const TIME_SERIES = `SELECT
  floor(extract(epoch from ts)/60)*60 AS "time",
  avg(usage) AS "usage"
FROM cpu
WHERE ts BETWEEN '2026-01-01T00:00:00Z' AND '2026-01-01T00:02:59.999Z'
GROUP BY 1
ORDER BY 1`;

/** `SELECT $__timeEpoch(ts), usage FROM cpu WHERE ts >= $__timeFrom() ORDER BY 1`, expanded. */
const TIME_EPOCH = `SELECT extract(epoch from ts) as "time", usage FROM cpu WHERE ts >= '2026-01-01T00:02:30Z' ORDER BY 1`;

describe('Grafana PostgreSQL data source: its SQL on a real node', { timeout: 120_000 }, () => {
  const suite = pgClientOnNodeForSuite('grafana-test', async (db) => {
    await db.query('CREATE TABLE cpu (ts TIMESTAMP PRIMARY KEY, host STRING, usage DOUBLE)');
    await db.query('CREATE TABLE "Mixed" (ts TIMESTAMP PRIMARY KEY, v LONG)');
    // Every 30 s from 00:00:00 to 00:03:30: minutes 0, 1, 2 hold two rows each, 3 is past the range.
    const values = [10, 20, 30, 40, 50, 60, 70, 80];
    const rows = values.map((usage, i) =>
      `(TIMESTAMP('2026-01-01T00:0${Math.floor(i / 2)}:${i % 2 === 0 ? '00' : '30'}Z'), 'h1', ${usage})`);
    await db.query(`INSERT INTO cpu VALUES ${rows.join(', ')}`);
  });

  async function both(text: string, name: string): Promise<pg.QueryResult[]> {
    return [await suite.db.query(text), await suite.db.query({ text, name, values: [] })];
  }

  it('the version and TimescaleDB probes: 1500, no extension', async () => {
    for (const result of await both('SELECT current_setting(\'server_version_num\')::int/100 as version', 'v')) {
      assert.deepEqual(result.rows, [{ version: '1500' }]);
    }
    const timescale = await suite.db.query('SELECT extversion FROM pg_extension WHERE extname = \'timescaledb\'');
    assert.deepEqual(timescale.rows, []);
  });

  it('the table picker lists the tables, quoted as quote_ident() does', async () => {
    const [simple, extended] = await both(SHOW_TABLES, 'tables');
    for (const result of [simple!, extended!]) {
      assert.deepEqual(result.fields.map((field) => field.name), ['table']);
      assert.deepEqual(result.rows.map((row) => row.table).sort(), ['"Mixed"', 'cpu']);
    }
  });

  it('the column picker lists a table\'s columns with PostgreSQL\'s type names', async () => {
    for (const result of await both(getSchema('cpu'), 'columns')) {
      assert.deepEqual(result.rows, [
        { column: 'ts', type: 'timestamp with time zone' },
        { column: 'host', type: 'text' },
        { column: 'usage', type: 'double precision' },
      ]);
    }
    assert.deepEqual((await suite.db.query(getSchema('"Mixed"'))).rows.map((row) => row.column), ['ts', 'v']);
    assert.deepEqual((await suite.db.query(getSchema('public.cpu'))).rows.length, 3);
    assert.deepEqual((await suite.db.query(getSchema('nowhere'))).rows, []);
  });

  it('$__timeGroupAlias and $__timeFilter: one row a minute in the range, its start in epoch seconds', async () => {
    for (const result of await both(TIME_SERIES, 'series')) {
      assert.deepEqual(result.fields.map((field) => field.name), ['time', 'usage']);
      const frame = result.rows.map((row) => [Number(row.time), Number(row.usage)]);
      const minute = Date.UTC(2026, 0, 1) / 1000;
      assert.deepEqual(frame, [[minute, 15], [minute + 60, 35], [minute + 120, 55]]);
    }
  });

  it('$__timeEpoch and $__timeFrom: each row\'s time in epoch seconds, from the range\'s start', async () => {
    for (const result of await both(TIME_EPOCH, 'epoch')) {
      const start = Date.UTC(2026, 0, 1) / 1000;
      assert.deepEqual(result.rows.map((row) => [Number(row.time), row.usage]),
        [[start + 150, 60], [start + 180, 70], [start + 210, 80]]);
    }
  });

  it('a string that is no time, compared with a TIMESTAMP, is an error of its own and the session goes on', async () => {
    await assert.rejects(suite.db.query('SELECT usage FROM cpu WHERE ts > \'yesterday\''),
      (error: { code?: string }) => error.code !== undefined && error.code !== '42804');
    assert.equal((await suite.db.query('SELECT COUNT(*) AS n FROM cpu')).rows[0].n, '8');
  });
});
