import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  TQL_EXPRESSION_DEPTH_MAX,
  TQL_FUNCTION_ARGUMENT_COUNT_MAX,
  TQL_IN_LIST_LENGTH_MAX,
} from '../../../lib/base/limits.ts';
import type { TqlExpression } from '../../../lib/query/tql/ast.ts';
import { parseTql } from '../../../lib/query/tql/parser.ts';
import { tqlError } from './tql-test-helpers.ts';

/** An expression as a compact S-expression, to compare trees briefly. */
function show(expression: TqlExpression): string {
  switch (expression.kind) {
    case 'literal': {
      const literal = expression.literal;
      return literal.type === 'NULL'
        ? 'NULL'
        : literal.type === 'STRING'
          ? `'${literal.value}'`
          : literal.type === 'BLOB'
            ? 'BLOB'
            : String(literal.value);
    }
    case 'name':
      return expression.quoted ? `"${expression.name}"` : expression.name;
    case 'call': {
      const args = expression.args.map(show);
      return `${expression.name}(${[...(expression.star ? ['*'] : []), ...args].join(', ')})`;
    }
    case 'unary':
      return `(${expression.operator} ${show(expression.operand)})`;
    case 'arithmetic':
    case 'comparison':
      return `(${expression.operator} ${show(expression.left)} ${show(expression.right)})`;
    case 'logical':
      return `(${expression.operator} ${expression.operands.map(show).join(' ')})`;
    case 'xor':
      return `(XOR ${show(expression.left)} ${show(expression.right)})`;
    case 'isNull':
      return `(${expression.negated ? 'NOTNULL' : 'ISNULL'} ${show(expression.operand)})`;
    case 'like':
      return (
        `(${expression.negated ? 'NOTLIKE' : 'LIKE'} ${show(expression.operand)} ` +
        `${show(expression.pattern)}${expression.escape === undefined ? '' : ` ${show(expression.escape)}`})`
      );
    case 'in':
      return `(${expression.negated ? 'NOTIN' : 'IN'} ${show(expression.operand)} ${expression.list.map(show).join(' ')})`;
    case 'between':
      return (
        `(${expression.negated ? 'NOTBETWEEN' : 'BETWEEN'} ${show(expression.operand)} ` +
        `${show(expression.low)} ${show(expression.high)})`
      );
  }
}

function where(condition: string): string {
  return show(parseTql(`SELECT * WHERE ${condition}`).where!);
}

describe('TQL parser', () => {
  it('parses every clause of a statement', () => {
    const statement = parseTql(
      'select * from "cpu" where a = 1 order by a desc, b asc, c limit 10 offset 5;',
    );
    assert.equal(statement.explain, undefined);
    assert.equal(statement.select.kind, 'all');
    assert.deepEqual(statement.from?.parts, ['cpu']);
    assert.equal(show(statement.where!), '(= a 1)');
    assert.deepEqual(
      statement.orderBy.map((key) => [show(key.expression), key.direction]),
      [
        ['a', 'DESC'],
        ['b', 'ASC'],
        ['c', 'ASC'],
      ],
    );
    assert.equal(statement.limit?.count, 10n);
    assert.equal(statement.offset?.count, 5n);
  });

  it('takes keywords in any case, and EXPLAIN [ANALYZE]', () => {
    assert.equal(parseTql('ExPlAiN SeLeCt *').explain, 'EXPLAIN');
    assert.equal(parseTql('explain analyze select *').explain, 'EXPLAIN ANALYZE');
    const statement = parseTql('select count(*)');
    assert.equal(statement.select.kind, 'call');
    assert.equal(statement.select.kind === 'call' && show(statement.select), 'count(*)');
  });

  it('applies the precedence of GridDB: unary -, * / %, + -, comparisons, NOT, AND, OR XOR', () => {
    assert.equal(where('a + b * c = d'), '(= (+ a (* b c)) d)');
    assert.equal(where('a - b - c > 0'), '(> (- (- a b) c) 0)');
    assert.equal(where('-a * b < 1'), '(< (* (- a) b) 1)');
    assert.equal(where('NOT a = 1 AND b OR c XOR d'), '(XOR (OR (AND (NOT (= a 1)) b) c) d)');
    assert.equal(where('a OR b OR c AND d'), '(OR a b (AND c d))');
    assert.equal(where('a AND b AND c'), '(AND a b c)');
    assert.equal(where('(a OR b) AND c'), '(AND (OR a b) c)');
    assert.equal(where('NOT NOT a'), '(NOT (NOT a))');
    assert.equal(where('a & b | c << 1 >> 2 = 0'), '(= (>> (<< (| (& a b) c) 1) 2) 0)');
    assert.equal(where('a == 1 AND b != 2'), '(AND (= a 1) (<> b 2))');
    assert.equal(where('a = b = c'), '(= (= a b) c)');
  });

  it('folds a minus into number literals, so the smallest LONG is a literal', () => {
    assert.equal(where('a = -9223372036854775808'), '(= a -9223372036854775808)');
    assert.equal(where('a = -INF'), '(= a -Infinity)');
    assert.equal(where('a = - 1.5'), '(= a -1.5)');
    assert.equal(where('a = +2'), '(= a 2)');
    assert.equal(where('a = -(b)'), '(= a (- b))');
  });

  it('parses literals, names and calls', () => {
    assert.equal(
      where("s = 'x' AND b = TRUE AND c = false AND d IS NULL AND e = NaN AND f = inf"),
      "(AND (= s 'x') (= b true) (= c false) (ISNULL d) (= e NaN) (= f Infinity))",
    );
    assert.equal(where('"select" = 1 AND "Col-1.x" = 2'), '(AND (= "select" 1) (= "Col-1.x" 2))');
    assert.equal(where('t > TIMESTAMPADD(DAY, NOW(), -1)'), '(> t TIMESTAMPADD(DAY, NOW(), -1))');
    assert.equal(where("x = X'00ff'"), '(= x BLOB)');
    assert.equal(where('TIME_NEXT(*, t) IS NOT NULL'), '(NOTNULL TIME_NEXT(*, t))');
  });

  it('parses IS [NOT] NULL, [NOT] LIKE ... ESCAPE, [NOT] IN and [NOT] BETWEEN', () => {
    assert.equal(where('a IS NOT NULL'), '(NOTNULL a)');
    assert.equal(where("s LIKE 'a%'"), "(LIKE s 'a%')");
    assert.equal(where("s NOT LIKE 'a$%' ESCAPE '$'"), "(NOTLIKE s 'a$%' '$')");
    assert.equal(where('a IN (1, 2, 3)'), '(IN a 1 2 3)');
    assert.equal(where('a NOT IN (1)'), '(NOTIN a 1)');
    assert.equal(where('a BETWEEN 1 AND 2 AND b'), '(AND (BETWEEN a 1 2) b)');
    assert.equal(where('a NOT BETWEEN 1 + 1 AND 5'), '(NOTBETWEEN a (+ 1 1) 5)');
  });

  it('reports a syntax error at the token that went wrong', () => {
    assert.throws(
      () => parseTql('SELECT'),
      tqlError('TQL_SYNTAX', { column: 7 }, /SELECT takes \*/),
    );
    assert.throws(
      () => parseTql('SELECT a'),
      tqlError('TQL_SYNTAX', { column: 8 }, /SELECT takes \*/),
    );
    assert.throws(
      () => parseTql('SELECT * WHERE'),
      tqlError('TQL_SYNTAX', { column: 15 }, /expected a value/),
    );
    assert.throws(() => parseTql('SELECT * WHERE a ='), tqlError('TQL_SYNTAX', { column: 19 }));
    assert.throws(
      () => parseTql('SELECT * WHERE a IS 1'),
      tqlError('TQL_SYNTAX', { column: 21 }, /IS must be followed by NULL/),
    );
    assert.throws(
      () => parseTql('SELECT * WHERE (a = 1'),
      tqlError('TQL_SYNTAX', { column: 22 }, /to close "\("/),
    );
    assert.throws(() => parseTql('SELECT * WHERE f(a, '), tqlError('TQL_SYNTAX', { column: 21 }));
    assert.throws(
      () => parseTql('SELECT * LIMIT -1'),
      tqlError('TQL_SYNTAX', { column: 16 }, /non-negative integer/),
    );
    assert.throws(
      () => parseTql('SELECT * LIMIT 1.5'),
      tqlError('TQL_SYNTAX', { column: 16 }, /non-negative integer/),
    );
    assert.throws(
      () => parseTql('SELECT * OFFSET 1'),
      tqlError('TQL_SYNTAX', { column: 10 }, /OFFSET needs a LIMIT/),
    );
    assert.throws(
      () => parseTql('SELECT * WHERE where = 1'),
      tqlError('TQL_SYNTAX', { column: 16 }, /quote a column/),
    );
    assert.throws(
      () => parseTql('SELECT * WHERE a = 1 b'),
      tqlError('TQL_SYNTAX', { column: 22 }, /after the end/),
    );
    assert.throws(
      () => parseTql('SELECT * ORDER a'),
      tqlError('TQL_SYNTAX', { column: 16 }, /expected BY/),
    );
    assert.throws(
      () => parseTql('SELECT * FROM 1'),
      tqlError('TQL_SYNTAX', { column: 15 }, /container name/),
    );
    assert.throws(
      () => parseTql('SELECT * WHERE a IN 1'),
      tqlError('TQL_SYNTAX', { column: 21 }, /after IN/),
    );
    assert.throws(
      () => parseTql('SELECT * WHERE a BETWEEN 1 OR 2'),
      tqlError('TQL_SYNTAX', { column: 28 }, /expected AND/),
    );
    assert.throws(
      () => parseTql('SELECT * WHERE f(*'),
      tqlError('TQL_SYNTAX', { column: 19 }, /after \*/),
    );
    assert.throws(
      () => parseTql('SELECT *\nWHERE\n  a = )'),
      tqlError('TQL_SYNTAX', { line: 3, column: 7 }),
    );
  });

  it('bounds nesting depth, IN lists and argument lists', () => {
    const deep = TQL_EXPRESSION_DEPTH_MAX + 5;
    assert.throws(
      () => parseTql(`SELECT * WHERE ${'('.repeat(deep)}a${')'.repeat(deep)}`),
      tqlError('LIMIT_EXCEEDED', undefined, /nest/),
    );
    assert.throws(
      () => parseTql(`SELECT * WHERE a = ${'- '.repeat(deep)}b`),
      tqlError('LIMIT_EXCEEDED'),
    );
    assert.throws(
      () => parseTql(`SELECT * WHERE a = 1${' + 1'.repeat(deep)}`),
      tqlError('LIMIT_EXCEEDED'),
    );
    assert.throws(
      () => parseTql(`SELECT * WHERE ${'NOT '.repeat(deep)}a`),
      tqlError('LIMIT_EXCEEDED'),
    );
    // Flat AND and OR chains do not nest.
    parseTql(`SELECT * WHERE a = 1${' OR a = 1'.repeat(5 * TQL_EXPRESSION_DEPTH_MAX)}`);
    const list = (count: number) => Array.from({ length: count }, (_, i) => i).join(',');
    parseTql(`SELECT * WHERE a IN (${list(TQL_IN_LIST_LENGTH_MAX)})`);
    assert.throws(
      () => parseTql(`SELECT * WHERE a IN (${list(TQL_IN_LIST_LENGTH_MAX + 1)})`),
      tqlError('LIMIT_EXCEEDED', undefined, /IN list/),
    );
    assert.throws(
      () => parseTql(`SELECT * WHERE CONCAT(${list(TQL_FUNCTION_ARGUMENT_COUNT_MAX + 1)}) = ''`),
      tqlError('LIMIT_EXCEEDED', undefined, /arguments/),
    );
  });

  it('never throws anything but a StorageError on any text', () => {
    const samples = [
      "SELECT * WHERE ((('",
      'SELECT * WHERE a IN ()',
      'SELECT COUNT(',
      ';',
      '',
      'SELECT * LIMIT 1 OFFSET',
      "SELECT * WHERE X'",
      'SELECT * FROM a.',
      'SELECT * WHERE --',
    ];
    for (const text of samples) {
      assert.throws(() => parseTql(text), tqlError('TQL_SYNTAX'), text);
    }
  });
});
