// Differential test of whole queries: random tables (NULLs, duplicates, negative numbers, empty
// strings) and random queries of the supported shapes (filters with functions and LIKE, GROUP BY
// with HAVING, DISTINCT, ORDER BY + LIMIT/OFFSET, window aggregates over ROWS and RANGE frames
// with numeric offsets and `(n, unit)` time offsets, PostgreSQL's interval offsets, windows over
// groups) run by the
// executor over a store on a simulated disk and by a throwaway PostgreSQL 15
// (test/support/postgres-cluster.ts); the rows must match.
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
//   TIME_FRAME      a window frame's `(n, MINUTE) PRECEDING` is PG's `interval 'n minutes'
//                   PRECEDING`; TOTAL(x) is PG's coalesce(sum(x), 0); AVG, STDDEV and VAR are
//                   compared to 1e-12 relative (PG's numeric for integers, Youngs-Cramer for
//                   doubles; the store's sliding sums are compensated).

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
  /** Seconds after TIME_BASE: ties and gaps at the scale of the frames' minutes. */
  readonly ts: number | null;
}

const TIME_BASE_MS = Date.UTC(2016, 0, 1);

const rowArb: fc.Arbitrary<Row> = fc.record({
  host: fc.option(fc.constantFrom('', 'a', 'A', 'b', 'ab', 'Ab', 'é', 'b%'), { freq: 5 }),
  v: fc.option(fc.integer({ min: -5, max: 5 }), { freq: 5 }),
  d: fc.option(fc.integer({ min: -6, max: 6 }).map((n) => n / 2), { freq: 5 }),
  ts: fc.option(fc.integer({ min: 0, max: 40 }).map((n) => 30 * n), { freq: 6 }),
}, { noNullPrototype: true });

/** The row's time as each side writes it. */
function timeLiteral(seconds: number | null, side: 'ours' | 'pg'): string {
  if (seconds === null) return 'NULL';
  const iso = new Date(TIME_BASE_MS + seconds * 1000).toISOString();
  return side === 'ours' ? `TIMESTAMP('${iso}')` : `TIMESTAMP '${iso.replace('T', ' ').replace('Z', '')}'`;
}

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

/** Window aggregates, `{over}` where the OVER clause goes; the flag: compared to a tolerance. */
const WINDOW_FUNCTIONS: readonly [string, string, boolean][] = [
  ['AVG(d)', 'avg(d) {over}', true], ['AVG(v)', 'avg(v) {over}', true], ['SUM(d)', 'sum(d) {over}', false],
  ['SUM(v)', 'sum(v) {over}', false], ['TOTAL(d)', 'coalesce(sum(d) {over}, 0)', false],
  ['COUNT(*)', 'count(*) {over}', false], ['COUNT(d)', 'count(d) {over}', false], ['MIN(d)', 'min(d) {over}', false],
  ['MAX(v)', 'max(v) {over}', false], ['MAX(host)', 'max(host COLLATE "C") {over}', false],
  ['STDDEV_SAMP(d)', 'stddev_samp(d) {over}', true], ['VAR_POP(v)', 'var_pop(v) {over}', true],
];

/** Frames; `{n}` and `{1}` offsets, written per side (TIME_FRAME). RANGE offsets need a number or time key. */
const ROW_FRAMES = ['ROWS BETWEEN {n} PRECEDING AND CURRENT ROW', 'ROWS BETWEEN {1} PRECEDING AND {n} FOLLOWING',
  'ROWS BETWEEN {n} PRECEDING AND {1} PRECEDING', 'ROWS BETWEEN {1} FOLLOWING AND {n} FOLLOWING', 'ROWS {n} PRECEDING',
  'ROWS BETWEEN CURRENT ROW AND {n} FOLLOWING'];
const RANGE_FRAMES = ['RANGE BETWEEN {n} PRECEDING AND CURRENT ROW', 'RANGE BETWEEN {n} PRECEDING AND {1} FOLLOWING',
  'RANGE BETWEEN {n} PRECEDING AND {1} PRECEDING', 'RANGE BETWEEN CURRENT ROW AND {n} FOLLOWING',
  'RANGE BETWEEN {1} FOLLOWING AND {n} FOLLOWING', 'RANGE {n} PRECEDING',
  'RANGE BETWEEN UNBOUNDED PRECEDING AND {n} PRECEDING', 'RANGE BETWEEN {n} FOLLOWING AND UNBOUNDED FOLLOWING'];

const windowQuery = fc.tuple(
  fc.constantFrom(...WINDOW_FUNCTIONS), fc.option(fc.constantFrom('host', 'v'), { freq: 2 }),
  fc.constantFrom('id', 'v', 'd', 'ts'), fc.boolean(), fc.constantFrom('ROWS', 'RANGE'),
  fc.integer({ min: 0, max: 4 }), fc.nat(), fc.option(predicateArb, { freq: 3 }),
).map(([[fn, pgFn, approximate], partition, key, descending, unit, n, framePick, predicate]): Query => {
  const direction = descending ? ' DESC' : '';
  const pgDirection = descending ? ' DESC NULLS LAST' : ' NULLS FIRST';
  const frames = unit === 'ROWS' ? ROW_FRAMES : RANGE_FRAMES;
  const frame = frames[framePick % frames.length]!;
  // ROWS frames need a total order to agree (the order of peers is neither's): ties broken by id.
  const tieBreak = unit === 'ROWS' && key !== 'id' ? ', id' : '';
  const offset = (side: 'ours' | 'pg', size: number) => {
    if (key !== 'ts' || unit === 'ROWS') return String(size);
    const [count, unitName, pgUnit] = n % 2 === 0 ? [size, 'MINUTE', 'minutes'] : [30 * size, 'SECOND', 'seconds'];
    return side === 'ours' ? `(${count}, ${unitName})` : `interval '${count} ${pgUnit}'`;
  };
  const partitionText = partition === null ? '' : `PARTITION BY ${partition} `;
  const over = (side: 'ours' | 'pg') => `OVER (${partitionText}ORDER BY ${key}${side === 'ours' ? direction : pgDirection}` +
    `${tieBreak} ${frame.replaceAll('{n}', offset(side, n)).replaceAll('{1}', offset(side, 1))})`;
  const where = (side: 0 | 1) => (predicate ? ` WHERE ${predicate[side]}` : '');
  return {
    ours: `SELECT id, ${fn} ${over('ours')} FROM t${where(0)} ORDER BY id`,
    pg: `SELECT id, ${pgFn.replace('{over}', over('pg'))} FROM t${where(1)} ORDER BY id`,
    approximate: approximate ? [1] : [],
  };
});

/** A window over groups: the aggregate of each host's aggregate, hosts in order (C collation). */
const groupedWindowQuery = fc.tuple(
  fc.constantFrom<[string, string, boolean]>(['SUM(SUM(v))', 'sum(sum(v))', false], ['AVG(MAX(d))', 'avg(max(d))', true],
    ['COUNT(*)', 'count(*)', false], ['MIN(AVG(d))', 'min(avg(d))', true], ['LAG(COUNT(v))', 'lag(count(v))', false],
    ['MAX(MIN(v))', 'max(min(v))', false]),
  fc.constantFrom('', ' ROWS BETWEEN 1 PRECEDING AND CURRENT ROW', ' ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING'),
  fc.boolean(), fc.option(fc.integer({ min: 0, max: 3 }), { freq: 3 }),
).map(([[fn, pgFn, approximate], frame, descending, having]): Query => {
  const shift = fn.startsWith('LAG');
  const frameText = shift ? '' : frame;
  const havingText = having === null ? '' : ` HAVING COUNT(*) > ${having}`;
  const order = descending ? 'host DESC' : 'host';
  const pgOrder = descending ? 'host COLLATE "C" DESC NULLS LAST' : 'host COLLATE "C" NULLS FIRST';
  return {
    ours: `SELECT host, COUNT(*), ${fn} OVER (ORDER BY ${order}${frameText}) FROM t GROUP BY host${havingText} ` +
      'ORDER BY host',
    pg: `SELECT host, count(*), ${pgFn} OVER (ORDER BY ${pgOrder}${frameText}) FROM t GROUP BY host${havingText} ` +
      'ORDER BY host COLLATE "C" NULLS FIRST',
    approximate: approximate ? [2] : [],
  };
});

const queryArb = fc.oneof({ arbitrary: filterQuery, weight: 2 }, { arbitrary: groupQuery, weight: 2 },
  { arbitrary: distinctQuery, weight: 1 }, { arbitrary: orderQuery, weight: 1 }, { arbitrary: windowQuery, weight: 4 },
  { arbitrary: groupedWindowQuery, weight: 1 });

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
        await db.update('CREATE TABLE t (id INTEGER PRIMARY KEY, host STRING, v LONG, d DOUBLE, ts TIMESTAMP)');
        await postgres.client.query('DROP TABLE IF EXISTS t');
        await postgres.client.query('CREATE TABLE t (id int4 PRIMARY KEY, host text, v int8, d float8, ts timestamp)');
        if (rows.length > 0) {
          const values = (side: 'ours' | 'pg') => rows.map((row, i) => `(${i + 1}, ` +
            `${row.host === null ? 'NULL' : lit(row.host)}, ${row.v ?? 'NULL'}, ${row.d ?? 'NULL'}, ` +
            `${timeLiteral(row.ts, side)})`).join(', ');
          await db.update(`INSERT INTO t VALUES ${values('ours')}`);
          await postgres.client.query(`INSERT INTO t VALUES ${values('pg')}`);
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
