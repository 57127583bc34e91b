// Aggregates of §5.8 through hash aggregation: every function with DISTINCT/ALL, the empty-input
// rules (COUNT 0, TOTAL 0.0, others NULL), GROUP BY expressions, HAVING, a bare column outside
// GROUP BY, and GROUP BY RANGE with §5.6's two worked examples verbatim.

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError } from '../../../../lib/base/errors.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

let db: SqlTestDatabase;

before(async () => {
  db = await sqlTestDatabase();
  await db.update('CREATE TABLE m (id INTEGER PRIMARY KEY, g STRING, n LONG, x DOUBLE)');
  await db.update(`INSERT INTO m VALUES (1, 'a', 1, 1.0), (2, 'a', 2, 2.0), (3, 'a', 2, 4.0),
    (4, 'b', 10, NULL), (5, 'b', NULL, 3.0), (6, 'c', 7, 7.0)`);
});

describe('SQL aggregates', () => {
  it('COUNT, SUM, AVG, MIN, MAX, TOTAL with DISTINCT and ALL', async () => {
    assert.deepEqual(await db.rows('SELECT COUNT(*), COUNT(n), COUNT(DISTINCT n), SUM(n), SUM(ALL n), ' +
      'SUM(DISTINCT n), AVG(n), MIN(g), MAX(x), TOTAL(n), SUM(x) FROM m'),
    [[6n, 5n, 4n, 22n, 22n, 20n, 4.4, 'a', 7.0, 22.0, 17.0]]);
  });

  it('over no rows: COUNT 0, TOTAL 0.0, the others NULL', async () => {
    assert.deepEqual(await db.rows('SELECT COUNT(*), SUM(n), AVG(n), MIN(n), TOTAL(n), MEDIAN(n), ' +
      'GROUP_CONCAT(g) FROM m WHERE id > 100'), [[0n, null, null, null, 0.0, null, null]]);
  });

  it('GROUP_CONCAT with its default and a given separator', async () => {
    assert.deepEqual(await db.rows("SELECT g, GROUP_CONCAT(n), GROUP_CONCAT(DISTINCT n, '|') FROM m " +
      'GROUP BY g ORDER BY g'), [['a', '1,2,2', '1|2'], ['b', '10', '10'], ['c', '7', '7']]);
  });

  it('variance and standard deviation, sample, population and the …0 forms', async () => {
    const rows = await db.rows('SELECT VAR_SAMP(x), VAR_POP(x), STDDEV(x), STDDEV_POP(x), VARIANCE(x) ' +
      'FROM m WHERE id <= 3');
    const [varSamp, varPop, stddev, stddevPop, variance] = rows[0] as number[];
    assert.ok(Math.abs(varSamp! - 7 / 3) < 1e-12);
    assert.ok(Math.abs(varPop! - 14 / 9) < 1e-12);
    assert.ok(Math.abs(stddev! - Math.sqrt(7 / 3)) < 1e-12);
    assert.ok(Math.abs(stddevPop! - Math.sqrt(14 / 9)) < 1e-12);
    assert.equal(variance, varSamp);
    assert.deepEqual(await db.rows('SELECT STDDEV_SAMP(x), STDDEV0(x), VARIANCE(x), VARIANCE0(x), VAR_POP(x) ' +
      'FROM m WHERE id = 1'), [[null, 0, null, 0, 0]]);
  });

  it('MEDIAN (LONG for integers, mean of the middle two) and PERCENTILE_CONT WITHIN GROUP', async () => {
    assert.deepEqual(await db.rows('SELECT MEDIAN(n), MEDIAN(x) FROM m WHERE id <= 4'), [[2n, 2.0]]);
    assert.deepEqual(await db.rows('SELECT MEDIAN(n) FROM m WHERE id IN (1, 4)'), [[5n]]);
    assert.deepEqual(await db.rows('SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x), ' +
      'PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY x) FROM m WHERE id <= 3'), [[2.0, 1.5]]);
    await assert.rejects(db.rows('SELECT PERCENTILE_CONT(2) WITHIN GROUP (ORDER BY x) FROM m'),
      (error: unknown) => error instanceof StorageError && /between 0 and 1/.test(error.message));
  });

  it('GROUP BY expressions, HAVING on an aggregate, ORDER BY an aggregate', async () => {
    assert.deepEqual(await db.rows('SELECT g, COUNT(*) AS c, SUM(n) FROM m GROUP BY g HAVING COUNT(*) > 1 ' +
      'ORDER BY c DESC, g'), [['a', 3n, 5n], ['b', 2n, 10n]]);
    assert.deepEqual(await db.rows('SELECT id % 2, MAX(n) FROM m GROUP BY id % 2 ORDER BY 1'), [[0n, 10n], [1n, 2n]]);
    assert.deepEqual(await db.rows('SELECT g FROM m GROUP BY g ORDER BY SUM(x) DESC, g'), [['a'], ['c'], ['b']]);
  });

  it('a column outside GROUP BY takes its group\'s first value', async () => {
    assert.deepEqual(await db.rows('SELECT g, id FROM m GROUP BY g ORDER BY g'), [['a', 1], ['b', 4], ['c', 6]]);
  });

  it('refuses HAVING without GROUP BY and aggregates in WHERE', async () => {
    await assert.rejects(db.rows('SELECT COUNT(*) FROM m HAVING COUNT(*) > 1'),
      (error: unknown) => error instanceof StorageError && /HAVING (requires|needs) a? ?GROUP BY/.test(error.message));
    await assert.rejects(db.rows('SELECT id FROM m WHERE SUM(n) > 1'),
      (error: unknown) => error instanceof StorageError && /not allowed here/.test(error.message));
    await assert.rejects(db.rows("SELECT SUM(g) FROM m"),
      (error: unknown) => error instanceof StorageError && error.code === 'TYPE_MISMATCH');
  });
});

describe('GROUP BY RANGE (§5.6)', () => {
  before(async () => {
    await db.update('CREATE TABLE trend_data1 (ts TIMESTAMP PRIMARY KEY, value INTEGER) USING TIMESERIES');
    await db.update(`INSERT INTO trend_data1 VALUES
      (TIMESTAMP('2023-01-01T00:00:00Z'), 10), (TIMESTAMP('2023-01-01T00:00:10Z'), 30),
      (TIMESTAMP('2023-01-01T00:00:20Z'), 30), (TIMESTAMP('2023-01-01T00:00:30Z'), 50),
      (TIMESTAMP('2023-01-01T00:00:40Z'), 50), (TIMESTAMP('2023-01-01T00:00:50Z'), 70)`);
    await db.update('CREATE TABLE trend_data2 (ts TIMESTAMP PRIMARY KEY, value INTEGER) USING TIMESERIES');
    await db.update(`INSERT INTO trend_data2 VALUES
      (TIMESTAMP('2023-01-01T00:00:00Z'), 5), (TIMESTAMP('2023-01-01T00:00:10Z'), 10),
      (TIMESTAMP('2023-01-01T00:00:20Z'), 15), (TIMESTAMP('2023-01-01T00:00:40Z'), 25)`);
  });

  const at = (time: string) => Date.parse(`2023-01-01T${time}Z`);

  it('worked example 1: averages per 20 s', async () => {
    assert.deepEqual(await db.rows(`SELECT ts, avg(value) FROM trend_data1
 WHERE ts BETWEEN TIMESTAMP('2023-01-01T00:00:00Z') AND TIMESTAMP('2023-01-01T00:01:00Z')
 GROUP BY RANGE ts EVERY (20, SECOND);`), [[at('00:00:00'), 20], [at('00:00:20'), 40], [at('00:00:40'), 60]]);
  });

  it('worked example 2: FILL (LINEAR) fills 00:00:30 with 20 between 15 and 25', async () => {
    assert.deepEqual(await db.rows(`SELECT * FROM trend_data2 WHERE ts BETWEEN TIMESTAMP('2023-01-01T00:00:00Z') AND TIMESTAMP('2023-01-01T00:00:40Z') GROUP BY RANGE ts EVERY (10, SECOND) FILL (LINEAR);`),
    [[at('00:00:00'), 5], [at('00:00:10'), 10], [at('00:00:20'), 15], [at('00:00:30'), 20], [at('00:00:40'), 25]]);
  });

  it('FILL NULL, PREVIOUS and NONE; no FILL leaves empty groups out', async () => {
    const base = "SELECT ts, MAX(value) FROM trend_data2 WHERE ts >= TIMESTAMP('2023-01-01T00:00:20Z') AND " +
      "ts <= TIMESTAMP('2023-01-01T00:00:59Z') GROUP BY RANGE(ts) EVERY(10, SECOND)";
    assert.deepEqual(await db.rows(base), [[at('00:00:20'), 15], [at('00:00:40'), 25]]);
    assert.deepEqual(await db.rows(`${base} FILL(NONE)`), [[at('00:00:20'), 15], [at('00:00:40'), 25]]);
    assert.deepEqual(await db.rows(`${base} FILL(NULL)`),
      [[at('00:00:20'), 15], [at('00:00:30'), null], [at('00:00:40'), 25], [at('00:00:50'), null]]);
    assert.deepEqual(await db.rows(`${base} FILL(PREVIOUS)`),
      [[at('00:00:20'), 15], [at('00:00:30'), 15], [at('00:00:40'), 25], [at('00:00:50'), 25]]);
    assert.deepEqual(await db.rows(`${base} FILL(LINEAR)`),
      [[at('00:00:20'), 15], [at('00:00:30'), 20], [at('00:00:40'), 25], [at('00:00:50'), null]]);
  });

  it('an offset moves the group starts', async () => {
    assert.deepEqual(await db.rows("SELECT ts, COUNT(*) FROM trend_data1 WHERE ts BETWEEN " +
      "TIMESTAMP('2023-01-01T00:00:00Z') AND TIMESTAMP('2023-01-01T00:00:59Z') " +
      'GROUP BY RANGE(ts) EVERY(30, SECOND, 5)'),
    [[Date.parse('2022-12-31T23:59:35Z'), 1n], [at('00:00:05'), 3n], [at('00:00:35'), 2n]]);
  });

  it('a wide range of many groups is bounded by the work memory, and LINEAR over long gaps is linear', async () => {
    const wide = "SELECT ts, MAX(value) FROM trend_data2 WHERE ts BETWEEN TIMESTAMP('2023-01-01T00:00:00Z') AND " +
      "TIMESTAMP('2023-01-01T00:01:39.999Z') GROUP BY RANGE(ts) EVERY(1, MILLISECOND) FILL(LINEAR)";
    const rows = await db.rows(wide);
    assert.equal(rows.length, 100_000);
    assert.deepEqual(rows[15_000], [at('00:00:15'), 12]);
    await assert.rejects(db.rows(wide, [], { workMemoryLimitBytes: 1024 * 1024 }),
      (error: unknown) => error instanceof StorageError && error.code === 'LIMIT_EXCEEDED' && /GROUP BY RANGE/.test(error.message));
  });

  it('needs WHERE bounds on both sides, and MaxGeneratedRows caps the groups', async () => {
    await assert.rejects(db.rows("SELECT ts, COUNT(*) FROM trend_data1 WHERE ts >= TIMESTAMP('2023-01-01T00:00:00Z') " +
      'GROUP BY RANGE(ts) EVERY(10, SECOND)'),
    (error: unknown) => error instanceof StorageError && /bound the key/.test(error.message));
    await assert.rejects(db.rows("SELECT /*+ MaxGeneratedRows(3) */ ts, COUNT(*) FROM trend_data1 WHERE ts BETWEEN " +
      "TIMESTAMP('2023-01-01T00:00:00Z') AND TIMESTAMP('2023-01-01T00:01:00Z') GROUP BY RANGE(ts) EVERY(10, SECOND)"),
    (error: unknown) => error instanceof StorageError && error.code === 'LIMIT_EXCEEDED' && /7 groups/.test(error.message));
  });
});

describe('SQL GROUP BY a batch at a time', () => {
  it('COUNT(*), COUNT, SUM, AVG, MIN, MAX per group over random rows with NULLs match a JS model', async () => {
    const rows = fc.array(fc.record({
      g: fc.constantFrom('a', 'b', 'c', ''),
      x: fc.oneof(fc.constant(null), fc.integer({ min: -8, max: 8 }).map((n) => n / 4)),
    }, { noNullPrototype: true }), { maxLength: 700 });
    await fc.assert(fc.asyncProperty(rows, fc.boolean(), async (model, grouped) => {
      const t = await sqlTestDatabase();
      await t.update('CREATE TABLE r (id INTEGER PRIMARY KEY, g STRING, x DOUBLE)');
      // grouped: rows of a group next to each other (runs); otherwise interleaved by id.
      const ordered = grouped ? [...model].sort((p, q) => (p.g < q.g ? -1 : p.g > q.g ? 1 : 0)) : model;
      for (let start = 0; start < ordered.length; start += 200) {
        const values = ordered.slice(start, start + 200).map((row, i) =>
          `(${start + i}, '${row.g}', ${row.x === null ? 'NULL' : row.x})`);
        await t.update(`INSERT INTO r VALUES ${values.join(', ')}`);
      }
      const answer = await t.rows('SELECT g, COUNT(*), COUNT(x), SUM(x), AVG(x), MIN(x), MAX(x) FROM r ' +
        'GROUP BY g ORDER BY g');
      const groups = [...new Set(ordered.map((row) => row.g))].sort();
      const expected = groups.map((g) => {
        const xs = ordered.filter((row) => row.g === g).map((row) => row.x).filter((x) => x !== null);
        const sum = xs.reduce((s, x) => s + x, 0);
        return [g, BigInt(ordered.filter((row) => row.g === g).length), BigInt(xs.length),
          xs.length === 0 ? null : sum, xs.length === 0 ? null : sum / xs.length,
          xs.length === 0 ? null : Math.min(...xs), xs.length === 0 ? null : Math.max(...xs)];
      });
      assert.deepEqual(answer, expected);
    }), { numRuns: 15 });
  });
});
