// Differential test of SQL part 2: random pairs of tables (NULLs, duplicate keys, empty strings,
// sometimes a TREE index on the join column) and random joins (INNER, LEFT, CROSS, comma, NATURAL,
// USING, equi and non-equi conditions, every join method forced by hints), subqueries (IN, NOT IN,
// EXISTS, correlated scalar ones, derived tables) and set operations (UNION [ALL], INTERSECT,
// EXCEPT) and window functions (ROW_NUMBER, LAG, LEAD, aggregates over ROWS and RANGE frames) run
// by the executor over a store on a simulated disk and by a throwaway PostgreSQL 15;
// the rows must match.
//
// Runs: TABLE_RUNS table pairs × QUERIES_PER_TABLE queries (≥ 500 per `npm test`); SQL_DIFF_SCALE=10
// runs ten times as many, SQL_DIFF_SEED=n changes the seed. Skipped without PostgreSQL.
//
// GridDB differences, written into PostgreSQL's side of each query:
//   NULL_ORDER       GridDB sorts NULL below every value: PG gets NULLS FIRST / NULLS LAST.
//   SUM_TYPE         SUM of LONG is a LONG, PG's a numeric: numbers are compared as numbers.
//   SET_PRECEDENCE   GridDB (SQLite's grammar) binds UNION, INTERSECT and EXCEPT equally, left to
//                    right; PG binds INTERSECT tighter: PG gets the left operand parenthesized.
//   USING_STAR       `SELECT *` over USING / NATURAL: GridDB (as SQLite) shows the left's columns
//                    then the right's other ones, PG the USING columns first: the queries name
//                    their columns.
//   AVG_TYPE         AVG is a DOUBLE, PG's a numeric: compared to 1e-12 relative.
//   JOIN_ORDER       without ORDER BY the row order of a join is not defined on either side:
//                    every query orders by all its columns.
// RIGHT and FULL joins (refused by GridDB, run by PG) are tested in sql-parser-queries.test.ts.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { postgresMissing } from '../../../support/postgres-cluster.ts';
import { postgresClientForSuite } from '../../../support/postgres-suite.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

const SCALE = Number(process.env['SQL_DIFF_SCALE'] ?? 1);
const SEED = Number(process.env['SQL_DIFF_SEED'] ?? 20_261_127);
const TABLE_RUNS = Math.max(1, Math.round(26 * SCALE));
const QUERIES_PER_TABLE = 20;
const ROW_COUNT_MAX = 24;
const AVG_TOLERANCE = 1e-12;

interface Row {
  readonly k: number | null;
  readonly v: number | null;
  readonly s: string | null;
}

const rowArb: fc.Arbitrary<Row> = fc.record({
  k: fc.option(fc.integer({ min: 0, max: 6 }), { freq: 6 }),
  v: fc.option(fc.integer({ min: -4, max: 4 }), { freq: 6 }),
  s: fc.option(fc.constantFrom('', 'a', 'A', 'b', 'ab'), { freq: 5 }),
}, { noNullPrototype: true });

interface Query {
  readonly ours: string;
  readonly pg: string;
}

const same = (text: string): Query => ({ ours: text, pg: text });
const both = (ours: string, pgText: string): Query => ({ ours, pg: pgText });
const lit = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** ORDER BY all `count` output columns, ascending, GridDB's NULL order on PG's side (NULL_ORDER). */
function ordered(query: Query, count: number): Query {
  const ordinals = Array.from({ length: count }, (_, i) => i + 1);
  return {
    ours: `${query.ours} ORDER BY ${ordinals.join(', ')}`,
    pg: `${query.pg} ORDER BY ${ordinals.map((i) => `${i} NULLS FIRST`).join(', ')}`,
  };
}

const HINTS = ['', '/*+ IndexJoin(t1 t2) */ ', '/*+ NoIndexJoin(t1 t2) */ ', '/*+ TableRowCount(t1 1) */ ',
  '/*+ TableRowCount(t2 1) */ '];
const hintArb = fc.constantFrom(...HINTS);

const onArb = fc.integer({ min: -3, max: 3 }).chain((c) => fc.constantFrom(
  't1.k = t2.k', 't1.k = t2.id', 't2.k = t1.id', 't1.k = t2.k AND t1.s = t2.s', `t1.k = t2.k AND t2.v > ${c}`,
  `t1.v < t2.v`, `t1.k = t2.k OR t1.v = t2.v`, `t1.k + 1 = t2.k`, `t1.s = t2.s AND t1.v >= ${c}`, 'TRUE',
));

const predicateArb = fc.integer({ min: -3, max: 3 }).chain((c) => fc.constantFrom(
  `t1.v > ${c}`, `t2.v <= ${c}`, 't2.id IS NULL', 't2.k IS NOT NULL', `t1.s = 'a'`, `COALESCE(t2.v, 0) >= ${c}`,
  `(t1.v > ${c} OR t2.v < ${c})`, `t1.k = ${Math.abs(c)}`,
));

const joinQuery = fc.tuple(hintArb, fc.constantFrom('JOIN', 'LEFT JOIN', 'INNER JOIN', 'LEFT OUTER JOIN'), onArb,
  fc.option(predicateArb)).map(([hint, join, on, where]) => ordered(same(
  `SELECT ${hint}t1.id, t2.id, t1.v + t2.v, t2.s FROM t1 ${join} t2 ON ${on}${where === null ? '' : ` WHERE ${where}`}`,
), 4));

/** The index nested-loop join, forced: by t2's row key or by its TREE index on k (when the run made one). */
const indexJoinQuery = fc.tuple(fc.constantFrom('JOIN', 'LEFT JOIN'), fc.constantFrom('t2.id', 't2.k'),
  fc.option(fc.constantFrom(' AND t2.v > 0', ' AND t1.v < t2.v', " AND t2.s = 'a'")), fc.option(predicateArb))
  .map(([join, key, extra, where]) => ordered(same(
    `SELECT /*+ IndexJoin(t1 t2) */ t1.id, t2.id, t2.k, t2.s FROM t1 ${join} t2 ON t1.k = ${key}${extra ?? ''}` +
    `${where === null ? '' : ` WHERE ${where}`}`,
  ), 4));

const commaQuery = fc.tuple(hintArb, onArb, fc.option(predicateArb)).map(([hint, on, where]) => ordered(same(
  `SELECT ${hint}t1.id, t2.id, t1.k FROM t1, t2 WHERE ${on}${where === null ? '' : ` AND ${where}`}`,
), 3));

const usingQuery = fc.tuple(fc.constantFrom('JOIN', 'LEFT JOIN'), fc.constantFrom('k', 'k, s', 's'), hintArb)
  .map(([join, columns, hint]) => ordered(same(
    `SELECT ${hint}${columns}, t1.id, t2.id, t2.v FROM t1 ${join} t2 USING (${columns})`,
  ), columns.split(',').length + 3));

const naturalQuery = fc.constantFrom('NATURAL JOIN', 'NATURAL LEFT JOIN').map((join) => ordered(same(
  `SELECT id, k, s, t1.v, t2.v FROM t1 ${join} t2`), 5));

const crossAggregate = fc.tuple(fc.constantFrom('CROSS JOIN', ','), fc.option(predicateArb)).map(([join, where]) => same(
  `SELECT COUNT(*), COUNT(t2.v), SUM(t1.v * t2.v), MIN(t1.s), MAX(t2.k) FROM t1 ${join} t2` +
  `${where === null ? '' : ` WHERE ${where}`}`)).map((query) => both(query.ours,
  query.pg.replace('MIN(t1.s)', 'MIN(t1.s COLLATE "C")')));

const groupedJoin = fc.tuple(fc.constantFrom('JOIN', 'LEFT JOIN'), hintArb).map(([join, hint]) => ordered(same(
  `SELECT ${hint}t1.k, COUNT(t2.id), SUM(t2.v), MAX(t2.s) FROM t1 ${join} t2 ON t1.k = t2.k GROUP BY t1.k`,
), 4)).map((query) => both(query.ours, query.pg.replace('MAX(t2.s)', 'MAX(t2.s COLLATE "C")')));

const threeWay = fc.tuple(fc.constantFrom('JOIN', 'LEFT JOIN'), fc.constantFrom('JOIN', 'LEFT JOIN'))
  .map(([a, b]) => ordered(same(
    `SELECT t1.id, t2.id, t3.id FROM t1 ${a} t2 ON t1.k = t2.k ${b} t1 AS t3 ON t3.id = t2.k`,
  ), 3));

const subqueryQuery = fc.integer({ min: -3, max: 3 }).chain((c) => fc.constantFrom(
  ordered(same(`SELECT id, k FROM t1 WHERE k IN (SELECT k FROM t2)`), 2),
  ordered(same(`SELECT id, k FROM t1 WHERE k NOT IN (SELECT k FROM t2 WHERE v > ${c})`), 2),
  ordered(same(`SELECT id, k FROM t1 WHERE k NOT IN (SELECT k FROM t2 WHERE k IS NOT NULL AND v > ${c})`), 2),
  ordered(same(`SELECT id FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.k AND t2.v > ${c})`), 1),
  ordered(same(`SELECT id FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.s = t1.s)`), 1),
  ordered(same(`SELECT id, (SELECT MAX(v) FROM t2 WHERE t2.k = t1.k) FROM t1`), 2),
  ordered(same(`SELECT id, (SELECT COUNT(*) FROM t2 WHERE t2.v > t1.v) FROM t1 WHERE v IS NOT NULL`), 2),
  ordered(same(`SELECT id, v FROM t1 WHERE v > (SELECT MIN(v) FROM t2) + ${c}`), 2),
  ordered(same(`SELECT id FROM t1 WHERE (SELECT COUNT(*) FROM t2 WHERE t2.k = t1.k) > 1`), 1),
  ordered(same(`SELECT id FROM t1 WHERE k IN (SELECT t2.k FROM t2 WHERE t2.id > t1.id)`), 1),
  ordered(same(`SELECT q.k, q.n FROM (SELECT k, COUNT(*) AS n FROM t2 GROUP BY k) AS q WHERE q.n > 1`), 2),
  ordered(same(`SELECT t1.id, q.n FROM t1 JOIN (SELECT k, COUNT(*) AS n FROM t2 GROUP BY k) AS q ON q.k = t1.k`), 2),
  ordered(same(`SELECT t1.id, q.m FROM t1 LEFT JOIN (SELECT k, MAX(v) AS m FROM t2 WHERE v > ${c} GROUP BY k) AS q ` +
    'ON q.k = t1.k'), 2),
  ordered(same(`SELECT k FROM t1 GROUP BY k HAVING COUNT(*) > (SELECT COUNT(*) FROM t2 WHERE t2.k = t1.k)`), 1),
));

const SET_OPERATORS = ['UNION', 'UNION ALL', 'INTERSECT', 'EXCEPT'];
const sideArb = fc.tuple(fc.constantFrom('k', 'v', 's', 'k, s', 'v, k'), fc.integer({ min: -3, max: 3 }), fc.boolean());

const setQuery = fc.tuple(sideArb, sideArb, fc.constantFrom(...SET_OPERATORS), fc.option(fc.constantFrom(...SET_OPERATORS)),
  fc.option(fc.integer({ min: 0, max: 8 })))
  .filter(([[a], [b]]) => a.split(',').length === b.split(',').length && a.includes('s') === b.includes('s') &&
    (a.split(', ')[0] === 's') === (b.split(', ')[0] === 's'))
  .map(([[a, c, fa], [b, d, fb], op, op2, limit]) => {
    const left = `SELECT ${a} FROM t1${fa ? ` WHERE v > ${c}` : ''}`;
    const right = `SELECT ${b} FROM t2${fb ? ` WHERE v <= ${d}` : ''}`;
    const third = 'SELECT k FROM t1 WHERE k > 2'.replace('k', a);
    const count = a.split(',').length;
    const ours = op2 === null ? `${left} ${op} ${right}` : `${left} ${op} ${right} ${op2} ${third}`;
    const pgText = op2 === null ? `${left} ${op} ${right}` : `(${left} ${op} ${right}) ${op2} ${third}`;
    const query = ordered({ ours, pg: pgText }, count);
    return limit === null ? query : { ours: `${query.ours} LIMIT ${limit}`, pg: `${query.pg} LIMIT ${limit}` };
  });

/** A window's ORDER BY: GridDB's NULL order written into PG's side (NULL_ORDER). */
const windowOrder = (key: string, descending: boolean): Query => (descending
  ? { ours: `ORDER BY ${key} DESC`, pg: `ORDER BY ${key} DESC NULLS LAST` }
  : { ours: `ORDER BY ${key}`, pg: `ORDER BY ${key} NULLS FIRST` });

const FRAMES = ['ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING', 'ROWS UNBOUNDED PRECEDING', 'ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING',
  'RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING', 'RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING', 'RANGE UNBOUNDED PRECEDING',
  'RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING', 'ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING', '', '', ''];

const windowQuery = fc.tuple(
  fc.constantFrom('ROW_NUMBER()', 'LAG(v)', 'LEAD(v, 2, 0)', 'LAG(s, 1)', 'SUM(v)', 'COUNT(*)', 'COUNT(v)', 'MIN(v)', 'MAX(s)', 'AVG(v)'),
  fc.option(fc.constantFrom('k', 's')), fc.constantFrom('id', 'v', 'k'), fc.boolean(), fc.constantFrom(...FRAMES),
  fc.option(predicateArb.map((p) => p.replaceAll('t2.', 't1.'))),
).map(([fn, partition, key, descending, frame, where]) => {
  const shift = /^(ROW_NUMBER|LAG|LEAD)/.test(fn);
  // ROW_NUMBER, LAG, LEAD and ROWS frames need a total order to agree (the order of peers is
  // neither's to define): ties broken by id.
  const total = shift || frame.startsWith('ROWS');
  const orderKey = total && key !== 'id' ? `${key}${descending ? ' DESC' : ''}, id` : key;
  const order = total && key !== 'id'
    ? { ours: `ORDER BY ${orderKey}`, pg: `ORDER BY ${key}${descending ? ' DESC NULLS LAST' : ' NULLS FIRST'}, id` }
    : windowOrder(key, descending);
  const frameText = shift || frame === '' ? '' : ` ${frame}`;
  const over = (side: 'ours' | 'pg') => `OVER (${partition === null ? '' : `PARTITION BY ${partition} `}${order[side]}${frameText})`;
  const pgFn = fn.replace('MAX(s)', 'MAX(s COLLATE "C")');
  const whereText = where === null ? '' : ` WHERE ${where}`;
  return ordered({
    ours: `SELECT id, ${fn} ${over('ours')} FROM t1${whereText}`,
    pg: `SELECT id, ${pgFn} ${over('pg')} FROM t1${whereText}`,
  }, 2);
});

const queryArb = fc.oneof(
  { arbitrary: windowQuery, weight: 5 },
  { arbitrary: joinQuery, weight: 4 }, { arbitrary: indexJoinQuery, weight: 2 }, { arbitrary: commaQuery, weight: 2 }, { arbitrary: usingQuery, weight: 1 },
  { arbitrary: naturalQuery, weight: 1 }, { arbitrary: crossAggregate, weight: 1 }, { arbitrary: groupedJoin, weight: 1 },
  { arbitrary: threeWay, weight: 1 }, { arbitrary: subqueryQuery, weight: 4 }, { arbitrary: setQuery, weight: 3 },
);

function sameCell(ours: unknown, theirs: unknown): boolean {
  const a = typeof ours === 'bigint' ? Number(ours) : ours;
  const b = typeof theirs === 'string' && typeof a === 'number' ? Number(theirs) : theirs;
  // AVG: a DOUBLE here, a numeric in PG (SUM_TYPE).
  if (typeof a === 'number' && typeof b === 'number' && !Number.isInteger(a)) {
    return Math.abs(a - b) <= AVG_TOLERANCE * Math.max(1, Math.abs(b));
  }
  return a === b;
}

const skipReason = postgresMissing();

describe('SQL joins, subqueries and set operations against PostgreSQL 15', { skip: skipReason }, () => {
  const postgres = postgresClientForSuite('store-pg-joins-');
  let db: SqlTestDatabase;
  let runIndex = 0;

  before(async () => {
    db = await sqlTestDatabase();
  });

  after(async () => {
    await db?.test.store.close();
  });

  it(`answers ${TABLE_RUNS} random table pairs × ${QUERIES_PER_TABLE} random queries as PostgreSQL does`, async () => {
    assert(TABLE_RUNS * QUERIES_PER_TABLE >= 500 || SCALE < 1);
    await fc.assert(fc.asyncProperty(
      fc.array(rowArb, { maxLength: ROW_COUNT_MAX }), fc.array(rowArb, { maxLength: ROW_COUNT_MAX }), fc.boolean(),
      fc.array(queryArb, { minLength: QUERIES_PER_TABLE, maxLength: QUERIES_PER_TABLE }),
      async (rows1, rows2, indexed, queries) => {
        runIndex++;
        for (const [name, rows] of [['t1', rows1], ['t2', rows2]] as const) {
          await db.update(`DROP TABLE IF EXISTS ${name}`);
          await db.update(`CREATE TABLE ${name} (id INTEGER PRIMARY KEY, k INTEGER, v LONG, s STRING)`);
          await postgres.client.query(`DROP TABLE IF EXISTS ${name}`);
          await postgres.client.query(`CREATE TABLE ${name} (id int4 PRIMARY KEY, k int4, v int8, s text)`);
          if (rows.length === 0) continue;
          const values = rows.map((row, i) => `(${i + 1}, ${row.k ?? 'NULL'}, ${row.v ?? 'NULL'}, ` +
            `${row.s === null ? 'NULL' : lit(row.s)})`).join(', ');
          await db.update(`INSERT INTO ${name} VALUES ${values}`);
          await postgres.client.query(`INSERT INTO ${name} VALUES ${values}`);
        }
        if (indexed) await db.update('CREATE INDEX t2k ON t2 (k)');
        for (const query of queries) {
          const ours = await db.rows(query.ours);
          const theirs = (await postgres.client.query({ text: query.pg, rowMode: 'array' })).rows as unknown[][];
          const equal = ours.length === theirs.length && ours.every((row, r) => row.length === theirs[r]!.length &&
            row.every((cell, c) => sameCell(cell, theirs[r]![c])));
          assert(equal, `run ${runIndex} t1 ${fc.stringify(rows1)} t2 ${fc.stringify(rows2)} indexed ${indexed}\n` +
            `${query.ours}\nours ${fc.stringify(ours)}\nPostgreSQL (${query.pg}) ${fc.stringify(theirs)}`);
        }
      },
    ), { numRuns: TABLE_RUNS, seed: SEED });
  });
});
