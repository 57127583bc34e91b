// Differential test of whole queries: random tables (NULLs, duplicates, negative numbers, empty
// strings) and random queries of the supported shapes (filters with functions and LIKE, GROUP BY
// with HAVING, DISTINCT, ORDER BY + LIMIT/OFFSET) run by the executor over a store on a simulated
// disk and by a throwaway PostgreSQL 15 (test/support/postgres-cluster.ts); the rows must match.
//
// Runs: TABLE_RUNS tables × QUERIES_PER_TABLE queries (≥ 500 per `npm test`); SQL_DIFF_SCALE=10 runs
// ten times as many tables, SQL_DIFF_SEED=n changes the seed. Skipped without PostgreSQL.
//
// GridDB differences, written into PostgreSQL's side of each query:
//   NULL_ORDER      GridDB sorts NULL below every value (first ascending, last descending), PG
//                   above: PG gets NULLS FIRST / NULLS LAST.
//   LIKE_CASE       GridDB's SQL LIKE ignores ASCII case: PG gets ILIKE (the cluster's C locale
//                   folds ASCII only).
//   SUM_TYPE        SUM of LONG is a LONG, PG's a numeric; AVG of LONG a DOUBLE, PG's numeric:
//                   numbers are compared as doubles, AVG to 1e-12 relative.
//   ROUND_HALVES    GridDB's ROUND rounds halves away from zero, PG's float8 round to even: PG
//                   rounds d::numeric.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { postgresMissing } from '../../../support/postgres-cluster.ts';
import { postgresClientForSuite } from '../../../support/postgres-suite.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

const SCALE = Number(process.env['SQL_DIFF_SCALE'] ?? 1);
const SEED = Number(process.env['SQL_DIFF_SEED'] ?? 20_261_126);
const TABLE_RUNS = Math.max(1, Math.round(26 * SCALE));
const QUERIES_PER_TABLE = 20;
const ROW_COUNT_MAX = 40;
const AVG_TOLERANCE = 1e-12;

interface Row {
  readonly host: string | null;
  readonly v: number | null;
  readonly d: number | null;
}

const rowArb: fc.Arbitrary<Row> = fc.record({
  host: fc.option(fc.constantFrom('', 'a', 'A', 'b', 'ab', 'Ab', 'é', 'b%'), { freq: 5 }),
  v: fc.option(fc.integer({ min: -5, max: 5 }), { freq: 5 }),
  d: fc.option(fc.integer({ min: -6, max: 6 }).map((n) => n / 2), { freq: 5 }),
}, { noNullPrototype: true });

/** One query as GridDB text and PostgreSQL text. */
interface Query {
  readonly ours: string;
  readonly pg: string;
  /** Columns compared to a tolerance (AVG). */
  readonly approximate?: readonly number[];
}

const lit = (text: string) => `'${text.replaceAll("'", "''")}'`;

// Predicates: [GridDB, PostgreSQL].
const predicateArb: fc.Arbitrary<[string, string]> = fc.letrec<{ p: [string, string] }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: -6, max: 6 }).chain((c) => fc.constantFrom<[string, string]>(
      [`v > ${c}`, `v > ${c}`], [`v <= ${c}`, `v <= ${c}`], [`d < ${c / 2}`, `d < ${c / 2}`],
      [`v BETWEEN ${c} AND ${c + 3}`, `v BETWEEN ${c} AND ${c + 3}`],
      [`ABS(v) = ${Math.abs(c)}`, `abs(v) = ${Math.abs(c)}`],
      [`COALESCE(v, 0) >= ${c}`, `coalesce(v, 0) >= ${c}`],
    )),
    fc.constantFrom<[string, string]>(
      ["host = 'a'", "host = 'a'"], ["host LIKE 'a%'", "host ILIKE 'a%'"],
      ["host LIKE '_'", "host ILIKE '_'"], ["host GLOB '*b'", "host LIKE '%b'"],
      ['v IS NULL', 'v IS NULL'], ['v IS NOT NULL', 'v IS NOT NULL'],
      ["host IN ('a', 'b', '')", "host IN ('a', 'b', '')"], ['LENGTH(host) > 1', 'length(host) > 1'],
      ["UPPER(host) = 'AB'", "upper(host) = 'AB'"], ["TRIM(host, 'a') = 'b'", "btrim(host, 'a') = 'b'"],
    ),
    fc.tuple(tie('p'), tie('p'), fc.constantFrom('AND', 'OR'))
      .map(([a, b, op]): [string, string] => [`(${a[0]} ${op} ${b[0]})`, `(${a[1]} ${op} ${b[1]})`]),
    tie('p').map(([a, b]): [string, string] => [`NOT (${a})`, `NOT (${b})`]),
  ),
})).p;

const expressionArb = fc.constantFrom<[string, string]>(
  ['v', 'v'], ['v + 1', 'v + 1'], ['v * -2', 'v * -2'], ['ABS(v)', 'abs(v)'],
  ['COALESCE(v, -1)', 'coalesce(v, -1)'], ['NULLIF(v, 0)', 'nullif(v, 0)'], ['host', 'host'],
  ['LENGTH(host)', 'length(host)'], ['UPPER(host)', 'upper(host)'], ["host || 'x'", "host || 'x'"],
  ["SUBSTR(host, 2)", 'substr(host, 2)'], ["REPLACE(host, 'a', 'zz')", "replace(host, 'a', 'zz')"],
  ['d', 'd'], ['ROUND(d)', 'round(d::numeric)::float8'], ['TRUNC(d)', 'trunc(d)'],
  ['d * 2', 'd * 2'], ['MAX(v, 0)', 'CASE WHEN v IS NULL THEN NULL ELSE greatest(v, 0) END'],
);

const filterQuery = fc.tuple(expressionArb, fc.option(predicateArb), fc.integer({ min: 0, max: 50 }),
  fc.integer({ min: 0, max: 5 })).map(([[expression, pgExpression], predicate, limit, offset]): Query => ({
  ours: `SELECT id, ${expression} FROM t${predicate ? ` WHERE ${predicate[0]}` : ''} ` +
    `ORDER BY id LIMIT ${limit} OFFSET ${offset}`,
  pg: `SELECT id, ${pgExpression} FROM t${predicate ? ` WHERE ${predicate[1]}` : ''} ` +
    `ORDER BY id LIMIT ${limit} OFFSET ${offset}`,
}));

const groupQuery = fc.tuple(fc.option(predicateArb), fc.option(fc.integer({ min: 0, max: 4 })),
  fc.constantFrom('host', 'v')).map(([predicate, having, key]): Query => {
  const where = (side: 0 | 1) => (predicate ? ` WHERE ${predicate[side]}` : '');
  const havingText = having === null ? '' : ` HAVING COUNT(*) > ${having}`;
  const aggregates = 'COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v), MIN(host), MAX(d)';
  return {
    ours: `SELECT ${key}, ${aggregates} FROM t${where(0)} GROUP BY ${key}${havingText} ORDER BY ${key}`,
    pg: `SELECT ${key}, ${aggregates.replace('MIN(host)', 'MIN(host COLLATE "C")')} FROM t${where(1)} ` +
      `GROUP BY ${key}${havingText} ORDER BY ${key} NULLS FIRST`,
    approximate: [6],
  };
});

const distinctQuery = fc.tuple(fc.constantFrom('host', 'v', 'd', 'host, v'), fc.option(predicateArb),
  fc.boolean()).map(([columns, predicate, descending]): Query => {
  const direction = descending ? ' DESC' : '';
  const pgDirection = descending ? ' DESC NULLS LAST' : ' NULLS FIRST';
  const order = (dir: string) => columns.split(', ').map((c) => `${c}${dir}`).join(', ');
  return {
    ours: `SELECT DISTINCT ${columns} FROM t${predicate ? ` WHERE ${predicate[0]}` : ''} ORDER BY ${order(direction)}`,
    pg: `SELECT DISTINCT ${columns} FROM t${predicate ? ` WHERE ${predicate[1]}` : ''} ORDER BY ${order(pgDirection)}`,
  };
});

const orderQuery = fc.tuple(fc.constantFrom('v', 'd', 'host'), fc.boolean(), fc.integer({ min: 0, max: 10 }),
  fc.integer({ min: 0, max: 3 })).map(([key, descending, limit, offset]): Query => ({
  ours: `SELECT id, ${key} FROM t ORDER BY ${key}${descending ? ' DESC' : ''}, id LIMIT ${limit} OFFSET ${offset}`,
  pg: `SELECT id, ${key} FROM t ORDER BY ${key}${descending ? ' DESC NULLS LAST' : ' NULLS FIRST'}, id ` +
    `LIMIT ${limit} OFFSET ${offset}`,
}));

const queryArb = fc.oneof(filterQuery, groupQuery, distinctQuery, orderQuery);

function sameCell(ours: unknown, theirs: unknown, approximate: boolean): boolean {
  const a = typeof ours === 'bigint' ? Number(ours) : ours;
  const b = typeof theirs === 'string' && typeof a === 'number' ? Number(theirs) : theirs;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
    if (approximate) return Math.abs(a - b) <= AVG_TOLERANCE * Math.max(1, Math.abs(b));
    return a === b; // -0 === 0
  }
  return a === b;
}

const skipReason = postgresMissing();

describe('SQL queries against PostgreSQL 15', { skip: skipReason }, () => {
  const postgres = postgresClientForSuite('store-pg-queries-');
  let db: SqlTestDatabase;
  let tableIndex = 0;

  before(async () => {
    db = await sqlTestDatabase();
  });

  after(async () => {
    await db?.test.store.close();
  });

  it(`answers ${TABLE_RUNS} random tables × ${QUERIES_PER_TABLE} random queries as PostgreSQL does`, async () => {
    assert(TABLE_RUNS * QUERIES_PER_TABLE >= 500 || SCALE < 1);
    await fc.assert(fc.asyncProperty(
      fc.array(rowArb, { maxLength: ROW_COUNT_MAX }),
      fc.array(queryArb, { minLength: QUERIES_PER_TABLE, maxLength: QUERIES_PER_TABLE }),
      async (rows, queries) => {
        tableIndex++;
        await db.update('DROP TABLE IF EXISTS t');
        await db.update('CREATE TABLE t (id INTEGER PRIMARY KEY, host STRING, v LONG, d DOUBLE)');
        await postgres.client.query('DROP TABLE IF EXISTS t');
        await postgres.client.query('CREATE TABLE t (id int4 PRIMARY KEY, host text, v int8, d float8)');
        if (rows.length > 0) {
          const values = rows.map((row, i) => `(${i + 1}, ${row.host === null ? 'NULL' : lit(row.host)}, ` +
            `${row.v ?? 'NULL'}, ${row.d ?? 'NULL'})`).join(', ');
          await db.update(`INSERT INTO t VALUES ${values}`);
          await postgres.client.query(`INSERT INTO t VALUES ${values}`);
        }
        for (const query of queries) {
          const ours = await db.rows(query.ours);
          const theirs = (await postgres.client.query({ text: query.pg, rowMode: 'array' })).rows as unknown[][];
          const same = ours.length === theirs.length && ours.every((row, r) => row.length === theirs[r]!.length &&
            row.every((cell, c) => sameCell(cell, theirs[r]![c], query.approximate?.includes(c) ?? false)));
          assert(same, `table ${tableIndex} ${fc.stringify(rows)}\n${query.ours}\nours ` +
            `${fc.stringify(ours)}\nPostgreSQL (${query.pg}) ${fc.stringify(theirs)}`);
        }
      },
    ), { numRuns: TABLE_RUNS, seed: SEED });
  });
});
