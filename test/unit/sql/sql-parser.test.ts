import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SQL_EXPRESSION_DEPTH_MAX } from '../../../lib/base/limits.ts';
import { SqlError } from '../../../lib/sql/errors.ts';
import { SQL_STATEMENT_KINDS_NOT_SUPPORTED } from '../../../lib/sql/ast-statements.ts';
import { parseSql, parseSqlStatement } from '../../../lib/sql/parser.ts';
import { printSqlStatement } from '../../../lib/sql/print.ts';
import { grouping, statementOf, withoutPositions } from './sql-test-helpers.ts';

function parseError(text: string): SqlError {
  try {
    parseSql(text);
  } catch (error) {
    assert.ok(error instanceof SqlError, String(error));
    return error;
  }
  assert.fail(`no error for ${text}`);
}

/** Every statement form, in canonical text: parsing and printing gives the same text back. */
const CANONICAL_STATEMENTS = [
  'CREATE TABLE IF NOT EXISTS t (a INTEGER PRIMARY KEY, b DOUBLE NOT NULL, c STRING NULL)',
  'CREATE TABLE t (ts TIMESTAMP PRIMARY KEY, v DOUBLE) USING TIMESERIES ' +
    'WITH (data_affinity = \'g\')',
  'CREATE TABLE t (a INTEGER, b STRING, PRIMARY KEY (a, b))',
  'CREATE TABLE t (a TIMESTAMP(9), b TIMESTAMP(6), c TIMESTAMP) ' +
    'PARTITION BY HASH (a) PARTITIONS 128',
  'CREATE TABLE t (d TIMESTAMP, v STRING, PRIMARY KEY (d, v)) ' +
    'PARTITION BY RANGE (d) EVERY (60, DAY) ' +
    'SUBPARTITION BY HASH (v) SUBPARTITIONS 64',
  'DROP TABLE IF EXISTS t',
  'DROP TABLE "#x"',
  'CREATE INDEX IF NOT EXISTS i ON t (a, b)',
  'DROP INDEX IF EXISTS i ON t',
  'ALTER TABLE t ADD COLUMN x LONG, ADD COLUMN y BLOB NOT NULL',
  'ALTER TABLE t RENAME COLUMN a TO b',
  'ALTER TABLE t DROP PARTITION FOR (TIMESTAMP(\'2020-01-01\'))',
  'INSERT INTO t VALUES (1, \'a\')',
  'INSERT INTO t (a, b) VALUES (1, 2), (?, ?)',
  'INSERT OR REPLACE INTO t SELECT * FROM u WHERE a > 1',
  'REPLACE INTO t (a) VALUES (9007199254740993)',
  'UPDATE t SET a = a + 1, b = NULL WHERE c IS NOT NULL',
  'DELETE FROM t WHERE a IN (1, 2, 3)',
  'DELETE FROM t',
  'SELECT 1 + 1',
  'SELECT DISTINCT a, t.b AS x, t.* FROM t AS u WHERE a NOT BETWEEN 1 AND 2 GROUP BY a, b ' +
    'HAVING COUNT(*) > 1 ORDER BY 1 DESC, x, b ASC LIMIT 10 OFFSET 20',
  'SELECT ALL COUNT(DISTINCT a), SUM(ALL b), ' +
    'PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY c DESC) FROM t',
  'SELECT ts, AVG(v) FROM t WHERE ts BETWEEN TIMESTAMP(\'2023-01-01T00:00:00Z\') AND NOW() ' +
    'GROUP BY RANGE(ts) EVERY(20, SECOND) FILL(LINEAR)',
  'SELECT * FROM t GROUP BY RANGE(ts) EVERY(1, HOUR, \'+09:00\') FILL(PREVIOUS)',
  'SELECT * FROM t GROUP BY RANGE(ts) EVERY(1, DAY, -3)',
  'SELECT CASE a WHEN 1 THEN \'x\' ELSE \'y\' END, CASE WHEN a > 1 THEN 2 END, ' +
    'CAST(a AS TIMESTAMP(6))',
  'SELECT EXTRACT(YEAR, ts), TIMESTAMP_ADD(DAY, ts, 1), TIMESTAMPDIFF(DAY_OF_WEEK, a, b) FROM t',
  'SELECT REPLACE(a, \'b\', \'c\'), LIKE(\'a%\', b), GLOB(\'*\', c) FROM "#tables"',
  'SELECT a FROM t WHERE a LIKE \'x!%\' ESCAPE \'!\' AND b NOT GLOB \'a*\' ' +
    'AND c ISNULL AND d NOTNULL',
  'SELECT X\'00FF\', 1.5, TRUE, FALSE, NULL, \'it\'\'s\', ~a, -b, - -c, +d',
  'SELECT /*+ IndexScan(t) Leading((t u) v) MaxGeneratedRows(100) */ * FROM t',
  'INSERT /*+ MaxDegreeOfTaskInput(2) */ INTO t VALUES (1)',
  'UPDATE /*+ NoIndexScan(t) */ t SET a = 1',
  'DELETE /*+ IndexScan(t) */ FROM t',
  'EXPLAIN SELECT * FROM t',
  'EXPLAIN ANALYZE SELECT * FROM t',
  'CREATE DATABASE db',
  'DROP DATABASE db',
  'CREATE USER u IDENTIFIED BY \'pw\'',
  'DROP USER u',
  'CREATE ROLE r',
  'DROP ROLE r',
  'GRANT SELECT ON db TO u',
  'REVOKE ALL ON db FROM u',
  'SET PASSWORD FOR u = \'pw\'',
  'SET PASSWORD = \'pw\'',
  'CREATE FORCE VIEW v AS SELECT a FROM t',
  'DROP VIEW IF EXISTS v',
];

describe('sql parser: statements', () => {
  it('parses every statement form and prints it back to the same text', () => {
    for (const text of CANONICAL_STATEMENTS) {
      assert.equal(printSqlStatement(statementOf(text)), text);
    }
  });

  it('maps type names as §5.2 says and refuses DECIMAL with its position', () => {
    const statement = statementOf('CREATE TABLE t (a REAL, b BIGINT, c VARCHAR(20), d TINYINT, ' +
      'e SMALLINT, f BIGINTEGER, g FLOATINGPOINT, h CLOB, i DOUBLE PRECISION, j FLOAT, k bool)');
    assert.ok(statement.kind === 'createTable');
    assert.deepEqual(statement.columns.map((column) => column.type),
      ['DOUBLE', 'LONG', 'STRING', 'BYTE', 'SHORT', 'INTEGER', 'INTEGER', 'STRING', 'DOUBLE',
        'FLOAT', 'BOOL']);
    const error = parseError('CREATE TABLE t (a INTEGER,\n  b DECIMAL(10, 2))');
    assert.equal(error.code, 'SQL_COMPILE_SYNTAX_ERROR');
    assert.deepEqual([error.position.line, error.position.column], [2, 5]);
    assert.match(error.message, /type DECIMAL is not supported/);
    assert.match(parseError('SELECT CAST(a AS TIMESTAMP(4))').message, /precision 3, 6 or 9/);
  });

  it('splits statements at ; and keeps each text and its parameter count', () => {
    const statements = parseSql('SELECT ?;; INSERT INTO t VALUES (?, ?) ;\n DELETE FROM t;');
    assert.deepEqual(statements.map((s) => [s.text, s.parameterCount]),
      [['SELECT ?', 1], ['INSERT INTO t VALUES (?, ?)', 2], ['DELETE FROM t', 0]]);
    assert.equal(parseSql(' -- nothing\n ; ').length, 0);
  });

  it('numbers parameters in order of appearance, whatever their spelling', () => {
    const statement = statementOf('SELECT ?5, :a, @b, ? FROM t');
    assert.ok(statement.kind === 'select' && statement.query.kind === 'select');
    assert.deepEqual(statement.query.items.map((item) =>
      item.kind === 'expression' && item.expression.kind === 'parameter' && item.expression.index),
    [1, 2, 3, 4]);
  });

  it('keeps integers beyond 2^53 exact', () => {
    const statement = statementOf('INSERT INTO t VALUES (9223372036854775807)');
    assert.ok(statement.kind === 'insert' && statement.source.kind === 'values');
    const value = statement.source.rows[0]![0]!;
    assert.deepEqual(withoutPositions(value),
      { kind: 'literal', literal: { type: 'INTEGER', value: 9223372036854775807n } });
  });

  it('takes reserved words as names only in double quotes, soft keywords also bare', () => {
    assert.ok(statementOf('SELECT "select", "FROM" FROM "order"').kind === 'select');
    assert.ok(statementOf('CREATE TABLE myTable (key INTEGER PRIMARY KEY, value DOUBLE)'));
    const error = parseError('SELECT a FROM order');
    assert.deepEqual([error.position.line, error.position.column], [1, 15]);
    assert.match(error.message, /expected a table name, found "order" \(ORDER is a reserved word/);
    const named = statementOf('SELECT "#tables".a FROM "#tables"');
    assert.ok(named.kind === 'select' && named.query.kind === 'select' &&
      named.query.from?.kind === 'table' && named.query.from.name.quoted === true);
  });

  it('keeps hints before or after the first keyword and refuses them elsewhere', () => {
    const before = statementOf('/*+ IndexScan(t) */ SELECT * FROM t');
    const after = statementOf('SELECT /*+ IndexScan(t) */ * FROM t');
    assert.deepEqual(withoutPositions(before), withoutPositions(after));
    assert.ok(before.kind === 'select' && before.hints[0]?.name === 'IndexScan');
    const cases: [string, number, number, RegExp][] = [
      ['SELECT * FROM t /*+ IndexScan(t) */', 1, 17, /may only stand right before or after/],
      ['/*+ A(1) */ SELECT /*+ B(2) */ 1', 1, 20, /one hint comment/],
      ['SELECT /*+ IndexScan(t) IndexScan(t) */ 1', 1, 25, /repeats or contradicts/],
      ['SELECT /*+ IndexScan(t) NoIndexScan(t) */ 1', 1, 25, /repeats or contradicts/],
      ['SELECT /*+ IndexScan(t */ 1', 1, 24, /in a hint: expected a table name, a number or '\)'/],
      ['/*+ IndexScan(t) */ DROP TABLE t', 1, 1, /may only stand/],
    ];
    for (const [text, line, column, message] of cases) {
      const error = parseError(text);
      assert.equal(error.code, 'SQL_COMPILE_SYNTAX_ERROR', text);
      assert.deepEqual([error.position.line, error.position.column], [line, column], text);
      assert.match(error.message, message, text);
    }
  });

  it('parses administration and partition statements to kinds the executor refuses', () => {
    const refused = ['CREATE DATABASE d', 'DROP DATABASE d', 'CREATE USER u IDENTIFIED BY \'p\'',
      'DROP USER u', 'CREATE ROLE r', 'DROP ROLE r', 'GRANT ALL ON d TO u',
      'REVOKE SELECT ON d FROM u',
      'SET PASSWORD = \'p\''];
    for (const text of refused) {
      assert.ok(SQL_STATEMENT_KINDS_NOT_SUPPORTED.has(statementOf(text).kind), text);
    }
    const run = ['SELECT 1', 'CREATE TABLE t (a INTEGER)', 'DROP TABLE t', 'DELETE FROM t',
      'ALTER TABLE t DROP PARTITION FOR (1)', 'CREATE VIEW v AS SELECT 1', 'DROP VIEW v'];
    for (const text of run) {
      assert.ok(!SQL_STATEMENT_KINDS_NOT_SUPPORTED.has(statementOf(text).kind), text);
    }
    const partitioned = statementOf('CREATE TABLE t (a INTEGER PRIMARY KEY) ' +
      'PARTITION BY HASH (a) PARTITIONS 4');
    assert.ok(partitioned.kind === 'createTable' && partitioned.partitioning?.kind === 'hash');
  });
});

describe('sql parser: the examples of spec/surface.md §5', () => {
  const examples = [
    'CREATE TABLE myTable (key INTEGER PRIMARY KEY, value1 DOUBLE NOT NULL, ' +
      'value2 DOUBLE NOT NULL);',
    'CREATE TABLE myHashPartition (id INTEGER PRIMARY KEY, value STRING) ' +
      'PARTITION BY HASH (id) PARTITIONS 128;',
    'CREATE TABLE myIntervalPartition (date TIMESTAMP PRIMARY KEY, value STRING) ' +
      'PARTITION BY RANGE (date) EVERY (30, DAY);',
    'CREATE TABLE myIntervalPartition2 (date TIMESTAMP PRIMARY KEY, value STRING)\n' +
      "  USING TIMESERIES WITH (expiration_type='PARTITION', expiration_time=90, " +
      "expiration_time_unit='DAY')\n  PARTITION BY RANGE (date) EVERY (30, DAY);",
    'CREATE TABLE myIntervalHashPartition (date TIMESTAMP, value STRING, ' +
      'PRIMARY KEY (date, value))\n  PARTITION BY RANGE (date) EVERY (60, DAY) ' +
      'SUBPARTITION BY HASH (value) SUBPARTITIONS 64;',
    'SELECT ts, avg(value) FROM trend_data1\n' +
      " WHERE ts BETWEEN TIMESTAMP('2023-01-01T00:00:00Z') AND " +
      "TIMESTAMP('2023-01-01T00:01:00Z')\n" +
      ' GROUP BY RANGE ts EVERY (20, SECOND);',
    "SELECT * FROM trend_data2 WHERE ts BETWEEN TIMESTAMP('2023-01-01T00:00:00Z') AND " +
      "TIMESTAMP('2023-01-01T00:01:00Z') GROUP BY RANGE ts EVERY (10, SECOND) FILL (LINEAR);",
    "SELECT AVG(value1) FROM t WHERE TIMESTAMP_ADD(MONTH, ts, 1) > NOW() AND " +
      "EXTRACT(DAY_OF_WEEK, ts, '+09:00') = 0",
    "update container1 set col2 = 333 where col1 = 't3'",
    "insert into container1(col1, col2) values('t4', 4)",
  ];
  it('parses each and reads its canonical print back to the same tree', () => {
    for (const text of examples) {
      const tree = statementOf(text);
      assert.deepEqual(withoutPositions(statementOf(printSqlStatement(tree))),
        withoutPositions(tree), text);
    }
  });
});

describe('sql parser: errors locate the problem', () => {
  it('says what it expected and what it found, with line and column', () => {
    const cases: [string, string][] = [
      ['DELETE\n  FORM t', 'syntax error at line 2, column 3: expected FROM, found "FORM"'],
      ['SELECT a FROM t WHERE', 'syntax error at line 1, column 22: expected an expression, ' +
        'found end of text'],
      ['SELECT (1 + 2', "syntax error at line 1, column 14: expected ')', found end of text"],
      ['INSERT INTO t VALUES (1),()', 'syntax error at line 1, column 26: a VALUES row needs at ' +
        'least one value'],
      ['INSERT INTO t VALUES (1, 2),\n (3)', 'syntax error at line 2, column 2: ' +
        'this VALUES row has 1 value(s), the first has 2'],
      ['SELECT a FROM t HAVING a > 1', 'syntax error at line 1, column 17: ' +
        'HAVING needs a GROUP BY before it'],
      ['CREATE TABLE t (a INTEGER, b INTEGER PRIMARY KEY)', 'syntax error at line 1, column 28: ' +
        'only the first column may be declared PRIMARY KEY, not b; write PRIMARY KEY (...) after ' +
        'the columns'],
      ['ALTER TABLE t ADD x INTEGER PRIMARY KEY', 'syntax error at line 1, column 19: ' +
        'ALTER TABLE ADD cannot add a PRIMARY KEY column'],
      ['UPDATE t SET t.a = 1', 'syntax error at line 1, column 14: a SET target is a column name ' +
        'without its table'],
      ['SELECT * FROM t GROUP BY RANGE(ts) EVERY(0, SECOND)',
        'syntax error at line 1, column 42: ' +
        'the interval of EVERY must be positive'],
      ['SELECT * FROM t GROUP BY RANGE(ts) EVERY(1, WEEK)', 'syntax error at line 1, column 45: ' +
        'expected DAY, HOUR, MINUTE, SECOND or MILLISECOND, found "WEEK"'],
      ['SELECT EXTRACT(ts, YEAR)', 'syntax error at line 1, column 16: expected a time unit ' +
        '(YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, NANOSECOND, ' +
        'DAY_OF_WEEK, DAY_OF_YEAR), found "ts"'],
      ['FOO 1', 'syntax error at line 1, column 1: expected a statement (SELECT, INSERT, UPDATE, ' +
        'DELETE, CREATE, DROP, ALTER, EXPLAIN, ...), found "FOO"'],
      ['SELECT 1 2', 'syntax error at line 1, column 10: ' +
        'expected FROM, WHERE, GROUP BY, ORDER BY, ' +
        "LIMIT, an operator, ';' or the end, found the number 2"],
    ];
    for (const [text, message] of cases) {
      const error = parseError(text);
      assert.equal(error.message, message, text);
      assert.equal(error.errorNumber, 240001, text);
    }
  });

  it('refuses an empty query and a second statement where one is wanted', () => {
    assert.throws(() => parseSqlStatement(' ; '), /the query is empty/);
    assert.throws(() => parseSqlStatement('SELECT 1; SELECT 2'),
      (error: unknown) => error instanceof SqlError && error.code === 'NOT_SUPPORTED' &&
        error.position.column === 11);
  });

  it('nests up to SQL_EXPRESSION_DEPTH_MAX, beyond is LIMIT_EXCEEDED, not a crash', () => {
    const depth = SQL_EXPRESSION_DEPTH_MAX - 1;
    assert.ok(statementOf(`SELECT ${'('.repeat(depth)}1${')'.repeat(depth)}`));
    assert.ok(statementOf(`SELECT ${'-'.repeat(depth).split('').join(' ')} 1`));
    for (const text of [
      `SELECT ${'('.repeat(depth + 1)}1${')'.repeat(depth + 1)}`,
      `SELECT ${'NOT '.repeat(100_000)} 1`,
      `SELECT ${'f('.repeat(100_000)}`,
    ]) {
      const error = parseError(text);
      assert.equal(error.code, 'LIMIT_EXCEEDED');
      assert.match(error.message, /at most 1000 levels/);
    }
  });
});

describe('sql parser: operator precedence and associativity (SQLite\'s)', () => {
  const cases: [string, string][] = [
    ['a OR b AND c', '(a OR (b AND c))'],
    ['a AND b OR c', '((a AND b) OR c)'],
    ['NOT a AND b', '((NOT a) AND b)'],
    ['NOT a = b', '(NOT (a = b))'],
    ['NOT NOT a', '(NOT (NOT a))'],
    ['a = NOT b AND c', '((a = (NOT b)) AND c)'],
    ['a = NOT b = c', '(a = (NOT (b = c)))'],
    ['a BETWEEN NOT b AND c', '(a BETWEEN (NOT b) AND c)'],
    ['a = b = c', '((a = b) = c)'],
    ['a == b <> c != d', '(((a == b) <> c) != d)'],
    ['a = b < c', '(a = (b < c))'],
    ['a < b = c', '((a < b) = c)'],
    ['a < b < c', '((a < b) < c)'],
    ['a < b & c', '(a < (b & c))'],
    ['a & b | c << d >> e', '((((a & b) | c) << d) >> e)'],
    ['a | b + c', '(a | (b + c))'],
    ['a + b * c', '(a + (b * c))'],
    ['a - b - c', '((a - b) - c)'],
    ['a / b % c * d', '(((a / b) % c) * d)'],
    ['a * b || c', '(a * (b || c))'],
    ['a || b || c', '((a || b) || c)'],
    ['-a || b', '((-a) || b)'],
    ['-a * b', '((-a) * b)'],
    ['~a + b', '((~a) + b)'],
    ['- -a', '(-(-a))'],
    ['a IS NOT b AND c', '((a IS NOT b) AND c)'],
    ['a IS b = c', '((a IS b) = c)'],
    ['a = b IS c', '((a = b) IS c)'],
    ['a IS NULL OR b ISNULL', '((a IS NULL) OR (b ISNULL))'],
    ['a NOT NULL AND b NOTNULL', '((a NOTNULL) AND (b NOTNULL))'],
    ['a LIKE b || c ESCAPE d', '(a LIKE (b || c) ESCAPE d)'],
    ['a NOT LIKE b = c', '((a NOT LIKE b) = c)'],
    ['a GLOB b AND c', '((a GLOB b) AND c)'],
    ['a BETWEEN b + 1 AND c * 2 AND d', '((a BETWEEN (b + 1) AND (c * 2)) AND d)'],
    ['a NOT BETWEEN b AND c OR d', '((a NOT BETWEEN b AND c) OR d)'],
    ['a + 1 IN (1, b = c)', '((a + 1) IN (1, (b = c)))'],
    ['a NOT IN (1) = b', '((a NOT IN (1)) = b)'],
    ['(a OR b) AND c', '((a OR b) AND c)'],
  ];
  for (const [text, expected] of cases) {
    it(`${text} groups as ${expected}`, () => {
      assert.equal(grouping(text), expected);
    });
  }
});
