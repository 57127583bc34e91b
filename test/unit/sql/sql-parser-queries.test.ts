// The parser's query forms of SQL part 2: joins, derived tables, subquery expressions and set
// operations parse to the trees ast.ts describes, print back to the same text, and their errors
// (RIGHT/FULL joins, a derived table without alias, ORDER BY inside a set operation) say where.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SqlQuery } from '../../../lib/sql/ast.ts';
import { SqlError } from '../../../lib/sql/errors.ts';
import { parseSql, parseSqlStatement } from '../../../lib/sql/parser.ts';
import { printSqlStatement } from '../../../lib/sql/print.ts';
import { statementOf, withoutPositions } from './sql-test-helpers.ts';

function parseError(text: string): SqlError {
  try {
    parseSql(text);
  } catch (error) {
    assert.ok(error instanceof SqlError, String(error));
    return error;
  }
  assert.fail(`no error for ${text}`);
}

function queryOf(text: string): SqlQuery {
  const statement = statementOf(text);
  assert.ok(statement.kind === 'select');
  return statement.query;
}

/** Canonical texts: parse and print gives the same text back. */
const CANONICAL = [
  'SELECT a FROM t INNER JOIN u ON t.a = u.b',
  'SELECT a FROM t LEFT JOIN u ON t.a = u.b AND u.c > 1',
  'SELECT a FROM t CROSS JOIN u',
  'SELECT a FROM t NATURAL INNER JOIN u',
  'SELECT a FROM t NATURAL LEFT JOIN u',
  'SELECT a FROM t INNER JOIN u USING (a, b)',
  'SELECT a FROM t AS x INNER JOIN u AS y ON x.a = y.a LEFT JOIN v ON v.a = x.a',
  'SELECT s.a FROM (SELECT a FROM t WHERE a > 1) AS s',
  'SELECT a FROM t WHERE a IN (SELECT b FROM u)',
  'SELECT a FROM t WHERE a NOT IN (SELECT b FROM u WHERE u.c = t.c)',
  'SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u) AND NOT EXISTS (SELECT 2 FROM v)',
  'SELECT (SELECT MAX(b) FROM u) + 1 FROM t',
  'SELECT a FROM t UNION SELECT b FROM u',
  'SELECT a FROM t UNION ALL SELECT b FROM u INTERSECT SELECT c FROM v EXCEPT SELECT d FROM w',
  'SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 DESC LIMIT 3 OFFSET 1',
  'SELECT ROW_NUMBER() OVER (PARTITION BY a, b ORDER BY c DESC) FROM t',
  'SELECT LAG(a, 2, 0) OVER (ORDER BY ts) FROM t',
  'SELECT SUM(a) OVER () FROM t',
  'SELECT AVG(v) OVER (ORDER BY ts RANGE BETWEEN (10, MINUTE) PRECEDING AND CURRENT ROW) FROM t',
  'SELECT COUNT(*) OVER (PARTITION BY h ROWS BETWEEN UNBOUNDED PRECEDING AND 2 FOLLOWING) FROM t',
];

describe('sql parser: joins, subqueries, set operations, windows', () => {
  it('prints each form back to the same text', () => {
    for (const text of CANONICAL) {
      const statement = parseSqlStatement(text).statement;
      assert.equal(printSqlStatement(statement), text);
      assert.deepEqual(withoutPositions(parseSqlStatement(printSqlStatement(statement)).statement),
        withoutPositions(statement));
    }
  });

  it('reads a comma as a CROSS join and joins left to right', () => {
    const query = queryOf('SELECT 1 FROM a, b JOIN c ON TRUE LEFT OUTER JOIN d USING (x)');
    assert.ok(query.kind === 'select' && query.from?.kind === 'join');
    const outer = query.from;
    assert.equal(outer.type, 'LEFT');
    assert.deepEqual(outer.using?.map((name) => name.text), ['x']);
    assert.ok(outer.left.kind === 'join' && outer.left.type === 'INNER' && outer.left.left.kind === 'join');
    assert.equal(outer.left.left.type, 'CROSS');
  });

  it('takes JOIN alone and INNER JOIN as one form', () => {
    const a = queryOf('SELECT 1 FROM a JOIN b ON TRUE');
    const b = queryOf('SELECT 1 FROM a INNER JOIN b ON TRUE');
    assert.deepEqual(withoutPositions(a), withoutPositions(b));
  });

  it('puts ORDER BY and LIMIT after the last SELECT on the whole set operation', () => {
    const query = queryOf('SELECT a FROM t EXCEPT SELECT b FROM u ORDER BY a LIMIT 2');
    assert.ok(query.kind === 'setOperation' && query.operator === 'EXCEPT');
    assert.equal(query.orderBy.length, 1);
    assert.ok(query.right.orderBy.length === 0 && query.right.limit === undefined);
  });

  it('refuses RIGHT and FULL joins as GridDB does, at the join', () => {
    for (const [text, column] of [
      ['SELECT a FROM t RIGHT JOIN u ON TRUE', 17], ['SELECT a FROM t RIGHT OUTER JOIN u ON TRUE', 17],
      ['SELECT a FROM t FULL JOIN u ON TRUE', 17], ['SELECT a FROM t x FULL OUTER JOIN u ON TRUE', 19],
      ['SELECT a FROM t NATURAL RIGHT JOIN u', 17], ['SELECT a FROM t OUTER JOIN u', 17],
    ] as const) {
      const error = parseError(text);
      assert.equal(error.code, 'SQL_COMPILE_SYNTAX_ERROR', text);
      assert.match(error.message, /RIGHT and FULL OUTER JOINs are not currently supported/);
      assert.equal(error.position.column, column, text);
    }
  });

  it('says where a derived table lacks its alias, or a join its syntax', () => {
    const cases: [string, number, RegExp][] = [
      ['SELECT 1 FROM (SELECT 1)', 15, /subquery in FROM needs an alias/],
      ['SELECT 1 FROM t NATURAL JOIN u ON TRUE', 32, /NATURAL join takes no ON or USING/],
      ['SELECT 1 FROM t JOIN u USING ()', 31, /expected a column name/],
      ['SELECT 1 FROM t JOIN', 21, /expected a table name/],
      ['SELECT 1 FROM t ORDER BY 1 UNION SELECT 2', 28, /ORDER BY and LIMIT go after the last SELECT/],
      ['SELECT 1 FROM t UNION SELECT 2 ORDER BY 1 UNION SELECT 3', 17, /ORDER BY and LIMIT go after the last SELECT/],
      ['SELECT 1 WHERE EXISTS 1', 23, /expected '\('/],
      ['SELECT 1 FROM t WHERE a IN (SELECT b FROM u', 44, /expected '\)'/],
      ['SELECT SUM(a) OVER (ROWS 2) FROM t', 27, /expected FOLLOWING/],
      ['SELECT SUM(a) OVER (ROWS (2, WEEK) PRECEDING) FROM t', 30, /expected DAY, HOUR/],
      ['SELECT SUM(a) OVER (ORDER BY b LIMIT 1) FROM t', 32, /expected '\)'/],
    ];
    for (const [text, column, message] of cases) {
      const error = parseError(text);
      assert.match(error.message, message, text);
      assert.equal(error.position.column, column, `${text}: ${error.message}`);
    }
  });
});
