// Windows over groups (lib/sql/plan/plan-window.ts, plan-select.ts): a window in a query with
// GROUP BY or aggregates runs over the grouped rows, its arguments binding as the select list does
// (`SUM(AVG(x)) OVER`, `LAG(AVG(x))`), with HAVING and with an ORDER BY naming an aggregate the
// select list does not (the aggregate node's columns grow after the window was planned, so the
// planner binds everything once first); and GridDB's refusals (§5.5, §5.6) at their place.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStorageError } from '../../../../lib/base/errors.ts';
import { sqlTestDatabase, type SqlTestDatabase } from '../exec/sql-exec-helpers.ts';

describe('window functions over groups', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE t (id INTEGER PRIMARY KEY, host STRING, x DOUBLE, ts TIMESTAMP)');
    // host a: 1, 3; b: 10, NULL; c: 5, 7.
    await db.update("INSERT INTO t VALUES (1, 'a', 1, TIMESTAMP('2024-01-01T00:00:00Z')), " +
      "(2, 'a', 3, TIMESTAMP('2024-01-01T00:01:00Z')), (3, 'b', 10, TIMESTAMP('2024-01-01T00:02:00Z')), " +
      "(4, 'c', 5, TIMESTAMP('2024-01-01T00:03:00Z')), (5, 'c', 7, TIMESTAMP('2024-01-01T00:04:00Z')), " +
      "(6, 'b', NULL, TIMESTAMP('2024-01-01T00:05:00Z'))");
  });

  after(async () => {
    await db?.test.store.close();
  });

  it('aggregates the groups: SUM(AVG(x)) OVER, LAG(AVG(x)), frames, HAVING, no GROUP BY', async () => {
    assert.deepEqual(await db.rows('SELECT host, AVG(x), SUM(AVG(x)) OVER (ORDER BY host) FROM t ' +
      'GROUP BY host ORDER BY host'), [['a', 2, 2], ['b', 10, 12], ['c', 6, 18]]);
    assert.deepEqual(await db.rows('SELECT host, LAG(AVG(x)) OVER (ORDER BY host) FROM t GROUP BY host ' +
      'HAVING COUNT(*) > 1 ORDER BY host'), [['a', null], ['b', 2], ['c', 10]]);
    assert.deepEqual(await db.rows('SELECT host, COUNT(*) OVER () FROM t GROUP BY host ORDER BY host'),
      [['a', 3n], ['b', 3n], ['c', 3n]]);
    assert.deepEqual(await db.rows('SELECT COUNT(*), SUM(COUNT(*)) OVER () FROM t'), [[6n, 6n]]);
    // The frame slides over the groups in host order: a 3, b 3 + 10, c 10 + 7.
    assert.deepEqual(await db.rows('SELECT host, SUM(MAX(x)) OVER (ORDER BY host ROWS 1 PRECEDING) FROM t ' +
      'GROUP BY host ORDER BY host'), [['a', 3], ['b', 13], ['c', 17]]);
  });

  it('an ORDER BY aggregate outside the select list does not take the window\'s column', async () => {
    // MIN(x) is bound after the window: a 1, c 5, b 10.
    assert.deepEqual(await db.rows('SELECT host, SUM(MAX(x)) OVER (ORDER BY host ROWS 1 PRECEDING) FROM t ' +
      'GROUP BY host ORDER BY MIN(x)'), [['a', 3], ['c', 17], ['b', 13]]);
    assert.deepEqual(await db.rows('SELECT host, ROW_NUMBER() OVER (ORDER BY host DESC) FROM t GROUP BY host ' +
      'ORDER BY SUM(x) DESC, COUNT(x)'), [['c', 1n], ['b', 2n], ['a', 3n]]);
  });

  it('refuses what GridDB refuses with windows, at its place', async () => {
    const cases: [string, RegExp, number][] = [
      ['SELECT host, SUM(x) OVER (PARTITION BY COUNT(*)) FROM t GROUP BY host', /take no aggregate/, 40],
      ['SELECT host, SUM(x) OVER (ORDER BY AVG(x)) FROM t GROUP BY host', /take no aggregate/, 36],
      ['SELECT MEDIAN(x), COUNT(*) OVER () FROM t', /with MEDIAN/, 19],
      ['SELECT host, PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x), ROW_NUMBER() OVER () FROM t GROUP BY host',
        /with PERCENTILE_CONT/, 62],
      ["SELECT ts, AVG(x), COUNT(*) OVER () FROM t WHERE ts BETWEEN TIMESTAMP('2024-01-01T00:00:00Z') AND " +
        "TIMESTAMP('2024-01-01T01:00:00Z') GROUP BY RANGE ts EVERY (1, MINUTE)", /GROUP BY RANGE takes no window/, 20],
    ];
    for (const [text, message, column] of cases) {
      await assert.rejects(db.rows(text), (error: unknown) => {
        assert(isStorageError(error), String(error));
        assert.equal(error.code, 'SQL_COMPILE_SYNTAX_ERROR', `${text}: ${error.message}`);
        assert.match(error.message, message, text);
        assert.match(error.message, new RegExp(`column ${column}:`), `${text}: ${error.message}`);
        return true;
      });
    }
  });
});
