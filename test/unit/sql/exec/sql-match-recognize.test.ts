// MATCH_RECOGNIZE through runSql: the classic V-shape over a stock's prices (ONE ROW and ALL ROWS
// PER MATCH, GridDB's default of all rows), names and WHERE over its output, the planner's
// refusals (GridDB's and SQL:2016's rules) with their positions, and its bounds: a pattern that
// backtracks exponentially ends with LIMIT_EXCEEDED at the step bound, can be cancelled or time
// out at a turn of the event loop before that, and the held rows are charged to work memory.

import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { SqlError } from '../../../../lib/sql/errors.ts';
import { storageError } from '../../engine/engine-test-helpers.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

/** A's prices at 00:00:00, 00:00:01, …: two V shapes (10 8 6 9 12, 11 7 5 8 13), then 13 again. */
const PRICES = [10, 8, 6, 9, 12, 11, 7, 5, 8, 13, 13];
const T0_MS = Date.UTC(2024, 0, 1);

export const V_SHAPE_SQL = 'SELECT * FROM stock MATCH_RECOGNIZE (' +
  ' PARTITION BY symbol ORDER BY ts' +
  ' MEASURES FIRST(ts) AS start_ts, LAST(DOWN.price) AS bottom, LAST(UP.price) AS top, MATCH_NUMBER() AS m' +
  ' ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW' +
  ' PATTERN (STRT DOWN+ UP+)' +
  ' DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)) AS v';

describe('MATCH_RECOGNIZE', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE stock (symbol STRING, ts TIMESTAMP, price DOUBLE, PRIMARY KEY (symbol, ts))');
    const prices: Record<string, readonly number[]> = { A: PRICES, B: [5, 4, 6] };
    const rows = Object.entries(prices).flatMap(([symbol, list]) => list.map((price, i) =>
      `('${symbol}', TIMESTAMP_ADD(SECOND, TIMESTAMP('2024-01-01T00:00:00Z'), ${i}), ${price})`));
    await db.update(`INSERT INTO stock VALUES ${rows.join(', ')}`);
    await db.update('CREATE TABLE t (id INTEGER PRIMARY KEY, v LONG)');
    await db.update(`INSERT INTO t VALUES ${Array.from({ length: 40 }, (_, i) => `(${i}, ${i})`).join(', ')}`);
    await db.update('CREATE TABLE p (id INTEGER PRIMARY KEY, v LONG)');
    await db.update(`INSERT INTO p VALUES ${Array.from({ length: 15 }, (_, i) => `(${i}, ${i})`).join(', ')}`);
  });

  after(async () => {
    await db?.test.store.close();
  });

  it('finds the V shapes of each symbol: one row per match', async () => {
    assert.deepStrictEqual(await db.rows(V_SHAPE_SQL), [
      ['A', T0_MS, 6, 12, 1n],
      ['A', T0_MS + 5000, 5, 13, 2n],
      ['B', T0_MS, 4, 6, 1n],
    ]);
  });

  it('gives every row of each match, with running measures, when ROWS PER MATCH is not written', async () => {
    const sql = "SELECT ts, price, CLASSIFIER_NAME, n, low FROM stock MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts " +
      'MEASURES CLASSIFIER() AS classifier_name, COUNT(*) AS n, MIN(price) AS low ' +
      "PATTERN (STRT DOWN+ UP+) DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)) WHERE symbol = 'A'";
    assert.deepStrictEqual((await db.rows(sql)).slice(0, 5), [
      [T0_MS, 10, 'STRT', 1n, 10], [T0_MS + 1000, 8, 'DOWN', 2n, 8], [T0_MS + 2000, 6, 'DOWN', 3n, 6],
      [T0_MS + 3000, 9, 'UP', 4n, 6], [T0_MS + 4000, 12, 'UP', 5n, 6],
    ]);
    assert.equal((await db.rows(sql)).length, 10);
    // WHERE filters the output; it is not pushed below the matching (that would change the matches).
    assert.deepStrictEqual((await db.rows(`${sql} AND price > 7`)).map((row) => row[1]), [10, 8, 9, 12, 11, 8, 13]);
  });

  it('reads a derived table, and its output by the alias', async () => {
    const sql = 'SELECT m.id, m.k FROM (SELECT id, v FROM t WHERE id < 6) MATCH_RECOGNIZE (ORDER BY id ' +
      'MEASURES MATCH_NUMBER() AS k ALL ROWS PER MATCH PATTERN (A B) DEFINE B AS v > PREV(v)) AS m';
    assert.deepStrictEqual(await db.rows(sql), [[0, 1n], [1, 1n], [2, 2n], [3, 2n], [4, 3n], [5, 3n]]);
  });

  it('gives DEFINE the number of the match being tried', async () => {
    const sql = 'SELECT id, k FROM t MATCH_RECOGNIZE (ORDER BY id MEASURES MATCH_NUMBER() AS k ' +
      'ALL ROWS PER MATCH PATTERN (A B) DEFINE B AS MATCH_NUMBER() < 3)';
    assert.deepStrictEqual(await db.rows(sql), [[0, 1n], [1, 1n], [2, 2n], [3, 2n]]);
  });

  it('reads a view by its name, and a view may hold MATCH_RECOGNIZE', async () => {
    await db.update('CREATE VIEW low_t AS SELECT id, v FROM t WHERE id < 4');
    const sql = 'SELECT id, k FROM low_t MATCH_RECOGNIZE (ORDER BY id MEASURES MATCH_NUMBER() AS k ' +
      'ALL ROWS PER MATCH PATTERN (A B) DEFINE B AS v > PREV(v))';
    assert.deepStrictEqual(await db.rows(sql), [[0, 1n], [1, 1n], [2, 2n], [3, 2n]]);
    await db.update(`CREATE VIEW matched AS ${sql}`);
    assert.deepStrictEqual(await db.rows('SELECT COUNT(*) FROM matched WHERE k = 2'), [[2n]]);
  });

  const refusals: readonly [string, string, string][] = [
    ['SQL_COMPILE_SYNTAX_ERROR', 'PATTERN (A) DEFINE B AS v > 0', 'B AS'],
    ['SQL_COMPILE_SYNTAX_ERROR', 'PARTITION BY v + 1 PATTERN (A) DEFINE A AS TRUE', 'v + 1'],
    ['SQL_COMPILE_SYNTAX_ERROR', 'PATTERN (A) DEFINE A AS v > PREV(v + 1)', 'v + 1'],
    ['SQL_COMPILE_SYNTAX_ERROR', 'PATTERN (A) DEFINE A AS v > PREV(v, 2)', 'PREV'],
    ['SQL_COMPILE_SYNTAX_ERROR', "PATTERN (A) DEFINE A AS CLASSIFIER() = 'A'", 'CLASSIFIER'],
    ['NOT_SUPPORTED', 'PATTERN (A) DEFINE A AS SUM(v) > 1', 'SUM'],
    ['SQL_COMPILE_SYNTAX_ERROR', 'PATTERN (A) DEFINE A AS v IN (SELECT v FROM t)', 'v IN'],
    ['COLUMN_NOT_FOUND', 'MEASURES Z.v AS z PATTERN (A) DEFINE A AS TRUE', 'Z.v'],
    ['COLUMN_NOT_FOUND', 'MEASURES t.v AS z PATTERN (A) DEFINE A AS TRUE', 't.v'],
    ['TYPE_MISMATCH', 'PATTERN (A) DEFINE A AS v + 1', 'v + 1'],
    ['SQL_COMPILE_SYNTAX_ERROR', 'MEASURES SUM(A.v + B.v) AS s PATTERN (A B) DEFINE A AS TRUE', 'SUM'],
  ];
  const prefix = 'SELECT * FROM t MATCH_RECOGNIZE (';
  for (const [code, inside, marker] of refusals) {
    it(`refuses ${inside} with ${code} at ${marker}`, async () => {
      const text = `${prefix}${inside})`;
      await assert.rejects(db.rows(text), (error: unknown) => {
        assert(error instanceof SqlError, String(error));
        assert.equal(error.code, code, error.message);
        assert.equal(error.position.column, text.indexOf(marker, prefix.length) + 1, error.message);
        return true;
      });
    });
  }

  /**
   * A, B and C hold for every row and D for none: every start row tries 3^(rows left) labellings.
   * The table has 15 rows, one page of the scan, so only the matcher can turn the event loop.
   */
  const EXPONENTIAL_SQL = 'SELECT * FROM p MATCH_RECOGNIZE (ORDER BY id MEASURES COUNT(*) AS n ONE ROW PER MATCH ' +
    'PATTERN ((A | B | C)* D) DEFINE D AS v < 0)';

  it('ends a pattern that backtracks exponentially with LIMIT_EXCEEDED at its step bound', async () => {
    await assert.rejects(db.rows(EXPONENTIAL_SQL), storageError('LIMIT_EXCEEDED', /SQL_ROW_PATTERN_STEP_COUNT_MAX/));
    // The same pattern on few rows runs: the bound is per attempt, not per statement.
    assert.deepStrictEqual(await db.rows(EXPONENTIAL_SQL.replace('FROM p', 'FROM (SELECT * FROM p WHERE id < 6)')), []);
  });

  it('can be cancelled while the matcher works, before its first page', async () => {
    let cancelled = false;
    const turn = nextTurn().then(() => { cancelled = true; });
    const result = await db.run(EXPONENTIAL_SQL, [], { cancelled: () => cancelled });
    assert(result.kind === 'rows');
    await assert.rejects(result.next(10), storageError('SQL_CANCELLED'));
    await turn;
  });

  it('times out at a turn of the event loop while the matcher works', async () => {
    const result = await db.run(EXPONENTIAL_SQL, [], { timeoutMs: 1000 });
    assert(result.kind === 'rows');
    const turn = nextTurn().then(() => { db.clockMs += 2000; });
    await assert.rejects(result.next(10), storageError('REQUEST_TIMEOUT'));
    await turn;
    db.clockMs = 0;
  });

  it('charges the matcher\'s backtracking stack to the work memory', async () => {
    // 40 rows of t are about 3 KB held; the stack is charged in chunks of 24 KB.
    const sql = 'SELECT COUNT(*) FROM t MATCH_RECOGNIZE (ORDER BY id ONE ROW PER MATCH PATTERN (A*) DEFINE A AS TRUE)';
    assert.deepStrictEqual(await db.rows(sql), [[1n]]);
    await assert.rejects(db.rows(sql, [], { workMemoryLimitBytes: 16_000 }),
      storageError('LIMIT_EXCEEDED', /MATCH_RECOGNIZE/));
  });

  it('charges the rows it holds to the work memory', async () => {
    await assert.rejects(db.rows('SELECT * FROM t MATCH_RECOGNIZE (ORDER BY id PATTERN (A) DEFINE A AS TRUE)', [],
      { workMemoryLimitBytes: 1000 }), storageError('LIMIT_EXCEEDED', /MATCH_RECOGNIZE/));
  });
});
